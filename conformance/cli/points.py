"""``carioca-conformance points``: a new disputed point in a checkout, and the files that
follow from the catalogue (:mod:`conformance.authoring.points`)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from conformance.cli.common import UsageError
from conformance.run.exitcodes import EXIT_FAILED, EXIT_OK

if TYPE_CHECKING:
    from conformance.cli.args import Subparsers


def _pairs(values: list[str] | None, flag: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for value in values or []:
        key, sep, rest = value.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"{flag} {value!r}: expected KEY=TEXT")
        if key.strip() in found:
            raise UsageError(f"{flag} {key.strip()} given twice")
        found[key.strip()] = rest.strip()
    return found


def cmd_points(args: argparse.Namespace) -> int:
    """Scaffold a new point (``new``) or regenerate what follows from the catalogue (``sync``)."""
    from conformance.authoring import points

    root = Path(args.root)
    try:
        if args.action == "sync":
            if args.check:
                stale = points.stale_files(root)
                for path in stale:
                    print(f"stale: {path} (run `carioca-conformance points sync`)")
                return EXIT_FAILED if stale else EXIT_OK
            changed = points.sync(root)
            print("\n".join(f"wrote {path}" for path in changed) or "every file is up to date")
            return EXIT_OK
        new = points.NewPoint(
            title=args.title,
            question=args.question,
            options=_pairs(args.option, "--option"),
            rules=tuple(args.rule or ()),
            profiles=_pairs(args.ruling, "--ruling"),
            observable=not args.not_observable,
        )
        added = points.add_point(root, new)
    except points.PointError as exc:
        raise UsageError(str(exc)) from None
    print(f"added {added.id}")
    print("\n".join(f"wrote {path}" for path in added.written))
    print(f"next: write its prose in {points.RULES_MD} (the TODO lines of its entry), and its")
    print(f'branch in the reference: `if profile.plays("{added.id}", "<option>"):` where the')
    print("rule is decided. Points of the same rules are read at:")
    print("\n".join(f"  {hint}" for hint in added.branch_hints) or "  (none yet)")
    return EXIT_OK


def add_parser(sub: Subparsers) -> None:
    """Declare ``points`` and its options."""
    cmd = sub.add_parser(
        "points",
        help="add a disputed point to a checkout, or regenerate what follows from the catalogue",
        description="In a checkout of this repository: 'new' adds the next disputed point "
        "(catalogue entry, docs/rules.md skeleton, generated files); 'sync' rewrites the "
        "files generated from conformance/data/catalogue.json after an edit to it.",
    )
    cmd.add_argument(
        "action",
        choices=("new", "sync"),
        help="new: scaffold the next DISPUTE-nn; sync: regenerate reference/profiles/"
        "catalogued.py and docs/profiles.md's points table from the catalogue",
    )
    cmd.add_argument(
        "--root",
        default=".",
        metavar="DIR",
        help="the checkout to write in (default: the current folder)",
    )
    cmd.add_argument(
        "--check",
        action="store_true",
        help="sync: write nothing, list the stale files and exit 1 if there are any",
    )
    cmd.add_argument("--title", default="", help="new: the point's short title")
    cmd.add_argument(
        "--question", default="", help="new: the question, one sentence its options answer"
    )
    cmd.add_argument(
        "--option",
        action="append",
        metavar="KEY=MEANING",
        help="new: an option and what it means (repeat; at least two; the first is the one "
        "the profiles play unless --ruling says otherwise)",
    )
    cmd.add_argument(
        "--ruling",
        action="append",
        metavar="PROFILE=KEY",
        help="new: the option a profile plays (repeat); the profiles not named play "
        "argentine's, as they build on it",
    )
    cmd.add_argument(
        "--rule",
        action="append",
        metavar="ID",
        help="new: a rule ID the point bears on (repeat; at least one)",
    )
    cmd.add_argument(
        "--not-observable",
        action="store_true",
        help="new: no game played through the protocol can show the difference",
    )
