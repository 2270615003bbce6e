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
from conformance.reports.causes import with_causes
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


REFUSING = [sys.executable, str(ROOT / "tests" / "fake_adapters" / "refusing_proxy.py")]
STOCK = ROOT / "scenarios" / "stock"


def test_a_state_refused_as_unsupported_where_others_load_is_a_failing_check() -> None:
    """The proxy cannot hold a joker on the discard pile: it answers ``unsupported`` to
    those load_state requests only. The rules allow the state (JOKER-3: a joker may be
    discarded), and the engine loads every other state at those player counts, so it is
    a state it refuses, not an op it lacks: each such case fails once, with the refusal."""
    loaded = load_corpus([STOCK], catalogue=CATALOGUE)
    chosen = [s for s in loaded.scenarios if "argentine" in s.profiles]
    run = run_scenarios(
        [*REFUSING, "--state-with", "JK"], chosen, RunOptions(), catalogue=CATALOGUE
    )
    refused = [r for r in run.results if r.status == "fail"]
    assert refused, "no case of scenarios/stock loads a joker on the pile"
    assert run.counts.get("error", 0) == 0
    for result in refused:
        failed = [c for c in result.checks if c.status == "fail"]
        assert len(failed) == 1, result.id
        assert failed[0].what != "invariants"
        assert "answering unsupported" in (failed[0].signature or "")
        assert "unsupported: no JK on the pile" in (failed[0].diff or "")
        assert result.failing_step and "load_state" in result.failing_step
        assert all(c.cause != "op" for c in result.checks if c.status == "not_graded")
    # The cases whose state the engine loaded are graded as usual, and all pass.
    assert {r.status for r in run.results} - {"fail"} <= {"pass", "unsupported"}
    text = run_text(with_causes(run, chosen), CATALOGUE, judge(run))
    assert "refuses a legal state the case sets up (e.g. load_state: got unsupported" in text


def test_every_state_of_a_count_refused_is_a_count_not_played_not_a_failure() -> None:
    """An engine that refuses every game at 4 players lacks that count: its cases are not
    graded (cause op), none fails (every case of scenarios/stock seats 4)."""
    loaded = load_corpus([STOCK], catalogue=CATALOGUE)
    chosen = [s for s in loaded.scenarios if "argentine" in s.profiles]
    run = run_scenarios([*REFUSING, "--players", "4"], chosen, RunOptions(), catalogue=CATALOGUE)
    assert run.counts.get("fail", 0) == 0
    assert run.counts.get("unsupported", 0) >= 1
