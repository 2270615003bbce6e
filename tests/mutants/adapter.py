"""The reference adapter with one rule mutant applied.

Run from the repository root::

    python -m tests.mutants.adapter --mutant NAME [reference adapter options]

Every option other than ``--mutant`` goes to ``reference.adapter`` unchanged (for example
``--capabilities melds,turns``). ``--list`` prints the mutant names and exits.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import reference.adapter_cli

from .mutants import MUTANTS, apply_mutant


def main(argv: Sequence[str] | None = None) -> None:
    """Apply the named mutant, then serve the protocol exactly as the reference adapter does."""
    parser = argparse.ArgumentParser(
        prog="tests.mutants.adapter", description=__doc__.splitlines()[0]
    )
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--mutant", choices=sorted(MUTANTS), help="the mutant to apply")
    group.add_argument("--list", action="store_true", help="print the mutant names and exit")
    args, rest = parser.parse_known_args(argv)
    if args.list:
        for name, mutant in MUTANTS.items():
            print(f"{name}\t{','.join(mutant.rules)}\t{mutant.description}")
        return
    apply_mutant(args.mutant)
    # The banner goes to stderr: stdout carries protocol lines only.
    print(f"reference engine with mutant {args.mutant!r}", file=sys.stderr)
    reference.adapter_cli.main(rest)


if __name__ == "__main__":
    main()
