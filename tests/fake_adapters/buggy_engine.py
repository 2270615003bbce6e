"""The reference with three unrelated bugs, as a real engine has them: no option explains any.

- a penalty (the ``penalty`` query) counts one point too many, whatever the cards;
- a trio of the wrong size is refused for mixed ranks (``trio_size`` answered as
  ``trio_mixed_ranks``), in a melds query and in play alike;
- taking the top discard is refused when it is a king (``empty_discard``, in the engine's
  own words "nothing to take").

Each is a fault of the engine, not a disputed reading: the cause inference must name three
causes and suggest no ruling for any. Standard library only: it knows nothing of the harness.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from relay import ReferenceRelay


class Buggy:
    """Relays to the reference, bending three answers."""

    def __init__(self) -> None:
        self.ref = ReferenceRelay()
        self.state: dict[str, Any] | None = None

    def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        """The reference's answer to ``request``, with the bugs."""
        action = request.get("action") if isinstance(request.get("action"), dict) else {}
        discard = (self.state or {}).get("discard") or []
        if (
            request.get("op") == "act"
            and action.get("type") == "draw_discard"
            and discard
            and str(discard[-1]).startswith("K")
        ):
            return {
                "id": request.get("id"),
                "accepted": False,
                "reason": "empty_discard",
                "message": "nothing to take",
                "state": self.state,
            }
        answer: dict[str, Any] = json.loads(self.ref.ask(json.dumps(request)) or "{}")
        if request.get("op") == "penalty" and isinstance(answer.get("points"), int):
            answer["points"] += 1
        if answer.get("reason") == "trio_size":
            answer["reason"] = "trio_mixed_ranks"
        if isinstance(answer.get("state"), dict):
            self.state = answer["state"]
        return answer


def main() -> int:
    """Serve the protocol on stdin/stdout until ``bye``."""
    engine = Buggy()
    try:
        for line in sys.stdin:
            if not line.strip():
                continue
            request = json.loads(line)
            sys.stdout.write(json.dumps(engine.handle(request)) + "\n")
            sys.stdout.flush()
            if request.get("op") == "bye":
                break
    finally:
        engine.ref.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
