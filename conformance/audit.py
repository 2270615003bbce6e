"""The ruling audit: does every case name every disputed point it leans on?

The reference plays any option of any disputed point or house variant
(``python -m reference.adapter --ruling POINT=OPTION``). The audit runs the corpus once at
the profile's rulings and once per single-option change (each other option of each point,
every other point at the profile's option), and requires of every case under every option:

- it passes, or
- it is ``unsupported`` *because it names that point* (its ``disputed`` block or its
  ``assumes``): the harness declined to grade it against an option it does not cover.

A case the audited adapter does not support even at the profile's rulings (one written for
another interface reading, say ``run_order: engine``) cannot be audited by it: it is listed
as not audited, never as a finding.

Anything else (a fail, an error, or ``unsupported`` for another reason) is a finding: the
case gives a different answer under an option it does not name, so an engine ruling that way
would be marked wrong for a ruling the case never claimed to test. Add ``assumes`` or
``by_option`` expectations to the case, as the rules text supports (docs/adding-scenarios.md).

Each run is one persistent adapter process; runs are spread over worker processes, because
the harness side is CPU-bound Python and threads would share one core.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from conformance.catalogue import Catalogue, load_catalogue
from conformance.errors import EngineError
from conformance.profiles import DEFAULT_PROFILE
from conformance.runner import CaseResult, RunOptions, run_scenarios
from conformance.scenarios import Scenario, load_corpus

#: One audited configuration: ``(point, option)``, or ``(None, None)`` for the profile's.
Change = tuple[str | None, str | None]


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
    """True if the case says it depends on ``point`` (its disputed point or an assumption)."""
    return (scenario.disputed is not None and scenario.disputed.id == point) or (
        point in scenario.assumes
    )


def judge(scenario: Scenario, result: CaseResult, change: Change) -> Finding | None:
    """The finding for one case under one change, or None when the case is honest."""
    point, option = change
    if result.status == "pass":
        return None
    if result.status == "unsupported" and point is not None and names_point(scenario, point):
        return None
    detail = result.diff or result.error or result.note or ""
    if point is not None and not names_point(scenario, point):
        detail = f"the case does not name {point}; " + detail.strip().replace("\n", " | ")
    return Finding(scenario.id, point, option, result.status, detail.strip()[:400])


def _argv_for(base: Sequence[str], change: Change) -> list[str]:
    point, option = change
    return [*base] if point is None else [*base, "--ruling", f"{point}={option}"]


@dataclass(frozen=True)
class _Job:
    argv: tuple[str, ...]
    paths: tuple[str, ...]
    catalogue: str | None
    profile: str
    change: Change


#: The corpus each worker process loaded, by (paths, catalogue, profile): loading and
#: validating 250 scenarios costs more than running them, so it happens once per process.
_LOADED: dict[tuple[tuple[str, ...], str | None, str], tuple[Catalogue, list[Scenario]]] = {}


def _corpus(job: _Job) -> tuple[Catalogue, list[Scenario]]:
    key = (job.paths, job.catalogue, job.profile)
    if key not in _LOADED:
        catalogue = load_catalogue(job.catalogue)
        loaded = load_corpus([Path(p) for p in job.paths], catalogue=catalogue)
        _LOADED[key] = (catalogue, [s for s in loaded.scenarios if job.profile in s.profiles])
    return _LOADED[key]


def _run_one(job: _Job) -> tuple[Change, list[tuple[str, str, str]] | str]:
    """Run the corpus under one change (in a worker process); compact results or an error."""
    catalogue, scenarios = _corpus(job)
    # Every case must be graded: a run of engine errors must not leave the rest not_run.
    options = RunOptions(profile=job.profile, max_consecutive_errors=10**9)
    try:
        argv = _argv_for(job.argv, job.change)
        run = run_scenarios(argv, scenarios, options, catalogue=catalogue)
    except EngineError as exc:
        return job.change, f"adapter could not start: {exc}"
    by_id = {s.id: s for s in scenarios}
    found = []
    for result in run.results:
        finding = judge(by_id[result.id], result, job.change)
        if finding is not None:
            found.append((finding.case, finding.status, finding.detail))
    return job.change, found


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
    """Audit the corpus at ``paths`` with the adapter ``argv`` (which must accept ``--ruling``).

    ``workers`` processes run the changes side by side (0: one per CPU, at most 4).
    """
    started = time.monotonic()
    # The files may have changed since an earlier audit in this process.
    _LOADED.clear()
    loaded = load_corpus(list(paths), catalogue=catalogue)
    cases = sum(1 for s in loaded.scenarios if profile in s.profiles)
    changes = changes_to_audit(catalogue, profile, points)
    jobs = [
        _Job(tuple(argv), tuple(str(p) for p in paths), catalogue_path, profile, change)
        for change in changes
    ]
    workers = workers or min(4, os.cpu_count() or 1)
    findings: list[Finding] = []
    broken: list[tuple[Change, str]] = []

    def collect(change: Change, outcome: list[tuple[str, str, str]] | str) -> None:
        if isinstance(outcome, str):
            broken.append((change, outcome))
        else:
            findings.extend(Finding(c, change[0], change[1], s, d) for c, s, d in outcome)
        if progress is not None:
            progress(change, 0 if isinstance(outcome, str) else len(outcome))

    if workers == 1:
        for job in jobs:
            collect(*_run_one(job))
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for change, outcome in pool.map(_run_one, jobs):
                collect(change, outcome)
    # A case unsupported at the profile's own rulings is beyond this adapter (an interface
    # reading it does not declare): its unsupported answers under changes say nothing.
    declined = {f.case: f.detail for f in findings if f.point is None and f.status == "unsupported"}
    findings = [f for f in findings if not (f.case in declined and f.status == "unsupported")]
    order = {change: i for i, change in enumerate(changes)}
    findings.sort(key=lambda f: (order[(f.point, f.option)], f.case))
    return AuditResult(
        changes=tuple(changes),
        cases=cases,
        findings=tuple(findings),
        duration=time.monotonic() - started,
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
