"""An adapter that records every request line it passes on to another adapter.

``python benchmarks/tee_adapter.py RECORD -- ADAPTER ARGV...`` starts ADAPTER, and for
each line on stdin appends it to RECORD, hands it to ADAPTER and copies the answer
line back. benchmarks/run.py uses it to capture the request lines of a real corpus
run, which it then replays without the harness. Standard library only.
"""

from __future__ import annotations

import subprocess
import sys


def main(argv: list[str]) -> int:
    """Relay stdin to the adapter after ``--``, recording each request line to argv[0]."""
    if len(argv) < 3 or argv[1] != "--":
        print("usage: tee_adapter.py RECORD -- ADAPTER ARGV...", file=sys.stderr)
        return 2
    child = subprocess.Popen(argv[2:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert child.stdin is not None and child.stdout is not None
    with open(argv[0], "ab") as record:
        for line in sys.stdin.buffer:
            record.write(line)
            child.stdin.write(line)
            child.stdin.flush()
            answer = child.stdout.readline()
            if not answer:
                break
            sys.stdout.buffer.write(answer)
            sys.stdout.buffer.flush()
    child.stdin.close()
    return child.wait()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
