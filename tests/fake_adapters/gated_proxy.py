"""The reference adapter behind a gate: each request but ``hello`` and ``bye`` is passed on
only once a byte can be read from a named pipe, so a test decides when an answer comes.

    gated_proxy.py GATE_FIFO

The test opens GATE_FIFO read-write first (so that opening it here never blocks) and
writes one byte per answer it lets through. Standard library only.
"""

from __future__ import annotations

import json
import os
import sys

from relay import ReferenceRelay


def main() -> int:
    gate = os.open(sys.argv[1], os.O_RDONLY)
    relay = ReferenceRelay()
    for line in sys.stdin:
        if json.loads(line).get("op") not in ("hello", "bye") and not os.read(gate, 1):
            return 1  # the gate closed: the test is over
        answer = relay.ask(line)
        if not answer:
            return 1
        sys.stdout.write(answer)
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
