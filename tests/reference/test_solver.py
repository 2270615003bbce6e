"""The opening solver: every distinct way a hand meets its exact contract."""

from __future__ import annotations

import time

from ref_helpers import cards, run, trio

from reference import can_open, check_contract, openings


def test_worked_example_hand_has_five_openings() -> None:
    # EXAMPLE-1 hand: four eights can give the trio three ways with 4♠-7♠, and 8♣8♦8♥ also
    # leaves 8♠ for 5♠-8♠: 3 + 2 = 5 openings (no jokers, so no joker placements).
    found = openings(cards("8C 8D 8H 4S 5S 6S 7S 8S QD 2H 3H"), 2)
    assert len(found) == 5
    assert (trio("8C 8D 8H"), run("4S 5S 6S 7S")) in found
    assert (trio("8C 8D 8H"), run("5S 6S 7S 8S")) in found
    assert (trio("8S 8D 8H"), run("4S 5S 6S 7S")) in found
    assert (trio("8S 8D 8H"), run("5S 6S 7S 8S")) not in found  # would need a second 8♠


def test_a_joker_gives_one_opening_per_represented_card() -> None:
    # The trio must be all natural (only one joker, needed by the run), and the joker can
    # stand for 3♠ or 7♠ next to 4♠5♠6♠: DISPUTE-30 makes those two openings.
    found = openings(cards("8C 8D 8H JK 4S 5S 6S KD"), 2)
    assert set(found) == {
        (trio("8C 8D 8H"), run("JK 4S 5S 6S")),
        (trio("8C 8D 8H"), run("4S 5S 6S JK")),
    }


def test_two_identical_trios_from_both_packs() -> None:
    # DISPUTE-23 / MELD-TRIO-2: six eights (two each of ♣ ♦ ♥) split into two trios in
    # four ways: CDH+CDH, CCD+DHH, CCH+DDH, CDD+CHH.
    found = openings(cards("8C 8C 8D 8D 8H 8H"), 1)
    assert len(found) == 4
    assert (trio("8C 8D 8H"), trio("8C 8D 8H")) in found


def test_every_opening_found_is_a_valid_contract() -> None:
    hand = cards("AS 2S 3S 4S 5S JK 9H 10H JH QH KH AH JK")
    found = openings(hand, 7)
    assert found
    for melds in found:
        assert check_contract(melds, 7) is None
    assert len(set(found)) == len(found)


def test_cannot_open_without_the_contract() -> None:
    assert not can_open(cards("8C 8D 4S 5S 6S KD QH 2C 3C 9D 10D"), 2)
    assert can_open(cards("8C 8D JK 4S 5S 6S 7S KD QH 2C 3C"), 2)
    # JOKER-2: two jokers cannot make one meld of an opening
    assert not can_open(cards("8C JK JK 4S 5S 6S 7S"), 2)


def test_wrap_is_never_an_opening() -> None:
    # MELD-RUN-3: K A 2 3 of spades is no run
    assert not can_open(cards("KS AS 2S 3S 8C 8D 8H"), 2)
    assert can_open(cards("JS QS KS AS 8C 8D 8H"), 2)


def test_fast_enough_for_thirteen_cards_with_jokers() -> None:
    hands = [
        ("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JK JK JK", 7),
        ("8C 8C 8D 8D 8H 8H 9S 9S 9D JK JK JK KC", 4),
        ("5S 5S 5H 5H 5D 5D 6S 7S 8S JK JK JK JK", 6),
        ("3H 4H 5H 6H 7H 8H 9H 10H JK JK 3C 3D 3S", 5),
    ]
    start = time.perf_counter()
    for hand, deal in hands:
        openings(cards(hand), deal)
    assert time.perf_counter() - start < 3.0
