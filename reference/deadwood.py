"""Deadwood: the part of a hand that scores at a close (SCORE-3; DISPUTE-60 for ``pagat``).

Every profile scores every card left in hand (SCORE-3) except a Pagat game played under
DISPUTE-60 ``unmatched_only``: seed 002 scores "deadwood (unmatched cards in hand)", which that
option reads as gin-rummy deadwood. There the cards that could form melds in hand are not
counted: a hand scores the least penalty left over when disjoint trios and runs, each as an
opening could lay it but of any length (trios of 3 or more cards of one rank, runs of 4 or
more cards of one suit in sequence, at most the opening's joker limit each), are set aside.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from functools import lru_cache
from itertools import combinations

from reference import trace
from reference.cards import JOKER, Card, Rank, Suit
from reference.melds import HIGH_ACE, Run, Trio, check_meld, rank_at
from reference.profiles import Profile


def hand_score(hand: Sequence[Card], profile: Profile) -> int:
    """What a player who did not go out scores for ``hand`` (SCORE-2, SCORE-3, DISPUTE-60)."""
    if profile.rules_on("DISPUTE-60") and hand:
        trace.decided("DISPUTE-60")
    if not profile.rules_on("DISPUTE-60", "unmatched_only"):
        return profile.penalty(hand)
    with trace.quiet():  # the melds tried in hand are not melds laid
        return deadwood_penalty(hand, profile)


def trace_values(profile: Profile, hands: Sequence[Sequence[Card]]) -> None:
    """Trace the rules that value the cards of ``hands`` left at a close (SCORE-2, SCORE-3,
    JOKER-7; DISPUTE-25, DISPUTE-26 and VARIANT-01 for the cards their options value apart)."""
    cards = [c for hand in hands for c in hand]
    if not cards:
        return
    trace.decided("SCORE-2", "SCORE-3")
    if any(c.is_joker for c in cards):
        trace.decided("JOKER-7", "DISPUTE-26", "VARIANT-01")
    if any(c.rank is Rank.ACE for c in cards):
        trace.decided("DISPUTE-26")
    if any(c.rank is Rank.TWO for c in cards):
        trace.decided("DISPUTE-26", "DISPUTE-25", "CARDS-2")


def deadwood_penalty(hand: Sequence[Card], profile: Profile) -> int:
    """The least penalty of the cards of ``hand`` left outside disjoint melds (DISPUTE-60)."""
    return _least(tuple(sorted(hand, key=_order)), profile)


def _order(card: Card) -> tuple[int, int]:
    # Jokers last, so the search settles natural cards first (fewer candidate melds).
    if card.rank is None or card.suit is None:
        return (99, 0)
    return (card.rank.value, list(Suit).index(card.suit))


@lru_cache(maxsize=4096)
def _least(hand: tuple[Card, ...], profile: Profile) -> int:
    if not hand:
        return 0
    first, rest = hand[0], hand[1:]
    best = profile.card_value(first) + _least(rest, profile)  # ``first`` is deadwood
    have = Counter(hand)
    for meld in _melds_with(first, have, profile):
        left = have - Counter(meld)
        remaining = tuple(sorted(left.elements(), key=_order))
        best = min(best, _least(remaining, profile))
    return best


def _melds_with(first: Card, have: Counter[Card], profile: Profile) -> Iterator[tuple[Card, ...]]:
    """Every meld of cards in ``have`` that uses ``first`` (a natural card: jokers sort last,
    and a hand of jokers alone forms no meld)."""
    if first.rank is None or first.suit is None:
        return
    limit = profile.initial_joker_limit
    jokers = have[JOKER] if limit is None else min(have[JOKER], limit)
    # Trios: ``first`` with other natural cards of its rank and up to ``jokers`` jokers.
    same = [c for c in have.elements() if c.rank == first.rank]
    same.remove(first)
    seen: set[tuple[Card, ...]] = set()
    for extra in range(len(same) + 1):
        for others in combinations(same, extra):
            for j in range(jokers + 1):
                cards = tuple(sorted((first, *others), key=_order)) + (JOKER,) * j
                if cards in seen or len(cards) < profile.initial_trio_size:
                    continue
                seen.add(cards)
                if _valid(Trio(cards), profile):
                    yield cards
    # Runs of ``first``'s suit through its position (an ace low or high).
    positions = [first.rank.value] + ([HIGH_ACE] if first.rank is Rank.ACE else [])
    for pos in positions:
        for low in range(max(1, pos - profile.max_run_length + 1), pos + 1):
            yield from _runs(low, pos, [], 0, first, have, jokers, profile)


def _runs(
    p: int,
    pos: int,
    cards: list[Card],
    used: int,
    first: Card,
    have: Counter[Card],
    jokers: int,
    profile: Profile,
) -> Iterator[tuple[Card, ...]]:
    """Runs starting with ``cards`` and going on at position ``p``, through ``pos``."""
    long_enough = cards and p > pos and len(cards) >= profile.initial_run_size
    if long_enough and _valid(Run(tuple(cards)), profile):
        yield tuple(cards)
    if p > HIGH_ACE or len(cards) >= profile.max_run_length:
        return
    assert first.suit is not None
    card = Card(rank_at(p), first.suit)
    if p == pos:
        yield from _runs(p + 1, pos, [*cards, first], used, first, have, jokers, profile)
        return
    if have[card] - (card == first) > 0:
        yield from _runs(p + 1, pos, [*cards, card], used, first, have, jokers, profile)
    if used < jokers:
        yield from _runs(p + 1, pos, [*cards, JOKER], used + 1, first, have, jokers, profile)


def _valid(meld: Trio | Run, profile: Profile) -> bool:
    return check_meld(meld, initial=False, profile=profile) is None
