"""Which ruling explains a failure: the reference plays each other option, and is compared.

An engine that silently plays a house option (a joker worth 30) fails every check that
option touches, and its author may not know which of the 77 points of docs/rules.md it is
on. For the failing checks of a run, and only when there are some, this module asks the
reference to play, one at a time, each other option of each disputed point and house
variant the failing cases read (and each interface reading the engine does not declare),
**graded as the engine declared** (conformance.run.runner.RunOptions.graded_as). A failing
check is *explained* by an option when the reference playing it fails that check the same
way the engine did (the same difference, the engine's own words aside; for an interface
reading the same kind of difference, conformance.reports.symptoms.symptom, since the arrangement is
the engine's own), and the reference so playing breaks no check the engine passed in those
cases. Where two options together explain checks that neither explains alone, both are
named. No reference reproduces an engine's own order of a run's cards: a table that differs
only in that order is named ``run_order=engine`` from the difference itself.

It is a hint, graded nothing: the checks still fail until the engine declares the option.
The cost is bounded: only the failing cases are played (at most :data:`MAX_CASES`), first
once with the engine's own declarations and rule tracing on, which says the points those
cases read; then once per option of those points (at most :data:`MAX_CANDIDATES`), and
once per pair of the best few (:data:`MAX_PAIRED`). The reference is started as a
subprocess through the protocol like any engine (the harness never imports it), reusing
the audit's way of playing a set of cases on one adapter (conformance.audit.runs.play).
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import combinations
from pathlib import Path

from conformance.adapter.command import reference_argv
from conformance.adapter.declarations import INTERFACE_DEFAULTS, Declarations, declarations
from conformance.audit.runs import interface_flags, play
from conformance.authoring.execution_coverage import TRACE_OPTION, TraceError, read_trace
from conformance.grading.results import CaseResult, CheckId, RunResult
from conformance.knowledge.catalogue import Catalogue
from conformance.reports.symptoms import (
    NOTHING,
    ORDER_ONLY,
    Choice,
    Explanation,
    Inference,
    explanation,
    symptom,
)
from conformance.run.runner import RunOptions
from conformance.scenarios import Scenario

#: Most failing cases replayed (in run order).
MAX_CASES = 60
#: Most single options tried (those whose point names a rule of the failing checks first).
MAX_CANDIDATES = 48
#: The options that explain most, tried two at a time.
MAX_PAIRED = 4
#: Interface readings an engine may play without declaring (docs/protocol.md §2).
INTERFACE_CHOICES: Mapping[str, tuple[str, ...]] = {
    "run_order": ("engine",),
    "run_ends": ("engine",),
}

_ENGINE_WORDS = re.compile(r", engine says:.*$", re.MULTILINE)


def same_way(diff: str | None) -> str:
    """A check's difference without the engine's own words (which differ between engines)."""
    return _ENGINE_WORDS.sub("", diff or "").strip()


def failing_checks(results: Iterable[CaseResult]) -> dict[CheckId, str]:
    """Every failing check (not an expected failure) with its difference."""
    return {
        (r.id, c.key): same_way(c.diff) for r in results for c in r.checks if c.status == "fail"
    }


@dataclass(frozen=True)
class _Trial:
    """What the reference playing some options did to the engine's checks."""

    choices: tuple[Choice, ...]
    #: Failing checks the reference fails the same way.
    matched: frozenset[CheckId]
    #: Checks the engine passed that the reference fails.
    broken: int


def infer_rulings(
    run: RunResult,
    scenarios: Sequence[Scenario],
    catalogue: Catalogue,
    *,
    reference: Sequence[str] | None = None,
    options: RunOptions | None = None,
) -> Inference:
    """Which options explain the failing checks of ``run`` (see the module docstring).

    ``reference``: the adapter command to ask (default: the reference adapter); it must take
    the reference's ``--ruling``, ``--interface`` and ``--trace-rules`` flags. Empty when
    nothing failed, when the engine never shook hands, or when the reference cannot start.
    """
    failing = failing_checks(run.results)
    if not failing or run.handshake is None:
        return NOTHING
    argv = list(reference or reference_argv())
    by_id = {s.id: s for s in scenarios}
    ids = list(dict.fromkeys(case for case, _ in failing))
    cases = [by_id[i] for i in ids if i in by_id][:MAX_CASES]
    if not cases:
        return NOTHING
    kept = {s.id for s in cases}
    failing = {k: v for k, v in failing.items() if k[0] in kept}
    engine_checks = {(r.id, c.key): c for r in run.results for c in r.checks}
    passed = {
        (r.id, c.key)
        for r in run.results
        if r.id in kept
        for c in r.checks
        if c.status in ("pass", "xpass")
    }
    graded_as = run.handshake
    base = options or RunOptions(profile=run.profile)
    run_options = replace(
        base, profile=run.profile, graded_as=graded_as, max_consecutive_errors=10**9, workers=1
    )
    declared = declarations(graded_as.for_profile(run.profile), run.profile, catalogue)
    own = {p: o for p, o in declared.declared.items() if o != declared.profile_options.get(p)}

    def trial(choices: tuple[Choice, ...], trace: str | None = None) -> list[CaseResult] | None:
        rulings = {**own, **{p: o for p, o in choices if p not in INTERFACE_DEFAULTS}}
        reading = [(p, o) for p, o in choices if p in INTERFACE_DEFAULTS]
        flags = [f for p, o in sorted(rulings.items()) for f in ("--ruling", f"{p}={o}")]
        extra = [TRACE_OPTION, trace] if trace else []
        outcome = play(
            [*argv, *flags, *interface_flags(reading), *extra], [(cases, run_options)], catalogue
        )
        return None if isinstance(outcome, str) else outcome[0]

    def judge(choices: tuple[Choice, ...], results: list[CaseResult]) -> _Trial:
        twin = {(r.id, c.key): c for r in results for c in r.checks}
        # An interface reading is the engine's own arrangement, never the reference's: the
        # same kind of difference in the same check is the match there.
        loose = any(p in INTERFACE_DEFAULTS for p, _ in choices)
        matched = frozenset(
            k
            for k, diff in failing.items()
            if (c := twin.get(k)) is not None
            and c.status == "fail"
            and (
                same_way(c.diff) == diff
                or (loose and symptom(c)[0] == symptom(engine_checks[k])[0])
            )
        )
        broken = sum(1 for k in passed if (c := twin.get(k)) is not None and c.status == "fail")
        return _Trial(choices, matched, broken)

    with tempfile.TemporaryDirectory(prefix="carioca-explain-") as folder:
        trace = str(Path(folder) / "trace.jsonl")
        first = trial((), trace)
        if first is None:
            return NOTHING
        try:
            lines = read_trace(trace)
        except (OSError, TraceError):
            lines = []
    # A check the reference fails the same way under the engine's own declarations is no
    # option's doing (the case and the reference disagree): nothing to explain there.
    same = judge((), first).matched
    failing = {k: v for k, v in failing.items() if k not in same}
    tried = frozenset(kept)
    if not failing:
        return Inference({}, tried)
    read = {rule for line in lines for rule in (*line.decided, *line.refused)}
    candidates = _candidates(read, declared, catalogue, run.profile, failing, run.results)
    trials: list[_Trial] = []
    for choice in candidates:
        results = trial((choice,))
        if results is not None:
            found = judge((choice,), results)
            if found.matched and not found.broken:
                trials.append(found)
    trials.sort(key=lambda t: (-len(t.matched), t.choices))
    explained: dict[CheckId, Explanation] = {}
    for found in trials:
        for key in found.matched:
            explained.setdefault(key, explanation(found.choices, catalogue))
    if declared.run_order == INTERFACE_DEFAULTS["run_order"]:
        # No reference reproduces an engine's own arrangement of a run; but a difference
        # that is only the order of a run's cards is what run_order=engine grades away.
        arranged = explanation([("run_order", "engine")], catalogue)
        for key in failing:
            if key not in explained and symptom(engine_checks[key])[0] == ORDER_ONLY:
                explained[key] = arranged
    best = [t for t in trials if t.matched][:MAX_PAIRED]
    for one, two in combinations(best, 2):
        if one.choices[0][0] == two.choices[0][0]:
            continue
        both = tuple(sorted((*one.choices, *two.choices)))
        results = trial(both)
        if results is None:
            continue
        found = judge(both, results)
        alone = one.matched | two.matched
        if found.broken or not (found.matched - alone):
            continue
        for key in found.matched - alone:
            explained.setdefault(key, explanation(both, catalogue))
    return Inference(explained, tried)


def infer(
    run: RunResult,
    scenarios: Sequence[Scenario],
    catalogue: Catalogue | None,
    *,
    reference: Sequence[str] | None = None,
    options: RunOptions | None = None,
) -> Inference:
    """The options that explain the failing checks of ``run`` (:func:`infer_rulings`);
    nothing asked, and nothing started, when no check failed or there is no catalogue."""
    if catalogue is None or not any(c.status == "fail" for r in run.results for c in r.checks):
        return NOTHING
    return infer_rulings(run, scenarios, catalogue, reference=reference, options=options)


def _candidates(
    read: set[str],
    declared: Declarations,
    catalogue: Catalogue,
    profile: str,
    failing: Mapping[CheckId, str],
    results: Sequence[CaseResult],
) -> list[Choice]:
    """Every other option of each point the failing cases read (those naming a rule of a
    failing check first), then each interface reading the engine does not declare."""
    ruling = declared.ruling
    failing_rules = {
        rule for r in results for c in r.checks if (r.id, c.key) in failing for rule in c.rules
    }
    points = catalogue.disputes_for(profile)
    found: list[tuple[int, Choice]] = []
    for point in sorted(read):
        dispute = points.get(point)
        if dispute is None or profile in dispute.fixed:
            continue
        near = 0 if failing_rules & set(dispute.rules) else 1
        found.extend(
            (near, (point, option)) for option in dispute.options if option != ruling(point)
        )
    found.sort()
    chosen = [choice for _, choice in found][:MAX_CANDIDATES]
    for key, others in INTERFACE_CHOICES.items():
        if getattr(declared, key, INTERFACE_DEFAULTS[key]) == INTERFACE_DEFAULTS[key]:
            chosen.extend((key, option) for option in others)
    return chosen
