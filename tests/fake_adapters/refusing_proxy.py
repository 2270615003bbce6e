"""The reference behind a proxy that answers ``unsupported`` request by request, not op by op.

``unsupported`` says an engine lacks an op, a profile, a player count or an action
(docs/protocol.md §1), so it must be answered the same way wherever it applies. These
engines use it to hide what they would fail, and must not be green:

- ``--every N``: every N-th request after ``hello`` is refused;
- ``--op OP`` (repeatable): every request of that op (``penalty``, or an action type as
  ``act:discard``) is refused, a consistent refusal that alone is allowed;
- ``--ending-deal``: every action that ends a deal (the reference's answer closes it) is
  refused, while the same action type is answered elsewhere;
- ``--players N``: every request of a game seating N players is refused, though the
  handshake (the reference's) declares every count of the profile;
- ``--games``: every request of a game is refused (meld queries alone are answered),
  though the handshake (the reference's) claims turns and deals;
- ``--op-at OP:N`` (repeatable): that op (an action type as ``act:discard``) is refused in
  games seating N players only, answered at every other count;
- ``--state-with CARD``: every ``load_state`` whose discard pile holds CARD is refused
  (the engine cannot hold that state), every other state is loaded.

Standard library only: the proxy knows nothing of the harness.

    refusing_proxy.py --every 2
    refusing_proxy.py --op penalty --ending-deal
    refusing_proxy.py --players 5
    refusing_proxy.py --op-at act:discard:2
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from relay import ReferenceRelay

#: The ops of a game (a melds query seats nobody).
GAME_OPS = ("load_state", "start_deal", "new_game", "act", "next_deal", "redeal")
#: A deal is over once the state is in one of these phases.
OVER = ("deal_over", "game_over")


def refusal(request: dict[str, Any], why: str) -> str:
    """An ``unsupported`` answer to ``request``."""
    error = {"kind": "unsupported", "message": why}
    return json.dumps({"id": request.get("id"), "error": error})


def label(request: dict[str, Any]) -> str:
    """The op, or ``act:<type>`` for an action."""
    op = str(request.get("op"))
    action = request.get("action")
    return f"act:{action.get('type')}" if op == "act" and isinstance(action, dict) else op


def main() -> int:
    """Relay stdin to the reference and its answers back, refusing as asked."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--every", type=int, default=0)
    parser.add_argument("--op", action="append", default=[])
    parser.add_argument("--ending-deal", action="store_true")
    parser.add_argument("--players", type=int, default=0)
    parser.add_argument("--op-at", action="append", default=[])
    parser.add_argument("--games", action="store_true")
    parser.add_argument("--state-with", default="")
    args = parser.parse_args()
    relay = ReferenceRelay()
    asked = 0
    seated = 0  # the players of the game the last setup started
    try:
        for line in sys.stdin:
            if not line.strip():
                continue
            request = json.loads(line)
            op = request.get("op")
            if op in ("load_state", "start_deal", "new_game"):
                seated = int((request.get("state") or request).get("players") or 0)
            answer = ""
            if op not in ("hello", "bye"):
                asked += 1
                if args.every and asked % args.every == 0:
                    answer = refusal(request, f"request {asked} is not served")
                elif label(request) in args.op:
                    answer = refusal(request, f"no {label(request)}")
                elif args.games and op in GAME_OPS:
                    answer = refusal(request, "no games")
                elif f"{label(request)}:{seated}" in args.op_at:
                    answer = refusal(request, f"no {label(request)} at {seated} players")
                elif (
                    args.state_with
                    and op == "load_state"
                    and args.state_with in ((request.get("state") or {}).get("discard") or ())
                ):
                    answer = refusal(request, f"no {args.state_with} on the pile")
                elif args.players and seated == args.players and op in GAME_OPS:
                    answer = refusal(request, f"no {seated}-player games")
            if not answer:
                answer = relay.ask(line).rstrip("\n")
                if args.ending_deal and op == "act":
                    state = json.loads(answer).get("state") or {}
                    if state.get("phase") in OVER:
                        answer = refusal(request, "that action is not served")
            sys.stdout.write(answer + "\n")
            sys.stdout.flush()
            if op == "bye":
                break
    finally:
        relay.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
