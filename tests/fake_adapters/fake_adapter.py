"""A scripted adapter for harness tests: correct by default, hostile on request.

Run as ``python fake_adapter.py [flags]``. Without flags it speaks protocol 1
correctly for a few ops: ``hello``, ``bye``, ``penalty`` (real card values of
the Argentine profile), ``check_meld`` and ``check_contract`` (always valid),
``load_state`` (echoes the state), ``act`` (rejects, state unchanged),
``start_deal``/``new_game`` (a fixed small state). Each ``--X-on OP`` flag makes
it misbehave in one way when it receives ``OP`` (``hello`` included).

It is deliberately stdlib-only and independent of the harness code.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from typing import Any

RANK_POINTS = {"J": 10, "Q": 10, "K": 10, "A": 20}


def card_points(code: str) -> int:
    """Penalty of one card: 2-10 face value, J/Q/K 10, A 20, joker 50."""
    if code == "JK":
        return 50
    rank = code[:-1]
    return RANK_POINTS.get(rank, int(rank) if rank.isdigit() else 0)


def small_state() -> dict[str, Any]:
    """A 2-player state holding all 108 cards, in canonical order, deal 1."""
    ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
    deck = [r + s for _ in range(2) for s in "SHDC" for r in ranks] + ["JK"] * 4
    return {
        "profile": "argentine",
        "players": 2,
        "deal_number": 1,
        "dealer": 0,
        "turn": 1,
        "phase": "draw",
        "hands": [deck[0:11], deck[11:22]],
        "opened": [False, False],
        "turn_opened": False,
        "table": [],
        "stock": deck[23:],
        "discard": [deck[22]],
        "totals": [0, 0],
        "deal_scores": None,
        "closer": None,
        "winners": None,
    }


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tag", default="", help="ignored; lets tests find their processes")
    parser.add_argument("--protocol", type=int, default=1, help="version claimed in hello")
    parser.add_argument("--capabilities", default="melds,turns,deals,reasons")
    parser.add_argument("--rulings", default="{}", help="JSON object for hello's rulings")
    parser.add_argument("--max-in-flight", type=int, help="declared in hello (default: none)")
    parser.add_argument("--invalid-melds", action="store_true", help="reject melds, no reason")
    parser.add_argument("--exit-on", help="exit with --exit-code on receiving this op")
    parser.add_argument("--exit-code", type=int, default=3)
    parser.add_argument("--hang-on", help="never answer this op")
    parser.add_argument("--slow", type=float, default=0.0, help="sleep before every answer")
    parser.add_argument("--non-json-on", help="answer this op with a log line, not JSON")
    parser.add_argument("--wrong-shape-on", help="answer this op with JSON of the wrong shape")
    parser.add_argument("--wrong-id-on", help="answer this op echoing another id")
    parser.add_argument("--huge-line-on", help="answer this op with a line of --huge-mb MB")
    parser.add_argument("--huge-mb", type=int, default=16)
    parser.add_argument("--error-on", help="answer this op with an error of kind internal")
    parser.add_argument("--spam-on", help="after answering this op, print lines without end")
    parser.add_argument("--two-lines-on", help="answer this op twice")
    parser.add_argument("--close-stdout-on", help="close stdout on this op and keep running")
    parser.add_argument("--no-newline-on", help="answer this op without the newline, then exit")
    parser.add_argument("--flood-stderr-mb", type=int, default=0, help="stderr MB first")
    parser.add_argument("--grandchild-pid-file", help="spawn a sleeping grandchild, write its pid")
    parser.add_argument("--ignore-term", action="store_true", help="ignore SIGTERM (needs KILL)")
    parser.add_argument("--linger", action="store_true", help="keep running after bye / stdin EOF")
    return parser.parse_args(argv)


def answer_for(op: str, request: dict[str, Any], args: argparse.Namespace) -> dict[str, Any]:
    rid = request.get("id")
    if op == "hello":
        caps = [c for c in args.capabilities.split(",") if c]
        return {
            "id": rid,
            "protocol": args.protocol,
            "implementation": {"name": "fake", "version": "0.0.1", "language": "python"},
            "profiles": ["argentine"],
            "capabilities": caps,
            "rulings": json.loads(args.rulings),
            **({} if args.max_in_flight is None else {"max_in_flight": args.max_in_flight}),
        }
    if op == "bye":
        return {"id": rid}
    if op == "penalty":
        return {"id": rid, "points": sum(card_points(c) for c in request["cards"])}
    if op in ("check_meld", "check_contract"):
        return {"id": rid, "valid": not args.invalid_melds}
    if op == "load_state":
        return {"id": rid, "state": request["state"]}
    if op == "act":
        return {"id": rid, "accepted": False, "reason": "not_your_turn", "state": small_state()}
    if op in ("start_deal", "new_game"):
        return {"id": rid, "state": small_state()}
    if op in ("next_deal", "redeal"):
        return {"id": rid, "accepted": False, "reason": "deal_in_progress", "state": small_state()}
    return {"id": rid, "error": {"kind": "unsupported", "message": f"no op {op}"}}


def send(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    if args.ignore_term:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if args.grandchild_pid_file:
        # The grandchild keeps the inherited stdout/stderr open, like a
        # forgotten helper process would.
        child = subprocess.Popen(
            [sys.executable, "-c", "import time; time.sleep(600)", "--tag", args.tag]
        )
        with open(args.grandchild_pid_file, "w", encoding="ascii") as handle:
            handle.write(str(child.pid))
    if args.flood_stderr_mb:
        block = ("stderr flood " * 80 + "\n").encode()
        target = args.flood_stderr_mb * 2**20
        written = 0
        while written < target:
            os.write(2, block)
            written += len(block)
        sys.stderr.write("flood done: last words\n")
        sys.stderr.flush()
    for raw in sys.stdin:
        request = json.loads(raw)
        op = request.get("op", "")
        sys.stderr.write(f"fake adapter got {op}\n")
        sys.stderr.flush()
        if op == args.exit_on:
            sys.stderr.write(f"fake adapter exits with {args.exit_code} on {op}\n")
            sys.stderr.flush()
            return int(args.exit_code)
        if op == args.hang_on:
            time.sleep(600)
        if args.slow:
            time.sleep(args.slow)
        answer = answer_for(op, request, args)
        if op == args.non_json_on:
            sys.stdout.write(f"DEBUG: handling {op}\n")
            sys.stdout.flush()
            continue
        if op == args.wrong_shape_on:
            answer = {"id": request.get("id"), "result": "it is fine", "points": "many"}
        if op == args.wrong_id_on:
            answer["id"] = int(request.get("id", 0)) + 100
        if op == args.error_on:
            answer = {"id": request.get("id"), "error": {"kind": "internal", "message": "boom"}}
        if op == args.huge_line_on:
            chunk = b"x" * 2**20
            os.write(1, b'{"id":%d,"pad":"' % request.get("id", 0))
            for _ in range(args.huge_mb):
                os.write(1, chunk)
            os.write(1, b'"}\n')
            continue
        if op == args.close_stdout_on:
            sys.stdout.close()
            os.close(1)
            time.sleep(600)
        if op == args.no_newline_on:
            sys.stdout.write(json.dumps(answer))
            sys.stdout.flush()
            return 0
        send(answer)
        if op == args.two_lines_on:
            send(answer)
        if op == args.spam_on:
            while True:
                send({"id": 0, "note": "unsolicited"})
        if op == "bye" and not args.linger:
            return 0
    if args.linger:
        time.sleep(600)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
