"""An engine that answers is graded, not stopped (conformance/grading/walk.py, REFUSALS).

The engine is the reference playing aces low only (VARIANT-02 ``low_only``) without
declaring it (tests/fake_adapters/quiet_rulings.py): it refuses, with ``invalid_state``, to
load a table holding J-Q-K-A, which the Argentine rules allow (docs/rules.md VARIANT-02,
the profile's ``low_or_high``). cc-0170 (scenarios/jokers/joker-swap.yaml) loads such a
table. A protocol-correct refusal of a state the case sets up is a failing check of the
case, never an error toward the run's consecutive-error stop.
"""

from __future__ import annotations

import sys
from dataclasses import replace

import pytest

from conformance.knowledge.catalogue import load_catalogue
from conformance.reports.console import run_text
from conformance.run.runner import RunOptions, count_statuses, not_run_result, run_scenarios
from conformance.run.verdict import judge
from conformance.scenarios import load_corpus
from tests.paths import ROOT

QUIET = [sys.executable, str(ROOT / "tests" / "fake_adapters" / "quiet_rulings.py")]
LOW_ONLY = [*QUIET, "--ruling", "VARIANT-02=low_only"]
CATALOGUE = load_catalogue()
SWAPS = ROOT / "scenarios" / "jokers" / "joker-swap.yaml"


def test_a_refused_setup_state_is_a_failing_check_not_an_error() -> None:
    loaded = load_corpus([SWAPS], catalogue=CATALOGUE)
    chosen = [s for s in loaded.scenarios if s.id == "cc-0170"]
    run = run_scenarios(LOW_ONLY, chosen, RunOptions(), catalogue=CATALOGUE)
    (result,) = run.results
    assert result.status == "fail", result.error
    failed = [c for c in result.checks if c.status == "fail"]
    assert len(failed) == 1
    assert "invalid_state" in (failed[0].diff or "")
    assert "refuses a state the case sets up" in (failed[0].signature or "")
    rest = [c for c in result.checks if c.status == "not_graded"]
    assert rest and all(c.cause == "divergence" for c in rest)


@pytest.mark.parametrize("stop_after", [1])
def test_refusals_in_a_row_never_stop_the_run(stop_after: int) -> None:
    loaded = load_corpus([SWAPS], catalogue=CATALOGUE)
    chosen = [s for s in loaded.scenarios if "argentine" in s.profiles]
    options = RunOptions(max_consecutive_errors=stop_after)
    run = run_scenarios(LOW_ONLY, chosen, options, catalogue=CATALOGUE)
    assert run.counts.get("error", 0) == 0
    assert run.counts.get("not_run", 0) == 0
    assert run.counts.get("fail", 0) >= 1


def test_cases_not_run_are_one_line() -> None:
    loaded = load_corpus([SWAPS], catalogue=CATALOGUE)
    chosen = [s for s in loaded.scenarios if "argentine" in s.profiles]
    run = run_scenarios(LOW_ONLY, chosen[:1], RunOptions(), catalogue=CATALOGUE)
    why = "not run: 5 consecutive errors"
    skipped = [not_run_result(s, CATALOGUE, why, "argentine") for s in chosen[1:]]
    stopped = replace(run, results=(*run.results, *skipped))
    stopped = replace(stopped, counts=count_statuses(stopped.results))
    text = run_text(stopped, CATALOGUE, judge(stopped))
    lines = [line for line in text.splitlines() if "not run (" in line or "cc-0167" in line]
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"{len(skipped)} case(s) not run (5 consecutive errors): ")
    assert skipped[0].id in lines[0]


@pytest.mark.slow
def test_the_default_run_of_an_engine_refusing_some_states_is_short_and_whole(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from conformance.cli import main

    adapter = " ".join(LOW_ONLY)
    code = main(["run", "--profile", "argentine", "--adapter", adapter, "--no-explain"])
    out = capsys.readouterr().out
    assert code == 1
    assert "not_run" not in out.splitlines()[-1] and " error" not in out.splitlines()[-1]
    assert len(out.splitlines()) <= 60, out
