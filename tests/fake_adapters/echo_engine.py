"""An engine with no rules: it claims every profile and capability, answers ``load_state``
with the very state it was sent, and ``unsupported`` to every other request.

Every state it answers holds the pack and one hand per player, because the harness built
it; nothing of the game's rules was shown. ``run``, ``run --profile all``, ``fuzz`` and the
``--min-graded`` gate must not call it green. Standard library only.

    echo_engine.py
"""

from __future__ import annotations

import json
import sys

HELLO = {
    "protocol": 1,
    "implementation": {"name": "echo", "version": "0", "language": "python"},
    "profiles": ["argentine", "chilean", "pagat", "perla"],
    "capabilities": ["melds", "turns", "deals", "reasons"],
    "rulings": {},
}


def answer(request: dict[str, object]) -> dict[str, object]:
    """The echo engine's answer to one request."""
    rid, op = request.get("id"), request.get("op")
    if op == "hello":
        return {"id": rid, **HELLO}
    if op == "bye":
        return {"id": rid}
    if op == "load_state":
        return {"id": rid, "state": request.get("state")}
    return {"id": rid, "error": {"kind": "unsupported", "message": f"no {op}"}}


def main() -> int:
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        sys.stdout.write(json.dumps(answer(request)) + "\n")
        sys.stdout.flush()
        if request.get("op") == "bye":
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
