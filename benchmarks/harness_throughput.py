"""How fast the harness grades the corpus, and what its options cost.

Runs the whole corpus against the reference adapter in several configurations,
interleaved within one run so that a noisy, shared machine affects them alike,
and reports each configuration's median time as a ratio to the default
(one persistent adapter process). Rerun with::

    python benchmarks/harness_throughput.py --repeat 5
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

from conformance.catalogue import load_catalogue
from conformance.corpus import default_corpus_dir
from conformance.runner import RunOptions, run_scenarios
from conformance.scenarios import load_corpus

REFERENCE = [sys.executable, "-m", "reference.adapter"]
#: The reference behind a 10 ms delay per answer: an engine slower than the harness.
PROXY = Path(__file__).resolve().parent.parent / "tests" / "fake_adapters" / "hostile_proxy.py"
SLOW = [sys.executable, str(PROXY), "--delay", "0.01"]

CONFIGURATIONS = {
    "reference, persistent, 1 worker (default)": (REFERENCE, RunOptions()),
    "reference, persistent, 2 workers": (REFERENCE, RunOptions(workers=2)),
    "reference, fresh process per case": (REFERENCE, RunOptions(fresh_process=True)),
    "slow engine (10 ms/answer), 1 worker": (SLOW, RunOptions()),
    "slow engine (10 ms/answer), 2 workers": (SLOW, RunOptions(workers=2)),
    "slow engine (10 ms/answer), 4 workers": (SLOW, RunOptions(workers=4)),
}


def main() -> int:
    """Time each configuration ``--repeat`` times and print a Markdown table of ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per configuration")
    args = parser.parse_args()

    catalogue = load_catalogue()
    started = time.perf_counter()
    loaded = load_corpus([default_corpus_dir()], catalogue=catalogue)
    load_seconds = time.perf_counter() - started
    if loaded.errors:
        print(f"the corpus has {len(loaded.errors)} problem(s); run carioca-conformance check")
        return 2
    scenarios = list(loaded.scenarios)

    times: dict[str, list[float]] = {name: [] for name in CONFIGURATIONS}
    for _ in range(args.repeat):
        for name, (argv, options) in CONFIGURATIONS.items():
            begin = time.perf_counter()
            run = run_scenarios(argv, scenarios, replace(options), catalogue=catalogue)
            times[name].append(time.perf_counter() - begin)
            if run.counts.get("pass") != len(scenarios):
                print(f"{name}: not every case passed: {dict(run.counts)}")
                return 1

    baseline = statistics.median(times["reference, persistent, 1 worker (default)"])
    print(f"corpus: {len(scenarios)} scenarios, loaded and checked in {load_seconds:.2f} s")
    print(f"median of {args.repeat} interleaved runs each\n")
    print("| configuration | median time | cases/s | time ÷ default |")
    print("|---|---|---|---|")
    for name, samples in times.items():
        median = statistics.median(samples)
        rate = len(scenarios) / median
        print(f"| {name} | {median:.2f} s | {rate:.0f} | {median / baseline:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
