"""The worker pool and stopping (conformance/fuzz/pool.py, campaign.py): the same seed
gives the same findings with any number of workers; a stop keeps the games played."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import jsonschema
import pytest

from conformance import fuzz
from tests.conformance.fuzzkit import (
    CATALOGUE,
    REFERENCE,
    ROOT,
    SCHEMA,
    options,
    run_fuzz,
    summary_of,
)
from tests.mutants import harness


def test_the_same_seed_gives_the_same_findings_with_any_number_of_workers() -> None:
    argv = harness.mutant_argv("draw_twice")
    games = {"games": 4, "only_games": (0, 3), "shrink": False}
    one = run_fuzz(argv, **games)
    again = run_fuzz(argv, **games)
    two = run_fuzz(argv, **games, workers=2)
    assert summary_of(one) == summary_of(again) == summary_of(two)
    assert one.findings


def test_a_stopped_campaign_keeps_the_games_played() -> None:
    stop = threading.Event()

    def progress(done: int, total: int, steps: int, found: int) -> None:
        if done == 2:
            stop.set()

    harness.make_root_importable()
    campaign = options(games=50, max_steps=10)
    result = fuzz.fuzz(REFERENCE, campaign, CATALOGUE, progress=progress, stop=stop)
    assert result.games_played == 2
    assert result.interrupted == "stopped"
    jsonschema.validate(fuzz.report_dict(result), SCHEMA)


def test_ctrl_c_writes_the_report_of_the_games_played(tmp_path: Path) -> None:
    # Event-driven: the signal is sent once the first progress line has been read.
    proc = subprocess.Popen(
        [sys.executable, "-m", "conformance", "fuzz", "--games", "1000", "--max-steps", "5",
         "--out", str(tmp_path)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
        env=harness.child_env(),
    )  # fmt: skip
    assert proc.stderr is not None
    first = proc.stderr.readline()
    assert first.startswith("fuzz: 100/1000 games"), first
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    report = json.loads((tmp_path / "fuzz-report.json").read_text())
    assert report["interrupted"] == "SIGINT"
    assert 100 <= report["totals"]["games"] < 1000
    assert "interrupted by SIGINT" in out


def _wait_for(condition: Callable[[], bool], what: str, within: float = 120.0) -> None:
    """Poll ``condition()`` (an observable event: a file, a process gone) until true."""
    deadline = time.monotonic() + within
    while not condition():
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.05)


def _processes_mentioning(text: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if text in (entry / "cmdline").read_bytes().decode(errors="replace"):
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc to find the adapters")
@pytest.mark.parametrize(
    ("sig", "group", "code"),
    [(signal.SIGINT, True, 130), (signal.SIGTERM, False, 143)],
    ids=["ctrl-c-to-the-group", "sigterm-to-the-harness"],
)
def test_a_signal_with_workers_and_a_hung_adapter_ends_the_campaign_cleanly(
    tmp_path: Path, sig: signal.Signals, group: bool, code: int
) -> None:
    # Ctrl-C or SIGTERM during `fuzz --workers 2` must not hang: one worker's adapter writes
    # a marker on its 30th request and never answers (the adapter timeout is far away); the
    # test then signals the harness, as a terminal's Ctrl-C (the whole process group) or CI's
    # SIGTERM (the harness) would.
    marker, out = tmp_path / "marker", tmp_path / "out"
    adapter = f"{sys.executable} {ROOT / 'tests' / 'fake_adapters' / 'signal_proxy.py'}"
    adapter += f" --marker {marker} --after 30"
    proc = subprocess.Popen(
        [sys.executable, "-m", "conformance", "fuzz", "--adapter", adapter, "--workers", "2",
         "--games", "40", "--max-steps", "40", "--timeout", "600", "--out", str(out)],
        stdout=(tmp_path / "stdout").open("wb"), stderr=(tmp_path / "stderr").open("wb"),
        cwd=ROOT, env=harness.child_env(), start_new_session=True,
    )  # fmt: skip
    try:
        _wait_for(lambda: marker.exists() or proc.poll() is not None, "the adapter's marker")
        assert proc.poll() is None, (tmp_path / "stderr").read_text()
        if group:
            os.killpg(proc.pid, sig)
        else:
            proc.send_signal(sig)
        assert proc.wait(timeout=120) == code, (tmp_path / "stderr").read_text()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    err = (tmp_path / "stderr").read_text()
    assert "Traceback" not in err and "resource_tracker" not in err, err
    report = json.loads((out / "fuzz-report.json").read_text())
    jsonschema.validate(report, SCHEMA)
    assert report["interrupted"] == sig.name
    _wait_for(lambda: not _processes_mentioning(str(marker)), "the adapters to be gone")
