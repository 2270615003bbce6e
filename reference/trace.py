"""Rule tracing: which rules the reference decided by while answering one request.

Coverage by execution (docs/rules.md) asks which rules a scenario slice really exercises, not which
it cites. The rules code calls :func:`decided` where a branch deciding by a rule accepts or
applies something, and :func:`refused` where a branch refuses by it; the adapter gathers
both per request (``python -m reference.adapter --trace-rules PATH``).

A rule is recorded only where the branch that decides by it ran: a disputed point or house
variant (``DISPUTE-nn``, ``VARIANT-nn``) only where its options would part ways (a joker
discarded, not every discard, for DISPUTE-08). Rule IDs are the Argentine ones where a
rule is shared, the profile's own (``CHILE-SWAP-1``) where no Argentine rule states it; the
harness maps Argentine IDs to a profile's own through ``own_rules``.

Speculative work (the solver's search, ``is_legal``, ``legal_actions``, validating a loaded
state) runs under :func:`quiet`: trying a move is not deciding by its rules.

Off by default, tracing costs one ``is None`` test per decision point: nothing is kept and
no argument is built but a tuple of constant strings.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

_record: Record | None = None
"""The record of the request being answered; None while tracing is off."""
_quiet = 0
"""How many :func:`quiet` blocks are open: inside one nothing is recorded."""


@dataclass
class Record:
    """The rule IDs one request decided and refused by, in first-seen order, each once."""

    decided: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)

    def add(self, into: list[str], rules: tuple[str, ...]) -> None:
        """Append each rule of ``rules`` not yet in ``into``."""
        for rule in rules:
            if rule not in into:
                into.append(rule)


def decided(*rules: str) -> None:
    """Record that a branch deciding by ``rules`` accepted or applied something."""
    if _record is not None and not _quiet:
        _record.add(_record.decided, rules)


def refused(*rules: str) -> None:
    """Record that a branch deciding by ``rules`` refused something."""
    if _record is not None and not _quiet:
        _record.add(_record.refused, rules)


def active() -> bool:
    """True while a request is traced (to guard work done only to know what decided)."""
    return _record is not None and not _quiet


@contextmanager
def quiet() -> Iterator[None]:
    """Record nothing inside: speculative checks (is this legal? which openings exist?)."""
    global _quiet
    _quiet += 1
    try:
        yield
    finally:
        _quiet -= 1


@contextmanager
def recording() -> Iterator[Record]:
    """Trace the code run inside into a fresh :class:`Record` (nesting restores the outer)."""
    global _record
    outer, _record = _record, Record()
    try:
        yield _record
    finally:
        _record = outer
