"""Fuzz findings name the option that explains them (conformance/fuzz/explain.py)."""

from __future__ import annotations

import json
import sys
from functools import partial
from pathlib import Path

import jsonschema
import pytest

from conformance import fuzz
from conformance.cli import main
from conformance.fuzz import campaign, pool
from conformance.fuzz.explain import agreed_part, explain_findings, pairs_of
from conformance.fuzz.model import Divergence, Finding, Occurrence, Trace
from conformance.fuzz.pair import Pair
from conformance.grading.results import UNEXPLAINED
from conformance.run.budget import COST_VARIABLE
from tests.conformance.fuzzkit import CATALOGUE, options, run_fuzz
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
    assert all(f["explained_by"] is None and f["all_options_tried"] for f in found)


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


# --- what no option explains, and what two explain together -------------------------------

BUGGY_ARGV = [sys.executable, str(ROOT / "tests" / "fake_adapters" / "buggy_engine.py")]
#: Plays a joker worth 30 (VARIANT-01) and an ace worth 15 (DISPUTE-26 table_003, which
#: alone makes a joker 25), declaring neither: a penalty of a joker and an ace is 45 points,
#: 40 under table_003 alone, 50 under VARIANT-01=thirty alone, 70 under neither.
TWO_OPTIONS = [
    *HOUSE_ARGV,
    "--ruling",
    "DISPUTE-26=table_003",
    "--ruling",
    "VARIANT-01=thirty",
    "--undeclared",
]
BOTH = {"DISPUTE-26": "table_003", "VARIANT-01": "thirty"}


def _lines_of(result: fuzz.FuzzResult) -> list[str]:
    return fuzz.summary(fuzz.report_dict(result)).splitlines()


@pytest.mark.usefixtures("reference_in_process")
def test_a_bug_no_option_explains_says_so_in_the_words_a_run_uses() -> None:
    result = run_fuzz(BUGGY_ARGV)
    assert result.findings
    assert all(f.explained_by is None and f.all_options_tried for f in result.findings)
    lines = _lines_of(result)
    # Each finding's line is followed by the run's own words for a cause none explains.
    said = [i for i, line in enumerate(lines) if line.strip() == UNEXPLAINED]
    assert len(said) == len(result.findings)
    assert all(" — " in lines[i - 1] for i in said)
    report = fuzz.report_dict(result)
    jsonschema.validate(report, SCHEMA)
    assert all(f["all_options_tried"] is True for f in report["findings"])


@pytest.mark.usefixtures("reference_in_process")
def test_an_explanation_cut_short_says_nothing_of_what_it_did_not_try(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # One trial: the options left untried might explain the findings.
    monkeypatch.setattr(campaign, "explain_findings", partial(explain_findings, trials=1))
    result = run_fuzz(BUGGY_ARGV)
    assert result.findings
    assert not any(f.all_options_tried for f in result.findings)
    assert UNEXPLAINED not in fuzz.summary(fuzz.report_dict(result))


def _penalty_finding(cards: list[str], engine: int, reference: int) -> Finding:
    """A penalty query on which the engine and the plain reference differ."""
    said = f"reference {reference} points, engine {engine}"
    div = Divergence("SCORE-2", "penalty", "check", "points differ", [said])
    setup = {"op": "query", "query": "penalty", "profile": "argentine", "cards": cards}
    return Finding(div, 1, [0], Occurrence(0, div, Trace(setup), {}))


@pytest.mark.usefixtures("reference_in_process")
def test_two_options_that_only_together_explain_a_finding_are_both_named() -> None:
    both = _penalty_finding(["JK", "AS"], 45, 70)
    joker = _penalty_finding(["JK"], 30, 50)
    # An answer the engine got right, which every option named must keep: a 2 worth 2
    # (DISPUTE-26=table_001, which also makes a joker and an ace 45 with a joker worth 30,
    # counts it 25).
    two = Trace({"op": "query", "query": "penalty", "profile": "argentine", "cards": ["2C"]})
    pair = Pair(TWO_OPTIONS, options(), CATALOGUE)
    try:
        explain_findings(pair, [both, joker], CATALOGUE, [two])
    finally:
        pair.close()
    assert both.explained_by == BOTH
    # One option alone proves the joker's: it is never named as a pair.
    assert joker.explained_by == {"VARIANT-01": "thirty"}
    assert not both.all_options_tried and not joker.all_options_tried


def test_a_pair_is_two_of_the_nearest_options_of_two_points() -> None:
    near = [
        (3, ("DISPUTE-26", "table_001")),
        (0, ("VARIANT-01", "thirty")),
        (2, ("DISPUTE-26", "table_003")),
        (9, ("DISPUTE-25", "wild")),
        (5, ("DISPUTE-09", "bury")),
    ]
    # The four nearest; two options of one point are never played together.
    assert pairs_of(near) == [
        (("DISPUTE-26", "table_003"), ("VARIANT-01", "thirty")),
        (("DISPUTE-26", "table_001"), ("VARIANT-01", "thirty")),
        (("DISPUTE-09", "bury"), ("VARIANT-01", "thirty")),
        (("DISPUTE-09", "bury"), ("DISPUTE-26", "table_003")),
        (("DISPUTE-09", "bury"), ("DISPUTE-26", "table_001")),
    ]
    assert len(pairs_of([(i, (f"DISPUTE-{i:02d}", "x")) for i in range(10)])) == 6


def _campaign(argv: list[str]) -> fuzz.FuzzResult:
    # Long enough games that a deal ends with a joker and an ace in one hand.
    return run_fuzz(argv, games=6, max_steps=120)


#: Plays wild twos (DISPUTE-25) and an ace worth 15 (DISPUTE-26 table_001), declaring
#: neither: wild twos alone would change how the ace's findings show, so the findings of
#: twos are both options' together, and the ace's table_001's alone.
WILD_TWOS = [
    *HOUSE_ARGV,
    "--ruling",
    "DISPUTE-25=wild",
    "--ruling",
    "DISPUTE-26=table_001",
    "--undeclared",
]


@pytest.mark.usefixtures("reference_in_process")
def test_an_engine_playing_two_options_gets_both_named() -> None:
    result = _campaign(TWO_OPTIONS)
    hints = [f.explained_by for f in result.findings]
    assert BOTH in hints  # a finding only both together explain
    assert "explained by DISPUTE-26=table_003 and VARIANT-01=thirty: " in "\n".join(
        _lines_of(result)
    )


@pytest.mark.usefixtures("reference_in_process")
@pytest.mark.parametrize("engine", [TWO_OPTIONS, WILD_TWOS], ids=["table_003+thirty", "wild twos"])
def test_every_hint_holds_when_declared(engine: list[str]) -> None:
    result = _campaign(engine)
    hints = {f.divergence.key: f.explained_by for f in result.findings}
    assert hints and all(h is not None for h in hints.values()), hints
    # The engine declaring a hint has none of the findings it explains, and no finding
    # the campaign did not have.
    for hint in {tuple(sorted(h.items())) for h in hints.values() if h is not None}:
        declared = [f for point, option in hint for f in ("--declare", f"{point}={option}")]
        again = {f.divergence.key for f in _campaign([*engine, *declared]).findings}
        gone = {key for key, h in hints.items() if h == dict(hint)}
        assert not again & gone, hint
        assert again <= set(hints), (hint, again - set(hints))
