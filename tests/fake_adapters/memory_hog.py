"""An adapter that uses more and more memory: for the harness's memory cap.

    memory_hog.py [--hog-on OP] [--in-child] [--leak-mb N] [--cap-mb N]

It answers ``hello`` (melds only) and ``penalty`` (0 points, as the schema allows).
``--hog-on OP``: on receiving OP, allocate (and touch) memory in 16 MB steps until
``--cap-mb``, then sleep without answering; with ``--in-child`` a child process in the
adapter's process group does the allocating while the adapter waits for it.
``--leak-mb N``: before each answer other than hello's, keep N MB more (up to the cap),
answering at once: an engine that leaks while it looks healthy.

The cap keeps a test from exhausting the machine if the harness failed to stop it.
Stdlib only, independent of the harness.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

STEP = 16 * 2**20
HOG = "import sys, time\nheld = [b'h' * {step} for _ in range({count})]\ntime.sleep(3600)\n"


def main() -> int:
    """Answer requests, growing as told."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--hog-on", help="allocate until killed on this op")
    parser.add_argument("--in-child", action="store_true", help="allocate in a child process")
    parser.add_argument("--leak-mb", type=int, default=0, help="MB kept before each answer")
    parser.add_argument("--cap-mb", type=int, default=1024, help="most MB ever allocated")
    args = parser.parse_args()
    cap = args.cap_mb * 2**20
    held: list[bytes] = []
    for line in sys.stdin:
        request = json.loads(line)
        op, rid = request.get("op"), request.get("id")
        answer: dict[str, object]
        if op == args.hog_on:
            sys.stderr.write(f"memory hog: allocating on request {rid}\n")
            sys.stderr.flush()
            if args.in_child:
                code = HOG.format(step=STEP, count=cap // STEP)
                subprocess.run([sys.executable, "-c", code], check=False)
            else:
                held.extend(b"h" * STEP for _ in range(cap // STEP))
            time.sleep(3600)
            continue
        elif op == "hello":
            answer = {
                "id": rid,
                "protocol": 1,
                "implementation": {"name": "memory-hog", "version": "1", "language": "python"},
                "profiles": ["argentine"],
                "capabilities": ["melds"],
            }
        elif op == "bye":
            answer = {"id": rid}
        else:
            if args.leak_mb and sum(map(len, held)) < cap:
                held.append(b"l" * (args.leak_mb * 2**20))
            answer = {"id": rid, "points": 0} if op == "penalty" else {"id": rid}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
