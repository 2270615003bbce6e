"""The reference behind a proxy that takes each read of its stdin for one request.

A real bug in adapters that read stdin in chunks (``os.read``) rather than by lines: one
request at a time works, but two requests that arrive together, as an engine declaring
``max_in_flight`` 2 receives them, are parsed as one document, which is not JSON; the
proxy then answers ``bad_request`` for the chunk, with no id. It declares
``max_in_flight: 2`` so the harness may send two together; ``smoke``'s in-flight probe
writes them in one write, so the bug shows every time.

Standard library only: the proxy knows nothing of the harness.
"""

from __future__ import annotations

import json
import os
import sys

from relay import ReferenceRelay


def main() -> int:
    """Relay each chunk of stdin to the reference as one request."""
    relay = ReferenceRelay()
    try:
        while True:
            chunk = os.read(0, 65536)
            if not chunk:
                break
            try:
                request = json.loads(chunk)
            except ValueError as exc:
                error = {"kind": "bad_request", "message": f"not one JSON request: {exc}"}
                sys.stdout.write(json.dumps({"id": None, "error": error}) + "\n")
                sys.stdout.flush()
                continue
            answer = relay.ask(json.dumps(request)).rstrip("\n")
            if request.get("op") == "hello" and answer:
                answer = json.dumps({**json.loads(answer), "max_in_flight": 2})
            sys.stdout.write(answer + "\n")
            sys.stdout.flush()
            if request.get("op") == "bye":
                break
    finally:
        relay.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
