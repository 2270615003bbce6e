"""Exceptions of the harness, one family per phase of an adapter's life.

Everything the harness raises on purpose derives from :class:`HarnessError`.
Everything that is the *engine's* fault derives from :class:`EngineError` and
carries the tail of the adapter's stderr, so a report can show what the
engine said just before it went wrong. The runner turns an ``EngineError``
during a case into an *errored* case (restart the adapter, go on); a failure
to start or to shake hands ends the run, because no case could be graded.

Life cycle of one :class:`~conformance.adapter.engine.EngineSession` and what each
phase raises::

    start ─────────► EngineStartError     argv empty, binary missing, not executable
      │
    handshake ─────► HandshakeError       no answer, exit, malformed or error answer
      │              └ VersionMismatch    the engine speaks another protocol version
      │
    requests ──────► EngineCrashed        the adapter exited (exit code attached)
      │              EngineTimeout        no answer within the per-request timeout
      │              EngineMemoryExceeded the adapter's process group passed its memory
      │                                   limit and was killed (conformance/adapter/memlimit.py)
      │              ProtocolError        not JSON, wrong shape, wrong id, oversized
      │                                   or unsolicited line, stdout closed early
      │              EngineReportedError  the engine answered {"error": {...}}
      │
    close ─────────► (nothing)            bye, short grace, then the whole process
                                          group gets SIGTERM and SIGKILL

After any ``EngineError`` but ``EngineReportedError`` the session is *broken*: the
adapter has been killed and the session must be restarted before the next request.

The harness's own mistakes are no ``EngineError``: :class:`InvalidRequest` (a request
that breaks the schema, never sent; the session stays usable) and :class:`SessionError`
(a session used out of order). Every other deliberate error of the harness (a bad
scenario, profile, catalogue, report, expectations or command line) derives from
:class:`HarnessError` too, where the module that raises it defines it.
"""

from __future__ import annotations


class HarnessError(Exception):
    """Base of every error the harness raises on purpose."""


class EngineError(HarnessError):
    """The engine under test misbehaved.

    ``stderr_tail`` holds the last part of what the adapter wrote to stderr
    (possibly empty), captured when the error was raised.
    """

    def __init__(self, message: str, *, stderr_tail: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.stderr_tail = stderr_tail


class EngineStartError(EngineError):
    """The adapter process could not be spawned at all."""


class HandshakeError(EngineError):
    """The ``hello`` exchange failed; no case can run against this engine.

    ``exit_code`` is set when the adapter exited during the handshake.
    """

    def __init__(
        self, message: str, *, stderr_tail: str = "", exit_code: int | None = None
    ) -> None:
        super().__init__(message, stderr_tail=stderr_tail)
        self.exit_code = exit_code


class VersionMismatch(HandshakeError):
    """The engine answered ``hello`` with a protocol version the harness does not speak."""

    def __init__(self, message: str, *, engine_protocol: object, stderr_tail: str = "") -> None:
        super().__init__(message, stderr_tail=stderr_tail)
        self.engine_protocol = engine_protocol


class EngineCrashed(EngineError):
    """The adapter exited while the harness was waiting on it.

    ``exit_code`` is the process's return code (negative: killed by that signal),
    or None if the exit was inferred but the code could not be collected.
    """

    def __init__(self, message: str, *, exit_code: int | None, stderr_tail: str = "") -> None:
        super().__init__(message, stderr_tail=stderr_tail)
        self.exit_code = exit_code


class EngineTimeout(EngineError):
    """No complete answer arrived within the timeout."""

    def __init__(self, message: str, *, timeout: float, stderr_tail: str = "") -> None:
        super().__init__(message, stderr_tail=stderr_tail)
        self.timeout = timeout


class EngineMemoryExceeded(EngineError):
    """The adapter's process group used more resident memory than its limit; it was killed.

    ``limit`` and ``used`` are in bytes (``used``: what the harness measured).
    """

    def __init__(self, message: str, *, limit: int, used: int, stderr_tail: str = "") -> None:
        super().__init__(message, stderr_tail=stderr_tail)
        self.limit = limit
        self.used = used


class ProtocolError(EngineError):
    """A line from the engine breaks the protocol (docs/protocol.md).

    ``pointer`` is the JSON pointer of the offending part of the message when
    the problem is a schema violation (``""`` is the whole message), else None.
    """

    def __init__(self, message: str, *, pointer: str | None = None, stderr_tail: str = "") -> None:
        super().__init__(message, stderr_tail=stderr_tail)
        self.pointer = pointer


class InvalidRequest(HarnessError):
    """A request the harness was about to send breaks the request schema.

    The fault is on the harness (or scenario) side, not the engine's: nothing was sent
    and the session is still usable. ``pointer`` is the JSON pointer of the first problem
    in the request, as for a :class:`ProtocolError`.
    """

    def __init__(self, message: str, *, pointer: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.pointer = pointer


class SessionError(HarnessError):
    """A session was used out of order by the harness: not started, already started,
    closed, broken by an earlier engine error and not restarted, or more requests in
    flight than the engine allows. A harness bug, never the engine's fault."""


class EngineReportedError(EngineError):
    """The engine answered with ``{"error": {"kind": ..., "message": ...}}``.

    The session stays usable: the engine told us it could not do something.
    """

    def __init__(self, kind: str, message: str, *, stderr_tail: str = "") -> None:
        super().__init__(f"engine reported {kind}: {message}", stderr_tail=stderr_tail)
        self.kind = kind
        # ``message`` is the engine's own text; str(exc) adds the kind in front.
        self.message = message


__all__ = [
    "EngineCrashed",
    "EngineError",
    "EngineMemoryExceeded",
    "EngineReportedError",
    "EngineStartError",
    "EngineTimeout",
    "HandshakeError",
    "HarnessError",
    "InvalidRequest",
    "ProtocolError",
    "SessionError",
    "VersionMismatch",
]
