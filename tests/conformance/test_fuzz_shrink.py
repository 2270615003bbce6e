"""The shrinker (conformance/fuzz/shrink.py): delta debugging and dropping a player.

The end-to-end proof (a shrunk draft still fails the mutant it was found on) is in
test_fuzz_drafts.py; here the parts, without adapters.
"""

from __future__ import annotations

from conformance.fuzz.shrink import _ddmin, _without_player


def test_ddmin_finds_a_one_minimal_sublist() -> None:
    calls: list[list[int]] = []

    def holds(items: list[int]) -> bool:
        calls.append(items)
        return 3 in items and 7 in items

    budget = [200]
    assert _ddmin(list(range(10)), holds, budget) == [3, 7]
    assert budget[0] == 200 - len(calls)


def test_ddmin_stops_at_its_budget() -> None:
    budget = [2]
    smaller = _ddmin(list(range(16)), lambda items: 5 in items, budget)
    assert budget[0] <= 0
    assert 5 in smaller and len(smaller) < 16


def test_a_player_who_neither_acts_nor_owns_a_meld_is_dropped() -> None:
    state = {
        "players": 4,
        "dealer": 2,
        "turn": 3,
        "hands": [["AS"], ["2S", "3S"], ["4S"], ["5S"]],
        "opened": [True, False, False, False],
        "totals": [1, 2, 3, 4],
        "table": [{"owner": 0, "kind": "trio", "cards": ["9C", "9D", "9H"]}],
        "stock": ["KD"],
    }
    action = {"type": "discard", "player": 3, "card": "5S"}
    dropped = _without_player(state, 1, action)
    assert dropped is not None
    fewer, act = dropped
    assert fewer["players"] == 3 and fewer["hands"] == [["AS"], ["4S"], ["5S"]]
    assert fewer["stock"] == ["KD", "2S", "3S"]
    assert (fewer["turn"], fewer["dealer"], act["player"]) == (2, 1, 2)
    assert fewer["totals"] == [1, 3, 4] and fewer["opened"] == [True, False, False]
    # The player to move, the actor and a meld's owner all matter.
    assert _without_player(state, 3, action) is None
    assert _without_player(state, 0, action) is None
