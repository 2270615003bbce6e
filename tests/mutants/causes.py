"""One bug, one line: what each single-fault engine's run prints as causes, and whether its
hints hold (shared by benchmarks/causes_bench.py and tests/test_mutant_causes.py).

Every mutant of tests/mutants/ (the reference with one rule broken, docs/mutants.md) is run
on its profile's slice of the corpus as ``run`` runs it by default, its failing checks are
grouped into causes and explained (conformance/reports/causes.py, conformance/reports/
explain.py), and each hint is verified: the mutant graded again as declaring the hinted
option(s), over the whole slice, must fail no check of that cause and no check it passed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

from conformance.explain import declaring, infer
from conformance.grading.results import Cause, RunResult
from conformance.reports.causes import with_causes
from conformance.run.runner import RunOptions, run_scenarios
from tests.mutants import harness
from tests.mutants.later import BY_PROFILE

#: The targets of docs/reports.md ("Causes").
ONE_SHARE, MEAN, MOST, COST = 0.85, 1.3, 4, 2.0


@dataclass
class Measured:
    """What one mutant's run printed, and what it cost."""

    name: str
    profile: str
    causes: list[str]
    hints: list[dict[str, str]]
    grading: float
    explaining: float
    stopped: bool
    #: Hints that, declared, left a check of their cause failing or failed a check that passed.
    false_hints: list[str] = field(default_factory=list)


def options(profile: str) -> RunOptions:
    """The command line's defaults for ``profile`` (five consecutive errors stop a run)."""
    return RunOptions(profile=profile, timeout=20.0, case_timeout=60.0)


def measure(
    name: str,
    corpus: harness.Corpus,
    profile: str,
    verify: bool,
    command: list[str] | None = None,
) -> Measured:
    """Run mutant ``name`` (or the adapter ``command``, named ``name``), group and explain
    its causes; with ``verify``, prove each hint."""
    argv = command or harness.mutant_argv(name)
    started = time.monotonic()
    run = run_scenarios(argv, corpus.scenarios, options(profile), catalogue=corpus.catalogue)
    grading = time.monotonic() - started
    started = time.monotonic()
    inference = infer(run, corpus.scenarios, corpus.catalogue, options=options(profile))
    explaining = time.monotonic() - started
    run = with_causes(run, corpus.scenarios, inference)
    stopped = any(r.status == "not_run" for r in run.results)
    found = Measured(
        name,
        profile,
        [c.summary for c in run.causes],
        [c.explained_by for c in run.causes if c.explained_by],
        grading,
        explaining,
        stopped,
    )
    if verify:
        for cause in run.causes:
            if cause.explained_by and not hint_holds(argv, corpus, profile, run, cause):
                found.false_hints.append(f"{cause.explained_by}: {cause.summary}")
    return found


def hint_holds(
    argv: list[str], corpus: harness.Corpus, profile: str, run: RunResult, cause: Cause
) -> bool:
    """Whether the engine, graded as declaring ``cause.explained_by`` on top of its own
    declarations, passes every check of ``cause`` and fails no check it passed."""
    assert run.handshake is not None and cause.explained_by is not None
    declared = declaring(run.handshake, profile, cause.explained_by.items())
    again = run_scenarios(
        argv,
        corpus.scenarios,
        replace(options(profile), graded_as=declared, max_consecutive_errors=10**6),
        catalogue=corpus.catalogue,
    )
    status = {(r.id, c.key): c.status for r in again.results for c in r.checks}
    passed = {(r.id, c.key) for r in run.results for c in r.checks if c.status == "pass"}
    return all(status.get(m) in ("pass", "not_graded", None) for m in cause.members) and all(
        status.get(k) != "fail" for k in passed
    )


def corpus_of(name: str, corpora: dict[str, harness.Corpus]) -> tuple[harness.Corpus, str]:
    """The slice of the corpus mutant ``name`` runs against, and its profile."""
    for profile, of in BY_PROFILE.items():
        if name in of.names:
            if profile not in corpora:
                corpora[profile] = harness.load(profile=profile)
            return corpora[profile], profile
    return corpora[harness.PROFILE], harness.PROFILE
