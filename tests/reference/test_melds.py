"""Trios, runs, lay-offs and joker swaps at the meld level (MELD-*, JOKER-1..6, LAYOFF-4)."""

from __future__ import annotations

import pytest
from ref_helpers import run, trio

from reference import Card, Reason, Run, Trio, check_meld
from reference.melds import check_lay_off, check_swap, extend, swap_joker

A_TO_A = "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS"

TRIO_CASES = [
    # (cards, initial, expected reason or None, rule)
    ("8C 8D 8H", True, None, "MELD-TRIO-1"),
    ("8C 8D", True, Reason.TRIO_SIZE, "MELD-TRIO-1"),
    ("8C 8D 8H 8S", True, Reason.TRIO_SIZE, "MELD-TRIO-1 exact at opening, DISPUTE-31"),
    ("8C 8D 8H 8S", False, None, "MELD-TRIO-4 grows later, DISPUTE-03"),
    ("8C 8D", False, Reason.TRIO_SIZE, "MELD-TRIO-1 table trio has at least 3"),
    ("9S 9S 9D", True, None, "MELD-TRIO-2 same-suit copies"),
    ("8C 8C JK", True, None, "MELD-TRIO-2 + JOKER-2, DISPUTE-04"),
    ("8C 8D 9H", True, Reason.TRIO_MIXED_RANKS, "MELD-TRIO-3"),
    ("2S 2H 8S", True, Reason.TRIO_MIXED_RANKS, "CARDS-2: a two is not wild"),
    ("JK JK JK", False, Reason.TRIO_MIXED_RANKS, "MELD-TRIO-3 no natural card"),
    ("8C JK 8D", True, None, "JOKER-1 joker stands for an 8"),
    ("8C JK JK", True, Reason.TOO_MANY_JOKERS, "JOKER-2"),
    ("8C JK JK", False, None, "JOKER-3 no limit after opening, DISPUTE-05"),
    ("8C 8D 8H 8S 8C 8D 8H 8S JK", False, None, "MELD-TRIO-4 no cap, DISPUTE-10"),
    ("8C 9D JK JK", True, Reason.TRIO_SIZE, "precedence: size before jokers"),
    ("8C 9D JK", True, Reason.TRIO_MIXED_RANKS, "precedence: jokers fine, then ranks"),
    ("9D JK JK", True, Reason.TOO_MANY_JOKERS, "precedence: jokers before composition"),
]


@pytest.mark.parametrize(("text", "initial", "expected", "rule"), TRIO_CASES)
def test_check_trio(text: str, initial: bool, expected: Reason | None, rule: str) -> None:
    assert check_meld(trio(text), initial=initial) == expected, rule


RUN_CASES = [
    ("4S 5S 6S 7S", True, None, "MELD-RUN-1"),
    ("4S 5S 6S", True, Reason.RUN_SIZE, "MELD-RUN-1"),
    ("4S 5S 6S 7S 8S", True, Reason.RUN_SIZE, "MELD-RUN-1 exact at opening, DISPUTE-31"),
    ("4S 5S 6S 7S 8S", False, None, "LAYOFF-1 runs grow later"),
    ("4S 5S 6S", False, Reason.RUN_SIZE, "table run has at least 4"),
    ("4S 5H 6S 7S", True, Reason.RUN_SUIT, "MELD-RUN-1 one suit"),
    ("AS 2S 3S 4S", True, None, "MELD-RUN-2 / CARDS-3 ace low"),
    ("JS QS KS AS", True, None, "MELD-RUN-2 / CARDS-3 ace high"),
    ("KS AS 2S 3S", True, Reason.RUN_WRAPS, "MELD-RUN-3"),
    ("QS KS AS 2S", True, Reason.RUN_WRAPS, "MELD-RUN-3"),
    ("KS JK 2S 3S", True, Reason.RUN_WRAPS, "MELD-RUN-3 joker as the corner ace"),
    (A_TO_A, False, None, "MELD-RUN-4 low A to high A, DISPUTE-12"),
    ("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS JK", False, None, "DISPUTE-12 joker high ace"),
    (A_TO_A + " 2S", False, Reason.RUN_SIZE, "MELD-RUN-5 at most 14 cards"),
    ("JK AS 2S 3S", True, Reason.BEYOND_ACE, "MELD-RUN-5 joker below a low ace"),
    ("QS KS AS JK", True, Reason.BEYOND_ACE, "MELD-RUN-5 joker above a high ace, DISPUTE-30"),
    ("4S 5S 7S 8S", True, Reason.RUN_GAP, "MELD-RUN-6"),
    ("4S 6S 5S 7S", True, Reason.RUN_GAP, "MELD-RUN-6 cards listed low to high"),
    ("4S 5S 5S 6S", True, Reason.RUN_GAP, "MELD-RUN-6 repeated rank"),
    ("JK 5S 6S 7S", True, None, "JOKER-1, JOKER-2 one joker"),
    ("4S JK 6S 7S", True, None, "JOKER-1 joker inside"),
    ("JK JK 6S 7S", True, Reason.TOO_MANY_JOKERS, "JOKER-2"),
    ("JK JK 6S 7S", False, None, "JOKER-3"),
    ("4S 5H 7S 8S", True, Reason.RUN_SUIT, "precedence: suit before gap"),
    ("4S 5H 6S", True, Reason.RUN_SIZE, "precedence: size first"),
]


@pytest.mark.parametrize(("text", "initial", "expected", "rule"), RUN_CASES)
def test_check_run(text: str, initial: bool, expected: Reason | None, rule: str) -> None:
    assert check_meld(run(text), initial=initial) == expected, rule


def test_run_positions_and_represented_cards() -> None:
    # MELD-RUN-6 / DISPUTE-30: a joker stands for the card of its position
    low_joker = run("JK 5S 6S 7S")
    assert (low_joker.low, low_joker.high) == (4, 7)
    assert low_joker.represented(0) == Card.from_code("4S")
    high_joker = run("5S 6S 7S JK")
    assert (high_joker.low, high_joker.high) == (5, 8)
    assert high_joker.represented(3) == Card.from_code("8S")
    assert run("JS QS KS AS").high == 14
    assert run("AS 2S 3S 4S").low == 1
    assert run("JK JK JK AS").low == 11  # only a high ace fits after three cards
    assert run(A_TO_A).low == 1 and run(A_TO_A).high == 14
    assert run("4S 5S 6S 7S").suit.value == "S"  # type: ignore[union-attr]


def test_trio_cards_are_a_multiset() -> None:
    assert trio("8H 8C JK") == trio("JK 8C 8H")
    assert trio("8H 8C JK").rank is not None and trio("8H 8C JK").rank.value == 8


LAY_OFF_CASES = [
    # (meld, card, end, expected, rule)
    (trio("8C 8D 8H"), "8S", None, None, "MELD-TRIO-4"),
    (trio("8C 8D 8H"), "8C", None, None, "MELD-TRIO-2 second copy"),
    (trio("8C 8D 8H"), "9S", None, Reason.DOES_NOT_FIT, "LAYOFF-4 trio rank"),
    (trio("8C 8D 8H"), "JK", None, None, "DISPUTE-05 joker on a trio"),
    (trio("8C 8D JK"), "8H", None, None, "DISPUTE-02 (c) joker stays in the trio"),
    (run("4S 5S 6S 7S"), "8S", "high", None, "LAYOFF-4"),
    (run("4S 5S 6S 7S"), "3S", "low", None, "LAYOFF-4"),
    (run("4S 5S 6S 7S"), "8S", "low", Reason.DOES_NOT_FIT, "LAYOFF-4 wrong end"),
    (run("4S 5S 6S 7S"), "8H", "high", Reason.DOES_NOT_FIT, "LAYOFF-4 wrong suit"),
    (run("4S 5S 6S 7S"), "9S", "high", Reason.DOES_NOT_FIT, "LAYOFF-4 not the next rank"),
    (run("4S 5S 6S 7S"), "JK", "high", None, "JOKER-3 joker at an end"),
    (run("JK 5S 6S 7S"), "JK", "low", None, "JOKER-3 a second joker"),
    (run("JS QS KS AS"), "2S", "high", Reason.BEYOND_ACE, "MELD-RUN-5 nothing above high A"),
    (run("JS QS KS AS"), "JK", "high", Reason.BEYOND_ACE, "MELD-RUN-5 not even a joker"),
    (run("AS 2S 3S 4S"), "KS", "low", Reason.BEYOND_ACE, "MELD-RUN-5 nothing below low A"),
    (run("JS QS KS AS"), "10S", "low", None, "LAYOFF-4 other end still open"),
    (run("2S 3S 4S 5S"), "AS", "low", None, "MELD-RUN-2 ace low by lay-off"),
    (run("10S JS QS KS"), "AS", "high", None, "MELD-RUN-2 ace high by lay-off"),
]


@pytest.mark.parametrize(("meld", "card", "end", "expected", "rule"), LAY_OFF_CASES)
def test_check_lay_off(
    meld: Trio | Run, card: str, end: str | None, expected: Reason | None, rule: str
) -> None:
    assert check_lay_off(meld, Card.from_code(card), end) == expected, rule


def test_meld_run_4_a_run_reaches_both_aces_with_two_distinct_aces() -> None:
    # MELD-RUN-4: 2..K then the low ace, then the other (physical) ace high
    middle = run("2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS")
    ace = Card.from_code("AS")
    assert check_lay_off(middle, ace, "low") is None
    with_low = extend(middle, ace, "low")
    assert check_lay_off(with_low, ace, "high") is None
    full = extend(with_low, ace, "high")
    assert full == run(A_TO_A)
    assert check_meld(full, initial=False) is None
    # MELD-RUN-5: 14 cards is the end; neither end takes anything
    assert check_lay_off(full, Card.from_code("JK"), "high") == Reason.BEYOND_ACE
    assert check_lay_off(full, Card.from_code("JK"), "low") == Reason.BEYOND_ACE


def test_extend_places_the_card_at_the_named_end() -> None:
    assert extend(run("4S 5S 6S 7S"), Card.from_code("3S"), "low") == run("3S 4S 5S 6S 7S")
    assert extend(run("4S 5S 6S 7S"), Card.from_code("8S"), "high") == run("4S 5S 6S 7S 8S")
    assert extend(trio("8C 8D 8H"), Card.from_code("JK"), None) == trio("8C 8D 8H JK")


SWAP_CASES = [
    # (meld, natural card, to, expected, rule)
    (run("JK 5S 6S 7S"), "4S", "high", None, "JOKER-4"),
    (run("JK 5S 6S 7S"), "4S", "low", None, "JOKER-4 / DISPUTE-11 joker moves on down"),
    (run("JK 5S 6S 7S"), "8S", "high", Reason.NO_JOKER_FOR_CARD, "JOKER-4 exact card"),
    (run("JK 5S 6S 7S"), "4H", "high", Reason.NO_JOKER_FOR_CARD, "JOKER-4 same suit"),
    (run("4S 5S 6S 7S"), "4S", "high", Reason.NO_JOKER_FOR_CARD, "JOKER-4 no joker"),
    (trio("8C 8D JK"), "8H", "high", Reason.NOT_A_RUN, "JOKER-4 / DISPUTE-02"),
    (run("JK 5S 6S 7S"), "4S", "hand", Reason.JOKER_TO_HAND, "JOKER-5"),
    (run("JK 2S 3S 4S"), "AS", "low", Reason.NO_JOKER_POSITION, "JOKER-6 below low ace"),
    (run("JK 2S 3S 4S"), "AS", "high", None, "JOKER-6 other end is free"),
    (run("JS QS KS JK"), "AS", "high", Reason.NO_JOKER_POSITION, "JOKER-6 above high ace"),
    (
        run("AS 2S 3S 4S 5S 6S 7S JK 9S 10S JS QS KS AS"),
        "8S",
        "low",
        Reason.NO_JOKER_POSITION,
        "JOKER-6 / DISPUTE-11 full A..A run",
    ),
]


@pytest.mark.parametrize(("meld", "card", "to", "expected", "rule"), SWAP_CASES)
def test_check_swap(
    meld: Trio | Run, card: str, to: str, expected: Reason | None, rule: str
) -> None:
    assert check_swap(meld, Card.from_code(card), to) == expected, rule


def test_swap_moves_the_joker_to_the_chosen_end_of_the_same_run() -> None:
    # JOKER-4, JOKER-6: the run stays one sequence; the joker now stands for a new card
    high = swap_joker(run("JK 5S 6S 7S"), Card.from_code("4S"), "high")
    assert high == run("4S 5S 6S 7S JK")
    assert high.represented(4) == Card.from_code("8S")
    low = swap_joker(run("JK 5S 6S 7S"), Card.from_code("4S"), "low")
    assert low == run("JK 4S 5S 6S 7S")
    assert low.represented(0) == Card.from_code("3S")
    middle = swap_joker(run("4S JK 6S 7S"), Card.from_code("5S"), "low")
    assert middle == run("JK 4S 5S 6S 7S")
    assert check_meld(middle, initial=False) is None
