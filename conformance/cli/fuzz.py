"""``carioca-conformance fuzz``: differential fuzzing against the reference
(docs/fuzzing.md); the campaign and the merge are :mod:`conformance.fuzz.command`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from conformance.adapter.limits import DEFAULT_TIMEOUT
from conformance.cli.args import MAX_COUNT, MAX_SEED, MAX_WORKERS, integer, seconds
from conformance.cli.common import UsageError, catalogue_of, parse_adapter

if TYPE_CHECKING:
    from conformance.cli.args import Subparsers
    from conformance.fuzz.command import Known


def cmd_fuzz(args: argparse.Namespace) -> int:
    """Differential fuzzing against the reference (docs/fuzzing.md); ``--merge`` joins shards."""
    from conformance import fuzz
    from conformance.fuzz import command
    from conformance.run.selection import parse_shard

    out, json_path = Path(args.out), Path(args.json) if args.json else None
    _check_fuzz_paths(args, out)
    known = _fuzz_known(args)
    try:
        if args.merge:
            outcome = command.merge(args.merge, out, json_path=json_path)
        else:
            options = fuzz.FuzzOptions(
                games=args.games, seed=args.seed, workers=args.workers, max_steps=args.max_steps,
                shard=parse_shard(args.shard), only_games=tuple(args.game or ()),
                profile=args.profile, timeout=args.timeout, shrink=not args.no_shrink,
                reasons=args.reasons,
            )  # fmt: skip
            outcome = command.campaign(
                parse_adapter(args.adapter), options, catalogue_of(args), out,
                json_path=json_path, progress=command.progress_printer(), known=known,
            )  # fmt: skip
    except (OSError, ValueError, fuzz.FuzzError) as exc:
        raise UsageError(f"fuzz: {exc}") from None
    print(outcome.text, end="")
    if outcome.problem:
        print(outcome.problem, file=sys.stderr)
    return outcome.exit_code


def _check_fuzz_paths(args: argparse.Namespace, out: Path) -> None:
    """Refuse, before any game, an output that names an input (``--json`` or ``--out``'s
    report over a report ``--merge`` reads, or over ``--expectations``) or cannot be
    written; ``--write-expectations`` may rewrite ``--expectations`` in place."""
    from conformance.reports.outputs import OutputPathError, check_output_paths

    outputs = [("--json", args.json), ("--write-expectations", args.write_expectations)]
    if out.is_dir():
        outputs.append(("--out", str(out / "fuzz-report.json")))
    inputs = [("--expectations", args.expectations)]
    inputs += [("--merge", path) for path in args.merge or ()]
    try:
        check_output_paths(outputs, inputs, rewrites=[("--write-expectations", "--expectations")])
    except OutputPathError as exc:
        raise UsageError(f"fuzz: {exc}") from None


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


def add_parser(sub: Subparsers) -> None:
    """Declare ``fuzz`` and its options."""
    fz = sub.add_parser("fuzz", help="differential fuzzing against the reference (docs/fuzzing.md)")
    fz.add_argument(
        "--adapter", metavar="CMD", help="the engine under test (default: the reference)"
    )
    fz.add_argument(
        "--games",
        type=integer(0, MAX_COUNT),
        default=100,
        metavar="N",
        help="seeded games to play (default: 100)",
    )
    fz.add_argument(
        "--seed",
        type=integer(0, MAX_SEED),
        default=0,
        metavar="S",
        help="the campaign's seed: the same seed plays the same games (default: 0)",
    )
    fz.add_argument(
        "--workers", type=integer(1, MAX_WORKERS), default=1, metavar="N", help="pairs of adapters"
    )
    fz.add_argument("--out", default="fuzz-out", metavar="DIR", help="report and drafts")
    fz.add_argument("--json", metavar="FILE", help="also write the JSON report here")
    fz.add_argument("--shard", default="1/1", metavar="I/N", help="play the I-th of N shares")
    fz.add_argument("--merge", nargs="+", metavar="REPORT", help="merge shard reports")
    fz.add_argument(
        "--game",
        type=integer(0, MAX_COUNT - 1),
        action="append",
        metavar="G",
        help="replay game G only",
    )
    fz.add_argument(
        "--max-steps", type=integer(0, 10**6), default=120, metavar="N", help="steps per game"
    )
    fz.add_argument("--no-shrink", action="store_true", help="keep the examples as found")
    fz.add_argument(
        "--profile", default="argentine", help="the profile played (default: argentine)"
    )
    fz.add_argument("--catalogue", metavar="FILE", help=argparse.SUPPRESS)
    fz.add_argument(
        "--timeout",
        type=seconds,
        default=DEFAULT_TIMEOUT,
        help="seconds to wait for each answer (default: %(default)s)",
    )
    fz.add_argument(
        "--expectations", metavar="FILE", help="known findings: only new ones fail the campaign"
    )
    fz.add_argument(
        "--write-expectations", metavar="FILE", help="write the findings as an expectations file"
    )
    fz.add_argument(
        "--strict", action="store_true", help="an expected finding that did not show fails it"
    )
    fz.add_argument(
        "--reasons",
        choices=("exact", "outcome"),
        default="exact",
        help="compare rejection reasons (exact, the default) or accepted/refused only",
    )
