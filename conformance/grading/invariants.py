"""What every state an engine answers must hold, whatever the case asserts.

A state with two extra hands, or 40 queens of hearts, could pass every field a case happens
to name. Each answered state is checked once for the profile's invariants under the
engine's rulings: one hand per seated player, and the cards in hands, on the table, in the
stock and in the discard pile are exactly the pack for that player count
(conformance/data/profiles.json, conformance/knowledge/optionfacts.py).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from functools import lru_cache
from itertools import chain
from typing import Any

from conformance.knowledge.profiles import Pack


@lru_cache(maxsize=64)
def _pack_counts(pack: Pack) -> Counter[str]:
    return Counter(pack.canonical_order())


@lru_cache(maxsize=64)
def _pack_sorted(pack: Pack) -> list[str]:
    return sorted(pack.canonical_order())


def invariant_problems(state: Mapping[str, Any], players: int, pack: Pack) -> list[str]:
    """Why ``state`` breaks the invariants of a ``players``-seat game with ``pack`` ([] when
    it holds them). Each problem is one short sentence, the same for the same breach."""
    hands = state.get("hands")
    if not isinstance(hands, list) or not all(isinstance(h, list) for h in hands):
        return ["the state holds no list of hands"]
    problems: list[str] = []
    if len(hands) != players:
        problems.append(f"{len(hands)} hands for {players} players")
    cards: list[Any] = list(chain.from_iterable(hands))
    for meld in state.get("table") or ():
        if isinstance(meld, Mapping) and isinstance(meld.get("cards"), list):
            cards += meld["cards"]
    for pile in ("stock", "discard"):
        if isinstance(state.get(pile), list):
            cards += state[pile]
    # The usual answer holds the pack: one sort and one list comparison, both in C.
    try:
        if not problems and sorted(cards) == _pack_sorted(pack):
            return problems
    except TypeError:
        pass  # something other than card codes: counted below
    have = Counter(card for card in cards if isinstance(card, str))
    if len(cards) != sum(have.values()):
        problems.append("the state holds something other than card codes")
    want = _pack_counts(pack)
    if have == want:
        return problems
    extra = have - want
    missing = want - have
    for card in sorted(extra):
        problems.append(f"{have[card]} copies of {card}: the pack has {want.get(card, 0)}")
    if missing:
        problems.append(
            f"{sum(missing.values())} card(s) of the pack missing "
            f"({', '.join(sorted(missing)[:5])}{', ...' if len(missing) > 5 else ''})"
        )
    return problems
