"""Reports of a run: text summary, JSON (report.schema.json) and JUnit XML.

Every case carries its checks (conformance/grading/results.py): the JSON report writes them with
the case, JUnit lists a case's failing checks in its failure and the checks not graded in
its ``system-out``, and every report counts checks with the same functions
(:func:`conformance.grading.results.graded`, ``failing_rules``, ``divergences``), so the terminal,
the JSON, JUnit and the HTML page can never count differently. docs/reports.md.

Report files are written atomically (a temporary file in the same directory, then
``os.replace``) so that a CI job never picks up half a report, and as standard JSON
(no ``NaN`` or ``Infinity``: conformance/io/jsonsafe.py).
"""

from __future__ import annotations

import json
import re
import secrets
import sys
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from conformance.adapter.protocol import PROTOCOL_VERSION
from conformance.grading.results import (
    NOT_GRADED_CAUSES,
    CaseResult,
    CheckResult,
    Graded,
    divergences,
    failing_rules,
    graded,
)
from conformance.io.files import (
    atomic_write_text as atomic_write_text,  # re-exported for writers of reports
)
from conformance.io.jsonsafe import check_readable, dumps, finite
from conformance.io.resources import package_file
from conformance.io.textsafe import escape
from conformance.knowledge.catalogue import Catalogue
from conformance.reports.causes import causes_of
from conformance.version import CORPUS_VERSION, __version__

if TYPE_CHECKING:
    from conformance.adapter.engine import Handshake
    from conformance.run.runner import RunResult

#: The layout written: 2 since cases carry their checks (a format-1 report, which readers
#: still take, simply has no checks).
REPORT_FORMAT = 2
SCHEMA_PATH = package_file("schemas", "report.schema.json")


def reference_option(catalogue: Catalogue | None, dispute: str, profile: str) -> str | None:
    """The option the profile (the reference reading) takes on a disputed point."""
    if catalogue is None:
        return None
    known = catalogue.disputes.get(dispute)
    return known.profiles.get(profile) if known is not None else None


def check_record(check: CheckResult) -> dict[str, Any]:
    """One check as the JSON report writes it (fields without a value left out)."""
    record: dict[str, Any] = {
        "key": check.key,
        "what": check.what,
        "step": check.step,
        "line": check.line,
        "rules": list(check.rules),
        "status": check.status,
    }
    for key in ("cause", "note", "diff", "signature"):
        value = getattr(check, key)
        if value is not None:
            record[key] = value
    return record


def _case_record(result: CaseResult) -> dict[str, Any]:
    record: dict[str, Any] = {
        "id": result.id,
        "title": result.title,
        "rules": list(result.rules),
        "section": result.section,
        "status": result.status,
        "duration": round(finite(result.duration), 6),
    }
    for key in ("diff", "error", "failing_step", "dispute", "option", "note", "engine_message"):
        value = getattr(result, key)
        if value is not None:
            record[key] = value
    if result.stderr_tail:
        record["stderr_tail"] = result.stderr_tail
    record["checks"] = [check_record(check) for check in result.checks]
    record["failed_rules"] = list(result.failed_rules)
    return record


def case_from_record(record: Mapping[str, Any]) -> CaseResult:
    """The CaseResult a (schema-valid) JSON case record describes, checks included, so
    that a report read back is counted by the same functions as a run."""
    checks = tuple(
        CheckResult(
            key=c["key"],
            what=c["what"],
            rules=tuple(c["rules"]),
            status=c["status"],
            step=c.get("step"),
            line=c.get("line", 0),
            cause=c.get("cause"),
            note=c.get("note"),
            diff=c.get("diff"),
            signature=c.get("signature"),
        )
        for c in record.get("checks", ())
    )
    return CaseResult(
        id=record["id"],
        title=record["title"],
        rules=tuple(record["rules"]),
        section=record["section"],
        status=record["status"],
        duration=record.get("duration", 0.0),
        diff=record.get("diff"),
        error=record.get("error"),
        stderr_tail=record.get("stderr_tail", ""),
        failing_step=record.get("failing_step"),
        dispute=record.get("dispute"),
        option=record.get("option"),
        note=record.get("note"),
        engine_message=record.get("engine_message"),
        checks=checks,
        failed_rules=tuple(record.get("failed_rules", ())),
    )


def missing_players(handshake: Handshake | None, profile: str) -> tuple[int, ...]:
    """The player counts of ``profile`` the engine does not play (nothing without an engine)."""
    if handshake is None:
        return ()
    from conformance.adapter.declarations import declarations

    return declarations(handshake, profile).missing_players


def graded_record(tally: Graded, missing: Sequence[int]) -> dict[str, Any]:
    """The report's ``graded`` block: checks graded against total, the rest by cause."""
    return {
        "graded": tally.graded,
        "total": tally.total,
        "passed": tally.passed,
        "failed": tally.failed,
        "xfailed": tally.xfailed,
        "not_graded": dict(tally.not_graded),
        "missing_players": list(missing),
    }


def counted(
    profile: str,
    results: Sequence[CaseResult],
    counts: Mapping[str, int],
    missing: Sequence[int],
) -> dict[str, Any]:
    """Everything a report counts from its cases: ``summary``, ``graded``, ``badges``,
    ``failing_rules`` and ``divergences``. The writer and ``report merge`` both call it."""
    tally = graded(results)
    return {
        "summary": dict(counts),
        "graded": graded_record(tally, missing),
        "failing_rules": failing_rules(results),
        "divergences": [
            {
                "signature": found.signature,
                "rules": list(found.rules),
                "checks": found.checks,
                "cases": list(found.cases),
            }
            for found in divergences(results)
        ],
        "badges": badges(profile, counts, tally, missing),
    }


def build_report(run: RunResult, catalogue: Catalogue | None = None) -> dict[str, Any]:
    """The JSON report document (matches schemas/report.schema.json)."""
    handshake = run.handshake.as_dict() if run.handshake is not None else None
    disputes = []
    seen: set[str] = set()
    for result in run.results:
        if result.dispute is None or result.dispute in seen:
            continue
        seen.add(result.dispute)
        engine_ruling = run.handshake.rulings.get(result.dispute) if run.handshake else None
        disputes.append(
            {
                "id": result.dispute,
                "engine": engine_ruling,
                "reference": reference_option(catalogue, result.dispute, run.profile),
                "graded": result.option,
            }
        )
    return {
        "format": REPORT_FORMAT,
        "header": {
            "harness_version": __version__,
            "corpus_version": CORPUS_VERSION,
            "corpus_digest": run.corpus_digest,
            "corpus_path": run.corpus_path,
            **({"shard": run.shard} if run.shard else {}),
            "protocol_version": PROTOCOL_VERSION,
            "profile": run.profile,
            "adapter": list(run.argv),
            "engine": handshake,
            "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(finite(run.started))),
            "duration": round(finite(run.duration), 3),
            "warnings": list(run.warnings),
            "run_error": (
                {"message": run.run_error, "stderr_tail": run.run_error_stderr}
                if run.run_error is not None
                else None
            ),
        },
        "cases": [_case_record(r) for r in run.results],
        "properties": [
            {
                "name": law.name,
                "rules": list(law.rules),
                "passed": law.passed,
                "detail": law.detail,
                "seed": law.seed,
                **({} if law.applies else {"applies": False}),
            }
            for law in run.properties
        ],
        "disputes": disputes,
        **counted(
            run.profile, run.results, run.counts, missing_players(run.handshake, run.profile)
        ),
        "causes": [cause.as_record() for cause in causes_of(run)],
    }


def badges(
    profile: str,
    counts: Mapping[str, int],
    checks: Graded | None = None,
    missing: Sequence[int] = (),
) -> list[dict[str, Any]]:
    """The badge-ready summary, one entry per profile (a run has one profile today).

    ``passed`` counts ``pass`` and ``xpass`` cases; ``graded`` is every case but the
    ``unsupported`` ones (a capability or interface reading the engine does not claim is
    not a failure: README, "Interface choices"). With ``checks`` (a report whose cases
    carry checks) the entry also says how many checks were graded of all, the rest by
    cause, and ``missing``: the profile's player counts the engine does not play. ``line``
    is what a badge shows: ``argentine 212/244`` and, with checks, ``, checks 1800/2000
    graded`` and ``, not played: 5 players``.
    """
    total = counts.get("total", sum(v for k, v in counts.items() if k != "total"))
    passed = counts.get("pass", 0) + counts.get("xpass", 0)
    cases_graded = total - counts.get("unsupported", 0)
    entry: dict[str, Any] = {
        "profile": profile,
        "passed": passed,
        "graded": cases_graded,
        "total": total,
        "line": f"{profile} {passed}/{cases_graded}",
    }
    if checks is not None and checks.total:
        entry["checks_graded"] = checks.graded
        entry["checks_total"] = checks.total
        entry["not_graded"] = dict(checks.not_graded)
        entry["line"] += f", checks {checks.graded}/{checks.total} graded"
    if missing:
        entry["missing_players"] = list(missing)
        entry["line"] += f", not played: {players_text(missing)}"
    return [entry]


def players_text(counts: Sequence[int]) -> str:
    """``5 players`` / ``5, 6 players``."""
    return f"{', '.join(map(str, counts))} players"


def not_graded_text(tally: Graded, missing: Sequence[int] = ()) -> str:
    """What was not graded, by cause, in words: ``120 checks: a disputed point … (option);
    the engine does not play 5 players of the profile``; empty when everything was."""
    parts = [
        f"{count} {NOT_GRADED_CAUSES.get(cause, cause)} ({cause})"
        for cause, count in tally.not_graded.items()
    ]
    if missing:
        parts.append(f"the engine does not play {players_text(missing)} of the profile")
    return "; ".join(parts)


def checks_line(tally: Graded, missing: Sequence[int] = ()) -> str:
    """One line: checks graded of all, passed and failed, and what was not graded by cause
    (empty when the results carry no checks and every player count is played)."""
    if not tally.total and not missing:
        return ""
    line = (
        f"checks: {tally.graded}/{tally.total} graded, {tally.passed} passed, {tally.failed} failed"
    )
    if tally.xfailed:
        line += f", {tally.xfailed} expected failure(s)"
    rest = not_graded_text(tally, missing)
    return f"{line}; not graded: {rest}" if rest else line


def write_json_report(path: Path | str, run: RunResult, catalogue: Catalogue | None) -> None:
    """Write the JSON report atomically, as standard JSON."""
    atomic_write_text(path, report_text(build_report(run, catalogue)))


def report_text(document: Mapping[str, Any]) -> str:
    """A report document as the file's text: standard JSON (never NaN or Infinity),
    indented, with each check on one line.

    Python's indenting encoder is pure Python and about six times slower than the compact
    one; a corpus run has thousands of checks. So each check is encoded compactly (by the
    C encoder) and put in place of a token after the rest is indented: a report with
    checks costs about what one without them did, and still reads one check per line.
    """
    check_readable(document)  # whole, so an error names where in the report
    cases = document.get("cases")
    if not isinstance(cases, list) or not any(
        isinstance(c, dict) and c.get("checks") for c in cases
    ):
        return dumps(document, checked=True) + "\n"
    token = f"check-{secrets.token_hex(8)}-"
    encoded: list[str] = []
    shallow = dict(document)
    shallow["cases"] = []
    for case in cases:
        checks = case.get("checks") if isinstance(case, dict) else None
        if not checks:
            shallow["cases"].append(case)
            continue
        placeholders = []
        for check in checks:
            placeholders.append(f"{token}{len(encoded)}")
            encoded.append(dumps(check, indent=None, checked=True))
        shallow["cases"].append({**case, "checks": placeholders})
    text = dumps(shallow, checked=True)
    found = re.compile(f'"{re.escape(token)}([0-9]+)"')
    return found.sub(lambda m: encoded[int(m.group(1))], text) + "\n"


def report_pieces(document: Mapping[str, Any]) -> Iterator[str]:
    """A report document as text in pieces, one case to a line: for a merged report of
    many megabytes, whose text (and the million pieces an indenting encoder joins) is
    then never held whole. Its numbers are checked before the first piece.

    :raises UnreadableNumber: naming a number its readers would refuse.
    """
    check_readable(document)
    cases = document.get("cases") or []
    shallow = dict(document)
    token = f"cases-{secrets.token_hex(8)}"
    shallow["cases"] = token
    quoted = f'"{token}"'
    # The rest is encoded in pieces too: a header holding megabytes (an engine's extras)
    # is then never one string, nor the list of pieces json.dumps joins.
    encoder = json.JSONEncoder(indent=2, ensure_ascii=False, allow_nan=False)

    def text() -> Iterator[str]:
        for piece in encoder.iterencode(shallow):
            if piece != quoted:
                yield piece
                continue
            yield "["
            for i, case in enumerate(cases):
                yield ("," if i else "") + "\n    " + dumps(case, indent=None, checked=True)
            yield "\n  ]"
        yield "\n"

    return text()


def _clean(text: str) -> str:
    # Engine text is already safe (conformance/io/textsafe.py); this also covers scenario
    # text and anything else: XML 1.0 forbids C0 controls, surrogates, U+FFFE/U+FFFF.
    return escape(text)


def check_text(check: CheckResult) -> str:
    """A check in one line: key, rules, scenario line, and why it failed or was not graded."""
    where = f" line {check.line}" if check.line else ""
    head = f"{check.key} ({', '.join(check.rules) or 'no rule'}){where}"
    if check.status == "not_graded":
        cause = check.cause or "not_run"
        return f"{head}: not graded ({cause}){': ' + check.note if check.note else ''}"
    if check.status in ("fail", "xfail"):
        first = (check.diff or "").splitlines()[:1]
        shown = check.signature or (first[0] if first else check.what)
        return f"{head}: {check.status} — {shown}"
    return f"{head}: {check.status}"


def _failing_checks_text(
    result: CaseResult, causes: Mapping[tuple[str, str], str] | None = None
) -> str:
    failing = [c for c in result.checks if c.status == "fail"]
    lines = [f"{len(failing)} failing check(s):"]
    for check in failing:
        lines.append(f"  {check_text(check)}")
        if check.diff:
            lines.extend("      " + line for line in check.diff.splitlines())
        cause = (causes or {}).get((result.id, check.key))
        if cause:
            lines.append(f"      {cause}")
    return "\n".join(lines)


def cause_names(run: RunResult) -> dict[tuple[str, str], str]:
    """Each failing check of ``run`` -> ``cause N of M: <summary>`` (conformance.reports.causes)."""
    causes = causes_of(run)
    return {
        member: f"cause {number} of {len(causes)}: {cause.summary}"
        for number, cause in enumerate(causes, start=1)
        for member in cause.members
    }


def _not_graded_text(result: CaseResult) -> str:
    checks = result.checks
    if not checks:
        return ""
    tally = graded([result])
    lines = [
        f"checks: {tally.graded}/{tally.total} graded, {tally.passed} passed, {tally.failed} failed"
    ]
    skipped = [c for c in checks if c.status == "not_graded"]
    if skipped:
        lines.append("not graded:")
        lines.extend(f"  {check_text(c)}" for c in skipped)
    return "\n".join(lines)


def _junit_suite_checks(properties: ET.Element, run: RunResult) -> None:
    """Suite properties for what was graded: checks graded of all, the rest by cause."""
    tally = graded(run.results)
    missing = missing_players(run.handshake, run.profile)
    if not tally.total and not missing:
        return
    for name, value in (
        ("checks_graded", tally.graded),
        ("checks_total", tally.total),
        ("checks_failed", tally.failed),
        *((f"not_graded.{cause}", count) for cause, count in tally.not_graded.items()),
    ):
        ET.SubElement(properties, "property", {"name": name, "value": str(value)})
    if missing:
        ET.SubElement(
            properties,
            "property",
            {"name": "players_not_played", "value": ", ".join(map(str, missing))},
        )


def junit_xml(run: RunResult, catalogue: Catalogue | None = None, *, strict: bool = False) -> str:
    """One ``testcase`` per scenario, ``classname`` = rule section.

    A failing case's ``failure`` lists its failing checks (key, rules, line and diff); the
    checks not graded and why go to the case's ``system-out``, which CI tools show beside
    the test; the suite's ``properties`` say how many checks were graded of all, the rest
    by cause, and the player counts the engine does not play. Each failing check names its
    root cause (``cause 1 of 2: …``, conformance.reports.causes), and so does the failure's message.
    """
    counts = run.counts
    causes = cause_names(run)
    failures = counts.get("fail", 0) + (counts.get("xpass", 0) if strict else 0)
    skipped = counts.get("unsupported", 0) + counts.get("not_run", 0) + counts.get("xfail", 0)
    suite = ET.Element(
        "testsuite",
        {
            "name": "carioca-conformance",
            "tests": str(len(run.results)),
            "failures": str(failures),
            "errors": str(counts.get("error", 0)),
            "skipped": str(skipped),
            "time": f"{finite(run.duration):.3f}",
        },
    )
    # Which profile was tested, where JUnit readers keep run facts (before the testcases).
    properties = ET.SubElement(suite, "properties")
    ET.SubElement(properties, "property", {"name": "profile", "value": run.profile})
    # Which harness and corpus graded it, as every report says.
    ET.SubElement(properties, "property", {"name": "harness_version", "value": __version__})
    ET.SubElement(properties, "property", {"name": "corpus_version", "value": CORPUS_VERSION})
    _junit_suite_checks(properties, run)
    if run.run_error is not None:
        # The adapter never started: one errored pseudo-case says why; the rest are skipped.
        suite.set("errors", str(int(suite.get("errors", "0")) + 1))
        suite.set("tests", str(len(run.results) + 1))
        case = ET.SubElement(suite, "testcase", {"classname": "ADAPTER", "name": "handshake"})
        node = ET.SubElement(case, "error", {"message": _clean(run.run_error)})
        node.text = _clean(run.run_error_stderr)
    for law in run.properties:
        suite.set("tests", str(int(suite.get("tests", "0")) + 1))
        case = ET.SubElement(suite, "testcase", {"classname": "LAWS", "name": law.name})
        if not law.passed and not law.applies:
            ET.SubElement(case, "skipped", {"message": _clean(law.detail)})
        elif not law.passed:
            suite.set("failures", str(int(suite.get("failures", "0")) + 1))
            ET.SubElement(case, "failure", {"message": _clean(law.detail)})
    for result in run.results:
        case = ET.SubElement(
            suite,
            "testcase",
            {
                "classname": result.section,
                "name": _clean(f"{result.id} {result.title}"),
                "time": f"{finite(result.duration):.3f}",
            },
        )
        failing = [c for c in result.checks if c.status == "fail"]
        if result.status == "fail":
            if failing:
                message = "failing check(s): " + ", ".join(
                    f"{c.key} ({', '.join(c.rules)})" for c in failing
                )
                named = list(
                    dict.fromkeys(causes[k] for c in failing if (k := (result.id, c.key)) in causes)
                )
                if named:
                    message += "; " + "; ".join(named)
                node = ET.SubElement(case, "failure", {"message": _clean(message)})
                node.text = _clean(_failing_checks_text(result, causes))
            else:
                node = ET.SubElement(
                    case, "failure", {"message": _clean(result.failing_step or "")}
                )
                node.text = _clean(result.diff or "")
        elif result.status == "error":
            node = ET.SubElement(case, "error", {"message": _clean(result.error or "")})
            node.text = _clean(result.stderr_tail)
        elif result.status in ("unsupported", "not_run", "xfail"):
            ET.SubElement(case, "skipped", {"message": _clean(f"{result.status}: {result.note}")})
        elif result.status == "xpass" and strict:
            ET.SubElement(case, "failure", {"message": _clean(result.note or "xpass")})
        out = _not_graded_text(result)
        if out:
            ET.SubElement(case, "system-out").text = _clean(out)
    tree = ET.ElementTree(suite)
    ET.indent(tree)
    return ET.tostring(suite, encoding="unicode", xml_declaration=True) + "\n"


def write_junit_report(
    path: Path | str, run: RunResult, catalogue: Catalogue | None, *, strict: bool = False
) -> None:
    """Write the JUnit XML report atomically."""
    atomic_write_text(path, junit_xml(run, catalogue, strict=strict))


class Progress:
    """A one-line progress indicator, shown only when the stream is a terminal."""

    def __init__(self, stream: IO[str] | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = bool(getattr(self.stream, "isatty", lambda: False)())

    def __call__(self, done: int, total: int, result: CaseResult) -> None:
        """Redraw the line after a case finished."""
        if not self.enabled:
            return
        self.stream.write(f"\r[{done}/{total}] {result.id} {result.status:<11}")
        self.stream.flush()

    def finish(self) -> None:
        """Clear the progress line."""
        if self.enabled:
            self.stream.write("\r" + " " * 40 + "\r")
            self.stream.flush()
