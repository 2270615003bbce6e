"""What the commands' options share: the exit codes' epilog, the argument types that bound
every number and time limit, and the corpus arguments.

Each command declares its own options beside its function (``add_parser`` in
:mod:`conformance.cli.run`'s options, :mod:`conformance.cli.check`, ...);
:func:`conformance.cli.build_parser` gathers them.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeAlias

if TYPE_CHECKING:
    #: What ``add_subparsers`` returns: each command's ``add_parser`` adds itself to it.
    Subparsers: TypeAlias = argparse._SubParsersAction[argparse.ArgumentParser]

EPILOG = """exit codes:
  0  nothing unexpected, and something was graded
  1  failures, errors, cases not run, broken laws, xpass under --strict, an
     op answered in some cases and refused as unsupported in others (or at one
     player count only), or a capability claimed and never played
     (coverage: something uncovered)
  2  usage error, or a broken corpus, catalogue or expectations file
  3  the adapter could not start, its handshake failed, or it lacks the --profile
  4  nothing was graded (no check could be graded against the engine), or a
     --min-graded / --all-players gate was not met
  129/130/143  interrupted by SIGHUP / Ctrl-C / SIGTERM: adapters reaped, reports
     written with the cases graded so far (the rest not_run)
"""

#: ``--hostile``, alike in smoke and run (conformance/laws/hostile.py).
HOSTILE_HELP = (
    "also send malformed, borderline and impossible requests (a missing field, a wrong type, "
    "an unknown op or card code, a deck that is not the pack, a state that cannot be...) and "
    "check each gets the answer the protocol requires"
)


def memory_size(text: str) -> int | None:
    """``--memory-limit``'s value in bytes (None: no limit)."""
    from conformance.adapter.memlimit import parse_size

    try:
        return parse_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


#: The longest time limit an option takes: a day (a larger one is a typo, not a limit).
MAX_SECONDS = 86_400.0


def seconds(text: str) -> float:
    """A time limit in seconds: a positive finite number up to MAX_SECONDS (``nan``,
    ``inf``, 0 and negatives would disable every deadline or none could be met)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value <= MAX_SECONDS:  # also refuses nan
        raise argparse.ArgumentTypeError(
            f"{text!r}: a time limit must be more than 0 and at most {MAX_SECONDS:g} seconds"
        )
    return value


def integer(low: int, high: int) -> Callable[[str], int]:
    """An argparse type: a whole number from ``low`` to ``high``. Every number option is
    bounded so that what a report records of it stays readable by the report's readers
    (conformance/io/jsonsafe.py) and means something (no 0 workers, no 10**50 games)."""

    def parse(text: str) -> int:
        digits = text.strip()
        if not re.fullmatch(r"[+-]?[0-9]+", digits, flags=re.ASCII):
            raise argparse.ArgumentTypeError(f"{text[:40]!r} is not a whole number")
        # Past 40 digits it is out of range whatever it is (and int() of 5,000 digits fails).
        value = int(digits) if len(digits) <= 40 else high + 1
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(
                f"{text[:40]!r}: must be a whole number from {low:,} to {high:,}"
            )
        return value

    parse.__name__ = "whole number"
    return parse


#: Largest seed (--seed of run and fuzz): the engine is sent seed * 1000 + game, which then
#: stays below 2**53, exact in an engine that reads JSON numbers as doubles.
MAX_SEED = 10**12 - 1
#: Most worker processes (each runs its own adapters).
MAX_WORKERS = 256
#: A bound for counts with no natural one (games, errors in a row, a game's index):
#: far past any real use, and written in 10 digits.
MAX_COUNT = 10**9


def corpus_arguments(parser: argparse.ArgumentParser) -> None:
    """The corpus a command reads: files or folders, or ``--corpus``."""
    parser.add_argument("paths", nargs="*", help="scenario files or directories")
    parser.add_argument("--corpus", metavar="PATH", help="corpus directory (default: the bundled)")
