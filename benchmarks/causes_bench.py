"""How many cause lines one bug reads as, whether its hints are true, and what explaining costs.

Every single-fault engine of tests/mutants/ (the reference with one rule broken, served
through the protocol, docs/mutants.md) is run on its profile's slice of the corpus as the
command line runs it by default (five consecutive errors stop it), its failing checks are
grouped into causes and explained (conformance/reports/causes.py, explain.py), and this
reports, per mutant, the causes printed, the hints given, the seconds spent grading and
explaining, and with ``--verify`` whether each hint holds: the mutant run again graded as
if it declared the hinted option(s) must fail no check of that cause and no check
it passed. The summary gives the share of mutants printing exactly one cause, the mean
and the most (targets: at least 85%, at most 1.3, at most 4), the hints that failed
their proof, and the worst ratio of explaining time to grading time, counted from at least
one second (target: at most 2).
``--engine COMMAND`` measures any adapter the same way on the Argentine corpus, such as an
engine that refuses every action it must accept. Run from the repository root::

    PYTHONPATH=. python benchmarks/causes_bench.py [--mutant NAME ...] [--verify] [--workers 2]
        [--json out.json] [--lines] [--engine "python3 tests/fake_adapters/house_engine.py
        --refuse-every 1"]
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from conformance.run.budget import FLOOR  # noqa: E402
from tests.mutants import harness  # noqa: E402
from tests.mutants.causes import COST, MEAN, MOST, ONE_SHARE, Measured, corpus_of, measure  # noqa: E402
from tests.mutants.mutants import MUTANTS  # noqa: E402


def main(argv: Sequence[str] | None = None) -> int:
    """Measure the mutants asked for (default: every one); 1 when a target is missed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mutant", action="append", choices=sorted(MUTANTS), metavar="NAME")
    parser.add_argument("--verify", action="store_true", help="prove every hint by declaring it")
    parser.add_argument("--workers", type=int, default=2, help="mutants measured side by side")
    parser.add_argument("--json", help="write every mutant's figures to this file")
    parser.add_argument("--lines", action="store_true", help="print every cause line")
    parser.add_argument(
        "--engine",
        action="append",
        default=[],
        metavar="COMMAND",
        help="also an adapter command, on the Argentine corpus (say the refuse-everything "
        "engine: tests/fake_adapters/house_engine.py --refuse-every 1)",
    )
    args = parser.parse_args(argv)
    harness.make_root_importable()
    corpora = {harness.PROFILE: harness.load()}
    names = args.mutant or ([] if args.engine else list(MUTANTS))
    chosen = [(name, *corpus_of(name, corpora)) for name in names]
    chosen += [(command, corpora[harness.PROFILE], harness.PROFILE) for command in args.engine]

    def one(item: tuple[str, harness.Corpus, str]) -> Measured:
        name, corpus, profile = item
        command = shlex.split(name) if name in args.engine else None
        found = measure(name, corpus, profile, args.verify, command)
        hints = f" hints {len(found.hints)}" + (
            f" FALSE {len(found.false_hints)}" if found.false_hints else ""
        )
        print(
            f"{name:<40} causes {len(found.causes):>3}{hints}  grade {found.grading:5.1f} s  "
            f"explain {found.explaining:5.1f} s" + ("  STOPPED" if found.stopped else ""),
            flush=True,
        )
        if args.lines:
            for line in found.causes:
                print(f"    {line}")
        for line in found.false_hints:
            print(f"    false hint: {line}")
        return found

    with ThreadPoolExecutor(max_workers=max(1, args.workers)) as pool:
        measured = list(pool.map(one, chosen))
    counts = [len(m.causes) for m in measured]
    ones = sum(1 for n in counts if n == 1)
    share = ones / len(counts) if counts else 1.0
    mean = sum(counts) / len(counts) if counts else 0.0
    most = max(counts, default=0)
    # The bound counts a run's grading from at least FLOOR seconds (explain.py).
    ratio = max((m.explaining / max(m.grading, FLOOR) for m in measured), default=0.0)
    hints = sum(len(m.hints) for m in measured)
    false = sum(len(m.false_hints) for m in measured)
    stopped = sum(1 for m in measured if m.stopped)
    print(
        f"\n{len(measured)} mutants: exactly one cause {ones} ({share:.0%}), mean {mean:.2f}, "
        f"most {most}; hints {hints}"
        + (f", {false} false" if args.verify else " (not verified)")
        + f"; stopped early {stopped}; explaining / grading (from {FLOOR:g} s) at most "
        + f"{ratio:.2f}"
    )
    if args.json:
        Path(args.json).write_text(
            json.dumps([m.__dict__ for m in measured], indent=1), encoding="utf-8"
        )
    missed = share < ONE_SHARE or mean > MEAN or most > MOST or false or ratio > COST
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
