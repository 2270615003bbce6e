"""One adapter process behind the JSON-lines protocol, kept on a short leash.

An :class:`EngineSession` spawns the adapter (:mod:`conformance.adapter.process`: its own
process group, a memory cap, a watchdog that kills it if the harness dies), shakes hands
(:mod:`conformance.adapter.handshake`), sends requests one at a time and checks every answer: it
must be one JSON line, echo the request id and match the op's schema. The session
assumes the engine may be hostile or broken:

- every wait has a timeout, so a silent engine cannot hang the harness;
- stdout is read one bounded line at a time, only while an answer is awaited, and
  stderr is drained into a bounded tail (:mod:`conformance.adapter.pipes`);
- the adapter's process group may use at most ``memory_limit`` bytes of resident memory
  (:mod:`conformance.adapter.memlimit`);
- closing kills the whole process group (SIGTERM, a grace, then SIGKILL), so
  grandchildren the adapter left behind die with it.

After an error other than :class:`EngineReportedError` the session is broken:
the process group has been killed and :meth:`EngineSession.restart` must be
called before the next request. A session is meant to be used by one thread.

The modules named above were split out of this one; the names other modules import from
here (``Handshake``, ``default_players``, ``refuse_new_sessions``, ``kill_live_adapters``,
``live_adapter_pids``, the errors) still resolve.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Final, NamedTuple

from conformance.adapter.handshake import (
    Handshake,
    as_handshake_error,
    check_version,
    default_players,
)
from conformance.adapter.inprocess import InProcessAdapter, served_in_process
from conformance.adapter.limits import (
    DEFAULT_MAX_LINE_BYTES,
    DEFAULT_START_TIMEOUT,
    DEFAULT_TIMEOUT,
)
from conformance.adapter.memlimit import DEFAULT_MEMORY_LIMIT
from conformance.adapter.pipes import StderrSections
from conformance.adapter.process import (
    AdapterProcess,
    kill_live_adapters,
    live_adapter_pids,
    refuse_new_sessions,
)
from conformance.adapter.protocol import (
    PROTOCOL_VERSION,
    CheckedRequest,
    decode_line,
    encode_request,
    request_is_valid,
    validate_request,
    validate_response,
)
from conformance.errors import (
    EngineError,
    EngineReportedError,
    HandshakeError,
    InvalidRequest,
    ProtocolError,
    SessionError,
)

#: Seconds granted to the ``bye`` answer when closing a healthy session.
BYE_TIMEOUT: Final = 1.0
#: After the adapter is seen to have exited, seconds to keep draining stdout for
#: a last answer before calling it a crash (a grandchild may hold stdout open).
EXIT_DRAIN: Final = 0.2
#: Poll interval while waiting for an answer (bounds how late an exit is noticed).
_POLL: Final = 0.05
# Stdout is read only while an answer is awaited, one chunk at a time: an adapter
# spewing unsolicited lines blocks on its full pipe instead of eating memory.

#: A request as the caller builds it: its op and its fields (no id).
Request = tuple[str, Mapping[str, Any]]
#: Most requests in flight at once (:meth:`EngineSession.exchange`'s ``then``), for an
#: engine that takes that many (its handshake's ``max_in_flight``; one at a time if none).
MAX_AHEAD: Final = 2


@dataclass(frozen=True)
class Ahead:
    """A request for :meth:`EngineSession.exchange`'s ``then`` with options of its own."""

    request: Request
    #: Its own time limit, from when it is sent (default: the session's ``timeout``).
    timeout: float | None = None
    #: The first request of the next case: what the adapter writes to stderr from now on
    #: belongs to that case (:meth:`EngineSession.mark_stderr` takes this point).
    opens_section: bool = False


#: What :meth:`EngineSession.exchange` sends ahead: a request, or a list of them.
Then = Request | Ahead | list[Request | Ahead] | None


# _Prepared and _Sent are NamedTuples, not frozen dataclasses: two are built per request,
# between an answer's arrival and the next request, and a tuple is built three times faster.
class _Prepared(NamedTuple):
    """A request to send ahead, validated and encoded while the adapter was still busy."""

    op: str
    id: int
    data: bytes
    ahead: Ahead


class _Sent(NamedTuple):
    """A request written to the adapter whose answer has not been read yet."""

    op: str
    id: int
    deadline: float
    timeout: float
    #: Written while another request was in flight: the adapter starts on it only once it
    #: has answered that one, so its time runs from that answer (:class:`_InFlight`).
    behind: bool = False


class _InFlight:
    """The requests sent ahead, oldest first, or the error a sending met (raised when its
    answer is asked for); and when the last answer was read."""

    def __init__(self) -> None:
        self.queue: deque[_Sent | EngineError] = deque()
        self.answered_at = 0.0
        #: How many may be in flight: 1 until the handshake says more.
        self.limit = 1

    def __len__(self) -> int:
        return len(self.queue)

    def may_take(self, then: _Prepared, adapter: AdapterProcess | InProcessAdapter) -> bool:
        """Whether ``then`` may be written now (:meth:`EngineSession.exchange`)."""
        if len(self.queue) >= self.limit or not adapter.running():
            return False
        if not self.queue:
            return adapter.stdout.quiet()
        # With a request in flight its answer may be in already: only that read tells
        # chatter from it (an unsolicited line then fails its id check). Nothing goes
        # behind a failed sending.
        return not then.ahead.opens_section and not isinstance(self.queue[-1], EngineError)

    def next(self) -> _Sent:
        """The oldest request in flight, its time limit running from the answer before it
        when it was written behind that one.

        :raises EngineError: the error met sending it.
        """
        sent = self.queue.popleft()
        if isinstance(sent, EngineError):
            raise sent
        if sent.behind:
            deadline = max(sent.deadline, self.answered_at + sent.timeout)
            return _Sent(sent.op, sent.id, deadline, sent.timeout)
        return sent


def _prepare(ahead: Ahead, ahead_id: int, session: EngineSession) -> _Prepared | None:
    """``ahead`` checked and encoded now, while the adapter works: once the answer is in,
    only the write is left. None when it breaks the schema or is not JSON: it is then
    sent in its own turn, so that its InvalidRequest comes where a plain request's would.
    """
    request = ahead.request
    op, fields = request
    if type(request) is CheckedRequest:
        return _Prepared(op, ahead_id, request.line(ahead_id), ahead)
    message = {"id": ahead_id, "op": op, **fields}
    if session.validate_requests and not request_is_valid(op, message):
        return None
    try:
        return _Prepared(op, ahead_id, encode_request(message), ahead)
    except (ValueError, TypeError):
        return None


def _prepare_all(
    aheads: Sequence[Ahead], first_id: int, room: int, session: EngineSession
) -> list[_Prepared]:
    """``aheads`` prepared (:func:`_prepare`), up to the first that must go in its own turn.

    :raises SessionError: when they are more than the ``room`` left in flight.
    """
    if len(aheads) > room:
        limit = session.ahead_limit
        raise SessionError(f"at most {limit} request(s) in flight for this engine")
    prepared: list[_Prepared] = []
    for i, ahead in enumerate(aheads):
        one = _prepare(ahead, first_id + i, session)
        if one is None:
            break  # sent in its own turn, and so those after it
        prepared.append(one)
    return prepared


def _encoded(request: Request, request_id: int) -> bytes:
    """``request`` as the line sent with id ``request_id`` (encoded once, if checked)."""
    if type(request) is CheckedRequest:
        return request.line(request_id)
    op, fields = request
    return encode_request({"id": request_id, "op": op, **fields})


def _checked_answer(op: str, request_id: int, line: bytes) -> dict[str, Any]:
    """The answer ``line`` to ``op`` (id ``request_id``), decoded and checked: its id, and
    its schema (but hello's, which the caller checks after the version).

    :raises ProtocolError: when it is not JSON, has the wrong id or breaks the schema.
    :raises EngineReportedError: when it is an error answer.
    """
    answer = decode_line(line)
    if "id" not in answer:
        raise ProtocolError(f"answer to {op} has no id (expected {request_id})", pointer="/id")
    earlier = answer["id"]
    # type() is: a bool is not an id, though it is an int.
    if type(earlier) is int and earlier < request_id:
        # A line left over from an earlier request (a second answer, chatter) that
        # reached us only now: the same fault as one seen between requests.
        raise ProtocolError(
            f"unsolicited line after the answer to request {request_id - 1}: {line[:200]!r}"
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


class EngineSession:
    """One adapter process speaking protocol version 1; a context manager.

    ``timeout`` bounds each request, ``start_timeout`` the handshake,
    ``max_line_bytes`` each response line, ``memory_limit`` the resident memory of the
    adapter's process group in bytes (None: no limit). ``validate_requests`` checks every
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
        memory_limit: int | None = DEFAULT_MEMORY_LIMIT,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
        validate_requests: bool = True,
    ) -> None:
        self.argv: tuple[str, ...] = tuple(argv)
        self.timeout = timeout
        self.start_timeout = start_timeout
        self.max_line_bytes = max_line_bytes
        self.memory_limit = memory_limit
        self.cwd = cwd
        self.env = dict(env) if env is not None else None
        self.validate_requests = validate_requests
        self.handshake: Handshake | None = None
        self._adapter: AdapterProcess | InProcessAdapter | None = None
        # The adapter's stderr by case, kept after a shutdown: an error's report takes it then.
        self._stderr = StderrSections()
        # Held while a request is in flight. A close() from another thread (an
        # interrupted run closing every session) must not read the same pipe.
        self._in_use = threading.Lock()
        self._next_id = 1
        self._broken = False
        # The requests sent ahead (exchange's ``then``), or the error a sending met.
        self._ahead = _InFlight()
        self._waiting_work: list[Callable[[], None]] = []  # see while_waiting

    # -- life cycle ---------------------------------------------------------

    def __enter__(self) -> EngineSession:
        if self._adapter is None:
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
        return self._adapter.pid if self._adapter is not None else None

    @property
    def alive(self) -> bool:
        """True when the adapter runs and the session can take requests."""
        adapter = self._adapter
        return adapter is not None and not self._broken and adapter.poll() is None

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
            if self._adapter is None:
                self._spawn()

    def _start(self) -> Handshake:
        if self._adapter is not None and (self.handshake is not None or self._broken):
            raise SessionError("session already started; use restart()")
        if self._adapter is None:
            self._spawn()
        try:
            answer = self._exchange("hello", {"protocol": PROTOCOL_VERSION}, self.start_timeout)
            self.handshake = _read_handshake(answer)
            self._ahead.limit = min(MAX_AHEAD, self.handshake.max_in_flight)
        except EngineError as exc:
            self._broken = True
            self._shutdown()
            raise as_handshake_error(exc, self.stderr_tail()) from exc
        return self.handshake

    def _spawn(self) -> None:
        self._next_id = 1
        self._broken = False
        self._ahead = _InFlight()
        self.handshake = None
        self._adapter = _open_adapter(self)
        self._stderr = StderrSections(self._adapter.drain)

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
        adapter = self._adapter
        if adapter is None:
            return
        if not self._in_use.acquire(blocking=False):
            adapter.kill()
            return
        self._waiting_work.clear()  # for cases this session will not run
        try:
            healthy = not self._broken and not self._ahead and self.handshake is not None
            if healthy and adapter.poll() is None:
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
        self._stderr.open_section()

    def stderr_tail(self, limit: int = 4000) -> str:
        """Return the last ``limit`` characters the adapter wrote to stderr.

        Only what came after :meth:`mark_stderr`, when that is not empty: the log of the
        case that went wrong, rather than of every case before it.
        """
        return self._stderr.tail(limit)

    # -- requests -----------------------------------------------------------

    def request(self, op: str, **fields: Any) -> dict[str, Any]:
        """Send one request and return the engine's (schema-valid) result object.

        The id is assigned here. Raises EngineReportedError for an error answer (the session
        stays usable), InvalidRequest for a request that breaks the schema (nothing sent),
        and other EngineErrors for misbehaviour, after which the adapter has been killed
        and the session needs restart()."""
        return self.exchange((op, fields))

    @property
    def in_flight(self) -> int:
        """How many requests sent ahead (``exchange``'s ``then``) await their answers."""
        return len(self._ahead)

    @property
    def ahead_limit(self) -> int:
        """How many requests may be in flight: :data:`MAX_AHEAD`, or fewer as the engine's
        handshake says (``max_in_flight``; one without it)."""
        return self._ahead.limit

    def exchange(self, request: Request | None, *, then: Then = None) -> dict[str, Any]:
        """Like :meth:`request`, and able to send the next requests ahead.

        ``request`` None reads the answer to the oldest request sent ahead. ``then`` (one
        request or a list) is written once this answer's line is read, before it is decoded,
        checked and returned: the adapter works on it while the caller grades this answer,
        and sees the same requests in the same order. At most :attr:`ahead_limit` are in
        flight; one opening a stderr section goes only when no other is. Each goes only
        while the adapter runs (and, with none in flight, has said nothing more); else it and
        those after it are left to the caller, whose next call meets whatever is wrong as a
        plain request would. A caller that no longer needs the answers calls :meth:`discard`.
        """
        if self._broken:
            raise SessionError("session is broken by an earlier engine error; restart() it")
        if self._adapter is None:
            raise SessionError("session not started")
        if request is None:
            if not self._ahead:
                raise SessionError("no request was sent ahead")
        elif self._ahead:
            raise SessionError("a request sent ahead is still unanswered: read or discard it")
        if request is not None and self.validate_requests and type(request) is not CheckedRequest:
            validate_request(request[0], {"id": self._next_id, "op": request[0], **request[1]})
        room = self._ahead.limit - len(self._ahead) + (request is None)
        prepared = _prepare_all(_aheads(then), self._next_id + (request is not None), room, self)
        with self._in_use:
            return self._request(request, prepared)

    def while_waiting(self, work: Callable[[], None]) -> None:
        """Do ``work`` (once) the next time an answer is awaited and not in yet: the
        harness's own preparation, done while the adapter works, not while it waits.

        It may never run (its caller does it at a fixed point then): its result must not
        depend on when it runs. What it raises comes out of the exchange that waited.
        """
        if work not in self._waiting_work:
            self._waiting_work.append(work)

    def discard(self) -> None:
        """Read and drop the answers to the requests sent ahead, if any.

        Error answers are dropped too; misbehaviour breaks the session as usual.
        """
        if not self._ahead:
            return
        self._stderr.drop_ahead()  # the case it would have opened does not follow
        while self._ahead:
            with contextlib.suppress(EngineReportedError):
                self.exchange(None)

    def _request(self, request: Request | None, then: list[_Prepared]) -> dict[str, Any]:
        if self._adapter is None:
            raise SessionError("session closed")
        try:
            if request is None:
                sent = self._ahead.next()
            else:
                # Anything the adapter did since the last answer (extra line, exit).
                self._adapter.check_between_requests(self._next_id - 1)
                sent = self._send(request, self.timeout)
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

    def _exchange(self, op: str, fields: Mapping[str, Any], timeout: float) -> dict[str, Any]:
        """Write one request, read its answer, check id and schema."""
        return self._collect(self._send((op, fields), timeout))

    def _send(self, request: Request, timeout: float) -> _Sent:
        assert self._adapter is not None
        request_id = self._next_id
        self._next_id += 1
        op = request[0]
        deadline = time.monotonic() + timeout
        self._adapter.write(_encoded(request, request_id), op, deadline, timeout)
        return _Sent(op, request_id, deadline, timeout)

    def _send_ahead(self, then: _Prepared) -> bool:
        """Write ``then`` if it may go now (:meth:`exchange`): False when not. Keeps a failure."""
        adapter = self._adapter
        assert adapter is not None
        if not self._ahead.may_take(then, adapter):
            return False
        if then.ahead.opens_section:
            self._stderr.mark_ahead()
        timeout = self.timeout if then.ahead.timeout is None else then.ahead.timeout
        assert then.id == self._next_id
        self._next_id += 1
        deadline = time.monotonic() + timeout
        try:
            adapter.write(then.data, then.op, deadline, timeout)
            behind = bool(self._ahead)  # written behind a request still in flight
            self._ahead.queue.append(_Sent(then.op, then.id, deadline, timeout, behind))
        except EngineError as exc:
            # Raised when the caller asks for this answer, not against the answer in hand.
            self._ahead.queue.append(exc)
            return False
        return True

    def _collect(self, sent: _Sent, then: Sequence[_Prepared] = ()) -> dict[str, Any]:
        """Read the answer to ``sent``, send ``then`` ahead, check the answer's id and schema."""
        adapter = self._adapter
        assert adapter is not None
        op, request_id, deadline, timeout = sent.op, sent.id, sent.deadline, sent.timeout
        while self._waiting_work and not adapter.stdout.ready():
            self._waiting_work.pop(0)()
        item = adapter.read_line(op, request_id, deadline, timeout)
        self._ahead.answered_at = time.monotonic()
        for prepared in then:
            if not self._send_ahead(prepared):
                break
        return _checked_answer(op, request_id, item)

    # -- teardown -----------------------------------------------------------

    def _shutdown(self) -> None:
        """Close stdin, let the adapter exit, then kill its whole process group."""
        adapter = self._adapter
        if adapter is None:
            return
        self._ahead = _InFlight()
        self._waiting_work.clear()
        self._stderr.drop_ahead()
        adapter.shutdown(graceful=not self._broken)
        # _broken stays as it was: a session killed for an error refuses requests
        # until start()/restart() clears it.
        self._adapter = None


def _open_adapter(session: EngineSession) -> AdapterProcess | InProcessAdapter:
    """The adapter of ``session``: its process, or the engine a caller serves in this
    process for its command (conformance/adapter/inprocess.py, for tests).

    :raises EngineStartError: when the process cannot be spawned.
    """
    in_process = served_in_process(session.argv, session.env)
    if in_process is not None:
        return InProcessAdapter(
            in_process,
            session.argv,
            max_line_bytes=session.max_line_bytes,
            env=session.env,
            cwd=session.cwd,
        )
    return AdapterProcess(
        session.argv,
        max_line_bytes=session.max_line_bytes,
        memory_limit=session.memory_limit,
        cwd=session.cwd,
        env=session.env,
    )


def exchange_together(
    session: EngineSession, requests: Sequence[Request]
) -> list[dict[str, Any] | EngineReportedError]:
    """Write ``requests`` to ``session``'s adapter in one write, then read their answers in
    turn (an error answer is returned in its place, not raised).

    For ``smoke``'s in-flight probe: lines written in one write of less than a pipe's
    atomic size reach the adapter in one read, so an adapter that takes a read for one
    request always shows it, where requests sent ahead show it only when a read
    happens to catch two. At most the session's ``ahead_limit`` requests. (A function, not a
    method: the session class is kept to what a run uses.)

    :raises EngineError: when the adapter misbehaves (the session is then broken).
    """
    if session._broken:
        raise SessionError("session is broken by an earlier engine error; restart() it")
    if session._adapter is None:
        raise SessionError("session not started")
    if session._ahead:
        raise SessionError("a request sent ahead is still unanswered: read or discard it")
    if not 0 < len(requests) <= session.ahead_limit:
        raise SessionError(f"at most {session.ahead_limit} request(s) in flight for this engine")
    for i, (op, fields) in enumerate(requests):
        if session.validate_requests and type(requests[i]) is not CheckedRequest:
            validate_request(op, {"id": session._next_id + i, "op": op, **fields})
    with session._in_use:
        adapter = session._adapter
        try:
            adapter.check_between_requests(session._next_id - 1)
            first = session._next_id
            data = b"".join(_encoded(r, first + i) for i, r in enumerate(requests))
            session._next_id += len(requests)
            deadline = time.monotonic() + session.timeout
            adapter.write(data, requests[0][0], deadline, session.timeout)
            answers: list[dict[str, Any] | EngineReportedError] = []
            for i, (op, _fields) in enumerate(requests):
                # Each answer's time runs from the one before it, as in flight.
                deadline = max(deadline, session._ahead.answered_at + session.timeout)
                try:
                    answers.append(
                        session._collect(_Sent(op, first + i, deadline, session.timeout))
                    )
                except EngineReportedError as exc:
                    answers.append(exc)
            return answers
        except EngineError as exc:
            session._broken = True
            session._shutdown()
            exc.stderr_tail = session.stderr_tail()
            raise


def _aheads(then: Then) -> list[Ahead]:
    """``exchange``'s ``then`` as a list of :class:`Ahead`."""
    if then is None:
        return []
    if isinstance(then, list):
        return [item if isinstance(item, Ahead) else Ahead(item) for item in then]
    return [then if isinstance(then, Ahead) else Ahead(then)]


def _read_handshake(answer: dict[str, Any]) -> Handshake:
    check_version(answer)
    try:
        validate_response("hello", answer)
    except ProtocolError as exc:
        raise HandshakeError(f"malformed hello answer: {exc.message}") from exc
    return Handshake.from_hello(answer)


__all__ = [
    "DEFAULT_MAX_LINE_BYTES",
    "DEFAULT_MEMORY_LIMIT",
    "DEFAULT_START_TIMEOUT",
    "DEFAULT_TIMEOUT",
    "MAX_AHEAD",
    "Ahead",
    "EngineSession",
    "Handshake",
    "HandshakeError",
    "Request",
    "Then",
    "default_players",
    "exchange_together",
    "kill_live_adapters",
    "live_adapter_pids",
    "refuse_new_sessions",
]
