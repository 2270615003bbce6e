"""``carioca-conformance check``: validate scenario files (schema and semantic checks;
with ``--strict`` also drafts and the audit's static findings)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from conformance.cli.args import corpus_arguments
from conformance.cli.common import catalogue_of, corpus_label, index, load, profile_name
from conformance.run.exitcodes import EXIT_OK, EXIT_USAGE
from conformance.scenarios import LoadResult

if TYPE_CHECKING:
    from conformance.cli.args import Subparsers


def cmd_check(args: argparse.Namespace) -> int:
    """Validate scenario files: schema and semantic checks."""
    profile = profile_name(args) if args.profile is not None else None
    catalogue = catalogue_of(args)
    # Without --strict each case's entry is enough, and an unchanged corpus's index is
    # read without decoding its cases; --strict audits the cases whole.
    loaded = (load if args.strict else index)(args, catalogue)
    for error in loaded.errors:
        print(error, file=sys.stderr)
    if loaded.errors:
        print(f"{len(loaded.errors)} problem(s) in {len(loaded.files)} file(s)", file=sys.stderr)
        return EXIT_USAGE
    cases = loaded.scenarios if isinstance(loaded, LoadResult) else loaded.entries
    drafts = [s for s in cases if s.review != "checked"]
    for draft in drafts:
        print(
            f"{draft.where()}: [{draft.id}] review: {draft.review}: check every expectation "
            "against the rules text, then set review: checked",
            file=sys.stderr,
        )
    if drafts and args.strict:
        print(f"{len(drafts)} scenario(s) not yet reviewed (--strict)", file=sys.stderr)
        return EXIT_USAGE
    if isinstance(loaded, LoadResult):
        # What the audit can tell without running (conformance/audit/static.py).
        from conformance.audit.static import static_findings

        found = static_findings(loaded.scenarios, catalogue)
        for finding in found:
            print(finding.line(), file=sys.stderr)
        if found:
            print(f"{len(found)} audit finding(s) (--strict)", file=sys.stderr)
            return EXIT_USAGE
    # Every case is checked with the facts of each profile it lists; --profile counts one.
    per_profile = ""
    if profile is not None:
        count = sum(profile in s.profiles for s in cases)
        per_profile = f"; {count} for profile {profile}"
    print(
        f"{len(cases)} scenarios in {len(loaded.files)} files: OK "
        f"(corpus {corpus_label(args)}{per_profile})"
    )
    return EXIT_OK


def add_parser(sub: Subparsers) -> None:
    """Declare ``check`` and its options."""
    check = sub.add_parser("check", help="validate scenario files")
    corpus_arguments(check)
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
