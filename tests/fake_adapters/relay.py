"""The reference adapter as a child process, for adapters that bend its answers.

The hostile proxy, the broken-laws adapter and the benchmark's slow engine all sit
in front of the real reference adapter; this is the one place that starts it and
passes lines through. Standard library only: these scripts know nothing of the
harness.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Sequence
from typing import Any


class ReferenceRelay:
    """A running ``python -m reference.adapter``, asked one request line at a time."""

    def __init__(self, rulings: Sequence[str] = ()) -> None:
        """``rulings`` are ``POINT=OPTION`` strings the reference plays (``--ruling``)."""
        extra = [arg for ruling in rulings for arg in ("--ruling", ruling)]
        self.child = subprocess.Popen(
            [sys.executable, "-m", "reference.adapter", *extra],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )

    def ask(self, line: str) -> str:
        """Send one request line; return the reference's answer line ('' if it has gone)."""
        assert self.child.stdin is not None and self.child.stdout is not None
        self.child.stdin.write(line if line.endswith("\n") else line + "\n")
        self.child.stdin.flush()
        return self.child.stdout.readline()

    def kill(self) -> None:
        """Stop the reference at once (for adapters that crash on purpose)."""
        self.child.kill()

    def close(self) -> int:
        """End the reference's input and wait for it to exit."""
        assert self.child.stdin is not None
        self.child.stdin.close()
        return self.child.wait(timeout=5)


def serve(handle: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
    """Answer requests from stdin with ``handle``, one JSON line each, until ``bye`` or EOF."""
    for line in sys.stdin:
        request = json.loads(line)
        answer = handle(request)
        sys.stdout.write(json.dumps(answer, separators=(",", ":")) + "\n")
        sys.stdout.flush()
        if request.get("op") == "bye":
            break
