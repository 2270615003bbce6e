"""The state an accepted action leads to, built only for the plain moves."""

from __future__ import annotations

from typing import Any

from conformance.adapter.declarations import Declarations, declarations
from conformance.adapter.engine import Handshake
from conformance.grading.after import moved
from conformance.knowledge.catalogue import load_catalogue

CATALOGUE = load_catalogue()


def engine(**extra: Any) -> Declarations:
    shake = Handshake.from_hello(
        {
            "protocol": 1,
            "implementation": {"name": "t", "version": "1", "language": "x"},
            "profiles": ["argentine", "perla"],
            "capabilities": ["melds", "turns", "deals"],
            **extra,
        }
    )
    return declarations(shake, "argentine", CATALOGUE)


def state(**changes: Any) -> dict[str, Any]:
    base = {
        "profile": "argentine",
        "players": 2,
        "deal_number": 1,
        "dealer": 0,
        "turn": 1,
        "phase": "draw",
        "hands": [["2C", "3C"], ["8C", "8D", "8H", "5S", "6S", "7S", "9S", "KD"]],
        "opened": [False, False],
        "turn_opened": False,
        "table": [{"owner": 0, "kind": "trio", "cards": ["QS", "QH", "QD"]}],
        "stock": ["4S", "AH", "AD"],
        "discard": ["KC", "KH"],
        "totals": [0, 0],
        "deal_scores": None,
        "closer": None,
        "winners": None,
        "x": {"own": 1},
    }
    return {**base, **changes}


def test_a_draw_takes_the_top_card_and_keeps_the_turn() -> None:
    after = moved(state(), {"type": "draw_stock", "player": 1}, engine())
    assert after is not None
    assert after["hands"][1][-1] == "4S" and after["stock"] == ["AH", "AD"]
    assert after["phase"] == "play" and after["turn"] == 1 and "x" not in after
    taken = moved(state(), {"type": "draw_discard", "player": 1}, engine())
    assert taken is not None and taken["discard"] == ["KH"] and "KC" in taken["hands"][1]


def test_a_discard_passes_the_turn_unless_it_closes() -> None:
    before = state(phase="play", turn_opened=True)
    after = moved(before, {"type": "discard", "player": 1, "card": "KD"}, engine())
    assert after is not None
    assert after["discard"][0] == "KD" and "KD" not in after["hands"][1]
    assert (after["turn"], after["phase"], after["turn_opened"]) == (0, "draw", False)
    last = state(phase="play", turn=0, hands=[["2C"], ["8C"]])
    assert moved(last, {"type": "discard", "player": 0, "card": "2C"}, engine()) is None


def test_an_opening_and_a_lay_off_move_their_cards_to_the_table() -> None:
    melds = [{"kind": "trio", "cards": ["8C", "8D", "8H"]}]
    opened = moved(state(phase="play"), {"type": "open", "player": 1, "melds": melds}, engine())
    assert opened is not None
    assert opened["table"][-1] == {"owner": 1, "kind": "trio", "cards": ["8C", "8D", "8H"]}
    assert opened["opened"] == [False, True] and opened["turn_opened"] is True
    run = {"owner": 0, "kind": "run", "cards": ["6H", "7H", "8H", "9H"]}
    before = state(phase="play", table=[run], hands=[["2C"], ["5H", "KD"]])
    low = moved(
        before, {"type": "lay_off", "player": 1, "card": "5H", "meld": 0, "end": "low"}, engine()
    )
    assert low is not None and low["table"][0]["cards"] == ["5H", "6H", "7H", "8H", "9H"]
    # An end the engine picks itself is not known: nothing is built.
    picks = engine(run_ends="engine")
    lay = {"type": "lay_off", "player": 1, "card": "5H", "meld": 0, "end": "low"}
    assert moved(before, lay, picks) is None


def test_what_the_protocol_leaves_open_is_not_built() -> None:
    plain = engine()
    assert moved(state(), {"type": "draw_stock", "player": 0}, plain) is None  # not the turn
    assert moved(state(stock=["4S"]), {"type": "draw_stock", "player": 1}, plain) is None
    steal = engine(rulings={"DISPUTE-29": "steal"})
    assert moved(state(), {"type": "draw_stock", "player": 1}, steal) is None
    swap = {"type": "swap_joker", "player": 1, "meld": 0, "card": "QC", "to": "hand"}
    assert moved(state(phase="play"), swap, plain) is None
    declared = [{"kind": "run", "cards": ["5S", "6S", "7S", "JK"], "declared": ["4S"]}]
    act = {"type": "open", "player": 1, "melds": declared}
    assert moved(state(phase="play"), act, plain) is None
