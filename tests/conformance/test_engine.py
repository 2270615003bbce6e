"""EngineSession against a scripted, sometimes hostile adapter.

Each hostile behaviour gets one test asserting the exact error type, that the
harness notices it within a bounded time, that the stderr tail travels with
the error where the adapter wrote something, and that no process of the
adapter's group is left running.
"""

from __future__ import annotations

import os
import resource
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from conformance.adapter.engine import EngineSession, Handshake
from conformance.adapter.protocol import CheckedRequest, checked_request
from conformance.errors import (
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

FAKE = Path(__file__).resolve().parents[1] / "fake_adapters" / "fake_adapter.py"
# From 000 §07: A 20 + Q 10 + 3 = 33.
EXAMPLE_CARDS = ["AS", "QD", "3C"]
EXAMPLE_POINTS = 33


def live_tagged(tag: str) -> list[int]:
    """Pids of non-zombie processes whose command line carries ``tag``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            stat = Path(f"/proc/{entry}/stat").read_bytes()
        except OSError:
            continue
        state = stat[stat.rfind(b")") + 2 :].split()[0]
        if tag.encode() in cmdline.split(b"\0") and state != b"Z":
            found.append(int(entry))
    return found


def pid_alive(pid: int) -> bool:
    """True if ``pid`` exists and is not a zombie."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return False
    return stat[stat.rfind(b")") + 2 :].split()[0] != b"Z"


def wait_gone(tag: str, within: float = 30.0) -> list[int]:
    """Poll until no tagged process lives (or ``within`` s pass); return survivors."""
    deadline = time.monotonic() + within
    survivors = live_tagged(tag)
    while survivors and time.monotonic() < deadline:
        time.sleep(0.05)
        survivors = live_tagged(tag)
    return survivors


def wait_started(tag: str, within: float = 30.0) -> list[int]:
    """Poll until a tagged process lives (or ``within`` s pass); return them. A spawned child
    carries its tag only once it has exec'd, which a loaded machine may not have done yet
    when spawn() returns."""
    deadline = time.monotonic() + within
    found = live_tagged(tag)
    while not found and time.monotonic() < deadline:
        time.sleep(0.05)
        found = live_tagged(tag)
    return found


Factory = Callable[..., EngineSession]


@pytest.fixture
def tag() -> str:
    return f"fake-{uuid.uuid4().hex}"


@pytest.fixture
def make_session(tag: str) -> Iterator[Factory]:
    """Build sessions over the fake adapter; close them all afterwards.

    The limits are generous, so that a loaded CI machine never turns a prompt answer into a
    timeout; a test of a hang or a slow answer sets its own."""
    sessions: list[EngineSession] = []

    def factory(
        *flags: str, timeout: float = 30.0, start_timeout: float = 60.0, **kwargs: object
    ) -> EngineSession:
        argv = [sys.executable, str(FAKE), "--tag", tag, *flags]
        session = EngineSession(argv, timeout=timeout, start_timeout=start_timeout, **kwargs)  # type: ignore[arg-type]
        sessions.append(session)
        return session

    yield factory
    for session in sessions:
        session.close()
    # Backstop so a failing test cannot leak processes into the rest of the run.
    assert wait_gone(tag) == []


def penalty(session: EngineSession) -> dict[str, object]:
    return session.request("penalty", profile="argentine", cards=EXAMPLE_CARDS)


# -- the happy path ----------------------------------------------------------


def test_handshake_fields_and_a_correct_answer(make_session: Factory, tag: str) -> None:
    session = make_session("--rulings", '{"DISPUTE-1": "own", "DISPUTE-19": "allowed"}')
    handshake = session.start()
    assert isinstance(handshake, Handshake)
    assert handshake.protocol == 1
    assert handshake.name == "fake"
    assert handshake.language == "python"
    assert handshake.profiles == ("argentine",)
    assert handshake.capabilities == {"melds", "turns", "deals", "reasons"}
    # Engine rulings are normalised to two-digit dispute ids.
    assert dict(handshake.rulings) == {"DISPUTE-01": "own", "DISPUTE-19": "allowed"}
    answer = penalty(session)
    assert answer == {"id": 2, "points": EXAMPLE_POINTS}
    assert session.alive
    pid = session.pid
    assert pid is not None and pid_alive(pid)
    session.close()
    assert not session.alive
    assert not pid_alive(pid)
    assert wait_gone(tag) == []


def test_context_manager_starts_and_kills(make_session: Factory, tag: str) -> None:
    with make_session() as session:
        assert session.handshake is not None
        assert live_tagged(tag) == [session.pid]
    assert wait_gone(tag) == []


def test_ids_restart_at_one_in_a_new_process(make_session: Factory) -> None:
    session = make_session()
    session.start()
    first_pid = session.pid
    assert penalty(session)["id"] == 2
    assert penalty(session)["id"] == 3
    session.restart()
    assert session.pid != first_pid
    assert first_pid is not None and not pid_alive(first_pid)
    # hello took id 1 again.
    assert penalty(session)["id"] == 2


def test_slow_answer_within_the_timeout_is_fine(make_session: Factory) -> None:
    session = make_session("--slow", "0.4", timeout=30.0)
    session.start()
    started = time.monotonic()
    assert penalty(session)["points"] == EXAMPLE_POINTS
    assert time.monotonic() - started >= 0.4  # it did wait for the slow answer


def test_engine_reported_error_keeps_the_session(make_session: Factory) -> None:
    session = make_session("--error-on", "penalty")
    session.start()
    with pytest.raises(EngineReportedError) as caught:
        penalty(session)
    assert caught.value.kind == "internal"
    assert caught.value.message == "boom"
    assert "fake adapter got penalty" in caught.value.stderr_tail
    assert session.alive
    trio = {"kind": "trio", "cards": ["8C", "8D", "JK"]}
    answer = session.request("check_meld", profile="argentine", meld=trio, initial=True)
    assert answer["valid"] is True


def test_invalid_request_is_not_sent_and_keeps_the_session(make_session: Factory) -> None:
    session = make_session()
    session.start()
    with pytest.raises(InvalidRequest) as caught:
        session.request("penalty", profile="argentine", cards=["1S"])
    assert caught.value.pointer == "/cards/0"
    assert session.alive
    # The rejected request used no id on the wire: the next answer is id 2.
    assert penalty(session)["id"] == 2


def test_request_before_start_is_a_harness_error(make_session: Factory) -> None:
    with pytest.raises(HarnessError):
        penalty(make_session())


# -- start and handshake -------------------------------------------------------


def test_missing_binary() -> None:
    session = EngineSession(["/nonexistent/carioca-adapter-xyz"], timeout=60.0, start_timeout=60.0)
    started = time.monotonic()
    with pytest.raises(EngineStartError, match="cannot start adapter"):
        session.start()
    assert time.monotonic() - started < 30  # at once: no wait for the start limit
    assert not session.alive


def test_empty_argv() -> None:
    with pytest.raises(EngineStartError):
        EngineSession([]).start()


def test_exit_during_handshake(make_session: Factory, tag: str) -> None:
    session = make_session("--exit-on", "hello", "--exit-code", "3")
    started = time.monotonic()
    with pytest.raises(HandshakeError) as caught:
        session.start()
    assert time.monotonic() - started < 30  # bounded: no wait for the adapter to stop
    assert type(caught.value) is HandshakeError
    assert caught.value.exit_code == 3
    assert "exits with 3 on hello" in caught.value.stderr_tail
    assert not session.alive
    assert wait_gone(tag) == []


def test_protocol_2_is_a_version_mismatch(make_session: Factory, tag: str) -> None:
    session = make_session("--protocol", "2")
    with pytest.raises(VersionMismatch) as caught:
        session.start()
    assert isinstance(caught.value, HandshakeError)
    assert caught.value.engine_protocol == 2
    assert "version mismatch" in str(caught.value)
    assert "protocol 2" in str(caught.value)
    assert "fake adapter got hello" in caught.value.stderr_tail
    assert wait_gone(tag) == []


def test_malformed_handshake(make_session: Factory, tag: str) -> None:
    session = make_session("--wrong-shape-on", "hello")
    with pytest.raises(HandshakeError) as caught:
        session.start()
    assert not isinstance(caught.value, VersionMismatch)
    assert "malformed hello" in str(caught.value)
    assert wait_gone(tag) == []


def test_hello_answered_with_an_error(make_session: Factory) -> None:
    session = make_session("--error-on", "hello")
    with pytest.raises(HandshakeError, match="internal"):
        session.start()


def test_handshake_that_never_comes(make_session: Factory, tag: str) -> None:
    session = make_session("--hang-on", "hello", start_timeout=2.0)
    started = time.monotonic()
    with pytest.raises(HandshakeError):
        session.start()
    # Never before the limit; the upper bound only catches a wait far beyond it.
    assert 2.0 <= time.monotonic() - started < 30
    assert wait_gone(tag) == []


# -- hostile behaviour during requests ---------------------------------------------


def test_the_stderr_tail_of_an_error_is_the_current_cases_log(make_session: Factory) -> None:
    session = make_session("--exit-on", "check_meld", "--exit-code", "3")
    session.start()
    penalty(session)  # an earlier case: its log line must not be blamed on the next one
    session.mark_stderr()
    with pytest.raises(EngineCrashed) as caught:
        session.request(
            "check_meld",
            profile="argentine",
            meld={"kind": "trio", "cards": ["8C", "8D", "8H"]},
            initial=True,
        )
    tail = caught.value.stderr_tail
    assert "exits with 3 on check_meld" in tail
    assert "got penalty" not in tail and "got hello" not in tail


def test_crash_mid_case(make_session: Factory, tag: str) -> None:
    session = make_session("--exit-on", "penalty", "--exit-code", "7")
    session.start()
    started = time.monotonic()
    with pytest.raises(EngineCrashed) as caught:
        penalty(session)
    assert time.monotonic() - started < 20  # at once: no wait for the 30 s request limit
    assert caught.value.exit_code == 7
    assert "exits with 7 on penalty" in caught.value.stderr_tail
    assert not session.alive
    assert wait_gone(tag) == []
    # A broken session refuses work until restarted, then works again.
    with pytest.raises(HarnessError):
        penalty(session)
    session.restart()
    with pytest.raises(EngineCrashed):
        penalty(session)


def test_hang_times_out(make_session: Factory, tag: str) -> None:
    session = make_session("--hang-on", "penalty", timeout=0.5)
    session.start()
    started = time.monotonic()
    with pytest.raises(EngineTimeout) as caught:
        penalty(session)
    elapsed = time.monotonic() - started
    # Never before the limit; the upper bound only catches a wait far beyond it (a loaded
    # CI machine may take seconds to schedule the harness again).
    assert 0.5 <= elapsed < 30
    assert caught.value.timeout == 0.5
    assert "fake adapter got penalty" in caught.value.stderr_tail
    assert wait_gone(tag) == []


def test_non_json_line(make_session: Factory, tag: str) -> None:
    session = make_session("--non-json-on", "penalty")
    session.start()
    with pytest.raises(ProtocolError, match="not JSON") as caught:
        penalty(session)
    assert "DEBUG: handling penalty" in str(caught.value)
    assert "fake adapter got penalty" in caught.value.stderr_tail
    assert wait_gone(tag) == []


def test_valid_json_of_the_wrong_shape(make_session: Factory, tag: str) -> None:
    session = make_session("--wrong-shape-on", "penalty")
    session.start()
    with pytest.raises(ProtocolError, match="schema") as caught:
        penalty(session)
    assert caught.value.pointer is not None
    assert "pointer" in str(caught.value)
    assert wait_gone(tag) == []


def test_wrong_id(make_session: Factory, tag: str) -> None:
    session = make_session("--wrong-id-on", "penalty")
    session.start()
    with pytest.raises(ProtocolError, match="expected 2") as caught:
        penalty(session)
    assert caught.value.pointer == "/id"
    assert wait_gone(tag) == []


def test_huge_line_is_cut_off_without_holding_it(make_session: Factory, tag: str) -> None:
    session = make_session("--huge-line-on", "penalty", "--huge-mb", "64", timeout=60.0)
    session.start()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    started = time.monotonic()
    with pytest.raises(ProtocolError, match="longer than the limit"):
        penalty(session)
    assert time.monotonic() - started < 30  # cut off as it comes: no wait for the limit
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    # Holding the 64 MB line (or its decoded copy) would grow the peak far past this.
    assert grown_kib < 32 * 1024
    assert wait_gone(tag) == []


def test_line_limit_is_configurable(make_session: Factory) -> None:
    session = make_session("--huge-line-on", "penalty", "--huge-mb", "1", max_line_bytes=4096)
    session.start()
    with pytest.raises(ProtocolError, match="4096 bytes"):
        penalty(session)


def test_stderr_flood_neither_blocks_nor_grows(make_session: Factory) -> None:
    # The 32 MB flood comes before hello: on a loaded 2-core machine pushing it
    # through the pipe can take longer than the usual 2 s start timeout.
    session = make_session("--flood-stderr-mb", "32", timeout=5.0, start_timeout=60.0)
    started = time.monotonic()
    session.start()
    assert penalty(session)["points"] == EXAMPLE_POINTS
    # A blocked drain would never let hello through; the bound only guards against that.
    assert time.monotonic() - started < 30.0
    # What the adapter wrote before its answer is in the tail at once, however late the
    # drain thread runs: taking a tail reads what the pipe already holds.
    assert session.stderr_tail().endswith("fake adapter got penalty\n")
    assert len(session.stderr_tail()) <= 4000
    assert "flood done: last words" in session.stderr_tail(limit=100_000)


def test_stdout_closed_while_running(make_session: Factory, tag: str) -> None:
    session = make_session("--close-stdout-on", "penalty", timeout=5.0)
    session.start()
    started = time.monotonic()
    with pytest.raises(ProtocolError, match="closed its stdout") as caught:
        penalty(session)
    # Noticed from the end of file, long before the 5 s timeout.
    assert time.monotonic() - started < 30  # bounded: no wait for the adapter to stop
    assert "fake adapter got penalty" in caught.value.stderr_tail
    assert wait_gone(tag) == []


def test_grandchild_dies_with_the_session(make_session: Factory, tag: str, tmp_path: Path) -> None:
    pid_file = tmp_path / "grandchild.pid"
    session = make_session("--grandchild-pid-file", str(pid_file))
    session.start()
    grandchild = int(pid_file.read_text())
    assert pid_alive(grandchild)
    assert penalty(session)["points"] == EXAMPLE_POINTS
    session.close()
    assert not pid_alive(grandchild)
    assert wait_gone(tag) == []


def test_crash_with_a_grandchild_holding_stdout(
    make_session: Factory, tag: str, tmp_path: Path
) -> None:
    # The grandchild keeps the pipe open, so no end of file arrives: the crash
    # must be noticed from the exit itself, not after the timeout.
    pid_file = tmp_path / "grandchild.pid"
    session = make_session(
        "--grandchild-pid-file", str(pid_file), "--exit-on", "penalty", timeout=5.0
    )
    session.start()
    grandchild = int(pid_file.read_text())
    started = time.monotonic()
    with pytest.raises(EngineCrashed) as caught:
        penalty(session)
    assert time.monotonic() - started < 30  # bounded: no wait for the adapter to stop
    assert caught.value.exit_code == 3
    assert not pid_alive(grandchild)
    assert wait_gone(tag) == []


def test_two_lines_for_one_request(make_session: Factory, tag: str) -> None:
    session = make_session("--two-lines-on", "penalty")
    session.start()
    assert penalty(session)["points"] == EXAMPLE_POINTS
    # Whether the extra line is seen before the next request or in front of its answer,
    # it is the same fault (no sleep needed to make it arrive first).
    with pytest.raises(ProtocolError, match="unsolicited"):
        penalty(session)
    assert wait_gone(tag) == []


def test_endless_unsolicited_lines_are_bounded(make_session: Factory, tag: str) -> None:
    session = make_session("--spam-on", "penalty")
    session.start()
    assert penalty(session)["points"] == EXAMPLE_POINTS
    time.sleep(0.3)  # the adapter writes as fast as it can meanwhile
    # Nothing is read between requests: the adapter blocks on its full pipe.
    assert session._adapter is not None and session._adapter.stdout.held_bytes <= 64 * 1024
    started = time.monotonic()
    with pytest.raises(ProtocolError, match="unsolicited"):
        penalty(session)
    assert time.monotonic() - started < 30  # bounded: no wait for the adapter to stop
    assert wait_gone(tag) == []


def test_unterminated_last_line(make_session: Factory, tag: str) -> None:
    session = make_session("--no-newline-on", "penalty")
    session.start()
    with pytest.raises(EngineCrashed, match="unterminated"):
        penalty(session)
    assert wait_gone(tag) == []


def test_sigterm_ignored_and_no_exit_after_bye(make_session: Factory, tag: str) -> None:
    session = make_session("--ignore-term", "--linger", "--hang-on", "bye")
    session.start()
    pid = session.pid
    assert pid is not None
    started = time.monotonic()
    session.close()
    # bye timeout (1 s) + exit grace + TERM grace, then SIGKILL: bounded, even when a loaded
    # machine takes seconds to schedule the harness again.
    assert time.monotonic() - started < 30
    assert not pid_alive(pid)
    assert wait_gone(tag) == []


def test_every_engine_error_carries_a_tail_attribute() -> None:
    # The runner prints e.stderr_tail for any EngineError without checking its type.
    for error in (
        EngineStartError("x"),
        HandshakeError("x"),
        VersionMismatch("x", engine_protocol=2),
        EngineCrashed("x", exit_code=1),
        EngineTimeout("x", timeout=1.0),
        ProtocolError("x"),
        EngineReportedError("internal", "x"),
    ):
        assert isinstance(error, EngineError)
        assert error.stderr_tail == ""


# --------------------------------------------------------------------------- spawn, then start


def test_a_spawned_adapter_shakes_hands_at_start_and_leaves_nothing_when_closed_unstarted() -> None:
    tag = uuid.uuid4().hex
    session = EngineSession([sys.executable, str(FAKE), "--tag", tag], timeout=10)
    session.spawn()
    assert session.handshake is None and len(wait_started(tag)) == 1
    session.spawn()  # again: still the one process
    assert len(live_tagged(tag)) == 1
    assert session.start().name and session.alive
    with pytest.raises(HarnessError, match="already started"):
        session.start()
    session.close()
    assert live_tagged(tag) == []
    # Spawned and never started: close kills it.
    other = EngineSession([sys.executable, str(FAKE), "--tag", tag], timeout=10)
    other.spawn()
    assert len(wait_started(tag)) == 1
    other.close()
    assert live_tagged(tag) == []


def test_spawning_a_missing_program_is_a_start_error() -> None:
    session = EngineSession(["/nonexistent/adapter"], timeout=5)
    with pytest.raises(EngineStartError):
        session.spawn()
    session.close()


# -- requests sent ahead (exchange's ``then``) ------------------------------------

TRIO = {"kind": "trio", "cards": ["8C", "8D", "JK"]}
PENALTY = ("penalty", {"profile": "argentine", "cards": EXAMPLE_CARDS})
CHECK_MELD = ("check_meld", {"profile": "argentine", "meld": TRIO, "initial": True})


def test_a_request_sent_ahead_is_answered_in_its_turn(make_session: Factory) -> None:
    session = make_session()
    session.start()
    first = session.exchange(PENALTY, then=CHECK_MELD)
    assert (first["id"], first["points"]) == (2, EXAMPLE_POINTS)
    assert session.in_flight
    second = session.exchange(None, then=PENALTY)
    assert (second["id"], second["valid"]) == (3, True)
    third = session.exchange(None)
    assert third["id"] == 4 and not session.in_flight
    assert penalty(session)["id"] == 5


def test_checked_requests_are_sent_with_their_own_ids(make_session: Factory) -> None:
    """A request checked and encoded once (protocol.CheckedRequest) is written with the id
    of its turn, sent at once or ahead, and answered as the same request unchecked."""
    session = make_session("--max-in-flight", "2")
    session.start()
    checked_penalty, checked_meld = checked_request(*PENALTY), checked_request(*CHECK_MELD)
    assert type(checked_penalty) is type(checked_meld) is CheckedRequest
    first = session.exchange(checked_penalty, then=[checked_meld, checked_penalty])
    assert (first["id"], first["points"]) == (2, EXAMPLE_POINTS)
    assert session.in_flight == 2
    assert session.exchange(None)["id"] == 3
    assert session.exchange(None)["points"] == EXAMPLE_POINTS
    assert session.exchange(checked_penalty)["id"] == 5


def test_exchange_refuses_to_lose_track_of_a_request(make_session: Factory) -> None:
    session = make_session()
    session.start()
    with pytest.raises(HarnessError, match="no request was sent ahead"):
        session.exchange(None)
    session.exchange(PENALTY, then=CHECK_MELD)
    with pytest.raises(HarnessError, match="still unanswered"):
        penalty(session)
    # Neither refusal sent anything: the answer in flight is still the next one.
    assert session.exchange(None)["valid"] is True


def test_an_error_answer_leaves_the_request_sent_ahead_in_flight(make_session: Factory) -> None:
    session = make_session("--error-on", "penalty")
    session.start()
    with pytest.raises(EngineReportedError):
        session.exchange(PENALTY, then=CHECK_MELD)
    assert session.in_flight and session.alive
    assert session.exchange(None)["valid"] is True


def test_discard_drops_the_answer_sent_ahead(make_session: Factory) -> None:
    session = make_session()
    session.start()
    session.exchange(PENALTY, then=CHECK_MELD)
    session.discard()
    assert not session.in_flight
    session.discard()  # nothing in flight: nothing to do
    assert penalty(session)["id"] == 4


def test_an_invalid_request_is_not_sent_ahead(make_session: Factory) -> None:
    session = make_session()
    session.start()
    bad = ("penalty", {"profile": "argentine", "cards": ["1S"]})
    assert session.exchange(PENALTY, then=bad)["points"] == EXAMPLE_POINTS
    assert not session.in_flight
    # It fails in its own turn, as a plain request does, and nothing was sent.
    with pytest.raises(InvalidRequest):
        session.exchange(bad)
    assert penalty(session)["id"] == 3


def test_an_unsolicited_line_is_caught_whether_or_not_the_next_request_went_ahead(
    make_session: Factory, tag: str
) -> None:
    session = make_session("--two-lines-on", "penalty")
    session.start()
    assert session.exchange(PENALTY, then=CHECK_MELD)["points"] == EXAMPLE_POINTS
    # The extra line may or may not have arrived when the answer was read: either way
    # the next exchange meets it as the same fault.
    with pytest.raises(ProtocolError, match="unsolicited"):
        session.exchange(None if session.in_flight else CHECK_MELD)
    assert not session.alive
    assert wait_gone(tag) == []


def test_a_hang_on_the_request_sent_ahead_times_out_when_it_is_read(
    make_session: Factory, tag: str
) -> None:
    session = make_session("--hang-on", "check_meld", timeout=1.0)
    session.start()
    assert session.exchange(PENALTY, then=CHECK_MELD)["points"] == EXAMPLE_POINTS
    with pytest.raises(EngineTimeout):
        session.discard()
    assert not session.alive and not session.in_flight
    assert wait_gone(tag) == []


def test_close_with_a_request_in_flight_leaves_nothing(make_session: Factory, tag: str) -> None:
    session = make_session("--hang-on", "check_meld", timeout=1.0)
    session.start()
    session.exchange(PENALTY, then=CHECK_MELD)
    session.close()
    assert not session.in_flight
    assert wait_gone(tag) == []


def test_the_next_cases_request_sent_ahead_opens_its_own_stderr_section(
    make_session: Factory,
) -> None:
    from conformance.adapter.engine import Ahead

    session = make_session("--error-on", "penalty")
    session.start()
    session.mark_stderr()
    with pytest.raises(EngineReportedError) as caught:
        session.exchange(PENALTY, then=Ahead(CHECK_MELD, opens_section=True))
    # The failing case's log stops where the next case's request went out, whatever the
    # adapter has written for that request since.
    assert "fake adapter got penalty" in caught.value.stderr_tail
    assert "check_meld" not in caught.value.stderr_tail
    session.mark_stderr()  # the next case begins: its section starts at its request
    assert session.exchange(None)["valid"] is True
    tail = session.stderr_tail()
    assert "fake adapter got check_meld" in tail and "penalty" not in tail


def test_a_request_sent_ahead_keeps_its_own_time_limit(make_session: Factory, tag: str) -> None:
    from conformance.adapter.engine import Ahead

    # The adapter sleeps 0.3 s before every answer: the session's 2 s limit lets the first
    # through, the 0.1 s the request sent ahead carries cannot.
    session = make_session("--slow", "0.3", timeout=30.0)
    session.start()
    assert session.exchange(PENALTY, then=Ahead(CHECK_MELD, timeout=0.1))["id"] == 2
    with pytest.raises(EngineTimeout, match="check_meld"):
        session.exchange(None)
    assert wait_gone(tag) == []


# -- two requests in flight -------------------------------------------------------------


def test_two_requests_sent_ahead_are_answered_in_their_turns(make_session: Factory) -> None:
    session = make_session("--max-in-flight", "2")
    session.start()
    first = session.exchange(PENALTY, then=[CHECK_MELD, PENALTY])
    assert first["id"] == 2 and session.in_flight == 2
    second = session.exchange(None, then=[CHECK_MELD])  # one answered, one more goes
    assert (second["id"], second["valid"]) == (3, True)
    assert session.in_flight == 2
    assert session.exchange(None)["points"] == EXAMPLE_POINTS
    assert session.exchange(None)["id"] == 5
    assert not session.in_flight
    assert penalty(session)["id"] == 6


@pytest.mark.parametrize(("declared", "limit"), [(None, 1), (1, 1), (2, 2), (50, 2)])
def test_requests_in_flight_are_as_many_as_the_engine_takes_and_at_most_two(
    make_session: Factory, declared: int | None, limit: int
) -> None:
    # An engine that declares nothing is sent one request at a time, as protocol 1 began:
    # one that reads a chunk of stdin as one request must not break.
    flags = () if declared is None else ("--max-in-flight", str(declared))
    session = make_session(*flags)
    session.start()
    assert session.ahead_limit == limit
    with pytest.raises(HarnessError, match=f"at most {limit} request"):
        session.exchange(PENALTY, then=[CHECK_MELD] * (limit + 1))
    session.exchange(PENALTY, then=[CHECK_MELD] * limit)
    assert session.in_flight == limit
    with pytest.raises(HarnessError, match=f"at most {limit} request"):
        session.exchange(None, then=[PENALTY, PENALTY])  # one answer read frees one place
    # Neither refusal sent or read anything: the answers in flight come in their turn.
    for request_id in range(3, 3 + limit):
        assert session.exchange(None)["id"] == request_id
    assert not session.in_flight


def test_the_next_cases_first_request_never_goes_behind_another(make_session: Factory) -> None:
    from conformance.adapter.engine import Ahead

    # Its stderr section starts where it is sent: with another request still in flight,
    # that one's log would land in the next case's section.
    session = make_session("--max-in-flight", "2")
    session.start()
    session.exchange(PENALTY, then=[CHECK_MELD, Ahead(PENALTY, opens_section=True)])
    assert session.in_flight == 1
    assert session.exchange(None)["valid"] is True
    # Behind nothing, it goes, and a request of its own case may follow it.
    session.exchange(PENALTY, then=[Ahead(CHECK_MELD, opens_section=True), PENALTY])
    assert session.in_flight == 2
    session.discard()
    assert not session.in_flight and penalty(session)["id"] == 7


def test_discard_drops_every_answer_sent_ahead(make_session: Factory) -> None:
    session = make_session("--error-on", "check_meld", "--max-in-flight", "2")
    session.start()
    session.exchange(PENALTY, then=[CHECK_MELD, PENALTY])
    session.discard()  # an error answer among them is dropped too
    assert not session.in_flight and session.alive
    assert penalty(session)["id"] == 5


def test_a_hang_on_the_second_request_in_flight_times_out_when_it_is_read(
    make_session: Factory, tag: str
) -> None:
    session = make_session("--hang-on", "check_meld", "--max-in-flight", "2", timeout=1.0)
    session.start()
    session.exchange(PENALTY, then=[PENALTY, CHECK_MELD])
    assert session.exchange(None)["points"] == EXAMPLE_POINTS
    with pytest.raises(EngineTimeout, match="check_meld"):
        session.exchange(None)
    assert not session.alive and not session.in_flight
    assert wait_gone(tag) == []


def test_a_request_written_behind_another_has_its_time_from_the_answer_before_it() -> None:
    from conformance.adapter.engine import _InFlight, _Sent

    # The adapter starts on it only once it has answered the one before: its whole time
    # limit runs from that answer, so a slow but honest engine is not cut short by it.
    flight = _InFlight()
    flight.queue.append(_Sent("act", 2, deadline=105.0, timeout=5.0))
    flight.queue.append(_Sent("act", 3, deadline=106.0, timeout=5.0, behind=True))
    flight.answered_at = 103.0  # nothing to re-time on the first: it was sent alone
    assert flight.next().deadline == 105.0
    flight.answered_at = 104.5  # the answer to the first was read then
    assert flight.next().deadline == 109.5
    # Never less than it was given when written.
    flight.queue.append(_Sent("act", 4, deadline=120.0, timeout=5.0, behind=True))
    assert flight.next().deadline == 120.0
