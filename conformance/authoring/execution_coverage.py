"""Coverage by execution: the rules a profile's cases cite that no case makes the reference
decide by (issue 27).

``carioca-conformance coverage`` counts the cases that *cite* each rule. A rule cited is not
a rule exercised: a case may name the stock-recycling rule without ever recycling. This
module plays a profile's slice of the corpus against the reference adapter with rule tracing
on (``python -m reference.adapter --trace-rules PATH``: one JSON line per answered request,
``{"id", "op", "decided": [rule IDs], "refused": [rule IDs]}``), through the normal runner and
as a subprocess like any engine (the harness never imports ``reference``). The rule IDs
fired are the reference's (Argentine) IDs; each is read as the profile's own ID through
``own_rules`` of conformance/data/profiles.json (``CARDS-2`` is ``CHILE-WILD-1`` in the
chilean profile). A rule the slice cites but that never fires is *unexercised*, reported
with the cases that cite it.

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
from conformance.knowledge.catalogue import Catalogue
from conformance.knowledge.profiles import ProfileData, find_profile
from conformance.run.runner import RunOptions, run_scenarios
from conformance.scenarios import Scenario

#: The reference adapter's option that turns tracing on, and its environment alternative.
TRACE_OPTION = "--trace-rules"
TRACE_ENV = "CARIOCA_TRACE_RULES"

#: Rules no branch of an engine can decide by, so the reference's trace never names them:
#: each with why. Coverage by execution leaves them out while they do not fire; every other
#: rule a case cites must fire.
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
    """Cited rules no branch can decide by (:data:`NOT_DECIDABLE`), with why."""

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
    def traced(self) -> bool:
        """Whether the run produced any trace at all (none: the adapter does not trace)."""
        return bool(self.decided or self.refused)

    @property
    def ok(self) -> bool:
        """No unexercised rule, something traced, and the reference passed every graded case."""
        return self.traced and not self.unexercised and not self.not_passed

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready form (``coverage --executed --json``)."""
        return {
            "profile": self.profile,
            "cases": self.cases,
            "ok": self.ok,
            "traced": self.traced,
            "unexercised": {rule: list(cases) for rule, cases in self.unexercised.items()},
            "exempt": dict(self.exempt),
            "not_passed": list(self.not_passed),
            "statuses": dict(self.statuses),
            "rules": {
                rule: {
                    "cited_by": len(self.cited.get(rule, ())),
                    "decided": self.decided.get(rule, 0),
                    "refused": self.refused.get(rule, 0),
                }
                for rule in sorted(set(self.cited) | self.fired)
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


def executed_coverage(
    scenarios: Sequence[Scenario],
    catalogue: Catalogue,
    profile: str,
    *,
    adapter: Sequence[str] | None = None,
    timeout: float = 20.0,
) -> ExecutionCoverage:
    """Play ``profile``'s cases of ``scenarios`` against the tracing reference and compare
    the rules they fire with the rules they cite.

    ``adapter``: the command to run instead of the reference (tests use a fake that traces);
    ``--trace-rules PATH`` is appended to it. One adapter process plays every case in
    order, so the trace file has one writer.

    :raises EngineError: when the adapter cannot be started.
    :raises TraceError: when it writes a malformed trace.
    """
    data = find_profile(profile)
    chosen = [s for s in scenarios if profile in s.profiles]
    with tempfile.TemporaryDirectory(prefix="carioca-trace-") as folder:
        trace = Path(folder) / "trace.jsonl"
        argv = [*(adapter or reference_argv()), TRACE_OPTION, str(trace)]
        options = RunOptions(profile=profile, workers=1, timeout=timeout, case_timeout=60.0)
        result = run_scenarios(argv, chosen, options, catalogue=catalogue)
        lines = read_trace(trace)
    decided, refused = tally(lines, data)
    cited = cited_rules(chosen, catalogue, profile)
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
            if rule in cited and rule not in decided and rule not in refused
        },
    )


def render_text(reports: Sequence[ExecutionCoverage]) -> str:
    """The human report: per profile, each unexercised rule with the cases citing it."""
    lines: list[str] = []
    for report in reports:
        unexercised = report.unexercised
        head = (
            f"{report.profile}: {len(report.cited) - len(unexercised) - len(report.exempt)}"
            f"/{len(report.cited) - len(report.exempt)} cited rules fired "
            f"over {report.cases} cases"
        )
        lines.append(head)
        if not report.traced:
            lines.append(
                f"  nothing was traced: the adapter does not write {TRACE_OPTION} lines "
                "(coverage by execution needs the reference's rule trace)"
            )
        for rule, cases in unexercised.items():
            shown = " ".join(cases[:8]) + (f" (+{len(cases) - 8} more)" if len(cases) > 8 else "")
            lines.append(f"  {rule}: cited but never decided or refused by; cited by {shown}")
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
        "every cited rule fired" if not bad else f"cited rules left unexercised: {', '.join(bad)}"
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
    ``json_path``). The exit code, as the command line's: 0 when every cited rule fired in
    every profile, 1 when one did not (or the trace is malformed), 3 when the tracing
    reference could not start."""
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
