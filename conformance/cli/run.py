"""``carioca-conformance run``: the corpus run against an adapter, graded and reported.

The options are declared in :mod:`conformance.cli.run_options`. Only a run's signal
handling (Ctrl-C, SIGTERM, SIGHUP: reap, then report what was graded) is choreographed
here, with :mod:`conformance.run.interrupt`.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from conformance.adapter.reaper import kill_escaped, subreaper_unavailable
from conformance.cli.common import (
    ALL_PROFILES,
    UsageError,
    catalogue_of,
    corpus_label,
    given,
    load,
    parse_adapter,
    profile_name,
)
from conformance.knowledge.catalogue import Catalogue
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
from conformance.run.selection import NoSelection, select, shard_of
from conformance.scenarios import Scenario

if TYPE_CHECKING:
    from conformance.adapter.engine import EngineSession
    from conformance.run.expectations import Expectations
    from conformance.run.runner import RunOptions
    from conformance.run.verdict import Verdict


def cmd_run(args: argparse.Namespace) -> int:
    """Run the selected scenarios against an adapter and report."""
    _check_run_options(args)
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
    """``run --profile all``: each profile's slice in turn, as ``--profile NAME`` would run
    it, for every profile the engine's handshake lists; the worst exit code wins."""
    from conformance.errors import EngineError
    from conformance.jobs import engine_handshake, profiles_to_run
    from conformance.reports.console import QUIET, all_header, profiles_line
    from conformance.run.runner import RunOptions
    from conformance.run.verdict import worst

    others = [("--expectations", args.expectations), ("--shard", args.shard)]
    given = [flag for flag, value in [*_files(args).options(), *others] if value]
    if given:
        raise UsageError(
            f"--profile all writes no report and reads no expectations: drop "
            f"{', '.join(given)}, or run one --profile at a time"
        )
    argv = parse_adapter(args.adapter)
    options = RunOptions(
        timeout=args.timeout,
        start_timeout=args.start_timeout,
        max_response_bytes=args.max_response_bytes,
    )
    # One handshake first: a profile the engine does not list is left out, not failed.
    try:
        handshake = engine_handshake(argv, options)
    except EngineError as exc:
        print(f"error: the adapter could not start: {exc}", file=sys.stderr)
        return EXIT_ADAPTER
    names, unlisted = profiles_to_run(handshake)
    emit(all_header(handshake, corpus_label(args), quiet=_verbosity(args) == QUIET))
    codes: dict[str, int] = {}
    for name in names:
        try:
            codes[name] = _run_profile(
                argparse.Namespace(**{**vars(args), "profile": name}), part_of_all=True
            )
        except NoSelection:
            emit(f"profile {name}: no case matches the selection\n")
            continue
        if codes[name] not in (EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_ADAPTER, EXIT_UNGRADED):
            return codes[name]  # interrupted: stop at once, as a single run does
    if not codes:
        raise NoSelection("no scenario of any profile matches the selection")
    emit(profiles_line(codes, unlisted))
    return worst(list(codes.values()))


def _run_profile(args: argparse.Namespace, *, part_of_all: bool = False) -> int:
    """Run the selected scenarios of ``args.profile`` against an adapter and report."""
    from conformance.errors import EngineError
    from conformance.run.expectations import ExpectationsError, load_expectations
    from conformance.run.runner import RunOptions, new_session

    argv = parse_adapter(args.adapter)
    profile_name(args)
    if getattr(args, "by_cause", False) and not args.write_expectations:
        raise UsageError("--by-cause says how --write-expectations FILE lists the failures")
    # Before the first case: a long run must not end in a report it cannot write.
    try:
        check_output_paths(_files(args).options())
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
    # The cache entries the corpus loads from are read before any adapter starts (so the
    # engine cannot change them under its own run); the first adapter then starts up while
    # they are decoded, and the run shakes hands with it.
    paths, corpus = given(args)
    selection.pin_corpus(paths, corpus, catalogue=catalogue_of(args))
    session = new_session(argv, options)
    early: EngineSession | None = session
    try:
        session.spawn()
    except EngineError:
        early = None  # the run starts it again and reports why it cannot
    try:
        return _run_loaded(args, argv, options, expectations, early, part_of_all)
    finally:
        if early is not None:
            early.close()  # a no-op once the run has closed it


def _run_loaded(
    args: argparse.Namespace,
    argv: list[str],
    options: RunOptions,
    expectations: Expectations | None,
    early: EngineSession | None,
    part_of_all: bool,
) -> int:
    """The rest of :func:`_run_profile`: load the corpus, select, run (the first adapter
    ``early`` already spawned), report. Signals stop the run and still report."""
    from conformance.adapter.engine import kill_live_adapters
    from conformance.errors import EngineError
    from conformance.jobs import as_shard, with_expectations
    from conformance.laws.hostile import HOSTILE_IDS, hostile_run, with_cases
    from conformance.laws.properties import check_properties
    from conformance.reports.causes import NOTHING, infer, with_causes
    from conformance.reports.report import Progress
    from conformance.run.interrupt import Collector, exit_code, interruptible, signal_name
    from conformance.run.runner import run_scenarios
    from conformance.run.verdict import Gates, judge, profile_missing

    catalogue = catalogue_of(args)
    loaded = load(args, catalogue)
    if loaded.errors:
        for error in loaded.errors:
            print(error, file=sys.stderr)
        if not args.skip_broken:
            print(
                f"the corpus has {len(loaded.errors)} problem(s); fix them or pass --skip-broken",
                file=sys.stderr,
            )
            return EXIT_USAGE
        print(f"skipping broken scenarios ({len(loaded.errors)} problem(s))", file=sys.stderr)
    whole = select(
        loaded.scenarios,
        rules=args.rule or (),
        tags=args.tag or (),
        ids=args.scenario or (),
        profile=args.profile,
    )
    if not whole:
        raise NoSelection("no scenario matches the selection")
    chosen = shard_of(whole, args.shard) if args.shard else whole
    progress = Progress()
    collector = Collector(progress)
    started = time.time()
    interrupted: KeyboardInterrupt | None = None
    with interruptible(on_signal=collector.freeze) as signals:
        try:
            run = run_scenarios(
                argv, chosen, options, catalogue=catalogue, progress=collector, spawned=early
            )
        except KeyboardInterrupt as exc:
            # Ctrl-C, SIGTERM or SIGHUP: reap, then report what was graded.
            interrupted = exc
            kill_live_adapters()
            why = f"the run was interrupted by {signal_name(exc)}"
            run = collector.partial_run(argv, chosen, options, why, started, catalogue)
        except EngineError as exc:
            signals.defer()
            progress.finish()
            return _adapter_did_not_start(args, argv, chosen, options, exc, catalogue, whole=whole)
        finally:
            # Escaped processes of every session (the harness is their subreaper).
            kill_escaped(None)
        progress.finish()
        run = as_shard(replace(run, corpus_path=corpus_label(args)), args.shard, whole, chosen)
        lacking = profile_missing(run)
        if lacking is not None:
            # Every case is unsupported; say it once, plainly, and exit 3 (README).
            run = replace(run, warnings=(*run.warnings, f"{lacking}; no case was graded"))
        if args.properties and interrupted is None and lacking is None:
            try:
                laws = check_properties(argv, options, seed=args.seed, deals=args.deals)
                run = replace(run, properties=laws)
            except KeyboardInterrupt as exc:
                interrupted = exc
                kill_live_adapters()
                kill_escaped(None)
                note = f"the law checks were interrupted by {signal_name(exc)}"
                run = replace(run, warnings=(*run.warnings, note))
        if args.hostile and interrupted is None and lacking is None:
            try:
                run = with_cases(run, hostile_run(argv, options))
            except KeyboardInterrupt as exc:
                interrupted = exc
                kill_live_adapters()
                kill_escaped(None)
                note = f"the hostile probes were interrupted by {signal_name(exc)}"
                run = replace(run, warnings=(*run.warnings, note))
        inference = NOTHING
        if interrupted is None and not getattr(args, "no_explain", False):
            # Before the signals wait: asking the reference takes a while, and a signal
            # ends it, leaving the causes grouped with no option inferred.
            try:
                inference = infer(run, chosen, catalogue, options=options)
            except KeyboardInterrupt as exc:
                interrupted = exc
                kill_live_adapters()
                kill_escaped(None)
                note = f"the causes' inference was interrupted by {signal_name(exc)}"
                run = replace(run, warnings=(*run.warnings, note))
                run = replace(run, warnings=(*run.warnings, note))
        # From here a signal waits until the reports are written.
        signals.defer()
        if expectations is not None:
            run = with_expectations(
                run,
                expectations,
                known_ids=[*(s.id for s in loaded.scenarios), *HOSTILE_IDS],
                source=f"expectations file {args.expectations}",
            )
        if subreaper_unavailable():
            note = (
                "this platform cannot make the harness a child subreaper: a process that "
                "leaves the adapter's process group (setsid) and clears its environment "
                "can outlive the run"
            )
            run = replace(run, warnings=(*run.warnings, note))
        # After the expectations: a failure they list is no cause.
        run = with_causes(run, chosen, inference)
        gates = Gates(min_graded=args.min_graded, all_players=args.all_players)
        verdict = judge(run, catalogue, strict=args.strict, gates=gates)
        written = _report_run(args, run, catalogue, expectations, verdict, part_of_all)
    if interrupted is not None or signals.received is not None:
        name = signal_name(interrupted) if interrupted is not None else signals.name()
        print(f"interrupted ({name})", file=sys.stderr)
        code = exit_code(interrupted) if interrupted is not None else signals.exit_code()
        assert code is not None
        return code
    if not written:
        return EXIT_USAGE
    for reason in verdict.reasons:
        print(f"error: {reason} (exit {verdict.code})", file=sys.stderr)
    return verdict.code


def _files(args: argparse.Namespace) -> RunFiles:
    return RunFiles(
        args.json,
        args.junit,
        args.html,
        args.write_expectations,
        by_cause=bool(getattr(args, "by_cause", False)),
    )


def _adapter_did_not_start(
    args: argparse.Namespace,
    argv: Sequence[str],
    chosen: Sequence[Scenario],
    options: Any,
    exc: Any,
    catalogue: Catalogue,
    *,
    whole: Sequence[Scenario] = (),
) -> int:
    """Report a run whose adapter never got through its handshake; exit 3."""
    from conformance.jobs import as_shard
    from conformance.run.runner import unstarted_run

    print(f"error: adapter {shlex.join(argv)!r} could not start: {exc}", file=sys.stderr)
    if exc.stderr_tail:
        print(exc.stderr_tail.rstrip(), file=sys.stderr)
    # Reports are still written, complete: CI systems read them even on a dead adapter.
    dead = unstarted_run(argv, chosen, options, exc, catalogue)
    dead = as_shard(replace(dead, corpus_path=corpus_label(args)), args.shard, whole, chosen)
    written = write_run_reports(dead, catalogue, _files(args), strict=args.strict)
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
) -> bool:
    """Write the reports, then print the summary; False when a report could not be written.

    Every file is attempted even if another fails; the summary is printed after the
    files are safe, and printing never raises on text the terminal cannot encode.
    """
    from conformance.reports.console import run_text

    written = write_run_reports(
        run, catalogue, _files(args), strict=args.strict, expectations=expectations
    )
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
                f"not written: {unlisted} case(s) that errored or did not run; an expected "
                "failure never covers them (fix the adapter, or add an entry with "
                "status: error by hand)",
                file=sys.stderr,
            )
    for failure in written.failures:
        print(f"error: {failure}", file=sys.stderr)
    return not written.failures
