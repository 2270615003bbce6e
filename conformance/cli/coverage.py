"""``carioca-conformance coverage``: which rules and disputed points the corpus covers
(:mod:`conformance.authoring.coverage`), or with ``--executed`` which cited rules fire."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from conformance.cli.args import corpus_arguments
from conformance.cli.common import (
    ALL_PROFILES,
    UsageError,
    catalogue_of,
    corpus_label,
    load,
    profile_name,
)
from conformance.knowledge.profiles import DEFAULT_PROFILE
from conformance.reports.outputs import OutputPathError, check_output_paths, emit
from conformance.run.exitcodes import EXIT_FAILED, EXIT_OK, EXIT_USAGE

if TYPE_CHECKING:
    from conformance.cli.args import Subparsers


def cmd_coverage(args: argparse.Namespace) -> int:
    """Print rule and dispute coverage; exit 1 when something is uncovered."""
    from conformance.authoring import coverage

    try:
        check_output_paths([("--json", args.json)])
    except OutputPathError as exc:
        raise UsageError(str(exc)) from None
    catalogue = catalogue_of(args)
    loaded = load(args, catalogue)
    for error in loaded.errors:
        print(error, file=sys.stderr)
    if args.executed:
        from conformance.authoring.execution_coverage import coverage_command
        from conformance.knowledge.profiles import default_profiles

        names = list(default_profiles()) if args.profile == ALL_PROFILES else [profile_name(args)]
        code = coverage_command(loaded.scenarios, catalogue, names, json_path=args.json)
        return EXIT_USAGE if loaded.errors else code
    if args.profile == ALL_PROFILES:
        found = coverage.every_profile_coverage(loaded.scenarios, catalogue)
        emit(coverage.brief_text(found, catalogue, corpus_label(args)))
        data: dict[str, Any] = {"profiles": {n: c.as_json() for n, c in found.items()}}
    else:
        one = coverage.profile_coverage(loaded.scenarios, catalogue, profile_name(args))
        emit(coverage.coverage_text(one, catalogue, corpus_label(args)))
        found, data = {one.profile: one}, one.as_json()
    if args.json:
        from conformance.reports.report import atomic_write_text

        atomic_write_text(args.json, json.dumps(data, indent=2) + "\n")
    if loaded.errors:
        return EXIT_USAGE
    return EXIT_OK if all(c.complete for c in found.values()) else EXIT_FAILED


def add_parser(sub: Subparsers) -> None:
    """Declare ``coverage`` and its options."""
    cov = sub.add_parser("coverage", help="rule and dispute coverage of the corpus")
    corpus_arguments(cov)
    cov.add_argument("--json", metavar="FILE", help="also write the coverage as JSON to FILE")
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
