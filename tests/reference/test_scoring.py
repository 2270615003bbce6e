"""Penalties and winners: SCORE-1..5, JOKER-7, GAME-2, END-4, END-5."""

from __future__ import annotations

import pytest
from ref_helpers import cards

from reference import penalty, ranking, score_deal, winners


def test_score_2_example_ace_queen_three_is_33() -> None:
    # SCORE-2: the rules' own example
    assert penalty(cards("AS QD 3C")) == 33


@pytest.mark.parametrize(
    ("text", "points", "rule"),
    [
        ("2C", 2, "SCORE-2 / SCORE-5: a two is 2, not 25"),
        ("10H", 10, "SCORE-2 face value"),
        ("JS QH KD", 30, "SCORE-2 faces 10"),
        ("AH", 20, "SCORE-2 / SCORE-5: ace 20, not 15"),
        ("JK", 50, "JOKER-7 / SCORE-5: joker 50, not 25 or 30"),
        ("", 0, "an empty hand"),
        ("5S 5S JK AD", 80, "copies each count"),
    ],
)
def test_card_values(text: str, points: int, rule: str) -> None:
    assert penalty(cards(text)) == points, rule


def test_score_1_and_4_closer_scores_zero_and_totals_add_up() -> None:
    hands = [cards(""), cards("AS QD 3C"), cards("JK")]
    scores, totals = score_deal(hands, 0, (10, 5, 0))
    assert scores == (0, 33, 50)  # SCORE-1 (closer 0), SCORE-2
    assert totals == (10, 38, 50)  # SCORE-4


def test_game_2_and_end_4_lowest_total_wins() -> None:
    assert winners((40, 12, 90)) == (1,)


def test_end_5_equal_lowest_totals_share_victory() -> None:
    assert winners((12, 40, 12)) == (0, 2)
    assert ranking((12, 40, 12)) == (1, 3, 1)  # DISPUTE-15 competition ranking
