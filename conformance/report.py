"""Reports of a run: text summary, JSON (report.schema.json) and JUnit XML.

Report files are written atomically (a temporary file in the same directory, then
``os.replace``) so that a CI job never picks up half a report.
"""

from __future__ import annotations

import contextlib
import glob
import json
import os
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from conformance import CORPUS_VERSION, __version__
from conformance.catalogue import Catalogue
from conformance.textsafe import escape

if TYPE_CHECKING:
    from conformance.runner import CaseResult, RunResult

PROTOCOL_VERSION = 1
REPORT_FORMAT = 1
SCHEMA_PATH = Path(__file__).resolve().parent / "schemas" / "report.schema.json"
DISPUTED_SECTION = "DISPUTED"


def _umask() -> int:
    """The process's umask, read without changing it where the platform allows."""
    with contextlib.suppress(OSError, ValueError), open("/proc/self/status") as status:
        for line in status:
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_stale_temp_files(target: Path) -> list[Path]:
    """Delete temp files an earlier writer of ``target`` left behind (killed with -9).

    Temp files are named ``.<name>.<pid>.<random>.tmp``; one whose writer process is
    gone is stale. A live writer's file (another run writing the same report) is left.
    Returns what was removed.
    """
    directory = target.parent if str(target.parent) else Path(".")
    removed: list[Path] = []
    with contextlib.suppress(OSError):
        for candidate in directory.glob(f".{glob.escape(target.name)}.*.tmp"):
            parts = candidate.name[len(target.name) + 2 :].split(".")
            if len(parts) == 3 and parts[0].isdigit() and not _pid_alive(int(parts[0])):
                with contextlib.suppress(OSError):
                    candidate.unlink()
                    removed.append(candidate)
    return removed


def atomic_write_text(path: Path | str, text: str) -> None:
    """Write ``text`` to ``path`` atomically: temp file in the same directory + os.replace.

    The file gets the mode the user's umask gives any new file (not mkstemp's 0600).
    Characters UTF-8 cannot encode (a lone surrogate that reached here from a scenario
    file) are written as backslash escapes rather than losing the report.
    """
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    remove_stale_temp_files(target)
    fd, tmp = tempfile.mkstemp(
        prefix=f".{target.name}.{os.getpid()}.", suffix=".tmp", dir=directory
    )
    try:
        with os.fdopen(
            fd, "w", encoding="utf-8", errors="backslashreplace", newline="\n"
        ) as handle:
            handle.write(text)
            handle.flush()
            os.fchmod(handle.fileno(), 0o666 & ~_umask())
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        # Leave no stray temp file behind, whatever went wrong.
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def reference_option(catalogue: Catalogue | None, dispute: str, profile: str) -> str | None:
    """The option the profile (the reference reading) takes on a disputed point."""
    if catalogue is None:
        return None
    known = catalogue.disputes.get(dispute)
    return known.profiles.get(profile) if known is not None else None


def _case_record(result: CaseResult) -> dict[str, Any]:
    record: dict[str, Any] = {
        "id": result.id,
        "title": result.title,
        "rules": list(result.rules),
        "section": result.section,
        "status": result.status,
        "duration": round(result.duration, 6),
    }
    for key in ("diff", "error", "failing_step", "dispute", "option", "note", "engine_message"):
        value = getattr(result, key)
        if value is not None:
            record[key] = value
    if result.stderr_tail:
        record["stderr_tail"] = result.stderr_tail
    return record


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
            "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(run.started)),
            "duration": round(run.duration, 3),
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
            }
            for law in run.properties
        ],
        "disputes": disputes,
        "summary": dict(run.counts),
        "badges": badges(run.profile, run.counts),
    }


def badges(profile: str, counts: Mapping[str, int]) -> list[dict[str, Any]]:
    """The badge-ready summary, one entry per profile (a run has one profile today).

    ``passed`` counts ``pass`` and ``xpass``; ``graded`` is every case but the
    ``unsupported`` ones (a capability or interface reading the engine does not claim is
    not a failure: README, "Interface choices"). ``line`` is what a badge shows:
    ``argentine 212/244``.
    """
    total = counts.get("total", sum(v for k, v in counts.items() if k != "total"))
    passed = counts.get("pass", 0) + counts.get("xpass", 0)
    graded = total - counts.get("unsupported", 0)
    return [
        {
            "profile": profile,
            "passed": passed,
            "graded": graded,
            "total": total,
            "line": f"{profile} {passed}/{graded}",
        }
    ]


def write_json_report(path: Path | str, run: RunResult, catalogue: Catalogue | None) -> None:
    """Write the JSON report atomically."""
    text = json.dumps(build_report(run, catalogue), indent=2, ensure_ascii=False) + "\n"
    atomic_write_text(path, text)


def _clean(text: str) -> str:
    # Engine text is already safe (conformance/textsafe.py); this also covers scenario
    # text and anything else: XML 1.0 forbids C0 controls, surrogates, U+FFFE/U+FFFF.
    return escape(text)


def junit_xml(run: RunResult, catalogue: Catalogue | None = None, *, strict: bool = False) -> str:
    """One ``testcase`` per scenario, ``classname`` = rule section."""
    counts = run.counts
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
            "time": f"{run.duration:.3f}",
        },
    )
    # Which profile was tested, where JUnit readers keep run facts (before the testcases).
    properties = ET.SubElement(suite, "properties")
    ET.SubElement(properties, "property", {"name": "profile", "value": run.profile})
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
        if not law.passed:
            suite.set("failures", str(int(suite.get("failures", "0")) + 1))
            ET.SubElement(case, "failure", {"message": _clean(law.detail)})
    for result in run.results:
        case = ET.SubElement(
            suite,
            "testcase",
            {
                "classname": result.section,
                "name": _clean(f"{result.id} {result.title}"),
                "time": f"{result.duration:.3f}",
            },
        )
        if result.status == "fail":
            node = ET.SubElement(case, "failure", {"message": _clean(result.failing_step or "")})
            node.text = _clean(result.diff or "")
        elif result.status == "error":
            node = ET.SubElement(case, "error", {"message": _clean(result.error or "")})
            node.text = _clean(result.stderr_tail)
        elif result.status in ("unsupported", "not_run", "xfail"):
            ET.SubElement(case, "skipped", {"message": _clean(f"{result.status}: {result.note}")})
        elif result.status == "xpass" and strict:
            ET.SubElement(case, "failure", {"message": _clean(result.note or "xpass")})
    tree = ET.ElementTree(suite)
    ET.indent(tree)
    return ET.tostring(suite, encoding="unicode", xml_declaration=True) + "\n"


def write_junit_report(
    path: Path | str, run: RunResult, catalogue: Catalogue | None, *, strict: bool = False
) -> None:
    """Write the JUnit XML report atomically."""
    atomic_write_text(path, junit_xml(run, catalogue, strict=strict))


def _counts_line(counts: Mapping[str, int]) -> str:
    order = ("pass", "fail", "error", "unsupported", "not_run", "xfail", "xpass")
    return ", ".join(f"{counts[s]} {s}" for s in order if counts.get(s))


#: Statuses a quiet summary still shows case by case: everything that fails the run.
LOUD_STATUSES = frozenset({"fail", "error", "not_run", "xpass"})
#: Case ids shown per rule in the "failures by rule" block before it says "and N more".
IDS_PER_RULE = 6


def failures_by_rule(results: Sequence[CaseResult]) -> list[tuple[str, list[str]]]:
    """Rule ID → the failed or errored cases citing it, most cases first.

    One root cause (a joker worth 30) shows as one rule with many cases rather than as
    many unrelated failures. A case citing several rules counts under each.
    """
    cases: dict[str, list[str]] = defaultdict(list)
    for result in results:
        if result.status in ("fail", "error"):
            for rule in result.rules:
                cases[rule].append(result.id)
    return sorted(cases.items(), key=lambda item: (-len(item[1]), item[0]))


def text_summary(run: RunResult, catalogue: Catalogue | None = None, *, quiet: bool = False) -> str:
    """Human summary grouped by rule section, then the disputed points, then the totals.

    ``quiet`` keeps only what fails the run (failures, errors, cases not run, xpass), the
    laws that broke, the failures grouped by rule and the totals.
    """
    lines: list[str] = []
    hs = run.handshake
    engine = f"{hs.name} {hs.version} ({hs.language})" if hs else "unknown engine"
    lines.append(
        f"carioca-conformance {__version__}, corpus {CORPUS_VERSION} "
        f"({len(run.results)} cases, digest {run.corpus_digest or '-'}): {engine}, "
        f"profile {run.profile}"
    )
    if run.corpus_path:
        lines.append(f"corpus: {run.corpus_path}")
    lines.extend(f"warning: {problem}" for problem in run.warnings)
    by_section: dict[str, list[CaseResult]] = defaultdict(list)
    disputed: list[CaseResult] = []
    for result in run.results:
        (disputed if result.dispute else by_section[result.section]).append(result)

    def rank(section: str) -> tuple[int, str]:
        return (catalogue.section_rank(section) if catalogue else 0, section)

    for section in sorted(by_section, key=rank):
        results = by_section[section]
        title = catalogue.section_title(section) if catalogue else section
        counts: dict[str, int] = defaultdict(int)
        for r in results:
            counts[r.status] += 1
        if quiet:
            loud = [r for r in results if r.status in LOUD_STATUSES]
            if loud:
                lines.append("")
                lines.append(f"{section} — {title}: {_counts_line(counts)}")
                lines.extend(_case_lines(r) for r in loud)
            continue
        lines.append("")
        lines.append(f"{section} — {title}: {_counts_line(counts)}")
        lines.extend(_case_lines(r) for r in results if r.status != "pass")
    if quiet:
        disputed = [r for r in disputed if r.status in LOUD_STATUSES]
    if disputed:
        lines.append("")
        lines.append("Disputed points (engine ruling / reference ruling):")
        for r in disputed:
            assert r.dispute is not None
            engine_ruling = (hs.rulings.get(r.dispute) if hs else None) or "not declared"
            ref = reference_option(catalogue, r.dispute, run.profile) or "?"
            lines.append(
                f"  {r.id} {r.dispute}: engine {engine_ruling}, reference {ref}, "
                f"graded as {r.option or '?'}: {r.status}"
            )
            if r.status != "pass":
                lines.append(_case_lines(r))
    lines.extend(ruling_lines(run, catalogue))
    if run.properties and not (quiet and all(law.passed for law in run.properties)):
        lines.append("")
        lines.append(f"Laws over seeded deals (seed {run.properties[0].seed}):")
        for law in run.properties:
            if quiet and law.passed:
                continue
            verdict = law.verdict  # pass, FAIL or "not checked" (never a pass)
            rules = ", ".join(law.rules)
            lines.append(f"  {verdict:<4} {law.name} ({rules}): {law.detail}".rstrip())
    grouped = failures_by_rule(run.results)
    if grouped:
        lines.append("")
        lines.append("Failures and errors by rule (cases citing it):")
        for rule, ids in grouped:
            shown = " ".join(ids[:IDS_PER_RULE])
            more = f" and {len(ids) - IDS_PER_RULE} more" if len(ids) > IDS_PER_RULE else ""
            lines.append(f"  {rule:<16} {len(ids):>4}  {shown}{more}")
    lines.append("")
    lines.append(
        f"{len(run.results)} cases: {_counts_line(run.counts) or 'none'} in {run.duration:.1f} s"
    )
    return "\n".join(lines) + "\n"


def ruling_lines(run: RunResult, catalogue: Catalogue | None) -> list[str]:
    """Every disputed point and house variant: the engine's declared option beside the
    profile's. A point the engine's handshake does not name is "not declared": the engine
    said nothing, which is not the same as choosing the profile's option."""
    # Only the points the run's profile rules on (the catalogue gives it an option).
    points = catalogue.disputes_for(run.profile) if catalogue is not None else {}
    if run.handshake is None or not points or run.profile not in run.handshake.profiles:
        return []
    declared = run.handshake.rulings
    lines = ["", f"Rulings (engine declared / profile {run.profile}; * where they differ):"]
    for point in points.values():
        engine = declared.get(point.id)
        profile = point.profiles.get(run.profile, "?")
        mark = "*" if engine is not None and engine != profile else " "
        lines.append(
            f" {mark}{point.id:<11} {engine or 'not declared':<14} {profile:<14} {point.title}"
        )
    return lines


def _case_lines(result: CaseResult) -> str:
    out = [f"  {result.status.upper():<11} {result.id} {result.title}"]
    if result.diff:
        out.extend("      " + line for line in result.diff.splitlines())
    if result.error:
        out.append(f"      {result.error}")
    if result.note:
        out.append(f"      {result.note}")
    if result.stderr_tail:
        out.append("      engine stderr (tail):")
        out.extend("        " + line for line in result.stderr_tail.splitlines()[-10:])
    return "\n".join(out)


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


def summary_rows(results: Sequence[CaseResult]) -> list[tuple[str, str]]:
    """(id, status) pairs, handy for tests and quick listings."""
    return [(r.id, r.status) for r in results]
