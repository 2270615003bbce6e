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
import time
from collections.abc import Iterable, Mapping, Sequence, Set
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from itertools import combinations
from pathlib import Path
from types import MappingProxyType

from conformance.adapter.command import reference_argv
from conformance.adapter.declarations import INTERFACE_DEFAULTS, Declarations, declarations
from conformance.adapter.handshake import Handshake
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
from conformance.run.budget import explanation_budget
from conformance.run.runner import RunOptions
from conformance.scenarios import Scenario

#: A trial is begun only when this many times the longest so far still ends in time.
MARGIN = 1.5
#: Most option sets the engine is graded again as declaring (the best the reference found).
MAX_CONFIRMED = 6
#: Reference trials played side by side.
SIDE_BY_SIDE = 2
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
    budget: float | None = None,
) -> Inference:
    """Which options explain the failing checks of ``run`` (see the module docstring).

    ``reference``: the adapter command to ask (default: the reference adapter); it must take
    the reference's ``--ruling``, ``--interface`` and ``--trace-rules`` flags. ``budget``:
    the seconds it may take (default: twice the run's, conformance.run.budget); it stops
    with what it has proved. Empty when nothing failed, when the engine never shook hands,
    or when the reference cannot start.
    """
    started = time.monotonic()
    deadline = started + (budget if budget is not None else explanation_budget(run.duration))
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
        begun = time.monotonic()
        first = trial((), trace)
        # The longest trial so far, grown as trials are timed: none is begun that would
        # end past the time allowed at that length.
        longest = [time.monotonic() - begun]
        if first is None:
            return NOTHING
        try:
            lines = read_trace(trace)
        except (OSError, TraceError):
            lines = []

    def fits() -> bool:
        # With a margin: two trials run side by side, and the next may be slower.
        return time.monotonic() + MARGIN * longest[0] < deadline

    def timed(started: float) -> None:
        longest[0] = max(longest[0], time.monotonic() - started)

    # A check the reference fails the same way under the engine's own declarations is no
    # option's doing (the case and the reference disagree): nothing to explain there.
    same = judge((), first).matched
    failing = {k: v for k, v in failing.items() if k not in same}
    tried = frozenset(kept)
    if not failing:
        return Inference({}, tried)
    read = {rule for line in lines for rule in (*line.decided, *line.refused)}
    leaned = {
        point
        for s in cases
        for check in s.plan_for(run.profile)
        if (s.id, check.key) in failing
        for point in check.leans
    }
    candidates = _candidates(read, declared, catalogue, run.profile, failing, run.results, leaned)
    if declared.run_order == INTERFACE_DEFAULTS["run_order"] and any(
        symptom(engine_checks[k])[0] == ORDER_ONLY for k in failing
    ):
        # No reference reproduces an engine's own arrangement of a run; but a difference
        # that is only the order of a run's cards is what run_order=engine grades away:
        # proved, as any option, by grading the engine so.
        candidates = [("run_order", "engine"), *[c for c in candidates if c[0] != "run_order"]]

    def screen(choice: Choice) -> _Trial | None:
        if not fits():
            return None  # it would end past the time allowed: stop with what is proved
        if choice == ("run_order", "engine"):
            ordered = frozenset(k for k in failing if symptom(engine_checks[k])[0] == ORDER_ONLY)
            return _Trial((choice,), ordered, 0)
        begun = time.monotonic()
        results = trial((choice,))
        timed(begun)
        if results is None:
            return _Trial((choice,), frozenset(), 0)
        return judge((choice,), results)

    # Two at a time: each is its own reference process, and the machine's cores are idle.
    with ThreadPoolExecutor(max_workers=SIDE_BY_SIDE) as pool:
        screened_trials = list(pool.map(screen, candidates))
    screened = sum(1 for t in screened_trials if t is not None)
    # The reference screens; the engine proves (below). An option the reference, played
    # with the expected state loaded back after each failure, shows breaking a check is
    # still tried, after the others: its later consequences are the engine's to show.
    trials = [t for t in screened_trials if t is not None and t.matched]
    trials.sort(key=lambda t: (bool(t.broken), -len(t.matched), t.choices))
    best = [t for t in trials if not t.broken][:MAX_PAIRED]
    for one, two in combinations(best, 2):
        if not fits():
            break
        if one.choices[0][0] == two.choices[0][0]:
            continue
        both = tuple(sorted((*one.choices, *two.choices)))
        begun = time.monotonic()
        results = trial(both)
        timed(begun)
        if results is None:
            continue
        found = judge(both, results)
        if not found.broken and found.matched - (one.matched | two.matched):
            trials.append(found)
    # The proof: the engine itself, graded as declaring the options, on every case they
    # bear on, must pass the checks they explain and fail none it passed.
    proved: list[tuple[Explanation, frozenset[CheckId]]] = []
    confirmed = 0
    for found in trials[:MAX_CONFIRMED]:
        # The engine's own pace: the run's time per case, over the cases played again.
        points = {p for p, _ in found.choices}
        bearing = sum(1 for s in scenarios if s.id in kept or _leans_on(s, points, run.profile))
        pace = run.duration / max(len(run.results), 1) * bearing
        if time.monotonic() + MARGIN * max(pace, longest[0]) >= deadline:
            break
        confirmed += 1
        begun = time.monotonic()
        fixed = _declared_fixes(run, found.choices, scenarios, catalogue, base, failing)
        timed(begun)
        if fixed:
            proved.append((explanation(found.choices, catalogue), fixed))
    complete = screened == len(candidates) and confirmed == len(trials)
    return Inference(
        {}, tried, tuple(proved), frozenset(failing) | same if complete else frozenset()
    )


def declaring(handshake: Handshake, profile: str, choices: Iterable[Choice]) -> Handshake:
    """``handshake`` in ``profile`` as if it also declared ``choices`` (rulings, or the
    interface readings run_order and run_ends)."""
    view = handshake.for_profile(profile)
    picked = dict(choices)
    rulings = {**view.rulings, **{p: o for p, o in picked.items() if p not in INTERFACE_DEFAULTS}}
    return replace(
        view,
        rulings=MappingProxyType(rulings),
        profile_rulings=MappingProxyType({}),
        run_order=picked.get("run_order", view.run_order),
        run_ends=picked.get("run_ends", view.run_ends),
    )


def _declared_fixes(
    run: RunResult,
    choices: tuple[Choice, ...],
    scenarios: Sequence[Scenario],
    catalogue: Catalogue,
    base: RunOptions,
    failing: Mapping[CheckId, str],
) -> frozenset[CheckId]:
    """The failing checks the engine no longer fails once graded as declaring ``choices``, played
    on the cases those checks are in and every case leaning on a point of ``choices``;
    empty when that grading fails a check the engine passed (the option is then no
    explanation), or the engine cannot be started again."""
    points = {p for p, _ in choices}
    ids = {case for case, _ in failing}
    bearing = [s for s in scenarios if s.id in ids or _leans_on(s, points, run.profile)]
    if not bearing:
        return frozenset()
    options = replace(
        base,
        profile=run.profile,
        graded_as=declaring(run.handshake or _never(), run.profile, choices),
        max_consecutive_errors=10**9,
    )
    outcome = play(list(run.argv), [(bearing, options)], catalogue)
    if isinstance(outcome, str):
        return frozenset()
    now = {(r.id, c.key): c.status for r in outcome[0] for c in r.checks}
    was = {(r.id, c.key): c.status for r in run.results for c in r.checks}
    if any(status == "fail" and was.get(k) in ("pass", "xpass") for k, status in now.items()):
        return frozenset()
    # Not graded is no failure: a check with no value for the option declared is graded
    # away by declaring it, as docs/reports.md says of the cause ``option``.
    return frozenset(k for k in failing if now.get(k) in ("pass", "xpass", "not_graded"))


def _leans_on(scenario: Scenario, points: set[str], profile: str) -> bool:
    """Whether a check of ``scenario`` leans on one of ``points`` (its disputed point, an
    assumption or a ``by_option``), or an interface reading when ``points`` name one."""
    if points & set(INTERFACE_DEFAULTS):
        return True
    if scenario.disputed is not None and scenario.disputed.id in points:
        return True
    return any(points & set(check.leans) for check in scenario.plan_for(profile))


def _never() -> Handshake:
    raise AssertionError("a run that failed checks shook hands")


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
    leaned: Set[str] = frozenset(),
) -> list[Choice]:
    """Every other option of each point the failing cases read (those a failing check
    leans on first, then those naming a rule of a failing check), then each interface
    reading the engine does not declare."""
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
        near = 0 if point in leaned else 1 if failing_rules & set(dispute.rules) else 2
        found.extend(
            (near, (point, option)) for option in dispute.options if option != ruling(point)
        )
    found.sort()
    chosen = [choice for _, choice in found][:MAX_CANDIDATES]
    for key, others in INTERFACE_CHOICES.items():
        if getattr(declared, key, INTERFACE_DEFAULTS[key]) == INTERFACE_DEFAULTS[key]:
            chosen.extend((key, option) for option in others)
    return chosen
