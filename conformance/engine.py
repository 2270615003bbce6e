"""One adapter process behind the JSON-lines protocol, kept on a short leash.

An :class:`EngineSession` spawns the adapter (an argv list, never a shell) in a
process group of its own, shakes hands, sends requests one at a time and
checks every answer: it must be one JSON line, echo the request id and match
the op's schema. The session assumes the engine may be hostile or broken:

- every wait has a timeout, so a silent engine cannot hang the harness;
- stdout is read on the calling thread, non-blocking, one bounded line at a
  time and only while an answer is awaited (no reader thread: handing each line
  from a thread to the caller cost a tenth of a run); a line longer than
  ``max_line_bytes`` is reported as soon as the limit is crossed and never held
  in memory;
- stderr is drained by another thread into a bounded ring buffer, so an engine
  that floods it neither blocks on a full pipe nor eats memory, and the tail
  is attached to every error;
- closing kills the whole process group (SIGTERM, a grace, then SIGKILL), so
  grandchildren the adapter left behind die with it.

After an error other than :class:`EngineReportedError` the session is broken:
the process group has been killed and :meth:`EngineSession.restart` must be
called before the next request. A session is meant to be used by one thread.
"""

from __future__ import annotations

import collections
import contextlib
import math
import os
import select
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType, TracebackType
from typing import Any, Final

from .errors import (
    EngineCrashed,
    EngineError,
    EngineReportedError,
    EngineStartError,
    EngineTimeout,
    HandshakeError,
    HarnessError,
    InvalidRequest,
    ProtocolError,
    VersionMismatch,
)
from .protocol import (
    PROTOCOL_VERSION,
    decode_line,
    encode_request,
    normalise_dispute_id,
    request_is_valid,
    validate_request,
    validate_response,
)
from .reaper import SESSION_VARIABLE, kill_escaped
from .textsafe import safe_tail

#: Default seconds to wait for the answer to one request.
DEFAULT_TIMEOUT: Final = 10.0
#: Default seconds to wait for the ``hello`` answer after spawning (interpreters
#: and JVMs can be slow to start, so it is separate from the request timeout).
DEFAULT_START_TIMEOUT: Final = 10.0
#: Default longest accepted response line, in bytes (a full state is a few KB).
DEFAULT_MAX_LINE_BYTES: Final = 8 * 2**20
#: Seconds granted to the ``bye`` answer when closing a healthy session.
BYE_TIMEOUT: Final = 1.0
#: Seconds the adapter gets to exit by itself after ``bye`` and closed stdin.
EXIT_GRACE: Final = 0.5
#: Seconds between SIGTERM to the process group and SIGKILL.
TERM_GRACE: Final = 0.5
#: Seconds to wait for a SIGKILLed leader to be reaped (the kernel is quick).
KILL_WAIT: Final = 2.0
#: After the adapter is seen to have exited, seconds to keep draining stdout for
#: a last answer before calling it a crash (a grandchild may hold stdout open).
EXIT_DRAIN: Final = 0.2
#: After stdout reaches end-of-file, seconds to wait for the process to exit,
#: which tells a crash (exit code) from an adapter that closed stdout and lives on.
EOF_EXIT_GRACE: Final = 0.3
#: Bytes of stderr kept (the tail); older output is dropped.
STDERR_KEEP: Final = 64 * 1024
#: Most bytes of stderr read on the spot before a tail is taken (see _StderrDrain.catch_up).
STDERR_CATCH_UP: Final = 1024 * 1024
#: Stdout is read only while an answer is awaited, one chunk at a time: an adapter
#: spewing unsolicited lines blocks on its full pipe instead of eating memory.
#: Poll interval while waiting for an answer (bounds how late an exit is noticed).
_POLL: Final = 0.05
_READ_CHUNK: Final = 64 * 1024


@dataclass(frozen=True)
class Handshake:
    """What an engine said about itself in its ``hello`` answer (docs/protocol.md §2).

    ``rulings`` maps normalised dispute ids (``DISPUTE-01``) to option keys.
    """

    protocol: int
    name: str
    version: str
    language: str
    profiles: tuple[str, ...]
    capabilities: frozenset[str]
    # A read-only view: the dataclass is frozen, its mapping should be too.
    rulings: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}), hash=False)
    # Optional interface declarations (docs/protocol.md §2, "Interface declarations"); a
    # protocol-1 engine that leaves them out gets the defaults, which are today's behaviour.
    #: ``listed``: a run's listing order carries meaning; ``engine``: the engine arranges it.
    run_order: str = "listed"
    #: ``requested``: ``end``/``to`` of lay-offs and joker swaps are honoured; ``engine``: chosen.
    run_ends: str = "requested"
    #: Player counts the engine can deal and play.
    players: tuple[int, ...] = (2, 3, 4)
    #: State fields the engine does not model; comparisons skip exactly these.
    unmodelled: frozenset[str] = frozenset()
    #: Profile name -> its own rulings map, replacing ``rulings`` in that profile.
    profile_rulings: Mapping[str, Mapping[str, str]] = field(
        default_factory=lambda: MappingProxyType({}), hash=False
    )
    #: Profile name -> the player counts the engine plays there, replacing ``players``.
    profile_players: Mapping[str, tuple[int, ...]] = field(
        default_factory=lambda: MappingProxyType({}), hash=False
    )
    _views: dict[str, Handshake] = field(
        default_factory=dict, init=False, repr=False, compare=False, hash=False
    )

    def rulings_for(self, profile: str) -> Mapping[str, str]:
        """The rulings the engine plays in ``profile``: its ``profile_rulings`` map for that
        profile when it gives one, else ``rulings`` (docs/protocol.md §2)."""
        return self.profile_rulings.get(profile, self.rulings)

    def players_for(self, profile: str) -> tuple[int, ...]:
        """The player counts the engine plays in ``profile``: its ``profile_players`` list
        for that profile when it gives one, else ``players`` (docs/protocol.md §2)."""
        return self.profile_players.get(profile, self.players)

    def for_profile(self, profile: str) -> Handshake:
        """This handshake as graded in ``profile``: ``rulings`` and ``players`` are that
        profile's."""
        view = self._views.get(profile)
        if view is None:
            rulings, players = self.rulings_for(profile), self.players_for(profile)
            unchanged = rulings is self.rulings and players is self.players
            # Made once per profile: the runner asks for it at every case.
            view = self if unchanged else replace(self, rulings=rulings, players=players)
            self._views[profile] = view
        return view

    def as_dict(self) -> dict[str, Any]:
        """Return a JSON-ready description (for report headers)."""
        return {
            "protocol": self.protocol,
            "implementation": {
                "name": self.name,
                "version": self.version,
                "language": self.language,
            },
            "profiles": list(self.profiles),
            "capabilities": sorted(self.capabilities),
            "rulings": dict(sorted(self.rulings.items())),
            "run_order": self.run_order,
            "run_ends": self.run_ends,
            "players": list(self.players),
            "unmodelled": sorted(self.unmodelled),
            **(
                {
                    "profile_rulings": {
                        name: dict(sorted(m.items()))
                        for name, m in sorted(self.profile_rulings.items())
                    }
                }
                if self.profile_rulings
                else {}
            ),
            **(
                {
                    "profile_players": {
                        name: list(counts) for name, counts in sorted(self.profile_players.items())
                    }
                }
                if self.profile_players
                else {}
            ),
        }

    @classmethod
    def from_hello(cls, answer: Mapping[str, Any]) -> Handshake:
        """Build a handshake from a schema-valid ``hello`` answer.

        Raises HandshakeError when two ruling keys normalise to the same id
        with different options.
        """
        rulings = _normalised_rulings(answer.get("rulings", {}), "rulings")
        profile_rulings = {
            name: _normalised_rulings(given, f"profile_rulings.{name}")
            for name, given in answer.get("profile_rulings", {}).items()
        }
        impl = answer["implementation"]
        return cls(
            protocol=answer["protocol"],
            name=impl["name"],
            version=impl["version"],
            language=impl["language"],
            profiles=tuple(answer["profiles"]),
            capabilities=frozenset(answer["capabilities"]),
            rulings=rulings,
            run_order=answer.get("run_order", "listed"),
            run_ends=answer.get("run_ends", "requested"),
            players=tuple(sorted(set(answer.get("players", default_players(answer["profiles"]))))),
            unmodelled=frozenset(answer.get("unmodelled", ())),
            profile_rulings=MappingProxyType(profile_rulings),
            profile_players=MappingProxyType(
                {
                    name: tuple(sorted(set(counts)))
                    for name, counts in answer.get("profile_players", {}).items()
                }
            ),
        )


def _normalised_rulings(given: Mapping[str, str], where: str) -> Mapping[str, str]:
    """A rulings map keyed by normalised dispute ids (``dispute-1`` -> ``DISPUTE-01``).

    :raises HandshakeError: when two keys normalise to one id with different options.
    """
    rulings: dict[str, str] = {}
    for key, option in given.items():
        norm = normalise_dispute_id(key)
        if rulings.get(norm, option) != option:
            raise HandshakeError(f"{where} names {norm} twice with different options")
        rulings[norm] = option
    return MappingProxyType(rulings)


def default_players(profiles: Sequence[str]) -> tuple[int, ...]:
    """The player counts of an engine that declares none: every count its listed profiles
    play (conformance/data/profiles.json), or 2, 3 and 4 when it lists no known profile."""
    from .profiles import default_profiles

    known = default_profiles()
    counts = {n for name in profiles if name in known for n in known[name].players}
    return tuple(sorted(counts)) or (2, 3, 4)


# Items the stdout reader hands out besides complete lines.
@dataclass(frozen=True)
class _Oversized:
    seen: int  # bytes of the line read when the limit was crossed


@dataclass(frozen=True)
class _Unterminated:
    data: bytes


class _EOF:
    pass


_Item = bytes | _Oversized | _Unterminated | _EOF


class _StdoutLines:
    """Split the adapter's stdout into bounded lines, read on the caller's thread.

    The fd is non-blocking and read only when the caller asks for a line, so nothing
    is read ahead beyond one chunk: an adapter flooding stdout fills its pipe and
    blocks. End-of-file is sticky.
    """

    def __init__(self, fd: int, max_line_bytes: int) -> None:
        os.set_blocking(fd, False)
        self._fd = fd
        self._max = max_line_bytes
        self._buf = bytearray()
        self._dropping = False  # inside an oversized line: drop bytes up to its newline
        self._pending: collections.deque[_Item] = collections.deque()
        self._eof = False
        # poll, not select: the fd may be numbered above 1023.
        self._poller = select.poll()
        self._poller.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)

    @property
    def held_bytes(self) -> int:
        """Bytes read but not yet handed out (bounded by one chunk plus one line)."""
        return len(self._buf) + sum(len(i) for i in self._pending if isinstance(i, bytes))

    def next(self, timeout: float) -> _Item | None:
        """The next item, waiting at most ``timeout`` seconds; None when none came."""
        deadline = time.monotonic() + timeout
        while not self._pending:
            if self._eof:
                return _EOF()
            # Wait first, then read: an answer is rarely there the instant after the
            # request, and a read that would block is a wasted system call.
            remaining = max(0.0, deadline - time.monotonic())
            if self._poller.poll(math.ceil(remaining * 1000)) and self._fill():
                continue
            if time.monotonic() >= deadline:
                return None
        return self._pending.popleft()

    def quiet(self) -> bool:
        """True when no further line or end-of-file is waiting (a poll that never blocks).

        Whatever is found stays queued for :meth:`next`.
        """
        if self._pending or self._eof:
            return False
        if self._poller.poll(0):
            self._fill()
        return not self._pending and not self._eof

    def _fill(self) -> bool:
        """Read what is available; False when nothing was (the read would block)."""
        try:
            chunk = os.read(self._fd, _READ_CHUNK)
        except BlockingIOError:
            return False
        except OSError:
            chunk = b""
        if not chunk:
            if self._buf and not self._dropping:
                self._pending.append(_Unterminated(bytes(self._buf)))
            self._buf.clear()
            self._pending.append(_EOF())
            self._eof = True
            return True
        start = 0
        while start < len(chunk):
            newline = chunk.find(b"\n", start)
            end = len(chunk) if newline == -1 else newline
            if not self._dropping:
                if len(self._buf) + (end - start) > self._max:
                    # Report now rather than at the newline: a many-MB line
                    # should fail the request at once, not after it is read.
                    self._pending.append(_Oversized(len(self._buf) + end - start))
                    self._buf.clear()
                    self._dropping = True
                else:
                    self._buf += chunk[start:end]
            if newline == -1:
                break
            if self._dropping:
                self._dropping = False
            else:
                self._pending.append(bytes(self._buf))
                self._buf.clear()
            start = newline + 1
        return True


class _StderrDrain(threading.Thread):
    """Read stderr continuously, keeping only the last ``keep`` bytes.

    The thread waits in ``select`` and reads under a lock from a non-blocking fd, so
    :meth:`catch_up` can take, under the same lock, whatever the adapter has already
    written but the thread has not read yet. Taking a tail after the answer line has
    been read is then deterministic: the adapter's ``write`` to stderr before its
    answer put the bytes in the pipe, and catch_up reads them, however late the
    thread is scheduled on a loaded machine.
    """

    def __init__(self, fd: int, keep: int = STDERR_KEEP) -> None:
        super().__init__(name=f"adapter-stderr-{fd}", daemon=True)
        self._fd = fd
        self._keep = keep
        self._buf = bytearray()
        self._lock = threading.Lock()
        self._eof = False
        self.total = 0
        os.set_blocking(fd, False)

    def _read_available(self, budget: int) -> bool:
        """Read what the pipe holds now, up to ``budget`` bytes; False at end of file.

        The caller holds the lock.
        """
        while budget > 0 and not self._eof:
            try:
                chunk = os.read(self._fd, min(_READ_CHUNK, budget))
            except BlockingIOError:
                return True
            except OSError:
                self._eof = True
                break
            if not chunk:
                self._eof = True
                break
            budget -= len(chunk)
            self.total += len(chunk)
            self._buf += chunk
            if len(self._buf) > self._keep:
                del self._buf[: len(self._buf) - self._keep]
        return not self._eof

    def run(self) -> None:
        while True:
            try:
                select.select([self._fd], [], [])
            except (OSError, ValueError):
                # Never read this fd again: once closed, its number may be reused.
                with self._lock:
                    self._eof = True
                break
            with self._lock:
                if not self._read_available(_READ_CHUNK):
                    break

    def catch_up(self, budget: int = STDERR_CATCH_UP) -> None:
        """Take what the adapter wrote to stderr and the thread has not read yet.

        Bounded by ``budget`` bytes, so an adapter flooding stderr cannot hold the
        caller here; never waits for data that is not there.
        """
        with self._lock:
            self._read_available(budget)

    def tail(self, limit: int, since: int = 0, until: int | None = None) -> str:
        """The last ``limit`` characters, of what was written after byte ``since`` only
        (and, given ``until``, before byte ``until``).

        Engine text: escaped by :func:`conformance.textsafe.safe_tail`.
        """
        with self._lock:
            data = bytes(self._buf)
            kept_from = self.total - len(data)
        if until is not None:
            data = data[: max(0, until - kept_from)]
        if since > kept_from:
            data = data[since - kept_from :]
        return safe_tail(data.decode("utf-8", errors="replace"), limit)


def _group_has_live_members(pgid: int) -> bool:
    """True while a non-zombie process of group ``pgid`` exists."""
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


def _wait_exit(proc: subprocess.Popen[bytes], timeout: float) -> int | None:
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
        _signal_group(pid, signal.SIGKILL)
    return pids


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


#: A request as the caller builds it: its op and its fields (no id).
Request = tuple[str, Mapping[str, Any]]


@dataclass(frozen=True)
class Ahead:
    """A request for :meth:`EngineSession.exchange`'s ``then`` with options of its own."""

    request: Request
    #: Its own time limit, from when it is sent (default: the session's ``timeout``).
    timeout: float | None = None
    #: The first request of the next case: what the adapter writes to stderr from now on
    #: belongs to that case (:meth:`EngineSession.mark_stderr` takes this point).
    opens_section: bool = False


@dataclass(frozen=True)
class _Prepared:
    """A request to send ahead, validated and encoded while the adapter was still busy."""

    op: str
    id: int
    data: bytes
    ahead: Ahead


@dataclass(frozen=True)
class _Sent:
    """A request written to the adapter whose answer has not been read yet."""

    op: str
    id: int
    deadline: float
    timeout: float


class EngineSession:
    """One adapter process speaking protocol version 1; a context manager.

    ``timeout`` bounds each request, ``start_timeout`` the handshake,
    ``max_line_bytes`` each response line. ``validate_requests`` checks every
    outgoing request against its schema first (InvalidRequest, nothing sent);
    turn it off only to probe how an engine handles malformed requests.
    """

    def __init__(
        self,
        argv: Sequence[str],
        *,
        timeout: float = DEFAULT_TIMEOUT,
        start_timeout: float = DEFAULT_START_TIMEOUT,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
        validate_requests: bool = True,
    ) -> None:
        self.argv: tuple[str, ...] = tuple(argv)
        self.timeout = timeout
        self.start_timeout = start_timeout
        self.max_line_bytes = max_line_bytes
        self.cwd = cwd
        self.env = dict(env) if env is not None else None
        self.validate_requests = validate_requests
        self.handshake: Handshake | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._stdout: _StdoutLines | None = None
        # Held while a request is in flight. A close() from another thread (an
        # interrupted run closing every session) must not read the same pipe.
        self._in_use = threading.Lock()
        self._drain: _StderrDrain | None = None
        self._stderr_mark = 0
        self._next_id = 1
        self._broken = False
        self._token = ""
        # A request sent ahead (exchange's ``then``), or the error its sending met.
        self._ahead: _Sent | EngineError | None = None
        # Where the stderr section of a case whose first request went ahead begins.
        self._ahead_mark: int | None = None

    # -- life cycle ---------------------------------------------------------

    def __enter__(self) -> EngineSession:
        if self._proc is None:
            self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    @property
    def pid(self) -> int | None:
        """Process id of the adapter (also its process group id), None when not running."""
        return self._proc.pid if self._proc is not None else None

    @property
    def alive(self) -> bool:
        """True when the adapter runs and the session can take requests."""
        return self._proc is not None and not self._broken and self._proc.poll() is None

    def start(self) -> Handshake:
        """Spawn the adapter (unless :meth:`spawn` did) and shake hands; return the engine's
        handshake.

        Raises EngineStartError if it cannot be spawned, HandshakeError (or
        VersionMismatch) if ``hello`` fails. On failure nothing is left running.
        """
        with self._in_use:
            return self._start()

    def spawn(self) -> None:
        """Start the adapter's process without the handshake, so that it starts up while
        the harness does other work (loading the corpus); :meth:`start` then shakes hands.

        :raises EngineStartError: if it cannot be spawned (nothing is left running).
        """
        with self._in_use:
            if self._proc is None:
                self._spawn()

    def _start(self) -> Handshake:
        if self._proc is not None and (self.handshake is not None or self._broken):
            raise HarnessError("session already started; use restart()")
        if self._proc is None:
            self._spawn()
        try:
            answer = self._exchange("hello", {"protocol": PROTOCOL_VERSION}, self.start_timeout)
            self.handshake = self._read_handshake(answer)
        except EngineError as exc:
            self._broken = True
            self._shutdown()
            raise self._as_handshake_error(exc) from exc
        return self.handshake

    def _spawn(self) -> None:
        if not self.argv:
            raise EngineStartError("adapter command is empty")
        self._next_id = 1
        self._broken = False
        self._ahead = None
        self._ahead_mark = None
        self.handshake = None
        # Descendants inherit the token, which names their session to the reaper.
        self._token = os.urandom(16).hex()  # no uuid import: it pulls in platform
        env = {**(self.env if self.env is not None else os.environ), SESSION_VARIABLE: self._token}
        with _REGISTRY_LOCK:
            if _refusing:
                raise EngineStartError("the harness is shutting down: no adapter is started")
            try:
                proc = subprocess.Popen(
                    self.argv,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    bufsize=0,
                    cwd=self.cwd,
                    env=env,
                    # Own session = own process group: close() can kill grandchildren too.
                    start_new_session=True,
                    close_fds=True,
                )
            except OSError as exc:
                reason = exc.strerror or str(exc)
                raise EngineStartError(f"cannot start adapter {self.argv[0]!r}: {reason}") from None
            _LIVE[proc.pid] = self._token
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        self._proc = proc
        # Writes go through select() with a deadline: an adapter that stops
        # reading must not block the harness on a full pipe.
        os.set_blocking(proc.stdin.fileno(), False)
        self._stdout = _StdoutLines(proc.stdout.fileno(), self.max_line_bytes)
        self._drain = _StderrDrain(proc.stderr.fileno())
        self._stderr_mark = 0
        self._drain.start()

    def restart(self) -> Handshake:
        """Close the current adapter (if any) and start a fresh one."""
        self.close()
        return self.start()

    def close(self) -> None:
        """End the session: ``bye`` if healthy, a short grace, then kill the process group.

        Safe to call more than once and on a broken session. Called from another thread
        while a request is in flight, it only kills the process group: the requesting
        thread then sees the adapter die and tidies up itself.
        """
        proc = self._proc
        if proc is None:
            return
        if not self._in_use.acquire(blocking=False):
            _signal_group(proc.pid, signal.SIGKILL)
            return
        try:
            if (
                not self._broken
                and self._ahead is None
                and self.handshake is not None
                and proc.poll() is None
            ):
                # The adapter's answer to bye does not matter: it is killed anyway.
                with contextlib.suppress(EngineError):
                    self._exchange("bye", {}, min(self.timeout, BYE_TIMEOUT))
            self._shutdown()
        finally:
            self._in_use.release()

    def mark_stderr(self) -> None:
        """Start a new stderr section (a new case): tails then show what came after it.

        When the case's first request went ahead (``Ahead.opens_section``), the section
        starts where that request was sent.
        """
        if self._ahead_mark is not None:
            self._stderr_mark, self._ahead_mark = self._ahead_mark, None
            return
        if self._drain is None:
            self._stderr_mark = 0
            return
        # What the previous case made the adapter write belongs before the mark.
        self._drain.catch_up()
        self._stderr_mark = self._drain.total

    def stderr_tail(self, limit: int = 4000) -> str:
        """Return the last ``limit`` characters the adapter wrote to stderr.

        Only what came after :meth:`mark_stderr`, when that is not empty: the log of the
        case that went wrong, rather than of every case before it.
        """
        if self._drain is None:
            return ""
        self._drain.catch_up()
        # Not what the next case's request, sent ahead, made the adapter write.
        until = self._ahead_mark
        section = self._drain.tail(limit, since=self._stderr_mark, until=until)
        return section or self._drain.tail(limit, until=until)

    # -- requests -----------------------------------------------------------

    def request(self, op: str, **fields: Any) -> dict[str, Any]:
        """Send one request and return the engine's (schema-valid) result object.

        The id is assigned here. Raises EngineReportedError for an error answer
        (the session stays usable), InvalidRequest for a request that breaks
        the schema (nothing sent), and other EngineErrors for misbehaviour, after
        which the adapter has been killed and the session needs restart().
        """
        return self.exchange((op, fields))

    @property
    def in_flight(self) -> bool:
        """True while a request sent ahead (``exchange``'s ``then``) awaits its answer."""
        return self._ahead is not None

    def exchange(
        self, request: Request | None, *, then: Request | Ahead | None = None
    ) -> dict[str, Any]:
        """Like :meth:`request`, and able to send the next request ahead.

        ``request`` None reads the answer to the request sent ahead by the previous call.
        ``then`` is written as soon as this answer's line has been read, before that line
        is decoded, validated and returned, so the adapter works on it while the caller
        grades this answer: an adapter reading one line at a time sees the same requests
        in the same order. It is sent only when the adapter has said nothing more and is
        still running; otherwise it is left to the caller, whose next call meets whatever
        is wrong exactly as a plain request would. A caller that no longer needs its
        answer calls :meth:`discard`.
        """
        if self._broken:
            raise HarnessError("session is broken by an earlier engine error; restart() it")
        if self._proc is None:
            raise HarnessError("session not started")
        if request is None:
            if self._ahead is None:
                raise HarnessError("no request was sent ahead")
        elif self._ahead is not None:
            raise HarnessError("a request sent ahead is still unanswered: read or discard it")
        if request is not None and self.validate_requests:
            validate_request(request[0], {"id": self._next_id, "op": request[0], **request[1]})
        prepared = None
        if then is not None:
            # Checked and encoded now, while the adapter works: once the answer is in, only
            # the write is left. Sent in its own turn instead when it breaks the schema, so
            # its InvalidRequest comes where a plain request's would.
            ahead = then if isinstance(then, Ahead) else Ahead(then)
            op, fields = ahead.request
            ahead_id = self._next_id + (1 if request is not None else 0)
            message = {"id": ahead_id, "op": op, **fields}
            if not self.validate_requests or request_is_valid(op, message):
                with contextlib.suppress(ValueError, TypeError):  # not JSON: its own turn
                    prepared = _Prepared(op, ahead_id, encode_request(message), ahead)
        with self._in_use:
            return self._request(request, prepared)

    def discard(self) -> None:
        """Read and drop the answer to the request sent ahead, if any.

        An error answer is dropped too; misbehaviour breaks the session as usual.
        """
        if self._ahead is None:
            return
        self._ahead_mark = None  # the case it would have opened does not follow
        with contextlib.suppress(EngineReportedError):
            self.exchange(None)

    def _request(self, request: Request | None, then: _Prepared | None) -> dict[str, Any]:
        if self._proc is None:
            raise HarnessError("session closed")
        try:
            if request is None:
                ahead, self._ahead = self._ahead, None
                if isinstance(ahead, EngineError):
                    raise ahead
                assert ahead is not None
                sent = ahead
            else:
                self._check_between_requests()
                sent = self._send(request[0], request[1], self.timeout)
            return self._collect(sent, then)
        except EngineReportedError as exc:
            exc.stderr_tail = self.stderr_tail()
            raise
        except InvalidRequest:
            raise
        except EngineError as exc:
            self._broken = True
            self._shutdown()
            exc.stderr_tail = self.stderr_tail()
            raise

    def _check_between_requests(self) -> None:
        """Fail on anything the adapter did since the last answer (extra line, exit)."""
        assert self._stdout is not None
        item = self._stdout.next(0)
        if item is not None:
            if isinstance(item, _EOF | _Unterminated):
                raise self._eof_error("before the next request")
            if isinstance(item, _Oversized):
                raise ProtocolError("unsolicited oversized line between requests")
            raise ProtocolError(
                f"unsolicited line after the answer to request {self._next_id - 1}: {item[:200]!r}"
            )
        assert self._proc is not None
        code = self._proc.poll()
        if code is not None:
            raise EngineCrashed(f"adapter exited with code {code} between requests", exit_code=code)

    def _exchange(self, op: str, fields: Mapping[str, Any], timeout: float) -> dict[str, Any]:
        """Write one request, read its answer, check id and schema."""
        return self._collect(self._send(op, fields, timeout))

    def _send(self, op: str, fields: Mapping[str, Any], timeout: float) -> _Sent:
        assert self._proc is not None
        request_id = self._next_id
        self._next_id += 1
        message = {"id": request_id, "op": op, **fields}
        deadline = time.monotonic() + timeout
        self._write(encode_request(message), op, deadline, timeout)
        return _Sent(op, request_id, deadline, timeout)

    def _send_ahead(self, then: _Prepared) -> None:
        """Write ``then`` now if the adapter is quiet and running; keep a failure for later."""
        assert self._proc is not None and self._stdout is not None
        if not self._stdout.quiet() or self._proc.poll() is not None:
            return
        if then.ahead.opens_section and self._drain is not None:
            # Everything the adapter wrote before this answer is in the pipe by now.
            self._drain.catch_up()
            self._ahead_mark = self._drain.total
        timeout = self.timeout if then.ahead.timeout is None else then.ahead.timeout
        assert then.id == self._next_id
        self._next_id += 1
        deadline = time.monotonic() + timeout
        try:
            self._write(then.data, then.op, deadline, timeout)
            self._ahead = _Sent(then.op, then.id, deadline, timeout)
        except EngineError as exc:
            # Raised when the caller asks for this answer, not against the answer in hand.
            self._ahead = exc

    def _collect(self, sent: _Sent, then: _Prepared | None = None) -> dict[str, Any]:
        """Read the answer to ``sent``, send ``then`` ahead, check the answer's id and schema."""
        assert self._proc is not None and self._stdout is not None
        op, request_id, deadline, timeout = sent.op, sent.id, sent.deadline, sent.timeout
        exit_seen: float | None = None
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise EngineTimeout(
                    f"no answer to {op} (id {request_id}) within {timeout:g} s", timeout=timeout
                )
            item = self._stdout.next(min(remaining, _POLL))
            if type(item) is bytes:
                break  # a complete line: the usual case, tested first
            if item is None:
                # An exited adapter whose stdout is held open by a grandchild
                # never sends EOF: notice the exit itself, not the timeout.
                if self._proc.poll() is not None:
                    now = time.monotonic()
                    if exit_seen is None:
                        exit_seen = now
                    elif now - exit_seen >= EXIT_DRAIN:
                        code = self._proc.returncode
                        raise EngineCrashed(
                            f"adapter exited with code {code} during {op} (id {request_id})",
                            exit_code=code,
                        ) from None
                continue
            if isinstance(item, _EOF | _Unterminated):
                raise self._eof_error(f"during {op} (id {request_id})", item)
            if isinstance(item, _Oversized):
                raise ProtocolError(
                    f"answer to {op} (id {request_id}) is longer than the limit of "
                    f"{self.max_line_bytes} bytes (already {item.seen} bytes)"
                )
        assert isinstance(item, bytes)
        if then is not None:
            self._send_ahead(then)
        answer = decode_line(item)
        if "id" not in answer:
            raise ProtocolError(f"answer to {op} has no id (expected {request_id})", pointer="/id")
        earlier = answer["id"]
        # type() is: a bool is not an id, though it is an int.
        if type(earlier) is int and earlier < request_id:
            # A line left over from an earlier request (a second answer, chatter) that
            # reached us only now: the same fault as one seen between requests.
            raise ProtocolError(
                f"unsolicited line after the answer to request {request_id - 1}: {item[:200]!r}"
            )
        if earlier != request_id or isinstance(earlier, bool):
            raise ProtocolError(
                f"answer to {op} has id {earlier!r}, expected {request_id}", pointer="/id"
            )
        if op != "hello" or "error" in answer:
            # hello is checked by the caller, which looks at the version first.
            validate_response(op, answer)
        if "error" in answer:
            raise EngineReportedError(answer["error"]["kind"], answer["error"]["message"])
        return answer

    def _write(self, data: bytes, op: str, deadline: float, timeout: float) -> None:
        assert self._proc is not None and self._proc.stdin is not None
        fd = self._proc.stdin.fileno()
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
                raise self._eof_error(f"while sending {op}", stream="stdin") from None
            view = view[written:]
            if not view:
                break
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise EngineTimeout(
                    f"adapter did not read the {op} request within {timeout:g} s", timeout=timeout
                )
            select.select([], [fd], [], remaining)

    def _eof_error(
        self, when: str, item: _Item | None = None, stream: str = "stdout"
    ) -> EngineError:
        """Classify a closed pipe: exit (EngineCrashed) or closed-but-running (ProtocolError)."""
        assert self._proc is not None
        try:
            code: int | None = self._proc.wait(timeout=EOF_EXIT_GRACE)
        except subprocess.TimeoutExpired:
            code = None
        partial = ""
        if isinstance(item, _Unterminated):
            partial = f" after an unterminated line {item.data[:200]!r}"
        if code is not None:
            return EngineCrashed(f"adapter exited with code {code} {when}{partial}", exit_code=code)
        return ProtocolError(f"adapter closed its {stream} {when} but keeps running{partial}")

    def _read_handshake(self, answer: dict[str, Any]) -> Handshake:
        version = answer.get("protocol")
        # Only another integer version (not a bool) is a mismatch; a missing or odd value
        # is a malformed handshake and is left to the schema check below.
        if (
            isinstance(version, int)
            and not isinstance(version, bool)
            and version != PROTOCOL_VERSION
        ):
            raise VersionMismatch(
                f"version mismatch: the engine speaks protocol {version!r}, "
                f"this harness speaks protocol {PROTOCOL_VERSION} only",
                engine_protocol=version,
            )
        try:
            validate_response("hello", answer)
        except ProtocolError as exc:
            raise HandshakeError(f"malformed hello answer: {exc.message}") from exc
        return Handshake.from_hello(answer)

    def _as_handshake_error(self, exc: EngineError) -> HandshakeError:
        tail = self.stderr_tail()
        if isinstance(exc, HandshakeError):
            exc.stderr_tail = tail
            return exc
        exit_code = exc.exit_code if isinstance(exc, EngineCrashed) else None
        if isinstance(exc, EngineReportedError):
            message = f"handshake failed: the engine answered hello with {exc.kind}: {exc.message}"
        else:
            message = f"handshake failed: {exc.message}"
        return HandshakeError(message, stderr_tail=tail, exit_code=exit_code)

    # -- teardown -----------------------------------------------------------

    def _shutdown(self) -> None:
        """Close stdin, let the adapter exit, then kill its whole process group."""
        proc = self._proc
        if proc is None:
            return
        self._ahead = None
        self._ahead_mark = None
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        with contextlib.suppress(OSError):
            proc.stdin.close()
        if proc.poll() is None and not self._broken:
            _wait_exit(proc, EXIT_GRACE)
        # The group is signalled even when the leader has exited: grandchildren
        # it left behind are still members and must not outlive the session.
        pgid = proc.pid
        _signal_group(pgid, signal.SIGTERM)
        deadline = time.monotonic() + TERM_GRACE
        while time.monotonic() < deadline:
            if proc.poll() is not None and not _group_has_live_members(pgid):
                break
            time.sleep(0.02)
        _signal_group(pgid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=KILL_WAIT)
        # Processes that left the group (setsid) die too (conformance/reaper.py).
        with _REGISTRY_LOCK:
            _LIVE.pop(pgid, None)
            spare, live_tokens = set(_LIVE), set(_LIVE.values())
        kill_escaped(self._token, live_tokens=live_tokens, spare=spare)
        # With every writer dead the stderr pipe reaches EOF and its drain finishes;
        # only then are the fds closed (closing under a blocked read is racy).
        self._stdout = None
        with contextlib.suppress(OSError):
            proc.stdout.close()
        if self._drain is not None:
            self._drain.join(timeout=1.0)
            if not self._drain.is_alive():
                with contextlib.suppress(OSError):
                    proc.stderr.close()
        # _broken stays as it was: a session killed for an error refuses requests
        # until start()/restart() clears it.
        self._proc = None


__all__ = [
    "DEFAULT_MAX_LINE_BYTES",
    "DEFAULT_START_TIMEOUT",
    "DEFAULT_TIMEOUT",
    "Ahead",
    "EngineSession",
    "Handshake",
    "Request",
]
