"""The ``carioca-conformance`` argument parser: every command's options and help.

Apart from :mod:`conformance.cli` so that each reads in one sitting: this module only
declares options; ``args.command`` names the command, and :func:`conformance.cli.main`
calls its function.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable

from conformance import CORPUS_VERSION, __version__
from conformance.adapter.limits import (
    DEFAULT_CASE_TIMEOUT,
    DEFAULT_MAX_LINE_BYTES,
    DEFAULT_START_TIMEOUT,
    DEFAULT_TIMEOUT,
)
from conformance.adapter.memlimit import DEFAULT_MEMORY_LIMIT
from conformance.knowledge.profiles import DEFAULT_PROFILE

EPILOG = """exit codes:
  0  nothing unexpected, and something was graded
  1  failures, errors, cases not run, broken laws, xpass under --strict, or an
     op answered in some cases and refused as unsupported in others
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
    "also send malformed and borderline requests (a missing field, a wrong type, an unknown "
    "op or card code...) and check each gets the answer the protocol requires"
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

    def common_corpus(p: argparse.ArgumentParser) -> None:
        p.add_argument("paths", nargs="*", help="scenario files or directories")
        p.add_argument("--corpus", metavar="PATH", help="corpus directory (default: the bundled)")

    run = sub.add_parser(
        "run",
        help="run the corpus against an adapter",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    common_corpus(run)
    run.add_argument("--adapter", metavar="CMD", help="adapter command (default: the reference)")
    run.add_argument("--rule", action="append", metavar="ID", help="rule ID or prefix")
    run.add_argument("--tag", action="append", metavar="TAG")
    run.add_argument("--scenario", action="append", metavar="ID")
    run.add_argument(
        "--profile",
        default=DEFAULT_PROFILE,
        help="the profile graded; 'all': every profile the engine lists, one after another",
    )
    run.add_argument("--skip-broken", action="store_true", help="run despite broken scenarios")
    run.add_argument("--workers", type=integer(1, MAX_WORKERS), default=1, metavar="N")
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
        "--max-response-bytes", type=integer(1, 2**31), default=DEFAULT_MAX_LINE_BYTES, metavar="N"
    )
    run.add_argument("--max-consecutive-errors", type=integer(1, MAX_COUNT), default=5, metavar="N")
    run.add_argument(
        "--memory-limit",
        type=memory_size,
        default=DEFAULT_MEMORY_LIMIT,
        metavar="SIZE",
        help="most resident memory of the adapter and its children (2G, 512M; 0: no limit); "
        "each of --workers N adapters has its own (default: 2G)",
    )

    check = sub.add_parser("check", help="validate scenario files")
    common_corpus(check)
    check.add_argument(
        "--strict",
        action="store_true",
        help="fail on scenarios not yet reviewed (review: draft) and on the audit's static "
        "findings (a by_option equal for every option, an assumption on a point no profile "
        "of the case rules on)",
    )
    check.add_argument(
        "--profile",
        help="also count the cases of this profile (every case is always checked with the "
        "facts of each profile it lists)",
    )

    cov = sub.add_parser("coverage", help="rule and dispute coverage of the corpus")
    common_corpus(cov)
    cov.add_argument("--json", metavar="FILE")
    cov.add_argument(
        "--profile",
        default=DEFAULT_PROFILE,
        help="count this profile's rules and cases; 'all': every profile, one line each "
        "and what is uncovered",
    )
    cov.add_argument(
        "--executed",
        action="store_true",
        help="play each profile's cases on the tracing reference and fail on a cited rule "
        "that never fires (--profile all: every profile)",
    )

    smoke = sub.add_parser("smoke", help="check that an adapter speaks the protocol")
    smoke.add_argument("--adapter", metavar="CMD", required=True)
    smoke.add_argument("--timeout", type=seconds, default=DEFAULT_TIMEOUT)
    smoke.add_argument("--hostile", action="store_true", help=HOSTILE_HELP)
    smoke.add_argument(
        "--profile", default=DEFAULT_PROFILE, help="probe this profile (the handshake must list it)"
    )

    aud = sub.add_parser(
        "audit",
        help="prove every case names the disputed points and variants it leans on; "
        "--graded: the graded share under each honest declaration",
        description="Run the corpus against the reference once at the profile's rulings and "
        "once per single-option change (each other option of each DISPUTE and VARIANT). "
        "Every case must pass, or be unsupported because it names that point; anything "
        "else is listed as case, point=option and the run exits 1. With --graded: the "
        "share of the profile's checks graded under each change (worst first) or under "
        "each --rulings FILE; exit 1 under the floor or on any failing check "
        "(docs/adding-scenarios.md, 'The audit').",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    common_corpus(aud)
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
        help="with --graded: the least share each ruling must keep "
        "(default 0.97; 0.90 with --rulings)",
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

    rep = sub.add_parser(
        "report",
        help="HTML/Markdown page from JSON reports; 'report diff', 'report merge'",
        description="report REPORT.json... --html FILE [--markdown FILE] [--fuzz FUZZ.json]\n"
        "  one page for the runs of one or more engines\n"
        "report diff OLD.json NEW.json [--max-graded-drop SHARE]\n"
        "  what changed between two runs of one engine; exit 1 on a new failure,\n"
        "  4 when graded checks fell by more than SHARE (0.05 or 5%; 0: any fall)\n"
        "report merge REPORT.json... -o OUT.json\n"
        "  one report from the shards of one run (run --shard K/N)\n"
        "report merge --fuzz F1.json --fuzz F2.json -o OUT.json\n"
        "  one fuzz report from fuzz shards\n"
        "See docs/reports.md.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    rep.add_argument(
        "reports", nargs="*", metavar="REPORT.json", help="'diff' or 'merge', then report files"
    )
    rep.add_argument("--html", metavar="FILE", help="write the HTML page")
    rep.add_argument("--markdown", metavar="FILE", help="write a Markdown digest")
    rep.add_argument(
        "--fuzz", action="append", metavar="FILE", help="a fuzz report to show (or merge)"
    )
    rep.add_argument("-o", "--output", metavar="FILE", help="report merge: the merged report")
    rep.add_argument("--title", default="Carioca conformance", help="the page title")
    rep.add_argument("--max-graded-drop", metavar="SHARE", help="report diff: the gate above")

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

    fz = sub.add_parser("fuzz", help="differential fuzzing against the reference (docs/fuzzing.md)")
    fz.add_argument(
        "--adapter", metavar="CMD", help="the engine under test (default: the reference)"
    )
    fz.add_argument("--games", type=integer(0, MAX_COUNT), default=100, metavar="N")
    fz.add_argument("--seed", type=integer(0, MAX_SEED), default=0, metavar="S")
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
    fz.add_argument("--profile", default="argentine")
    fz.add_argument("--catalogue", metavar="FILE", help=argparse.SUPPRESS)
    fz.add_argument("--timeout", type=seconds, default=DEFAULT_TIMEOUT)
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
    return parser
