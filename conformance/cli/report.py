"""``carioca-conformance report``: the HTML/Markdown page of JSON reports, ``report diff``
(what changed between two runs) and ``report merge`` (one report from shards)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from conformance.cli.args import EPILOG
from conformance.cli.common import UsageError, catalogue_of
from conformance.reports.outputs import OutputPathError, check_output_paths, emit, write_all
from conformance.run.exitcodes import EXIT_FAILED, EXIT_OK, EXIT_UNGRADED, EXIT_USAGE

if TYPE_CHECKING:
    from conformance.cli.args import Subparsers


def cmd_report(args: argparse.Namespace) -> int:
    """Build the HTML/Markdown page, compare two runs (``diff``) or merge shards (``merge``)."""
    from conformance.reports.report_tools import ReportError

    if args.max_graded_drop is not None and args.reports[:1] != ["diff"]:
        raise UsageError("--max-graded-drop is for 'report diff' only")
    try:
        if args.reports[:1] == ["diff"]:
            return _report_diff(args)
        if args.reports[:1] == ["merge"]:
            return _report_merge(args)
        return _report_page(args)
    except ReportError as exc:
        raise UsageError(str(exc)) from None


def _report_page(args: argparse.Namespace) -> int:
    from conformance.reports.html_report import html_pieces
    from conformance.reports.markdown_report import render_markdown
    from conformance.reports.report import atomic_write_text
    from conformance.reports.report_tools import load_fuzz_report, load_report

    if not args.reports:
        raise UsageError("report: give at least one JSON run report")
    if not (args.html or args.markdown):
        raise UsageError("report: say what to write: --html FILE and/or --markdown FILE")
    if args.output:
        raise UsageError("report: -o is for 'report merge'; write pages with --html/--markdown")
    try:
        check_output_paths(
            [("--html", args.html), ("--markdown", args.markdown)], _report_inputs(args)
        )
    except OutputPathError as exc:
        raise UsageError(str(exc)) from None
    reports = [load_report(path) for path in args.reports]
    for report in reports:
        if report.recount_note:  # the page says it too, under the report's badge line
            print(f"warning: {report.recount_note}", file=sys.stderr)
    fuzz = [load_fuzz_report(path) for path in args.fuzz or ()]
    catalogue = catalogue_of(args)
    jobs = []
    if args.html:
        page = html_pieces(reports, catalogue, fuzz=fuzz, title=args.title)
        jobs.append(("--html", args.html, lambda: atomic_write_text(args.html, page)))
    if args.markdown:
        digest = render_markdown(reports, catalogue, fuzz=fuzz)
        jobs.append(("--markdown", args.markdown, lambda: atomic_write_text(args.markdown, digest)))
    failures = write_all(jobs)
    for failure in failures:
        print(f"error: {failure}", file=sys.stderr)
    for option, path, _job in jobs:
        if not any(path in failure for failure in failures):
            print(f"wrote {option[2:]} {path} ({len(reports)} report(s))")
    return EXIT_USAGE if failures else EXIT_OK


def _report_inputs(
    args: argparse.Namespace, paths: list[str] | None = None
) -> list[tuple[str, str | None]]:
    """The reports a ``report`` command reads, which none of its outputs may name."""
    reports = args.reports if paths is None else paths
    return [
        *(("report", path) for path in reports),
        *(("--fuzz", path) for path in args.fuzz or ()),
    ]


def _report_diff(args: argparse.Namespace) -> int:
    from conformance.reports.report_tools import diff_reports, diff_text, load_report

    paths = args.reports[1:]
    if len(paths) != 2:
        raise UsageError("report diff: give exactly two reports, OLD.json NEW.json")
    if args.html or args.markdown or args.output or args.fuzz:
        raise UsageError("report diff takes no --html, --markdown, -o or --fuzz")
    most = _share(args.max_graded_drop, "--max-graded-drop")
    old, new = load_report(paths[0]), load_report(paths[1])
    diff = diff_reports(old, new)
    emit(diff_text(old, new, diff))
    code = EXIT_FAILED if diff.regressed else EXIT_OK
    if most is not None:
        from conformance.run.verdict import case_tally, graded_drop, worst

        # Checks when both reports carry them (format 2), else cases.
        if old.format >= 2 and new.format >= 2:
            fell = graded_drop(old.checks, new.checks, most)
        else:
            before, after = case_tally(old.results), case_tally(new.results)
            fell = graded_drop(before, after, most, "cases")
        if fell is not None:
            print(f"error: {fell} (exit {EXIT_UNGRADED})", file=sys.stderr)
            code = worst([code, EXIT_UNGRADED])
    return code


def _share(text: str | None, option: str) -> float | None:
    """A share option's value (None when not given), or a usage error naming it."""
    from conformance.run.verdict import parse_share

    if text is None:
        return None
    try:
        return parse_share(text, option)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def _report_merge(args: argparse.Namespace) -> int:
    from conformance.fuzz.report import report_pieces as report_pieces_of_fuzz
    from conformance.io.jsonsafe import TooLargeToRead, compact_pieces, within_read_limit
    from conformance.reports.report import atomic_write_text, report_pieces
    from conformance.reports.report_tools import (
        load_fuzz_report,
        load_report,
        merge_fuzz_reports,
        merge_reports,
    )

    paths = args.reports[1:]
    if not args.output:
        raise UsageError("report merge: say where to write the merged report: -o OUT.json")
    if args.html or args.markdown:
        raise UsageError("report merge writes JSON only; build the page from its output")
    if paths and args.fuzz:
        raise UsageError("report merge: merge run reports or fuzz reports (--fuzz), not both")
    if not paths and not args.fuzz:
        raise UsageError("report merge: give the reports to merge")
    try:
        check_output_paths([("-o", args.output)], _report_inputs(args, paths))
    except OutputPathError as exc:
        raise UsageError(str(exc)) from None
    if args.fuzz:
        merged = merge_fuzz_reports([load_fuzz_report(p) for p in args.fuzz])
        what = f"{len(merged['findings'])} finding(s)"
    else:
        merged = merge_reports([load_report(p) for p in paths], catalogue_of(args))
        what = ", ".join(entry["line"] for entry in merged["badges"])

    def write() -> None:
        # Never a file its readers refuse: checked numbers, and no larger than they read;
        # the readable layout, else (a merge near the limit) the compact one.
        text = report_pieces_of_fuzz(merged) if args.fuzz else report_pieces(merged)
        try:
            atomic_write_text(args.output, within_read_limit(text, "the merged report"))
        except TooLargeToRead:
            compact = within_read_limit(compact_pieces(merged), "the merged report")
            atomic_write_text(args.output, compact)

    failures = write_all([("-o", args.output, write)])
    for failure in failures:
        print(f"error: {failure}", file=sys.stderr)
    if failures:
        return EXIT_USAGE
    print(f"merged {len(paths or args.fuzz)} report(s) into {args.output}: {what}")
    return EXIT_OK


def add_parser(sub: Subparsers) -> None:
    """Declare ``report`` and its options."""
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
