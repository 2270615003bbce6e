"""The random player (conformance/fuzz/player.py): a seeded policy and random queries.

No adapter runs here: the policy reads a state and proposes an action, which must be a
protocol action naming a seat of the game, and the same seed must propose the same.
"""

from __future__ import annotations

import random

import pytest

from conformance.adapter.declarations import Declarations, declarations
from conformance.adapter.engine import Handshake
from conformance.fuzz.player import Policy, random_query
from conformance.fuzz.states import built_state
from conformance.knowledge.catalogue import load_catalogue
from conformance.knowledge.profiles import find_profile

ACTIONS = {"draw_stock", "draw_discard", "open", "lay_off", "swap_joker", "discard"}
HELLO = {
    "protocol": 1,
    "implementation": {"name": "t", "version": "1", "language": "py"},
    "profiles": ["argentine", "chilean", "pagat", "perla"],
    "capabilities": ["melds", "turns", "deals", "reasons"],
}


def _declared(profile: str = "argentine", **extra: object) -> Declarations:
    return declarations(Handshake.from_hello({**HELLO, **extra}), profile, load_catalogue())


def _actions(seed: int, profile: str, decl: Declarations, n: int = 40) -> list[dict[str, object]]:
    rng = random.Random(seed)
    facts = find_profile(profile)
    policy = Policy(rng, decl, facts)
    out = []
    for k in range(n):
        state = built_state(rng, 3, 1 + k % facts.deal_count, k % 3, [0, 0, 0], profile)
        if k % 2:
            state = {**state, "phase": "play"}
        out.append(policy.action(state))
    return out


@pytest.mark.parametrize("profile", ["argentine", "chilean", "pagat", "perla"])
def test_the_policy_proposes_protocol_actions_for_seats_of_the_game(profile: str) -> None:
    actions = _actions(1, profile, _declared(profile))
    kinds = {a["type"] for a in actions}
    assert kinds <= ACTIONS
    assert {"draw_stock", "discard"} & kinds
    for action in actions:
        assert isinstance(action["player"], int) and 0 <= action["player"] < 3
        if action["type"] == "open":
            assert all(m["kind"] in ("trio", "run") for m in action["melds"])  # type: ignore[attr-defined]


def test_the_same_seed_proposes_the_same_actions() -> None:
    decl = _declared()
    assert _actions(7, "argentine", decl) == _actions(7, "argentine", decl)
    assert _actions(7, "argentine", decl) != _actions(8, "argentine", decl)


def test_random_queries_are_protocol_requests_of_the_profile() -> None:
    rng = random.Random(3)
    decl = _declared("chilean")
    seen = set()
    for _ in range(200):
        query = random_query(rng, decl, "chilean")
        seen.add(query["query"])
        assert query["profile"] == "chilean"
        if query["query"] == "check_meld":
            assert query["meld"]["kind"] in ("trio", "run") and isinstance(query["initial"], bool)
        elif query["query"] == "check_contract":
            assert 1 <= query["deal_number"] <= find_profile("chilean").deal_count
        else:
            assert isinstance(query["cards"], list)
    assert seen == {"check_meld", "check_contract", "penalty"}
