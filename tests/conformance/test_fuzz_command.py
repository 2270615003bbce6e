"""The fuzz command as a library call (conformance/fuzz/command.py): files and exit codes.

An adapter that cannot start still gets its report (exit 3); a campaign that compares
nothing (an engine answering ``unsupported`` to everything) is not a pass (exit 4, with
one line saying why).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import jsonschema
import pytest

from conformance import fuzz
from conformance.fuzz import command
from tests.conformance.fuzzkit import CATALOGUE, ROOT, SCHEMA, cli

#: An engine that answers is all these tests need: the reference answers in-process
#: (tests/adapters.py); the tests of what its process does run it as a process.
pytestmark = pytest.mark.usefixtures("reference_in_process")

FAKES = ROOT / "tests" / "fake_adapters"
UNSUPPORTED = f"{sys.executable} {FAKES / 'unsupported_adapter.py'}"


def test_an_engine_answering_unsupported_to_everything_is_not_a_pass(tmp_path: Path) -> None:
    done = cli("--adapter", UNSUPPORTED, "--games", "2", "--out", str(tmp_path))
    assert done.returncode == command.EXIT_UNGRADED, done.stderr
    (line,) = [x for x in done.stderr.splitlines() if "graded nothing" in x]
    assert "unsupported" in line and "exit 4" in line
    report = json.loads((tmp_path / "fuzz-report.json").read_text())
    jsonschema.validate(report, SCHEMA)
    assert report["totals"]["compared"] == 0 and report["findings"] == []
    assert "load_state" in report["unsupported_ops"]


def test_an_adapter_that_cannot_start_still_gets_its_report(tmp_path: Path) -> None:
    adapter = f"{sys.executable} {FAKES / 'fake_adapter.py'} --protocol 99"
    done = cli("--adapter", adapter, "--games", "2", "--out", str(tmp_path),
               "--json", str(tmp_path / "copy.json"))  # fmt: skip
    assert done.returncode == command.EXIT_ADAPTER, done.stderr
    assert "an adapter could not start" in done.stderr and "Traceback" not in done.stderr
    report = json.loads((tmp_path / "fuzz-report.json").read_text())
    jsonschema.validate(report, SCHEMA)
    assert report["engine"] is None and "protocol" in report["adapter_error"]
    assert report == json.loads((tmp_path / "copy.json").read_text())


def test_the_library_call_returns_what_the_command_line_prints(tmp_path: Path) -> None:
    options = fuzz.FuzzOptions(games=1, max_steps=10, shrink=False)
    argv = [sys.executable, "-m", "reference.adapter"]
    outcome = command.campaign(argv, options, CATALOGUE, tmp_path, handle_signals=False)
    assert outcome.exit_code == command.EXIT_OK and outcome.problem is None
    assert outcome.report["totals"]["compared"] > 0
    assert outcome.text.endswith(f"report: {outcome.path}\n")
    assert json.loads(outcome.path.read_text()) == outcome.report
    with pytest.raises(fuzz.FuzzError, match="--workers"):
        command.campaign(argv, fuzz.FuzzOptions(workers=0), CATALOGUE, tmp_path)


@pytest.mark.parametrize(
    ("changes", "code"),
    [
        ({}, command.EXIT_OK),
        ({"findings": [{"key": "k"}]}, command.EXIT_FAILED),
        ({"interrupted": "SIGTERM", "findings": [{"key": "k"}]}, 143),
        ({"interrupted": "stopped", "findings": [{"key": "k"}]}, command.EXIT_FAILED),
        ({"totals": {"steps": 9, "queries": 0, "compared": 0}}, command.EXIT_UNGRADED),
        # A report from before ``compared`` existed: what was put to both counts.
        ({"totals": {"steps": 9, "queries": 0}}, command.EXIT_OK),
        ({"adapter_error": "no hello"}, command.EXIT_ADAPTER),
    ],
)
def test_the_verdict_of_a_report(changes: dict[str, object], code: int) -> None:
    report = {"findings": [], "totals": {"steps": 9, "queries": 1, "compared": 10}, **changes}
    assert command.verdict(report)[0] == code


def test_an_engine_that_only_echoes_load_state_is_not_a_pass(tmp_path: Path) -> None:
    """The states it loads match the reference's (the harness built them): a load_state is
    not counted as graded, and no step it answered unsupported counts as played."""
    echo = f"{sys.executable} {FAKES / 'echo_engine.py'}"
    done = cli("--adapter", echo, "--games", "3", "--out", str(tmp_path))
    assert done.returncode == command.EXIT_UNGRADED, done.stderr
    assert "graded nothing" in done.stderr and "Traceback" not in done.stderr
    totals = json.loads((tmp_path / "fuzz-report.json").read_text())["totals"]
    assert totals["compared"] == totals["steps"] == totals["queries"] == 0


REFUSING = f"{sys.executable} {FAKES / 'refusing_proxy.py'}"


def test_an_engine_that_claims_games_and_plays_none_is_not_a_pass(tmp_path: Path) -> None:
    """Green without a game: meld queries answered (so compared), every game request
    refused though the handshake claims turns and deals: a broken claim, exit 1."""
    done = cli("--adapter", f"{REFUSING} --games", "--games", "2", "--out", str(tmp_path))
    assert done.returncode == command.EXIT_FAILED, done.stderr
    (line,) = [x for x in done.stderr.splitlines() if "broken claim" in x]
    assert "claims deals, turns but played no step of 2 game(s)" in line


def test_an_op_refused_in_some_games_and_answered_in_others_is_not_a_pass(
    tmp_path: Path,
) -> None:
    # Every discard that would close a deal refused, the others answered: its scoring is
    # never compared.
    args = ["--games", "4", "--out", str(tmp_path)]
    done = cli("--adapter", f"{REFUSING} --ending-deal", *args)
    assert done.returncode == command.EXIT_FAILED, done.stderr
    assert "unsupported is inconsistent: the engine answered act:discard at " in done.stderr
    report = json.loads((tmp_path / "fuzz-report.json").read_text())
    jsonschema.validate(report, SCHEMA)
    assert any(op.startswith("act:discard at ") for op in report["inconsistent_ops"])


def test_an_interrupted_campaign_leaves_its_expectations_file_whole(tmp_path: Path) -> None:
    """SIGTERM during ``fuzz --expectations E --write-expectations E`` rewrote E from the
    games played so far: E is left as it was, and the report says it was not written."""
    import os
    import signal
    import subprocess
    import time

    from tests.mutants import harness

    exp, marker = tmp_path / "known.yaml", tmp_path / "marker"
    original = "# ours\nexpected_findings: []\n"
    exp.write_text(original)
    adapter = f"{sys.executable} {FAKES / 'signal_proxy.py'} --marker {marker} --after 40"
    argv = [sys.executable, "-m", "conformance", "fuzz", "--adapter", adapter,
            "--games", "50", "--out", str(tmp_path / "out"), "--timeout", "120",
            "--expectations", str(exp), "--write-expectations", str(exp)]  # fmt: skip
    with (tmp_path / "err").open("wb") as err:
        proc = subprocess.Popen(argv, env=harness.child_env(), cwd=ROOT, stderr=err,
                                stdout=subprocess.DEVNULL)  # fmt: skip
        try:
            deadline = time.monotonic() + 120
            while not marker.exists() and proc.poll() is None:
                assert time.monotonic() < deadline, "the adapter never reached its marker"
                time.sleep(0.05)
            assert proc.poll() is None, (tmp_path / "err").read_text()
            os.kill(proc.pid, signal.SIGTERM)
            assert proc.wait(timeout=120) == 143, (tmp_path / "err").read_text()
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    assert exp.read_text() == original
    assert "the campaign was interrupted (SIGTERM)" in (tmp_path / "err").read_text()
