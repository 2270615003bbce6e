"""The reference adapter behind a proxy that misbehaves once (or always) on one op,
or answers every request after a delay (a slow but correct engine).

Used by tests/conformance/test_hostile_runs.py to show that a whole run survives a
misbehaving engine: the case that meets the misbehaviour errors, the adapter is
restarted, and every other case is graded as usual.

    hostile_proxy.py --on act --do crash --once-file /tmp/x --tag T
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

from relay import ReferenceRelay

BEHAVIOURS = (
    "crash",
    "hang",
    "garbage",
    "wrong-shape",
    "wrong-id",
    "huge-line",
    "two-lines",
    "close-stdout",
    "orphan",
    "hog",
)
#: The most a hog allocates (then it sleeps): bounded in case the harness misses it.
HOG_CAP = 1024 * 2**20


def misbehave(how: str, request: dict[str, object], answer: str) -> None:
    """Do one hostile thing in place of answering ``request``."""
    out = sys.stdout
    sys.stderr.write(f"hostile proxy: {how} on request {request.get('id')}\n")
    sys.stderr.flush()
    if how == "crash":
        sys.exit(7)
    if how == "hang":
        time.sleep(3600)
    if how == "garbage":
        out.write("Traceback (most recent call last): oops\n")
    elif how == "wrong-shape":
        out.write(json.dumps({"id": request.get("id"), "accepted": "maybe"}) + "\n")
    elif how == "wrong-id":
        out.write(json.dumps({**json.loads(answer), "id": 999_999}) + "\n")
    elif how == "huge-line":
        out.write('{"id": ' + str(request.get("id")) + ', "pad": "' + "x" * (12 * 2**20) + '"}\n')
    elif how == "two-lines":
        out.write(answer + answer)
    elif how == "close-stdout":
        out.flush()
        os.close(1)
        time.sleep(3600)
    elif how == "hog":
        # Touched memory (resident, not just reserved) until the harness kills it.
        held = [b"h" * (16 * 2**20) for _ in range(HOG_CAP // (16 * 2**20))]
        time.sleep(3600)
        del held
    elif how == "orphan":
        # A grandchild that outlives nothing: the process group kill must reach it.
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
        time.sleep(3600)
    out.flush()


def main() -> int:
    """Forward requests to the reference adapter, misbehaving as told."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--on", help="the op to misbehave on (none: only --delay)")
    parser.add_argument("--do", choices=BEHAVIOURS, default="crash")
    parser.add_argument(
        "--delay", type=float, default=0.0, help="seconds before every answer (a slow engine)"
    )
    parser.add_argument("--once-file", help="misbehave only if this file does not exist yet")
    parser.add_argument("--tag", help="ignored; lets tests find their processes")
    args = parser.parse_args()
    reference = ReferenceRelay()
    for line in sys.stdin:
        answer = reference.ask(line)
        request = json.loads(line)
        if args.delay:
            time.sleep(args.delay)
        armed = args.on is not None and request.get("op") == args.on
        if armed and args.once_file:
            if os.path.exists(args.once_file):
                armed = False
            else:
                with open(args.once_file, "w", encoding="ascii") as handle:
                    handle.write("done")
        if armed:
            misbehave(args.do, request, answer)
            continue
        sys.stdout.write(answer)
        sys.stdout.flush()
    reference.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
