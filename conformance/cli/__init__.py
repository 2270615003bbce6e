"""The ``carioca-conformance`` command line: a shell over the library, one module a command.

Each command (:mod:`~conformance.cli.run`, :mod:`~conformance.cli.check`,
:mod:`~conformance.cli.coverage`, :mod:`~conformance.cli.smoke`,
:mod:`~conformance.cli.audit`, :mod:`~conformance.cli.report`,
:mod:`~conformance.cli.record`, :mod:`~conformance.cli.fuzz`,
:mod:`~conformance.cli.points`) declares its options
(``add_parser``), parses them into a call of the library, prints what it returns and picks
the exit code; nothing a library user would need lives here. What the commands share is
:mod:`conformance.cli.common` (the usage error, the adapter, the corpus) and
:mod:`conformance.cli.args` (the argument types, and the exit codes of :data:`EPILOG`, which
``--help`` prints). This module gathers the parser and dispatches.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from conformance.adapter.reaper import become_subreaper
from conformance.cli import (
    audit,
    check,
    coverage,
    fuzz,
    points,
    record,
    report,
    run,
    run_options,
    smoke,
)
from conformance.cli.args import EPILOG
from conformance.cli.common import UsageError
from conformance.io.textsafe import TerminalStream
from conformance.run.exitcodes import EXIT_USAGE
from conformance.run.optioncheck import InvalidOption
from conformance.run.selection import SelectionError
from conformance.version import CORPUS_VERSION, __version__

#: Each command's function, in the order ``--help`` lists them.
COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "run": run.cmd_run,
    "check": check.cmd_check,
    "coverage": coverage.cmd_coverage,
    "smoke": smoke.cmd_smoke,
    "audit": audit.cmd_audit,
    "report": report.cmd_report,
    "record": record.cmd_record,
    "fuzz": fuzz.cmd_fuzz,
    "points": points.cmd_points,
}

#: Each command's options, in the same order.
_DECLARED = (
    run_options.add_parser,
    check.add_parser,
    coverage.add_parser,
    smoke.add_parser,
    audit.add_parser,
    report.add_parser,
    record.add_parser,
    fuzz.add_parser,
    points.add_parser,
)

#: Commands that never start an adapter, so never need to adopt its orphans.
_NO_ADAPTERS = frozenset({"check", "coverage", "report", "points"})


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for documentation and tests)."""
    parser = argparse.ArgumentParser(
        prog="carioca-conformance",
        description="Rules-conformance suite for Carioca engines, one rule profile at a time.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--version", action="version", version=f"%(prog)s {__version__} (corpus {CORPUS_VERSION})"
    )
    parser.add_argument("--catalogue", help=argparse.SUPPRESS)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for declare in _DECLARED:
        declare(sub)
    return parser


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
    except (UsageError, SelectionError, InvalidOption) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt as exc:
        from conformance.run.interrupt import exit_code

        print("interrupted", file=sys.stderr)
        return exit_code(exc)
    return code
