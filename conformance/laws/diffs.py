"""A law's broken states told briefly: a long pile by what changed in it, not in full.

A law that finds two states differing (a rejected action that changed the state, a replay
that dealt otherwise) names each field that differs. A stock of eighty cards printed twice
hides the one card that came back; :func:`told` says ``80 → 81 cards: J♣ more`` instead,
and keeps the whole value for anything short.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from conformance.grading.compare import Mismatch, format_mismatches, show_cards

#: A list of cards longer than this is told by its change, not in full.
LONGEST: int = 12
#: Most cards come and gone that are named one by one.
CHANGED: int = 4


def _cards(value: Any) -> list[str] | None:
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return value
    return None


def change(before: Sequence[str], after: Sequence[str]) -> str:
    """What turned ``before`` into ``after``: the cards that came and went, else the first
    place their order differs."""
    was, now = Counter(before), Counter(after)
    more, fewer = now - was, was - now
    head = f"{len(before)} → {len(after)} cards"
    pairs = enumerate(zip(before, after, strict=False))
    at = next((i for i, (a, b) in pairs if a != b), min(len(before), len(after)))
    if not more and not fewer:
        return f"{head}, the same cards in another order from position {at}"
    if sum(more.values()) + sum(fewer.values()) > CHANGED:
        # A pile dealt otherwise: which cards moved says nothing more than where.
        return f"{head}, other cards from position {at}"
    parts = []
    if more:
        parts.append(f"{show_cards(more.elements(), ordered=False)} more")
    if fewer:
        parts.append(f"{show_cards(fewer.elements(), ordered=False)} fewer")
    return f"{head}: {', '.join(parts)}"


def told(
    mismatches: Sequence[Mismatch], before: Mapping[str, Any], after: Mapping[str, Any]
) -> str:
    """``mismatches`` between ``before`` and ``after`` as the laws print them: a field
    holding a long list of cards on both sides told by :func:`change`, the rest in full."""
    lines = []
    for m in mismatches:
        # The field alone: what the states had to share is the law's to say.
        field = m.what.split(" ", 1)[0]
        was, now = _cards(before.get(field)), _cards(after.get(field))
        if was is not None and now is not None and max(len(was), len(now)) > LONGEST:
            lines.append(f"  {field}: {change(was, now)}")
        else:
            lines.append(format_mismatches([replace(m, what=field)]))
    return "\n".join(lines)
