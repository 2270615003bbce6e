"""Which openings a hand can lay: every distinct way to meet the deal's exact contract.

Melds respect the opening limits of the profile (exact sizes, at most one joker per meld);
a joker's represented card is fixed by its position, so ``JK 5♠ 6♠ 7♠`` (joker = 4♠) and
``5♠ 6♠ 7♠ JK`` (joker = 8♠) are different openings. The search itself lives in
``reference.contracts`` so that the game's ``legal_actions`` can use it.
"""

from __future__ import annotations

from collections.abc import Sequence

from reference.cards import Card
from reference.contracts import find_openings
from reference.melds import Meld
from reference.profiles import ARGENTINE, Profile


def openings(
    hand: Sequence[Card], deal_number: int, profile: Profile = ARGENTINE
) -> tuple[tuple[Meld, ...], ...]:
    """Every distinct opening of deal ``deal_number`` that ``hand`` holds (trios, then runs).

    Openings that differ only in the order of their melds, or of a trio's cards, are one
    opening. The result does not check that a card is left to discard (TURN-9).
    """
    return find_openings(hand, deal_number, profile)


def can_open(hand: Sequence[Card], deal_number: int, profile: Profile = ARGENTINE) -> bool:
    """True if ``hand`` holds at least one opening of deal ``deal_number``."""
    return bool(find_openings(hand, deal_number, profile))
