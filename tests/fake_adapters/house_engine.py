"""The reference engine as a house engine: its own options, counts and model, declared or not.

Real engines play house variants, deal only some player counts, keep no dealer or name no
winners, and recycle the discard pile in their own order. Each flag makes the reference
(hosted in this process, no relay) behave so; by default the ``hello`` answer declares it
as docs/protocol.md §2 asks, so every judge (``run``, ``run --properties``, ``fuzz``,
``smoke``, ``record``) must report no failure. With ``--undeclared`` it behaves the same
but declares nothing, and each judge must catch the difference.

- ``--ruling POINT=OPTION`` (repeatable): played, and declared by the reference's own hello;
- ``--plays 3,4,5``: the counts it deals; any other is answered ``unsupported``;
- ``--declare-players 3,4,5`` or ``none``: what its hello says (one list for every
  profile; ``none`` leaves ``players`` and ``profile_players`` out: every count of its
  profiles, docs/protocol.md §2). Default: the reference's own declaration;
- ``--unmodelled dealer,winners``: declares those fields and sends a constant in place
  of each (dealer 0, winners/closer null, totals and deal_scores zeros, turn_opened false);
- ``--own-recycle``: after drawing from an empty stock, the new stock is shuffled again
  by this engine's own random source (the protocol leaves a recycled order to the engine,
  docs/protocol.md §6);
- ``--scramble-runs``: every state lists each run's cards in a fresh order, and the
  hello declares ``run_order: engine`` (a run's order on the table is then the engine's
  own, compared as a multiset, docs/protocol.md §2);
- ``--undeclared``: all of the above behave the same, but the hello declares none of it;
- ``--declare POINT=OPTION`` (repeatable): with ``--undeclared``, the hello still declares
  that ruling (in its ``rulings``): an engine that declares some of what it plays, as one
  does after taking a fuzz hint;
- ``--deals-from 3``: its deal ops (``start_deal``, ``new_game``) answer ``unsupported`` below
  that many players, while it loads and plays a state of any count it plays;
- ``--refuse-every 15``: a buggy engine, not a house one: every 15th action it would
  accept is refused (``does_not_fit``, its state left as before), so that a test can show
  what one wrong refusal costs the rest of a case;
- ``--refuse-hash 15``: the same, but the action refused is chosen by a hash of the
  action and the state it is played in (about one in 15), so that which actions are
  refused does not depend on the cases run before (benchmarks/refusals.py); with
  ``--refuse-salt S`` another such choice;
- ``--refuse-first discard``: the same, for the first action of that type it would accept
  in each case (after each deal op or ``load_state``, but the one that puts it back on a
  state after its own refusal), so that a test knows which step is refused;
- ``--internal-on check_contract``: an ``internal`` error for every request of that op;
- ``--reload-error internal``: the first ``load_state`` after an action ``--refuse-every``
  refused (the harness putting it back on a state to go on from) is answered with an error
  of that kind;
- ``--fails-at 4``: a broken engine, not a house one: an ``internal`` error whenever it is
  asked to seat that many players.
- ``--query-ruling POINT=OPTION`` (repeatable): a buggy engine, not a house one: its melds
  queries (``check_meld``, ``check_contract``, ``penalty``) are answered as under that
  option too, while its games play only the options above (a joker worth 30 in
  ``penalty``, 50 when a deal is scored), so that no option explains both.

Standard library and the reference package only; it knows nothing of the harness.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from typing import Any

from reference.adapter import Adapter
from reference.adapter_cli import parse_rulings
from reference.codec import state_to_json

#: What an unmodelled field holds in every state this engine sends.
CONSTANTS: dict[str, Any] = {"dealer": 0, "winners": None, "closer": None, "turn_opened": False}
#: Ops that seat players, and where their count is.
SEATING = ("start_deal", "new_game", "load_state")


class HouseEngine:
    """The reference behind the flags."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.engine = Adapter(rulings=parse_rulings(args.ruling))
        #: The engine that answers the melds queries (--query-ruling); None: ``engine``.
        self.queries = (
            Adapter(rulings=parse_rulings([*args.ruling, *args.query_ruling]))
            if args.query_ruling
            else None
        )
        self.plays = _counts(args.plays)
        self.unmodelled = [f for f in (args.unmodelled or "").split(",") if f]
        self.stock = -1  # stock size of the last state sent (-1: none yet)
        self.accepted = 0  # actions accepted so far (--refuse-every)
        self.refused = False  # --refuse-every refused an act since the last state was set
        self.armed = False  # --refuse-first: no action of its type refused in this case yet
        # The engine's own orders (recycled stocks, runs): seeded, so a test replays, and
        # never the same twice in one session, so no judge can rely on them.
        self.rng = random.Random(20240)

    def handle(self, line: str) -> tuple[dict[str, Any], bool]:
        """Answer one request line; True when the session ends."""
        try:
            request = json.loads(line)
        except ValueError:
            return self.engine.handle(line)
        op, rid = request.get("op"), request.get("id")
        if op == "hello":
            answer, done = self.engine.handle(line)
            return self.hello(answer), done
        if self.queries is not None and op in ("check_meld", "check_contract", "penalty"):
            return self.queries.handle(line)
        players = (request.get("state") or request).get("players") if op in SEATING else None
        if players is not None and players == self.args.fails_at:
            message = f"index out of range seating {players} players"
            return {"id": rid, "error": {"kind": "internal", "message": message}}, False
        if op == self.args.internal_on:
            message = f"{op} crashed in this engine"
            return {"id": rid, "error": {"kind": "internal", "message": message}}, False
        if op == "load_state" and self.refused and self.args.reload_error:
            self.refused = False
            message = "cannot reload in the middle of a game"
            return {"id": rid, "error": {"kind": self.args.reload_error, "message": message}}, False
        if op != "act":
            # A new case re-arms --refuse-first; the reload after its refusal does not.
            self.armed = self.armed or not self.refused
            self.refused = False
        fewest = self.args.deals_from
        if op in ("start_deal", "new_game") and fewest and players is not None and players < fewest:
            message = f"this engine deals {fewest} or more players"
            return {"id": rid, "error": {"kind": "unsupported", "message": message}}, False
        if players is not None and self.plays is not None and players not in self.plays:
            message = f"this engine deals {', '.join(map(str, sorted(self.plays)))} players"
            return {"id": rid, "error": {"kind": "unsupported", "message": message}}, False
        before = self.engine.state
        answer, done = self.engine.handle(line)
        if op == "act" and answer.get("accepted") is True and self.refuses(request, before):
            assert before is not None  # an action was accepted: a game was loaded
            self.engine.state = before
            self.refused = True
            answer = {"id": rid, "accepted": False, "reason": "does_not_fit"}
            answer["state"] = self.engine.interface.mask(state_to_json(before))
        state = answer.get("state")
        if isinstance(state, dict):
            action = request.get("action") or {}
            recycled = (
                op == "act"
                and action.get("type") == "draw_stock"
                and answer.get("accepted")
                and self.stock == 0
                and state.get("phase") == "play"
            )
            if recycled and self.args.own_recycle:
                state = self.reshuffle(rid, state)
            self.stock = len(state.get("stock") or [])
            answer["state"] = self.hide(state)
        return answer, done

    def refuses(self, request: dict[str, Any], before: Any) -> bool:
        """Whether this accepted action is one to refuse (--refuse-every, --refuse-hash)."""
        if self.args.refuse_every:
            self.accepted += 1
            return self.accepted % self.args.refuse_every == 0
        if self.args.refuse_first:
            first = (
                self.armed and (request.get("action") or {}).get("type") == self.args.refuse_first
            )
            self.armed = self.armed and not first
            return bool(first)
        if self.args.refuse_hash and before is not None:
            played = [self.args.refuse_salt, request.get("action"), state_to_json(before)]
            text = json.dumps(played, sort_keys=True, separators=(",", ":"))
            digest = hashlib.sha256(text.encode()).digest()
            return int.from_bytes(digest[:8], "big") % self.args.refuse_hash == 0
        return False

    def hello(self, answer: dict[str, Any]) -> dict[str, Any]:
        """The handshake: the reference's, with this engine's declarations."""
        if self.args.undeclared:
            # The hello of the plain reference: none of the choices above is declared.
            plain, _ = Adapter().handle(json.dumps({"id": answer.get("id"), "op": "hello"}))
            plain["rulings"] = {**plain.get("rulings", {}), **parse_rulings(self.args.declare)}
            return plain
        declared = self.args.declare_players
        if declared == "none":
            answer.pop("players", None)
            answer.pop("profile_players", None)
        elif declared:
            answer.pop("profile_players", None)
            answer["players"] = sorted(_counts(declared) or ())
        if self.unmodelled:
            answer["unmodelled"] = self.unmodelled
        if self.args.scramble_runs:
            answer["run_order"] = "engine"
        return answer

    def reshuffle(self, rid: Any, state: dict[str, Any]) -> dict[str, Any]:
        """The recycled stock in this engine's own order (the same cards)."""
        stock = list(state["stock"])
        self.rng.shuffle(stock)
        mine = {**state, "stock": stock}
        loaded, _ = self.engine.handle(json.dumps({"id": rid, "op": "load_state", "state": mine}))
        return dict(loaded["state"])

    def scrambled(self, meld: dict[str, Any]) -> dict[str, Any]:
        """A run with its cards in a fresh order of this engine's own."""
        if meld.get("kind") != "run":
            return meld
        cards = list(meld["cards"])
        self.rng.shuffle(cards)
        return {**meld, "cards": cards}

    def hide(self, state: dict[str, Any]) -> dict[str, Any]:
        """The state with each unmodelled field replaced by a constant of its type (and
        its runs scrambled, with ``--scramble-runs``)."""
        out = dict(state)
        if self.args.scramble_runs and isinstance(out.get("table"), list):
            out["table"] = [self.scrambled(m) for m in out["table"]]
        for name in self.unmodelled:
            if name in ("totals", "deal_scores"):
                if name == "totals" or out.get(name) is not None:
                    out[name] = [0] * int(state["players"])
            else:
                out[name] = CONSTANTS[name]
        return out


def _counts(text: str | None) -> set[int] | None:
    if not text or text == "none":
        return None
    return {int(part) for part in text.split(",")}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--ruling", action="append", default=[], metavar="POINT=OPTION")
    parser.add_argument("--plays", help="comma-separated player counts it deals")
    parser.add_argument("--declare-players", help="comma-separated counts it declares, or none")
    parser.add_argument("--unmodelled", help="comma-separated state fields it does not model")
    parser.add_argument("--own-recycle", action="store_true", help="shuffle a recycled stock")
    parser.add_argument("--scramble-runs", action="store_true", help="list runs in any order")
    parser.add_argument("--undeclared", action="store_true", help="declare none of the above")
    parser.add_argument("--declare", action="append", default=[], metavar="POINT=OPTION")
    parser.add_argument("--deals-from", type=int, help="deal ops unsupported below this count")
    parser.add_argument("--refuse-every", type=int, help="refuse every Nth accepted action")
    parser.add_argument("--refuse-hash", type=int, help="refuse about one in N, by a hash")
    parser.add_argument("--refuse-salt", type=int, default=0, help="another --refuse-hash choice")
    parser.add_argument("--refuse-first", help="refuse the first such action of each case")
    parser.add_argument("--internal-on", help="an internal error for every request of this op")
    parser.add_argument("--reload-error", help="the error kind of a load_state after an act")
    parser.add_argument("--fails-at", type=int, help="an internal error seating this count")
    parser.add_argument("--query-ruling", action="append", default=[], metavar="POINT=OPTION")
    engine = HouseEngine(parser.parse_args(argv))
    for line in sys.stdin:
        if not line.strip():
            continue
        answer, done = engine.handle(line)
        sys.stdout.write(json.dumps(answer, separators=(",", ":")) + "\n")
        sys.stdout.flush()
        if done:
            break
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
