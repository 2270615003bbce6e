"""The reference behind a proxy that accepts what the protocol says an engine must refuse.

Each ``--bugs`` name is one real engine's mistake with malformed or borderline requests:

- ``end``: a run lay-off without ``end`` is laid at the high end (protocol §6 requires it);
- ``cut``: a ``cut`` that is not an integer is read anyway (``true`` dropped, ``45.0`` read as
  45, so a float perfect cut scores);
- ``deal``: a ``deal_number`` past the last is read as the last;
- ``op``: an op the protocol does not have is answered ``unsupported`` (not ``bad_request``);
- ``card``: an unknown card code in ``penalty`` is dropped;
- ``missing``: ``new_game`` without ``seed`` plays seed 1;
- ``pass``: a ``pass`` by the player to move is refused with ``not_your_turn``;
- ``extra``: a request with a field this proxy does not know is a ``bad_request``;
- ``deck``: a deal op's deck that is not the pack is dealt anyway (the last deck the
  reference took is dealt in its place);
- ``players``: a player count the profile has no place for is answered ``unsupported``;
- ``load``: an impossible state is loaded anyway (an unknown phase read as ``draw``, a turn
  or dealer taken modulo the players, ``turn_opened`` dropped, ``opened`` cut or padded).

Everything else is the reference's answer. Standard library only: the proxy knows nothing of
the harness.

    lenient_proxy.py --bugs end,cut
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from relay import ReferenceRelay

BUGS = ("end", "cut", "deal", "op", "card", "missing", "pass", "extra", "deck", "players", "load")
DEAL_OPS = ("start_deal", "next_deal", "redeal")
PHASES = ("draw", "play", "deal_over", "cancelled", "game_over")
OPS = [
    "hello",
    "bye",
    "check_meld",
    "check_contract",
    "penalty",
    "load_state",
    "act",
    "start_deal",
    "next_deal",
    "redeal",
    "new_game",
]
#: Every request field of protocol version 1 (§7), and the id and op.
KNOWN = set(
    [
        "id",
        "op",
        "protocol",
        "profile",
        "meld",
        "initial",
        "deal_number",
        "melds",
        "cards",
        "state",
        "action",
        "players",
        "dealer",
        "totals",
        "deck",
        "cut",
        "seed",
    ]
)


def _error(request: dict[str, Any], kind: str, message: str) -> str:
    return json.dumps({"id": request.get("id"), "error": {"kind": kind, "message": message}})


def _bend(request: dict[str, Any], bugs: set[str]) -> dict[str, Any] | str:
    """The request the reference is sent instead, or (a string) this proxy's own answer."""
    op = request.get("op")
    if "op" in bugs and op not in OPS:
        return _error(request, "unsupported", f"no op {op}")
    if "extra" in bugs and set(request) - KNOWN:
        return _error(request, "bad_request", f"unknown fields {sorted(set(request) - KNOWN)}")
    action = request.get("action")
    if "end" in bugs and isinstance(action, dict) and action.get("type") == "lay_off":
        request = {**request, "action": {"end": "high", **action}}
    if "cut" in bugs and "cut" in request and type(request["cut"]) is not int:
        cut = request["cut"]
        request = {k: v for k, v in request.items() if k != "cut"}
        if isinstance(cut, float):
            request["cut"] = int(cut)
    if "deal" in bugs and isinstance(request.get("deal_number"), int):
        request = {**request, "deal_number": min(request["deal_number"], 7)}
    if "card" in bugs and op == "penalty" and isinstance(request.get("cards"), list):
        valid = [c for c in request["cards"] if isinstance(c, str) and len(c) in (2, 3)]
        request = {**request, "cards": [c for c in valid if c[:-1] in RANKS and c[-1] in "SHDC"]}
    if "missing" in bugs and op == "new_game" and "seed" not in request:
        request = {**request, "seed": 1}
    state = request.get("state")
    if "load" in bugs and op == "load_state" and isinstance(state, dict):
        request = {**request, "state": _mended(state)}
    return request


def _mended(state: dict[str, Any]) -> dict[str, Any]:
    """The state with what makes it impossible smoothed over, as a careless loader does."""
    players = state.get("players")
    if not isinstance(players, int) or players < 1:
        return state
    state = dict(state)
    if state.get("phase") not in PHASES:
        state["phase"] = "draw"
    for seat in ("turn", "dealer"):
        if isinstance(state.get(seat), int):
            state[seat] %= players
    state["turn_opened"] = False
    opened = state.get("opened")
    if isinstance(opened, list):
        state["opened"] = (opened + [False] * players)[:players]
    return state


RANKS = {"A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"}


def _after(
    relay: ReferenceRelay,
    request: dict[str, Any],
    sent: dict[str, Any],
    answer: str,
    bugs: set[str],
    decks: list[Any],
) -> str:
    """The answer as the buggy engine gives it: a refused deck dealt anyway, a count outside
    the profile refused as unsupported."""
    error = json.loads(answer).get("error")
    message = error.get("message", "") if isinstance(error, dict) else ""
    if error is None and request.get("op") in DEAL_OPS and "deck" in sent:
        decks[:] = [sent["deck"]]
    if "players" in bugs and error and error.get("kind") == "bad_request" and "players" in message:
        return json.dumps({"id": request.get("id"), "error": {**error, "kind": "unsupported"}})
    wrong_pack = "copies" in message or "cards, not" in message  # not a malformed deck
    if "deck" in bugs and error and request.get("op") in DEAL_OPS and wrong_pack and decks:
        return relay.ask(json.dumps({**sent, "deck": decks[0]})).rstrip("\n")
    return answer


def main() -> int:
    """Relay stdin to the reference and its answers back, bending the requests as asked."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--bugs", default="", help=f"comma-separated, of {', '.join(BUGS)}")
    args = parser.parse_args()
    bugs = {name for name in args.bugs.split(",") if name}
    unknown = bugs - set(BUGS)
    if unknown:
        parser.error(f"unknown bugs {sorted(unknown)}")
    relay = ReferenceRelay()
    decks: list[Any] = []  # the last deck the reference dealt
    try:
        for line in sys.stdin:
            if not line.strip():
                continue
            request = json.loads(line)
            bent = _bend(request, bugs)
            if isinstance(bent, str):
                answer = bent
            else:
                answer = relay.ask(json.dumps(bent)).rstrip("\n")
                answer = _after(relay, request, bent, answer, bugs, decks)
                action = request.get("action")
                if "pass" in bugs and isinstance(action, dict) and action.get("type") == "pass":
                    answered = json.loads(answer)
                    if answered.get("reason") in ("draw_first", "already_drew"):
                        answer = json.dumps({**answered, "reason": "not_your_turn"})
            sys.stdout.write(answer + "\n")
            sys.stdout.flush()
            if request.get("op") == "bye":
                break
    finally:
        relay.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
