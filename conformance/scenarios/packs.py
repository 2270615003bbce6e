"""Cards and packs as scenarios use them: filling a stock or deck to the profile's pack,
conservation, and whether cards can stand on the table as a meld."""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from conformance.knowledge.cards import CANONICAL_ORDER, JOKER, RANKS
from conformance.knowledge.profiles import DEFAULT_PROFILE, Pack, ProfileData, default_profiles

#: Size of the default (argentine) pack; other profiles' packs are in profiles.json.
PACK_SIZE = len(CANONICAL_ORDER)


def hand_size(deal_number: int, profile: ProfileData | None = None) -> int:
    """Cards dealt to each player in a deal of ``profile`` (default argentine: 11, or 12
    in deal 7, DEAL-3).

    :raises ProfileError: for a deal number the profile does not have.
    """
    return (profile or _default_profile()).hand_size(deal_number)


def _default_profile() -> ProfileData:
    return default_profiles()[DEFAULT_PROFILE]


def card_rank(card: str) -> str | None:
    """Rank part of a card code (``None`` for a joker)."""
    return None if card == JOKER else card[:-1]


def card_suit(card: str) -> str | None:
    """Suit letter of a card code (``None`` for a joker)."""
    return None if card == JOKER else card[-1]


# --------------------------------------------------------------------------- cards


def fill_after(
    top: list[str], placed_elsewhere: Iterable[str], pack: Pack | None = None
) -> list[str]:
    """Return ``top`` followed by every pack card not in ``top`` or ``placed_elsewhere``.

    The remainder comes in canonical order; for each placed card its earliest remaining
    occurrence in that order is skipped. Cards beyond the pack (a third copy) are simply
    not found; the conservation check reports them. ``pack`` defaults to the argentine one.
    """
    remaining = list(pack.canonical_order() if pack is not None else CANONICAL_ORDER)
    for card in [*top, *placed_elsewhere]:
        # A card beyond the pack is simply not found; conservation checks report it.
        with contextlib.suppress(ValueError):
            remaining.remove(card)
    return [*top, *remaining]


def for_pack(
    state: Mapping[str, Any],
    jokers: int,
    copies: int | None = None,
    *,
    stock_given: bool = False,
) -> dict[str, Any] | None:
    """``state`` (a setup state filled to its profile's pack) holding ``jokers`` jokers in all,
    and at most ``copies`` copies of each natural card when given, for an engine whose rulings
    give the pack other jokers (DISPUTE-61 ``two_jokers``, DISPUTE-43 ``one_fifty_nine``) or
    fewer packs (DISPUTE-78 ``always_108``: two packs for 5 and 6 Chilean players); None when
    that cannot be done.

    A filled stock ends with the cards nobody holds in canonical order: each pack's remaining
    cards in turn, then the jokers. So the last pack's remainder (the cards whose every copy
    is there, one copy each, in canonical order) sits just above the jokers, and with one pack
    fewer exactly that block leaves the stock. A state whose stock does not end that way
    placed a copy beyond the engine's packs itself: None. Surplus jokers leave from the bottom
    of the stock, then from the bottom of the discard pile; missing ones join the bottom of the
    stock, or, when the case gave its stock whole (``stock_given``: every card of it, and its
    emptiness, are the case's), the bottom of the discard pile, which no draw reaches before it
    is recycled. Jokers in hands or melds are the case's own, so a state needing more of them
    than the pack has is None (its checks are then not graded for that engine).
    """
    if copies is not None:
        fewer = _without_surplus_copies(state, copies)
        if fewer is None:
            return None
        state = fewer
    held = sum(1 for card in _state_cards(state) if card == JOKER)
    if held == jokers:
        return dict(state)
    stock, discard = list(state["stock"]), list(state.get("discard", ()))
    if held < jokers:
        if stock_given:
            return {**state, "discard": [*discard, *[JOKER] * (jokers - held)]}
        return {**state, "stock": [*stock, *[JOKER] * (jokers - held)]}
    surplus = held - jokers
    for pile in (stock, discard):
        while surplus and pile and pile[-1] == JOKER:
            pile.pop()
            surplus -= 1
    if surplus:
        return None
    return {**state, "stock": stock, "discard": discard}


def _without_surplus_copies(state: Mapping[str, Any], copies: int) -> dict[str, Any] | None:
    """``state`` with the natural cards beyond ``copies`` of each taken out of the stock's
    filling (see :func:`for_pack`), or None when they are not all there."""
    counts = Counter(card for card in _state_cards(state) if card != JOKER)
    most = max(counts.values(), default=0)
    if most <= copies:
        return dict(state)
    if most > copies + 1:
        return None  # more than one pack too many: not a case the corpus has
    # The last pack's remainder, in canonical order: every card with a copy too many.
    block = [card for card in CANONICAL_ORDER[:52] if counts[card] > copies]
    stock = list(state["stock"])
    end = len(stock)
    while end and stock[end - 1] == JOKER:
        end -= 1
    start = end - len(block)
    if start < 0 or stock[start:end] != block:
        return None
    return {**state, "stock": [*stock[:start], *stock[end:]]}


def conservation_problems(
    cards: Sequence[str], *, exact: bool, pack: Pack | None = None, profile: str = ""
) -> list[str]:
    """Describe how ``cards`` break ``pack`` (default: the argentine 108 cards): a copy or
    joker more than the pack has, or the wrong size. ``profile`` names it in messages."""
    copies, jokers, size = (pack.copies, pack.jokers, pack.size) if pack else (2, 4, PACK_SIZE)
    whose = f"the {profile} pack" if profile else "the pack"
    problems: list[str] = []
    counts = Counter(cards)
    for card in sorted(counts, key=_canonical_index):
        n = counts[card]
        if card == JOKER and n > jokers:
            problems.append(
                f"{n} jokers: {whose} has only {jokers} (a {_ordinal(jokers + 1)} joker)"
            )
        elif card != JOKER and n > copies:
            problems.append(
                f"{n} copies of {card}: {whose} has only {copies} (a {_ordinal(copies + 1)} copy)"
            )
    if len(cards) > size:
        problems.append(f"{len(cards)} cards: {whose} has only {size}")
    elif exact and len(cards) != size:
        problems.append(f"{len(cards)} cards in all: a state must hold exactly {size}")
    return problems


def _ordinal(n: int) -> str:
    return {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth"}.get(n, f"{n}th")


#: Each card code's place in the canonical order (a sort key: a dict, not a search).
_CANONICAL_INDEX: dict[str, int] = {
    card: index for index, card in reversed(list(enumerate(CANONICAL_ORDER)))
}


def _canonical_index(card: str) -> int:
    return _CANONICAL_INDEX.get(card, len(CANONICAL_ORDER))


def _rank_value(rank: str) -> int:
    return RANKS.index(rank) + 1


def table_meld_problem(
    kind: str,
    cards: Sequence[str],
    wild_ranks: frozenset[str] = frozenset(),
    wild_cards: frozenset[str] = frozenset(),
) -> str | None:
    """Say why ``cards`` cannot stand on the table as a ``kind`` meld, or ``None``.

    This is the harness's own small check (the harness never imports an engine):
    a table trio is 3+ cards with at least one natural card, naturals all of one
    rank; a table run is 4–14 cards of one suit whose positions form one unbroken
    sequence within A..A, each joker standing for its position. Joker counts are not
    limited because melds may have grown after opening. A card of one of the profile's
    ``wild_ranks`` (a 2 in chilean), or one of its ``wild_cards`` (a red ace in perla), may
    stand anywhere, like a joker, or in its own place; a trio of only such cards and jokers
    is a trio of their rank.
    """
    naturals = [c for c in cards if c != JOKER]
    fixed = [c for c in naturals if card_rank(c) not in wild_ranks and c not in wild_cards]
    if kind == "trio":
        if len(cards) < 3:
            return f"a trio needs at least 3 cards, this one has {len(cards)}"
        if not naturals:
            return "a trio needs at least one natural card"
        ranks = {card_rank(c) for c in (fixed or naturals)}
        if len(ranks) > 1:
            return f"a trio mixes ranks {', '.join(sorted(str(r) for r in ranks))}"
        return None
    if not 4 <= len(cards) <= 14:
        return f"a run holds 4 to 14 cards, this one has {len(cards)}"
    if not naturals:
        return "a run needs at least one natural card"
    suits = {card_suit(c) for c in (fixed or naturals)}
    if len(suits) > 1:
        return f"a run mixes suits {', '.join(sorted(str(s) for s in suits))}"
    for start in range(1, 16 - len(cards)):
        if all(
            card in wild_cards or _fits(card, start + offset, wild_ranks)
            for offset, card in enumerate(cards)
        ):
            return None
    return "the cards are not one unbroken sequence from low to high within A..A"


def _fits(card: str, position: int, wild_ranks: frozenset[str] = frozenset()) -> bool:
    # Position 1 is a low ace, 14 a high ace; a joker (or a wild rank) fits anywhere.
    rank = card_rank(card)
    if rank is None or rank in wild_ranks:
        return True
    if rank == "A":
        return position in (1, 14)
    return _rank_value(rank) == position


def _state_cards(state: Mapping[str, Any]) -> Iterator[str]:
    for hand in state["hands"]:
        yield from hand
    for meld in state["table"]:
        yield from meld["cards"]
    yield from state["stock"]
    yield from state["discard"]
