"""The main job as a library: run one profile's cases, or every profile an engine lists.

``carioca-conformance run`` is argument parsing, signal handling and printing around the
functions here: it builds a frozen :class:`RunRequest` and calls :func:`run_request`. A
library user (a notebook, a CI script) runs the corpus the same way without argparse:

    from conformance.jobs import RunRequest, run_request
    outcome = run_request(RunRequest(tuple(argv), RunOptions(profile="chilean")),
                          loaded.scenarios, catalogue=catalogue)
    verdict = judge(outcome.run, catalogue)

:func:`run_request` selects and runs one profile's cases, then the laws, the hostile
probes, the causes and the expectations, exactly as ``run --profile NAME`` does;
:func:`run_each_profile` is that request for each profile the engine lists (the engine
asked once: a profile it does not list is left out, not failed), as ``run --profile all``;
:func:`run_profile` and :func:`run_every_profile` are the same runs with plain arguments.
:func:`as_shard` and :func:`with_expectations` are steps of the run. How a run is judged
(its exit code, whether its green was earned) is :mod:`conformance.run.verdict`; how it is
printed, :mod:`conformance.reports.console`; its files, :mod:`conformance.reports.outputs`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from conformance.grading.results import RunResult, count_statuses
from conformance.knowledge.profiles import default_profiles
from conformance.run.selection import NoSelection, parse_shard, select, shard_of

if TYPE_CHECKING:
    from conformance.adapter.engine import EngineSession, Handshake
    from conformance.errors import EngineError
    from conformance.grading.results import CaseResult
    from conformance.knowledge.catalogue import Catalogue
    from conformance.run.expectations import Expectations
    from conformance.run.runner import RunOptions
    from conformance.scenarios import Scenario


def engine_handshake(argv: Sequence[str], options: RunOptions) -> Handshake:
    """Start the adapter once, shake hands and close it: what the engine declares.

    :raises EngineError: when the adapter cannot start or its handshake fails.
    """
    from conformance.run.runner import new_session

    session = new_session(argv, options)
    try:
        return session.start()
    finally:
        session.close()


def profiles_to_run(handshake: Handshake) -> tuple[list[str], list[str]]:
    """The harness's profiles the engine lists (to run, in the harness's order) and those
    it does not list (left out, and said so)."""
    known = list(default_profiles())
    listed = [name for name in known if name in handshake.profiles]
    return listed, [name for name in known if name not in handshake.profiles]


def handshake_profile(handshake: Handshake) -> str | None:
    """The one harness profile the engine's handshake lists, or None when it lists several
    (or none the harness knows): what ``run``, ``smoke`` and the pytest plugin grade when
    no profile is named, so an engine that plays only Perla is graded on Perla."""
    listed, _unlisted = profiles_to_run(handshake)
    return listed[0] if len(listed) == 1 else None


def as_shard(
    run: RunResult, shard: str | None, whole: Sequence[Scenario], chosen: Sequence[Scenario]
) -> RunResult:
    """A shard's run (``shard`` is ``K/N``) records the whole selection's digest, so the
    shards' reports merge, and says in a warning which part it graded."""
    if not shard:
        return run
    from conformance.scenarios import corpus_digest

    # Written as the report schema reads it: no leading zeros (``01/4`` is ``1/4``).
    shard = "/".join(map(str, parse_shard(shard)))
    note = f"shard {shard}: {len(chosen)} of {len(whole)} selected case(s)"
    return replace(
        run, corpus_digest=corpus_digest(whole), shard=shard, warnings=(*run.warnings, note)
    )


def with_expectations(
    run: RunResult,
    expectations: Expectations,
    *,
    known_ids: Sequence[str] = (),
    source: str = "expectations file",
) -> RunResult:
    """Apply an engine's expectations: listed failures become ``xfail``, listed passes
    ``xpass``, listed ops refused inconsistently are kept as known. With ``known_ids``
    (every id of the corpus), an entry naming no case of it
    (a retired id, a typo) is named in a warning: it expects nothing."""
    from conformance.run.expectations import apply_expectations
    from conformance.run.expected_support import keep_unsupported

    results = apply_expectations(run.results, expectations)
    run = replace(run, results=tuple(results), counts=count_statuses(results))
    run = keep_unsupported(run, expectations.expected_unsupported)
    if known_ids:
        # Whole cases, check entries and cause entries alike (the pytest plugin does the same).
        stale = sorted(expectations.ids - set(known_ids))
        if stale:
            note = (
                f"{source} names {len(stale)} id(s) that are not in the corpus: {', '.join(stale)}"
            )
            run = replace(run, warnings=(*run.warnings, note))
    return run


@dataclass(frozen=True)
class RunRequest:
    """What ``run --profile NAME`` is asked, as a value: the engine, the run's options, the
    selection, and what is done beside grading the cases.

    ``laws`` ``(seed, deals)`` also checks the laws over seeded deals (``--properties``);
    ``hostile`` sends the malformed requests (``--hostile``); ``explain`` asks the reference
    which option explains the failing checks (off with ``--no-explain``); ``expectations``
    are applied last, named in warnings as ``expectations_source``; ``corpus_label`` is the
    corpus the report names (None: the run's own).
    """

    argv: tuple[str, ...]
    options: RunOptions
    rules: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    ids: tuple[str, ...] = ()
    shard: str | None = None
    laws: tuple[int, int] | None = None
    hostile: bool = False
    explain: bool = True
    expectations: Expectations | None = None
    expectations_source: str = "expectations file"
    corpus_label: str | None = None

    def __post_init__(self) -> None:
        # Checked at construction, each bad field named (conformance/run/optioncheck.py):
        # an argv given as one string would otherwise run one character per argument.
        from conformance.run.budget import explanation_cost
        from conformance.run.expectations import Expectations
        from conformance.run.optioncheck import InvalidOption, check_laws, strings_field
        from conformance.run.runner import RunOptions

        for name in ("argv", "rules", "tags", "ids"):
            object.__setattr__(self, name, strings_field(name, getattr(self, name)))
        if not isinstance(self.options, RunOptions):
            kind = type(self.options).__name__
            raise InvalidOption(f"options: must be a RunOptions, not {kind}")
        if self.shard is not None and not isinstance(self.shard, str):
            raise InvalidOption(f"shard={self.shard!r}: must be None or 'K/N'")
        check_laws(self.laws)
        if self.expectations is not None and not isinstance(self.expectations, Expectations):
            raise InvalidOption("expectations: must be None or what load_expectations returns")
        if self.explain:
            # A malformed cost variable is refused before the run, not after its grading.
            explanation_cost()


@dataclass(frozen=True)
class RunOutcome:
    """What :func:`run_request` came to: the run, and why it stopped short if it did.

    ``adapter_error``: the adapter never got through its handshake (every case ``not_run``,
    exit 3). ``interrupted``: Ctrl-C, SIGTERM or SIGHUP stopped it; ``run`` holds what was
    graded before, the rest ``not_run``, and the adapters were reaped.
    """

    run: RunResult
    adapter_error: EngineError | None = None
    interrupted: KeyboardInterrupt | None = None


def run_request(
    request: RunRequest,
    scenarios: Sequence[Scenario],
    *,
    catalogue: Catalogue | None = None,
    progress: Callable[[int, int, CaseResult], None] | None = None,
    spawned: EngineSession | None = None,
    graded: Callable[[], None] | None = None,
    settled: Callable[[], None] | None = None,
) -> RunOutcome:
    """Everything ``run --profile NAME`` does between reading the corpus and judging: select
    the cases of ``request.options.profile`` among ``scenarios`` (and, with a shard, only
    that shard), run them, check the laws and the hostile requests, group the failures into
    causes (explained when asked) and apply the expectations.

    ``progress`` is called after each case (a :class:`~conformance.run.interrupt.Collector`
    is used as given, so a signal handler can freeze it); ``spawned`` is the first adapter,
    already started. ``graded`` is called once the cases are graded (or the adapter could
    not start), ``settled`` before the expectations, from when the run is only being
    finished (the command line then lets a signal wait until its reports are written).

    :raises NoSelection: when no case of the profile matches the selection.
    :raises SelectionError: for a malformed or empty shard.
    """
    from conformance.adapter.engine import kill_live_adapters
    from conformance.adapter.reaper import kill_escaped, subreaper_unavailable
    from conformance.errors import EngineError
    from conformance.explain import infer
    from conformance.laws.hostile import HOSTILE_IDS, hostile_run, with_cases
    from conformance.laws.properties import check_properties
    from conformance.reports.causes import NOTHING, with_causes
    from conformance.run.interrupt import Collector, signal_name
    from conformance.run.runner import run_scenarios, unstarted_run
    from conformance.run.verdict import profile_missing

    argv, options, shard = list(request.argv), request.options, request.shard
    whole = select(
        scenarios, rules=request.rules, tags=request.tags, ids=request.ids, profile=options.profile
    )
    if not whole:
        raise NoSelection("no scenario matches the selection")
    chosen = shard_of(whole, shard) if shard else whole
    collector = progress if isinstance(progress, Collector) else Collector(progress)
    started = time.time()
    interrupted: KeyboardInterrupt | None = None
    try:
        run = run_scenarios(
            argv, chosen, options, catalogue=catalogue, progress=collector, spawned=spawned
        )
    except KeyboardInterrupt as exc:
        # Ctrl-C, SIGTERM or SIGHUP: reap, then keep what was graded.
        interrupted = exc
        kill_live_adapters()
        why = f"the run was interrupted by {signal_name(exc)}"
        run = collector.partial_run(argv, chosen, options, why, started, catalogue)
    except EngineError as exc:
        for hook in (settled, graded):
            if hook is not None:
                hook()
        # Complete all the same: CI systems read the reports even of a dead adapter.
        dead = _labelled(unstarted_run(argv, chosen, options, exc, catalogue), request)
        return RunOutcome(as_shard(dead, shard, whole, chosen), adapter_error=exc)
    finally:
        # Escaped processes of every session (the harness is their subreaper).
        kill_escaped(None)
    if graded is not None:
        graded()
    run = as_shard(_labelled(run, request), shard, whole, chosen)
    lacking = profile_missing(run)
    if lacking is not None:
        # Every case is unsupported; say it once, plainly (the verdict is exit 3).
        run = replace(run, warnings=(*run.warnings, f"{lacking}; no case was graded"))
    if request.laws is not None and interrupted is None and lacking is None:
        seed, deals = request.laws
        try:
            run = replace(run, properties=check_properties(argv, options, seed=seed, deals=deals))
        except KeyboardInterrupt as exc:
            interrupted, run = exc, _stopped(run, exc, "the law checks were")
    if request.hostile and interrupted is None and lacking is None:
        try:
            run = with_cases(run, hostile_run(argv, options))
        except KeyboardInterrupt as exc:
            interrupted, run = exc, _stopped(run, exc, "the hostile probes were")
    inference = NOTHING
    if interrupted is None and request.explain:
        # Before ``settled``: asking the reference takes a while, and a signal ends it,
        # leaving the causes grouped with no option inferred.
        try:
            inference = infer(run, chosen, catalogue, options=options)
        except KeyboardInterrupt as exc:
            interrupted, run = exc, _stopped(run, exc, "the causes' inference was")
    if settled is not None:
        settled()
    if request.expectations is not None:
        run = with_expectations(
            run,
            request.expectations,
            known_ids=[*(s.id for s in scenarios), *HOSTILE_IDS],
            source=request.expectations_source,
        )
    if subreaper_unavailable():
        note = (
            "this platform cannot make the harness a child subreaper: a process that "
            "leaves the adapter's process group (setsid) and clears its environment "
            "can outlive the run"
        )
        run = replace(run, warnings=(*run.warnings, note))
    # After the expectations: a failure they list is no cause.
    return RunOutcome(with_causes(run, chosen, inference), interrupted=interrupted)


def _stopped(run: RunResult, exc: KeyboardInterrupt, what: str) -> RunResult:
    """A signal after the cases: reap the adapters, and say what it cut short."""
    from conformance.adapter.engine import kill_live_adapters
    from conformance.adapter.reaper import kill_escaped
    from conformance.run.interrupt import signal_name

    kill_live_adapters()
    kill_escaped(None)
    return replace(run, warnings=(*run.warnings, f"{what} interrupted by {signal_name(exc)}"))


def _labelled(run: RunResult, request: RunRequest) -> RunResult:
    """``run`` naming the corpus the request names."""
    if request.corpus_label is None:
        return run
    return replace(run, corpus_path=request.corpus_label)


def run_profile(
    argv: Sequence[str],
    scenarios: Sequence[Scenario],
    options: RunOptions,
    *,
    catalogue: Catalogue | None = None,
    rules: Sequence[str] = (),
    tags: Sequence[str] = (),
    ids: Sequence[str] = (),
    shard: str | None = None,
    expectations: Expectations | None = None,
    laws: tuple[int, int] | None = None,
) -> RunResult:
    """:func:`run_request` for the cases of ``options.profile`` among ``scenarios`` that the
    selection keeps (and, with ``shard`` ``K/N``, only that shard), as ``run --profile NAME``
    does, without asking the reference to explain the failures (``RunRequest.explain``).

    ``laws`` ``(seed, deals)`` also checks the laws over seeded deals (``--properties``);
    ``expectations`` are applied last. A run whose adapter cannot start is returned with
    its ``run_error`` (every case ``not_run``), as ``run`` reports it; a run interrupted by
    a signal raises it once the adapters are reaped.

    :raises NoSelection: when no case of the profile matches the selection.
    :raises SelectionError: for a malformed or empty shard.
    """
    request = RunRequest(
        tuple(argv),
        options,
        rules=tuple(rules),
        tags=tuple(tags),
        ids=tuple(ids),
        shard=shard,
        laws=laws,
        explain=False,
        expectations=expectations,
    )
    outcome = run_request(request, scenarios, catalogue=catalogue)
    if outcome.interrupted is not None:
        raise outcome.interrupted
    return outcome.run


@dataclass(frozen=True)
class EveryProfile:
    """What :func:`run_each_profile` came to: the engine's handshake, each profile's outcome
    (in the harness's order), the profiles the engine does not list (left out, not failed)
    and those with no selected case."""

    handshake: Handshake
    outcomes: dict[str, RunOutcome]
    unlisted: tuple[str, ...] = ()
    empty: tuple[str, ...] = ()

    @property
    def interrupted(self) -> KeyboardInterrupt | None:
        """The signal that stopped the last profile run, if one did."""
        return next((o.interrupted for o in self.outcomes.values() if o.interrupted), None)


def run_each_profile(
    request: RunRequest,
    scenarios: Sequence[Scenario],
    *,
    catalogue: Catalogue | None = None,
    handshake: Handshake | None = None,
    runner: Callable[[RunRequest], RunOutcome] | None = None,
    each: Callable[[str, RunOutcome], bool] | None = None,
) -> EveryProfile:
    """``run --profile all``: ``request`` for each profile the engine's handshake lists, in
    the harness's order (``request.options.profile`` is replaced by each in turn).

    ``handshake``: the engine's, when already asked (else the adapter is started once to
    ask it). ``runner`` runs one profile's request (default :func:`run_request`; the
    command line passes one that shows progress and handles signals); ``each`` is called
    with each profile's outcome and stops the loop by returning False. A profile with no
    selected case is left out (``empty``); a run interrupted by a signal stops the loop.

    :raises EngineError: when the adapter cannot start for the handshake.
    :raises NoSelection: when no profile has a selected case.
    """
    if handshake is None:
        handshake = engine_handshake(request.argv, request.options)
    names, unlisted = profiles_to_run(handshake)
    if runner is None:

        def runner(one: RunRequest) -> RunOutcome:
            return run_request(one, scenarios, catalogue=catalogue)

    outcomes: dict[str, RunOutcome] = {}
    empty: list[str] = []
    for name in names:
        one = replace(request, options=replace(request.options, profile=name))
        try:
            outcome = runner(one)
        except NoSelection:
            empty.append(name)
            continue
        outcomes[name] = outcome
        go_on = each(name, outcome) if each is not None else True
        if outcome.interrupted is not None or not go_on:
            break
    if not outcomes:
        raise NoSelection("no scenario of any profile matches the selection")
    return EveryProfile(handshake, outcomes, tuple(unlisted), tuple(empty))


def run_every_profile(
    argv: Sequence[str],
    scenarios: Sequence[Scenario],
    options: RunOptions | None = None,
    *,
    catalogue: Catalogue | None = None,
    rules: Sequence[str] = (),
    tags: Sequence[str] = (),
    ids: Sequence[str] = (),
    laws: tuple[int, int] | None = None,
) -> dict[str, RunResult]:
    """:func:`run_each_profile` with plain arguments, as :func:`run_profile` is for one
    profile (no explanation asked); a run interrupted by a signal raises it once the
    adapters are reaped.

    :raises EngineError: when the adapter cannot start for the first handshake.
    :raises NoSelection: when no profile has a selected case.
    """
    from conformance.run.runner import RunOptions

    request = RunRequest(
        tuple(argv),
        options or RunOptions(),
        rules=tuple(rules),
        tags=tuple(tags),
        ids=tuple(ids),
        laws=laws,
        explain=False,
    )
    every = run_each_profile(request, scenarios, catalogue=catalogue)
    if every.interrupted is not None:
        raise every.interrupted
    return {name: outcome.run for name, outcome in every.outcomes.items()}


__all__ = [
    "EveryProfile",
    "RunOutcome",
    "RunRequest",
    "as_shard",
    "engine_handshake",
    "handshake_profile",
    "profiles_to_run",
    "run_each_profile",
    "run_every_profile",
    "run_profile",
    "run_request",
    "with_expectations",
]
