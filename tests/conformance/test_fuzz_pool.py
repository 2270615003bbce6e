"""The worker pool and stopping (conformance/fuzz/pool.py, campaign.py): the same seed
gives the same findings with any number of workers; a stop keeps the games played."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
from pathlib import Path

import jsonschema

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
