"""Adapters die with the harness, whatever kills it (``kill -9`` included).

A signal the harness can catch ends in its own cleanup (:mod:`conformance.run.interrupt`);
SIGKILL, or a crash of the interpreter, leaves no chance to run any. So the first adapter
a harness process starts also starts one **watchdog**: a small Python process in a session
of its own (terminal signals and a ``kill`` of the harness's group miss it) that reads
the harness's registrations from a pipe:

- ``+ <pgid> <token>``: an adapter's process group and its session token
  (:data:`conformance.adapter.reaper.SESSION_VARIABLE`) were started;
- ``- <pgid>``: that group was shut down.

When the pipe reaches end-of-file (the harness is gone: no process holds its write end)
the watchdog SIGKILLs every group still registered, then every process still carrying
one of their tokens (descendants that left the group with ``setsid``), and exits. A
harness that ends normally has shut every group down, so its watchdog just exits.

Why not ``PR_SET_PDEATHSIG`` in the adapter: it needs ``preexec_fn`` (unsafe with the
worker threads, and a slow fork for every spawn), it fires when the *thread* that spawned
the adapter ends rather than the process, and it reaches only the adapter itself, not
the grandchildren in its group. The watchdog costs one interpreter start per harness
process, in parallel with the run, and one short write per adapter started or stopped.

A pgid is only reused once every process of that group is gone; a group the harness
shut down is unregistered at once, so the watchdog never signals a stranger's group
(unless the harness dies between killing a group and unregistering it, within
microseconds of a recycled pid: accepted).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Final

from conformance.adapter.reaper import protect

#: The watchdog's own program, run by path: it imports nothing of the harness.
_PROGRAM: Final = str(Path(__file__).resolve().parent / "_watchdog_child.py")

_KEPT_ENVIRONMENT: Final = frozenset(
    ("PATH", "LD_LIBRARY_PATH", "DYLD_LIBRARY_PATH", "SYSTEMROOT", "TMPDIR", "LANG")
)

_lock = threading.Lock()
_proc: subprocess.Popen[bytes] | None = None
_failed = False
_starts = 0
#: Watchdogs started at most by one harness process: one that keeps dying is given up
#: on rather than restarted at every adapter (the harness's own clean-up still runs).
MAX_STARTS: Final = 4
#: What this process has registered and not unregistered: pgid -> token.
_watched: dict[int, str] = {}


def watch(pgid: int, token: str) -> None:
    """Register an adapter group started by this process (see the module's docstring)."""
    with _lock:
        _watched[pgid] = token
        _send(b"+ %d %s\n" % (pgid, token.encode("ascii")))


def unwatch(pgid: int) -> None:
    """Unregister a group this process has shut down."""
    with _lock:
        if _watched.pop(pgid, None) is not None:
            _send(b"- %d\n" % pgid)


def watchdog_pid() -> int | None:
    """The pid of this process's watchdog, None while there is none."""
    proc = _proc
    return proc.pid if proc is not None and proc.poll() is None else None


def _send(line: bytes) -> None:
    """Write one registration; a watchdog that is gone or stuck is replaced. Holds _lock."""
    global _proc
    if _failed:
        return
    if _proc is None or _proc.poll() is not None:
        _restart()
        return  # the new watchdog got every registration, this one included
    assert _proc.stdin is not None
    try:
        # Lines are far below PIPE_BUF: written whole or not at all.
        if os.write(_proc.stdin.fileno(), line) == len(line):
            return
    except (BlockingIOError, BrokenPipeError, OSError):
        pass
    _restart()


def _restart() -> None:
    """Start a watchdog (killing one that stopped reading) and give it every registration."""
    global _proc, _failed, _starts
    old = _proc
    _proc = None
    if old is not None:
        with contextlib.suppress(OSError):
            old.kill()
        with contextlib.suppress(OSError, subprocess.TimeoutExpired):
            old.wait(timeout=1.0)
        with contextlib.suppress(OSError):
            assert old.stdin is not None
            old.stdin.close()
    _starts += 1
    if not sys.executable or _starts > MAX_STARTS:
        _failed = True
        return
    try:
        proc = subprocess.Popen(
            [sys.executable, "-I", "-S", _PROGRAM],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            bufsize=0,
            start_new_session=True,
            close_fds=True,
            # What an interpreter may need to start, and nothing else: it must not carry
            # tags or tokens by which a reaper or a test would take it for an adapter's.
            env={k: v for k, v in os.environ.items() if k in _KEPT_ENVIRONMENT},
        )
    except OSError:
        _failed = True  # no watchdog: the adapters still die with a clean exit
        return
    assert proc.stdin is not None
    protect(proc.pid)
    os.set_blocking(proc.stdin.fileno(), False)
    _proc = proc
    for pgid, token in _watched.items():
        with contextlib.suppress(OSError):
            os.write(proc.stdin.fileno(), b"+ %d %s\n" % (pgid, token.encode("ascii")))


__all__ = ["unwatch", "watch", "watchdog_pid"]
