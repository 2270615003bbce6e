"""Coverage by execution: which rules of a profile its cases make the reference decide by,
and how many cases exercise each.

``carioca-conformance coverage`` counts the cases that *cite* each rule. A rule cited is not
a rule exercised: a case may name the stock-recycling rule without ever recycling. This
module plays a profile's slice of the corpus against the reference adapter with rule tracing
on (``python -m reference.adapter --trace-rules PATH``: one JSON line per answered request,
``{"id", "op", "decided": [rule IDs], "refused": [rule IDs]}``), through the normal runner and
as a subprocess like any engine (the harness never imports ``reference``). The rule IDs
fired are the reference's (Argentine) IDs; each is read as the profile's own ID through
``own_rules`` of conformance/data/profiles.json (``CARDS-2`` is ``CHILE-WILD-1`` in the
chilean profile).

The cases run one after another on one adapter, none sent ahead of the case before it, so
the lines traced between two cases' ends are the later case's: a rule is *exercised* by a
case when one of its requests fired the rule. Every rule the profile states (the catalogue's
rules of the profile, and any other it cites) must be exercised by at least
:data:`MIN_CASES` cases, unless no branch can decide by it (:data:`NOT_DECIDABLE`); one
edited case must never leave a rule unchecked. A rule some case cites but none fires is
*unexercised*, reported with the cases that cite it.

Library use (the CLI's ``coverage --executed`` is a thin wrapper)::

    report = executed_coverage(scenarios, catalogue, "pagat")
    if not report.ok: print(render_text([report]))
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance.errors import EngineError, HarnessError
from conformance.grading.results import CaseResult
from conformance.knowledge.catalogue import Catalogue
from conformance.knowledge.profiles import ProfileData, find_profile
from conformance.run.runner import RunOptions, run_scenarios
from conformance.scenarios import Scenario

#: The reference adapter's option that turns tracing on, and its environment alternative.
TRACE_OPTION = "--trace-rules"
TRACE_ENV = "CARIOCA_TRACE_RULES"

#: The fewest cases that must exercise each rule a profile states.
MIN_CASES = 2

#: Rules no branch of an engine can decide by, so the reference's trace never names them:
#: each with why. Coverage by execution leaves them out while fewer than :data:`MIN_CASES`
#: cases exercise them; every other rule of the profile must be exercised that often.
NOT_DECIDABLE: Mapping[str, str] = {
    "CHILE-DEAL-0": "the shuffle and cut are procedure; a deck given in order is unaffected",
    "PERLA-VAR-1": "what the profile leaves out; no play reaches an excluded round",
}


class TraceError(HarnessError):
    """A trace file line is not a trace record (names the file and the line)."""


@dataclass(frozen=True)
class TraceLine:
    """One traced request: the rule IDs the reference took a branch by."""

    id: Any
    op: str
    decided: tuple[str, ...]
    """Rules whose branch accepted or applied something."""
    refused: tuple[str, ...]
    """Rules a refusal cited."""


def read_trace(path: Path | str) -> list[TraceLine]:
    """The records of a trace file, in order (a missing file holds none).

    :raises TraceError: a line that is not a JSON object with ``op``, ``decided`` and
        ``refused`` (lists of strings), naming the file and line number.
    """
    source = Path(path)
    if not source.exists():
        return []
    lines: list[TraceLine] = []
    with source.open(encoding="utf-8") as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            lines.append(_parse_line(raw, f"{source}:{number}"))
    return lines


def _parse_line(raw: str, where: str) -> TraceLine:
    try:
        record = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise TraceError(f"{where}: not JSON: {exc.msg}") from None
    if not isinstance(record, dict):
        raise TraceError(f"{where}: a trace line must be a JSON object")
    op = record.get("op")
    if not isinstance(op, str):
        raise TraceError(f"{where}: 'op' must be a string")
    rules: dict[str, tuple[str, ...]] = {}
    for key in ("decided", "refused"):
        value = record.get(key, [])
        if not isinstance(value, list) or not all(isinstance(r, str) for r in value):
            raise TraceError(f"{where}: {key!r} must be a list of rule IDs")
        rules[key] = tuple(value)
    return TraceLine(record.get("id"), op, rules["decided"], rules["refused"])


def own_rule(rule: str, profile: ProfileData) -> str:
    """The profile's own ID for a rule the reference names (its Argentine ID, or already
    the profile's own)."""
    return profile.rule_id(rule)


@dataclass(frozen=True)
class ExecutionCoverage:
    """What one profile's slice made the reference decide by, against what it cites."""

    profile: str
    cases: int
    cited: Mapping[str, tuple[str, ...]]
    """Rule ID (the profile's own) -> the ids of the cases citing it."""
    decided: Mapping[str, int]
    """Rule ID (the profile's own) -> how many traced requests took a branch by it."""
    refused: Mapping[str, int]
    """Rule ID (the profile's own) -> how many traced refusals cited it."""
    statuses: Mapping[str, int]
    """The run's case statuses on the reference."""
    not_passed: tuple[str, ...] = ()
    """Cases the reference did not pass: their traces may stop early, so the run is suspect."""
    exempt: Mapping[str, str] = field(default_factory=dict)
    """Stated rules no branch can decide by (:data:`NOT_DECIDABLE`) and exercised by fewer
    than :data:`MIN_CASES` cases, with why."""
    stated: tuple[str, ...] = ()
    """Every rule the profile states (the catalogue's rules of the profile) or its cases cite."""
    exercised: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Rule ID (the profile's own) -> the ids of the cases that fired it, in run order."""

    @property
    def fired(self) -> frozenset[str]:
        """Every rule some traced request decided or refused by."""
        return frozenset(self.decided) | frozenset(self.refused)

    @property
    def unexercised(self) -> dict[str, tuple[str, ...]]:
        """Cited rules that never fired (and are not exempt) -> the cases citing them."""
        return {
            rule: cases
            for rule, cases in sorted(self.cited.items())
            if rule not in self.fired and rule not in self.exempt
        }

    @property
    def thin(self) -> dict[str, tuple[str, ...]]:
        """Stated rules exercised by fewer than :data:`MIN_CASES` cases (and not exempt, nor
        already :attr:`unexercised`) -> the cases that exercise them."""
        unexercised = self.unexercised
        return {
            rule: self.exercised.get(rule, ())
            for rule in sorted(self.stated)
            if len(self.exercised.get(rule, ())) < MIN_CASES
            and rule not in self.exempt
            and rule not in unexercised
        }

    @property
    def traced(self) -> bool:
        """Whether the run produced any trace at all (none: the adapter does not trace)."""
        return bool(self.decided or self.refused)

    @property
    def ok(self) -> bool:
        """Something traced, every stated rule exercised by :data:`MIN_CASES` cases (or
        exempt), and the reference passed every graded case."""
        return self.traced and not self.unexercised and not self.thin and not self.not_passed

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready form (``coverage --executed --json``)."""
        return {
            "profile": self.profile,
            "cases": self.cases,
            "ok": self.ok,
            "traced": self.traced,
            "unexercised": {rule: list(cases) for rule, cases in self.unexercised.items()},
            "thin": {rule: list(cases) for rule, cases in self.thin.items()},
            "min_cases": MIN_CASES,
            "exempt": dict(self.exempt),
            "not_passed": list(self.not_passed),
            "statuses": dict(self.statuses),
            "rules": {
                rule: {
                    "cited_by": len(self.cited.get(rule, ())),
                    "decided": self.decided.get(rule, 0),
                    "refused": self.refused.get(rule, 0),
                    "exercised_by": len(self.exercised.get(rule, ())),
                }
                for rule in sorted(set(self.cited) | self.fired | set(self.stated))
            },
        }


def cited_rules(
    scenarios: Iterable[Scenario], catalogue: Catalogue, profile: str
) -> dict[str, tuple[str, ...]]:
    """Rule ID -> the cases of ``profile`` citing it (disputed points and variants left out:
    they are options, which the cases under each option exercise)."""
    rules = catalogue.rules
    citing: dict[str, list[str]] = defaultdict(list)
    for scenario in scenarios:
        if profile not in scenario.profiles:
            continue
        for rule in dict.fromkeys(scenario.rules):
            if rule in rules:
                citing[rule].append(scenario.id)
    return {rule: tuple(cases) for rule, cases in citing.items()}


def tally(lines: Iterable[TraceLine], profile: ProfileData) -> tuple[Counter[str], Counter[str]]:
    """How often each rule (the profile's own ID) was decided by and cited by a refusal."""
    decided: Counter[str] = Counter()
    refused: Counter[str] = Counter()
    for line in lines:
        decided.update({own_rule(r, profile) for r in line.decided})
        refused.update({own_rule(r, profile) for r in line.refused})
    return decided, refused


def reference_argv() -> list[str]:
    """The reference adapter, started as any engine is."""
    return [sys.executable, "-m", "reference.adapter"]


class _CaseTrace:
    """Reads the trace file as it grows and hands each case the lines written for it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0
        self.number = 0
        self.lines: list[TraceLine] = []
        self.by_case: dict[str, list[TraceLine]] = {}

    def take(self) -> list[TraceLine]:
        """The complete lines written since the last call."""
        if not self.path.exists():
            return []
        with self.path.open("rb") as handle:
            handle.seek(self.offset)
            data = handle.read()
        complete = data[: data.rfind(b"\n") + 1]
        self.offset += len(complete)
        taken: list[TraceLine] = []
        for raw in complete.decode("utf-8", errors="replace").splitlines():
            self.number += 1
            if raw.strip():
                taken.append(_parse_line(raw, f"{self.path}:{self.number}"))
        self.lines.extend(taken)
        return taken

    def case_ended(self, _done: int, _total: int, result: CaseResult) -> None:
        """Progress callback of the run: what was traced since the last case is this one's."""
        self.by_case.setdefault(result.id, []).extend(self.take())


def executed_coverage(
    scenarios: Sequence[Scenario],
    catalogue: Catalogue,
    profile: str,
    *,
    adapter: Sequence[str] | None = None,
    timeout: float = 20.0,
) -> ExecutionCoverage:
    """Play ``profile``'s cases of ``scenarios`` against the tracing reference: which cases
    exercise each rule, against the rules the profile states and its cases cite.

    ``adapter``: the command to run instead of the reference (tests use a fake that traces);
    ``--trace-rules PATH`` is appended to it. One adapter process plays every case in
    order, with no request sent ahead of the case before it, so the trace file has one
    writer and the lines of each case come together.

    :raises EngineError: when the adapter cannot be started.
    :raises TraceError: when it writes a malformed trace.
    """
    data = find_profile(profile)
    chosen = [s for s in scenarios if profile in s.profiles]
    with tempfile.TemporaryDirectory(prefix="carioca-trace-") as folder:
        trace = Path(folder) / "trace.jsonl"
        argv = [*(adapter or reference_argv()), TRACE_OPTION, str(trace)]
        options = RunOptions(
            profile=profile, workers=1, timeout=timeout, case_timeout=60.0, lookahead=False
        )
        reader = _CaseTrace(trace)
        result = run_scenarios(
            argv, chosen, options, catalogue=catalogue, progress=reader.case_ended
        )
        reader.take()
        lines = reader.lines
    decided, refused = tally(lines, data)
    cited = cited_rules(chosen, catalogue, profile)
    exercised: dict[str, list[str]] = defaultdict(list)
    for case, traced in reader.by_case.items():
        fired = set()
        for line in traced:
            fired |= {own_rule(r, data) for r in (*line.decided, *line.refused)}
        for rule in fired:
            exercised[rule].append(case)
    stated = tuple(dict.fromkeys([*catalogue.rules_for(profile), *cited]))
    return ExecutionCoverage(
        profile=profile,
        cases=len(chosen),
        cited=cited,
        decided=dict(decided),
        refused=dict(refused),
        statuses={k: v for k, v in result.counts.items() if k != "total" and v},
        not_passed=tuple(r.id for r in result.results if r.status not in ("pass", "unsupported")),
        exempt={
            rule: why
            for rule, why in NOT_DECIDABLE.items()
            if rule in stated and len(exercised.get(rule, ())) < MIN_CASES
        },
        stated=stated,
        exercised={rule: tuple(cases) for rule, cases in exercised.items()},
    )


def _shown(cases: Sequence[str]) -> str:
    return " ".join(cases[:8]) + (f" (+{len(cases) - 8} more)" if len(cases) > 8 else "")


def render_text(reports: Sequence[ExecutionCoverage]) -> str:
    """The human report: per profile, one line, then each rule exercised by fewer than
    :data:`MIN_CASES` cases with its count and cases, and each cited rule that never fired."""
    lines: list[str] = []
    for report in reports:
        unexercised, thin = report.unexercised, report.thin
        counted = [r for r in report.stated if r not in report.exempt]
        short = set(unexercised) | set(thin)
        lines.append(
            f"{report.profile}: {len(counted) - len(short)}/{len(counted)} rules exercised by "
            f"{MIN_CASES} cases or more over {report.cases} cases"
        )
        if not report.traced:
            lines.append(
                f"  nothing was traced: the adapter does not write {TRACE_OPTION} lines "
                "(coverage by execution needs the reference's rule trace)"
            )
        for rule, cases in unexercised.items():
            lines.append(
                f"  {rule}: cited but never decided or refused by; cited by {_shown(cases)}"
            )
        for rule, cases in thin.items():
            by = f": {_shown(cases)}" if cases else ""
            lines.append(f"  {rule}: exercised by {len(cases)} case{'s' * (len(cases) != 1)}{by}")
        for rule, why in sorted(report.exempt.items()):
            lines.append(f"  {rule}: not decidable ({why})")
        if report.not_passed:
            lines.append(
                "  the reference did not pass "
                + " ".join(report.not_passed[:8])
                + ": their traces may be cut short"
            )
    bad = [r.profile for r in reports if not r.ok]
    lines.append(
        f"every rule exercised by {MIN_CASES} cases or more"
        if not bad
        else f"rules exercised by fewer than {MIN_CASES} cases: {', '.join(bad)}"
    )
    return "\n".join(lines)


def write_json(reports: Sequence[ExecutionCoverage], path: Path | str) -> None:
    """Write the reports as one JSON document."""
    document = {"profiles": [r.as_dict() for r in reports], "ok": all(r.ok for r in reports)}
    Path(path).write_text(json.dumps(document, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def coverage_command(
    scenarios: Sequence[Scenario],
    catalogue: Catalogue,
    profiles: Sequence[str],
    *,
    json_path: str | None = None,
    adapter: Sequence[str] | None = None,
) -> int:
    """``coverage --executed``: trace each profile's slice, print the report (and write
    ``json_path``). The exit code, as the command line's: 0 when every rule of every profile
    is exercised by :data:`MIN_CASES` cases (or is not decidable), 1 when one is not (or the
    trace is malformed), 3 when the tracing reference could not start."""
    try:
        reports = [
            executed_coverage(scenarios, catalogue, profile, adapter=adapter)
            for profile in profiles
        ]
    except EngineError as exc:
        print(
            f"error: the tracing reference could not start: {exc} (coverage by execution "
            f"needs `python -m reference.adapter {TRACE_OPTION} PATH`)",
            file=sys.stderr,
        )
        return 3
    except TraceError as exc:
        print(f"error: malformed rule trace: {exc}", file=sys.stderr)
        return 1
    print(render_text(reports))
    if json_path:
        write_json(reports, json_path)
    return 0 if all(r.ok for r in reports) else 1
