"""Running the corpus against the reference under many rulings at once: the audit's engine.

One **run** is the reference (or any adapter taking the reference's flags) started with one
set of declarations (a single-option change, or an author's rulings file) and playing every
case of one profile. A case written for an interface reading (``interface: {run_order:
engine}``) is played by an adapter started in that reading (``--interface run_order=engine``),
so that it is audited like any other case; cases are grouped by the reading they need, one
adapter per group.

Runs are spread over worker processes (the harness side is CPU-bound Python; threads would
share one core), each loading the corpus once. A worker sends back compact records (per
case: status and each check's key, status, cause and, when failed, its rules and diff), which
the measurement (:mod:`conformance.audit.measure`), the findings
(:mod:`conformance.audit.findings`) and the audit both ways (:mod:`conformance.audit.bothways`)
read.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from conformance.adapter.declarations import INTERFACE_DEFAULTS
from conformance.errors import EngineError
from conformance.grading.results import CaseResult
from conformance.knowledge.catalogue import Catalogue, load_catalogue
from conformance.run.runner import (
    CaseRunner,
    RunOptions,
    not_run_result,
    section_of,
    start_session,
)
from conformance.scenarios import Scenario, load_corpus

#: One single-option change: ``(point, option)``, or ``(None, None)`` for the profile's rulings.
Change = tuple[str | None, str | None]

#: The profile's own rulings.
BASELINE: Change = (None, None)

#: Statuses of a check that count as graded (conformance.grading.results.graded()).
GRADED = frozenset({"pass", "fail", "xfail", "xpass"})


@dataclass(frozen=True)
class CheckRecord:
    """One check's outcome in one run, as small as the analyses need."""

    key: str
    status: str
    cause: str | None = None
    #: Failed only: the rules it is attributed to and what differed.
    rules: tuple[str, ...] = ()
    diff: str = ""


@dataclass(frozen=True)
class CaseRecord:
    """One case's outcome in one run."""

    id: str
    status: str
    #: The case's diff, error or note, cut short (what a finding line shows).
    detail: str
    checks: tuple[CheckRecord, ...]


@dataclass(frozen=True)
class RunSpec:
    """What one run plays: a profile, the adapter flags of its declarations, and which cases.

    ``flags`` are added to the adapter's argv for every case (``--ruling P=O``,
    ``--unmodelled``, ``--players``); ``interface`` holds the interface choices the
    declarations fix (a case needing another reading is then not graded, as for a real
    engine); the choices they leave open follow each case's own ``interface``.
    """

    profile: str
    change: Change = BASELINE
    flags: tuple[str, ...] = ()
    interface: tuple[tuple[str, str], ...] = ()
    #: Only these cases (None: every case of the profile).
    cases: frozenset[str] | None = None
    #: Audit mode (conformance.run.runner.RunOptions.grade_assumed): points whose assumptions
    #: are graded anyway.
    grade_assumed: frozenset[str] = frozenset()
    #: A label for the run in reports (the change, or the rulings file's name).
    label: str = ""
    #: ``change`` (the profile's rulings or a single-option change) or ``file`` (a rulings
    #: file's declarations).
    kind: str = "change"
    #: The least share a ``file`` run must keep when lower than the command's floor (an
    #: engine reading every interface choice its own way loses the cases written for the
    #: default readings).
    floor: float = 1.0


@dataclass(frozen=True)
class RunRecord:
    """One run's records, or why its adapter could not start."""

    spec: RunSpec
    cases: tuple[CaseRecord, ...] = ()
    broken: str | None = None
    by_id: Mapping[str, CaseRecord] = field(default_factory=dict, compare=False, repr=False)


def change_flags(change: Change) -> tuple[str, ...]:
    """The reference's flags for one single-option change."""
    point, option = change
    return () if point is None else ("--ruling", f"{point}={option}")


def change_label(change: Change) -> str:
    """``POINT=OPTION``, or ``the profile's rulings``."""
    point, option = change
    return "the profile's rulings" if point is None else f"{point}={option}"


def interface_group(scenario: Scenario, fixed: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    """The interface reading an adapter must play to grade ``scenario``: the declarations'
    fixed choices, else the case's own; only the choices that are not the default."""
    reading = {**INTERFACE_DEFAULTS, **scenario.interface, **fixed}
    return tuple((k, v) for k, v in sorted(reading.items()) if INTERFACE_DEFAULTS.get(k) != v)


def interface_groups(
    scenarios: Sequence[Scenario], fixed: Mapping[str, str]
) -> dict[tuple[tuple[str, str], ...], list[Scenario]]:
    """The cases in as few adapter readings as grade them all: the default reading for every
    case that needs no other, and the cases that need another merged wherever their
    choices agree (a case that needs ``run_order: engine`` and names no ``run_ends`` is
    graded as well by an adapter that also picks ends), since each adapter costs a start."""
    groups: dict[tuple[tuple[str, str], ...], list[Scenario]] = {}
    pinned: dict[tuple[tuple[str, str], ...], dict[str, str]] = {}
    for scenario in scenarios:
        needs = {**scenario.interface, **fixed}
        if not interface_group(scenario, fixed):
            groups.setdefault((), []).append(scenario)
            continue
        for key, pins in pinned.items():
            if key and all(pins.get(k, v) == v for k, v in needs.items()):
                pins.update(needs)
                groups[key].append(scenario)
                break
        else:
            key = interface_group(scenario, fixed)
            pinned[key] = dict(needs)
            groups[key] = [scenario]
    # Each merged group's reading is the union of its cases' choices.
    return {
        tuple((k, v) for k, v in sorted(pinned[key].items()) if INTERFACE_DEFAULTS.get(k) != v)
        if key
        else (): cases
        for key, cases in groups.items()
    }


def interface_flags(group: Iterable[tuple[str, str]]) -> list[str]:
    """The reference's ``--interface`` flags for one reading."""
    flags: list[str] = []
    for key, value in group:
        flags += ["--interface", f"{key}={value}"]
    return flags


@dataclass(frozen=True)
class _Job:
    """Runs that share one adapter command: a change's run and its run graded anyway."""

    argv: tuple[str, ...]
    paths: tuple[str, ...]
    catalogue: str | None
    specs: tuple[RunSpec, ...]


#: The corpus each worker process loaded, by (paths, catalogue, profile): loading and
#: validating the scenarios costs more than running them, so it happens once per process.
_LOADED: dict[tuple[tuple[str, ...], str | None, str], tuple[Catalogue, list[Scenario]]] = {}


def forget_loaded() -> None:
    """Drop the corpus this process loaded (the files may have changed since)."""
    _LOADED.clear()


def profile_cases(
    paths: tuple[str, ...], catalogue_path: str | None, profile: str
) -> tuple[Catalogue, list[Scenario]]:
    """The catalogue and the cases of ``profile`` under ``paths``, loaded once per process."""
    key = (paths, catalogue_path, profile)
    if key not in _LOADED:
        catalogue = load_catalogue(catalogue_path)
        loaded = load_corpus([Path(p) for p in paths], catalogue=catalogue)
        _LOADED[key] = (catalogue, [s for s in loaded.scenarios if profile in s.profiles])
    return _LOADED[key]


def _records(results: Iterable[CaseResult]) -> list[CaseRecord]:
    out = []
    for result in results:
        checks = tuple(
            CheckRecord(
                c.key,
                c.status,
                c.cause,
                c.rules if c.status == "fail" else (),
                (c.diff or "")[:300] if c.status == "fail" else "",
            )
            for c in result.checks
        )
        detail = result.diff or result.error or result.note or ""
        detail = " | ".join(line.strip() for line in detail.strip().splitlines())
        out.append(CaseRecord(result.id, result.status, detail[:400], checks))
    return out


def _options(spec: RunSpec) -> RunOptions:
    # Every case must be graded: a run of engine errors must not leave the rest not_run.
    return RunOptions(
        profile=spec.profile, max_consecutive_errors=10**9, grade_assumed=spec.grade_assumed
    )


def play(
    argv: Sequence[str],
    batches: Sequence[tuple[Sequence[Scenario], RunOptions]],
    catalogue: Catalogue,
) -> list[list[CaseResult]] | str:
    """Play each batch of cases with its options, one after another, on ONE adapter session
    (a run and its run graded anyway share the adapter's start); the results per batch, or
    why the adapter could not start."""
    if not any(cases for cases, _ in batches):
        return [[] for _ in batches]
    try:
        session = start_session(argv, batches[0][1])
    except EngineError as exc:
        return f"adapter could not start: {exc}"
    out: list[list[CaseResult]] = []
    try:
        for cases, options in batches:
            runner = CaseRunner(session, options, catalogue)
            results: list[CaseResult] = []
            for i, scenario in enumerate(cases):
                upcoming = cases[i + 1] if i + 1 < len(cases) else None
                section = section_of(scenario, catalogue)
                try:
                    results.append(runner.run(scenario, section, upcoming))
                except Exception as exc:  # a harness bug must not lose the case
                    error = f"harness error: {type(exc).__name__}: {exc}"
                    results.append(
                        not_run_result(scenario, catalogue, error, options.profile, status="error")
                    )
            out.append(results)
    finally:
        session.close()
    return out


def run_job(job: _Job) -> list[RunRecord]:
    """Play one job's runs (in a worker process): one adapter per interface reading, shared
    by the job's runs."""
    first = job.specs[0]
    catalogue, scenarios = profile_cases(job.paths, job.catalogue, first.profile)
    chosen = [
        [s for s in scenarios if spec.cases is None or s.id in spec.cases] for spec in job.specs
    ]
    wanted = {s.id for cases in chosen for s in cases}
    every = [s for s in scenarios if s.id in wanted]
    records: list[dict[str, CaseRecord]] = [{} for _ in job.specs]
    for reading, cases in interface_groups(every, dict(first.interface)).items():
        ids = {s.id for s in cases}
        batches = [
            ([s for s in mine if s.id in ids], _options(spec))
            for spec, mine in zip(job.specs, chosen, strict=True)
        ]
        argv = [*job.argv, *first.flags, *interface_flags(reading)]
        outcome = play(argv, batches, catalogue)
        if isinstance(outcome, str):
            return [RunRecord(spec, broken=outcome) for spec in job.specs]
        for found, results in zip(records, outcome, strict=True):
            found.update((r.id, r) for r in _records(results))
    return [
        RunRecord(spec, tuple(found[s.id] for s in mine if s.id in found))
        for spec, mine, found in zip(job.specs, chosen, records, strict=True)
    ]


def _jobs(
    argv: Sequence[str], paths: Sequence[Path], catalogue_path: str | None, specs: Sequence[RunSpec]
) -> list[tuple[_Job, list[int]]]:
    """The specs grouped by the adapter command they play (profile, flags, interface), in
    order of first appearance, with the index of each spec in ``specs``."""
    grouped: dict[tuple[object, ...], list[int]] = {}
    for index, spec in enumerate(specs):
        grouped.setdefault((spec.profile, spec.flags, spec.interface), []).append(index)
    where = tuple(str(p) for p in paths)
    return [
        (_Job(tuple(argv), where, catalogue_path, tuple(specs[i] for i in group)), group)
        for group in grouped.values()
    ]


def execute(
    argv: Sequence[str],
    paths: Sequence[Path],
    catalogue_path: str | None,
    specs: Sequence[RunSpec],
    *,
    workers: int = 0,
    progress: Callable[[RunRecord], None] | None = None,
) -> list[RunRecord]:
    """Play every run of ``specs`` (``workers`` processes side by side; 0: one per CPU, at
    most 4; 1: in this process); one record per spec, in order, each indexed by case id."""
    jobs = _jobs(argv, paths, catalogue_path, specs)
    workers = workers or min(4, os.cpu_count() or 1)
    done: dict[int, RunRecord] = {}

    def collect(records: list[RunRecord], indexes: list[int]) -> None:
        for record, index in zip(records, indexes, strict=True):
            indexed = RunRecord(
                record.spec, record.cases, record.broken, {c.id: c for c in record.cases}
            )
            done[index] = indexed
            if progress is not None:
                progress(indexed)

    if workers == 1 or len(jobs) <= 1:
        for job, indexes in jobs:
            collect(run_job(job), indexes)
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for (_, indexes), records in zip(
                jobs, pool.map(run_job, [job for job, _ in jobs]), strict=True
            ):
                collect(records, indexes)
    return [done[i] for i in range(len(specs))]
