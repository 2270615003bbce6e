"""Adapters die with the harness even when it is killed with SIGKILL.

A harness subprocess starts an adapter that leaves a grandchild in its group, another
that leaves a ``setsid`` daemon, and lingers after its stdin closes; the test SIGKILLs
the harness and polls (a generous deadline, no sleeping as synchronisation) until every
one of them is gone. Without the watchdog (conformance/adapter/watchdog.py) they all survive.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from conformance.adapter import watchdog
from conformance.adapter.engine import EngineSession
from tests.paths import ROOT

FAKES = ROOT / "tests" / "fake_adapters"
#: Bound on any wait; reached only when something is broken.
PATIENCE = 60.0

HARNESS = """
import sys
from conformance.adapter.engine import EngineSession
from conformance.adapter.watchdog import watchdog_pid

fake, proxy, grandchild_file, daemon_file = sys.argv[1:5]
grouped = EngineSession(
    [sys.executable, fake, "--grandchild-pid-file", grandchild_file, "--linger", "--ignore-term"]
)
grouped.start()
escaping = EngineSession([sys.executable, proxy, "--daemon-pid-file", daemon_file])
escaping.start()
print(grouped.pid, escaping.pid, watchdog_pid(), flush=True)
if sys.argv[5] == "close":
    grouped.close()
    escaping.close()
    print("closed", flush=True)
sys.stdin.read()  # until killed
"""


def _gone(pid: int) -> bool:
    """True once ``pid`` is no more (a zombie is no more: reaped here if it is ours)."""
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return True
    return stat[stat.rfind(b")") + 2 :][:1] == b"Z"


def _wait_for(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + PATIENCE
    while not condition():
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.05)


def _line(proc: subprocess.Popen[bytes]) -> bytes:
    """The harness's next line of output, within PATIENCE."""
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], PATIENCE)
    assert ready, "the harness said nothing"
    return proc.stdout.readline()


def _start_harness(tmp_path: Path, mode: str) -> tuple[subprocess.Popen[bytes], list[int]]:
    """The harness subprocess and the pids of its two adapters, their grandchild and
    daemon, and its watchdog."""
    grandchild_file, daemon_file = tmp_path / "grandchild.pid", tmp_path / "daemon.pid"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            HARNESS,
            str(FAKES / "fake_adapter.py"),
            str(FAKES / "signal_proxy.py"),
            str(grandchild_file),
            str(daemon_file),
            mode,
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT), "CARIOCA_TEST_TAG": uuid.uuid4().hex},
    )
    try:
        grouped, escaping, dog = (int(word) for word in _line(proc).split())
        pids = [grouped, escaping, int(grandchild_file.read_text()), int(daemon_file.read_text())]
    except BaseException:
        proc.kill()  # its watchdog, if it has one, then takes its adapters
        proc.wait()
        for left in (grandchild_file, daemon_file):  # and if it has none
            with contextlib.suppress(OSError, ValueError):
                os.kill(int(left.read_text()), signal.SIGKILL)
        raise
    return proc, [*pids, dog]


def _kill_all(pids: list[int]) -> None:
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def test_sigkill_of_the_harness_takes_its_adapters_grandchildren_and_daemons(
    tmp_path: Path,
) -> None:
    proc, pids = _start_harness(tmp_path, "keep")
    try:
        assert not any(_gone(pid) for pid in pids)
        proc.kill()  # SIGKILL: no handler, no cleanup of its own
        proc.wait(timeout=PATIENCE)
        _wait_for(lambda: all(_gone(pid) for pid in pids), "every adapter process to die")
    finally:
        _kill_all(pids)
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_harness_that_closed_its_sessions_leaves_nothing_to_kill(tmp_path: Path) -> None:
    """Shut-down groups are unregistered: the watchdog has nothing left to signal, and
    it goes when the harness goes."""
    proc, pids = _start_harness(tmp_path, "close")
    try:
        assert _line(proc).strip() == b"closed"
        *adapters, dog = pids
        _wait_for(lambda: all(_gone(pid) for pid in adapters), "the closed sessions to end")
        assert not _gone(dog)
        proc.kill()
        proc.wait(timeout=PATIENCE)
        _wait_for(lambda: _gone(dog), "the watchdog to exit")
    finally:
        _kill_all(pids)
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_watchdog_that_died_is_replaced_and_told_every_live_adapter(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(watchdog, "_starts", 0)
    session = EngineSession([sys.executable, str(FAKES / "fake_adapter.py")])
    try:
        session.start()
        first = watchdog.watchdog_pid()
        assert first is not None
        os.kill(first, signal.SIGKILL)
        _wait_for(lambda: _gone(first), "the watchdog to die")
        other = EngineSession([sys.executable, str(FAKES / "fake_adapter.py")])
        try:
            other.start()
            second = watchdog.watchdog_pid()
            assert second is not None and second != first
            assert watchdog._watched.keys() >= {session.pid, other.pid}
        finally:
            other.close()
    finally:
        session.close()
    assert session.pid is None


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the subreaper is Linux's")
def test_the_reaper_never_kills_the_watchdog_as_an_orphan() -> None:
    """As a subreaper the harness kills children that are not adapters; the watchdog is
    its child too, and must survive every session's end."""
    session = EngineSession([sys.executable, str(FAKES / "fake_adapter.py")])
    try:
        session.start()
        dog = watchdog.watchdog_pid()
        assert dog is not None
    finally:
        session.close()
    from conformance.adapter.reaper import kill_escaped

    kill_escaped(None)
    assert not _gone(dog)


def test_the_watchdog_program_reads_registrations_and_knows_the_token_variable() -> None:
    from conformance.adapter import _watchdog_child as child
    from conformance.adapter.reaper import SESSION_VARIABLE

    assert SESSION_VARIABLE.encode() == child.SESSION_VARIABLE
    lines = [b"+ 10 aa\n", b"+ 11 bb\n", b"- 10\n", b"garbage\n", b"+ x y\n", b"\n", b"- 99\n"]
    assert child.read_registrations(lines) == {11: b"bb"}


def test_the_watchdog_carries_none_of_the_harness_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Tests find an adapter's processes by a tag in their environment; the watchdog,
    started by whichever session comes first, must never be one of them."""
    monkeypatch.setenv("CARIOCA_TEST_TAG", "watchdog-environment")
    monkeypatch.setattr(watchdog, "_starts", 0)  # this restart is not one that failed
    with watchdog._lock:
        watchdog._restart()
    dog = watchdog.watchdog_pid()
    assert dog is not None
    environ = Path(f"/proc/{dog}/environ").read_bytes().split(b"\0")
    assert b"CARIOCA_TEST_TAG=watchdog-environment" not in environ
    assert not [item for item in environ if item.startswith(b"CARIOCA_")]
