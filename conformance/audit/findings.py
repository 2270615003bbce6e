"""The case-level audit: does every case name every disputed point it leans on?

The reference plays any option of any disputed point or house variant
(``python -m reference.adapter --ruling POINT=OPTION``). The audit runs the corpus once at
the profile's rulings and once per single-option change (each other option of each point,
every other point at the profile's option), and requires of every case under every option:

- it passes, or
- it is ``unsupported`` *because it names that point* (its ``disputed`` block, an
  ``assumes`` of the case, a step or a check, or a ``by_option`` keyed by it): the harness
  declined to grade it against an option it does not cover.

A case written for an interface reading (``run_order: engine``) is played by an adapter
in that reading (conformance/audit/runs.py). A case the adapter does not support even at
the profile's rulings (it assumes an option the profile does not play) is listed as not
audited under the other changes, never as a finding.

Anything else (a fail, an error, or ``unsupported`` for another reason) is a finding: the
case gives a different answer under an option it does not name, so an engine ruling that way
would be marked wrong for a ruling the case never claimed to test. Add ``assumes`` or
``by_option`` expectations to the case, as the rules text supports (docs/adding-scenarios.md).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from conformance.audit.runs import (
    CaseRecord,
    Change,
    RunRecord,
    RunSpec,
    change_flags,
    change_label,
    execute,
    profile_cases,
)
from conformance.grading.results import CaseResult
from conformance.knowledge.catalogue import Catalogue
from conformance.knowledge.profiles import DEFAULT_PROFILE
from conformance.scenarios import Scenario


@dataclass(frozen=True)
class Finding:
    """A case that does not pass under an option of a point it does not name."""

    case: str
    point: str | None
    """The point whose option was changed (``None``: the profile's own rulings)."""
    option: str | None
    status: str
    detail: str

    def line(self) -> str:
        """One line for the report: case, point=option, what happened."""
        where = "the profile's rulings" if self.point is None else f"{self.point}={self.option}"
        return f"{self.case} under {where}: {self.status}: {self.detail}"


@dataclass(frozen=True)
class AuditResult:
    """What the audit ran and found."""

    changes: tuple[Change, ...]
    cases: int
    findings: tuple[Finding, ...]
    duration: float
    #: Runs whose adapter could not start: ``(change, message)``.
    broken_runs: tuple[tuple[Change, str], ...] = ()
    #: Cases the adapter declines at the profile's rulings (not audited): ``(id, note)``.
    not_audited: tuple[tuple[str, str], ...] = ()

    @property
    def ok(self) -> bool:
        """True when every case passed or was honestly unsupported under every option."""
        return not self.findings and not self.broken_runs


def changes_to_audit(
    catalogue: Catalogue, profile: str = DEFAULT_PROFILE, points: Sequence[str] = ()
) -> list[Change]:
    """The profile's rulings, then every other option of every point (or of ``points``)."""
    found: list[Change] = [(None, None)]
    # Only the points the profile rules on (the catalogue gives it an option).
    for point in catalogue.disputes_for(profile).values():
        if points and point.id not in points:
            continue
        chosen = point.profiles.get(profile)
        found += [(point.id, option) for option in point.options if option != chosen]
    return found


def names_point(scenario: Scenario, point: str) -> bool:
    """True if the case says it depends on ``point``: its disputed point, an assumption of
    the case, of a step or of a check, or a ``by_option`` keyed by the point."""
    if (scenario.disputed is not None and scenario.disputed.id == point) or (
        point in scenario.assumes
    ):
        return True
    if any(point in step.assumes for step in scenario.steps):
        return True
    return any(point in check.leans for plan in scenario.plans.values() for check in plan)


def judge(scenario: Scenario, result: CaseResult | CaseRecord, change: Change) -> Finding | None:
    """The finding for one case under one change, or None when the case is honest."""
    point, option = change
    if result.status == "pass":
        return None
    if result.status == "unsupported" and point is not None and names_point(scenario, point):
        return None
    if isinstance(result, CaseRecord):
        detail = result.detail
    else:
        detail = result.diff or result.error or result.note or ""
    detail = " | ".join(line.strip() for line in detail.strip().splitlines())
    if point is not None and not names_point(scenario, point):
        detail = f"the case does not name {point}; " + detail
    return Finding(scenario.id, point, option, result.status, detail[:400])


def audit(
    argv: Sequence[str],
    paths: Sequence[Path],
    catalogue: Catalogue,
    *,
    catalogue_path: str | None = None,
    profile: str = DEFAULT_PROFILE,
    points: Sequence[str] = (),
    workers: int = 0,
    progress: Callable[[Change, int], None] | None = None,
) -> AuditResult:
    """Audit the corpus at ``paths`` with the adapter ``argv`` (which must accept
    ``--ruling`` and ``--interface``).

    ``workers`` processes run the changes side by side (0: one per CPU, at most 4).
    """
    started = time.monotonic()
    changes = changes_to_audit(catalogue, profile, points)
    specs = [RunSpec(profile, c, change_flags(c), label=change_label(c)) for c in changes]

    def report(record: RunRecord) -> None:
        if progress is not None:
            progress(record.spec.change, len(record.cases))

    records = execute(argv, paths, catalogue_path, specs, workers=workers, progress=report)
    return judged(records, paths, catalogue_path, profile, time.monotonic() - started)


def judged(
    records: Sequence[RunRecord],
    paths: Sequence[Path],
    catalogue_path: str | None,
    profile: str,
    duration: float,
) -> AuditResult:
    """The case-level findings of runs already played (one per change, the profile's first)."""
    _, scenarios = profile_cases(tuple(str(p) for p in paths), catalogue_path, profile)
    by_id = {s.id: s for s in scenarios}
    changes = [r.spec.change for r in records]
    findings: list[Finding] = []
    broken: list[tuple[Change, str]] = []
    for record in records:
        if record.broken is not None:
            broken.append((record.spec.change, record.broken))
            continue
        for case in record.cases:
            found = judge(by_id[case.id], case, record.spec.change)
            if found is not None:
                findings.append(found)
    # A case unsupported at the profile's own rulings is beyond this adapter (it assumes an
    # option the profile does not play): its unsupported answers under changes say nothing.
    declined = {f.case: f.detail for f in findings if f.point is None and f.status == "unsupported"}
    findings = [f for f in findings if not (f.case in declined and f.status == "unsupported")]
    order = {change: i for i, change in enumerate(changes)}
    findings.sort(key=lambda f: (order[(f.point, f.option)], f.case))
    return AuditResult(
        changes=tuple(changes),
        cases=len(scenarios),
        findings=tuple(findings),
        duration=duration,
        broken_runs=tuple(broken),
        not_audited=tuple(sorted(declined.items())),
    )


def audit_summary(result: AuditResult) -> str:
    """The human report: every finding, then one line of totals."""
    lines = [finding.line() for finding in result.findings]
    lines += [f"run under {p}={o} broke: {message}" for (p, o), message in result.broken_runs]
    lines += [
        f"{case} not audited: unsupported at the profile's rulings: {note}"
        for case, note in result.not_audited
    ]
    runs = len(result.changes)
    if result.ok:
        lines.append(
            f"audit OK: {result.cases} cases x {runs} rulings (the profile's and "
            f"{runs - 1} single-option changes), every case passes or names the point"
            + (f", {len(result.not_audited)} not audited" if result.not_audited else "")
            + f" ({result.duration:.1f} s)"
        )
    else:
        points = {(f.point, f.option) for f in result.findings}
        lines.append(
            f"audit FAILED: {len(result.findings)} finding(s) under {len(points)} ruling(s), "
            f"{len(result.broken_runs)} broken run(s); {result.cases} cases x {runs} rulings "
            f"({result.duration:.1f} s). Name the point in the case's `assumes`, or give "
            "`by_option` expectations (docs/adding-scenarios.md)."
        )
    return "\n".join(lines) + "\n"
