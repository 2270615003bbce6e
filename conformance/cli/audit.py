"""``carioca-conformance audit``: the corpus run under every single-option change of the
rulings; the work is :func:`conformance.audit.command.run_audit`, given a frozen
:class:`~conformance.audit.command.AuditRequest` built here."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from conformance.cli.args import EPILOG, MAX_WORKERS, corpus_arguments, integer
from conformance.cli.common import (
    ALL_PROFILES,
    UsageError,
    catalogue_of,
    given,
    load,
    parse_adapter,
    profile_name,
)
from conformance.knowledge.profiles import DEFAULT_PROFILE
from conformance.run import selection
from conformance.run.exitcodes import EXIT_ADAPTER, EXIT_FAILED, EXIT_OK, EXIT_USAGE

if TYPE_CHECKING:
    from conformance.audit.declared import RulingsFile
    from conformance.cli.args import Subparsers


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
    for flag, share in (("--floor", args.floor), ("--min", args.min)):
        if share is not None and not 0.0 <= share <= 1.0:
            raise UsageError(f"{flag} must be a share between 0 and 1 (0.9)")
    if (args.rulings or args.floor is not None) and not args.graded:
        raise UsageError("--rulings and --floor go with --graded")
    if args.min is not None and not args.rulings:
        raise UsageError("--min goes with --rulings")
    lacking = args.engine_readings or args.capabilities is not None or args.unsupported
    if lacking and not args.rulings:
        raise UsageError("--engine-readings, --capabilities and --unsupported go with --rulings")
    if (args.json or args.allowance or args.write_allowance) and not (
        args.graded or args.both_ways
    ):
        raise UsageError(
            "--json, --allowance and --write-allowance go with --graded or --both-ways"
        )
    catalogue = catalogue_of(args)
    loaded = load(args, catalogue)
    if loaded.errors:
        for error in loaded.errors:
            print(error, file=sys.stderr)
        return EXIT_USAGE
    unknown = sorted(set(args.point or ()) - set(catalogue.disputes))
    if unknown:
        raise UsageError(f"unknown point(s): {', '.join(unknown)}")
    profiles = list(default_profiles()) if args.profile == ALL_PROFILES else [profile_name(args)]
    try:
        rulings = tuple(read_rulings(Path(f), catalogue) for f in args.rulings or ())
        rulings = _as_engine(rulings, args)
        allowance = read_allowance(Path(args.allowance)) if args.allowance else None
    except (RulingsFileError, AllowanceError) as exc:
        raise UsageError(str(exc)) from None
    paths, corpus = given(args)
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
            min_share=args.min,
            json_path=Path(args.json) if args.json else None,
            both_ways=args.both_ways,
            allowance=allowance,
            write_allowance=Path(args.write_allowance) if args.write_allowance else None,
            whole_corpus=not paths,
            pairs=args.pairs,
        )
    )
    print(output.text, end="")
    if args.json:
        print(f"audit report: {args.json}")
    return {"ok": EXIT_OK, "broken": EXIT_ADAPTER}.get(output.outcome, EXIT_FAILED)


def add_parser(sub: Subparsers) -> None:
    """Declare ``audit`` and its options."""
    aud = sub.add_parser(
        "audit",
        help="prove every case names the disputed points and variants it leans on; "
        "--graded: the graded share under each honest declaration",
        description="Run the corpus against the reference once at the profile's rulings and "
        "once per single-option change (each other option of each DISPUTE and VARIANT). "
        "Every case must pass, or be unsupported because it names that point; anything "
        "else is listed as case, point=option and the run exits 1. With --graded: the "
        "share of the profile's checks graded under each change (worst first) or under "
        "each --rulings FILE; exit 1 under the floor or on any failing check (for "
        "--rulings files only with --min SHARE: without it they are measured) "
        "(docs/adding-scenarios.md, 'The audit').",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    corpus_arguments(aud)
    aud.add_argument(
        "--adapter",
        metavar="CMD",
        help="adapter command that accepts the reference's --ruling and --interface "
        "(default: the reference)",
    )
    aud.add_argument("--point", action="append", metavar="ID", help="audit only these points")
    aud.add_argument("--profile", default=DEFAULT_PROFILE, help="a profile, or 'all'")
    aud.add_argument(
        "--workers",
        type=integer(0, MAX_WORKERS),
        default=0,
        metavar="N",
        help="processes (default: one per CPU)",
    )
    aud.add_argument(
        "--graded",
        action="store_true",
        help="measure the share of each profile's checks graded under each change",
    )
    aud.add_argument(
        "--rulings",
        action="append",
        metavar="FILE",
        help="with --graded: measure these declarations (points and options, run_order, "
        "run_ends, unmodelled, players) instead of the single-option changes; repeatable",
    )
    aud.add_argument(
        "--engine-readings",
        action="store_true",
        help="with --rulings: measure each file also as an engine that arranges its runs, "
        "picks the ends and keeps no dealer or winners (run_order and run_ends engine, "
        "unmodelled dealer and winners)",
    )
    aud.add_argument(
        "--capabilities",
        metavar="LIST",
        help="with --rulings: the capabilities the engine claims (melds,turns,...), in place "
        "of each file's; the share then counts what such an engine is graded on",
    )
    aud.add_argument(
        "--unsupported",
        action="append",
        default=[],
        metavar="OP",
        help="with --rulings: an op or action type the engine answers unsupported "
        "(as smoke lists them); repeatable",
    )
    aud.add_argument(
        "--floor",
        type=float,
        metavar="SHARE",
        help="with --graded: the least share each single-option change must keep (default 0.97)",
    )
    aud.add_argument(
        "--min",
        type=float,
        metavar="SHARE",
        help="with --rulings: fail (exit 1) when a declaration keeps less than this share "
        "of the profile's checks (0.9), or a check fails under it; without it the "
        "declarations are measured and the command exits 0",
    )
    aud.add_argument(
        "--pairs",
        action="store_true",
        help="also play each pair of options of two points touching the same rule section "
        "(with --point: pairs holding one of them) on the cases leaning on either, and list "
        "the pairs answering otherwise than each option alone (to judge; the exit code "
        "does not change)",
    )
    aud.add_argument(
        "--both-ways",
        action="store_true",
        help="also report every assumption a check does not need, and every case-level "
        "assumption only some of its checks need (grading them anyway under each option)",
    )
    aud.add_argument(
        "--json", metavar="FILE", help="with --graded or --both-ways: write the findings as JSON"
    )
    aud.add_argument(
        "--allowance",
        metavar="FILE",
        help="what the corpus does not meet yet (rows' shares today, failing checks, "
        "assumptions): fail only on what it does not list",
    )
    aud.add_argument(
        "--write-allowance", metavar="FILE", help="write an allowance file for what this run found"
    )
