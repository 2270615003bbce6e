"""Known findings: a campaign read beside an expectations file, and one written from it.

``fuzz --expectations FILE`` reads the same file as ``run --expectations``
(conformance/run/expectations.py); its ``expected_findings`` name fuzz findings by their key,
as the report gives it: the rule, the op, the kind and the summary (the two answers). A
finding an entry names is marked ``expected`` in the report (with the entry's reason) and
does not fail the campaign; a new finding does. An entry no finding matched is ``stale``:
listed in the report, and a failure under ``--strict`` so that it gets removed.
``fuzz --write-expectations FILE`` writes a campaign's findings as such entries.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from conformance.io.jsonsafe import dumps
from conformance.run.expectations import Expectations

FindingKey = tuple[str, str, str, str]


def finding_key(finding: Mapping[str, Any]) -> FindingKey:
    """A report finding's key as an expectations entry names it: rule, op, kind, summary."""
    return (
        str(finding["rule"]),
        str(finding["op"]),
        str(finding["kind"]),
        str(finding["summary"]),
    )


def _entry(key: FindingKey, reason: str | None = None) -> dict[str, str]:
    rule, op, kind, summary = key
    entry = {"rule": rule, "op": op, "kind": kind, "summary": summary}
    if reason is not None:
        entry["reason"] = reason
    return entry


def apply_expectations(
    report: dict[str, Any], expectations: Expectations, *, file: str, strict: bool
) -> None:
    """Mark the findings ``expectations`` lists (``expected``: its reason) and record in
    ``report["expectations"]`` how many were expected, how many are new, and the stale
    entries; :func:`conformance.fuzz.command.verdict` reads them."""
    listed = expectations.expected_findings
    seen: set[FindingKey] = set()
    unexpected = 0
    for finding in report["findings"]:
        key = finding_key(finding)
        reason = listed.get(key)
        finding["expected"] = reason
        if reason is None:
            unexpected += 1
        else:
            seen.add(key)
    report["expectations"] = {
        "file": file,
        "expected": len(report["findings"]) - unexpected,
        "unexpected": unexpected,
        "stale": [_entry(key, reason) for key, reason in listed.items() if key not in seen],
        "strict": strict,
    }


def unexpected_findings(report: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The findings no expectations entry names (all of them when none was read)."""
    return [f for f in report["findings"] if f.get("expected") is None]


def expectations_document(
    report: Mapping[str, Any], previous: Expectations | None = None
) -> dict[str, Any]:
    """An expectations document listing every finding of ``report`` (reasons to fill in,
    or kept from ``previous``), in the report's order."""
    old = previous.expected_findings if previous is not None else {}
    entries = []
    for finding in report["findings"]:
        key = finding_key(finding)
        entries.append(_entry(key, old.get(key, "")))
    return {"expected_findings": entries}


def write_expectations(
    path: Path | str, report: Mapping[str, Any], previous: Expectations | None = None
) -> int:
    """Write ``report``'s findings as an expectations file (``.json`` as JSON, else YAML);
    return how many it lists."""
    from conformance.io.files import atomic_write_text

    document = expectations_document(report, previous)
    target = Path(path)
    if target.suffix == ".json":
        text = dumps(document) + "\n"
    else:
        import yaml

        header = "# Known fuzz findings of this engine; fill in each reason.\n"
        text = header + yaml.safe_dump(document, sort_keys=False, default_flow_style=False)
    atomic_write_text(target, text)
    return len(document["expected_findings"])
