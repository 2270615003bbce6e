"""The ``carioca-conformance`` command line: argument parsing, and calls into the library.

Each command parses its options, calls the module that does the work, prints what it
returns and picks the exit code; nothing a library user would need lives here. Which cases
a run grades is :mod:`conformance.run.selection`; running one profile or every profile the
engine lists, :mod:`conformance.jobs` (and :mod:`conformance.run.runner`); what a run comes to,
:mod:`conformance.run.verdict`; what it prints, :mod:`conformance.reports.console`; its files,
:mod:`conformance.reports.outputs`; the coverage table, :mod:`conformance.authoring.coverage`; the
``--adapter`` string, :mod:`conformance.adapter.command`. Only a run's signal handling
(Ctrl-C, SIGTERM, SIGHUP: reap, then report what was graded) is choreographed here, with
:mod:`conformance.run.interrupt`. The options are declared in :mod:`conformance.cli.args`;
the exit codes are its :data:`EPILOG` (``--help`` prints it).
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from conformance.adapter.command import AdapterCommandError, adapter_argv
from conformance.adapter.command import reference_argv as reference_argv  # re-exported
from conformance.adapter.command import shell_operators as shell_operators  # re-exported
from conformance.adapter.reaper import become_subreaper, kill_escaped, subreaper_unavailable
from conformance.cli.args import EPILOG as EPILOG  # re-exported
from conformance.cli.args import build_parser as build_parser  # re-exported
from conformance.errors import HarnessError
from conformance.io.textsafe import TerminalStream
from conformance.knowledge.catalogue import Catalogue, CatalogueError, load_catalogue
from conformance.reports.outputs import (
    OutputPathError,
    RunFiles,
    check_output_paths,
    emit,
    write_all,
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
from conformance.run.selection import NoSelection, SelectionError, load_scenarios, select, shard_of
from conformance.run.selection import rule_matches as rule_matches  # re-exported
from conformance.scenarios import IndexResult, LoadResult, Scenario
from conformance.scenarios.corpus import default_catalogue_path

if TYPE_CHECKING:  # imported where used: the CLI starts faster without them
    from conformance.adapter.engine import EngineSession
    from conformance.audit.declared import RulingsFile
    from conformance.fuzz.command import Known
    from conformance.run.expectations import Expectations
    from conformance.run.runner import RunOptions
    from conformance.run.verdict import Verdict


class UsageError(HarnessError):
    """A user mistake: reported in one line, exit code 2."""


def parse_adapter(command: str | None) -> list[str]:
    """The argv of an ``--adapter`` string (:func:`conformance.adapter.command.adapter_argv`);
    a warning about shell operators goes to stderr, a bad string is a usage error."""
    try:
        argv, warning = adapter_argv(command)
    except AdapterCommandError as exc:
        raise UsageError(str(exc)) from None
    if warning:
        print(f"warning: {warning}", file=sys.stderr)
    return argv


def _catalogue(args: argparse.Namespace) -> Catalogue:
    try:
        # Inside a checkout its own catalogue, so a dispute just added is known (README).
        return load_catalogue(args.catalogue or default_catalogue_path())
    except CatalogueError as exc:
        raise UsageError(str(exc)) from None


def _given(args: argparse.Namespace) -> tuple[list[str], str | None]:
    """The corpus paths and ``--corpus`` of a command."""
    return list(getattr(args, "paths", None) or []), getattr(args, "corpus", None)


def _load(args: argparse.Namespace, catalogue: Catalogue) -> LoadResult:
    paths, corpus = _given(args)
    return load_scenarios(paths, corpus, catalogue=catalogue)


def _index(args: argparse.Namespace, catalogue: Catalogue) -> IndexResult:
    paths, corpus = _given(args)
    return selection.load_index(paths, corpus, catalogue=catalogue)


def corpus_label(args: argparse.Namespace) -> str:
    """Which corpus a command reads, for its header: the paths given, else the default."""
    paths, corpus = _given(args)
    return selection.corpus_label(paths, corpus)


def _profile_name(args: argparse.Namespace) -> str:
    """The ``--profile`` of a command, refused (exit 2) when the harness has no data for it."""
    from conformance.knowledge.profiles import ProfileError, default_profiles

    profile: str = args.profile
    try:
        default_profiles()[profile]
    except ProfileError as exc:
        raise UsageError(str(exc)) from None
    return profile


# --------------------------------------------------------------------------- commands


def cmd_check(args: argparse.Namespace) -> int:
    """Validate scenario files: schema and semantic checks."""
    profile = _profile_name(args) if args.profile is not None else None
    catalogue = _catalogue(args)
    # Without --strict each case's entry is enough, and an unchanged corpus's index is
    # read without decoding its cases; --strict audits the cases whole.
    loaded = (_load if args.strict else _index)(args, catalogue)
    for error in loaded.errors:
        print(error, file=sys.stderr)
    if loaded.errors:
        print(f"{len(loaded.errors)} problem(s) in {len(loaded.files)} file(s)", file=sys.stderr)
        return EXIT_USAGE
    cases = loaded.scenarios if isinstance(loaded, LoadResult) else loaded.entries
    drafts = [s for s in cases if s.review != "checked"]
    for draft in drafts:
        print(
            f"{draft.where()}: [{draft.id}] review: {draft.review}: check every expectation "
            "against the rules text, then set review: checked",
            file=sys.stderr,
        )
    if drafts and args.strict:
        print(f"{len(drafts)} scenario(s) not yet reviewed (--strict)", file=sys.stderr)
        return EXIT_USAGE
    if isinstance(loaded, LoadResult):
        # What the audit can tell without running (conformance/audit/static.py).
        from conformance.audit.static import static_findings

        found = static_findings(loaded.scenarios, catalogue)
        for finding in found:
            print(finding.line(), file=sys.stderr)
        if found:
            print(f"{len(found)} audit finding(s) (--strict)", file=sys.stderr)
            return EXIT_USAGE
    # Every case is checked with the facts of each profile it lists; --profile counts one.
    per_profile = ""
    if profile is not None:
        count = sum(profile in s.profiles for s in cases)
        per_profile = f"; {count} for profile {profile}"
    print(
        f"{len(cases)} scenarios in {len(loaded.files)} files: OK "
        f"(corpus {corpus_label(args)}{per_profile})"
    )
    return EXIT_OK


#: ``run --profile all``: every profile of the harness that the engine lists, in turn.
ALL_PROFILES = "all"


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
    _profile_name(args)
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
    paths, corpus = _given(args)
    selection.pin_corpus(paths, corpus, catalogue=_catalogue(args))
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

    catalogue = _catalogue(args)
    loaded = _load(args, catalogue)
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


def cmd_coverage(args: argparse.Namespace) -> int:
    """Print rule and dispute coverage; exit 1 when something is uncovered."""
    from conformance.authoring import coverage

    try:
        check_output_paths([("--json", args.json)])
    except OutputPathError as exc:
        raise UsageError(str(exc)) from None
    catalogue = _catalogue(args)
    loaded = _load(args, catalogue)
    for error in loaded.errors:
        print(error, file=sys.stderr)
    if args.executed:
        from conformance.authoring.execution_coverage import coverage_command
        from conformance.knowledge.profiles import default_profiles

        names = list(default_profiles()) if args.profile == ALL_PROFILES else [_profile_name(args)]
        code = coverage_command(loaded.scenarios, catalogue, names, json_path=args.json)
        return EXIT_USAGE if loaded.errors else code
    if args.profile == ALL_PROFILES:
        found = coverage.every_profile_coverage(loaded.scenarios, catalogue)
        emit(coverage.brief_text(found, catalogue, corpus_label(args)))
        data: dict[str, Any] = {"profiles": {n: c.as_json() for n, c in found.items()}}
    else:
        one = coverage.profile_coverage(loaded.scenarios, catalogue, _profile_name(args))
        emit(coverage.coverage_text(one, catalogue, corpus_label(args)))
        found, data = {one.profile: one}, one.as_json()
    if args.json:
        from conformance.reports.report import atomic_write_text

        atomic_write_text(args.json, json.dumps(data, indent=2) + "\n")
    if loaded.errors:
        return EXIT_USAGE
    return EXIT_OK if all(c.complete for c in found.values()) else EXIT_FAILED


def cmd_smoke(args: argparse.Namespace) -> int:
    """Tell a broken adapter from an engine that merely disagrees with the rules."""
    from conformance.laws.smoke import smoke

    profile = _profile_name(args)
    result = smoke(
        parse_adapter(args.adapter), timeout=args.timeout, profile=profile, hostile=args.hostile
    )
    print(f"profile {profile}")
    for check in result.checks:
        detail = f": {check.detail}" if check.detail else ""
        print(f"{'ok  ' if check.ok else 'FAIL'} {check.name}{detail}")
    if result.stderr_tail and result.verdict != "engine_ok":
        print("adapter stderr (tail):")
        print(result.stderr_tail.rstrip())
    print(f"verdict: {result.verdict}")
    if result.verdict == "engine_ok":
        return EXIT_OK
    if result.verdict == "profile_unsupported":
        return EXIT_ADAPTER  # as run does: the engine cannot be graded on this profile
    # An adapter that never got through start/handshake gets the documented exit 3.
    passed = {check.name: check.ok for check in result.checks}
    if not (passed.get("started") and passed.get("handshake")):
        return EXIT_ADAPTER
    return EXIT_FAILED


def cmd_record(args: argparse.Namespace) -> int:
    """Run actions through an engine and write a draft scenario with what it observed."""
    from conformance.authoring.record import RecordError, record_to_file
    from conformance.errors import EngineError

    argv = parse_adapter(args.adapter)
    _profile_name(args)
    try:
        record_to_file(
            argv,
            setup_path=Path(args.setup),
            actions_path=Path(args.actions),
            out=Path(args.output),
            scenario_id=args.id,
            title=args.title,
            rules=args.rule or [],
            profile=args.profile,
            timeout=args.timeout,
        )
    except RecordError as exc:
        raise UsageError(str(exc)) from None
    except EngineError as exc:
        print(f"error: adapter {shlex.join(argv)!r} failed: {exc}", file=sys.stderr)
        return EXIT_ADAPTER
    print(f"wrote draft scenario {args.output} (review: draft; check every expectation)")
    return EXIT_OK


def cmd_fuzz(args: argparse.Namespace) -> int:
    """Differential fuzzing against the reference (docs/fuzzing.md); ``--merge`` joins shards."""
    from conformance import fuzz
    from conformance.fuzz import command

    out, json_path = Path(args.out), Path(args.json) if args.json else None
    known = _fuzz_known(args)
    try:
        if args.merge:
            outcome = command.merge(args.merge, out, json_path=json_path)
        else:
            options = fuzz.FuzzOptions(
                games=args.games, seed=args.seed, workers=args.workers, max_steps=args.max_steps,
                shard=fuzz.parse_shard(args.shard), only_games=tuple(args.game or ()),
                profile=args.profile, timeout=args.timeout, shrink=not args.no_shrink,
                reasons=args.reasons,
            )  # fmt: skip
            outcome = command.campaign(
                parse_adapter(args.adapter), options, _catalogue(args), out,
                json_path=json_path, progress=command.progress_printer(), known=known,
            )  # fmt: skip
    except (OSError, ValueError, fuzz.FuzzError) as exc:
        raise UsageError(f"fuzz: {exc}") from None
    print(outcome.text, end="")
    if outcome.problem:
        print(outcome.problem, file=sys.stderr)
    return outcome.exit_code


def _fuzz_known(args: argparse.Namespace) -> Known:
    """The known findings ``fuzz`` is judged beside (``--expectations``, ``--strict``) and
    where it writes its findings (``--write-expectations``); read before any game."""
    from conformance.fuzz.command import Known
    from conformance.run.expectations import ExpectationsError, load_expectations

    if args.merge and (args.expectations or args.write_expectations or args.strict):
        raise UsageError("fuzz --merge takes no --expectations, --write-expectations or --strict")
    if args.strict and not args.expectations:
        raise UsageError("fuzz --strict needs --expectations FILE")
    expectations = None
    if args.expectations:
        try:
            expectations = load_expectations(args.expectations)
        except ExpectationsError as exc:
            raise UsageError(f"fuzz: {exc}") from None
    write_to = Path(args.write_expectations) if args.write_expectations else None
    return Known(expectations, str(args.expectations or ""), args.strict, write_to)


# --------------------------------------------------------------------------- parser


def _as_engine(
    rulings: tuple[RulingsFile, ...], args: argparse.Namespace
) -> tuple[RulingsFile, ...]:
    """``audit --rulings`` files as the engine plays them: with the capabilities and the ops
    it lacks given on the command line, and each also with every engine reading when asked.

    :raises RulingsFileError: for an unknown capability.
    """
    from conformance.audit.declared import CAPABILITIES, RulingsFileError

    claimed = None
    if args.capabilities is not None:
        claimed = tuple(c.strip() for c in args.capabilities.split(",") if c.strip())
        strange = sorted(set(claimed) - set(CAPABILITIES))
        if strange:
            known = ", ".join(CAPABILITIES)
            raise RulingsFileError(f"--capabilities: unknown {', '.join(strange)} (known: {known})")
    files = [r.lacking(claimed, tuple(args.unsupported)) for r in rulings]
    if args.engine_readings:
        files = [v for r in files for v in (r, r.with_engine_readings())]
    return tuple(files)


def cmd_audit(args: argparse.Namespace) -> int:
    """Run the corpus under every single-option change of the rulings (or an author's rulings
    files): leaning cases, or with --graded the graded share of each profile's checks."""
    from conformance.audit.allowance import AllowanceError, read_allowance
    from conformance.audit.command import AuditRequest, run_audit
    from conformance.audit.declared import RulingsFileError, read_rulings
    from conformance.knowledge.profiles import default_profiles

    if args.workers < 0:
        raise UsageError("--workers must be 0 (one per CPU) or more")
    if args.floor is not None and not 0.0 <= args.floor <= 1.0:
        raise UsageError("--floor must be a share between 0 and 1 (0.97)")
    if (args.rulings or args.floor is not None) and not args.graded:
        raise UsageError("--rulings and --floor go with --graded")
    lacking = args.engine_readings or args.capabilities is not None or args.unsupported
    if lacking and not args.rulings:
        raise UsageError("--engine-readings, --capabilities and --unsupported go with --rulings")
    if (args.json or args.allowance or args.write_allowance) and not (
        args.graded or args.both_ways
    ):
        raise UsageError(
            "--json, --allowance and --write-allowance go with --graded or --both-ways"
        )
    catalogue = _catalogue(args)
    loaded = _load(args, catalogue)
    if loaded.errors:
        for error in loaded.errors:
            print(error, file=sys.stderr)
        return EXIT_USAGE
    unknown = sorted(set(args.point or ()) - set(catalogue.disputes))
    if unknown:
        raise UsageError(f"unknown point(s): {', '.join(unknown)}")
    profiles = list(default_profiles()) if args.profile == ALL_PROFILES else [_profile_name(args)]
    try:
        rulings = tuple(read_rulings(Path(f), catalogue) for f in args.rulings or ())
        rulings = _as_engine(rulings, args)
        allowance = read_allowance(Path(args.allowance)) if args.allowance else None
    except (RulingsFileError, AllowanceError) as exc:
        raise UsageError(str(exc)) from None
    paths, corpus = _given(args)
    output = run_audit(
        AuditRequest(
            argv=tuple(parse_adapter(args.adapter)),
            paths=tuple(selection.corpus_paths(paths, corpus)),
            catalogue=catalogue,
            catalogue_path=args.catalogue,
            profiles=tuple(profiles),
            points=tuple(args.point or ()),
            workers=args.workers,
            graded=args.graded,
            rulings=rulings,
            floor=args.floor,
            json_path=Path(args.json) if args.json else None,
            both_ways=args.both_ways,
            allowance=allowance,
            write_allowance=Path(args.write_allowance) if args.write_allowance else None,
            whole_corpus=not paths,
        )
    )
    print(output.text, end="")
    if args.json:
        print(f"audit report: {args.json}")
    return {"ok": EXIT_OK, "broken": EXIT_ADAPTER}.get(output.outcome, EXIT_FAILED)


def cmd_report(args: argparse.Namespace) -> int:
    """Build the HTML/Markdown page, compare two runs (``diff``) or merge shards (``merge``)."""
    from conformance.reports.report_tools import ReportError

    if args.max_graded_drop is not None and args.reports[:1] != ["diff"]:
        raise UsageError("--max-graded-drop is for 'report diff' only")
    try:
        if args.reports[:1] == ["diff"]:
            return _report_diff(args)
        if args.reports[:1] == ["merge"]:
            return _report_merge(args)
        return _report_page(args)
    except ReportError as exc:
        raise UsageError(str(exc)) from None


def _report_page(args: argparse.Namespace) -> int:
    from conformance.reports.html_report import html_pieces
    from conformance.reports.markdown_report import render_markdown
    from conformance.reports.report import atomic_write_text
    from conformance.reports.report_tools import load_fuzz_report, load_report

    if not args.reports:
        raise UsageError("report: give at least one JSON run report")
    if not (args.html or args.markdown):
        raise UsageError("report: say what to write: --html FILE and/or --markdown FILE")
    if args.output:
        raise UsageError("report: -o is for 'report merge'; write pages with --html/--markdown")
    try:
        check_output_paths([("--html", args.html), ("--markdown", args.markdown)])
    except OutputPathError as exc:
        raise UsageError(str(exc)) from None
    reports = [load_report(path) for path in args.reports]
    for report in reports:
        if report.recount_note:  # the page says it too, under the report's badge line
            print(f"warning: {report.recount_note}", file=sys.stderr)
    fuzz = [load_fuzz_report(path) for path in args.fuzz or ()]
    catalogue = _catalogue(args)
    jobs = []
    if args.html:
        page = html_pieces(reports, catalogue, fuzz=fuzz, title=args.title)
        jobs.append(("--html", args.html, lambda: atomic_write_text(args.html, page)))
    if args.markdown:
        digest = render_markdown(reports, catalogue, fuzz=fuzz)
        jobs.append(("--markdown", args.markdown, lambda: atomic_write_text(args.markdown, digest)))
    failures = write_all(jobs)
    for failure in failures:
        print(f"error: {failure}", file=sys.stderr)
    for option, path, _job in jobs:
        if not any(path in failure for failure in failures):
            print(f"wrote {option[2:]} {path} ({len(reports)} report(s))")
    return EXIT_USAGE if failures else EXIT_OK


def _report_diff(args: argparse.Namespace) -> int:
    from conformance.reports.report_tools import diff_reports, diff_text, load_report

    paths = args.reports[1:]
    if len(paths) != 2:
        raise UsageError("report diff: give exactly two reports, OLD.json NEW.json")
    if args.html or args.markdown or args.output or args.fuzz:
        raise UsageError("report diff takes no --html, --markdown, -o or --fuzz")
    most = _share(args.max_graded_drop, "--max-graded-drop")
    old, new = load_report(paths[0]), load_report(paths[1])
    diff = diff_reports(old, new)
    emit(diff_text(old, new, diff))
    code = EXIT_FAILED if diff.regressed else EXIT_OK
    if most is not None:
        from conformance.run.verdict import case_tally, graded_drop, worst

        # Checks when both reports carry them (format 2), else cases.
        if old.format >= 2 and new.format >= 2:
            fell = graded_drop(old.checks, new.checks, most)
        else:
            before, after = case_tally(old.results), case_tally(new.results)
            fell = graded_drop(before, after, most, "cases")
        if fell is not None:
            print(f"error: {fell} (exit {EXIT_UNGRADED})", file=sys.stderr)
            code = worst([code, EXIT_UNGRADED])
    return code


def _share(text: str | None, option: str) -> float | None:
    """A share option's value (None when not given), or a usage error naming it."""
    from conformance.run.verdict import parse_share

    if text is None:
        return None
    try:
        return parse_share(text, option)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def _report_merge(args: argparse.Namespace) -> int:
    from conformance.fuzz.report import report_pieces as report_pieces_of_fuzz
    from conformance.io.jsonsafe import within_read_limit
    from conformance.reports.report import atomic_write_text, report_pieces
    from conformance.reports.report_tools import (
        load_fuzz_report,
        load_report,
        merge_fuzz_reports,
        merge_reports,
    )

    paths = args.reports[1:]
    if not args.output:
        raise UsageError("report merge: say where to write the merged report: -o OUT.json")
    if args.html or args.markdown:
        raise UsageError("report merge writes JSON only; build the page from its output")
    if paths and args.fuzz:
        raise UsageError("report merge: merge run reports or fuzz reports (--fuzz), not both")
    if not paths and not args.fuzz:
        raise UsageError("report merge: give the reports to merge")
    try:
        check_output_paths([("-o", args.output)])
    except OutputPathError as exc:
        raise UsageError(str(exc)) from None
    if args.fuzz:
        merged = merge_fuzz_reports([load_fuzz_report(p) for p in args.fuzz])
        what = f"{len(merged['findings'])} finding(s)"
    else:
        merged = merge_reports([load_report(p) for p in paths], _catalogue(args))
        what = ", ".join(entry["line"] for entry in merged["badges"])

    def write() -> None:
        # Never a file its readers refuse: checked numbers, and no larger than they read.
        text = report_pieces_of_fuzz(merged) if args.fuzz else report_pieces(merged)
        atomic_write_text(args.output, within_read_limit(text, "the merged report"))

    failures = write_all([("-o", args.output, write)])
    for failure in failures:
        print(f"error: {failure}", file=sys.stderr)
    if failures:
        return EXIT_USAGE
    print(f"merged {len(paths or args.fuzz)} report(s) into {args.output}: {what}")
    return EXIT_OK


#: Each command's function (the parser is :mod:`conformance.cli.args`).
COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "run": cmd_run,
    "check": cmd_check,
    "coverage": cmd_coverage,
    "smoke": cmd_smoke,
    "audit": cmd_audit,
    "report": cmd_report,
    "record": cmd_record,
    "fuzz": cmd_fuzz,
}

#: Commands that never start an adapter, so never need to adopt its orphans.
_NO_ADAPTERS = frozenset({"check", "coverage", "report"})


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``carioca-conformance``; returns the exit code."""
    # Everything a command prints goes through one filter: text from files, reports read
    # back and engines (titles, reasons, messages) reaches the terminal with its control
    # characters escaped (conformance/io/textsafe.py).
    stdout, stderr = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = TerminalStream(stdout), TerminalStream(stderr)
    try:
        return _main(argv)
    finally:
        sys.stdout, sys.stderr = stdout, stderr


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code) if isinstance(exc.code, int) else EXIT_USAGE
    if argv is None and args.command not in _NO_ADAPTERS:
        # The command line (not a library caller such as pytest): adopt the orphans
        # adapters leave behind, so they can be killed (conformance/adapter/reaper.py).
        become_subreaper()
    try:
        code: int = COMMANDS[args.command](args)
    except (UsageError, SelectionError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt as exc:
        from conformance.run.interrupt import exit_code

        print("interrupted", file=sys.stderr)
        return exit_code(exc)
    return code
