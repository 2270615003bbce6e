"""Deal contracts (CONTRACT-1..9) and the search for every way a hand can meet one.

The search lives here, left of ``game`` in the import order, because the game's
``legal_actions`` needs it; ``reference.solver`` is its public face.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from reference import trace
from reference.cards import Card, Rank, Suit
from reference.melds import (
    HIGH_ACE,
    LOW_ACE,
    Meld,
    Run,
    Trio,
    check_lay_off,
    check_meld,
    extend,
    rank_at,
)
from reference.profiles import ARGENTINE, Profile
from reference.reasons import Reason


@dataclass(frozen=True, slots=True)
class Contract:
    """What a deal requires: a number of trios and runs, each at its initial size."""

    trios: int
    runs: int
    trio_size: int = 3
    run_size: int = 4

    @property
    def card_count(self) -> int:
        """Cards an opening lays down (6, 7, 8, 9, 10, 11, 12 in deals 1..7)."""
        return self.trios * self.trio_size + self.runs * self.run_size


def contract_for(profile: Profile, deal_number: int) -> Contract:
    """The contract of deal ``deal_number`` (GAME-1: deal n uses contract n)."""
    trios, runs = profile.contract(deal_number)
    return Contract(trios, runs, profile.initial_trio_size, profile.initial_run_size)


def check_contract(
    melds: Sequence[Meld], deal_number: int, profile: Profile = ARGENTINE
) -> Reason | None:
    """Why ``melds`` are not an opening of deal ``deal_number``, or None if they are.

    First the kinds and counts (``contract_mismatch``, CONTRACT-8), then each meld in the
    order given, judged as an initial meld (sizes, one joker per meld, composition, sequence).
    """
    trios = sum(1 for m in melds if isinstance(m, Trio))
    runs = sum(1 for m in melds if isinstance(m, Run))
    # CHILE-ROUND8-1: round 8 takes four trios or four runs.
    if (trios, runs) not in profile.contract_options(deal_number) or trios + runs != len(melds):
        if trace.active():
            options = profile.contract_options(deal_number)
            partial = any(trios <= t and runs <= r for t, r in options)
            extra = ("CONTRACT-9",) if partial else ()
            trace.refused("CONTRACT-8", *extra, *_contract_rules(profile, deal_number))
        return Reason.CONTRACT_MISMATCH
    judged = profile.for_deal(deal_number)  # CHILE-ROUND8-2: melds of any size there
    for meld in melds:
        reason = check_meld(meld, initial=True, profile=judged)
        if reason is not None:
            trace.refused("CONTRACT-8")
            return reason
    jokers = sum(1 for m in melds for c in m.cards if judged.is_wild(c))
    if jokers > 1:
        trace.decided("DISPUTE-24")
        if judged.plays("DISPUTE-24", "per_opening"):
            # DISPUTE-24 per_opening: one joker per opening (JOKER-2)
            trace.refused("JOKER-2", "DISPUTE-24")
            return Reason.TOO_MANY_JOKERS
    ranks = [m.rank for m in melds if isinstance(m, Trio)]
    suits = [m.suit for m in melds if isinstance(m, Run)]
    if len(set(ranks)) != len(ranks) or len(set(suits)) != len(suits):
        trace.decided("DISPUTE-23")
        if judged.plays("DISPUTE-23", "forbidden"):
            # DISPUTE-23 forbidden: contract melds differ in rank (trios) or suit (runs).
            trace.refused("CONTRACT-8", "DISPUTE-23")
            return Reason.CONTRACT_MISMATCH
    if trace.active():
        trace.decided("CONTRACT-8", *_contract_rules(profile, deal_number))
    if deal_number in profile.going_out_deals and profile.name == "chilean":
        if (trios, runs) != profile.contract(deal_number):
            trace.decided("CHILE-ROUND8-1")  # the alternative contract: four runs
        if any(isinstance(m, Trio) and len(m.cards) > judged.initial_trio_size for m in melds):
            trace.decided("CHILE-ROUND8-4")  # a trio of four or more
    return None


def _contract_rules(profile: Profile, deal_number: int) -> tuple[str, ...]:
    """The rules that state deal ``deal_number``'s contract: CONTRACT-n (GAME-1), round 8's
    CHILE-ROUND8-1 or DISPUTE-27 eight, Perla's PERLA-CONTRACT-7 and -8 (PERLA-GAME-1)."""
    contract = profile.contract(deal_number)
    if profile.name == "perla" and deal_number >= 7:
        return ("PERLA-CONTRACT-7" if contract == (4, 0) else "PERLA-CONTRACT-8", "GAME-1")
    if deal_number <= len(ARGENTINE.contracts):
        return (f"CONTRACT-{deal_number}", "GAME-1")
    if profile.name == "chilean":
        return ("CHILE-ROUND8-1", "CHILE-ROUND8-2", "GAME-1")
    return ("DISPUTE-27", "GAME-1")


# --- opening search -------------------------------------------------------------------------


def _fits(need: Counter[Card], have: Counter[Card]) -> bool:
    return all(have[card] >= n for card, n in need.items())


def _wilds(hand: Counter[Card], profile: Profile) -> list[Card]:
    """The wild cards held, jokers first (CHILE-WILD-1: 2s too when they are wild)."""
    return sorted((c for c in hand.elements() if profile.is_wild(c)), key=lambda c: not c.is_joker)


def _fillers(wilds: list[Card], count: int) -> Iterator[tuple[Card, ...]]:
    """Each distinct choice of ``count`` wild cards from ``wilds`` (jokers before 2s)."""
    kinds = sorted(set(wilds), key=lambda c: (not c.is_joker, c.sort_key()))
    for combo in itertools.combinations_with_replacement(kinds, count):
        if _fits(Counter(combo), Counter(wilds)):
            yield combo


def _trio_candidates(hand: Counter[Card], profile: Profile) -> Iterator[Trio]:
    """Every distinct initial trio the hand can form, in rank order."""
    size = profile.initial_trio_size
    wilds = _wilds(hand, profile)
    limit = profile.initial_joker_limit if profile.initial_joker_limit is not None else size
    for rank in Rank:
        naturals = sorted((c for c in hand if c.rank == rank), key=Card.sort_key)
        if not naturals:
            continue
        for jokers in range(min(limit, len(wilds), size - 1) + 1):
            for combo in itertools.combinations_with_replacement(naturals, size - jokers):
                if not _fits(Counter(combo), hand):
                    continue
                for filler in _fillers(wilds, jokers):
                    trio = Trio((*combo, *filler))
                    if (
                        _fits(Counter(trio.cards), hand)
                        and check_meld(trio, initial=True, profile=profile) is None
                    ):
                        yield trio


def _run_candidates(hand: Counter[Card], profile: Profile) -> Iterator[Run]:
    """Every distinct initial run the hand can form: by suit, low end, joker positions."""
    size = profile.initial_run_size
    wilds = _wilds(hand, profile)
    limit = profile.initial_joker_limit if profile.initial_joker_limit is not None else size
    lowest = LOW_ACE if profile.ace_low else 2
    highest = HIGH_ACE if profile.ace_high else 13
    for suit in Suit:
        for low in range(lowest, highest - size + 2):
            positions = range(low, low + size)
            for jokers in range(min(limit, len(wilds), size - 1) + 1):
                for joker_at in itertools.combinations(positions, jokers):
                    natural = [Card(rank_at(p), suit) for p in positions if p not in joker_at]
                    if not _fits(Counter(natural), hand):
                        continue  # checked first: the wild fillers multiply the choices
                    for filler in _fillers(wilds, jokers):
                        fill = iter(filler)
                        cards = tuple(
                            next(fill) if p in joker_at else Card(rank_at(p), suit)
                            for p in positions
                        )
                        if _fits(Counter(cards), hand) and (
                            not profile.natural_wilds
                            or check_meld(Run(cards), initial=True, profile=profile) is None
                        ):
                            yield Run(cards)


def find_openings(
    hand: Sequence[Card], deal_number: int, profile: Profile = ARGENTINE
) -> tuple[tuple[Meld, ...], ...]:
    """Every distinct opening of deal ``deal_number`` that ``hand`` can lay.

    An opening lists its trios then its runs, each in candidate order; two openings that
    differ only in the order of their melds are the same opening and appear once.
    """
    with trace.quiet():  # a search tries melds; it decides nothing
        return _find_openings(hand, deal_number, profile)


def _find_openings(
    hand: Sequence[Card], deal_number: int, profile: Profile
) -> tuple[tuple[Meld, ...], ...]:
    judged = profile.for_deal(deal_number)
    found: list[tuple[Meld, ...]] = []
    for trios, runs in profile.contract_options(deal_number):
        contract = Contract(trios, runs, judged.initial_trio_size, judged.initial_run_size)
        for opening, left in _openings(hand, contract, judged):
            if deal_number in profile.going_out_deals:
                # CHILE-ROUND8-2: grow the melds with the cards left, to go out in one play;
                # keeping back the last card lets the player discard it instead.
                left_cards = sorted(left.elements(), key=Card.sort_key)
                kept: list[Card | None] = [None, *sorted(set(left_cards), key=Card.sort_key)]
                for keep in kept:
                    rest = list(left_cards)
                    if keep is not None:
                        rest.remove(keep)
                    grown = _grow(opening, rest, judged)
                    if grown is not None and grown not in found:
                        found.append(grown)
            else:
                found.append(opening)
    return tuple(found)


def _grow(
    opening: tuple[Meld, ...], cards: Sequence[Card], profile: Profile
) -> tuple[Meld, ...] | None:
    """``opening`` with every card of ``cards`` added to some meld (greedily), or None."""
    melds = list(opening)
    for card in cards:
        for i, meld in enumerate(melds):
            ends: tuple[str | None, ...] = (None,) if isinstance(meld, Trio) else ("high", "low")
            fit = next((e for e in ends if check_lay_off(meld, card, e, profile) is None), "")
            if fit != "":
                melds[i] = extend(meld, card, fit)
                break
        else:
            return None
    return tuple(melds)


def _openings(
    hand: Sequence[Card], contract: Contract, profile: Profile
) -> Iterator[tuple[tuple[Meld, ...], Counter[Card]]]:
    """Every distinct opening of ``contract`` from ``hand``, with the cards it leaves."""
    have = Counter(hand)
    trios = list(_trio_candidates(have, profile)) if contract.trios else []
    runs = list(_run_candidates(have, profile)) if contract.runs else []
    melds: list[Meld] = [*trios, *runs]
    needs: dict[Meld, Counter[Card]] = {m: Counter(m.cards) for m in melds}

    def choose(
        pool: list[Trio] | list[Run], count: int, start: int, left: Counter[Card]
    ) -> Iterator[tuple[tuple[Meld, ...], Counter[Card]]]:
        # Non-decreasing candidate indices: each multiset of melds is produced once,
        # and the same meld may be chosen twice when the hand holds both copies.
        if count == 0:
            yield (), left
            return
        for i in range(start, len(pool)):
            meld = pool[i]
            if _fits(needs[meld], left):
                for rest, remaining in choose(pool, count - 1, i, left - needs[meld]):
                    yield (meld, *rest), remaining

    for trio_part, left in choose(trios, contract.trios, 0, have):
        for run_part, remaining in choose(runs, contract.runs, 0, left):
            yield (*trio_part, *run_part), remaining
