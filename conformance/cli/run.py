"""``carioca-conformance run``: the corpus run against an adapter, graded and reported.

The options are declared in :mod:`conformance.cli.run_options`. Only a run's signal
handling (Ctrl-C, SIGTERM, SIGHUP: reap, then report what was graded) is choreographed
here, with :mod:`conformance.run.interrupt`.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from typing import TYPE_CHECKING, Any

from conformance.cli.common import (
    ALL_PROFILES,
    UsageError,
    catalogue_of,
    corpus_label,
    given,
    handshake_default,
    load,
    parse_adapter,
    profile_name,
)
from conformance.knowledge.catalogue import Catalogue
from conformance.knowledge.profiles import DEFAULT_PROFILE
from conformance.reports.outputs import (
    OutputPathError,
    RunFiles,
    check_output_paths,
    emit,
    write_run_reports,
)
from conformance.run import selection
from conformance.run.exitcodes import (
    EXIT_ADAPTER,
    EXIT_FAILED,
    EXIT_OK,
    EXIT_UNGRADED,
    EXIT_USAGE,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

    from conformance.adapter.engine import EngineSession
    from conformance.jobs import RunOutcome, RunRequest
    from conformance.run.verdict import Verdict
    from conformance.scenarios import Scenario


def cmd_run(args: argparse.Namespace) -> int:
    """Run the selected scenarios against an adapter and report."""
    from contextlib import nullcontext

    from conformance.scenarios.loadcache import ci_environment, turned_off

    _check_run_options(args)
    # The load cache trusts the user's account, and an engine under test runs as that user:
    # a CI verdict, or one asked for with --no-cache, reads nothing an earlier process wrote.
    uncached = args.no_cache or ci_environment()
    with turned_off() if uncached else nullcontext():
        if args.profile == ALL_PROFILES:
            return _run_every_profile(args)
        return _run_profile(args)


def _check_run_options(args: argparse.Namespace) -> None:
    """Refuse bad numbers and gates before anything starts."""
    from conformance.run.verdict import parse_share

    for name in ("workers", "max_consecutive_errors", "max_response_bytes"):
        if getattr(args, name) < 1:
            raise UsageError(f"--{name.replace('_', '-')} must be at least 1")
    for name in ("timeout", "case_timeout", "start_timeout"):
        if getattr(args, name) <= 0:
            raise UsageError(f"--{name.replace('_', '-')} must be positive")
    if args.quiet and args.verbose:
        raise UsageError("-q/--quiet and -v/--verbose cannot be given together")
    if isinstance(args.min_graded, str):
        try:
            args.min_graded = parse_share(args.min_graded)
        except ValueError as exc:
            raise UsageError(str(exc)) from None


def _verbosity(args: argparse.Namespace) -> str:
    from conformance.reports.console import NORMAL, QUIET, VERBOSE

    return QUIET if args.quiet else VERBOSE if args.verbose else NORMAL


def _run_every_profile(args: argparse.Namespace) -> int:
    """``run --profile all``: the library's :func:`conformance.jobs.run_each_profile`, each
    profile run, judged and printed as ``--profile NAME`` would be; the worst exit code
    wins."""
    from conformance.errors import EngineError
    from conformance.jobs import engine_handshake, run_each_profile
    from conformance.reports.console import QUIET, all_header, profiles_line
    from conformance.run.verdict import worst

    others = [("--expectations", args.expectations), ("--shard", args.shard)]
    given = [flag for flag, value in [*_files(args).options(), *others] if value]
    if given:
        raise UsageError(
            f"--profile all writes no report and reads no expectations: drop "
            f"{', '.join(given)}, or run one --profile at a time"
        )
    # The profile is each listed one in turn (run_each_profile); the default stands in.
    request = run_request_of(argparse.Namespace(**{**vars(args), "profile": DEFAULT_PROFILE}))
    # One handshake first: a profile the engine does not list is left out, not failed.
    try:
        handshake = engine_handshake(request.argv, request.options)
    except EngineError as exc:
        print(f"error: the adapter could not start: {exc}", file=sys.stderr)
        return EXIT_ADAPTER
    catalogue = catalogue_of(args)
    scenarios = _corpus(args, catalogue)
    if scenarios is None:
        return EXIT_USAGE
    emit(all_header(handshake, corpus_label(args), quiet=_verbosity(args) == QUIET))
    codes: dict[str, int] = {}
    stopped: list[int] = []

    def runner(one: RunRequest) -> RunOutcome:
        outcome, codes[one.options.profile] = _run_judged(
            args, one, scenarios, catalogue, None, part_of_all=True
        )
        return outcome

    def each(name: str, _outcome: RunOutcome) -> bool:
        # A signal (even one that waited for the reports) stops at once, as a single run.
        if codes[name] in (EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_ADAPTER, EXIT_UNGRADED):
            return True
        stopped.append(codes[name])
        return False

    every = run_each_profile(
        request, scenarios, catalogue=catalogue, handshake=handshake, runner=runner, each=each
    )
    if stopped:
        return stopped[0]
    for name in every.empty:
        emit(f"profile {name}: no case matches the selection\n")
    emit(profiles_line(codes, every.unlisted))
    return worst(list(codes.values()))


def _run_profile(args: argparse.Namespace) -> int:
    """Run the selected scenarios of ``args.profile`` against an adapter and report."""
    from dataclasses import replace

    from conformance.errors import EngineError
    from conformance.run.runner import new_session

    # Every input is checked before the adapter is first started (to ask its profile).
    named = args.profile
    request = run_request_of(
        argparse.Namespace(**{**vars(args), "profile": named or DEFAULT_PROFILE})
    )
    handshake_default(args, timeout=args.timeout, start_timeout=args.start_timeout)
    if args.profile != named:
        request = replace(request, options=replace(request.options, profile=args.profile))
    # The cache entries the corpus loads from are read before any adapter starts (so the
    # engine cannot change them under its own run); the first adapter then starts up while
    # they are decoded, and the run shakes hands with it.
    paths, corpus = given(args)
    selection.pin_corpus(paths, corpus, catalogue=catalogue_of(args))
    session = new_session(list(request.argv), request.options)
    early: EngineSession | None = session
    try:
        session.spawn()
    except EngineError:
        early = None  # the run starts it again and reports why it cannot
    try:
        catalogue = catalogue_of(args)
        scenarios = _corpus(args, catalogue)
        if scenarios is None:
            return EXIT_USAGE
        return _run_judged(args, request, scenarios, catalogue, early, part_of_all=False)[1]
    finally:
        if early is not None:
            early.close()  # a no-op once the run has closed it


def run_request_of(args: argparse.Namespace) -> RunRequest:
    """The library's request for ``run --profile NAME``
    (:class:`conformance.jobs.RunRequest`), its files and expectations checked first."""
    from conformance.jobs import RunRequest
    from conformance.run.expectations import ExpectationsError, load_expectations
    from conformance.run.runner import RunOptions

    argv = parse_adapter(args.adapter)
    profile_name(args)
    if getattr(args, "by_cause", False) and not args.write_expectations:
        raise UsageError("--by-cause says how --write-expectations FILE lists the failures")
    # Before the first case: a long run must not end in a report it cannot write.
    try:
        check_output_paths(
            _files(args).options(),
            _inputs(args),
            rewrites=[("--write-expectations", "--expectations")],
        )
    except OutputPathError as exc:
        raise UsageError(str(exc)) from None
    expectations = None
    if args.expectations:
        try:
            expectations = load_expectations(args.expectations)
        except ExpectationsError as exc:
            raise UsageError(str(exc)) from None
    options = RunOptions(
        profile=args.profile,
        timeout=args.timeout,
        case_timeout=args.case_timeout,
        max_response_bytes=args.max_response_bytes,
        max_consecutive_errors=args.max_consecutive_errors,
        workers=args.workers,
        fresh_process=args.fresh_process,
        start_timeout=args.start_timeout,
        memory_limit=args.memory_limit,
    )
    return RunRequest(
        tuple(argv),
        options,
        rules=tuple(args.rule or ()),
        tags=tuple(args.tag or ()),
        ids=tuple(args.scenario or ()),
        shard=args.shard,
        laws=(args.seed, args.deals) if args.properties else None,
        hostile=args.hostile,
        explain=not getattr(args, "no_explain", False),
        expectations=expectations,
        expectations_source=f"expectations file {args.expectations}",
        corpus_label=corpus_label(args),
    )


def _corpus(args: argparse.Namespace, catalogue: Catalogue) -> list[Scenario] | None:
    """The corpus's scenarios; None (exit 2, said) when it is broken and ``--skip-broken``
    was not given."""
    loaded = load(args, catalogue)
    if loaded.errors:
        for error in loaded.errors:
            print(error, file=sys.stderr)
        if not args.skip_broken:
            print(
                f"the corpus has {len(loaded.errors)} problem(s); fix them or pass --skip-broken",
                file=sys.stderr,
            )
            return None
        print(f"skipping broken scenarios ({len(loaded.errors)} problem(s))", file=sys.stderr)
    return list(loaded.scenarios)


def _run_judged(
    args: argparse.Namespace,
    request: RunRequest,
    scenarios: Sequence[Scenario],
    catalogue: Catalogue,
    early: EngineSession | None,
    *,
    part_of_all: bool,
) -> tuple[RunOutcome, int]:
    """The library's run of ``request`` (the first adapter ``early`` already spawned),
    judged and reported, and its exit code. A signal stops the run, and what was graded is
    still reported; once the run is being finished a signal waits until the reports are
    written."""
    from conformance.jobs import run_request
    from conformance.reports.report import Progress
    from conformance.run.interrupt import Collector, exit_code, interruptible, signal_name
    from conformance.run.verdict import Gates, judge

    progress = Progress()
    collector = Collector(progress)
    with interruptible(on_signal=collector.freeze) as signals:
        outcome = run_request(
            request,
            scenarios,
            catalogue=catalogue,
            progress=collector,
            spawned=early,
            graded=progress.finish,
            settled=signals.defer,
        )
        if outcome.adapter_error is not None:
            return outcome, _adapter_did_not_start(args, request, outcome, catalogue)
        gates = Gates(min_graded=args.min_graded, all_players=args.all_players)
        verdict = judge(outcome.run, catalogue, strict=args.strict, gates=gates)
        stopped = signal_name(outcome.interrupted) if outcome.interrupted is not None else None
        written = _report_run(
            args, outcome.run, catalogue, request.expectations, verdict, part_of_all, stopped
        )
    interrupted = outcome.interrupted
    if interrupted is not None or signals.received is not None:
        name = signal_name(interrupted) if interrupted is not None else signals.name()
        print(f"interrupted ({name})", file=sys.stderr)
        code = exit_code(interrupted) if interrupted is not None else signals.exit_code()
        assert code is not None
        return outcome, code
    if not written:
        return outcome, EXIT_USAGE
    for reason in verdict.reasons:
        print(f"error: {reason} (exit {verdict.code})", file=sys.stderr)
    return outcome, verdict.code


def _inputs(args: argparse.Namespace) -> list[tuple[str, str | None]]:
    """What ``run`` reads, by option, which no output may name: the expectations file
    and the corpus's files and folders."""
    paths, corpus = given(args)
    return [
        ("--expectations", args.expectations),
        ("--corpus", corpus),
        *(("scenario path", path) for path in paths),
    ]


def _files(args: argparse.Namespace) -> RunFiles:
    return RunFiles(
        args.json,
        args.junit,
        args.html,
        args.write_expectations,
        by_cause=bool(getattr(args, "by_cause", False)),
    )


def _adapter_did_not_start(
    args: argparse.Namespace, request: RunRequest, outcome: RunOutcome, catalogue: Catalogue
) -> int:
    """Report a run whose adapter never got through its handshake; exit 3."""
    exc = outcome.adapter_error
    assert exc is not None
    print(f"error: adapter {shlex.join(request.argv)!r} could not start: {exc}", file=sys.stderr)
    if exc.stderr_tail:
        print(exc.stderr_tail.rstrip(), file=sys.stderr)
    # The reports are still written, complete: CI systems read them even on a dead adapter.
    written = write_run_reports(outcome.run, catalogue, _files(args), strict=args.strict)
    for failure in written.failures:
        print(f"error: {failure}", file=sys.stderr)
    return EXIT_ADAPTER


def _report_run(
    args: argparse.Namespace,
    run: Any,
    catalogue: Catalogue,
    expectations: Any,
    verdict: Verdict,
    part_of_all: bool = False,
    interrupted: str | None = None,
) -> bool:
    """Write the reports, then print the summary; False when a report could not be written.

    Every file is attempted even if another fails; the summary is printed after the
    files are safe, and printing never raises on text the terminal cannot encode.
    """
    from conformance.reports.console import run_text

    written = write_run_reports(
        run,
        catalogue,
        _files(args),
        strict=args.strict,
        expectations=expectations,
        interrupted=interrupted,
    )
    if written.not_written is not None:
        print(written.not_written, file=sys.stderr)
    emit(run_text(run, catalogue, verdict, verbosity=_verbosity(args), part_of_all=part_of_all))
    if written.expected_failures is not None:
        emit(
            f"wrote {written.expected_failures} expected failure(s) to {args.write_expectations}"
            + (" (one entry per cause)" if getattr(args, "by_cause", False) else "")
            + "\n"
        )
        unlisted = int(run.counts.get("error", 0)) + int(run.counts.get("not_run", 0))
        if unlisted:
            print(
                f"not written: {unlisted} case(s) that errored or did not run, unless the "
                "file read listed them (their entries are kept as they were); an expected "
                "failure never covers them (fix the adapter, or add an entry with "
                "status: error by hand)",
                file=sys.stderr,
            )
    for failure in written.failures:
        print(f"error: {failure}", file=sys.stderr)
    return not written.failures
