"""What the load cache costs and saves on a large corpus: ``check`` of N one-case files.

A corpus of N files (default 4,900, more than the cache keeps entries for,
conformance/scenarios/loadcache.py MAX_ENTRIES) is written to a temporary folder, with a private
cache folder, and ``python -m conformance check`` is timed (wall, start-up included):

- **uncached**: ``CARIOCA_NO_CACHE=1``;
- **cold**: an empty cache (every file loaded and stored);
- **warm**: unchanged (the whole-corpus entry);
- **one edit**: one file's title changed (the whole-corpus entry misses: every file is
  read from its own entry, the edited one loaded, and entries are pruned).

A prune that listed and stat'ed every entry at every store made **one edit** of 4,900
files take 150 s against 2.8 s uncached. Run from the repository root::

    PYTHONPATH=. python benchmarks/cache_bench.py --files 4900
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: One turns-level case; ``{id}`` and ``{n}`` are filled per file.
CASE = """id: {id}
title: Drawing from the stock, copy {n}
rules: [TURN-2]
source: "000 §04"
profiles: [argentine]
level: turns
tags: [draw]
review: checked
setup:
  state:
    players: 2
    deal_number: 1
    dealer: 0
    turn: 1
    phase: draw
    hands:
      - [2C, 3C, 4C, 5C, 9D, 9H, JD, QH, KS, KD, 7H]
      - [8C, 8D, 8H, QS, QD, QC, 2H, 3H, KC, 10D, 5S]
    discard: [6H]
steps:
  - action: {{type: draw_stock, player: 1}}
    expect: accepted
"""


def check(corpus: Path, env: dict[str, str]) -> tuple[float, int]:
    """Wall seconds of one ``check`` of ``corpus``, and its exit code."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "conformance", "check", str(corpus)],
        env=env,
        capture_output=True,
        check=False,
    )
    return time.perf_counter() - started, done.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=4900, help="one-case files (at most 4900)")
    args = parser.parse_args()
    count = max(1, min(args.files, 4900))
    with tempfile.TemporaryDirectory() as scratch:
        corpus = Path(scratch) / "corpus"
        corpus.mkdir()
        for n in range(count):
            text = CASE.format(id=f"cc-{1000 + n:04d}", n=n)
            (corpus / f"case-{n:04d}.yaml").write_text(text, encoding="utf-8")
        env = dict(os.environ, CARIOCA_CACHE_DIR=str(Path(scratch) / "cache"))
        env.pop("CARIOCA_NO_CACHE", None)
        rows = [("uncached", check(corpus, {**env, "CARIOCA_NO_CACHE": "1"}))]
        rows.append(("cold", check(corpus, env)))
        rows.append(("warm", check(corpus, env)))
        edited = corpus / "case-0000.yaml"
        edited.write_text(edited.read_text().replace("copy 0", "copy 0, edited"))
        rows.append(("one edit", check(corpus, env)))
        rows.append(("warm again", check(corpus, env)))
        entries = len(list((Path(scratch) / "cache").glob("*.json")))
    print(f"| `check` of {count} one-case files | wall | exit |")
    print("|---|---|---|")
    for name, (seconds, code) in rows:
        print(f"| {name} | {seconds:.2f} s | {code} |")
    print(f"\n{entries} cache entries at the end")
    return 0 if all(code == 0 for _, (_, code) in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
