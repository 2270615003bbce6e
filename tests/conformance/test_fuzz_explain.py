"""Fuzz findings name the option that explains them (conformance/fuzz/explain.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import jsonschema
import pytest

from conformance.cli import main
from conformance.fuzz import pool
from conformance.fuzz.explain import agreed_part
from conformance.fuzz.model import Divergence, Finding, Occurrence, Trace
from conformance.run.budget import COST_VARIABLE
from tests.conformance.fuzzkit import options, run_fuzz
from tests.paths import ROOT

HOUSE = f"{sys.executable} {ROOT / 'tests' / 'fake_adapters' / 'house_engine.py'}"
BUGGY = f"{sys.executable} {ROOT / 'tests' / 'fake_adapters' / 'buggy_engine.py'}"
SCHEMA = json.loads((ROOT / "conformance" / "schemas" / "fuzz-report.schema.json").read_text())


@pytest.fixture(autouse=True)
def untimed_explanation(monkeypatch: pytest.MonkeyPatch) -> None:
    """The explanation's time bound lifted (its trial count stays): on a loaded machine it
    could stop before a true hint is proved, and these tests are about which hint is true,
    not about its cost (benchmarks/ measures that)."""
    monkeypatch.setenv(COST_VARIABLE, "10000")


def findings(adapter: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> list[dict]:  # type: ignore[type-arg]
    out = tmp_path / "out"
    main(
        ["fuzz", "--adapter", adapter, "--games", "6", "--out", str(out), "--profile", "argentine"]
    )
    capsys.readouterr()
    report = json.loads((out / "fuzz-report.json").read_text())
    jsonschema.validate(report, SCHEMA)
    return report["findings"]  # type: ignore[no-any-return]


@pytest.mark.slow
def test_a_hidden_joker_worth_30_is_named_on_every_finding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    found = findings(f"{HOUSE} --ruling VARIANT-01=thirty --undeclared", tmp_path, capsys)
    assert found
    assert all(f["explained_by"] == {"VARIANT-01": "thirty"} for f in found)


@pytest.mark.slow
def test_a_bug_is_explained_by_no_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    found = findings(BUGGY, tmp_path, capsys)
    assert found
    assert all(f["explained_by"] is None for f in found)


# In-process campaigns (tests/conformance/fuzzkit.py): the hint is proved over the
# campaign's agreed answers, not over the finding's example alone.
HOUSE_ARGV = [sys.executable, str(ROOT / "tests" / "fake_adapters" / "house_engine.py")]
#: Answers its penalty queries with a joker worth 30 and scores its deals with 50: the
#: reference playing VARIANT-01=thirty agrees with the penalty finding's example, and
#: breaks the deal scores the engine got right.
HALF_THIRTY = [*HOUSE_ARGV, "--query-ruling", "VARIANT-01=thirty"]


def _explained(argv: list[str]) -> dict[str, dict[str, str] | None]:
    result = run_fuzz(argv)
    assert result.findings
    return {f.divergence.key: f.explained_by for f in result.findings}


@pytest.mark.usefixtures("reference_in_process")
def test_an_option_that_breaks_an_answer_the_engine_got_right_is_not_named() -> None:
    assert _explained(HALF_THIRTY) == {"SCORE-2|penalty|check|points differ": None}


@pytest.mark.usefixtures("reference_in_process")
def test_the_same_option_explains_the_findings_example_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Judged by the finding's example alone (no agreed game kept), the option the test
    # above refuses would be named: what refutes it there is a deal the engine scored as
    # the reference does (a joker held at the close, worth 50).
    monkeypatch.setattr(pool, "AGREED_GAMES", 0)
    assert _explained(HALF_THIRTY) == {
        "SCORE-2|penalty|check|points differ": {"VARIANT-01": "thirty"}
    }


@pytest.mark.usefixtures("reference_in_process")
def test_a_true_hint_is_still_named_over_the_agreed_games() -> None:
    explained = _explained([*HOUSE_ARGV, "--ruling", "VARIANT-01=thirty", "--undeclared"])
    assert set(map(str, explained.values())) == {str({"VARIANT-01": "thirty"})}


def test_the_agreed_games_are_the_first_of_the_campaign_whoever_plays_them() -> None:
    assert pool.kept_games(options(games=20)) == frozenset(range(pool.AGREED_GAMES))
    # A shard keeps the first games of its own share.
    second = pool.kept_games(options(games=40, shard=(2, 3)))
    assert second == frozenset(range(1, 3 * pool.AGREED_GAMES, 3))


def test_a_findings_agreed_part_is_its_example_before_the_divergent_step() -> None:
    setup = {"op": "load_state", "state": {}}
    steps = [{"op": "act", "action": {"type": "draw"}}, {"op": "act", "action": {"type": "x"}}]
    div = Divergence("SCORE-2", "discard", "state", "s", [])
    found = Finding(div, 1, [0], Occurrence(0, div, Trace(setup, steps), {}))
    part = agreed_part(found)
    assert part is not None and (part.setup, part.steps) == (setup, steps[:1])
    at_once = Finding(div, 1, [0], Occurrence(0, div, Trace(setup), {}))
    assert agreed_part(at_once) is None  # the setup itself diverged
    query = Trace({"op": "query", "query": "penalty", "cards": []})
    assert agreed_part(Finding(div, 1, [0], Occurrence(0, div, query, {}))) is None
