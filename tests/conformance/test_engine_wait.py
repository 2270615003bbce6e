"""Waiting for an adapter's exit (conformance.adapter.process.wait_exit)."""

from __future__ import annotations

import subprocess
import sys

from conformance.adapter.process import wait_exit as _wait_exit


def test_returns_the_exit_code_once_the_process_has_exited() -> None:
    proc = subprocess.Popen([sys.executable, "-c", "raise SystemExit(3)"])
    assert _wait_exit(proc, 60.0) == 3
    assert proc.returncode == 3
    # Already reaped: answered from the Popen, without a new pidfd.
    assert _wait_exit(proc, 60.0) == 3


def test_returns_none_while_the_process_is_still_running() -> None:
    # The child blocks reading stdin until it is closed: it cannot exit on its own.
    proc = subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE
    )
    try:
        assert _wait_exit(proc, 0.05) is None
        assert proc.returncode is None
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
    assert _wait_exit(proc, 60.0) == 0
