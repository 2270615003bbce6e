"""Writing files (conformance/io/files.py): a device or FIFO named as an output is written
through or refused, never renamed over; an output never replaces one of its inputs."""

from __future__ import annotations

import os
import stat
import threading
import time
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.io.files import NotARegularFile, atomic_write_text, same_file
from conformance.reports.outputs import OutputPathError, check_output_paths

ROOT_ONLY = pytest.mark.skipif(os.geteuid() != 0, reason="a rename over /dev needs root")


def test_a_character_device_is_written_through_not_replaced() -> None:
    before = os.stat("/dev/null")
    atomic_write_text("/dev/null", "a report\n")
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and after.st_rdev == before.st_rdev


@ROOT_ONLY
def test_dev_full_as_an_output_is_a_write_error_and_stays_a_device() -> None:
    """As root a rename over /dev/full replaced the device node by a regular file."""
    with pytest.raises(OSError, match="No space left"):
        atomic_write_text("/dev/full", "a report\n")
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


@ROOT_ONLY
def test_run_json_to_dev_full_names_the_failure_and_keeps_the_device(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["run", "--rule", "SCORE-1", "--json", "/dev/full", "-q"])
    assert code == 2
    assert "could not write --json /dev/full" in capsys.readouterr().err
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


def test_a_fifo_being_read_is_written_through(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader_open = threading.Event()

    def read() -> None:
        # Non-blocking, so the reader is open before the writer looks for one. Until the
        # writer opens, a read finds no writer and says end of file: keep waiting for data;
        # after data, end of file means the writer closed (a loaded machine may run the
        # reader long before the writer).
        fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
        reader_open.set()
        data = b""
        deadline = time.monotonic() + 30
        try:
            while time.monotonic() < deadline:
                try:
                    chunk = os.read(fd, 65536)
                except BlockingIOError:
                    chunk = None
                if chunk:
                    data += chunk
                elif chunk == b"" and data:
                    break
                else:
                    time.sleep(0.01)
        finally:
            os.close(fd)
        got.append(data)

    reader = threading.Thread(target=read)
    reader.start()
    assert reader_open.wait(30)
    atomic_write_text(fifo, ["one ", "report\n"])
    reader.join(30)
    assert got == [b"one report\n"]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_a_fifo_nothing_reads_is_refused_not_waited_on(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(NotARegularFile, match="FIFO that nothing reads"):
        atomic_write_text(fifo, "x\n")
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_a_socket_is_refused_by_the_check_and_by_the_writer(tmp_path: Path) -> None:
    import socket

    path = tmp_path / "s.sock"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        with pytest.raises(OutputPathError, match="is a socket"):
            check_output_paths([("--json", str(path))])
        with pytest.raises(NotARegularFile, match="is a socket"):
            atomic_write_text(path, "x")


def test_same_file_sees_links_and_spellings(tmp_path: Path) -> None:
    real = tmp_path / "e.yaml"
    real.write_text("x")
    (tmp_path / "link.yaml").symlink_to(real)
    os.link(real, tmp_path / "hard.yaml")
    assert same_file(real, tmp_path / "link.yaml")
    assert same_file(real, tmp_path / "hard.yaml")
    assert same_file(real, tmp_path / "." / "e.yaml")
    assert not same_file(real, tmp_path / "other.yaml")


# -- no output names an input ------------------------------------------------------------


EXPECTATIONS = "expected_failures:\n  cc-0001: {reason: 'our reading, filled in by hand'}\n"


@pytest.mark.parametrize("option", ["--json", "--html", "--junit"])
def test_run_refuses_a_report_over_its_expectations_file(
    tmp_path: Path, option: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--json exp.yaml`` over ``--expectations exp.yaml`` replaced the user's file."""
    exp = tmp_path / "exp.yaml"
    exp.write_text(EXPECTATIONS)
    argv = ["run", "--rule", "SCORE-1", "--expectations", str(exp), option, str(exp)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"{option} {exp}: is the --expectations input" in err
    assert exp.read_text() == EXPECTATIONS


def test_run_may_rewrite_its_expectations_file_in_place(tmp_path: Path) -> None:
    exp = tmp_path / "exp.yaml"
    exp.write_text("expected_failures: {}\n")
    argv = ["run", "--rule", "SCORE-1", "-q", "--expectations", str(exp)]
    assert main([*argv, "--write-expectations", str(exp)]) == 0


def test_report_refuses_a_page_over_the_report_it_reads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "a.json"
    assert main(["run", "--rule", "SCORE-1", "-q", "--json", str(report)]) == 0
    before = report.read_bytes()
    capsys.readouterr()
    assert main(["report", str(report), "--html", str(report)]) == 2
    assert "--html" in capsys.readouterr().err
    assert main(["report", "merge", str(report), "-o", str(tmp_path / "." / "a.json")]) == 2
    assert "-o" in capsys.readouterr().err
    assert report.read_bytes() == before
