"""The watchdog process itself (see conformance/adapter/watchdog.py): run by path, stdlib only.

Started as ``python -I -S conformance/adapter/_watchdog_child.py`` so that it starts in a few
milliseconds: it imports nothing of the harness. It reads ``+ <pgid> <token>`` and
``- <pgid>`` lines until end-of-file, then SIGKILLs every group still registered and
every process whose environment still carries one of their session tokens.
"""

from __future__ import annotations

import os
import signal
import sys

#: Must match conformance.adapter.reaper.SESSION_VARIABLE (tests/conformance/test_watchdog.py).
SESSION_VARIABLE = b"CARIOCA_ADAPTER_SESSION"
#: Rounds of kill-then-look-again (a dying process may still fork).
ROUNDS = 8


def read_registrations(lines: list[bytes]) -> dict[int, bytes]:
    """The groups registered and not unregistered by ``lines``: pgid -> token."""
    live: dict[int, bytes] = {}
    for line in lines:
        parts = line.split()
        try:
            if parts[0] == b"+":
                live[int(parts[1])] = parts[2]
            elif parts[0] == b"-":
                live.pop(int(parts[1]), None)
        except (ValueError, IndexError):
            continue
    return live


def kill_tokens(tokens: set[bytes]) -> None:
    """SIGKILL every process whose environment holds one of ``tokens``."""
    if not tokens or not os.path.isdir("/proc"):
        return
    me = str(os.getpid())
    for _ in range(ROUNDS):
        found = False
        for entry in os.listdir("/proc"):
            if not entry.isdigit() or entry == me:
                continue
            try:
                with open(f"/proc/{entry}/environ", "rb") as handle:
                    environ = handle.read().split(b"\0")
            except OSError:
                continue
            if tokens.intersection(environ):
                try:
                    os.kill(int(entry), signal.SIGKILL)
                except OSError:
                    continue
                found = True
        if not found:
            return


def main() -> None:
    """Wait for the harness to go, then kill what it left running."""
    # Whatever reaches it by accident (a stray Ctrl-C) must not cut the cleanup short.
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)
    # Returns at end-of-file: when the harness is gone.
    live = read_registrations(sys.stdin.buffer.readlines())
    for pgid in live:
        try:  # noqa: SIM105 (contextlib would cost this program's start-up its imports)
            os.killpg(pgid, signal.SIGKILL)
        except OSError:
            pass
    kill_tokens({SESSION_VARIABLE + b"=" + token for token in live.values()})


if __name__ == "__main__":
    main()
