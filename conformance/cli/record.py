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
    rec = sub.add_parser("record", help="write a draft scenario from an engine's answers")
    rec.add_argument("--setup", required=True, metavar="FILE")
    rec.add_argument("--actions", required=True, metavar="FILE")
    rec.add_argument("-o", "--output", required=True, metavar="OUT")
    rec.add_argument("--adapter", metavar="CMD")
    rec.add_argument("--id", default="cc-0000", help="scenario id to give the draft")
    rec.add_argument("--title", default="Recorded draft: describe the case")
    rec.add_argument("--rule", action="append", metavar="ID")
    rec.add_argument("--profile", default=DEFAULT_PROFILE)
    rec.add_argument("--timeout", type=seconds, default=DEFAULT_TIMEOUT)
