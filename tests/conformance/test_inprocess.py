"""A session whose engine answers in-process goes through the protocol's own checks.

An in-process engine (conformance/adapter/inprocess.py) leaves out the process and its
pipes, never the encoding, the decoding, the id and schema checks or the errors a session
raises: each fault a process can commit in its answers is raised the same way here, and the
reference answers the same in-process as from its process.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Mapping, Sequence

import pytest

from conformance.adapter.engine import Ahead, EngineSession
from conformance.adapter.inprocess import LineEngine, serve_in_process, served_in_process
from conformance.errors import (
    EngineCrashed,
    EngineReportedError,
    EngineTimeout,
    HandshakeError,
    ProtocolError,
)
from tests.adapters import REFERENCE, is_reference, reference_engine, reference_in_process

#: From 000 §07: A 20 + Q 10 + 3 = 33.
EXAMPLE_CARDS = ["AS", "QD", "3C"]
SCRIPTED = ["scripted-engine"]
TRIO = {"kind": "trio", "cards": ["8C", "8D", "JK"]}

Tamper = Callable[[dict[str, object], bytes], bytes]


def scripted(tamper: Tamper) -> Callable[..., LineEngine]:
    """A starter of the reference engine whose answers other than hello's pass ``tamper``
    (given the request and the answer line), so a test makes one fault and nothing else."""

    def start(
        argv: Sequence[str], env: Mapping[str, str] | None, cwd: str | None, log: io.StringIO
    ) -> LineEngine:
        engine = reference_engine(REFERENCE, env, cwd, log)

        def answer(line: bytes) -> bytes:
            request = json.loads(line)
            out = engine(line)
            return out if request["op"] in ("hello", "bye") else tamper(request, out)

        return answer

    return start


def session_with(tamper: Tamper, max_line_bytes: int = 1 << 20) -> EngineSession:
    """A started session of the scripted engine (closed by the caller's ``with``)."""
    with serve_in_process(lambda argv, env: list(argv) == SCRIPTED, scripted(tamper)):
        session = EngineSession(SCRIPTED, timeout=5.0, max_line_bytes=max_line_bytes)
        session.start()
    return session


def penalty(session: EngineSession) -> dict[str, object]:
    return session.request("penalty", profile="argentine", cards=EXAMPLE_CARDS)


def test_the_reference_answers_the_same_in_process_as_from_its_process() -> None:
    requests: list[tuple[str, dict[str, object]]] = [
        ("penalty", {"profile": "argentine", "cards": EXAMPLE_CARDS}),
        ("check_meld", {"profile": "argentine", "meld": TRIO, "initial": True}),
        ("new_game", {"profile": "chilean", "players": 3, "seed": 7}),
    ]
    with EngineSession(REFERENCE) as process:
        assert process.pid is not None
        expected = [process.request(op, **fields) for op, fields in requests]
        handshake = process.handshake
    with reference_in_process(), EngineSession(REFERENCE) as session:
        assert session.pid is None  # no process was started
        assert session.handshake == handshake
        assert [session.request(op, **fields) for op, fields in requests] == expected
        assert session.alive
    assert not session.alive


def test_only_a_registered_command_is_served_in_process_and_only_while_registered() -> None:
    with reference_in_process():
        assert served_in_process(REFERENCE) is not None
        assert served_in_process([*REFERENCE, "--trace-rules", "x"]) is None
        assert served_in_process(["other-engine"]) is None
        assert served_in_process(REFERENCE, {"CARIOCA_TRACE_RULES": "x"}) is None
    assert served_in_process(REFERENCE) is None
    assert is_reference([*REFERENCE, "--ruling", "DISPUTE-31=at_least"], {})


def test_requests_sent_ahead_are_answered_in_order() -> None:
    with reference_in_process(), EngineSession(REFERENCE) as session:
        first = session.exchange(
            ("penalty", {"profile": "argentine", "cards": ["AS"]}),
            then=Ahead(("penalty", {"profile": "argentine", "cards": ["QD"]})),
        )
        assert session.in_flight == 1
        assert (first["points"], session.exchange(None)["points"]) == (20, 10)


def test_an_error_answer_keeps_the_session() -> None:
    with reference_in_process(), EngineSession([*REFERENCE, "--players", "3"]) as session:
        with pytest.raises(EngineReportedError) as caught:
            session.request("new_game", profile="argentine", players=4, seed=1)
        assert caught.value.kind == "unsupported"
        assert penalty(session)["points"] == 33


def wrong_id(request: dict[str, object], out: bytes) -> bytes:
    answer = json.loads(out)
    answer["id"] = 99
    return json.dumps(answer).encode() + b"\n"


def test_an_answer_with_another_id_is_a_protocol_error_that_breaks_the_session() -> None:
    with session_with(wrong_id) as session:
        with pytest.raises(ProtocolError, match="id 99"):
            penalty(session)
        assert not session.alive


def test_an_answer_that_is_not_json_is_a_protocol_error() -> None:
    with (
        session_with(lambda request, out: b"points: 33\n") as session,
        pytest.raises(ProtocolError),
    ):
        penalty(session)


def test_an_answer_breaking_the_schema_is_a_protocol_error() -> None:
    def no_points(request: dict[str, object], out: bytes) -> bytes:
        return json.dumps({"id": request["id"], "score": 33}).encode() + b"\n"

    with session_with(no_points) as session, pytest.raises(ProtocolError):
        penalty(session)


def test_a_line_beyond_the_answer_is_unsolicited_at_the_next_request() -> None:
    with session_with(lambda request, out: out + out) as session:
        assert penalty(session)["points"] == 33
        with pytest.raises(ProtocolError, match="unsolicited"):
            penalty(session)


def test_an_engine_that_says_nothing_times_out_at_once() -> None:
    with session_with(lambda request, out: b"") as session, pytest.raises(EngineTimeout):
        penalty(session)


def test_an_unterminated_answer_never_arrives() -> None:
    with (
        session_with(lambda request, out: out.rstrip(b"\n")) as session,
        pytest.raises(EngineTimeout),
    ):
        penalty(session)


def test_an_engine_that_raises_has_crashed_with_its_traceback_in_the_tail() -> None:
    def boom(request: dict[str, object], out: bytes) -> bytes:
        raise RuntimeError("the engine's own bug")

    with session_with(boom) as session:
        with pytest.raises(EngineCrashed) as caught:
            penalty(session)
        assert caught.value.exit_code == 1
        assert "the engine's own bug" in caught.value.stderr_tail


def test_an_engine_that_exits_has_crashed_with_its_code() -> None:
    def leave(request: dict[str, object], out: bytes) -> bytes:
        raise SystemExit(3)

    with session_with(leave) as session, pytest.raises(EngineCrashed) as caught:
        penalty(session)
    assert caught.value.exit_code == 3


def test_an_answer_over_the_line_limit_is_a_protocol_error() -> None:
    # The hello answer is some 6,400 bytes: within the limit.
    oversized = session_with(lambda request, out: b"x" * 8000 + b"\n", 7000)
    with oversized as session, pytest.raises(ProtocolError, match="than the limit of 7000 bytes"):
        penalty(session)


def test_options_the_reference_refuses_fail_the_handshake_as_its_process_does() -> None:
    argv = [*REFERENCE, "--capabilities", "melds,telepathy"]
    with pytest.raises(HandshakeError) as from_process:
        EngineSession(argv).start()
    with reference_in_process(), pytest.raises(HandshakeError) as in_process:
        EngineSession(argv).start()
    assert type(in_process.value) is type(from_process.value)


@pytest.mark.parametrize("answer", ["a str", None], ids=["str", "None"])
def test_an_engine_answering_with_no_bytes_is_that_engines_crash(answer: object) -> None:
    """An in-process engine returning str or None raised TypeError out of run_request."""

    def tamper(request: dict[str, object], out: bytes) -> bytes:
        return answer  # type: ignore[return-value]

    session = session_with(tamper)
    with session, pytest.raises(EngineCrashed) as caught:
        session.request("penalty", profile="argentine", cards=EXAMPLE_CARDS)
    assert f"returned {type(answer).__name__} for a request, not bytes" in caught.value.stderr_tail
