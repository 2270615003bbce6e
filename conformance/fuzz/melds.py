"""Card and meld helpers the player, the built states and the scenes share: shuffled
packs, a contract's meld kinds, a run's positions, joker replacements, meld candidates."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from conformance.knowledge.cards import JOKER, RANKS
from conformance.knowledge.profiles import ProfileData
from conformance.laws.greedy import contract_melds, meld_candidates


def shuffled_deck(rng: random.Random, facts: ProfileData, players: int) -> list[str]:
    deck = list(facts.pack(players).canonical_order())
    rng.shuffle(deck)
    return deck


def contract_kinds(facts: ProfileData, deal: int, rng: random.Random | None = None) -> list[str]:
    """The meld kinds of one way to make deal ``deal``'s contract (a random one of several
    when ``rng`` is given, else the first)."""
    contracts = facts.deal(deal).contracts
    # A single contract draws nothing from ``rng``, so argentine games keep their seeds.
    contract = rng.choice(contracts) if rng is not None and len(contracts) > 1 else contracts[0]
    return ["trio"] * contract.trios + ["run"] * contract.runs


def run_card(position: int, suit: str) -> str:
    return ("A" if position in (1, 14) else RANKS[position - 1]) + suit


def run_low(cards: Sequence[str]) -> int | None:
    """Position (1..14) of a run's first card, from its first natural card."""
    first = next((i for i, c in enumerate(cards) if c != JOKER), None)
    if first is None:
        return None
    rank = RANKS.index(cards[first][:-1]) + 1
    low = rank - first
    if low < 1:
        low += 13
    return low


def joker_swaps(hand: Sequence[str], table: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Replacements whose card is the one a run's joker stands for (JOKER-4)."""
    out = []
    for index, meld in enumerate(table):
        cards = list(meld.get("cards", []))
        if meld.get("kind") != "run" or JOKER not in cards:
            continue
        low = run_low(cards)
        naturals = [c for c in cards if c != JOKER]
        if low is None or not naturals:
            continue
        suit = naturals[0][-1]
        for i, card in enumerate(cards):
            if card == JOKER and 1 <= low + i <= 14:
                wanted = run_card(low + i, suit)
                if wanted in hand:
                    out.append({"meld": index, "card": wanted})
    return out


def candidates(
    hand: Sequence[str], kind: str, facts: ProfileData
) -> list[tuple[str, tuple[str, ...]]]:
    return [(kind, cards) for cards in meld_candidates(Counter(hand), kind, facts.wild_ranks)]


def any_opening(hand: Sequence[str], deal: int, facts: ProfileData) -> list[dict[str, Any]] | None:
    """An opening of the contract from ``hand`` even if it leaves no card (a TURN-9 probe)."""
    return contract_melds(hand, contract_kinds(facts, deal), facts.wild_ranks)
