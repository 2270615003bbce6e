"""The reference playing some rulings without declaring them, or breaking its states.

``python quiet_rulings.py --ruling VARIANT-01=thirty`` is an engine that counts a joker left
in hand as 30 points but says nothing of it in its handshake: its ``hello`` answer is the
profile's rulings, so the harness grades it against the profile's options (a joker worth
30, undeclared, fails the scoring checks only). Other flags make the engines of the grading
tests:

- ``--extra-hands N``: every answered state holds N more hands, copies of the first one
  (an impossible state: two extra hands, 40 queens of hearts);
- ``--unsupported-after-hello``: claims every capability, then answers ``unsupported`` to
  every request (a green must be earned);
- ``--refuse-ended``: answers ``unsupported`` to a ``load_state`` of a deal that is over
  (an engine that cannot be put back on such a state);
- ``--private-x``: keeps its own ``x`` in every state, and answers an error to a
  ``load_state`` that sends one back (the harness never may, docs/protocol.md §5).

Standard library only, like every adapter.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from typing import Any


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--ruling", action="append", default=[], help="POINT=OPTION, played")
    parser.add_argument("--extra-hands", type=int, default=0)
    parser.add_argument("--unsupported-after-hello", action="store_true")
    parser.add_argument("--refuse-ended", action="store_true")
    parser.add_argument("--private-x", action="store_true")
    args = parser.parse_args()
    argv = [sys.executable, "-m", "reference.adapter"]
    for ruling in args.ruling:
        argv += ["--ruling", ruling]
    child = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert child.stdin is not None and child.stdout is not None
    for line in sys.stdin:
        request = json.loads(line)
        op = request.get("op")
        if args.unsupported_after_hello and op not in ("hello", "bye"):
            answer: dict[str, Any] = {
                "id": request["id"],
                "error": {"kind": "unsupported", "message": "not implemented"},
            }
            print(json.dumps(answer), flush=True)
            continue
        if args.private_x and op == "load_state" and "x" in request["state"]:
            error = {"kind": "invalid_request", "message": "x is the engine's own"}
            print(json.dumps({"id": request["id"], "error": error}), flush=True)
            continue
        ended = op == "load_state" and request["state"].get("phase") == "deal_over"
        if args.refuse_ended and ended:
            error = {"kind": "unsupported", "message": "cannot load a deal that is over"}
            print(json.dumps({"id": request["id"], "error": error}), flush=True)
            continue
        child.stdin.write(line)
        child.stdin.flush()
        answer = json.loads(child.stdout.readline())
        if op == "hello":
            # Declare nothing beyond the profiles' own rulings: the played ones stay quiet.
            answer.pop("rulings", None)
            answer.pop("profile_rulings", None)
            if args.unsupported_after_hello:
                answer["capabilities"] = ["melds", "turns", "deals", "reasons"]
        state = answer.get("state")
        if args.private_x and isinstance(state, dict):
            state["x"] = {"seen": op}
        if args.extra_hands and isinstance(state, dict) and state.get("hands"):
            state["hands"] = state["hands"] + [list(state["hands"][0])] * args.extra_hands
        print(json.dumps(answer), flush=True)
        if op == "bye":
            break
    child.stdin.close()
    return child.wait(timeout=10)


if __name__ == "__main__":
    sys.exit(main())
