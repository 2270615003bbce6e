"""A deliberately broken adapter for the protocol property checks.

It runs the reference adapter as a child process and relays every line, but bends the
answers in one way chosen by ``--mode`` so that exactly one observable law breaks:

- ``lose-card``: after an accepted discard, the returned state loses its bottom stock card
  (107 cards: conservation);
- ``dirty-reject``: a rejected action's state comes back with a different ``turn``
  (rejected-leaves-unchanged);
- ``accept-out-of-turn``: an action by a player whose turn it is not is answered
  ``accepted: true`` with the unchanged state (illegal-actions-rejected);
- ``shuffle-deal``: ``start_deal`` reshuffles the deck it was given with a fresh random
  source (determinism);
- ``bad-scores``: at a close the closer is charged 1 point (scoring-at-close);
- ``fixed-dealer``: ``new_game`` always names player 0 the first dealer, whatever the seed
  (random-choices);
- ``no-dealer-three-four``: a fixed dealer as above, but declared honestly: the handshake
  says it plays 3 or 4 players only and does not model the dealer, and it answers
  ``unsupported`` to a 2-player game (so no law may fail);
- ``crash``: exit abruptly on the 25th ``act`` (an engine error, not an exception);
- ``none``: relay faithfully.

Standard library only; it knows nothing of the harness.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from typing import Any

from relay import ReferenceRelay


def bend(mode: str, request: dict[str, Any], answer: dict[str, Any], acts: int) -> dict[str, Any]:
    """The answer as this broken engine reports it."""
    op = request.get("op")
    if mode == "no-dealer-three-four":
        if op == "hello":
            # An engine declaring one list of counts for every profile it plays.
            answer = {k: v for k, v in answer.items() if k != "profile_players"}
            return {**answer, "players": [3, 4], "unmodelled": ["dealer"]}
        if op in ("new_game", "start_deal") and request.get("players") == 2:
            message = "this engine deals 3 or 4 players"
            return {"id": answer["id"], "error": {"kind": "unsupported", "message": message}}
    if mode in ("fixed-dealer", "no-dealer-three-four") and op == "new_game" and "state" in answer:
        state = answer["state"]
        return {**answer, "state": {**state, "dealer": 0, "turn": 1 % state["players"]}}
    if op != "act" or "state" not in answer:
        return answer
    state = answer["state"]
    action = request["action"]
    if mode == "lose-card" and answer.get("accepted") and action["type"] == "discard":
        if state["stock"]:
            state["stock"] = state["stock"][:-1]
    elif mode == "dirty-reject" and answer.get("accepted") is False:
        state["turn"] = (state["turn"] + 1) % state["players"]
    elif mode == "accept-out-of-turn" and answer.get("accepted") is False:
        if action.get("player") != state["turn"]:
            answer = {"id": answer["id"], "accepted": True, "state": state}
    elif mode == "bad-scores" and state.get("closer") is not None:
        closer = state["closer"]
        state["deal_scores"][closer] += 1
        state["totals"][closer] += 1
    return answer


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", default="none")
    args = parser.parse_args()
    reference = ReferenceRelay()
    acts = 0
    for line in sys.stdin:
        request = json.loads(line)
        if request.get("op") == "act":
            acts += 1
            if args.mode == "crash" and acts == 25:
                reference.kill()
                os._exit(3)
        if args.mode == "shuffle-deal" and request.get("op") == "start_deal":
            random.SystemRandom().shuffle(request["deck"])
        answer = bend(args.mode, request, json.loads(reference.ask(json.dumps(request))), acts)
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
        if request.get("op") == "bye":
            break
    reference.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
