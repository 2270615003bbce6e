"""An engine served inside the harness's own process: the same protocol, no process.

For tests, which need an engine that answers far more often than one whose process
misbehaves: each adapter process costs a Python start-up and the engine's imports (about a
fifth of a CPU second for the reference), so a test that plays a few cases spends most of
its time starting processes. A session whose adapter is served in-process
(:class:`InProcessAdapter`) still sends every request as the JSON line it would write to
a pipe and reads every answer as a line, through the session's own encoding, decoding, id
and schema checks: only the pipes and the process are left out.

Nothing is served in-process unless asked: :func:`serve_in_process` registers, for a while,
which adapter commands are answered by a Python callable instead of a process (the
command stays what reports show). It is a testing aid: an in-process engine cannot be
timed out, limited in memory or killed, so a test of hangs, crashes, memory, pipes or
signals must run a real process.
"""

from __future__ import annotations

import contextlib
import io
import threading
import traceback
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Final

from conformance.errors import EngineCrashed, EngineTimeout, ProtocolError
from conformance.io.textsafe import safe_tail

#: An engine served in-process: given one request line (no newline), what it writes to
#: stdout in answer (complete lines, each ending in a newline; ``b""`` for nothing). It
#: ends its "process" by raising :class:`SystemExit` (what it returned before stands).
LineEngine = Callable[[bytes], bytes]
#: Starts an in-process engine for an adapter command: ``(argv, env, cwd, stderr)``, where
#: ``stderr`` is a text stream the engine may write its log to (the session's stderr tail).
EngineStarter = Callable[
    [Sequence[str], Mapping[str, str] | None, str | None, io.StringIO], LineEngine
]
#: Which adapter commands a registration serves: ``(argv, env)``, ``env`` None for the
#: harness's own environment.
CommandMatch = Callable[[Sequence[str], Mapping[str, str] | None], bool]

#: Exit code given to an in-process engine that raised (as an uncaught exception does).
CRASH_EXIT_CODE: Final = 1

_LOCK = threading.Lock()
_SERVED: list[tuple[CommandMatch, EngineStarter]] = []


@contextlib.contextmanager
def serve_in_process(match: CommandMatch, start: EngineStarter) -> Iterator[None]:
    """While in the ``with`` block, serve every adapter command ``match`` accepts in-process,
    by the engine ``start`` returns for it (one per session start).

    The latest registration whose ``match`` accepts a command serves it.
    """
    entry = (match, start)
    with _LOCK:
        _SERVED.append(entry)
    try:
        yield
    finally:
        with _LOCK:
            _SERVED.remove(entry)


def served_in_process(
    argv: Sequence[str], env: Mapping[str, str] | None = None
) -> EngineStarter | None:
    """The starter registered for ``argv`` run in ``env`` (:func:`serve_in_process`), or
    None: a process."""
    if not _SERVED:  # the usual case, without the lock
        return None
    with _LOCK:
        served = list(_SERVED)
    for match, start in reversed(served):
        if match(argv, env):
            return start
    return None


class _Lines:
    """The engine's stdout as lines, in the shape the session reads a pipe's."""

    def __init__(self) -> None:
        self.pending: deque[bytes] = deque()
        self.partial = b""  # written without its newline yet

    def ready(self) -> bool:
        """True when a line is waiting (an in-process answer is there, or never comes)."""
        return bool(self.pending)

    def quiet(self) -> bool:
        """True when no line is waiting."""
        return not self.pending


class _Stderr:
    """The engine's log, for :class:`~conformance.adapter.pipes.StderrSections`."""

    def __init__(self, stream: io.StringIO) -> None:
        self.stream = stream

    @property
    def total(self) -> int:
        return len(self.stream.getvalue())

    def catch_up(self) -> None:
        """Nothing to catch up: the engine wrote its log before it returned its answer."""

    def tail(self, limit: int, since: int = 0, until: int | None = None) -> str:
        """The last ``limit`` characters, of what came after ``since`` (and before ``until``)."""
        text = self.stream.getvalue()[since:until]
        return safe_tail(text, limit)


class InProcessAdapter:
    """An adapter served by a :data:`LineEngine` in this process, with the interface of
    :class:`~conformance.adapter.process.AdapterProcess` the session uses.

    A request is answered while it is written; an answer that is not there when it is read
    never comes (:class:`EngineTimeout` at once, as a silent process would time out).
    """

    def __init__(
        self,
        start: EngineStarter,
        argv: Sequence[str],
        *,
        max_line_bytes: int,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
    ) -> None:
        self.max_line_bytes = max_line_bytes
        self.stdout = _Lines()
        self._log = io.StringIO()
        self.drain = _Stderr(self._log)
        self.exit_code: int | None = None
        self._engine: LineEngine | None = None
        try:
            engine = start(argv, env, cwd, self._log)
            if not callable(engine):
                self._log.write(
                    f"the in-process engine's starter returned {type(engine).__name__}, "
                    "not a callable taking a request line\n"
                )
                self.exit_code = CRASH_EXIT_CODE
            else:
                self._engine = engine
        except SystemExit as exc:  # a usage error, as a command line exits with
            self.exit_code = exc.code if isinstance(exc.code, int) else CRASH_EXIT_CODE
        except Exception:
            self._log.write(traceback.format_exc())
            self.exit_code = CRASH_EXIT_CODE

    @property
    def pid(self) -> None:
        """No process: None."""
        return None

    def poll(self) -> int | None:
        """The exit code once the engine has ended, else None."""
        return self.exit_code

    def running(self) -> bool:
        """True until the engine has ended."""
        return self.exit_code is None

    def write(self, data: bytes, op: str, deadline: float, timeout: float) -> None:
        """Hand each line of ``data`` to the engine and keep what it answers.

        :raises EngineCrashed: when the engine has ended.
        """
        if self.exit_code is not None or self._engine is None:
            raise EngineCrashed(
                f"adapter exited with code {self.exit_code} while sending {op}",
                exit_code=self.exit_code,
            )
        for line in data.split(b"\n")[:-1]:
            if self.exit_code is not None:
                break  # what follows an exit is never read
            try:
                out = self._engine(line)
            except SystemExit as exc:
                code = exc.code
                self.exit_code = code if isinstance(code, int) else CRASH_EXIT_CODE
                continue
            except Exception:
                # An engine that raises has crashed, its traceback in its log as Python's.
                self._log.write(traceback.format_exc())
                self.exit_code = CRASH_EXIT_CODE
                continue
            if not isinstance(out, bytes | bytearray):
                # The engine's fault, as a process writing garbage and dying would be: a
                # crash with its reason in the log, never a TypeError out of the harness.
                self._log.write(
                    f"the in-process engine returned {type(out).__name__} for a request, "
                    "not bytes (the lines it writes to stdout)\n"
                )
                self.exit_code = CRASH_EXIT_CODE
                continue
            self._take(bytes(out))

    def _take(self, out: bytes) -> None:
        *lines, rest = (self.stdout.partial + out).split(b"\n")
        self.stdout.pending.extend(lines)
        self.stdout.partial = rest

    def read_line(self, op: str, request_id: int, deadline: float, timeout: float) -> bytes:
        """The next line the engine wrote, the answer to ``op`` (id ``request_id``).

        :raises EngineCrashed: when the engine ended without it.
        :raises EngineTimeout: when the engine wrote none (it never will).
        :raises ProtocolError: for a line over the limit.
        """
        if not self.stdout.pending:
            if self.exit_code is not None:
                raise EngineCrashed(
                    f"adapter exited with code {self.exit_code} during {op} (id {request_id})",
                    exit_code=self.exit_code,
                )
            raise EngineTimeout(
                f"no answer to {op} (id {request_id}) within {timeout:g} s", timeout=timeout
            )
        line = self.stdout.pending.popleft()
        if len(line) > self.max_line_bytes:
            raise ProtocolError(
                f"answer to {op} (id {request_id}) is longer than the limit of "
                f"{self.max_line_bytes} bytes (already {len(line)} bytes)"
            )
        return line

    def check_between_requests(self, last_id: int) -> None:
        """Fail on a line the engine wrote beyond its answers, or on its end."""
        if self.stdout.pending:
            line = self.stdout.pending[0]
            raise ProtocolError(
                f"unsolicited line after the answer to request {last_id}: {line[:200]!r}"
            )
        if self.exit_code is not None:
            raise EngineCrashed(
                f"adapter exited with code {self.exit_code} between requests",
                exit_code=self.exit_code,
            )

    def kill(self) -> None:
        """End the engine (its next request finds it gone)."""
        if self.exit_code is None:
            self.exit_code = -9

    def shutdown(self, *, graceful: bool) -> None:
        """End the engine; an in-process engine leaves nothing behind."""
        del graceful
        self.kill()


__all__ = [
    "CRASH_EXIT_CODE",
    "CommandMatch",
    "EngineStarter",
    "InProcessAdapter",
    "LineEngine",
    "serve_in_process",
    "served_in_process",
]
