"""Reading, merging and comparing JSON run reports (``carioca-conformance report``).

A run report (schemas/report.schema.json, written by :mod:`conformance.reports.report`) is read
with :func:`load_report`, which reads it within bounds (conformance/io/jsonsafe.py: size,
depth, integer digits, finite numbers), validates it and says which file is wrong and
where. Every count a reader shows is made again from the report's cases (and their
checks), never taken from its ``summary`` or ``badges``, which a hand-edited file could
make say anything. Reports of format 1 (cases without checks) and 2 are both read.
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
from functools import cache, cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from conformance.errors import HarnessError
from conformance.grading.results import STATUSES, CaseResult, Graded, graded
from conformance.io.jsonsafe import JSONFileError, finite, read_json_file
from conformance.io.validation import SchemaValidator
from conformance.reports.causes import cause_from_record, group_causes, merged_causes, report_causes
from conformance.reports.report import (
    REPORT_FORMAT,
    SCHEMA_PATH,
    badges,
    case_from_record,
    counted,
)
from conformance.run.shards import missing_shards

if TYPE_CHECKING:
    from conformance.adapter.declarations import Declarations
    from conformance.knowledge.catalogue import Catalogue

#: The warning ``run --shard`` records (conformance/jobs.py).
_SHARD_NOTE = re.compile(r"shard [0-9]+/[0-9]+: [0-9]+ of [0-9]+ selected case")
#: Statuses that fail a run whatever the options (README, exit codes).
FAILING = frozenset({"fail", "error", "not_run"})


class ReportError(HarnessError):
    """A report that cannot be read, is not a report, or cannot be merged: says which and why."""


@dataclass(frozen=True)
class LoadedReport:
    """A validated run report and the file it came from.

    A case whose status contradicts its checks (``pass`` holding a failing check) is
    recounted from its checks as it is read (:func:`recount_statuses`), and
    :attr:`recount_note` says so: no reader shows such a case as passed.
    """

    path: str
    doc: Mapping[str, Any]
    #: The cases recounted from their checks: (id, status in the file, status now).
    recounted: tuple[tuple[str, str, str], ...] = field(default=(), init=False)

    def __post_init__(self) -> None:
        doc, changed = recount_statuses(self.doc)
        if changed:
            # Frozen: the recounted document replaces the file's, before any reader sees it.
            object.__setattr__(self, "doc", doc)
            object.__setattr__(self, "recounted", changed)

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
    def format(self) -> int:
        """The report's layout: 1 (cases only) or 2 (cases with their checks)."""
        return int(self.doc.get("format", 1))

    @cached_property
    def results(self) -> tuple[CaseResult, ...]:
        """The cases as CaseResults, checks included: what every count is made from."""
        return tuple(case_from_record(case) for case in self.doc["cases"])

    @cached_property
    def counts(self) -> dict[str, int]:
        """Cases per status, counted from the cases (never read from ``summary``)."""
        return count_cases(self.doc["cases"])

    @cached_property
    def checks(self) -> Graded:
        """The checks of the cases: graded against total, the rest by cause."""
        return graded(self.results)

    def declarations(self, catalogue: Catalogue | None = None) -> Declarations | None:
        """The engine's declarations in the report's profile, read from the handshake the
        report recorded (None: no engine, or a handshake the harness cannot read back)."""
        return engine_declarations(self.engine, self.header["profile"], catalogue)

    @cached_property
    def missing_players(self) -> tuple[int, ...]:
        """The profile's player counts the recorded engine does not play."""
        found = self.declarations()
        return found.missing_players if found is not None else ()

    @cached_property
    def badge(self) -> Mapping[str, Any]:
        """The badge entry, counted again from the cases and their checks."""
        tally = self.checks if self.format >= 2 else None
        return badges(self.header["profile"], self.counts, tally, self.missing_players)[0]

    @property
    def badge_lines(self) -> list[str]:
        """The badge line, counted from the cases (a report's own ``badges`` and
        ``summary`` are not trusted: a hand-edited file could claim anything)."""
        return [str(self.badge["line"])]

    @cached_property
    def recount_note(self) -> str | None:
        """Why the counts shown are not the file's own, if they are not: cases whose status
        contradicts their checks, or a ``summary`` that is not what the cases say."""
        notes = []
        if self.recounted:
            shown = ", ".join(f"{cid} {was} → {now}" for cid, was, now in self.recounted[:5])
            more = ", ..." if len(self.recounted) > 5 else ""
            notes.append(
                f"{self.path}: {len(self.recounted)} case(s) whose status contradicts their "
                f"checks, recounted from the checks ({shown}{more})"
            )
        stated = {k: v for k, v in self.doc["summary"].items() if k in self.counts}
        counted_here = {k: self.counts[k] for k in stated}
        if stated != counted_here:
            notes.append(
                f"{self.path}: its summary does not match its cases; the counts shown are "
                "counted from the cases"
            )
        return "; ".join(notes) or None


#: Case statuses a failing check contradicts: such a case is recounted as ``fail``.
_NOT_FAILED = frozenset({"pass", "xpass", "unsupported"})


def recount_statuses(
    doc: Mapping[str, Any],
) -> tuple[Mapping[str, Any], tuple[tuple[str, str, str], ...]]:
    """``doc`` with each case whose status contradicts its checks given the status its
    checks give, and which cases changed as (id, status in the file, status now).

    A case ``pass``, ``xpass`` or ``unsupported`` holding a failing check failed; a case
    ``pass`` none of whose checks was graded is ``unsupported``. ``doc`` itself is left
    alone; when nothing contradicts, it is returned as it is. A case without checks (a
    format-1 report) has nothing to contradict."""
    cases = doc.get("cases")
    if not isinstance(cases, list):
        return doc, ()
    changed: list[tuple[str, str, str]] = []
    fixed: list[Any] = []
    for case in cases:
        status = case.get("status") if isinstance(case, Mapping) else None
        checks = case.get("checks") if isinstance(case, Mapping) else None
        now = status
        if status in _NOT_FAILED and checks:
            said = {c.get("status") for c in checks if isinstance(c, Mapping)}
            if "fail" in said:
                now = "fail"
            elif status == "pass" and said <= {"not_graded"}:
                now = "unsupported"
        if now != status:
            changed.append((str(case.get("id")), str(status), str(now)))
            case = {**case, "status": now}
        fixed.append(case)
    if not changed:
        return doc, ()
    return {**doc, "cases": fixed}, tuple(changed)


def engine_declarations(
    engine: Mapping[str, Any] | None, profile: str, catalogue: Catalogue | None = None
) -> Declarations | None:
    """The :class:`~conformance.adapter.declarations.Declarations` of a handshake recorded in a
    report (``header.engine``), or None when there is none or it cannot be read back."""
    if engine is None:
        return None
    from conformance.adapter.declarations import declarations
    from conformance.adapter.engine import Handshake
    from conformance.errors import HandshakeError

    try:
        handshake = Handshake.from_hello(engine)
        return declarations(handshake, profile, catalogue)
    except (HandshakeError, KeyError, TypeError, ValueError, AttributeError):
        # A hand-edited header (a rulings map of lists, players as text): show the report
        # without what would be read from the declarations.
        return None


@cache
def _validator(path: Path) -> SchemaValidator:
    return SchemaValidator(json.loads(path.read_text(encoding="utf-8")))


def _read_json(path: str, what: str) -> Any:
    try:
        return read_json_file(path, what, share_strings=True, escape_text=True)
    except JSONFileError as exc:
        raise ReportError(str(exc)) from None


def _pointer(path: Sequence[Any]) -> str:
    return "/" + "/".join(str(part) for part in path)


#: Longest schema message quoted: python-jsonschema repeats the offending value, which for
#: a report that is not an object at all would be the whole file.
_MESSAGE_CHARS = 300


def _short(message: str) -> str:
    return message if len(message) <= _MESSAGE_CHARS else message[:_MESSAGE_CHARS] + "…"


def load_report(path: str) -> LoadedReport:
    """Read and validate a JSON run report (format 1 or 2).

    :raises ReportError: naming the file and, for an invalid document, the JSON pointer
        of the first problem; or why it was not read at all (too large, too deep, a huge
        integer, NaN).
    """
    doc = _read_json(path, "the report")
    if isinstance(doc, dict) and "findings" in doc and "cases" not in doc:
        raise ReportError(f"{path}: this is a fuzz report; give it with --fuzz")
    error = _validator(SCHEMA_PATH).best_error(doc)
    if error is not None:
        raise ReportError(
            f"{path}: not a carioca-conformance run report (format {REPORT_FORMAT} or "
            f"older): at {_pointer(error.absolute_path)}: {_short(error.message)}"
        )
    return LoadedReport(path, doc)


def load_fuzz_report(path: str) -> LoadedReport:
    """Read a fuzz report within the same bounds, validated by
    schemas/fuzz-report.schema.json (:func:`conformance.fuzz.read_report`, the one reader
    of fuzz reports).

    :raises ReportError: naming the file and what is wrong.
    """
    # Imported here, as in merge_fuzz_reports: reading run reports never loads the fuzzer.
    from conformance.fuzz import FuzzError, read_report

    try:
        return LoadedReport(path, read_report(path))
    except FuzzError as exc:
        raise ReportError(str(exc)) from None


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


def _check_same_run(first: LoadedReport, report: LoadedReport) -> None:
    """Refuse to merge ``report`` into a merge started from ``first`` unless both are of
    one engine, profile and corpus selection.

    A report whose adapter never started (``engine: null``) names no engine: merged with
    another engine's report, its cases (all ``not_run``) would be passed off as that
    engine's, so it is refused, naming both files; two such reports merge only when they
    ran the same adapter command.
    """
    want, have = _identity(first), _identity(report)
    a, b = want["engine"], have["engine"]
    if (a is None) != (b is None):
        dead, live = (first, report) if a is None else (report, first)
        raise ReportError(
            f"cannot merge {first.path} and {report.path}: the adapter of {dead.path} never "
            f"started (it names no engine) while {live.path} is of {live.engine_label}; "
            f"rerun {dead.path}'s part of the run and merge that"
        )
    if a is None and first.header.get("adapter") != report.header.get("adapter"):
        raise ReportError(
            f"cannot merge {first.path} and {report.path}: neither adapter started and they "
            "ran different adapter commands"
        )
    for key in ("engine", "profile", "corpus_digest"):
        a, b = want[key], have[key]
        if a != b:
            if key == "engine" and a["implementation"] == b["implementation"]:
                why = "the same engine with different capabilities or rulings"
            else:
                why = f"{_describe(key, a)} against {_describe(key, b)}"
            raise ReportError(
                f"cannot merge {first.path} and {report.path}: {why}; only reports of "
                "one engine, profile and corpus selection merge"
            )


def merge_reports(
    reports: Sequence[LoadedReport], catalogue: Catalogue | None = None
) -> dict[str, Any]:
    """One report from the reports of one engine's shards or workers.

    The reports must name the same engine (implementation, capabilities and rulings; a
    report whose adapter never started merges only with others like it, of the same
    adapter command), the same profile and the same corpus digest. A case in several
    reports keeps its graded result over ``not_run``; graded differently (pass in one,
    fail in another) it is refused, since one of the runs is then wrong. Cases keep their
    checks. Everything counted (summary, checks graded, badge, failing rules,
    divergences) is counted again from the merged cases; durations add up; ``started`` is
    the earliest. Reports of format 1 and 2 merge; the result is written in the newest
    format among them. Its ``causes`` are grouped again from the merged failing checks,
    each keeping the option its shard found to explain it when the shards agree
    (:func:`conformance.reports.causes.merged_causes`; ``catalogue`` words the options).

    :raises ReportError: naming the two files and what differs.
    """
    if not reports:
        raise ReportError("nothing to merge")
    first = reports[0]
    for report in reports[1:]:
        _check_same_run(first, report)
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
    header = dict(first.header)
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
    # Each duration is at most the schema's maximum, so the sum is finite; finite() keeps
    # the written file standard JSON whatever happens.
    header["duration"] = round(finite(sum(r.header.get("duration", 0) for r in reports)), 3)
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
    fmt = max(r.format for r in reports)
    results = [case_from_record(case) for case in merged_cases]
    figures = counted(header["profile"], results, count_cases(merged_cases), first.missing_players)
    if fmt < 2:
        # Format 1: no checks to count, and no field format 1 does not have.
        figures = {
            "summary": figures["summary"],
            "badges": badges(header["profile"], figures["summary"]),
        }
    if fmt >= 2:
        shards = [
            [cause_from_record(c) for c in r.doc.get("causes") or () if isinstance(c, Mapping)]
            for r in reports
        ]
        figures["causes"] = [c.as_record() for c in merged_causes(results, shards, catalogue)]
    return {
        "format": fmt,
        "header": header,
        "cases": merged_cases,
        "properties": laws,
        "disputes": list(disputes.values()),
        **figures,
    }


_SHARD_TOTAL = re.compile(r"shard [0-9]+/[0-9]+: [0-9]+ of ([0-9]+) selected case")


def _shard_warnings(reports: Sequence[LoadedReport]) -> list[str]:
    """Refuse shards of different or impossible splits; say which shards are missing.

    A split K/N is impossible when K exceeds N, or when N exceeds the number of cases the
    shard says its whole selection had (``run --shard`` refuses an empty shard). The work
    stays bounded by the input: missing shards are counted, and at most a few named,
    without walking 1..N.
    """
    shards: dict[str, tuple[int, int]] = {}
    for report in reports:
        shard = report.header.get("shard")
        if not shard:
            continue
        k, n = (int(part) for part in str(shard).split("/"))
        if k > n:
            raise ReportError(f"{report.path}: shard {shard} is impossible: {k} is more than {n}")
        for warning in report.header.get("warnings", []):
            found = _SHARD_TOTAL.match(warning)
            if found and n > int(found.group(1)):
                raise ReportError(
                    f"{report.path}: shard {shard} is impossible: its selection had "
                    f"{found.group(1)} case(s), fewer than {n} shards"
                )
        shards[report.path] = (k, n)
    if not shards:
        return []
    splits = {n for _k, n in shards.values()}
    if len(splits) > 1:
        listed = ", ".join(f"{path} is {k}/{n}" for path, (k, n) in shards.items())
        raise ReportError(f"cannot merge shards of different splits: {listed}")
    missing = missing_shards({k for k, _n in shards.values()}, splits.pop())
    if not missing:
        return []
    return [f"shard(s) {missing} missing: this report covers part of the run"]


def merge_fuzz_reports(reports: Sequence[LoadedReport]) -> dict[str, Any]:
    """One fuzz report from the reports of several shards of one campaign
    (``conformance.fuzz.merge_reports``: totals add up, each finding once with its count
    and smallest example).

    :raises ReportError: when there is nothing to merge or the reports are of different
        campaigns.
    """
    from conformance.fuzz import FuzzError, merge_reports

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
class CheckChange:
    """One check whose result differs between two runs: named by case and check key."""

    case: str
    key: str
    rules: tuple[str, ...]
    old: str
    """The old status (``pass``, ``not_graded``, ``xfail``…), or ``absent``."""
    new: str
    diff: str = ""


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
    #: Checks that fail now and did not before (a new failure, even in a case that was
    #: already failing for another reason).
    newly_failing_checks: list[CheckChange] = field(default_factory=list)
    #: Checks that failed before and pass now.
    newly_passing_checks: list[CheckChange] = field(default_factory=list)

    @property
    def regressed(self) -> bool:
        """A case, a check or a law fails now that did not fail before."""
        return bool(self.newly_failing or self.newly_failing_checks or self.laws_broken)


def _failure_text(case: Mapping[str, Any] | None) -> str:
    if case is None:
        return ""
    return "\n".join(
        str(case[key]) for key in ("diff", "error", "note") if case.get(key) is not None
    )


def _check_changes(
    case_id: str, was: Mapping[str, Any] | None, now: Mapping[str, Any] | None, diff: ReportDiff
) -> None:
    """Compare the checks of one case, when the new run's case carries checks.

    A check of the old run's case that is not in the new one is not a change (a case
    rewritten with other checks); an old report without checks for the case makes each
    failing check of the new one new, unless the case failed as a whole before (then
    there is nothing to compare it with and the case-level comparison speaks).
    """
    if now is None or not now.get("checks"):
        return
    before = {c["key"]: c for c in (was or {}).get("checks", ())}
    compare = bool(before) or was is None or was["status"] not in FAILING | {"xfail"}
    for check in now["checks"]:
        old = before.get(check["key"])
        old_status = old["status"] if old is not None else "absent"
        if check["status"] == "fail" and old_status != "fail" and compare:
            diff.newly_failing_checks.append(
                CheckChange(
                    case_id,
                    check["key"],
                    tuple(check["rules"]),
                    old_status,
                    "fail",
                    check.get("diff") or check.get("signature") or "",
                )
            )
        elif check["status"] in ("pass", "xpass") and old_status in ("fail", "xfail"):
            diff.newly_passing_checks.append(
                CheckChange(case_id, check["key"], tuple(check["rules"]), old_status, "pass")
            )


def diff_reports(old: LoadedReport, new: LoadedReport) -> ReportDiff:
    """Compare two runs of one engine case by case, check by check, and law by law.

    Newly failing: a case that fails, errors or did not run now and did not before
    (including a case new to the corpus). Newly failing checks: a check (by case and
    check key) that fails now and did not before, even in a case that already failed.
    Newly passing: a case that passes now and failed or errored before. Changed diffs:
    failing in both, but failing differently. Reports of format 1 have no checks: their
    cases are compared as cases.
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
        _check_changes(case_id, was, now, result)
    laws_before = {law["name"]: law["passed"] for law in old.doc.get("properties", [])}
    for law in new.doc.get("properties", []):
        if law.get("applies") is False:
            continue  # not checked for want of capabilities: neither broken nor fixed
        if not law["passed"] and laws_before.get(law["name"], True):
            result.laws_broken.append(law["name"])
        elif law["passed"] and laws_before.get(law["name"]) is False:
            result.laws_fixed.append(law["name"])
    return result


def _indent(text: str, prefix: str = "      ") -> list[str]:
    return [prefix + line for line in text.splitlines()]


def _check_change_line(change: CheckChange) -> str:
    rules = ", ".join(change.rules) or "no rule"
    return f"  {change.case} {change.key} ({rules}): {change.old} → {change.new}"


def _new_failure_causes(new: LoadedReport, diff: ReportDiff) -> list[str]:
    """The new report's causes that hold newly failing checks, most checks first, each with
    how many of its checks are new: the checks below, read as causes."""
    fresh = {(c.case, c.key) for c in diff.newly_failing_checks}
    if not fresh:
        return []
    causes = report_causes(new.doc, new.results)
    if not all(cause.members for cause in causes):
        # A report older than members: group its checks again (no option inferred).
        causes = group_causes(new.results)
    lines: list[str] = []
    for cause in causes:
        count = sum(1 for member in cause.members if member in fresh)
        if count:
            lines.append(f"  {len(lines) + 1}. {cause.line()}: {count} newly failing")
    if not lines:
        return []
    return ["", f"causes of the newly failing checks ({len(lines)}):", *lines]


def diff_text(old: LoadedReport, new: LoadedReport, diff: ReportDiff) -> str:
    """The ``report diff`` output: what changed, newly failing first."""
    lines = [f"old {old.path}: {old.engine_label}, {', '.join(old.badge_lines)}"]
    lines.append(f"new {new.path}: {new.engine_label}, {', '.join(new.badge_lines)}")
    lines.extend(f"note: {note}" for note in diff.notes)
    lines.extend(f"note: {r.recount_note}" for r in (old, new) if r.recount_note)
    blocks = (
        ("newly failing", diff.newly_failing),
        ("newly passing", diff.newly_passing),
        ("failing differently", diff.changed_diffs),
        ("other changes", diff.other),
    )
    with_checks = {c.case for c in diff.newly_failing_checks}
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
            elif heading == "newly failing" and change.new_diff and change.id not in with_checks:
                lines.extend(_indent(change.new_diff))
    lines.extend(_new_failure_causes(new, diff))
    if diff.newly_failing_checks:
        lines.append("")
        lines.append(f"newly failing checks ({len(diff.newly_failing_checks)}):")
        for check in diff.newly_failing_checks:
            lines.append(_check_change_line(check))
            lines.extend(_indent(check.diff))
    if diff.newly_passing_checks:
        lines.append("")
        lines.append(f"newly passing checks ({len(diff.newly_passing_checks)}):")
        lines.extend(_check_change_line(check) for check in diff.newly_passing_checks)
    if diff.laws_broken:
        lines.append("")
        lines.append(f"laws broken now: {', '.join(diff.laws_broken)}")
    if diff.laws_fixed:
        lines.append("")
        lines.append(f"laws holding now: {', '.join(diff.laws_fixed)}")
    lines.append("")
    lines.append(
        f"{len(diff.newly_failing)} newly failing, {len(diff.newly_passing)} newly passing, "
        f"{len(diff.changed_diffs)} failing differently, {len(diff.other)} other change(s); "
        f"checks: {len(diff.newly_failing_checks)} newly failing, "
        f"{len(diff.newly_passing_checks)} newly passing"
    )
    return "\n".join(lines) + "\n"


__all__ = [
    "Change",
    "CheckChange",
    "LoadedReport",
    "ReportDiff",
    "ReportError",
    "count_cases",
    "diff_reports",
    "diff_text",
    "engine_declarations",
    "load_fuzz_report",
    "load_report",
    "merge_fuzz_reports",
    "merge_reports",
    "recount_statuses",
]
