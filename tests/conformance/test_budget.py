"""The explanation's time bound (conformance/run/budget.py): its multiple, its floor, and a
malformed variable refused before anything runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.cli import main
from conformance.run.budget import (
    COST,
    COST_VARIABLE,
    FLOOR,
    explanation_budget,
    explanation_cost,
)
from conformance.run.optioncheck import InvalidOption
from tests.paths import ROOT


def test_unset_the_explanation_takes_twice_the_graded_time_from_a_floor(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(COST_VARIABLE, raising=False)
    assert explanation_cost() == COST == 2.0
    assert explanation_budget(10.0) == 20.0
    assert explanation_budget(0.01) == 2.0 * FLOOR


def test_the_variable_sets_another_multiple(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(COST_VARIABLE, " 7.5 ")
    assert explanation_cost() == 7.5
    assert explanation_budget(2.0) == 15.0
    assert explanation_budget(2.0, cost=3.0) == 6.0


@pytest.mark.parametrize("raw", ["abc", "0", "-1", "nan", "inf", "1e9"])
def test_a_malformed_multiple_is_refused_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch, raw: str
) -> None:
    monkeypatch.setenv(COST_VARIABLE, raw)
    with pytest.raises(InvalidOption, match=f"{COST_VARIABLE}='{raw}'"):
        explanation_cost()


def test_run_refuses_it_before_grading_anything(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(COST_VARIABLE, "soon")
    argv = ["run", "--adapter", "python3 -m reference.adapter", "--scenario", "cc-0204"]
    assert main([*argv, "--corpus", str(ROOT / "scenarios")]) == 2
    out, err = capsys.readouterr()
    assert f"error: {COST_VARIABLE}='soon'" in err
    assert "cases:" not in out
    # Without the explanation, the variable is not read.
    assert main([*argv, "--corpus", str(ROOT / "scenarios"), "--no-explain"]) == 0


def test_the_pages_name_the_variable() -> None:
    for page in ("docs/reports.md", "docs/fuzzing.md"):
        assert COST_VARIABLE in (ROOT / page).read_text(encoding="utf-8"), page


def test_fuzz_refuses_it_before_playing_a_game(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setenv(COST_VARIABLE, "0")
    argv = ["fuzz", "--adapter", "python3 -m reference.adapter", "--games", "1"]
    assert main([*argv, "--out", str(tmp_path / "out")]) == 2
    assert f"{COST_VARIABLE}='0'" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
