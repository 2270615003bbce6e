"""The reference behind choices the protocol leaves to an engine, for the fuzzer.

docs/protocol.md lets an engine differ from the reference in a few places without breaking
a rule, and the fuzzer must then report nothing. Each flag makes the reference behave so:

- ``--recycle-order``: a recycled stock is put in another order than the reference's (the
  pool of the new stock and the card just drawn from it is rotated), so the card drawn
  after a recycle and the stock's order differ (§6: the recycled order is the engine's);
- ``--no-dealer``: the engine keeps no dealer (``unmodelled: [dealer]``, the field answered
  as 0) and so starts every deal with a player of its own choosing (the player after the
  reference's first player) — who moves first reads the dealer, which it does not model;
- ``--jokers-low``: the engine arranges runs itself (``run_order: engine``): a run on the
  table with a joker at its high end has the joker moved to its low end where that is a
  run too, and a lay-off or joker replacement the reference refuses on a run whose joker
  stands at one end is tried with that joker at the other end (its jokers float).

Two behaviours no declaration covers, which the fuzzer's contract probes must find:

- ``--extra-melds``: an opening (or ``check_contract``) with one meld more than the
  contract is taken when the contract without it is;
- ``--refuse-natural-two``: a joker replacement by a natural 2 is refused (the chilean
  2 taking a wild card's place at a run's 2-position, which an engine got wrong).

``--undeclared`` keeps the behaviour but declares nothing (``--no-dealer``, ``--jokers-low``):
then the differences are the engine's fault, and the fuzzer must find them.
Standard library only, like every adapter.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from typing import Any

from relay import ReferenceRelay, serve  # beside this script, so on its sys.path


class Proxy:
    """Relays requests to the reference, bending answers as the flags say."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.ref = ReferenceRelay(args.ruling)
        self.state: dict[str, Any] | None = None
        self.profile = "argentine"

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        answer: dict[str, Any] = json.loads(self.ref.ask(json.dumps(request)))
        return answer

    def load(self, rid: int, state: dict[str, Any]) -> dict[str, Any]:
        """Make the reference hold ``state``; return the state it answers."""
        answer = self.ask(
            {"id": rid, "op": "load_state", "state": {**state, "profile": self.profile}}
        )
        return dict(answer.get("state") or state)

    def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        args, op, rid = self.args, request.get("op"), request.get("id", 0)
        if op == "hello":
            answer = self.ask(request)
            if not args.undeclared:
                if args.no_dealer:
                    answer["unmodelled"] = sorted({*answer.get("unmodelled", []), "dealer"})
                if args.jokers_low:
                    answer["run_order"] = "engine"
            return answer
        given = request.get("state") or request
        if isinstance(given, dict) and isinstance(given.get("profile"), str):
            self.profile = given["profile"]
        if op == "act":
            return self.act(request)
        answer = self.ask(request)
        if self.args.extra_melds and op == "check_contract" and answer.get("valid") is False:
            answer = self.without_one(request, answer)
        if op in ("start_deal", "next_deal", "redeal", "new_game"):
            answer = self.first_player(rid, answer)
        if self.args.jokers_low and op == "load_state" and isinstance(answer.get("state"), dict):
            answer = {**answer, "state": self.arranged(rid, answer["state"])}
        return self.finish(answer)

    def act(self, request: dict[str, Any]) -> dict[str, Any]:
        rid, action = request["id"], dict(request["action"])
        before = self.state
        if self.args.jokers_low and action.get("type") == "open":
            action["melds"] = [self.jokers_low(rid, m) for m in action.get("melds", [])]
        if (
            self.args.refuse_natural_two
            and before is not None
            and action.get("type") == "swap_joker"
            and str(action.get("card", "")).startswith("2")
        ):
            return self.finish(
                {"id": rid, "accepted": False, "reason": "no_joker_for_card", "state": before}
            )
        answer = self.ask({**request, "action": action})
        if self.args.extra_melds and action.get("type") == "open" and not answer.get("accepted"):
            answer = self.open_with_extra(request, action, answer)
        if self.args.jokers_low and before is not None and not answer.get("accepted"):
            answer = self.joker_elsewhere(request, action, before, answer)
        if (
            self.args.recycle_order
            and answer.get("accepted")
            and before is not None
            and action.get("type") == "draw_stock"
            and not before["stock"]
            and answer["state"]["phase"] not in ("cancelled", "deal_over", "game_over")
        ):
            answer["state"] = self.recycled_otherwise(rid, before, answer["state"])
        if self.args.jokers_low and answer.get("accepted"):
            answer = {**answer, "state": self.arranged(rid, answer["state"])}
        return self.finish(answer)

    def jokers_low(self, rid: int, meld: dict[str, Any]) -> dict[str, Any]:
        """A run listed with a joker at its high end, with the joker at its low end instead."""
        cards = list(meld.get("cards", []))
        if meld.get("kind") != "run" or len(cards) < 2 or cards[-1] != "JK" or cards[0] == "JK":
            return meld
        moved = ["JK", *cards[:-1]]
        probe = {"id": rid, "op": "check_meld", "profile": self.profile, "initial": True}
        if self.ask({**probe, "meld": {"kind": "run", "cards": moved}}).get("valid"):
            return {**meld, "cards": moved}
        return meld

    def without_one(self, request: dict[str, Any], refused: dict[str, Any]) -> dict[str, Any]:
        """A contract query taken when it is valid without one of its melds."""
        melds = list(request.get("melds") or [])
        for i in range(len(melds)):
            fewer = {**request, "melds": melds[:i] + melds[i + 1 :]}
            if len(melds) > 1 and self.ask(fewer).get("valid"):
                return {"id": request["id"], "valid": True}
        return refused

    def open_with_extra(
        self, request: dict[str, Any], action: dict[str, Any], refused: dict[str, Any]
    ) -> dict[str, Any]:
        """An opening taken when it is the contract plus one meld: the contract is opened,
        then the extra meld is put on the table from the hand."""
        melds = list(action.get("melds") or [])
        for i in range(len(melds)):
            fewer = {**action, "melds": melds[:i] + melds[i + 1 :]}
            if len(melds) < 2:
                break
            answer = self.ask({**request, "action": fewer})
            if not answer.get("accepted"):
                continue
            state = dict(answer["state"])  # its own x (a steal open...) kept
            player = action["player"]
            hand = list(state["hands"][player])
            for card in melds[i]["cards"]:
                if card in hand:
                    hand.remove(card)
            hands = [list(h) for h in state["hands"]]
            hands[player] = hand
            extra = {"owner": player, "kind": melds[i]["kind"], "cards": list(melds[i]["cards"])}
            loaded = self.load(
                request["id"], {**state, "hands": hands, "table": [*state["table"], extra]}
            )
            return {**answer, "state": loaded}
        return refused

    def joker_elsewhere(
        self,
        request: dict[str, Any],
        action: dict[str, Any],
        before: dict[str, Any],
        refused: dict[str, Any],
    ) -> dict[str, Any]:
        """``action`` tried with the acted-on run's end joker at its other end."""
        table = before.get("table") or []
        index = action.get("meld")
        if action.get("type") not in ("lay_off", "swap_joker") or not isinstance(index, int):
            return refused
        if not 0 <= index < len(table) or table[index].get("kind") != "run":
            return refused
        cards = list(table[index]["cards"])
        if cards[-1] == "JK" and cards[0] != "JK":
            moved = ["JK", *cards[:-1]]
        elif cards[0] == "JK" and cards[-1] != "JK":
            moved = [*cards[1:], "JK"]
        else:
            return refused
        other = [dict(m) for m in table]
        other[index] = {**other[index], "cards": moved}
        state = dict(before)
        loaded = self.ask(
            {
                "id": request["id"],
                "op": "load_state",
                "state": {**state, "table": other, "profile": self.profile},
            }
        )
        if "error" not in loaded:
            answer = self.ask({**request, "action": action})
            if answer.get("accepted"):
                return answer
        self.load(request["id"], state)
        return refused

    def arranged(self, rid: int, state: dict[str, Any]) -> dict[str, Any]:
        """``state`` with each table run's high-end joker at its low end, where it fits."""
        table = [dict(m) for m in state.get("table") or []]
        probe = {"id": rid, "op": "check_meld", "profile": self.profile, "initial": False}
        moved = False
        for i, meld in enumerate(table):
            cards = list(meld.get("cards", []))
            if meld.get("kind") != "run" or len(cards) < 2 or cards[-1] != "JK" or cards[0] == "JK":
                continue
            other = ["JK", *cards[:-1]]
            if self.ask({**probe, "meld": {"kind": "run", "cards": other}}).get("valid"):
                table[i] = {**meld, "cards": other}
                moved = True
        if not moved:
            return state
        return self.load(rid, {**state, "table": table})

    def recycled_otherwise(
        self, rid: int, before: dict[str, Any], after: dict[str, Any]
    ) -> dict[str, Any]:
        """``after`` with the recycled pool (new stock and the card drawn) rotated by one."""
        player = before["turn"]
        drawn = list(
            (Counter(after["hands"][player]) - Counter(before["hands"][player])).elements()
        )
        if len(drawn) != 1 or not after["stock"]:
            return after
        pool = [drawn[0], *after["stock"]]
        pool = pool[1:] + pool[:1]
        hand = list(after["hands"][player])
        hand.remove(drawn[0])
        hands = [list(h) for h in after["hands"]]
        hands[player] = [*hand, pool[0]]
        state = dict(after)  # its own x (a steal open...) kept
        return self.load(rid, {**state, "hands": hands, "stock": pool[1:]})

    def first_player(self, rid: int, answer: dict[str, Any]) -> dict[str, Any]:
        """A deal started by the player after the reference's first player (no dealer kept)."""
        state = answer.get("state")
        if not self.args.no_dealer or not isinstance(state, dict) or state.get("phase") != "draw":
            return answer
        if answer.get("accepted") is False:
            return answer
        moved = dict(state)
        moved["turn"] = (state["turn"] + 1) % state["players"]
        return {**answer, "state": self.load(rid, moved)}

    def finish(self, answer: dict[str, Any]) -> dict[str, Any]:
        state = answer.get("state")
        if isinstance(state, dict):
            self.state = json.loads(json.dumps(state))
            if self.args.no_dealer:
                answer = {**answer, "state": {**state, "dealer": 0}}  # it keeps no dealer
        return answer


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--recycle-order", action="store_true", help="recycle in its own order")
    parser.add_argument("--no-dealer", action="store_true", help="keep no dealer")
    parser.add_argument("--jokers-low", action="store_true", help="arrange runs' jokers itself")
    parser.add_argument("--extra-melds", action="store_true", help="open with one meld more")
    parser.add_argument("--refuse-natural-two", action="store_true", help="no swap by a 2")
    parser.add_argument("--undeclared", action="store_true", help="declare none of the above")
    parser.add_argument(
        "--ruling", action="append", default=[], help="POINT=OPTION the engine plays"
    )
    args = parser.parse_args(argv)
    proxy = Proxy(args)
    serve(proxy.handle)
    proxy.ref.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
