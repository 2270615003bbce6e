"""The reference behind a proxy that changes what the engine declares, or grades nothing.

``--hello JSON`` merges a JSON object into the reference's ``hello`` answer, so a test can
run an engine that declares fewer player counts than its profile's text (``{"profile_players":
{"pagat": [2, 3, 4]}}``) while still playing like the reference. ``--unsupported-all`` makes
an engine that claims every profile and capability in its handshake and then answers every
request but ``hello`` and ``bye`` with an ``unsupported`` error: a run against it grades
nothing, which must never look like a green. ``--score-digits D`` puts a D-digit number in
every score it answers (``totals``, ``deal_scores``, ``points``), where the protocol takes
any integer of at most 40 digits: an engine's number a report must hold and read back.

Standard library only: the proxy knows nothing of the harness.

    declaring_proxy.py --hello '{"profile_players": {"pagat": [2, 3, 4]}}'
    declaring_proxy.py --unsupported-all
"""

from __future__ import annotations

import argparse
import json
import sys

from relay import ReferenceRelay


def huge_scores(value: object, number: int) -> object:
    """``value`` with every score in it (totals, deal scores, penalty points) ``number``."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if key in ("totals", "deal_scores") and isinstance(item, list):
                out[key] = [number for _ in item]
            elif key == "points" and isinstance(item, int):
                out[key] = number
            else:
                out[key] = huge_scores(item, number)
        return out
    if isinstance(value, list):
        return [huge_scores(item, number) for item in value]
    return value


def main() -> int:
    """Relay stdin to the reference and its answers back, rewriting as asked."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--hello", default="{}", help="JSON object merged into hello's answer")
    parser.add_argument("--unsupported-all", action="store_true")
    parser.add_argument("--score-digits", type=int, help="every score this many digits long")
    args = parser.parse_args()
    extra = json.loads(args.hello)
    relay = ReferenceRelay()
    try:
        for line in sys.stdin:
            if not line.strip():
                continue
            request = json.loads(line)
            op = request.get("op")
            if args.unsupported_all and op not in ("hello", "bye"):
                error = {"kind": "unsupported", "message": f"{op} is not implemented"}
                answer = json.dumps({"id": request.get("id"), "error": error})
            else:
                answer = relay.ask(line).rstrip("\n")
                if op == "hello" and answer:
                    answer = json.dumps({**json.loads(answer), **extra})
                elif args.score_digits and answer:
                    answer = json.dumps(huge_scores(json.loads(answer), 10**args.score_digits - 1))
            sys.stdout.write(answer + "\n")
            sys.stdout.flush()
            if op == "bye":
                break
    finally:
        relay.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
