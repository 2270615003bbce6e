"""Scenario ids (reserved ranges, retired ids) and the corpus digest."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from conformance.scenarios.model import Scenario

EXAMPLE_IDS = ("cc-9900", "cc-9999")


def is_example_id(scenario_id: str) -> bool:
    """True for an id of the range reserved for documentation examples."""
    return EXAMPLE_IDS[0] <= scenario_id <= EXAMPLE_IDS[1] and len(scenario_id) == 7


#: Numbers of the ids ``fuzz`` gives its drafts (``cc-8000`` ..); a case with one of them
#: must say ``review: draft`` (docs/fuzzing.md).
DRAFT_IDS = (8000, 8999)


def is_draft_id(scenario_id: str) -> bool:
    """True for an id of the range reserved for fuzz drafts."""
    number = scenario_id[3:]
    return (
        scenario_id.startswith("cc-")
        and len(number) == 4
        and number.isdigit()
        and DRAFT_IDS[0] <= int(number) <= DRAFT_IDS[1]
    )


def corpus_digest(scenarios: Sequence[Scenario]) -> str:
    """A short SHA-256 of what the given scenarios say, independent of files and order.

    Two reports with the same digest graded engines against the same cases and
    expectations; any edited expectation changes it.
    """
    digest = hashlib.sha256()
    for scenario in sorted(scenarios, key=lambda s: s.id):
        digest.update(scenario.canonical.encode("utf-8"))
        digest.update(b"\n")
    return digest.hexdigest()[:16]


def canonical_json(document: Mapping[str, Any]) -> str:
    """A scenario document as the corpus digest reads it: JSON with sorted keys."""
    return json.dumps(document, sort_keys=True, default=str)


RETIRED_FILE = "retired-ids.txt"


def retired_ids(roots: Sequence[Path]) -> dict[str, str]:
    """Ids listed in a ``retired-ids.txt`` at the top of any corpus directory given.

    One id per line, then why it was retired; ``#`` starts a comment. A removed scenario's
    id goes there so that it is never given to a different case.
    """
    retired: dict[str, str] = {}
    for root in roots:
        listing = root / RETIRED_FILE
        if not root.is_dir() or not listing.is_file():
            continue
        for raw in listing.read_text(encoding="utf-8").splitlines():
            line = raw.split("#", 1)[0].strip()
            if line:
                sid, _, why = line.partition(" ")
                retired[sid] = why.strip() or "no reason given"
    return retired
