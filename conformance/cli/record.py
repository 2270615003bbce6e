"""``carioca-conformance record``: a draft scenario from an engine's answers
(:mod:`conformance.authoring.record`)."""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from conformance.adapter.limits import DEFAULT_TIMEOUT
from conformance.cli.args import seconds
from conformance.cli.common import UsageError, parse_adapter, profile_name
from conformance.knowledge.profiles import DEFAULT_PROFILE
from conformance.run.exitcodes import EXIT_ADAPTER, EXIT_OK

if TYPE_CHECKING:
    from conformance.cli.args import Subparsers


def cmd_record(args: argparse.Namespace) -> int:
    """Run actions through an engine and write a draft scenario with what it observed."""
    from conformance.authoring.record import RecordError, record_to_file
    from conformance.errors import EngineError

    argv = parse_adapter(args.adapter)
    profile_name(args)
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
            points=args.point or (),
        )
    except RecordError as exc:
        raise UsageError(str(exc)) from None
    except EngineError as exc:
        print(f"error: adapter {shlex.join(argv)!r} failed: {exc}", file=sys.stderr)
        return EXIT_ADAPTER
    print(f"wrote draft scenario {args.output} (review: draft; check every expectation)")
    return EXIT_OK


def add_parser(sub: Subparsers) -> None:
    """Declare ``record`` and its options."""
    rec = sub.add_parser(
        "record",
        help="write a draft scenario from an engine's answers",
        description="Play a setup and a list of actions through an engine (the reference by "
        "default) and write what it answered as a draft scenario (review: draft) to check "
        "against the rules text. With --point, play them under every option of the point "
        "and write a value per option where the answers differ.",
    )
    rec.add_argument(
        "--setup",
        required=True,
        metavar="FILE",
        help="YAML file holding the case's setup block (state, deal or new_game)",
    )
    rec.add_argument(
        "--actions",
        required=True,
        metavar="FILE",
        help="YAML file holding the list of actions (or steps) to play",
    )
    rec.add_argument(
        "-o", "--output", required=True, metavar="OUT", help="where to write the draft YAML"
    )
    rec.add_argument(
        "--adapter",
        metavar="CMD",
        help="the engine's adapter command (default: the reference; "
        "'python -m reference.adapter --ruling POINT=OPTION' records another option)",
    )
    rec.add_argument(
        "--point",
        action="append",
        metavar="ID",
        help="play the case under every option of this disputed point or house variant "
        "(repeat for several: every combination) and write by_option values where the "
        "answers differ; the adapter must take the reference's --ruling flag",
    )
    rec.add_argument("--id", default="cc-0000", help="scenario id to give the draft")
    rec.add_argument(
        "--title",
        default="Recorded draft: describe the case",
        help="the draft's title (default: a placeholder to replace)",
    )
    rec.add_argument(
        "--rule", action="append", metavar="ID", help="a rule ID the case tests (repeat)"
    )
    rec.add_argument(
        "--profile",
        default=DEFAULT_PROFILE,
        help=f"the profile the case is written for (default: {DEFAULT_PROFILE})",
    )
    rec.add_argument(
        "--timeout",
        type=seconds,
        default=DEFAULT_TIMEOUT,
        help=f"seconds to wait for each answer (default: {DEFAULT_TIMEOUT:g})",
    )
