"""Contract probes (conformance/fuzz/probes.py): an opening with an extra meld
of another kind, and a chilean natural 2 at the 2-position of a run, are offered in every
game, and an engine that gets them wrong is found."""

from __future__ import annotations

import random

import pytest

from conformance.fuzz.probes import (
    contract_query,
    extra_meld_state,
    natural_two_queries,
    natural_two_state,
    other_kind_deals,
)
from conformance.knowledge.profiles import find_profile
from conformance.knowledge.reachability import unreachable_problems
from tests.conformance.fuzzkit import HOUSE, run_fuzz

#: An engine that answers is all these tests need: the reference answers in-process
#: (tests/adapters.py); the tests of what its process does run it as a process.
pytestmark = pytest.mark.usefixtures("reference_in_process")


def test_the_extra_meld_is_of_another_kind_than_the_contracts() -> None:
    # Deal 1: two trios and a run; deal 3: two runs and a trio; deal 2 either; deal 4 on
    # leaves no card to discard after one more meld.
    assert other_kind_deals(find_profile("argentine")) == [
        (1, ["trio", "trio"], "run"),
        (2, ["trio", "run"], "trio"),
        (2, ["trio", "run"], "run"),
        (3, ["run", "run"], "trio"),
    ]
    rng = random.Random(1)
    for _ in range(20):
        query = contract_query(rng, find_profile("pagat"))
        assert query is not None
        kinds = sorted(m["kind"] for m in query["melds"])
        assert kinds in (["run", "trio", "trio"], ["run", "run", "trio"])


@pytest.mark.parametrize("profile", ["argentine", "chilean", "pagat", "perla"])
def test_a_probe_state_holds_the_melds_it_opens_with(profile: str) -> None:
    facts = find_profile(profile)
    rng = random.Random(profile)
    for players in facts.players[:3]:
        built = extra_meld_state(rng, players, 0, facts)
        assert built is not None
        state, script = built
        assert unreachable_problems(state, facts) == []
        drawn = {**state, "phase": "play", "hands": [*state["hands"]]}
        opening = script(drawn)
        assert opening is not None and opening["type"] == "open"
        held = list(state["hands"][state["turn"]])
        for meld in opening["melds"]:
            for card in meld["cards"]:
                held.remove(card)  # every card of the opening is in the hand
        # Whatever it is, the card drawn first is left to discard (TURN-9).


def test_the_chilean_natural_two_stands_at_the_two_position() -> None:
    facts = find_profile("chilean")
    rng = random.Random(2)
    for _ in range(10):
        for query in natural_two_queries(rng, facts):
            cards = query["meld"]["cards"]
            # Placed by a natural card that is not a 2: A at 1, 3 at 3, 4 at 4, 5 at 5.
            index, anchor = next((i, c) for i, c in enumerate(cards) if c[0] in "A345")
            low = "A2345".index(anchor[0]) + 1 - index
            assert cards[2 - low] == "2" + anchor[-1]
        built = natural_two_state(rng, 3, 1, facts)
        assert built is not None
        state, _ = built
        (run,) = state["table"]
        assert not run["cards"][1 if "A" in run["cards"][0] else 0].startswith(
            "2" + run["cards"][-1][-1]
        )
        assert unreachable_problems(state, facts) == []
    # Where 2s are natural there is no such probe.
    assert natural_two_queries(rng, find_profile("argentine")) == []
    assert natural_two_state(rng, 2, 0, find_profile("argentine")) is None


@pytest.mark.parametrize(
    ("flag", "profile", "ops"),
    [
        ("--extra-melds", "argentine", {"open", "check_contract"}),
        ("--refuse-natural-two", "chilean", {"swap_joker"}),
    ],
)
def test_an_engine_that_gets_a_probe_wrong_is_found(flag: str, profile: str, ops: set[str]) -> None:
    result = run_fuzz([*HOUSE, flag], games=1, profile=profile)
    assert {f.divergence.op for f in result.findings} >= ops, [
        f.divergence.key for f in result.findings
    ]
