"""The readings docs/protocol.md §2 leaves to an engine, as other requests to the reference.

An engine that picks run ends itself (``run_ends: engine``) may lay a card at the end
where it fits, whatever ``end`` or ``to`` says; one that arranges runs itself
(``run_order: engine``) reads a run's cards as a set, so its jokers stand where it placed
them, which may be another place than the reference's listing. When such an engine
accepts an action the reference refused, the pair asks the reference again under each
reading the engine may have taken (:func:`alternatives`); only if none is accepted is the
refusal a divergence.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from itertools import product
from typing import Any, Final

from conformance.cards import JOKER, RANKS

#: The most readings tried for one action (a run with several jokers has many places).
MAX_READINGS: Final = 24


def _position(card: str, ace_high: bool) -> int:
    rank = card[:-1]
    return 14 if rank == "A" and ace_high else RANKS.index(rank) + 1


def run_arrangements(cards: Sequence[str]) -> list[list[str]]:
    """Every listing of ``cards`` that is one unbroken run, low to high, its jokers filling
    the gaps and then standing at either end (within ace to ace); the cards' own listing
    first when it is one of them. Empty when no listing is a run."""
    naturals = [c for c in cards if c != JOKER]
    jokers = len(cards) - len(naturals)
    if not naturals or any(c[:-1] not in RANKS for c in naturals):
        return []
    found: list[list[str]] = []
    for ace_high in (False, True):
        ordered = sorted(naturals, key=lambda c: _position(c, ace_high))
        spots = [_position(c, ace_high) for c in ordered]
        if len(set(spots)) != len(spots):
            continue
        gaps = spots[-1] - spots[0] + 1 - len(spots)
        if gaps > jokers:
            continue
        middle: list[str] = []
        for card, spot in zip(ordered, spots, strict=True):
            if middle:
                middle += [JOKER] * (spot - _position(middle[-1], ace_high) - 1)
            middle.append(card)
        spare = jokers - gaps
        for below in range(spare + 1):
            above = spare - below
            if spots[0] - below < 1 or spots[-1] + above > 14:
                continue
            listing = [JOKER] * below + middle + [JOKER] * above
            if listing not in found:
                found.append(listing)
    listed = list(cards)
    if listed in found:
        found.remove(listed)
        found.insert(0, listed)
    return found


def alternatives(
    before: Mapping[str, Any], action: Mapping[str, Any], *, ends: bool, order: bool
) -> Iterator[tuple[dict[str, Any] | None, dict[str, Any]]]:
    """Other readings of ``action`` in ``before`` an engine may have taken: ``(table, action)``
    pairs, ``table`` None when the table is read as listed.

    ``ends`` (``run_ends: engine``): the other end of a lay-off or a joker replacement.
    ``order`` (``run_order: engine``): another arrangement of the run acted on, and for an
    opening each run arranged as a run. Never the reading the reference already refused.
    """
    kind = action.get("type")
    seen = {json.dumps([None, dict(action)], sort_keys=True)}
    tables: list[list[dict[str, Any]] | None] = [None]
    table = [dict(m) for m in before.get("table") or []]
    index = action.get("meld")
    if (
        order
        and kind in ("lay_off", "swap_joker")
        and isinstance(index, int)
        and 0 <= index < len(table)
        and table[index].get("kind") == "run"
        and JOKER in table[index].get("cards", [])
    ):
        for listing in run_arrangements(table[index]["cards"]):
            if listing == list(table[index]["cards"]):
                continue
            other = [dict(m) for m in table]
            other[index] = {**other[index], "cards": listing}
            tables.append(other)
    actions: list[dict[str, Any]] = [dict(action)]
    key = {"lay_off": "end", "swap_joker": "to"}.get(str(kind))
    if ends and key and action.get(key) in ("low", "high"):
        actions.append({**action, key: "high" if action[key] == "low" else "low"})
    if order and kind == "open":
        melds = [
            {**m, "cards": (run_arrangements(m.get("cards", [])) or [list(m.get("cards", []))])[0]}
            if isinstance(m, Mapping) and m.get("kind") == "run"
            else m
            for m in action.get("melds") or []
        ]
        actions.append({**action, "melds": melds})
    tried = 0
    for candidate_table, candidate in product(tables, actions):
        mark = json.dumps([candidate_table, candidate], sort_keys=True)
        if mark in seen:
            continue
        seen.add(mark)
        tried += 1
        if tried > MAX_READINGS:
            return
        yield candidate_table, candidate
