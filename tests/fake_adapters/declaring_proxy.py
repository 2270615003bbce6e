"""The reference behind a proxy that changes what the engine declares, or grades nothing.

``--hello JSON`` merges a JSON object into the reference's ``hello`` answer, so a test can
run an engine that declares fewer player counts than its profile's text (``{"profile_players":
{"pagat": [2, 3, 4]}}``) while still playing like the reference. ``--unsupported-all`` makes
an engine that claims every profile and capability in its handshake and then answers every
request but ``hello`` and ``bye`` with an ``unsupported`` error: a run against it grades
nothing, which must never look like a green.

Standard library only: the proxy knows nothing of the harness.

    declaring_proxy.py --hello '{"profile_players": {"pagat": [2, 3, 4]}}'
    declaring_proxy.py --unsupported-all
"""

from __future__ import annotations

import argparse
import json
import sys

from relay import ReferenceRelay


def main() -> int:
    """Relay stdin to the reference and its answers back, rewriting as asked."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--hello", default="{}", help="JSON object merged into hello's answer")
    parser.add_argument("--unsupported-all", action="store_true")
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
            sys.stdout.write(answer + "\n")
            sys.stdout.flush()
            if op == "bye":
                break
    finally:
        relay.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
