"""conformance/adapter/pipes.py and the adapter's liveness check (adapter_process.py): what
the harness looks at between an answer and the request it sends ahead."""

from __future__ import annotations

import os
import sys

from conformance.adapter.pipes import EOF, READ_CHUNK, StdoutLines, Unterminated
from conformance.adapter.process import AdapterProcess


def _pipe() -> tuple[StdoutLines, int]:
    read_end, write_end = os.pipe()
    return StdoutLines(read_end, max_line_bytes=1 << 20), write_end


def test_a_line_read_alone_leaves_the_adapter_quiet() -> None:
    lines, writer = _pipe()
    os.write(writer, b'{"id":1}\n')
    assert lines.next(5.0) == b'{"id":1}'
    assert lines.quiet()
    os.close(writer)


def test_a_second_line_in_the_same_read_is_not_quiet_and_stays_queued() -> None:
    lines, writer = _pipe()
    os.write(writer, b'{"id":1}\n{"id":1}\n')
    assert lines.next(5.0) == b'{"id":1}'
    assert not lines.quiet()
    assert lines.next(0) == b'{"id":1}'
    os.close(writer)


def test_a_line_written_after_a_look_that_found_the_pipe_full_is_seen() -> None:
    # A read of a whole chunk does not prove the pipe empty: quiet looks again.
    lines, writer = _pipe()
    os.set_blocking(writer, False)
    os.write(writer, b"x" * (READ_CHUNK - 1) + b"\n")
    assert lines.next(5.0) == b"x" * (READ_CHUNK - 1)
    os.write(writer, b"chatter\n")
    assert not lines.quiet()
    assert lines.next(0) == b"chatter"
    os.close(writer)


def test_a_line_after_the_quiet_look_was_used_is_seen_by_the_next_one() -> None:
    lines, writer = _pipe()
    os.write(writer, b'{"id":1}\n')
    assert lines.next(5.0) == b'{"id":1}'
    assert lines.quiet()
    os.write(writer, b"chatter\n")
    # The first look used what the read showed; any later one polls the pipe.
    assert not lines.quiet()
    os.close(writer)


def test_end_of_file_is_never_quiet() -> None:
    lines, writer = _pipe()
    os.write(writer, b'{"id":1}\n')
    os.close(writer)
    assert lines.next(5.0) == b'{"id":1}'
    assert lines.next(5.0) is not None  # EOF
    assert not lines.quiet()


def test_running_looks_without_reaping() -> None:
    adapter = AdapterProcess(
        [sys.executable, "-c", "import sys; sys.stdin.readline()"], max_line_bytes=1024
    )
    try:
        assert adapter.running() and adapter.poll() is None
        assert adapter.proc.stdin is not None
        adapter.proc.stdin.write(b"\n")
        adapter.proc.stdin.flush()
        adapter.proc.wait(timeout=30)  # reaps: running() must say so after it too
        assert not adapter.running()
    finally:
        adapter.shutdown(graceful=True)


def test_running_leaves_the_exit_code_to_poll() -> None:
    adapter = AdapterProcess(
        [sys.executable, "-c", "import sys; sys.stdin.readline(); sys.exit(3)"],
        max_line_bytes=1024,
    )
    try:
        assert adapter.proc.stdin is not None
        adapter.proc.stdin.write(b"\n")
        adapter.proc.stdin.flush()
        # Wait for the exit without reaping it, then look: the code is still Popen's to read.
        os.waitid(os.P_PID, adapter.pid, os.WEXITED | os.WNOWAIT)
        assert not adapter.running()
        assert adapter.poll() == 3
    finally:
        adapter.shutdown(graceful=True)


def test_ready_tells_a_whole_line_from_part_of_one_and_keeps_what_it_read() -> None:
    lines, writer = _pipe()
    assert not lines.ready()  # nothing said yet
    os.write(writer, b'{"id":')
    assert not lines.ready()  # half a line is not an answer
    os.write(writer, b"1}\n")
    assert lines.ready()
    assert lines.ready()  # looking again reads nothing more and loses nothing
    assert lines.next(0) == b'{"id":1}'
    assert not lines.ready()
    os.close(writer)


def test_end_of_file_is_ready_to_be_handed_out() -> None:
    lines, writer = _pipe()
    os.write(writer, b"cut sh")
    os.close(writer)
    assert lines.ready()
    first, second = lines.next(0), lines.next(0)
    assert isinstance(first, Unterminated) and first.data == b"cut sh"
    assert isinstance(second, EOF)
