"""The options of ``carioca-conformance run``: the corpus and its selection, the adapter's
limits, the gates, the reports and the laws (apart from :mod:`conformance.cli.run` so that
the command reads in one sitting)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from conformance.adapter.limits import (
    DEFAULT_CASE_TIMEOUT,
    DEFAULT_MAX_LINE_BYTES,
    DEFAULT_START_TIMEOUT,
    DEFAULT_TIMEOUT,
)
from conformance.adapter.memlimit import DEFAULT_MEMORY_LIMIT
from conformance.cli.args import (
    EPILOG,
    HOSTILE_HELP,
    MAX_COUNT,
    MAX_SEED,
    MAX_WORKERS,
    corpus_arguments,
    integer,
    memory_size,
    seconds,
)
from conformance.knowledge.profiles import DEFAULT_PROFILE

if TYPE_CHECKING:
    from conformance.cli.args import Subparsers


def add_parser(sub: Subparsers) -> None:
    """Declare ``run`` and its options."""
    run = sub.add_parser(
        "run",
        help="run the corpus against an adapter",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    corpus_arguments(run)
    run.add_argument("--adapter", metavar="CMD", help="adapter command (default: the reference)")
    run.add_argument("--rule", action="append", metavar="ID", help="rule ID or prefix")
    run.add_argument(
        "--tag", action="append", metavar="TAG", help="only the cases with this tag (repeat)"
    )
    run.add_argument(
        "--scenario", action="append", metavar="ID", help="only the case with this id (repeat)"
    )
    run.add_argument(
        "--profile",
        default=None,
        help="the profile graded (default: the one profile the engine's handshake lists, "
        f"else {DEFAULT_PROFILE}); 'all': every profile the engine lists, one after another",
    )
    run.add_argument("--skip-broken", action="store_true", help="run despite broken scenarios")
    run.add_argument(
        "--workers",
        type=integer(1, MAX_WORKERS),
        default=1,
        metavar="N",
        help="adapters run side by side, one case each (default: 1)",
    )
    run.add_argument(
        "--shard",
        metavar="K/N",
        help="grade only shard K of N of the selection (by id); the N reports merge with "
        "'report merge' (docs/reports.md)",
    )
    run.add_argument(
        "--fresh-process",
        action="store_true",
        help="start a new adapter process for every case (slower; isolates cases)",
    )
    run.add_argument("--json", metavar="FILE", help="write a JSON report")
    run.add_argument("--junit", metavar="FILE", help="write a JUnit XML report")
    run.add_argument(
        "--html", metavar="FILE", help="write the HTML report page of this run (docs/reports.md)"
    )
    run.add_argument("--expectations", metavar="FILE", help="expected failures of this engine")
    run.add_argument(
        "--write-expectations",
        metavar="FILE",
        help="write this run's failures as an expectations file",
    )
    run.add_argument(
        "--by-cause",
        action="store_true",
        help="with --write-expectations: one entry per root cause (its summary, rules and "
        "explaining option, and exactly its checks), to keep or delete as one unit",
    )
    run.add_argument("--strict", action="store_true", help="an xpass fails the run")
    run.add_argument(
        "--no-cache",
        action="store_true",
        help="load the corpus afresh, reading and writing no load cache (the default under "
        "CI; docs/robustness.md says why)",
    )
    run.add_argument(
        "--no-explain",
        action="store_true",
        help="do not ask the reference which disputed option or house variant explains the "
        "failing checks (the causes are still grouped; docs/reports.md)",
    )
    run.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="print only what fails the run (failures, errors, not run, xpass) and the summary "
        "line (with --profile all: one line per profile)",
    )
    run.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="also list every case that did not pass, every disputed case, the whole rulings "
        "table and every law (by default only what differs is detailed)",
    )
    run.add_argument(
        "--min-graded",
        metavar="SHARE",
        help="exit 4 unless at least this share of the checks is graded (0.9 or 90%%); "
        "with --profile all, in every profile",
    )
    run.add_argument(
        "--all-players",
        action="store_true",
        help="exit 4 unless the engine plays every player count of the profile's text",
    )
    run.add_argument(
        "--properties",
        action="store_true",
        help="also play seeded deals and check laws that hold in every state "
        "(needs an engine with turns and deals)",
    )
    run.add_argument(
        "--seed", type=integer(0, MAX_SEED), default=0, help="seed of the --properties deals"
    )
    run.add_argument("--hostile", action="store_true", help=HOSTILE_HELP)
    run.add_argument(
        "--deals",
        type=integer(1, 1000),
        default=7,
        metavar="N",
        help="deals played by --properties",
    )
    run.add_argument("--timeout", type=seconds, default=DEFAULT_TIMEOUT, help="per-request seconds")
    run.add_argument(
        "--start-timeout",
        type=seconds,
        default=DEFAULT_START_TIMEOUT,
        help="seconds the adapter may take to start and answer hello (slow VMs need more)",
    )
    run.add_argument(
        "--case-timeout", type=seconds, default=DEFAULT_CASE_TIMEOUT, help="per-case seconds"
    )
    run.add_argument(
        "--max-response-bytes",
        type=integer(1, 2**31),
        default=DEFAULT_MAX_LINE_BYTES,
        metavar="N",
        help="longest answer line accepted from the adapter; a longer one is a protocol error "
        "(default: %(default)s)",
    )
    run.add_argument(
        "--max-consecutive-errors",
        type=integer(1, MAX_COUNT),
        default=5,
        metavar="N",
        help="after this many cases in a row end in error, the rest are not run (default: 5)",
    )
    run.add_argument(
        "--memory-limit",
        type=memory_size,
        default=DEFAULT_MEMORY_LIMIT,
        metavar="SIZE",
        help="most resident memory of the adapter and its children (2G, 512M; 0: no limit); "
        "each of --workers N adapters has its own (default: 2G)",
    )
