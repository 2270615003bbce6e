"""EngineSession.while_waiting: the harness's own work done while an answer is awaited.

The adapter here answers only when the test opens its gate (a byte into a named pipe,
tests/fake_adapters/gated_proxy.py), so whether an answer is in when the harness looks for
it is decided by the test, never by timing.
"""

from __future__ import annotations

import os
import select
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from conformance.adapter.engine import EngineSession
from conformance.adapter.process import AdapterProcess

GATED = Path(__file__).resolve().parents[1] / "fake_adapters" / "gated_proxy.py"
MELD = {"kind": "trio", "cards": ["9S", "9H", "9D"]}
CHECK = ("check_meld", {"profile": "argentine", "meld": MELD, "initial": True})


@pytest.fixture
def gated(tmp_path: Path) -> Iterator[tuple[EngineSession, int]]:
    fifo = tmp_path / "gate"
    os.mkfifo(fifo)
    gate = os.open(fifo, os.O_RDWR)  # read-write: neither side blocks opening it
    session = EngineSession([sys.executable, str(GATED), str(fifo)], timeout=60)
    session.start()
    try:
        yield session, gate
    finally:
        session.close()
        os.close(gate)


def answer_in(session: EngineSession) -> None:
    """Wait (on the pipe, not the clock) until the adapter's next answer is in."""
    adapter = session._adapter
    assert adapter is not None
    while not adapter.stdout.ready():
        select.select([adapter.proc.stdout], [], [], 60)


def test_work_is_done_while_the_answer_is_not_in(gated: tuple[EngineSession, int]) -> None:
    session, gate = gated
    done: list[str] = []

    def work() -> None:
        done.append("work")
        os.write(gate, b"g")  # only now may the adapter answer: the work ran first

    session.while_waiting(work)
    assert "valid" in session.exchange(CHECK)
    assert done == ["work"]
    os.write(gate, b"g")
    session.exchange(CHECK)
    assert done == ["work"]  # once only


def test_work_waits_while_answers_are_in(gated: tuple[EngineSession, int]) -> None:
    session, gate = gated
    done: list[int] = []
    os.write(gate, b"gg")
    session.exchange(CHECK, then=CHECK)  # the second goes ahead and is answered at once
    answer_in(session)
    session.while_waiting(lambda: done.append(1))
    session.exchange(None)
    assert done == []  # the answer was in: nothing to wait for, so no work yet
    session.while_waiting(lambda: os.write(gate, b"g") and None)
    session.exchange(CHECK)
    assert done == [1]  # the first wait did the work queued first, then the second


def test_the_same_work_queued_twice_is_done_once(gated: tuple[EngineSession, int]) -> None:
    session, gate = gated

    class Work:
        runs = 0

        def __call__(self) -> None:
            self.runs += 1
            os.write(gate, b"g")

    work = Work()
    session.while_waiting(work)
    session.while_waiting(work)
    session.exchange(CHECK)
    assert work.runs == 1


def test_work_not_done_by_the_end_of_a_session_is_dropped(
    gated: tuple[EngineSession, int],
) -> None:
    session, gate = gated
    done: list[int] = []
    session.while_waiting(lambda: done.append(1))
    session.close()
    session.start()
    os.write(gate, b"g")
    assert "valid" in session.exchange(CHECK)
    assert done == []


def test_an_answer_in_the_pipe_is_taken_even_past_the_deadline() -> None:
    # The harness late to look (its own work, a loaded machine) does not make the engine late.
    adapter = AdapterProcess(
        [sys.executable, "-c", "print('{\"id\":1}', flush=True); import sys; sys.stdin.read()"],
        max_line_bytes=1 << 20,
        memory_limit=None,
    )
    try:
        while not adapter.stdout.ready():
            select.select([adapter.proc.stdout], [], [], 60)
        line = adapter.read_line("check_meld", 1, time.monotonic() - 1.0, 1.0)
        assert line == b'{"id":1}'
    finally:
        adapter.shutdown(graceful=False)
