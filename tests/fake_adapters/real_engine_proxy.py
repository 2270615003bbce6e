"""The reference engine behind the interface choices real engines make.

Real engines do not all read the protocol the way the reference does: they arrange a run's
cards themselves, pick the end of a lay-off on their own, deal only some player counts,
keep no dealer, lack an op, or explain a rejection in their own words. Each flag below
makes the reference behave like such an engine *while following the rules*, and declares
it in the handshake as docs/protocol.md §2 asks. The corpus must then report no failure
that is only an interface difference.

To find every case whose outcome depends on a reading, the choices are adversarial: the
other end is tried before the requested one, and the listed order of a run is tried last.
Standard library only, like every adapter.
"""

from __future__ import annotations

import argparse
import json
import sys
from itertools import combinations_with_replacement
from typing import Any

from relay import ReferenceRelay, serve  # beside this script, so on its sys.path

RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
#: Most joker placements tried per run (an all-joker run has many; any valid one will do).
MAX_ARRANGEMENTS = 400


def arrangements(cards: list[str]) -> list[list[str]]:
    """Orders an engine that arranges runs itself might try, the listed order last."""
    jokers = cards.count("JK")
    naturals = [c for c in cards if c != "JK"]
    found: list[list[str]] = []
    for ace_high in (False, True):

        def position(card: str, ace_high: bool = ace_high) -> int:
            rank = card[:-1]
            return 14 if rank == "A" and ace_high else RANKS.index(rank) + 1

        ordered = sorted(naturals, key=position)
        for slots in combinations_with_replacement(range(len(ordered) + 1), jokers):
            seq = list(ordered)
            for slot in sorted(slots, reverse=True):
                seq.insert(slot, "JK")
            if seq not in found and seq != cards:
                found.append(seq)
            if len(found) >= MAX_ARRANGEMENTS:
                break
    return [*found, list(cards)]


class Proxy:
    """Relays requests to the reference, bending them as the flags say."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.ref = ReferenceRelay()
        self.state: dict[str, Any] | None = None

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        answer: dict[str, Any] = json.loads(self.ref.ask(json.dumps(request)))
        return answer

    def valid_run(self, rid: int, cards: list[str], initial: bool) -> bool:
        meld = {"kind": "run", "cards": cards}
        request = {"id": rid, "op": "check_meld", "profile": "argentine", "meld": meld}
        return bool(self.ask({**request, "initial": initial}).get("valid"))

    def arrange(self, rid: int, meld: dict[str, Any], initial: bool) -> dict[str, Any]:
        """The meld with its run cards in the first order that makes a valid run."""
        if meld.get("kind") != "run":
            return meld
        for cards in arrangements(list(meld["cards"])):
            if self.valid_run(rid, cards, initial):
                return {**meld, "cards": cards}
        return meld

    def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        args, op, rid = self.args, request.get("op"), request.get("id", 0)
        if op == "hello":
            answer = self.ask(request)
            if args.undeclared:
                return answer  # behaves the same, but says nothing: graded as the reference
            if args.own_order:
                answer["run_order"] = "engine"
            if args.own_ends:
                answer["run_ends"] = "engine"
            if args.players:
                # One list for every profile, as most engines declare it.
                answer.pop("profile_players", None)
                answer["players"] = [int(p) for p in args.players.split(",")]
            if args.profile_players:
                answer["profile_players"] = json.loads(args.profile_players)
            if args.no_dealer:
                answer["unmodelled"] = ["dealer"]
            return answer
        if op in args.unsupported:
            return {"id": rid, "error": {"kind": "unsupported", "message": f"no {op} here"}}
        if args.players and op in ("load_state", "start_deal", "new_game"):
            players = (request.get("state") or request)["players"]
            if str(players) not in args.players.split(","):
                message = f"this engine does not deal {players} players"
                return {"id": rid, "error": {"kind": "unsupported", "message": message}}
        if args.profile_players and op in ("load_state", "start_deal", "new_game"):
            given = request.get("state") or request
            counts = json.loads(args.profile_players).get(given["profile"])
            if counts is not None and given["players"] not in counts:
                message = f"this engine deals {counts} players in {given['profile']}"
                return {"id": rid, "error": {"kind": "unsupported", "message": message}}
        if args.declare_only:
            return self.finish(self.ask(request))  # claims the choices, reads like the reference
        if args.own_order and op == "check_meld":
            request = {**request, "meld": self.arrange(rid, request["meld"], request["initial"])}
        if args.own_order and op == "check_contract":
            melds = [self.arrange(rid, m, True) for m in request["melds"]]
            request = {**request, "melds": melds}
        if op == "act":
            return self.act(request)
        return self.finish(self.ask(request))

    def act(self, request: dict[str, Any]) -> dict[str, Any]:
        rid, action = request["id"], dict(request["action"])
        kind = action.get("type", "")
        if kind in self.args.unsupported:
            return {"id": rid, "error": {"kind": "unsupported", "message": f"no {kind} here"}}
        if kind in self.args.refuse and self.state is not None:
            # The wrong way to lack an action: claiming the rules forbid it.
            return {"id": rid, "accepted": False, "state": self.state}
        if self.args.own_order and action.get("type") == "open":
            action["melds"] = [self.arrange(rid, m, True) for m in action.get("melds", [])]
        tries = [action]
        ends = {"lay_off": "end", "swap_joker": "to"}
        key = ends.get(action.get("type", ""))
        if self.args.own_ends and key and action.get(key) in ("low", "high"):
            other = "high" if action[key] == "low" else "low"
            tries = [{**action, key: other}, action]  # the other end first: adversarial
        elif self.args.own_ends and key and action.get(key) is None:
            # No end named: this engine finds the end where the card fits (a trio needs none).
            tries = [{**action, key: "high"}, {**action, key: "low"}, action]
        answers = [self.ask({**request, "action": attempt}) for attempt in tries[:1]]
        for attempt in tries[1:]:
            if answers[-1].get("accepted"):
                break
            answers.append(self.ask({**request, "action": attempt}))
        # The accepted answer, else the last refusal by the rules (the end asked for, where
        # one was; a missing end the reference cannot read is no refusal), else the last.
        answer = next((a for a in answers if a.get("accepted")), None)
        answer = answer or next((a for a in reversed(answers) if "accepted" in a), answers[-1])
        return self.finish(answer)

    def finish(self, answer: dict[str, Any]) -> dict[str, Any]:
        state = answer.get("state")
        if isinstance(state, dict):
            self.state = state
            if self.args.no_dealer:
                state["dealer"] = 0  # invented: this engine keeps no dealer
        rejected = answer.get("accepted") is False or answer.get("valid") is False
        if self.args.message and rejected:
            answer["message"] = self.args.message
        return answer


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--own-order", action="store_true", help="arrange runs itself")
    parser.add_argument("--own-ends", action="store_true", help="pick lay-off/swap ends itself")
    parser.add_argument("--players", help="comma-separated player counts it deals")
    parser.add_argument(
        "--profile-players", help="JSON: profile -> the counts it deals there (and no other)"
    )
    parser.add_argument("--no-dealer", action="store_true", help="keep no dealer")
    parser.add_argument(
        "--unsupported", action="append", default=[], help="an op or action type it lacks"
    )
    parser.add_argument("--refuse", action="append", default=[], help="an action type it refuses")
    parser.add_argument("--message", help="words added to every rejection")
    parser.add_argument("--undeclared", action="store_true", help="declare none of the above")
    parser.add_argument("--declare-only", action="store_true", help="declare, do not behave so")
    args = parser.parse_args(argv)
    proxy = Proxy(args)
    serve(proxy.handle)
    proxy.ref.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
