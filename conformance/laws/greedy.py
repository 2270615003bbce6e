"""The harness's own greedy play: the pack, card values, an opening search, lay-offs.

The laws (:mod:`conformance.laws.properties`) and the fuzzer's players play whole deals
against an engine; both need a player of their own that never imports an engine (not
even the reference). It is written here from docs/protocol.md and docs/rules.md: the
packs, deals, contracts, wild ranks and card values come from the profile's data. It need
not play well, only legally and reproducibly: every choice is ordered, none random.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any, Final

from conformance.knowledge.cards import CANONICAL_ORDER, JOKER, RANKS, SUITS
from conformance.knowledge.profiles import DEFAULT_PROFILE, ProfileData, default_profiles


def _argentine() -> ProfileData:
    return default_profiles()[DEFAULT_PROFILE]


def full_deck(profile: ProfileData | None = None, players: int = 2) -> list[str]:
    """The pack ``profile`` deals to ``players`` players in canonical order (default: the
    argentine 108 cards, two of each natural card and four jokers, CARDS-1)."""
    if profile is None:
        return list(CANONICAL_ORDER)
    return list(profile.pack(players).canonical_order())


#: The argentine pack as a multiset.
PACK: Final = Counter(full_deck())


def card_value(code: str, profile: ProfileData | None = None) -> int:
    """The penalty of one card code by the profile's values (default argentine)."""
    return (profile or _argentine()).card_value(code)


def _rank(code: str) -> str:
    return code[:-1]


def _suit(code: str) -> str:
    return code[-1]


def _run_card(position: int, suit: str) -> str:
    """The card on run position 1..14 (1 and 14 are the ace)."""
    return ("A" if position in (1, 14) else RANKS[position - 1]) + suit


def meld_candidates(
    hand: Counter[str], kind: str, wild_ranks: frozenset[str] = frozenset()
) -> Iterator[tuple[str, ...]]:
    """Opening-sized melds the hand can form, at most one wild card each (JOKER-2; a
    profile with wild ranks may use one of those, a 2 in chilean, instead of a joker)."""
    wilds = [JOKER] if hand[JOKER] else []
    wilds += sorted({c for c in hand if c != JOKER and _rank(c) in wild_ranks})
    if kind == "trio":
        for rank in RANKS:
            naturals = [c for c in hand.elements() if c != JOKER and _rank(c) == rank]
            if len(naturals) >= 3:
                yield tuple(naturals[:3])
            for wild in wilds:
                if len(naturals) >= 2 and wild not in naturals[:2]:
                    yield (*naturals[:2], wild)
        return
    for suit in SUITS:
        for low in range(1, 12):
            cards = [_run_card(low + k, suit) for k in range(4)]
            missing = [i for i, c in enumerate(cards) if hand[c] == 0]
            if not missing:
                yield tuple(cards)
            elif len(missing) == 1:
                for wild in wilds:
                    if wild not in cards:
                        yield tuple(wild if i == missing[0] else c for i, c in enumerate(cards))


def find_opening(
    hand: Sequence[str], deal_number: int, profile: ProfileData | None = None
) -> list[dict[str, Any]] | None:
    """Some opening of deal ``deal_number`` of ``profile`` (default argentine) that ``hand``
    can lay, or None.

    A depth-first search over trios then runs, for each contract the deal allows; it need
    not find every opening, only one when an obvious one exists. The melds use protocol
    JSON (runs listed low to high).
    """
    facts = profile or _argentine()
    for contract in facts.deal(deal_number).contracts:
        found = _find_contract(hand, contract.trios, contract.runs, facts.wild_ranks)
        if found is not None:
            return found
    return None


def _find_contract(
    hand: Sequence[str], trios: int, runs: int, wild_ranks: frozenset[str]
) -> list[dict[str, Any]] | None:
    found = contract_melds(hand, ["trio"] * trios + ["run"] * runs, wild_ranks)
    if found is None:
        return None
    laid = sum(len(m["cards"]) for m in found)
    return found if laid < len(hand) else None  # TURN-9: keep a card to discard


def contract_melds(
    hand: Sequence[str], kinds: Sequence[str], wild_ranks: frozenset[str] = frozenset()
) -> list[dict[str, Any]] | None:
    """Melds of ``kinds`` (``trio``/``run``, opening-sized) that ``hand`` holds, found
    depth first, or None; they may use every card of the hand."""

    def search(i: int, left: Counter[str]) -> list[dict[str, Any]] | None:
        if i == len(kinds):
            return []
        for cards in meld_candidates(left, kinds[i], wild_ranks):
            need = Counter(cards)
            if all(left[c] >= n for c, n in need.items()):
                rest = search(i + 1, left - need)
                if rest is not None:
                    return [{"kind": kinds[i], "cards": list(cards)}, *rest]
        return None

    return search(0, Counter(hand))


def lay_off_candidates(hand: Sequence[str], table: Sequence[dict[str, Any]]) -> Iterator[Any]:
    """Lay-offs that look right by the rules: a trio's rank, or the next card at a run end."""
    for index, meld in enumerate(table):
        cards = meld.get("cards", [])
        naturals = [c for c in cards if c != JOKER]
        if not naturals:
            continue
        if meld.get("kind") == "trio":
            for code in sorted(set(hand)):
                if code != JOKER and _rank(code) == _rank(naturals[0]):
                    yield {"card": code, "meld": index}
            continue
        first = next(i for i, c in enumerate(cards) if c != JOKER)
        rank = RANKS.index(_rank(cards[first])) + 1
        low = rank - first
        if low < 1:  # an ace read high
            low += 13
        high = low + len(cards) - 1
        suit = _suit(naturals[0])
        if low > 1 and _run_card(low - 1, suit) in hand:
            yield {"card": _run_card(low - 1, suit), "meld": index, "end": "low"}
        if high < 14 and _run_card(high + 1, suit) in hand:
            yield {"card": _run_card(high + 1, suit), "meld": index, "end": "high"}


def keep_score(code: str, hand: Sequence[str]) -> int:
    """How useful a card looks: jokers most, then cards with rank or suit partners."""
    if code == JOKER:
        return 99
    others = list(hand)
    others.remove(code)
    score = 0
    for other in others:
        if other == JOKER or _rank(other) == _rank(code):
            score += 1
        elif _suit(other) == _suit(code):
            gap = abs(RANKS.index(_rank(other)) - RANKS.index(_rank(code)))
            score += 1 if gap <= 2 else 0
    return score
