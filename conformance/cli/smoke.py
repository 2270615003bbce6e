"""``carioca-conformance smoke``: does an adapter speak the protocol at all
(:mod:`conformance.laws.smoke`)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from conformance.adapter.limits import DEFAULT_TIMEOUT
from conformance.cli.args import HOSTILE_HELP, seconds
from conformance.cli.common import handshake_default, parse_adapter, profile_name
from conformance.knowledge.profiles import DEFAULT_PROFILE
from conformance.run.exitcodes import EXIT_ADAPTER, EXIT_FAILED, EXIT_OK

if TYPE_CHECKING:
    from conformance.cli.args import Subparsers


def cmd_smoke(args: argparse.Namespace) -> int:
    """Tell a broken adapter from an engine that merely disagrees with the rules."""
    from conformance.laws.smoke import smoke

    handshake_default(args, timeout=args.timeout, start_timeout=args.timeout)
    profile = profile_name(args)
    result = smoke(
        parse_adapter(args.adapter), timeout=args.timeout, profile=profile, hostile=args.hostile
    )
    print(f"profile {profile}")
    for check in result.checks:
        detail = f": {check.detail}" if check.detail else ""
        print(f"{'ok  ' if check.ok else 'FAIL'} {check.name}{detail}")
    if result.stderr_tail and result.verdict != "engine_ok":
        print("adapter stderr (tail):")
        print(result.stderr_tail.rstrip())
    print(f"verdict: {result.verdict}")
    if result.verdict == "engine_ok":
        return EXIT_OK
    if result.verdict == "profile_unsupported":
        return EXIT_ADAPTER  # as run does: the engine cannot be graded on this profile
    # An adapter that never got through start/handshake gets the documented exit 3.
    passed = {check.name: check.ok for check in result.checks}
    if not (passed.get("started") and passed.get("handshake")):
        return EXIT_ADAPTER
    return EXIT_FAILED


def add_parser(sub: Subparsers) -> None:
    """Declare ``smoke`` and its options."""
    smoke = sub.add_parser("smoke", help="check that an adapter speaks the protocol")
    smoke.add_argument(
        "--adapter", metavar="CMD", required=True, help="the engine's adapter command"
    )
    smoke.add_argument(
        "--timeout",
        type=seconds,
        default=DEFAULT_TIMEOUT,
        help="seconds to wait for each answer (default: %(default)s)",
    )
    smoke.add_argument("--hostile", action="store_true", help=HOSTILE_HELP)
    smoke.add_argument(
        "--profile",
        default=None,
        help="probe this profile, which the handshake must list (default: the one profile "
        f"it lists, else {DEFAULT_PROFILE})",
    )
