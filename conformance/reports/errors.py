"""Errored cases grouped by what the engine did, one line each, as failing checks are.

An engine that answers one op against the protocol (a score sent as a string), crashes on
one action, or never answers one op errs in every case that asks it: the same error, its
request id and numbers aside. :func:`error_groups` puts those cases together, so one
fault reads as one line with its example (the terminal's "Errors" block), and each case
names its group instead of repeating the message.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from conformance.grading.results import CaseResult

#: A request id, which differs from case to case: ``(id 213)``.
_REQUEST_ID = re.compile(r"\s*\(id [^)]*\)")
#: Numbers (scores, exit codes, seconds): the same fault shows other ones in other cases.
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
#: The longest part of a message the grouping key reads (a schema error may quote a
#: whole answer after it).
KEY_CHARS = 160


@dataclass(frozen=True)
class ErrorGroup:
    """Errored cases that show one behaviour of the engine."""

    #: What came back, as the example case's error says it (its request id left out).
    summary: str
    #: The cases, in run order; the first is the example.
    cases: tuple[str, ...]
    #: The rules of those cases, in order of first appearance.
    rules: tuple[str, ...]

    def line(self) -> str:
        """The group in one line: summary, how many cases, rules."""
        return f"{self.summary} — {len(self.cases)} case(s) [{', '.join(self.rules)}]"


def error_key(message: str) -> str:
    """What one error says, its request id and numbers aside: the grouping key."""
    return _NUMBER.sub("N", _REQUEST_ID.sub("", message))[:KEY_CHARS]


def error_groups(results: Sequence[CaseResult]) -> tuple[ErrorGroup, ...]:
    """The errored cases of ``results`` grouped by :func:`error_key`, most cases first."""
    found: dict[str, list[CaseResult]] = {}
    for result in results:
        if result.status == "error":
            found.setdefault(error_key(result.error or "error"), []).append(result)
    groups = [
        ErrorGroup(
            summary=_REQUEST_ID.sub("", members[0].error or "error"),
            cases=tuple(r.id for r in members),
            rules=tuple(dict.fromkeys(rule for r in members for rule in r.rules)),
        )
        for members in found.values()
    ]
    groups.sort(key=lambda g: -len(g.cases))
    return tuple(groups)


def recurring_errors(groups: Sequence[ErrorGroup]) -> Mapping[str, int]:
    """Case id -> the number of its group, for the groups of more than one case (a lone
    error is told where its case is)."""
    return {
        case: number
        for number, group in enumerate(groups, start=1)
        if len(group.cases) > 1
        for case in group.cases
    }
