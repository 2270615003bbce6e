"""Checks, not cases (docs/scenario-format.md#checks), proved against engines that run.

Each engine is the reference behind tests/fake_adapters/quiet_rulings.py (a ruling played
but not declared, extra hands, everything unsupported, a state it will not load) or the
reference itself with declared rulings. Expected values come from the scenario text
(scenarios/strength/dealer-rotation.yaml), never from what the reference answers.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from conformance.grading.results import CaseResult, CheckResult
from conformance.knowledge.catalogue import load_catalogue
from conformance.run.runner import RunOptions, run_scenarios
from conformance.scenarios import Scenario, load_corpus
from tests.adapters import REFERENCE
from tests.paths import ROOT

#: An engine that answers is all these tests need: the reference answers in-process
#: (tests/adapters.py); the tests of what its process does run it as a process.
pytestmark = pytest.mark.usefixtures("reference_in_process")

QUIET = [sys.executable, str(ROOT / "tests" / "fake_adapters" / "quiet_rulings.py")]
CATALOGUE = load_catalogue()
ROTATION = ROOT / "scenarios" / "strength" / "dealer-rotation.yaml"


@pytest.fixture(scope="module")
def rotation() -> list[Scenario]:
    loaded = load_corpus([ROTATION], catalogue=CATALOGUE)
    assert loaded.errors == ()
    return list(loaded.scenarios)


@pytest.fixture(scope="module")
def sample() -> list[Scenario]:
    """A few argentine cases of every level, for whole-run properties."""
    loaded = load_corpus([ROOT / "scenarios" / "melds", ROTATION], catalogue=CATALOGUE)
    melds = [s for s in loaded.scenarios if s.level == "melds"][:3]
    return [*melds, *[s for s in loaded.scenarios if s.level != "melds"]]


def run(argv: Sequence[str], scenarios: Sequence[Scenario]) -> dict[str, CaseResult]:
    result = run_scenarios(list(argv), scenarios, RunOptions(), catalogue=CATALOGUE)
    return {r.id: r for r in result.results}


def by_key(result: CaseResult) -> dict[str, CheckResult]:
    return {c.key: c for c in result.checks}


@pytest.fixture(scope="module")
def joker_thirty_quiet(rotation: list[Scenario]) -> dict[str, CaseResult]:
    return run([*QUIET, "--ruling", "VARIANT-01=thirty"], rotation)


def test_an_undeclared_joker_thirty_fails_cc_0302_on_scoring_rules_only(
    joker_thirty_quiet: dict[str, CaseResult],
) -> None:
    result = joker_thirty_quiet["cc-0302"]
    assert result.status == "fail"
    failed = [c.key for c in result.checks if c.status == "fail"]
    assert failed == ["step 3 deal_scores", "step 3 totals"]
    assert result.failed_rules and all(rule.startswith("SCORE-") for rule in result.failed_rules)
    # The case's topic (DEAL-2, DEAL-5, END-1, LAYOFF-1) is not blamed.
    assert not {"DEAL-2", "DEAL-5", "END-1", "LAYOFF-1"} & set(result.failed_rules)


def test_after_the_scoring_failure_who_deals_and_who_starts_are_still_graded_and_pass(
    joker_thirty_quiet: dict[str, CaseResult],
) -> None:
    checks = by_key(joker_thirty_quiet["cc-0302"])
    for key in ("step 4 dealer", "step 4 turn", "final dealer", "final turn", "step 4 totals"):
        assert checks[key].status == "pass", checks[key]
    assert checks["step 4 dealer"].rules == ("DEAL-2",)
    assert checks["step 4 turn"].rules == ("DEAL-5",)
    # Every check was graded: the engine was put back on the expected scores and went on.
    assert all(c.status != "not_graded" for c in checks.values())


def test_one_root_cause_has_one_signature_across_cases(
    joker_thirty_quiet: dict[str, CaseResult],
) -> None:
    signatures = {
        c.signature for r in joker_thirty_quiet.values() for c in r.checks if c.status == "fail"
    }
    assert signatures == {"joker left in hand: expected 50, got 30"}


def test_a_failure_names_the_scenario_file_and_line(
    joker_thirty_quiet: dict[str, CaseResult],
) -> None:
    result = joker_thirty_quiet["cc-0302"]
    lines = ROTATION.read_text(encoding="utf-8").splitlines()
    line = next(n for n, text in enumerate(lines, 1) if text.strip() == "deal_scores:")
    assert result.failing_step == f"step 3 deal_scores (action, {ROTATION}:{line})"
    assert result.diff is not None and f"{ROTATION}:{line}" in result.diff


def test_declaring_joker_thirty_and_twelve_cards_is_graded_and_passes(
    rotation: list[Scenario],
) -> None:
    rulings = ["--ruling", "VARIANT-01=thirty", "--ruling", "VARIANT-05=twelve"]
    results = run([*REFERENCE, *rulings], rotation)
    for case in ("cc-0302", "cc-0303"):
        result = results[case]
        assert result.status == "pass", result.diff
        checks = by_key(result)
        # The per-option values are graded, not skipped: 30-point scores, 12-card hands.
        for key in ("step 3 deal_scores", "step 3 totals", "step 4 hands", "step 4 stock_size"):
            assert checks[key].status == "pass", checks[key]
        assert all(c.status == "pass" for c in checks.values())


def test_an_engine_ruling_a_point_with_no_value_loses_only_those_checks(
    rotation: list[Scenario],
) -> None:
    # DISPUTE-26 table_001 (another card-value table): the scores assume table_000 and are
    # not graded; the deal passing on is.
    results = run([*REFERENCE, "--ruling", "DISPUTE-26=table_001"], rotation)
    result = results["cc-0302"]
    assert result.status == "pass"
    checks = by_key(result)
    assert checks["step 3 deal_scores"].status == "not_graded"
    assert checks["step 3 deal_scores"].cause == "option"
    assert "DISPUTE-26" in str(checks["step 3 deal_scores"].note)
    assert checks["step 4 dealer"].status == "pass" and checks["final turn"].status == "pass"


def test_an_engine_answering_unsupported_to_everything_grades_nothing(
    sample: list[Scenario],
) -> None:
    results = run([*QUIET, "--unsupported-after-hello"], sample)
    for result in results.values():
        assert result.status == "unsupported", result
        assert result.checks and all(c.status == "not_graded" for c in result.checks)
        assert {c.cause for c in result.checks} == {"op"}


def test_an_answer_with_two_extra_hands_fails_its_invariants_check(
    rotation: list[Scenario],
) -> None:
    results = run([*QUIET, "--extra-hands", "2"], rotation[:1])
    result = results["cc-0302"]
    assert result.status == "fail"
    checks = by_key(result)
    for key in ("setup invariants", "step 1 invariants"):
        assert checks[key].status == "fail"
        assert checks[key].rules == ("CARDS-1", "PLAYERS-1")
        assert "5 hands for 3 players" in str(checks[key].diff)
        assert "copies of" in str(checks[key].diff)
    # The fields the case names hold; only the invariants show the impossible state...
    assert checks["step 1 accepted"].status == "pass"
    # ...and no state can be built to go on from it.
    assert checks["step 2 accepted"].cause == "divergence"


def test_the_state_to_go_on_from_never_carries_the_engines_own_x(
    rotation: list[Scenario],
) -> None:
    argv = [*QUIET, "--ruling", "VARIANT-01=thirty", "--private-x"]
    checks = by_key(run(argv, rotation[:1])["cc-0302"])
    assert checks["step 3 totals"].status == "fail"
    assert checks["step 4 dealer"].status == "pass" and checks["final turn"].status == "pass"


def test_an_engine_that_will_not_load_the_state_to_go_on_from_is_not_graded_after(
    rotation: list[Scenario],
) -> None:
    argv = [*QUIET, "--ruling", "VARIANT-01=thirty", "--refuse-ended"]
    result = run(argv, rotation[:1])["cc-0302"]
    assert result.status == "fail"
    checks = by_key(result)
    assert checks["step 3 totals"].status == "fail"
    later = [c for c in result.checks if c.step is None or (c.step or 0) > 3]
    assert later and all(c.status == "not_graded" and c.cause == "divergence" for c in later)


def test_a_step_assuming_another_ruling_is_not_graded_from_there_on(
    rotation: list[Scenario],
) -> None:
    # DISPUTE-03 fixed refuses the lay-off onto a trio; the step assumes grow, so under
    # fixed its checks and the later ones are not graded, and nothing fails.
    result = run([*REFERENCE, "--ruling", "DISPUTE-03=fixed"], rotation[:1])["cc-0302"]
    checks = by_key(result)
    assert checks["step 1 accepted"].status == "pass"
    assert checks["step 2 accepted"].cause == "option"
    assert checks["final turn"].cause == "option"
    assert result.status == "pass"


PROXY = [sys.executable, str(ROOT / "tests" / "fake_adapters" / "real_engine_proxy.py")]


def test_a_refused_action_that_must_be_accepted_costs_only_its_step(
    rotation: list[Scenario],
) -> None:
    # The engine is put on the state the case expects after the lay-off (the card moved to
    # the trio) and the close, the next deal and the final are graded.
    result = run([*PROXY, "--refuse", "lay_off"], rotation[:1])["cc-0302"]
    assert result.status == "fail"
    checks = by_key(result)
    assert checks["step 2 accepted"].status == "fail"
    assert checks["step 2 accepted"].rules == ("LAYOFF-1",)  # the step's own rules
    assert result.failed_rules == ("LAYOFF-1",)
    later = [c for c in result.checks if c.step is None or (c.step or 0) > 2]
    assert later and all(c.status == "pass" for c in later)


def test_a_refused_discard_that_closes_the_deal_is_followed_by_the_step_s_scores(
    rotation: list[Scenario],
) -> None:
    # The step gives the phase, the closer and the scores in full: the harness builds the
    # closed deal from them, and the next deal and the final are graded.
    result = run([*PROXY, "--refuse", "discard"], rotation[:1])["cc-0302"]
    checks = by_key(result)
    assert checks["step 3 accepted"].status == "fail"
    later = [c for c in result.checks if c.step is None or (c.step or 0) > 3]
    assert later and all(c.status == "pass" for c in later)


def test_a_refused_action_whose_result_cannot_be_built_stops_grading_with_the_reason() -> None:
    # A draw from an empty stock over two discards recycles one: the new stock's order is
    # the engine's own, so the harness does not build that state.
    loaded = load_corpus([ROOT / "scenarios" / "strength3" / "stock.yaml"], catalogue=CATALOGUE)
    (case,) = [s for s in loaded.scenarios if s.id == "cc-2112"]
    result = run([*PROXY, "--refuse", "draw_stock"], [case])["cc-2112"]
    checks = by_key(result)
    assert checks["step 1 accepted"].status == "fail"
    later = [c for c in result.checks if c.step is None or (c.step or 0) > 1]
    assert later and all(c.cause == "divergence" for c in later)
    assert "must be accepted" in str(later[0].note)


DATA = Path(__file__).parent / "data"
FAKE = [sys.executable, str(DATA / "fake_engine.py")]


def test_an_error_keeps_the_checks_graded_before_it() -> None:
    catalogue = load_catalogue(DATA / "catalogue.json")
    (case,) = [
        s for s in load_corpus([DATA / "good"], catalogue=catalogue).scenarios if s.id == "cc-0003"
    ]
    run_result = run_scenarios(
        [*FAKE, "--crash-on", "act"], [case], RunOptions(), catalogue=catalogue
    )
    (result,) = run_result.results
    assert result.status == "error"
    checks = by_key(result)
    # The setup's invariants held, but on a state the harness built, and none of the case's
    # own checks was graded before the crash: they are not counted (grading/ledger.py).
    assert checks["setup invariants"].status == "not_graded"
    assert "the harness built the state" in (checks["setup invariants"].note or "")
    assert all(c.status == "not_graded" and c.cause == "error" for c in result.checks)


def test_a_case_not_run_still_lists_its_checks(rotation: list[Scenario]) -> None:
    from conformance.errors import EngineStartError
    from conformance.run.runner import unstarted_run

    result = unstarted_run(["nothing"], rotation, RunOptions(), EngineStartError("no"), CATALOGUE)
    for case in result.results:
        assert case.status == "not_run"
        assert case.checks and all(c.cause == "not_run" for c in case.checks)
    assert len(result.results[0].checks) == len(rotation[0].plan_for("argentine"))


def _case(case_id: str) -> Scenario:
    loaded = load_corpus([ROOT / "scenarios"], catalogue=CATALOGUE)
    return next(s for s in loaded.scenarios if s.id == case_id)


@pytest.mark.parametrize(("ruling", "absent"), [("forbidden", "final hands"), ("steal", None)])
def test_a_check_that_does_not_exist_under_the_engines_option_is_not_counted(
    ruling: str, absent: str | None
) -> None:
    # cc-1638's final state is written per DISPUTE-29 option: `hands` only under `steal`,
    # `discard`/`hand_sizes`/`totals` under both. Under `forbidden` the hands are asserted
    # nowhere, so that check does not exist: not graded would understate a full grading.
    scenario = _case("cc-1638")
    options = RunOptions(profile="chilean")
    argv = [*REFERENCE, "--ruling", f"DISPUTE-29={ruling}"]
    result = run_scenarios(argv, [scenario], options, catalogue=CATALOGUE).results[0]
    keys = by_key(result)
    assert result.status == "pass"
    assert all(c.status == "pass" for c in result.checks), result.checks
    assert "final discard" in keys and "final totals" in keys
    if absent is not None:
        assert absent not in keys
    else:
        assert "final hands" in keys


def test_no_reason_or_unchanged_check_for_a_step_the_engines_option_accepts() -> None:
    # cc-1623's last step is refused under DISPUTE-03 `fixed` and accepted under `grow`
    # (chilean's option): under `grow` there is no reason to compare and no state to keep.
    scenario = _case("cc-1623")
    result = run_scenarios(
        REFERENCE, [scenario], RunOptions(profile="chilean"), catalogue=CATALOGUE
    ).results[0]
    assert result.status == "pass"
    assert not [c for c in result.checks if c.what in ("reason", "unchanged") and c.step == 2]
    assert all(c.status == "pass" for c in result.checks)
