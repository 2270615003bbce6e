"""How long ``check`` takes with a warm load cache, against the interpreter's own start.

``python -m conformance check`` (and ``check --strict``) of the default corpus is timed as a
user runs it, start-up included, beside ``python -c pass`` (with whatever the machine's
``site`` runs) in the same rounds, interleaved, so that a shared machine's slow minutes
move them alike. Every row is the median of ``--repeat`` rounds, wall and CPU time (the
CPU time varies far less with the machine's load); the last columns are the per-round
excess over the interpreter's start (what the harness itself costs) and the per-round
ratio to it.

The load cache is a private temporary folder, filled by one ``check --strict`` first:
other users of the default folder cannot evict the corpus's entry between rounds. The
harness is byte-compiled first, as an installed copy is (``--source`` skips it).

``--baseline PATH`` times another checkout's ``check`` in the same rounds (a commit
unpacked with ``git archive``), so a change is compared on the same minutes. Run from the
repository root::

    PYTHONPATH=. python benchmarks/check_bench.py --repeat 15
"""

from __future__ import annotations

import argparse
import compileall
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
#: The check ``check`` targets, start-up included (docs/performance.md).
TARGET = 0.2


@dataclass(frozen=True)
class Sample:
    """One timed command: wall seconds and CPU seconds (user and system)."""

    wall: float
    cpu: float


def timed(argv: Sequence[str], root: Path, cache: Path) -> Sample:
    """Run ``argv`` in ``root`` (its code first on the path) to the end; it must exit 0."""
    env = dict(os.environ, PYTHONPATH=str(root), CARIOCA_CACHE_DIR=str(cache))
    env.pop("CARIOCA_NO_CACHE", None)
    begin = time.perf_counter()
    child = subprocess.Popen(argv, cwd=root, env=env, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - begin
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise RuntimeError(f"{' '.join(argv)} in {root} exited {code}")
    return Sample(wall, usage.ru_utime + usage.ru_stime)


def main() -> int:
    """Time every row ``--repeat`` times, interleaved, and print one Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15, help="rounds (default 15)")
    parser.add_argument(
        "--baseline", type=Path, help="another checkout whose check is timed in the same rounds"
    )
    parser.add_argument(
        "--source", action="store_true", help="do not byte-compile first (time the compiler too)"
    )
    args = parser.parse_args()
    roots = {"": ROOT}
    if args.baseline is not None:
        roots["baseline "] = args.baseline.resolve()
    if not args.source:
        for root in roots.values():
            compileall.compile_dir(root / "conformance", quiet=1)
    check = [PY, "-m", "conformance", "check"]
    rows: dict[str, tuple[list[str], Path]] = {"python -c pass": ([PY, "-c", "pass"], ROOT)}
    for label, root in roots.items():
        rows[f"{label}check"] = (check, root)
        rows[f"{label}check --strict"] = ([*check, "--strict"], root)
    samples: dict[str, list[Sample]] = {name: [] for name in rows}
    with tempfile.TemporaryDirectory() as scratch:
        cache = Path(scratch) / "cache"
        for root in roots.values():  # fills the cache: every later round is warm
            timed([*check, "--strict"], root, cache)
        for _ in range(args.repeat):
            for name, (argv, root) in rows.items():
                samples[name].append(timed(argv, root, cache))

    start = samples["python -c pass"]

    def median(values: Sequence[float]) -> str:
        return f"{statistics.median(values):.3f} s"

    print(
        f"median of {args.repeat} interleaved rounds; Python {platform.python_version()}, "
        f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the end; "
        + ("modules from source\n" if args.source else "modules byte-compiled, as installed\n")
    )
    print("| command | wall | CPU | wall − start, per round | CPU − start | ÷ start (wall) |")
    print("|---|---|---|---|---|---|")
    for name, runs in samples.items():
        pairs = list(zip(start, runs, strict=True))
        excess = [r.wall - s.wall for s, r in pairs]
        cpu_excess = [r.cpu - s.cpu for s, r in pairs]
        ratio = [r.wall / s.wall for s, r in pairs]
        extra = (
            "| | | |"
            if name == "python -c pass"
            else f"| {median(excess)} | {median(cpu_excess)} | {statistics.median(ratio):.2f} |"
        )
        print(
            f"| `{name}` | {median([r.wall for r in runs])} | {median([r.cpu for r in runs])} "
            f"{extra}"
        )
    wall = statistics.median(r.wall for r in samples["check"])
    verdict = "met" if wall < TARGET else "**not met**"
    print(f"\n`check` under {TARGET} s, start-up included (median wall): {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
