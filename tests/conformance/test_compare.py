"""Comparison of asserted keys only, multisets vs ordered lists, readable diffs."""

from __future__ import annotations

from conformance.grading.compare import (
    compare_check,
    compare_outcome,
    compare_state,
    compare_unchanged,
    format_mismatches,
    glyph,
)

STATE = {
    "players": 2,
    "turn": 1,
    "phase": "play",
    "hands": [["8C", "8D", "10H"], ["JK", "AS"]],
    "table": [
        {"owner": 0, "kind": "trio", "cards": ["9S", "9D", "JK"]},
        {"owner": 1, "kind": "run", "cards": ["4S", "5S", "6S", "7S"]},
    ],
    "stock": ["3C", "4C", "5C"],
    "discard": ["QS", "2D"],
}


def test_glyphs() -> None:
    assert glyph("10H") == "10♥" and glyph("AS") == "A♠" and glyph("JK") == "JK"


def test_only_named_keys_are_compared() -> None:
    assert compare_state({"phase": "play"}, {**STATE, "turn": 0}) == []


def test_hands_are_multisets_and_partial_mapping() -> None:
    assert compare_state({"hands": {0: ["10H", "8C", "8D"]}}, STATE) == []
    (m,) = compare_state({"hands": {1: ["JK", "KS"]}}, STATE)
    assert m.what == "hands[1]" and "missing [K♠]" in m.actual and "unexpected [A♠]" in m.actual


def test_hands_count_copies_and_compare_items_that_do_not_sort() -> None:
    two_packs = {**STATE, "hands": [["8C", "8C", "10H"], ["JK", "AS"]]}
    assert compare_state({"hands": {0: ["8C", "10H", "8C"]}}, two_packs) == []
    (m,) = compare_state({"hands": {0: ["8C", "10H", "10H"]}}, two_packs)
    assert m.what == "hands[0]"
    # A card and a number do not sort together: counted instead.
    odd = {**STATE, "hands": [["8C", 3, "8C"], ["JK", "AS"]]}
    assert compare_state({"hands": {0: [3, "8C", "8C"]}}, odd) == []
    (m,) = compare_state({"hands": {0: [3, 3, "8C"]}}, odd)
    assert m.what == "hands[0]"


def test_trios_are_multisets_runs_are_ordered() -> None:
    trio_reordered = {"owner": 0, "kind": "trio", "cards": ["JK", "9S", "9D"]}
    run = {"owner": 1, "kind": "run", "cards": ["4S", "5S", "6S", "7S"]}
    assert compare_state({"table": [trio_reordered, run]}, STATE) == []
    run_reordered = {"owner": 1, "kind": "run", "cards": ["5S", "4S", "6S", "7S"]}
    (m,) = compare_state({"table": [trio_reordered, run_reordered]}, STATE)
    assert m.what == "table[1].cards"


def test_piles_sizes_and_tops() -> None:
    assert compare_state({"stock_top": ["3C", "4C"], "discard_top": "QS"}, STATE) == []
    assert compare_state({"stock_size": 3, "discard_size": 2}, STATE) == []
    assert compare_state({"stock_cards": ["5C", "3C", "4C"]}, STATE) == []
    (m,) = compare_state({"stock": ["4C", "3C", "5C"]}, STATE)
    assert m.what == "stock" and m.actual == "[3♣ 4♣ 5♣]"
    (m,) = compare_state({"hand_sizes": [3, 3]}, STATE)
    assert m.actual == "[3, 2]"


def test_outcome_and_reasons() -> None:
    rejected = {"accepted": False, "reason": "not_your_turn"}
    assert compare_outcome("accepted", {"accepted": True}, reasons=True) == []
    assert compare_outcome({"rejected": "not_your_turn"}, rejected, reasons=True) == []
    assert compare_outcome({"rejected": ["x", "not_your_turn"]}, rejected, reasons=True) == []
    (m,) = compare_outcome({"rejected": "draw_first"}, rejected, reasons=True)
    assert m.what == "reason"
    # Without the reasons capability only accepted/rejected counts.
    assert compare_outcome({"rejected": "draw_first"}, rejected, reasons=False) == []
    (m,) = compare_outcome("accepted", rejected, reasons=False)
    assert m.expected == "accepted" and m.actual == "rejected (not_your_turn)"


def test_check_results() -> None:
    assert compare_check({"points": 33}, {"points": 33}, reasons=True) == []
    (m,) = compare_check({"points": 33}, {"points": 34}, reasons=True)
    assert (m.expected, m.actual) == ("33", "34")
    (m,) = compare_check(
        {"valid": False, "reason": "run_wraps"}, {"valid": False, "reason": "run_gap"}, reasons=True
    )
    assert m.what == "reason"


def test_rejection_must_not_change_state() -> None:
    after = {**STATE, "hands": [["8D", "10H", "8C"], ["JK", "AS"]]}
    assert compare_unchanged(STATE, after) == []  # hand order carries no meaning
    changed = {**STATE, "turn": 0}
    (m,) = compare_unchanged(STATE, changed)
    assert m.what.startswith("turn")


def test_diff_text_shows_expected_and_actual() -> None:
    text = format_mismatches(compare_state({"discard": ["10H"]}, STATE))
    assert "expected [10♥]" in text and "actual   [Q♠ 2♦]" in text


def test_dealer_drawn_by_lot_and_first_turn_to_the_right() -> None:
    state = {**STATE, "players": 3, "dealer": 2, "turn": 0}
    assert compare_state({"dealer_in": [0, 1, 2], "turn_right_of_dealer": True}, state) == []
    assert [m.what for m in compare_state({"dealer_in": [0, 1]}, state)] == ["dealer"]
    # Player 1 moving first after dealer 2 would be the dealer's left in a 3-player game.
    wrong = compare_state({"turn_right_of_dealer": True}, {**state, "turn": 1})
    assert [m.what for m in wrong] == ["turn"] and "(0)" in wrong[0].expected


def test_turn_is_not_compared_once_the_deal_has_ended() -> None:
    over = {**STATE, "phase": "deal_over", "turn": 0}
    assert compare_state({"turn": 1}, over) == []
    assert [m.what for m in compare_state({"turn": 0}, STATE)] == ["turn"]


def test_winners_are_a_set() -> None:
    over = {**STATE, "phase": "game_over", "winners": [2, 0]}
    assert compare_state({"winners": [0, 2]}, over) == []
    assert [m.what for m in compare_state({"winners": [0]}, over)] == ["winners"]
    assert [m.what for m in compare_state({"winners": None}, over)] == ["winners"]


def test_a_deal_from_another_seat_is_read_from_the_first_player() -> None:
    from conformance.grading.compare import dealt_from, seated_for

    deck = ["AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S"]
    # Three players, two cards each, dealt from seat 2: it holds deck[0] and deck[3].
    state = {
        "phase": "draw",
        "turn": 2,
        "hands": [["2S", "5S"], ["3S", "6S"], ["AS", "4S"]],
        "totals": [0, -10, 0],
    }
    assert dealt_from(state, deck) == 2
    assert dealt_from({**state, "hands": [["AS", "2S"], ["3S"], ["4S"]]}, deck) is None
    seated = seated_for(state, 1, 2, [0, 0, 0])
    assert seated is not None
    assert seated["hands"] == [["3S", "6S"], ["AS", "4S"], ["2S", "5S"]]
    assert seated["turn"] == 1
    # What the deal changed in the totals (a cut's -10) moves with the hands.
    assert seated["totals"] == [-10, 0, 0]
    # Dealt as the case deals, only its first player its own: the turn alone is read.
    own_turn = seated_for({**state, "turn": 0}, 2, 2)
    assert own_turn is not None and own_turn["hands"] == state["hands"] and own_turn["turn"] == 2
    assert seated_for(state, 2, 2) is None
