"""A cause entry of an expectations file (``expected_causes``), as written and as matched.

An entry written by ``run --write-expectations FILE --by-cause`` lists its checks and what
they showed (``shows``: their signatures, the values that differed). A listed check that
fails showing something else is another behaviour: it stays ``fail``, with a note naming
the entry, so a file written for one fault never covers another (conformance/run/
expectations.py applies the entries).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from conformance.grading.results import CaseResult

if TYPE_CHECKING:
    from conformance.run.expectations import ExpectedCause

#: The longest signature an entry's ``shows`` holds (expectations.schema.json).
MAX_SHOWN = 2000

#: (case id, check key) -> the signatures the entry listing it was written with.
Shows = Mapping[tuple[str, str], frozenset[str]]


def signatures_of(results: Sequence[CaseResult], members: Iterable[tuple[str, str]]) -> list[str]:
    """The distinct signatures of the checks ``members`` (case id, check key) of ``results``."""
    wanted = set(members)
    found = sorted(
        {
            c.signature or c.what
            for r in results
            for c in r.checks
            if (r.id, c.key) in wanted and c.status in ("fail", "xfail")
        }
    )
    # One the file could not hold (the schema's bound): the entry then matches any failure
    # of its checks, as an entry without ``shows`` does, rather than none.
    return [] if any(len(s) > MAX_SHOWN or "\x00" in s for s in found) else found


def cause_shows(causes: Sequence[ExpectedCause]) -> Shows:
    """Each check a cause entry lists, with the signatures it was written with (entries
    without ``shows`` match any failure, as before the field)."""
    return {member: cause.shows for cause in causes if cause.shows for member in cause.checks}


def unmatched(result: CaseResult, shows: Shows) -> tuple[CaseResult, frozenset[str]]:
    """``result`` with a note on each failing check a cause entry lists but that shows
    another behaviour (a signature the entry does not hold), and those checks' keys: the
    entry does not cover them, and they keep failing."""
    if not shows:
        return result, frozenset()
    keys: set[str] = set()
    checks = []
    for check in result.checks:
        allowed = shows.get((result.id, check.key))
        shown = check.signature or check.what
        if allowed and check.status == "fail" and shown not in allowed:
            note = (
                f"an expected_causes entry lists this check, but it failed otherwise "
                f"({shown}): another behaviour, not matching the entry"
            )
            check = replace(check, note=f"{check.note}; {note}" if check.note else note)
            keys.add(check.key)
        checks.append(check)
    if not keys:
        return result, frozenset()
    return replace(result, checks=tuple(checks)), frozenset(keys)


def cause_yaml(document: Mapping[str, Any]) -> str:
    """The YAML of a by-cause document, each cause entry under a comment that counts it:
    keep or delete an entry as one unit."""
    import yaml

    header = (
        "# Known failures of this engine, one entry per root cause: keep a cause (fill in\n"
        "# its reason; the summary stands in for an empty one) or delete it as one unit.\n"
    )
    text = yaml.safe_dump(
        dict(document), sort_keys=False, default_flow_style=False, allow_unicode=True
    )
    causes = document.get("expected_causes") or []
    lines = []
    number = 0
    for line in text.splitlines(keepends=True):
        # Only a cause entry starts a line with "- ": expected_failures is a mapping.
        if line.startswith("- ") and number < len(causes):
            checks = causes[number]["checks"]
            number += 1
            count = sum(len(keys) for keys in checks.values())
            lines.append(
                f"# cause {number} of {len(causes)}: {count} check(s) in {len(checks)} case(s)\n"
            )
        lines.append(line)
    return header + "".join(lines)
