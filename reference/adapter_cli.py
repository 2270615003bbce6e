"""The reference adapter's command line: ``python -m reference.adapter [options]``.

Reads the options (the capabilities to claim, the rulings to play from ``--ruling`` pairs and
a ``--rulings`` file, the profiles to serve, the interface to present, a rule-trace file),
refuses a bad one as a usage error (exit 2), then serves the protocol on stdin and stdout
(reference/adapter.py).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from .adapter import ALL_CAPABILITIES, TRACE_ENV, Adapter, serve_adapter
from .interface import parse_interface
from .profiles import ruling_problems

#: The first line of ``--help``.
DESCRIPTION = "The reference engine behind the JSON adapter protocol (docs/protocol.md)."


def main(argv: Sequence[str] | None = None) -> None:
    """Command-line entry point: ``python -m reference.adapter [--capabilities melds,turns]``."""
    adapter = adapter_from_args(argv)
    # Line-buffered text streams: every response must leave immediately.
    sys.stdout.reconfigure(line_buffering=True, encoding="utf-8")  # type: ignore[union-attr]
    sys.stdin.reconfigure(encoding="utf-8", errors="replace")  # type: ignore[union-attr]
    serve_adapter(adapter, sys.stdin, sys.stdout)


def adapter_from_args(argv: Sequence[str] | None = None) -> Adapter:
    """The adapter the command line ``argv`` (the options only) asks for.

    :raises SystemExit: (2, after printing the usage) for a bad option.
    """
    parser = argparse.ArgumentParser(prog="reference.adapter", description=DESCRIPTION)
    parser.add_argument(
        "--capabilities",
        default=",".join(ALL_CAPABILITIES),
        help="comma-separated capabilities to claim (to act as a partial engine)",
    )
    parser.add_argument(
        "--ruling",
        action="append",
        default=[],
        metavar="POINT=OPTION",
        help="play OPTION on a disputed point or house variant (DISPUTE-31=at_least, "
        "VARIANT-01=thirty); repeatable, and overrides --rulings",
    )
    parser.add_argument(
        "--rulings",
        metavar="FILE",
        help="a JSON object or flat YAML mapping of POINT: OPTION to play",
    )
    parser.add_argument(
        "--profiles",
        metavar="NAMES",
        help="comma-separated profiles to serve (default: all; e.g. argentine, to act as an "
        "engine without the chilean profile)",
    )
    parser.add_argument(
        "--trace-rules",
        metavar="PATH",
        default=os.environ.get(TRACE_ENV) or None,
        help="append one JSON line per request answered to PATH: the rule IDs the answer "
        f"was decided and refused by (coverage by execution; default: ${TRACE_ENV})",
    )
    parser.add_argument(
        "--interface",
        action="append",
        default=[],
        metavar="FIELD=VALUE",
        help="declare and play an interface choice of docs/protocol.md §2: run_order=engine "
        "(arrange a run's cards itself), run_ends=engine (pick a run's end itself); as a test "
        "double, first_player=deal_index (keep no dealer: deal k starts with player "
        "(k - 1) mod n, undeclared); repeatable",
    )
    parser.add_argument(
        "--unmodelled",
        metavar="FIELDS",
        help="comma-separated state fields to declare unmodelled and send as placeholders "
        "(dealer, turn_opened, totals, deal_scores, closer, winners)",
    )
    parser.add_argument(
        "--players",
        metavar="COUNTS",
        help="comma-separated player counts to declare and play in every profile (within its "
        "range; others answer unsupported), or 'none' to declare no counts and play all",
    )
    parser.add_argument(
        "--profile-players",
        action="append",
        default=[],
        metavar="PROFILE=COUNTS",
        help="the player counts of one profile, replacing --players there; repeatable",
    )
    parser.add_argument(
        "--unsupported",
        action="append",
        default=[],
        metavar="OP",
        help="as a test double, answer unsupported to this op or action type (swap_joker); "
        "repeatable",
    )
    parser.add_argument(
        "--max-in-flight",
        metavar="N",
        help="how many requests to declare taking at a time (default 16: it reads a line at "
        "a time), or 'none' to declare nothing, so the harness sends one at a time",
    )
    args = parser.parse_args(argv)
    if args.trace_rules is not None:
        try:
            os.close(os.open(args.trace_rules, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644))
        except OSError as exc:
            parser.error(f"--trace-rules {args.trace_rules}: cannot open: {exc.strerror}")
    profiles = None if args.profiles is None else [p.strip() for p in args.profiles.split(",")]
    try:
        rulings = parse_rulings(args.ruling, args.rulings)
        interface = parse_interface(
            args.interface, args.unmodelled, args.players, args.profile_players, args.max_in_flight
        )
        interface = replace(interface, unsupported=frozenset(args.unsupported))
    except ValueError as exc:
        parser.error(str(exc))
    wanted = [c.strip() for c in args.capabilities.split(",") if c.strip()]
    unknown = sorted(set(wanted) - set(ALL_CAPABILITIES))
    if unknown:
        parser.error(f"unknown capabilities: {', '.join(unknown)}")
    try:
        # Unknown profiles are refused here, up front.
        return Adapter(wanted, rulings, profiles, args.trace_rules, interface)
    except ValueError as exc:
        parser.error(str(exc))


def parse_rulings(pairs: Sequence[str], path: str | None = None) -> dict[str, str]:
    """The rulings of ``--rulings FILE`` then ``--ruling POINT=OPTION`` pairs, checked.

    A point may be written ``DISPUTE-1`` or ``dispute-01``; it is stored as ``DISPUTE-01``.

    :raises ValueError: for a malformed pair or file, an unknown point or an unknown option.
    """
    found: dict[str, str] = {}
    if path is not None:
        found.update(_read_rulings_file(Path(path)))
    for pair in pairs:
        point, sep, option = pair.partition("=")
        if not sep or not point.strip() or not option.strip():
            raise ValueError(f"--ruling {pair!r}: expected POINT=OPTION, e.g. DISPUTE-31=at_least")
        found[_point_id(point)] = option.strip()
    problems = ruling_problems(found)
    if problems:
        raise ValueError("; ".join(problems))
    return found


def _point_id(text: str) -> str:
    """``DISPUTE-nn`` / ``VARIANT-nn`` in canonical form (upper case, two digits)."""
    kind, _, number = text.strip().upper().rpartition("-")
    return f"{kind}-{int(number):02d}" if number.isdigit() and kind else text.strip()


def _read_rulings_file(path: Path) -> dict[str, str]:
    """A rulings file: a JSON object, or YAML lines ``POINT: OPTION`` (``#`` comments)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"--rulings {path}: cannot read: {exc.strerror}") from None
    if text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"--rulings {path}: not JSON: {exc}") from None
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in data.items()):
            raise ValueError(f"--rulings {path}: every point and option must be a string")
        return {_point_id(k): v for k, v in data.items()}
    found = {}
    for number, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line or line == "---":
            continue
        point, sep, option = line.partition(":")
        option = option.strip().strip("\"'")
        if not sep or not point.strip() or not option:
            raise ValueError(f"--rulings {path}, line {number}: expected 'POINT: OPTION'")
        found[_point_id(point)] = option
    return found
