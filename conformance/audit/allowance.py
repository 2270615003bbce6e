"""What the corpus does not meet yet, written down so that the audit gates everything else.

The audit asks every single-option change to keep 97% of a profile's checks, no check to fail
under an option it does not name, and no assumption a check does not need. The corpus gets
there case by case; until then an **allowance file** lists what it does not meet today, and
``audit --allowance FILE`` fails only on what is not listed:

.. code-block:: yaml

    floors:                 # rows under the floor: the share each keeps today
      perla:
        DISPUTE-61=two_jokers: 0.139
    failing:                # checks that fail today, by profile, rulings, case and check
      - {profile: argentine, rulings: VARIANT-02=low_only, case: cc-1201, check: check 4}
    both_ways:              # assumptions a check does not need, today
      - {case: cc-1903, where: case, point: DISPUTE-50}

A row keeps the lower of its floor and its allowed share: it may not lose more than it does
today. ``audit --write-allowance FILE`` writes the file from a run; an entry the corpus no
longer needs is reported as one to remove, so the file only ever shrinks. Never add an
entry by hand to hide a new finding.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance.errors import HarnessError
from conformance.io.yamlsafe import read_yaml_file


class AllowanceError(HarnessError, ValueError):
    """An allowance file that cannot be read: the message names the file and the entry."""


#: A failing check allowed: profile, rulings label, case, check key.
FailingKey = tuple[str, str, str, str]
#: An assumption allowed: case, where, point.
AssumptionKey = tuple[str, str, str]


@dataclass(frozen=True)
class Allowance:
    """The allowance file's entries."""

    path: str = ""
    floors: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    failing: frozenset[FailingKey] = frozenset()
    both_ways: frozenset[AssumptionKey] = frozenset()

    def floor(self, profile: str, label: str, default: float) -> float:
        """The floor of one row: the lower of ``default`` and the share allowed today."""
        allowed = self.floors.get(profile, {}).get(label)
        return default if allowed is None else min(default, allowed)


def _strings(entry: Any, keys: Sequence[str], where: str) -> tuple[str, ...]:
    if not isinstance(entry, Mapping) or not all(isinstance(entry.get(k), str) for k in keys):
        raise AllowanceError(f"{where}: expected a mapping with {', '.join(keys)}")
    return tuple(str(entry[k]) for k in keys)


def parse_allowance(data: Any, path: str) -> Allowance:
    """The allowance of a file's content ``data`` read from ``path``.

    :raises AllowanceError: on an entry that is not what the format says.
    """
    if data is None:
        return Allowance(path)
    if not isinstance(data, Mapping) or set(data) - {"floors", "failing", "both_ways"}:
        raise AllowanceError(f"{path}: expected a mapping of floors, failing and both_ways")
    floors: dict[str, dict[str, float]] = {}
    given = data.get("floors") or {}
    if not isinstance(given, Mapping):
        raise AllowanceError(f"{path}: floors: expected a mapping of profiles")
    for profile, rows in given.items():
        if not isinstance(rows, Mapping):
            raise AllowanceError(f"{path}: floors.{profile}: expected a mapping of rulings")
        for label, share in rows.items():
            if isinstance(share, bool) or not isinstance(share, int | float) or not 0 <= share <= 1:
                raise AllowanceError(f"{path}: floors.{profile}.{label}: expected a share 0..1")
            floors.setdefault(str(profile), {})[str(label)] = float(share)
    failing = data.get("failing") or []
    both = data.get("both_ways") or []
    if not isinstance(failing, list) or not isinstance(both, list):
        raise AllowanceError(f"{path}: failing and both_ways are lists")
    allowed_failing: set[FailingKey] = set()
    for i, entry in enumerate(failing):
        profile, rulings, case, check = _strings(
            entry, ("profile", "rulings", "case", "check"), f"{path}: failing[{i}]"
        )
        allowed_failing.add((profile, rulings, case, check))
    allowed_both: set[AssumptionKey] = set()
    for i, entry in enumerate(both):
        case, where, point = _strings(entry, ("case", "where", "point"), f"{path}: both_ways[{i}]")
        allowed_both.add((case, where, point))
    return Allowance(path, floors, frozenset(allowed_failing), frozenset(allowed_both))


def read_allowance(path: Path) -> Allowance:
    """Read and parse an allowance file (YAML, safely loaded).

    :raises AllowanceError: when it cannot be read or parsed.
    """
    data = read_yaml_file(path, AllowanceError)
    return parse_allowance(data, str(path))


def share_floor(share: float) -> float:
    """A share rounded down to 3 decimals, as an allowance keeps it (never above the share)."""
    return math.floor(share * 1000) / 1000


def allowance_text(
    floors: Mapping[str, Mapping[str, float]],
    failing: Sequence[FailingKey],
    both_ways: Sequence[AssumptionKey],
) -> str:
    """An allowance file for what a run found (``audit --write-allowance FILE``)."""
    head = (
        "# What the corpus does not meet yet (docs/adding-scenarios.md#the-audit).\n"
        "# Written by `carioca-conformance audit --graded --both-ways --profile all\n"
        "# --write-allowance FILE`. The audit fails on anything not listed here; remove an\n"
        "# entry once the corpus meets it, and never add one by hand to hide a new finding.\n"
    )
    # One entry a line (JSON strings are YAML scalars): a diff shows each fix as one line.
    lines = ["floors:"]
    for profile, rows in sorted(floors.items()):
        if rows:
            lines.append(f"  {json.dumps(profile)}:")
            lines += [f"    {json.dumps(label)}: {share}" for label, share in sorted(rows.items())]
    lines.append("failing:")
    lines += [
        "  - {"
        + f"profile: {json.dumps(p)}, rulings: {json.dumps(r)}, case: {json.dumps(c)}, "
        + f"check: {json.dumps(k)}"
        + "}"
        for p, r, c, k in sorted(failing)
    ]
    lines.append("both_ways:")
    lines += [
        "  - {" + f"case: {json.dumps(c)}, where: {json.dumps(w)}, point: {json.dumps(p)}" + "}"
        for c, w, p in sorted(both_ways)
    ]
    body = "\n".join(lines) + "\n"
    return head + body
