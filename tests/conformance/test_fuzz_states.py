"""Built mid-deal states (conformance/fuzz/states.py): reachable, whole packs, every profile.

No adapter runs here: a built state must hold exactly the pack dealt to its players, and
pass the harness's own reachability check (conformance/knowledge/reachability.py), or the
reference would refuse it and the game would be lost.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from conformance.fuzz.states import built_state
from conformance.knowledge.profiles import find_profile
from conformance.knowledge.reachability import unreachable_problems


@pytest.mark.parametrize("profile", ["argentine", "chilean", "pagat", "perla"])
@pytest.mark.parametrize("careful", [False, True])
def test_built_states_hold_the_pack_and_are_reachable(profile: str, careful: bool) -> None:
    facts = find_profile(profile)
    rng = random.Random(f"states:{profile}:{careful}")
    opened_somewhere = False
    for k in range(30):
        players = facts.players[k % len(facts.players)]
        deal = 1 + k % facts.deal_count
        dealer, totals = k % players, [0] * players
        state = built_state(rng, players, deal, dealer, totals, profile, careful=careful)
        cards = [c for h in state["hands"] for c in h] + state["stock"] + state["discard"]
        cards += [c for m in state["table"] for c in m["cards"]]
        assert Counter(cards) == Counter(facts.pack(players).canonical_order())
        assert state["phase"] == "draw" and state["turn"] == (dealer + 1) % players
        assert state["discard"], "a deal always has an upcard"
        assert unreachable_problems(state, facts) == [], state
        opened_somewhere |= any(state["opened"])
    assert opened_somewhere


def test_careful_trios_are_natural_cards_of_distinct_suits() -> None:
    facts = find_profile("perla")
    rng = random.Random("careful")
    trios = 0
    for k in range(20):
        state = built_state(rng, 4, 1 + k % 5, 0, [0] * 4, "perla", careful=True)
        for meld in state["table"]:
            if meld["kind"] == "trio":
                trios += 1
                suits = [c[-1] for c in meld["cards"]]
                assert len(set(suits)) == len(suits)
                assert not any(facts.is_wild(c) for c in meld["cards"])
    assert trios
