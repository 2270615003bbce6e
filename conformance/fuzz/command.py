"""The ``fuzz`` command as a library call: a campaign or a merge, its files, its verdict.

The command line (``carioca-conformance fuzz``, conformance/cli/fuzz.py) parses its arguments
and prints; everything else is here, so a library user (the pytest plugin, a notebook, a
CI script) gets the same report files and the same exit code without argparse:

- :func:`campaign` plays a campaign (handling Ctrl-C, SIGTERM and SIGHUP: the games played
  are kept), writes ``fuzz-report.json`` and the drafts, and returns an :class:`Outcome`;
  an adapter that cannot start still gets its report (``engine`` null, ``adapter_error``);
- :func:`merge` reads shard reports within bounds, validated by the report schema
  (conformance/fuzz/merge.py), merges and writes them;
- :func:`verdict` is the exit code of a report, and the one line saying why when it is
  not a plain pass or fail.

Exit codes (docs/fuzzing.md): 0 no divergence (or only expected ones), 1 new findings (or,
under ``--strict``, expected findings that did not show), 2 usage error (a bad shard or
input report), 3 an adapter could not start, 4 nothing graded (no request was answered by
both adapters: an engine that answers ``unsupported`` to everything earns no green), 130,
143, 129 interrupted by SIGINT, SIGTERM, SIGHUP.
"""

from __future__ import annotations

import math
import sys
import threading
from collections.abc import Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final, TextIO

from conformance.errors import EngineError
from conformance.knowledge.catalogue import Catalogue
from conformance.run.expectations import Expectations
from conformance.run.verdict import EXIT_ADAPTER, EXIT_FAILED, EXIT_OK, EXIT_UNGRADED, EXIT_USAGE

from .campaign import FuzzResult, ProgressFn, fuzz
from .expected import apply_expectations, unexpected_findings, write_expectations
from .merge import merge_reports, read_report
from .model import FuzzError, FuzzOptions
from .report import (
    check_drafts_folder,
    report_dict,
    report_pieces,
    summary,
    unstarted_report,
    write_outputs,
)

#: 128 + the signal number, the shell's convention (conformance/run/interrupt.py).
SIGNAL_CODES: Final[Mapping[str, int]] = {"SIGINT": 130, "SIGTERM": 143, "SIGHUP": 129}


@dataclass(frozen=True)
class Outcome:
    """What the command did: the report (as written), its file, the exit code, the text
    for standard output, and the one line for standard error when there is one."""

    report: dict[str, Any]
    path: Path
    exit_code: int
    text: str
    problem: str | None = None


def verdict(report: Mapping[str, Any]) -> tuple[int, str | None]:
    """The exit code of ``report`` and, unless it is a plain pass or fail, why."""
    if report.get("adapter_error"):
        first = str(report["adapter_error"]).splitlines()[0]
        return EXIT_ADAPTER, f"error: an adapter could not start: {first}"
    interrupted = report.get("interrupted")
    if isinstance(interrupted, str) and interrupted in SIGNAL_CODES:
        return SIGNAL_CODES[interrupted], None
    new = unexpected_findings(report)
    if new:
        return EXIT_FAILED, None
    known = report.get("expectations") or {}
    if known.get("strict") and known.get("stale"):
        return EXIT_FAILED, (
            f"error: {len(known['stale'])} finding(s) listed in {known.get('file')} did not "
            "show (--strict): remove them from the file"
        )
    totals = report["totals"]
    compared = totals.get("compared")
    if compared is None:  # a report written before ``compared`` existed
        compared = totals["steps"] + totals["queries"]
    if compared == 0:
        lacking = report.get("unsupported_ops") or []
        said = f" (it answered unsupported to {', '.join(lacking)})" if lacking else ""
        return EXIT_UNGRADED, (
            "error: fuzz graded nothing: no request was answered by both the engine and "
            f"the reference{said}; a campaign that compares nothing is not a pass "
            f"(exit {EXIT_UNGRADED})"
        )
    mixed = report.get("inconsistent_ops") or []
    if mixed:
        return EXIT_FAILED, (
            f"error: unsupported is inconsistent: the engine answered {', '.join(mixed)} in "
            "some games and refused it as unsupported in others; unsupported says the engine "
            "lacks the op, the player count or the action, in every game (docs/protocol.md "
            f"§1) (exit {EXIT_FAILED})"
        )
    broken = _broken_claim(report)
    if broken is not None:
        return EXIT_FAILED, broken
    return EXIT_OK, None


#: The requests of a game: an engine that refuses them all plays no game.
_GAME_OPS = frozenset({"load_state", "start_deal", "new_game", "act", "next_deal", "redeal"})


def _broken_claim(report: Mapping[str, Any]) -> str | None:
    """Why the campaign is no pass though it compared answers: the engine claims turns or
    deals, was dealt games, and played no step of them, answering unsupported to the
    game's requests (meld queries alone compared). None when it played."""
    totals = report["totals"]
    engine = report.get("engine") or {}
    claimed = sorted({"turns", "deals"} & set(engine.get("capabilities") or ()))
    refused = sorted(_GAME_OPS & set(report.get("unsupported_ops") or ()))
    if not claimed or not refused or not totals.get("games") or totals.get("steps"):
        return None
    return (
        f"error: the engine claims {', '.join(claimed)} but played no step of "
        f"{totals['games']} game(s) (it answered unsupported to {', '.join(refused)}): a "
        "capability claimed and never played is a broken claim; drop it from capabilities, "
        f"or play it (exit {EXIT_FAILED})"
    )


@dataclass(frozen=True)
class Known:
    """The known findings a campaign is judged beside (``--expectations``, ``--strict``)
    and where to write its findings as expectations (``--write-expectations``)."""

    expectations: Expectations | None = None
    file: str = ""
    strict: bool = False
    write_to: Path | None = None


def _finish(
    report: dict[str, Any],
    out: Path,
    json_path: Path | None,
    known: Known | None = None,
    *,
    bounded: bool = False,
) -> Outcome:
    """Write the report and its drafts (and the ``--json`` copy, and the expectations
    file asked for); the outcome. ``bounded`` (a merge): refuse to write a report larger
    than its readers read (the shards it came from are still there)."""
    from conformance.io.files import atomic_write_text
    from conformance.io.jsonsafe import TooLargeToRead, compact_pieces, within_read_limit

    text = ""
    if known is not None and known.expectations is not None and not report.get("adapter_error"):
        apply_expectations(report, known.expectations, file=known.file, strict=known.strict)
    path = write_outputs(report, out, bounded=bounded)
    if json_path is not None:
        pieces = report_pieces(report)
        try:
            atomic_write_text(
                json_path, within_read_limit(pieces, "the report") if bounded else pieces
            )
        except TooLargeToRead:  # as write_outputs: the compact layout near the limit
            atomic_write_text(json_path, within_read_limit(compact_pieces(report), "the report"))
    problem_note = None
    if known is not None and known.write_to is not None and not report.get("adapter_error"):
        if report.get("interrupted"):
            # The games played are part of the campaign: a file written from them would
            # drop every finding of the rest (and rewrite --expectations in place with it).
            problem_note = (
                f"not written: {known.write_to}: the campaign was interrupted "
                f"({report['interrupted']}), so its findings are not all of them"
            )
        else:
            count = write_expectations(known.write_to, report, known.expectations)
            text = f"wrote {count} finding(s) to {known.write_to}\n"
    code, problem = verdict(report)
    if problem_note is not None:
        problem = problem_note if problem is None else f"{problem}\n{problem_note}"
    return Outcome(report, path, code, summary(report) + f"report: {path}\n" + text, problem)


def campaign(
    engine_argv: Sequence[str],
    options: FuzzOptions,
    catalogue: Catalogue,
    out: Path,
    *,
    json_path: Path | None = None,
    progress: ProgressFn | None = None,
    handle_signals: bool = True,
    known: Known | None = None,
) -> Outcome:
    """Play the campaign ``options`` describes against ``engine_argv`` and write its report.

    ``known``: the expectations file the findings are judged beside (expected findings
    do not fail the campaign) and where to write them as one.

    ``handle_signals``: Ctrl-C, SIGTERM and SIGHUP stop the campaign, which keeps the
    games played and exits with 128 + the signal (the main thread only; a library caller
    with handlers of its own passes False and sets nothing).

    :raises FuzzError: for options no campaign can play (negative games, no worker).
    """
    if options.games < 0 or options.workers < 1:
        raise FuzzError("--games must be 0 or more and --workers 1 or more")
    if not 0 < options.timeout < math.inf:  # also refuses nan, which disables every deadline
        raise FuzzError(f"--timeout {options.timeout}: must be a positive number of seconds")
    check_drafts_folder(out)
    from conformance.run.interrupt import Signals, interruptible

    stop = threading.Event()
    guard = interruptible(on_signal=stop.set) if handle_signals else nullcontext(Signals())
    result: FuzzResult | None = None
    error: EngineError | None = None
    signalled: str | None = None
    with guard as signals:
        try:
            result = fuzz(engine_argv, options, catalogue, progress=progress, stop=stop)
        except EngineError as exc:
            error = exc
        except KeyboardInterrupt as exc:
            # A signal while the adapters started, or just after the campaign returned.
            signalled = str(exc) or "SIGINT"
        finally:
            signals.defer()  # from here a signal waits: the report is written first
        if result is not None:
            report = report_dict(result)
            if signalled and not report["interrupted"]:
                report["interrupted"] = signalled
        elif error is not None:
            report = unstarted_report(engine_argv, options, str(error), error.stderr_tail)
        else:
            report = unstarted_report(engine_argv, options, "interrupted before any game")
            report["adapter_error"], report["interrupted"] = None, signalled
        outcome = _finish(report, out, json_path, known)
    late = signals.exit_code()
    if late is not None and outcome.exit_code not in SIGNAL_CODES.values():
        # A signal while the report was written: the files are whole, the code says so.
        outcome = replace(outcome, exit_code=late)
    return outcome


def merge(paths: Sequence[str | Path], out: Path, *, json_path: Path | None = None) -> Outcome:
    """Merge the shard reports at ``paths`` into one report under ``out``.

    :raises FuzzError: naming the report that cannot be read or merged (exit 2).
    """
    check_drafts_folder(out)
    return _finish(merge_reports([read_report(p) for p in paths]), out, json_path, bounded=True)


def progress_printer(stream: TextIO | None = None) -> ProgressFn:
    """The command line's progress display: one line rewritten on a terminal, else a line
    every tenth of the games."""
    out = stream if stream is not None else sys.stderr
    tty = out.isatty()

    def progress(done: int, total: int, steps: int, found: int) -> None:
        if tty or done == total or done % max(1, total // 10) == 0:
            line = f"fuzz: {done}/{total} games, {steps} steps, {found} divergence(s)"
            end = "" if tty and done < total else "\n"
            print(("\r" + line) if tty else line, end=end, file=out, flush=True)

    return progress


__all__ = [
    "EXIT_ADAPTER",
    "EXIT_FAILED",
    "EXIT_OK",
    "EXIT_UNGRADED",
    "EXIT_USAGE",
    "SIGNAL_CODES",
    "Known",
    "Outcome",
    "campaign",
    "merge",
    "progress_printer",
    "verdict",
]
