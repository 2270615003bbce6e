"""Finding and killing the processes an adapter left behind outside its process group.

The session kills the adapter's process group when it ends; a process that left the
group on purpose (``setsid``, a double fork into a new session) escapes that. Two
nets catch it, neither needing root or cgroups:

- **Child subreaper** (Linux, ``prctl(PR_SET_CHILD_SUBREAPER)``, set by the command
  line with :func:`become_subreaper`): an orphaned descendant of the harness is
  re-parented to the harness instead of to init, so the harness sees it among its own
  children and can kill and reap it, even if it scrubbed its environment.
- **Session token**: every adapter is started with ``CARIOCA_ADAPTER_SESSION=<token>``
  in its environment, which its descendants inherit. An escaped process that kept it
  is attributed to its session; without the subreaper (library use, other platforms)
  the token is the only net, found through ``/proc/<pid>/environ``.

With several workers, an orphan carrying the token of another live session is left
to that session; an orphan with no token (it scrubbed its environment) is killed by
whichever session ends first.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from collections.abc import Collection
from typing import Final

#: Environment variable naming the adapter session a process descends from.
SESSION_VARIABLE: Final = "CARIOCA_ADAPTER_SESSION"
_PR_SET_CHILD_SUBREAPER: Final = 36
#: Rounds of kill-then-look-again (killing an orphan re-parents its own children).
_ROUNDS: Final = 8
#: Seconds to wait for one SIGKILLed orphan to become reapable.
_REAP_WAIT: Final = 2.0

_subreaper = False
_attempted = False
#: Children of the harness that are not adapters' orphans (the watchdog): never killed.
_protected: set[int] = set()


def protect(pid: int) -> None:
    """Never kill ``pid`` as an orphan: a child the harness started for itself."""
    _protected.add(pid)


def become_subreaper() -> bool:
    """Make this process a child subreaper (Linux); return whether it now is one.

    Meant for the command line, whose only children are adapters: a library caller's
    process (pytest) should not adopt every orphan of its tree.
    """
    global _subreaper, _attempted
    _attempted = True
    if _subreaper:
        return True
    if not sys.platform.startswith("linux"):
        return False
    import ctypes  # here: only `run` needs it, and `check` starts faster without it

    try:
        # The running program's own symbols include libc's prctl: no library search
        # (find_library runs ldconfig in a subprocess).
        libc = ctypes.CDLL(None, use_errno=True)
        done = bool(libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        done = False
    _subreaper = done
    return done


def subreaper_unavailable() -> bool:
    """True when :func:`become_subreaper` was tried here and the platform refused it."""
    return _attempted and not _subreaper


def is_subreaper() -> bool:
    """True once :func:`become_subreaper` has succeeded in this process."""
    return _subreaper


def proc_stat(pid: int | str) -> list[bytes]:
    """The fields of ``/proc/PID/stat`` after the command name (the state first); [] if gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            raw = handle.read()
    except OSError:
        return []
    # The command name may hold spaces and parentheses: split after the last ')'.
    return raw[raw.rfind(b")") + 2 :].split()


def _stat(pid: str) -> tuple[str, int] | None:
    """(state, parent pid) of ``pid``, None if it is gone."""
    fields = proc_stat(pid)
    if len(fields) < 2:
        return None
    return fields[0].decode("ascii", "replace"), int(fields[1])


def session_token(pid: int | str) -> str | None:
    """The ``CARIOCA_ADAPTER_SESSION`` value in the environment of ``pid``, if readable."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as handle:
            environ = handle.read()
    except OSError:
        return None
    prefix = SESSION_VARIABLE.encode() + b"="
    for item in environ.split(b"\0"):
        if item.startswith(prefix):
            return item[len(prefix) :].decode("ascii", "replace")
    return None


def _reap(pid: int) -> None:
    """Collect an orphan the harness adopted (it is our child now), within a bound."""
    deadline = time.monotonic() + _REAP_WAIT
    while True:
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return
        if done or time.monotonic() >= deadline:
            return
        time.sleep(0.005)


def kill_escaped(
    token: str | None, *, live_tokens: Collection[str] = (), spare: Collection[int] = ()
) -> list[int]:
    """Kill the escaped processes of the session ``token`` (None: of every ended session).

    As a subreaper: every child of this process not in ``spare`` (the adapters of live
    sessions) whose token is not one of ``live_tokens``. Otherwise: every process whose
    token is ``token``. Killed children are reaped. Returns the pids killed.
    """
    if not os.path.isdir("/proc"):
        return []
    me = os.getpid()
    killed: list[int] = []
    for _ in range(_ROUNDS):
        found: list[int] = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit() or int(entry) == me:
                continue
            pid = int(entry)
            if _subreaper:
                stat = _stat(entry)
                if stat is None or stat[1] != me or pid in spare or pid in _protected:
                    continue
                if stat[0] == "Z":
                    _reap(pid)
                    continue
                owner = session_token(entry)
                if owner is not None and owner != token and owner in live_tokens:
                    continue
            elif token is None or session_token(entry) != token:
                continue
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
                found.append(pid)
        for pid in found:
            _reap(pid)
        killed.extend(found)
        if not found:
            break
    return killed


__all__ = [
    "SESSION_VARIABLE",
    "become_subreaper",
    "is_subreaper",
    "kill_escaped",
    "protect",
    "session_token",
    "subreaper_unavailable",
]
