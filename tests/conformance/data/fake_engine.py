"""A tiny, deliberately partial Carioca adapter for harness tests.

It speaks protocol 1 well enough for the small scenarios in this folder and can be
told to misbehave, so runner tests need no real engine:

  --capabilities melds,turns   what to claim (reasons are always claimed)
  --ruling DISPUTE-19=forbidden  a ruling to declare (repeatable)
  --crash-on OP                 exit 3 (after a line on stderr) when OP arrives
  --hang-on OP                  never answer OP
  --wrong-penalty               add 1 to every penalty
  --exit-at-start               exit before the handshake
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

VALUES = {"A": 20, "J": 10, "Q": 10, "K": 10, "JK": 50}
RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]


def penalty(cards: list[str]) -> int:
    total = 0
    for card in cards:
        if card == "JK":
            total += 50
        else:
            rank = card[:-1]
            total += VALUES.get(rank, 0) or int(rank)
    return total


def check_meld(meld: dict[str, Any]) -> dict[str, Any]:
    cards = meld["cards"]
    naturals = [c for c in cards if c != "JK"]
    if meld["kind"] == "trio":
        if len(cards) != 3:
            return {"valid": False, "reason": "trio_size"}
        if len({c[:-1] for c in naturals}) != 1:
            return {"valid": False, "reason": "trio_mixed_ranks"}
        return {"valid": True}
    if len(cards) != 4:
        return {"valid": False, "reason": "run_size"}
    if len({c[-1] for c in naturals}) != 1:
        return {"valid": False, "reason": "run_suit"}
    positions = [RANKS.index(c[:-1]) - i for i, c in enumerate(cards) if c != "JK"]
    if len(set(positions)) != 1:
        return {"valid": False, "reason": "run_gap"}
    return {"valid": True}


def act(state: dict[str, Any], action: dict[str, Any]) -> dict[str, Any]:
    player = action["player"]
    kind = action["type"]

    def reject(reason: str) -> dict[str, Any]:
        return {"accepted": False, "reason": reason, "state": state}

    if player != state["turn"]:
        return reject("buy_out_of_turn" if kind == "draw_discard" else "not_your_turn")
    hand = state["hands"][player]
    if kind in ("draw_stock", "draw_discard"):
        if state["phase"] != "draw":
            return reject("already_drew")
        pile = state["stock"] if kind == "draw_stock" else state["discard"]
        if not pile:
            return reject("empty_discard")
        new = json.loads(json.dumps(state))
        new["hands"][player].append(pile[0])
        key = "stock" if kind == "draw_stock" else "discard"
        new[key] = pile[1:]
        new["phase"] = "play"
        return {"accepted": True, "state": new}
    if kind == "discard":
        if state["phase"] != "play":
            return reject("draw_first")
        if action["card"] not in hand:
            return reject("card_not_in_hand")
        new = json.loads(json.dumps(state))
        new["hands"][player].remove(action["card"])
        new["discard"] = [action["card"], *new["discard"]]
        new["turn"] = (player + 1) % new["players"]
        new["phase"] = "draw"
        return {"accepted": True, "state": new}
    raise NotImplementedError(kind)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--capabilities", default="melds,turns")
    parser.add_argument("--ruling", action="append", default=[])
    parser.add_argument("--crash-on", default=None)
    parser.add_argument("--hang-on", default=None)
    parser.add_argument("--wrong-penalty", action="store_true")
    parser.add_argument("--exit-at-start", action="store_true")
    args = parser.parse_args()
    if args.exit_at_start:
        print("fake engine refuses to start", file=sys.stderr)
        return 4
    rulings = dict(r.split("=", 1) for r in args.ruling)
    caps = [c for c in args.capabilities.split(",") if c] + ["reasons"]
    state: dict[str, Any] | None = None
    for line in sys.stdin:
        request = json.loads(line)
        rid, op = request["id"], request["op"]
        if op == args.crash_on:
            print(f"fake engine crashing on {op}", file=sys.stderr, flush=True)
            return 3
        if op == args.hang_on:
            time.sleep(3600)
        answer: dict[str, Any]
        if op == "hello":
            answer = {
                "protocol": 1,
                "implementation": {"name": "fake", "version": "0.0.1", "language": "python"},
                "profiles": ["argentine"],
                "capabilities": caps,
                "rulings": rulings,
            }
        elif op == "bye":
            print(json.dumps({"id": rid}), flush=True)
            return 0
        elif op == "penalty":
            answer = {"points": penalty(request["cards"]) + (1 if args.wrong_penalty else 0)}
        elif op == "check_meld":
            answer = check_meld(request["meld"])
        elif op == "check_contract":
            answer = {"valid": True}
        elif op == "load_state":
            state = request["state"]
            answer = {"state": state}
        elif op == "act" and state is not None:
            try:
                answer = act(state, request["action"])
            except NotImplementedError as exc:
                answer = {"error": {"kind": "unsupported", "message": f"no {exc} here"}}
            else:
                state = answer["state"]
        else:
            answer = {"error": {"kind": "unsupported", "message": f"fake engine has no {op}"}}
        print(json.dumps({"id": rid, **answer}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
