"""Reading, merging and comparing JSON run reports (``carioca-conformance report``).

A run report (schemas/report.schema.json, written by :mod:`conformance.report`) is read
with :func:`load_report`, which validates it and says which file is wrong and where.
:func:`merge_reports` joins the reports of one engine's shards or workers into one
report; :func:`diff_reports` says what changed between two runs of one engine. Fuzz
reports (``carioca-conformance fuzz``) are read with :func:`load_fuzz_report` and
merged with :func:`merge_fuzz_reports`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from conformance.report import REPORT_FORMAT, SCHEMA_PATH, badges
from conformance.runner import STATUSES
from conformance.validation import SchemaValidator

#: The fuzz report schema, once ``carioca-conformance fuzz`` ships it (issue 14).
FUZZ_SCHEMA_PATH = SCHEMA_PATH.parent / "fuzz-report.schema.json"
#: The warning ``run --shard`` records (conformance/cli.py).
_SHARD_NOTE = re.compile(r"shard [0-9]+/[0-9]+: [0-9]+ of [0-9]+ selected case")
#: Statuses that fail a run whatever the options (README, exit codes).
FAILING = frozenset({"fail", "error", "not_run"})


class ReportError(Exception):
    """A report that cannot be read, is not a report, or cannot be merged: says which and why."""


@dataclass(frozen=True)
class LoadedReport:
    """A validated run report and the file it came from."""

    path: str
    doc: Mapping[str, Any]

    @property
    def header(self) -> Mapping[str, Any]:
        """The report's header."""
        return self.doc["header"]  # type: ignore[no-any-return]

    @property
    def engine(self) -> Mapping[str, Any] | None:
        """The engine's handshake as the report recorded it (``None``: it never started)."""
        return self.header.get("engine")

    @property
    def engine_label(self) -> str:
        """``name version`` of the engine, or ``unknown engine``."""
        engine = self.engine
        if engine is None:
            return "unknown engine"
        impl = engine["implementation"]
        return f"{impl['name']} {impl['version']}"

    @property
    def cases(self) -> list[Mapping[str, Any]]:
        """The case records, in report order."""
        return list(self.doc["cases"])

    @property
    def badge_lines(self) -> list[str]:
        """The badge lines; computed from the summary for reports older than the field."""
        found = self.doc.get("badges")
        if found is None:
            found = badges(self.header["profile"], self.doc["summary"])
        return [str(entry["line"]) for entry in found]


@cache
def _validator(path: Path) -> SchemaValidator:
    return SchemaValidator(json.loads(path.read_text(encoding="utf-8")))


def _read_json(path: str, what: str) -> Any:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ReportError(f"{path}: cannot read {what}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise ReportError(f"{path}: {what} is not UTF-8 text: {exc.reason}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ReportError(
            f"{path}: {what} is not JSON: line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from None


def _pointer(path: Sequence[Any]) -> str:
    return "/" + "/".join(str(part) for part in path)


#: Longest schema message quoted: python-jsonschema repeats the offending value, which for
#: a report that is not an object at all would be the whole file.
_MESSAGE_CHARS = 300


def _short(message: str) -> str:
    return message if len(message) <= _MESSAGE_CHARS else message[:_MESSAGE_CHARS] + "…"


def load_report(path: str) -> LoadedReport:
    """Read and validate a JSON run report.

    :raises ReportError: naming the file and, for an invalid document, the JSON pointer
        of the first problem.
    """
    doc = _read_json(path, "the report")
    if isinstance(doc, dict) and "findings" in doc and "cases" not in doc:
        raise ReportError(f"{path}: this is a fuzz report; give it with --fuzz")
    error = _validator(SCHEMA_PATH).best_error(doc)
    if error is not None:
        raise ReportError(
            f"{path}: not a carioca-conformance run report (format {REPORT_FORMAT}): "
            f"at {_pointer(error.absolute_path)}: {_short(error.message)}"
        )
    return LoadedReport(path, doc)


def load_fuzz_report(path: str) -> LoadedReport:
    """Read a fuzz report, validated by schemas/fuzz-report.schema.json.

    :raises ReportError: naming the file and what is wrong.
    """
    doc = _read_json(path, "the fuzz report")
    error = _validator(FUZZ_SCHEMA_PATH).best_error(doc)
    if error is not None:
        raise ReportError(
            f"{path}: not a fuzz report: at {_pointer(error.absolute_path)}: "
            f"{_short(error.message)}"
        )
    return LoadedReport(path, doc)


# --------------------------------------------------------------------------- merging


def _identity(report: LoadedReport) -> dict[str, Any]:
    """What must be equal for two reports to be shards of one run."""
    engine = report.engine
    header = report.header
    return {
        "engine": (
            None
            if engine is None
            else {
                "implementation": engine["implementation"],
                "rulings": engine["rulings"],
                "capabilities": sorted(engine["capabilities"]),
            }
        ),
        "profile": header["profile"],
        "corpus_digest": header.get("corpus_digest"),
    }


def _describe(key: str, value: Any) -> str:
    if key == "engine":
        if value is None:
            return "no engine"
        impl = value["implementation"]
        return f"engine {impl['name']} {impl['version']} ({impl['language']})"
    return f"{key.replace('_', ' ')} {value}"


def count_cases(cases: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """Number of cases per status, every status present, plus ``total``."""
    counts = dict.fromkeys(STATUSES, 0)
    for case in cases:
        counts[case["status"]] += 1
    counts["total"] = len(cases)
    return counts


def merge_reports(reports: Sequence[LoadedReport]) -> dict[str, Any]:
    """One report from the reports of one engine's shards or workers.

    The reports must name the same engine (implementation, capabilities and rulings; a
    shard whose adapter never started has no engine and merges with any), the same
    profile and the same corpus digest. A case in several reports keeps its graded
    result over ``not_run``; graded differently (pass in one, fail in another) it is
    refused, since one of the runs is then wrong. The summary and the badge line are
    counted again from the merged cases; durations add up; ``started`` is the earliest.

    :raises ReportError: naming the two files and what differs.
    """
    if not reports:
        raise ReportError("nothing to merge")
    first = reports[0]
    want = _identity(first)
    for report in reports[1:]:
        have = _identity(report)
        for key in ("engine", "profile", "corpus_digest"):
            a, b = want[key], have[key]
            if key == "engine" and (a is None or b is None):
                if a is None:
                    want["engine"] = b
                continue
            if a != b:
                if key == "engine" and a["implementation"] == b["implementation"]:
                    why = "the same engine with different capabilities or rulings"
                else:
                    why = f"{_describe(key, a)} against {_describe(key, b)}"
                raise ReportError(
                    f"cannot merge {first.path} and {report.path}: {why}; only reports of "
                    "one engine, profile and corpus selection merge"
                )
    cases: dict[str, Mapping[str, Any]] = {}
    source: dict[str, str] = {}
    for report in reports:
        for case in report.cases:
            old = cases.get(case["id"])
            if old is None or old["status"] == "not_run":
                cases[case["id"]] = case
                source[case["id"]] = report.path
            elif case["status"] not in ("not_run", old["status"]):
                raise ReportError(
                    f"cannot merge: {case['id']} is {old['status']} in {source[case['id']]} "
                    f"but {case['status']} in {report.path}"
                )
    merged_cases = list(cases.values())
    engine_report = next((r for r in reports if r.engine is not None), first)
    header = dict(engine_report.header)
    warnings: list[str] = []
    for report in reports:
        for warning in report.header.get("warnings", []):
            # A shard's own "shard K/N: …" note does not describe the merged report.
            if warning not in warnings and not _SHARD_NOTE.match(warning):
                warnings.append(warning)
    versions = sorted({r.header["harness_version"] for r in reports})
    if len(versions) > 1:
        warnings.append(f"merged reports written by harness versions {', '.join(versions)}")
    warnings.extend(_shard_warnings(reports))
    warnings.append(f"merged from {len(reports)} reports: {', '.join(r.path for r in reports)}")
    header.pop("shard", None)
    header["warnings"] = warnings
    header["duration"] = round(sum(r.header.get("duration", 0) for r in reports), 3)
    starts = [r.header["started"] for r in reports if "started" in r.header]
    if starts:
        header["started"] = min(starts)
    errors = [r.header.get("run_error") for r in reports if r.header.get("run_error")]
    header["run_error"] = errors[0] if errors else None
    disputes: dict[str, Any] = {}
    laws: list[Any] = []
    for report in reports:
        for dispute in report.doc.get("disputes", []):
            disputes.setdefault(dispute["id"], dispute)
        for law in report.doc.get("properties", []):
            if law not in laws:
                laws.append(law)
    counts = count_cases(merged_cases)
    merged: dict[str, Any] = {
        "format": REPORT_FORMAT,
        "header": header,
        "cases": merged_cases,
        "properties": laws,
        "disputes": list(disputes.values()),
        "summary": counts,
        "badges": badges(header["profile"], counts),
    }
    return merged


def _shard_warnings(reports: Sequence[LoadedReport]) -> list[str]:
    """Refuse shards of different splits; say which shards of the split are missing."""
    shards = {r.path: r.header["shard"] for r in reports if r.header.get("shard")}
    if not shards:
        return []
    counts = {shard.split("/")[1] for shard in shards.values()}
    if len(counts) > 1:
        listed = ", ".join(f"{path} is {shard}" for path, shard in shards.items())
        raise ReportError(f"cannot merge shards of different splits: {listed}")
    n = int(counts.pop())
    have = {int(shard.split("/")[0]) for shard in shards.values()}
    missing = [f"{k}/{n}" for k in range(1, n + 1) if k not in have]
    if missing:
        return [f"shard(s) {', '.join(missing)} missing: this report covers part of the run"]
    return []


def merge_fuzz_reports(reports: Sequence[LoadedReport]) -> dict[str, Any]:
    """One fuzz report from the reports of several shards of one campaign
    (``conformance.fuzz.merge_reports``: totals add up, each finding once with its count
    and smallest example).

    :raises ReportError: when there is nothing to merge or the reports are of different
        campaigns.
    """
    from .fuzz import FuzzError, merge_reports

    if not reports:
        raise ReportError("nothing to merge")
    try:
        return dict(merge_reports([r.doc for r in reports]))
    except FuzzError as exc:
        raise ReportError(f"cannot merge the fuzz reports: {exc}") from None


# --------------------------------------------------------------------------- diff


@dataclass(frozen=True)
class Change:
    """One case whose result differs between two runs."""

    id: str
    title: str
    old: str
    """The old status, or ``absent`` when the case was not in the old run."""
    new: str
    """The new status, or ``absent`` when the case is not in the new run."""
    old_diff: str = ""
    new_diff: str = ""


@dataclass(frozen=True)
class ReportDiff:
    """What changed between an old and a new run of one engine."""

    newly_failing: list[Change] = field(default_factory=list)
    newly_passing: list[Change] = field(default_factory=list)
    changed_diffs: list[Change] = field(default_factory=list)
    other: list[Change] = field(default_factory=list)
    laws_broken: list[str] = field(default_factory=list)
    laws_fixed: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def regressed(self) -> bool:
        """A case or a law fails now that did not fail before."""
        return bool(self.newly_failing or self.laws_broken)


def _failure_text(case: Mapping[str, Any] | None) -> str:
    if case is None:
        return ""
    return "\n".join(
        str(case[key]) for key in ("diff", "error", "note") if case.get(key) is not None
    )


def diff_reports(old: LoadedReport, new: LoadedReport) -> ReportDiff:
    """Compare two runs of one engine case by case, and law by law.

    Newly failing: a case that fails, errors or did not run now and did not before
    (including a case new to the corpus). Newly passing: a case that passes now and
    failed or errored before. Changed diffs: failing in both, but failing differently.
    """
    result = ReportDiff()
    if old.engine_label != new.engine_label:
        result.notes.append(f"engine {old.engine_label} → {new.engine_label}")
    for key in ("profile", "corpus_digest"):
        a, b = old.header.get(key), new.header.get(key)
        if a != b:
            result.notes.append(f"{key.replace('_', ' ')} {a} → {b}")
    before = {case["id"]: case for case in old.cases}
    after = {case["id"]: case for case in new.cases}
    for case_id in [*after, *(i for i in before if i not in after)]:
        was, now = before.get(case_id), after.get(case_id)
        status_was = was["status"] if was is not None else "absent"
        status_now = now["status"] if now is not None else "absent"
        title = (now or was or {}).get("title", "")
        change = Change(
            case_id, title, status_was, status_now, _failure_text(was), _failure_text(now)
        )
        if status_now in FAILING and status_was not in FAILING:
            result.newly_failing.append(change)
        elif status_now == "pass" and status_was in FAILING | {"xfail"}:
            result.newly_passing.append(change)
        elif status_now in FAILING and change.old_diff != change.new_diff:
            result.changed_diffs.append(change)
        elif status_was != status_now:
            result.other.append(change)
    laws_before = {law["name"]: law["passed"] for law in old.doc.get("properties", [])}
    for law in new.doc.get("properties", []):
        if not law["passed"] and laws_before.get(law["name"], True):
            result.laws_broken.append(law["name"])
        elif law["passed"] and laws_before.get(law["name"]) is False:
            result.laws_fixed.append(law["name"])
    return result


def _indent(text: str, prefix: str = "      ") -> list[str]:
    return [prefix + line for line in text.splitlines()]


def diff_text(old: LoadedReport, new: LoadedReport, diff: ReportDiff) -> str:
    """The ``report diff`` output: what changed, newly failing first."""
    lines = [f"old {old.path}: {old.engine_label}, {', '.join(old.badge_lines)}"]
    lines.append(f"new {new.path}: {new.engine_label}, {', '.join(new.badge_lines)}")
    lines.extend(f"note: {note}" for note in diff.notes)
    blocks = (
        ("newly failing", diff.newly_failing),
        ("newly passing", diff.newly_passing),
        ("failing differently", diff.changed_diffs),
        ("other changes", diff.other),
    )
    for heading, changes in blocks:
        if not changes:
            continue
        lines.append("")
        lines.append(f"{heading} ({len(changes)}):")
        for change in changes:
            lines.append(f"  {change.id} {change.old} → {change.new}  {change.title}")
            if heading == "failing differently":
                lines.append("    before:")
                lines.extend(_indent(change.old_diff))
                lines.append("    now:")
                lines.extend(_indent(change.new_diff))
            elif heading == "newly failing" and change.new_diff:
                lines.extend(_indent(change.new_diff))
    if diff.laws_broken:
        lines.append("")
        lines.append(f"laws broken now: {', '.join(diff.laws_broken)}")
    if diff.laws_fixed:
        lines.append("")
        lines.append(f"laws holding now: {', '.join(diff.laws_fixed)}")
    lines.append("")
    lines.append(
        f"{len(diff.newly_failing)} newly failing, {len(diff.newly_passing)} newly passing, "
        f"{len(diff.changed_diffs)} failing differently, {len(diff.other)} other change(s)"
    )
    return "\n".join(lines) + "\n"


__all__ = [
    "Change",
    "LoadedReport",
    "ReportDiff",
    "ReportError",
    "count_cases",
    "diff_reports",
    "diff_text",
    "load_fuzz_report",
    "load_report",
    "merge_fuzz_reports",
    "merge_reports",
]
