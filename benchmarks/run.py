"""How fast the harness grades the corpus, measured against the floors beneath it.

Every measurement runs ``--repeat`` times, interleaved round by round so that a noisy,
shared machine affects them alike, and the table shows medians:

- **echo floor**: the request lines of a real corpus run, replayed by a minimal
  write-a-line, read-a-line loop to an adapter that answers every line with ``{}``;
- **bare replay**: the same lines, the same loop, the reference adapter;
- **session alone**: the same lines through the harness's own adapter session, as many
  requests in flight as the reference takes (two), every request and answer validated,
  nothing graded: what the protocol's mechanics cost apart from grading;
- **harness**: the harness itself running the (already loaded) corpus against the
  reference; the ratio harness ÷ bare replay is what the harness costs, taken per round
  (the harness right after its bare replay) and shown as the median with its spread;
- **harness, one request at a time**: the same against the reference declaring no
  ``max_in_flight`` (docs/protocol.md §1), as an engine that declares none is run (shown
  beside the target, which is the corpus run's: the main job runs the reference);
- **corpus wall** and **check**: ``python -m conformance run`` and ``check`` as a user
  runs them, start-up included (wall and CPU time), beside the floor under both: the
  interpreter's own start (``python -c pass``, with whatever the machine's ``site`` runs);
- **reference answers/s**: the bare replay's lines per second once the adapter is up;
- **persistent vs per-process**: the harness with one adapter for the whole run and
  with a fresh adapter process per case (``--fresh-process``);
- **peak memory**: the largest resident set of a ``conformance run`` (harness or adapter).

The harness and the reference are byte-compiled first (``--source`` skips it), so the
start-up rows time what an installed copy runs rather than Python's compiler.

``--workers`` adds the cost of ``--workers N`` with the reference and with an engine
slowed to 10 ms per answer. Run from the repository root::

    PYTHONPATH=. python benchmarks/run.py --repeat 3
"""

from __future__ import annotations

import argparse
import compileall
import contextlib
import functools
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from conformance.adapter.engine import EngineSession, Request
from conformance.errors import EngineReportedError
from conformance.grading.walk import ahead_of
from conformance.knowledge.catalogue import Catalogue, load_catalogue
from conformance.knowledge.profiles import DEFAULT_PROFILE
from conformance.run.runner import RunOptions, run_scenarios
from conformance.run.selection import select
from conformance.scenarios import Scenario, load_corpus
from conformance.scenarios.corpus import default_corpus_dir

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PY = sys.executable
REFERENCE = [PY, "-m", "reference.adapter"]
#: Answers every line with ``{}``: what the pipe and the replay loop cost by themselves.
ECHO = [
    PY,
    "-c",
    "import sys\nfor _ in sys.stdin:\n    sys.stdout.write('{}\\n'); sys.stdout.flush()",
]
#: The reference declaring no ``max_in_flight``: sent one request at a time.
ONE_AT_A_TIME = [*REFERENCE, "--max-in-flight", "none"]
#: The reference behind a 10 ms delay per answer: an engine slower than the harness.
SLOW = [PY, str(ROOT / "tests" / "fake_adapters" / "hostile_proxy.py"), "--delay", "0.01"]


@dataclass
class Sample:
    """One timed run: wall seconds, CPU seconds of the child processes, peak RSS in KiB."""

    wall: float
    cpu: float = 0.0
    rss_kib: int = 0


def replay(argv: Sequence[str], lines: Sequence[bytes]) -> tuple[float, float]:
    """Write each line, read one answer line; return (total seconds, seconds after hello).

    The total includes the adapter's start-up, as the harness's time does; the second
    figure starts once the first answer (the handshake) is back, for answers per second.
    """
    begin = time.perf_counter()
    child = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert child.stdin is not None and child.stdout is not None
    after_hello = begin
    for index, line in enumerate(lines):
        child.stdin.write(line)
        child.stdin.flush()
        if not child.stdout.readline():
            raise RuntimeError(f"{argv[-1]} stopped answering at line {index + 1}")
        if index == 0:
            after_hello = time.perf_counter()
    child.stdin.close()
    child.wait()
    end = time.perf_counter()
    return end - begin, end - after_hello


def session_replay(argv: Sequence[str], lines: Sequence[bytes]) -> Sample:
    """The same request lines through the harness's own session, graded on nothing: as many
    requests in flight as the adapter takes, every request and answer validated, encoded and
    decoded as in a run.

    What the protocol's mechanics cost, apart from grading (harness ÷ this is grading's).
    """
    requests: list[Request] = []
    for line in lines:
        message = json.loads(line)
        op = message.pop("op")
        message.pop("id")
        if op not in ("hello", "bye"):  # the session says those itself
            requests.append((op, message))
    begin = time.perf_counter()
    session = EngineSession(argv)
    session.start()
    try:
        for index, request in enumerate(requests):
            in_flight = session.in_flight
            left = max(in_flight - 1, 0)
            then = ahead_of(requests, index + 1 + left, left, session.ahead_limit)
            with contextlib.suppress(EngineReportedError):
                session.exchange(None if in_flight else request, then=then)
    finally:
        session.close()
    return Sample(time.perf_counter() - begin)


def command(argv: Sequence[str]) -> Sample:
    """Run a command to the end; its wall time, CPU time and peak RSS (it and its children)."""
    begin = time.perf_counter()
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, cwd=ROOT)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - begin
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {child.returncode}")
    # On Linux wait4 reports the child together with the children it waited for.
    return Sample(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss)


@functools.cache
def loaded_catalogue() -> Catalogue:
    """The rule catalogue, loaded once, as the corpus is: a run is timed on what is loaded."""
    return load_catalogue()


def harness(argv: Sequence[str], scenarios: Sequence[Scenario], options: RunOptions) -> Sample:
    """Time one in-process run of the loaded corpus; no case may fail, error or not run.

    (The few cases written for other interface readings are unsupported by the reference.)
    """
    begin = time.perf_counter()
    run = run_scenarios(list(argv), scenarios, options, catalogue=loaded_catalogue())
    wall = time.perf_counter() - begin
    if any(run.counts.get(status) for status in ("fail", "error", "not_run")):
        raise RuntimeError(f"not every case passed: {dict(run.counts)}")
    return Sample(wall)


def record_requests(
    scenarios: Sequence[Scenario], folder: Path, options: RunOptions
) -> list[bytes]:
    """The request lines a default corpus run sends, captured by benchmarks/tee_adapter.py."""
    record = folder / "requests.jsonl"
    tee = [PY, str(HERE / "tee_adapter.py"), str(record), "--", *REFERENCE]
    harness(tee, scenarios, options)
    return record.read_bytes().splitlines(keepends=True)


def byte_compile() -> bool:
    """Byte-compile the harness and the reference as ``pip install`` does; True if it did.

    A user's installed copy starts from byte code. A checkout on a machine that sets
    PYTHONDONTWRITEBYTECODE (as this project's CI machines do) would otherwise compile
    every module at every start, and the start-up rows would time the compiler.
    """
    done = True
    for package in ("conformance", "reference"):
        done &= bool(compileall.compile_dir(ROOT / package, quiet=1))
    return done


def main() -> int:
    """Measure every row ``--repeat`` times, interleaved, and print one Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--repeat",
        type=int,
        default=9,
        help="rounds of every measurement; the harness ratio is the median of the rounds' "
        "ratios (a shared machine's speed drifts by half within minutes: with few rounds, one "
        "slow minute decides it)",
    )
    parser.add_argument(
        "--workers", action="store_true", help="also time --workers 2 and 4, and a slow engine"
    )
    parser.add_argument(
        "--quick", action="store_true", help="skip the slow process-per-case measurement"
    )
    parser.add_argument(
        "--profile", default=DEFAULT_PROFILE, help="the profile whose slice is run (as `run`)"
    )
    parser.add_argument(
        "--source",
        action="store_true",
        help="do not byte-compile first: time start-up from source, as a checkout without "
        "__pycache__ has it",
    )
    args = parser.parse_args()
    compiled = not args.source and byte_compile()

    loaded = load_corpus([default_corpus_dir()], catalogue=loaded_catalogue())
    if loaded.errors:
        print(f"the corpus has {len(loaded.errors)} problem(s); run carioca-conformance check")
        return 2
    # The cases `run --profile` grades: the profile's slice of the corpus.
    scenarios = list(select(loaded.scenarios, profile=args.profile))
    options = functools.partial(RunOptions, profile=args.profile)
    with tempfile.TemporaryDirectory() as tmp:
        lines = record_requests(scenarios, Path(tmp), options())

    samples: dict[str, list[Sample]] = {}
    answers_per_second: list[float] = []

    def timed(name: str, measure: Callable[[], Sample]) -> None:
        samples.setdefault(name, []).append(measure())

    def bare() -> Sample:
        total, after_hello = replay(REFERENCE, lines)
        answers_per_second.append((len(lines) - 1) / after_hello)
        return Sample(total)

    rows: dict[str, Callable[[], Sample]] = {
        "echo": lambda: Sample(replay(ECHO, lines)[0]),
        "bare": bare,
        "harness": lambda: harness(REFERENCE, scenarios, options()),
        "one at a time": lambda: harness(ONE_AT_A_TIME, scenarios, options()),
        "session": lambda: session_replay(REFERENCE, lines),
        "run": lambda: command([PY, "-m", "conformance", "run", "--profile", args.profile]),
        "check": lambda: command([PY, "-m", "conformance", "check"]),
        "python": lambda: command([PY, "-c", "pass"]),
    }
    if not args.quick:
        rows["fresh"] = lambda: harness(REFERENCE, scenarios, options(fresh_process=True))
    if args.workers:
        rows |= {
            "2 workers": lambda: harness(REFERENCE, scenarios, options(workers=2)),
            "slow, 1 worker": lambda: harness(SLOW, scenarios, options()),
            "slow, 2 workers": lambda: harness(SLOW, scenarios, options(workers=2)),
            "slow, 4 workers": lambda: harness(SLOW, scenarios, options(workers=4)),
        }
    for _ in range(args.repeat):
        for name, measure in rows.items():
            timed(name, measure)

    def wall(name: str) -> float:
        return statistics.median(s.wall for s in samples[name])

    def cpu(name: str) -> float:
        return statistics.median(s.cpu for s in samples[name])

    rate = statistics.median(answers_per_second)
    peak_mib = max(s.rss_kib for s in samples["run"]) / 1024

    def verdict(ok: bool) -> str:
        return "met" if ok else "**not met**"

    print(
        f"{len(scenarios)} scenarios, {len(lines)} request lines; median of {args.repeat} "
        f"interleaved rounds; Python {platform.python_version()}, {os.cpu_count()} CPUs, "
        f"load average {os.getloadavg()[0]:.1f} at the end; "
        + ("modules byte-compiled, as installed\n" if compiled else "modules from source\n")
    )
    print("| measurement | median | target | |")
    print("|---|---|---|---|")
    print(f"| echo floor: replay to an adapter answering `{{}}` | {wall('echo'):.3f} s | | |")
    print(f"| bare replay to the reference | {wall('bare'):.3f} s | | |")

    def paired(name: str) -> list[float]:
        """Each round's ``name`` over the same round's bare replay, run just before it (so a
        machine that slows down between rounds moves both), sorted: its median is the
        verdict, its spread how noisy the machine was."""
        rounds = zip(samples["bare"], samples[name], strict=True)
        return sorted(h.wall / b.wall for b, h in rounds)

    session = statistics.median(paired("session"))
    print(
        f"| the harness's session alone, nothing graded (÷ bare replay) | "
        f"{wall('session'):.3f} s ({session:.2f}) | | |"
    )
    ratios = paired("harness")
    ratio = statistics.median(ratios)
    print(
        f"| harness, corpus loaded (÷ bare replay, per round: {ratios[0]:.2f}–{ratios[-1]:.2f}) "
        f"| {wall('harness'):.3f} s ({ratio:.2f}) | ≤ 1.3 | {verdict(ratio <= 1.3)} |"
    )
    singles = paired("one at a time")
    single = statistics.median(singles)
    print(
        f"| harness, an engine taking one request at a time (÷ bare replay, per round: "
        f"{singles[0]:.2f}–{singles[-1]:.2f}) | {wall('one at a time'):.3f} s ({single:.2f}) "
        "| | |"
    )
    print(
        f"| `conformance run`, start-up included: wall (CPU of all) | {wall('run'):.3f} s "
        f"({cpu('run'):.3f} s) | < 1 s | {verdict(wall('run') < 1)} |"
    )
    print(
        f"| `conformance check`, start-up included: wall (CPU) | {wall('check'):.3f} s "
        f"({cpu('check'):.3f} s) | < 0.2 s | {verdict(wall('check') < 0.2)} |"
    )
    print(
        f"| the interpreter's own start, `python -c pass`: wall (CPU) | {wall('python'):.3f} s "
        f"({cpu('python'):.3f} s) | | |"
    )
    print(f"| reference answers/s | {rate:.0f} | ≥ 2,000 | {verdict(rate >= 2000)} |")
    if "fresh" in samples:
        fresh = wall("fresh") / wall("harness")
        print(
            f"| a process per case ÷ persistent | {wall('fresh'):.2f} s ({fresh:.1f}x) "
            f"| ≥ 50x | {verdict(fresh >= 50)} |"
        )
    print(
        f"| peak memory of `conformance run` | {peak_mib:.0f} MiB | < 100 MB | "
        f"{verdict(peak_mib * 2**20 < 100e6)} |"
    )
    if args.workers:
        for name in ("2 workers", "slow, 1 worker", "slow, 2 workers", "slow, 4 workers"):
            share = wall(name) / wall("harness")
            print(f"| {name} (÷ harness) | {wall(name):.2f} s ({share:.1f}) | | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
