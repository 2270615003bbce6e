"""One adapter process and its process group: spawn, write, watch, classify an exit, kill.

The adapter (an argv list, never a shell) runs in a session, hence a process group, of
its own, so that ending it reaches its grandchildren; its pipes are
:mod:`conformance.adapter.pipes`. Three nets make sure nothing it started outlives it:

- :meth:`AdapterProcess.shutdown` signals the whole group (SIGTERM, a grace, SIGKILL),
  then finds processes that left the group (:mod:`conformance.adapter.reaper`);
- the watchdog (:mod:`conformance.adapter.watchdog`) kills the group if the harness itself dies,
  even by SIGKILL;
- the memory watch (:mod:`conformance.adapter.memlimit`) kills a group that passes its limit.

Every adapter of this process is registered (pid and session token) while it runs: the
reaper spares the adapters of live sessions, and a harness that is shutting down
(:func:`refuse_new_sessions`) starts none.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Final

from conformance.adapter import watchdog
from conformance.adapter.memlimit import MemoryWatch, format_size
from conformance.adapter.pipes import EOF, Item, Oversized, StderrDrain, StdoutLines, Unterminated
from conformance.adapter.reaper import SESSION_VARIABLE, kill_escaped
from conformance.errors import (
    EngineCrashed,
    EngineError,
    EngineMemoryExceeded,
    EngineStartError,
    EngineTimeout,
    ProtocolError,
)

#: Seconds the adapter gets to exit by itself after ``bye`` and closed stdin.
EXIT_GRACE: Final = 0.5
#: Seconds between SIGTERM to the process group and SIGKILL.
TERM_GRACE: Final = 0.5
#: Seconds to wait for a SIGKILLed leader to be reaped (the kernel is quick).
KILL_WAIT: Final = 2.0
#: After the adapter is seen to have exited, seconds to keep draining stdout for
#: a last answer before calling it a crash (a grandchild may hold stdout open).
EXIT_DRAIN: Final = 0.2
#: Poll interval while waiting for an answer (bounds how late an exit is noticed).
POLL: Final = 0.05
#: After stdout reaches end-of-file, seconds to wait for the process to exit,
#: which tells a crash (exit code) from an adapter that closed stdout and lives on.
EOF_EXIT_GRACE: Final = 0.3

# Every adapter this process runs, by pid, with its session token: the reaper spares
# the adapters (and the escaped processes) of live sessions, and a shutting-down
# harness starts no new adapter. Popen happens under the lock so the two agree.
_REGISTRY_LOCK = threading.Lock()
_LIVE: dict[int, str] = {}
_refusing = False


def refuse_new_sessions(refuse: bool = True) -> None:
    """From now on (or, with False, no longer) refuse to start adapters in this process.

    Set when the harness is interrupted (Ctrl-C, SIGTERM, SIGHUP), so a worker that
    meets the interruption cannot restart an adapter that nobody would reap. Called
    from a signal handler, so it takes no lock (the main thread may hold it).
    """
    global _refusing
    _refusing = refuse


def refusing_new_sessions() -> bool:
    """True while :func:`refuse_new_sessions` is in force."""
    return _refusing


def live_adapter_pids() -> list[int]:
    """Pids of the adapters of sessions of this process that have not been shut down."""
    with _REGISTRY_LOCK:
        return list(_LIVE)


def kill_live_adapters() -> list[int]:
    """SIGKILL the process group of every adapter still registered; return their pids.

    The last resort of an interrupted run, for sessions a worker thread was still
    starting when the run's own cleanup closed the sessions it knew of.
    """
    with _REGISTRY_LOCK:
        pids = list(_LIVE)
    for pid in pids:
        signal_group(pid, signal.SIGKILL)
    return pids


def signal_group(pgid: int, sig: signal.Signals) -> None:
    """Send ``sig`` to process group ``pgid``; a group that is gone is no error."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def group_has_live_members(pgid: int) -> bool:
    """True while a non-zombie process of group ``pgid`` exists."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False  # the usual end: the group is empty, no scan of /proc needed
    except PermissionError:
        pass
    proc_dir = "/proc"
    if not os.path.isdir(proc_dir):
        try:
            os.killpg(pgid, 0)
        except (ProcessLookupError, PermissionError):
            return False
        return True
    for entry in os.listdir(proc_dir):
        if not entry.isdigit():
            continue
        try:
            with open(f"{proc_dir}/{entry}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        # The command name may hold spaces and parentheses: split after the last ')'.
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) > 2 and fields[0] != b"Z" and int(fields[2]) == pgid:
            return True
    return False


def wait_exit(proc: subprocess.Popen[bytes], timeout: float) -> int | None:
    """Wait at most ``timeout`` seconds for ``proc`` to exit; its exit code, or None.

    ``Popen.wait(timeout=...)`` polls with sleeps that grow to 50 ms, which added up to
    tens of milliseconds to the end of every session (of every case, with a process per
    case). A pidfd (Linux 5.3+) wakes exactly at the exit; elsewhere, Popen.wait it is.
    """
    if proc.returncode is not None:
        return proc.returncode
    try:
        pidfd = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):
        try:
            return proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None
    try:
        poller = select.poll()  # poll, not select: a pidfd may be numbered above 1023
        poller.register(pidfd, select.POLLIN)
        ready = poller.poll(timeout * 1000)
    finally:
        os.close(pidfd)
    return proc.wait() if ready else proc.poll()


#: ``waitid`` flags that look for an exit without waiting or reaping.
_RUNNING_FLAGS: Final = (
    getattr(os, "WEXITED", 0) | getattr(os, "WNOHANG", 0) | getattr(os, "WNOWAIT", 0)
)


class AdapterProcess:
    """A running adapter: its process (leader of its own group), pipes and memory watch.

    :raises EngineStartError: from the constructor when it cannot be spawned (nothing is
        left running) or the harness is shutting down.
    """

    def __init__(
        self,
        argv: Sequence[str],
        *,
        max_line_bytes: int,
        memory_limit: int | None = None,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        if not argv:
            raise EngineStartError("adapter command is empty")
        # Descendants inherit the token, which names their session to the reaper.
        self.token = os.urandom(16).hex()  # no uuid import: it pulls in platform
        environ = {**(env if env is not None else os.environ), SESSION_VARIABLE: self.token}
        with _REGISTRY_LOCK:
            if _refusing:
                raise EngineStartError("the harness is shutting down: no adapter is started")
            try:
                proc = subprocess.Popen(
                    list(argv),
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    bufsize=0,
                    cwd=cwd,
                    env=environ,
                    # Own session = own process group: shutdown can kill grandchildren too.
                    start_new_session=True,
                    close_fds=True,
                )
            except OSError as exc:
                reason = exc.strerror or str(exc)
                raise EngineStartError(f"cannot start adapter {argv[0]!r}: {reason}") from None
            _LIVE[proc.pid] = self.token
        watchdog.watch(proc.pid, self.token)
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        self.proc = proc
        # Writes go through select() with a deadline: an adapter that stops
        # reading must not block the harness on a full pipe.
        os.set_blocking(proc.stdin.fileno(), False)
        self.max_line_bytes = max_line_bytes
        self.stdout = StdoutLines(proc.stdout.fileno(), max_line_bytes)
        self.drain = StderrDrain(proc.stderr.fileno())
        self.drain.start()
        self.memory = MemoryWatch(proc.pid, memory_limit) if memory_limit else None

    @property
    def pid(self) -> int:
        """Process id of the adapter, also its process group id."""
        return self.proc.pid

    def poll(self) -> int | None:
        """The exit code once the adapter has exited, else None."""
        return self.proc.poll()

    def running(self) -> bool:
        """True while the adapter has not exited: :meth:`poll`'s answer without reaping it.

        One ``waitid`` that leaves the child to be reaped (``WNOWAIT``), without Popen's lock
        and bookkeeping: asked before every request sent ahead, between an answer's arrival
        and the next request's write, where the adapter waits on the harness.
        """
        if self.proc.returncode is not None:
            return False
        try:
            return os.waitid(os.P_PID, self.proc.pid, _RUNNING_FLAGS) is None
        except ChildProcessError:
            return False  # reaped meanwhile (Popen.poll on another thread): it has exited
        except (AttributeError, OSError):
            return self.proc.poll() is None

    def check_memory(self, when: str) -> None:
        """Kill the group and raise when it uses more than its memory limit.

        :raises EngineMemoryExceeded: naming the limit, what was used and ``when``.
        """
        if self.memory is None:
            return
        used = self.memory.over(time.monotonic())
        if used is None:
            return
        signal_group(self.pid, signal.SIGKILL)
        limit = self.memory.limit
        raise EngineMemoryExceeded(
            f"adapter used {format_size(used)} of resident memory {when}, over its limit of "
            f"{format_size(limit)} (--memory-limit), and was killed",
            limit=limit,
            used=used,
        )

    def read_line(self, op: str, request_id: int, deadline: float, timeout: float) -> bytes:
        """The next line the adapter writes, the answer to ``op`` (id ``request_id``).

        :raises EngineTimeout: when none comes by ``deadline``.
        :raises EngineCrashed: when the adapter exits first (even if a grandchild holds
            its stdout open, so that no end-of-file comes).
        :raises EngineMemoryExceeded: when it passes its memory limit meanwhile.
        :raises ProtocolError: for a line over the limit or stdout closed early.
        """
        exit_seen: float | None = None
        while True:
            remaining = deadline - time.monotonic()
            # Past the deadline, an answer already in the pipe still counts: the harness was
            # late to look (a loaded machine, its own work), not the adapter to answer.
            item = self.stdout.next(min(max(remaining, 0.0), POLL))
            if type(item) is bytes:
                return item  # a complete line: the usual case, tested first
            if item is None and remaining <= 0:
                raise EngineTimeout(
                    f"no answer to {op} (id {request_id}) within {timeout:g} s", timeout=timeout
                )
            if item is None:
                # An exited adapter whose stdout is held open by a grandchild
                # never sends EOF: notice the exit itself, not the timeout.
                if self.proc.poll() is None:
                    self.check_memory(f"during {op} (id {request_id})")
                    continue
                now = time.monotonic()
                if exit_seen is None:
                    exit_seen = now
                elif now - exit_seen >= EXIT_DRAIN:
                    code = self.proc.returncode
                    raise EngineCrashed(
                        f"adapter exited with code {code} during {op} (id {request_id})",
                        exit_code=code,
                    ) from None
                continue
            if isinstance(item, EOF | Unterminated):
                raise self.eof_error(f"during {op} (id {request_id})", item)
            assert isinstance(item, Oversized)
            raise ProtocolError(
                f"answer to {op} (id {request_id}) is longer than the limit of "
                f"{self.max_line_bytes} bytes (already {item.seen} bytes)"
            )

    def check_between_requests(self, last_id: int) -> None:
        """Fail on anything the adapter did since the answer to ``last_id``: an extra line,
        an exit, memory over its limit."""
        item = self.stdout.next(0)
        if item is not None:
            if isinstance(item, EOF | Unterminated):
                raise self.eof_error("before the next request")
            if isinstance(item, Oversized):
                raise ProtocolError("unsolicited oversized line between requests")
            raise ProtocolError(
                f"unsolicited line after the answer to request {last_id}: {item[:200]!r}"
            )
        code = self.proc.poll()
        if code is not None:
            raise EngineCrashed(f"adapter exited with code {code} between requests", exit_code=code)
        self.check_memory("between requests")

    def write(self, data: bytes, op: str, deadline: float, timeout: float) -> None:
        """Write ``data`` to the adapter's stdin by ``deadline``.

        :raises EngineTimeout: when the adapter does not read it in time.
        :raises EngineError: (see :meth:`eof_error`) when its stdin is closed.
        """
        assert self.proc.stdin is not None
        fd = self.proc.stdin.fileno()
        view = memoryview(data)
        while view:
            # Write first (stdin is non-blocking) and wait only when the pipe is full:
            # a request nearly always fits, and a select() per request showed in profiles.
            try:
                written = os.write(fd, view)
            except BlockingIOError:
                written = 0
            except OSError:
                # EPIPE: the adapter closed stdin, almost always because it exited.
                raise self.eof_error(f"while sending {op}", stream="stdin") from None
            view = view[written:]
            if not view:
                break
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise EngineTimeout(
                    f"adapter did not read the {op} request within {timeout:g} s", timeout=timeout
                )
            select.select([], [fd], [], remaining)

    def eof_error(self, when: str, item: Item | None = None, stream: str = "stdout") -> EngineError:
        """Classify a closed pipe: exit (EngineCrashed) or closed-but-running (ProtocolError)."""
        try:
            code: int | None = self.proc.wait(timeout=EOF_EXIT_GRACE)
        except subprocess.TimeoutExpired:
            code = None
        partial = ""
        if isinstance(item, Unterminated):
            partial = f" after an unterminated line {item.data[:200]!r}"
        if code is not None:
            return EngineCrashed(f"adapter exited with code {code} {when}{partial}", exit_code=code)
        return ProtocolError(f"adapter closed its {stream} {when} but keeps running{partial}")

    def kill(self) -> None:
        """SIGKILL the whole group at once (from any thread)."""
        signal_group(self.pid, signal.SIGKILL)

    def shutdown(self, *, graceful: bool) -> None:
        """Close stdin, let the adapter exit (``graceful``), then kill its whole group."""
        proc = self.proc
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        with contextlib.suppress(OSError):
            proc.stdin.close()
        if graceful and proc.poll() is None:
            wait_exit(proc, EXIT_GRACE)
        # The group is signalled even when the leader has exited: grandchildren
        # it left behind are still members and must not outlive the session.
        pgid = proc.pid
        signal_group(pgid, signal.SIGTERM)
        deadline = time.monotonic() + TERM_GRACE
        while time.monotonic() < deadline:
            if proc.poll() is not None and not group_has_live_members(pgid):
                break
            time.sleep(0.02)
        signal_group(pgid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=KILL_WAIT)
        # Processes that left the group (setsid) die too (conformance/adapter/reaper.py).
        with _REGISTRY_LOCK:
            _LIVE.pop(pgid, None)
            spare, live_tokens = set(_LIVE), set(_LIVE.values())
        kill_escaped(self.token, live_tokens=live_tokens, spare=spare)
        watchdog.unwatch(pgid)
        # With every writer dead the stderr pipe reaches EOF and its drain finishes;
        # only then are the fds closed (closing under a blocked read is racy).
        with contextlib.suppress(OSError):
            proc.stdout.close()
        self.drain.join(timeout=1.0)
        if not self.drain.is_alive():
            with contextlib.suppress(OSError):
                proc.stderr.close()


__all__ = [
    "AdapterProcess",
    "group_has_live_members",
    "kill_live_adapters",
    "live_adapter_pids",
    "refuse_new_sessions",
    "refusing_new_sessions",
    "signal_group",
    "wait_exit",
]
