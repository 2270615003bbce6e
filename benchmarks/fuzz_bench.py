"""Steps per second of ``carioca-conformance fuzz`` against the reference, 1 and 2 workers.

The engine under test is the reference adapter itself (so nothing diverges and no time
goes to shrinking); each worker is one pair of adapter processes. Rounds alternate 1 and 2
workers so that a busy machine affects both alike; the table shows medians and the ratio.
Steps are actions and deal ops put to both adapters; queries (meld, contract, penalty) are
counted apart. Run from the repository root::

    PYTHONPATH=. python benchmarks/fuzz_bench.py --games 40 --repeat 3
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time

from conformance.fuzz import FuzzOptions, fuzz
from conformance.knowledge.catalogue import load_catalogue

REFERENCE = [sys.executable, "-m", "reference.adapter"]


def one_run(games: int, workers: int, seed: int) -> tuple[float, int, int]:
    """Seconds, steps and queries of one campaign against the reference."""
    options = FuzzOptions(games=games, seed=seed, workers=workers, shrink=False)
    started = time.monotonic()
    result = fuzz(REFERENCE, options, load_catalogue())
    seconds = time.monotonic() - started
    if result.findings:
        raise SystemExit("the reference diverged from itself: that is a bug, not a benchmark")
    return seconds, result.steps, result.queries


def main() -> None:
    """Measure and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rates: dict[int, list[float]] = {1: [], 2: []}
    steps_seen: dict[int, int] = {}
    for _ in range(args.repeat):
        for workers in (1, 2):
            seconds, steps, queries = one_run(args.games, workers, args.seed)
            rates[workers].append(steps / seconds)
            steps_seen[workers] = steps
            print(
                f"  {workers} worker(s): {steps} steps, {queries} queries in {seconds:.2f} s",
                file=sys.stderr,
            )
    one, two = statistics.median(rates[1]), statistics.median(rates[2])
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"fuzz benchmark: {args.games} games, seed {args.seed}, medians of {args.repeat}; "
        f"Python {platform.python_version()}, {os.cpu_count()} CPUs, load average {load:.1f}"
    )
    print("| workers | steps/s | ratio |")
    print("|---|---|---|")
    print(f"| 1 | {one:.0f} | 1.00 |")
    print(f"| 2 | {two:.0f} | {two / one:.2f} |")
    # Both worker counts play exactly the same games (same seed), so the same steps.
    if steps_seen[1] != steps_seen[2]:
        print(f"warning: step counts differ ({steps_seen[1]} vs {steps_seen[2]})")


if __name__ == "__main__":
    main()
