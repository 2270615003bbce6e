"""Built mid-deal states: reachable positions (by counts, conformance/knowledge/reachability.py)
with opened players, table melds, jokers and a small stock, so that lay-offs, joker
replacements, recycles, cancels and closes come within a few turns."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from conformance.knowledge.cards import CANONICAL_ORDER, JOKER, RANKS, SUITS
from conformance.knowledge.profiles import ProfileData, find_profile
from conformance.laws.greedy import meld_candidates

from .melds import contract_kinds, joker_swaps, run_card, run_low, shuffled_deck


def built_state(
    rng: random.Random,
    players: int,
    deal: int,
    dealer: int,
    totals: list[int],
    profile: str,
    *,
    careful: bool = False,
    facts: ProfileData | None = None,
    wild_limit: int | None = None,
) -> dict[str, Any]:
    """A reachable mid-deal state in the draw phase: some players opened, a small stock.

    The counts follow conformance/knowledge/reachability.py: an unopened player holds the dealt
    number of cards; an opened one owns melds and holds at most dealt - contract cards.
    The table takes trios and runs of the remaining cards (jokers included), so lay-offs,
    joker replacements, recycling, cancels and closes come within a few turns.
    ``facts``: the profile's facts with the engine's packs (``Pair.facts``); by default
    the profile's own. ``wild_limit``: the most wild cards a run may hold under the
    engine's rulings (VARIANT-03 ``kept``: one), None for no limit.
    """
    facts = facts if facts is not None else find_profile(profile)
    dealt = facts.hand_size(deal)
    laid = facts.contract_cards(deal)
    pool = shuffled_deck(rng, facts, players)
    # In deals 6 and 7 an opening lays every card but the one discarded (END-2, END-3): no
    # player can be opened and still playing, so the table stays empty there.
    can_open = dealt - laid >= 1
    opened = [can_open and rng.random() < 0.6 for _ in range(players)]
    if can_open and not any(opened):
        opened[rng.randrange(players)] = True
    hands = []
    for p in range(players):
        size = dealt if not opened[p] else rng.randint(1, dealt - laid)
        hands.append([pool.pop() for _ in range(size)])
    counts = Counter(pool)
    mover = (dealer + 1) % players
    if not opened[mover] and rng.random() < 0.4:
        _bait_opening(rng, hands[mover], deal, counts, facts)
    table: list[dict[str, Any]] = []
    owners = [p for p in range(players) if opened[p]]
    # Runs first (some with a joker), then trios of what is left.
    for _ in range(rng.randint(1, 4) if owners else 0):
        suit = rng.choice(SUITS)
        length = rng.randint(4, 9)
        low = rng.choice([1, 15 - length, rng.randint(1, 15 - length)])  # aces at the ends
        cards = [run_card(low + k, suit) for k in range(length)]
        for _ in range(rng.choice([0, 1, 1, 2])):
            cards[rng.randrange(length)] = JOKER
        need = Counter(cards)
        if wild_limit is not None and sum(facts.is_wild(c) for c in cards) > wild_limit:
            continue  # more wild cards than the engine's rulings let a run hold
        if all(counts[c] >= n for c, n in need.items()) and any(c != JOKER for c in cards):
            counts -= need
            table.append({"owner": 0, "kind": "run", "cards": cards})
    for rank in RANKS if owners else ():
        naturals = [c for c in sorted(counts.elements()) if c != JOKER and c[:-1] == rank]
        if careful:
            # One card of each suit and no wild card: a trio every profile allows.
            naturals = sorted({c for c in naturals if not facts.is_wild(c)})
        if len(naturals) >= 3 and rng.random() < 0.8:
            take = naturals[: rng.randint(3, min(4, len(naturals)))]
            counts -= Counter(take)
            table.append({"owner": 0, "kind": "trio", "cards": take})
    for i, meld in enumerate(table):
        meld["owner"] = owners[i % len(owners)] if i < len(owners) else rng.choice(owners)
    for p in owners:
        if not any(m["owner"] == p for m in table):
            opened[p] = False
            while len(hands[p]) < dealt:
                card = next(iter(counts.elements()))
                counts[card] -= 1
                hands[p].append(card)
    rest = list(counts.elements())
    rng.shuffle(rest)
    if table and rng.random() < 0.5:
        # Dense: the table takes what it can, the discard pile is one card and the stock
        # what is left, so the first draws cancel the deal or empty the stock (STOCK-2).
        kept = facts if careful else None
        top, rest = rest[:1], _absorb(rest[1:], table, kept)
        upcard_and_discard, stock = top, _trade(rest, hands, table, kept)
    else:
        upcard_and_discard = rest[: max(1, len(rest) - rng.choice([0, 1, 2, 3, 6, 12]))]
        stock = rest[len(upcard_and_discard) :]
    _bait_swaps(rng, hands, table, opened, (stock, upcard_and_discard))
    turn = (dealer + 1) % players
    return draw_state(
        profile, deal, dealer, turn, hands, opened, table, stock, upcard_and_discard, totals
    )


def draw_state(
    profile: str,
    deal: int,
    dealer: int,
    turn: int,
    hands: list[list[str]],
    opened: list[bool],
    table: list[dict[str, Any]],
    stock: list[str],
    discard: list[str],
    totals: list[int],
) -> dict[str, Any]:
    """A protocol state at the start of ``turn``'s turn (draw phase), as the fuzzer builds it."""
    return {
        "profile": profile,
        "players": len(hands),
        "deal_number": deal,
        "dealer": dealer,
        "turn": turn,
        "phase": "draw",
        "hands": hands,
        "opened": opened,
        "turn_opened": False,
        "table": table,
        "stock": stock,
        "discard": discard,
        "totals": totals,
        "deal_scores": None,
        "closer": None,
        "winners": None,
    }


def _bait_opening(
    rng: random.Random, hand: list[str], deal: int, counts: Counter[str], facts: ProfileData
) -> None:
    """Put a ready contract (at most one wild card a meld) into ``hand``, from ``counts``."""
    melds: list[str] = []
    for kind in contract_kinds(facts, deal, rng):
        left = counts - Counter(melds)
        found = [list(c) for c in meld_candidates(left, kind, facts.wild_ranks)]
        if not found:
            return
        melds += rng.choice(found)
    if len(melds) > len(hand):
        return
    for card in hand[: len(melds)]:
        counts[card] += 1
    counts.subtract(Counter(melds))
    hand[: len(melds)] = melds


def _bait_swaps(
    rng: random.Random,
    hands: list[list[str]],
    table: Sequence[Mapping[str, Any]],
    opened: Sequence[bool],
    piles: Sequence[list[str]],
) -> None:
    """Give opened players the cards some table jokers stand for (or that rank in another
    suit), taken from the stock or the discard pile below its top, so replacements happen."""
    holders = [p for p, o in enumerate(opened) if o and hands[p]]
    for swap in joker_swaps(list(CANONICAL_ORDER), table):
        if not holders or rng.random() < 0.3:
            continue
        card = swap["card"]
        if rng.random() < 0.4:
            card = card[:-1] + rng.choice(SUITS)  # the right rank in some suit (JOKER-4)
        for pile, first in ((piles[0], 0), (piles[1], 1)):
            if card in pile[first:]:
                where = pile.index(card, first)
                p = rng.choice(holders)
                i = rng.randrange(len(hands[p]))
                pile[where], hands[p][i] = hands[p][i], card
                break


def _absorb(
    cards: list[str], table: list[dict[str, Any]], careful: ProfileData | None = None
) -> list[str]:
    """Lay ``cards`` onto the table melds where they fit; return those that fit nowhere.

    ``careful``: a trio takes only a natural card of its rank in a suit it lacks, up to four
    cards, so that every profile allows it (see :func:`built_state`)."""
    left = []
    for card in cards:
        for meld in table:
            naturals = [c for c in meld["cards"] if c != JOKER]
            if meld["kind"] == "trio":
                if careful is not None:
                    fits = (
                        len(meld["cards"]) < 4
                        and not careful.is_wild(card)
                        and card[:-1] == naturals[0][:-1]
                        and card[-1] not in {c[-1] for c in naturals}
                    )
                else:
                    fits = card == JOKER or card[:-1] == naturals[0][:-1]
                if fits:
                    meld["cards"].append(card)
                    break
                continue
            low = run_low(meld["cards"])
            if low is None or card == JOKER or card[-1] != naturals[0][-1]:
                continue
            high = low + len(meld["cards"]) - 1
            if high < 14 and card == run_card(high + 1, card[-1]):
                meld["cards"].append(card)
                break
            if low > 1 and card == run_card(low - 1, card[-1]):
                meld["cards"].insert(0, card)
                break
        else:
            left.append(card)
    return left


def _trade(
    cards: list[str],
    hands: list[list[str]],
    table: list[dict[str, Any]],
    careful: ProfileData | None = None,
) -> list[str]:
    """Swap cards that fit no meld for hand cards that do (the hand keeps its size)."""
    left = []
    for card in cards:
        placed = False
        for hand in hands:
            for i, held in enumerate(hand):
                if not _absorb([held], table, careful):
                    hand[i] = card
                    placed = True
                    break
            if placed:
                break
        if not placed:
            left.append(card)
    return left
