"""Merging the reports of a campaign's shards (``fuzz --merge``; ``report merge --fuzz``).

Shard reports come back from CI artifacts that anyone could have edited, so
:func:`read_report` reads one within bounds and validates it against
``conformance/schemas/fuzz-report.schema.json`` before anything looks inside: a file that
is too large, not UTF-8, not JSON, nested too deep, holds a huge integer or a ``NaN`` or
``Infinity`` (the limits of conformance/io/jsonsafe.py), or is not a fuzz report at all, is
one :class:`~conformance.fuzz.model.FuzzError` naming the file (the command line: exit 2).

:func:`merge_reports` refuses reports of different campaigns or engines, a report whose
adapter never started, a shard no split has (``4/2``: it would hide that 1/2 and 2/2 are
missing) and the same shard given twice (its games would count twice); it names the shards
that are missing, in ``warnings``.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any, Final

from conformance.io.jsonsafe import MAX_INT_DIGITS, JSONFileError, read_json_file
from conformance.io.resources import package_file
from conformance.io.validation import SchemaValidator
from conformance.run.shards import missing_shards

from .model import FIRST_DRAFT_ID, LAST_DRAFT_ID, FuzzError, finite

#: The fuzz report schema.
SCHEMA_PATH: Final = package_file("schemas", "fuzz-report.schema.json")


@cache
def _validator() -> SchemaValidator:
    return SchemaValidator(json.loads(SCHEMA_PATH.read_text(encoding="utf-8")))


def read_report(path: str | Path) -> dict[str, Any]:
    """The fuzz report at ``path``, read within bounds (conformance/io/jsonsafe.py: size,
    depth, integer digits, no NaN or Infinity) and valid by its schema.

    :raises FuzzError: naming the file and what is wrong with it.
    """
    try:
        doc = read_json_file(path, "the fuzz report", share_strings=True, escape_text=True)
    except JSONFileError as exc:
        raise FuzzError(str(exc)) from None
    error = _validator().best_error(doc)
    if error is not None:
        where = "/" + "/".join(str(part) for part in error.absolute_path)
        message = error.message if len(error.message) <= 300 else error.message[:300] + "…"
        raise FuzzError(f"{path}: not a fuzz report: at {where}: {message}")
    assert isinstance(doc, dict)
    return doc


def _label(report: Mapping[str, Any], index: int) -> str:
    shards = report["campaign"]["shards"]
    return (
        "report "
        + str(index + 1)
        + " (shard "
        + ", ".join(f"{s['index']}/{s['count']}" for s in shards)
        + ")"
    )


def _shard_warnings(shards: Sequence[Mapping[str, int]]) -> list[str]:
    """Refuse a shard that no split has (4/2), one given twice, or shards of different
    splits; name the missing ones."""
    seen: set[tuple[int, int]] = set()
    for shard in shards:
        key = (int(shard["index"]), int(shard["count"]))
        if not 1 <= key[0] <= key[1]:
            raise FuzzError(
                f"cannot merge: there is no shard {key[0]}/{key[1]} (a campaign split in "
                f"{key[1]} has shards 1/{key[1]} to {key[1]}/{key[1]})"
            )
        if key in seen:
            raise FuzzError(
                f"cannot merge: shard {key[0]}/{key[1]} is given twice "
                "(its games would be counted twice)"
            )
        seen.add(key)
    counts = sorted({count for _, count in seen})
    if len(counts) > 1:
        raise FuzzError(f"cannot merge shards of different splits: /{', /'.join(map(str, counts))}")
    missing = missing_shards({index for index, _ in seen}, counts[0])
    if not missing:
        return []
    return [f"shard(s) {missing} missing: this report covers part of the campaign"]


def merge_reports(reports: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Merge shard reports of one campaign: totals add up, findings merge by key.

    A finding seen in several shards keeps the sum of the counts and the smallest example
    (fewest steps, then fewest players, then the lowest game index). The shards that are
    missing are named in ``warnings``.

    :raises FuzzError: when the reports are of different campaigns or engines, a report's
        adapter never started, or a shard is given twice.
    """
    if not reports:
        raise FuzzError("--merge needs at least one report")
    for i, rep in enumerate(reports):
        if rep.get("engine") is None:
            why = str(rep.get("adapter_error") or "no handshake").splitlines()[0]
            raise FuzzError(f"cannot merge: {_label(rep, i)}: its adapter never started ({why})")
    first = reports[0]
    for other in reports[1:]:
        for what in ("seed", "games", "profile", "max_steps"):
            if other["campaign"][what] != first["campaign"][what]:
                raise FuzzError(
                    f"cannot merge: campaign {what} differs "
                    f"({first['campaign'][what]!r} vs {other['campaign'][what]!r})"
                )
        if other["engine"]["implementation"] != first["engine"]["implementation"]:
            raise FuzzError("cannot merge reports of different engines")
    shards = [s for rep in reports for s in rep["campaign"]["shards"]]
    warnings: set[str] = set(_shard_warnings(shards))
    totals: dict[str, Any] = {}
    by_key: dict[str, dict[str, Any]] = {}
    by_info_key: dict[str, dict[str, Any]] = {}
    unsupported: set[str] = set()
    inconsistent: set[str] = set()
    events: Counter[str] = Counter()
    for rep in reports:
        for k, v in rep["totals"].items():
            if k == "seconds":
                totals[k] = finite(totals.get(k, 0)) + finite(v)
            elif isinstance(v, int) and not isinstance(v, bool):
                totals[k] = totals.get(k, 0) + v
        events.update(rep.get("events", {}))
        warnings |= set(rep.get("warnings", []))
        unsupported |= set(rep.get("unsupported_ops", []))
        inconsistent |= set(rep.get("inconsistent_ops", []))
        _merge_into(by_key, rep["findings"])
        _merge_into(by_info_key, rep.get("information") or [])
    totals["seconds"] = round(finite(totals.get("seconds", 0)), 3)
    _refuse_unreadable_sums(totals, events, by_key.values())
    findings = sorted(by_key.values(), key=lambda f: (f["rule"], f["key"]))
    information = sorted(by_info_key.values(), key=lambda f: (f["rule"], f["key"]))
    totals["findings"] = len(findings)
    if information or "information" in totals:
        totals["information"] = len(information)
    for i, f in enumerate(findings):
        if f.get("scenario") and FIRST_DRAFT_ID + i <= LAST_DRAFT_ID:
            f["scenario"]["id"] = f"cc-{FIRST_DRAFT_ID + i:04d}"
        elif f.get("scenario"):
            f["scenario"] = None
        f["scenario_file"] = None
        f.pop("expected", None)  # a merge reads no expectations file: every finding counts
    return {
        **{
            k: first[k]
            for k in ("report", "version", "engine", "engine_argv", "reference_argv", "rulings")
        },
        "campaign": {
            **first["campaign"],
            "shards": sorted(shards, key=lambda s: (s["count"], s["index"])),
        },
        "totals": totals,
        "events": dict(sorted(events.items())),
        "findings": findings,
        "information": information,
        "interrupted": next((r["interrupted"] for r in reports if r.get("interrupted")), None),
        "adapter_error": None,
        "unsupported_ops": sorted(unsupported),
        "inconsistent_ops": sorted(inconsistent),
        "warnings": sorted(warnings),
    }


def _merge_into(by_key: dict[str, dict[str, Any]], found: Sequence[Mapping[str, Any]]) -> None:
    """Add one shard's findings (or information) to ``by_key``: counts add up, games join,
    and the smallest example is kept."""
    for f in found:
        have = by_key.get(f["key"])
        if have is None:
            by_key[f["key"]] = _own(f)
            continue
        have["count"] += f["count"]
        have["games"] = sorted(set(have["games"]) | set(f["games"]))[:100]
        if _size(f) < _size(have):
            keep = {"count": have["count"], "games": have["games"]}
            by_key[f["key"]] = {**_own(f), **keep}


#: Largest count a merged report may hold: its readers (this module, conformance/io/jsonsafe.py)
#: take integers of at most MAX_INT_DIGITS digits, so a sum past it would be written into a
#: report that no later merge could read.
MAX_MERGED_COUNT: Final = 10**MAX_INT_DIGITS - 1


def _refuse_unreadable_sums(
    totals: Mapping[str, Any], events: Mapping[str, int], findings: Iterable[Mapping[str, Any]]
) -> None:
    """Refuse a merge whose sums would be too long for the readers of the merged report.

    :raises FuzzError: naming the count.
    """
    sums = [(f"totals.{k}", v) for k, v in totals.items() if k != "seconds"]
    sums += [(f"events.{k}", v) for k, v in events.items()]
    sums += [(f"finding {f['key']} count", f["count"]) for f in findings]
    for name, value in sums:
        if isinstance(value, int) and abs(value) > MAX_MERGED_COUNT:
            raise FuzzError(
                f"cannot merge: {name[:80]} adds up to more than {MAX_INT_DIGITS} digits "
                "(the shard reports hold counts no campaign plays)"
            )


def _own(finding: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``finding`` that merging may change (its count, games and draft id)
    without changing the shard report it came from. Shallow: a deep copy of every finding
    doubled a merge's memory, and nothing deeper is changed."""
    own = dict(finding)
    if isinstance(own.get("scenario"), dict):
        own["scenario"] = dict(own["scenario"])
    return own


def _size(finding: Mapping[str, Any]) -> tuple[int, int, int]:
    example = finding["example"]
    return (example["steps"], example["players"] or 0, example["game"])
