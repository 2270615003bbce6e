"""An adapter that claims every capability and profile, then answers ``unsupported`` to
every request after ``hello``: an engine graded on nothing. A green must be
earned, so ``run`` and ``fuzz`` must not exit 0 on it. Standard library only.
"""

from __future__ import annotations

import json
import sys


def main() -> int:
    for line in sys.stdin:
        request = json.loads(line)
        rid, op = request.get("id"), request.get("op")
        if op == "hello":
            answer = {
                "id": rid,
                "protocol": 1,
                "implementation": {"name": "claims-all", "version": "0", "language": "python"},
                "profiles": ["argentine", "chilean", "pagat", "perla"],
                "capabilities": ["melds", "turns", "deals", "reasons"],
                "rulings": {},
            }
        elif op == "bye":
            answer = {"id": rid}
        else:
            answer = {"id": rid, "error": {"kind": "unsupported", "message": f"no {op}"}}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
        if op == "bye":
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
