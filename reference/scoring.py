"""Penalties, deal scores and winners (SCORE-1..5, END-4, END-5)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from reference.cards import Card
from reference.profiles import ARGENTINE, Profile


def penalty(cards: Iterable[Card], profile: Profile = ARGENTINE) -> int:
    """Penalty points of cards left in hand: 2..10 face value, J/Q/K 10, A 20, joker 50."""
    return profile.penalty(cards)


def score_deal(
    hands: Sequence[Sequence[Card]],
    closer: int,
    totals: Sequence[int],
    profile: Profile = ARGENTINE,
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """``(deal_scores, new_totals)`` for a deal closed by ``closer``.

    The closer scores 0 (SCORE-1); everyone else the penalty of the cards still held
    (SCORE-2, SCORE-3); each score is added to the running total (SCORE-4).
    """
    scores = tuple(0 if i == closer else penalty(hand, profile) for i, hand in enumerate(hands))
    return scores, tuple(t + s for t, s in zip(totals, scores, strict=True))


def winners(totals: Sequence[int]) -> tuple[int, ...]:
    """Every player on the lowest total: ties share the win, no extra deal (END-5)."""
    if not totals:
        return ()
    best = min(totals)
    return tuple(i for i, t in enumerate(totals) if t == best)


def ranking(totals: Sequence[int]) -> tuple[int, ...]:
    """Each player's place by standard competition ranking (1, 1, 3), DISPUTE-15."""
    return tuple(1 + sum(1 for other in totals if other < t) for t in totals)
