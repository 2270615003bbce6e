"""A stand-in for a slow engine: the reference adapter behind a fixed delay per answer.

Used by harness_throughput.py to show what ``--workers`` buys when the engine,
not the harness, is the bottleneck. ``python benchmarks/slow_adapter.py 0.01``.
"""

from __future__ import annotations

import subprocess
import sys
import time


def main() -> int:
    """Forward stdin lines to the reference adapter, answering each after the delay."""
    delay = float(sys.argv[1]) if len(sys.argv) > 1 else 0.01
    engine = subprocess.Popen(
        [sys.executable, "-m", "reference.adapter"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        bufsize=1,
    )
    assert engine.stdin is not None and engine.stdout is not None
    for line in sys.stdin:
        engine.stdin.write(line)
        engine.stdin.flush()
        answer = engine.stdout.readline()
        if not answer:
            break
        time.sleep(delay)
        sys.stdout.write(answer)
        sys.stdout.flush()
    engine.stdin.close()
    return engine.wait()


if __name__ == "__main__":
    sys.exit(main())
