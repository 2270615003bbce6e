"""conformance/grading/ledger.py: the results it records are the results the rules of
docs/reports.md describe, built as the CheckResult constructor builds them."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.grading.compare import Mismatch
from conformance.grading.ledger import Ledger, _result, pass_results
from conformance.grading.results import CHECK_STATUSES, CheckResult
from conformance.scenarios.model import PlannedCheck

checks = st.builds(
    PlannedCheck,
    key=st.text(min_size=1, max_size=20),
    what=st.sampled_from(["accepted", "reason", "totals", "hands", "invariants", "answer"]),
    step=st.none() | st.integers(min_value=0, max_value=9),
    line=st.integers(min_value=0, max_value=999),
    rules=st.lists(st.sampled_from(["MELD-RUN-3", "JOKER-2", "END-1"]), max_size=3).map(tuple),
)
extras = st.fixed_dictionaries(
    {},
    optional={
        "cause": st.text(max_size=10),
        "note": st.text(max_size=10),
        "diff": st.text(max_size=10),
        "signature": st.text(max_size=10),
    },
)


@given(checks, st.sampled_from(sorted(CHECK_STATUSES)), extras)
def test_a_result_is_what_the_constructor_builds(
    check: PlannedCheck, status: str, extra: dict[str, str]
) -> None:
    built = CheckResult(
        key=check.key,
        what=check.what,
        rules=check.rules,
        status=status,
        step=check.step,
        line=check.line,
        **extra,
    )
    fast = _result(check, status, **extra)
    assert fast == built and hash(fast) == hash(built) and repr(fast) == repr(built)
    assert dataclasses.asdict(fast) == dataclasses.asdict(built)
    # Still frozen: a result is a value.
    try:
        fast.status = "pass"  # type: ignore[misc]
    except dataclasses.FrozenInstanceError:
        pass
    else:
        raise AssertionError("a CheckResult built by the ledger could be changed")


def test_every_field_of_a_result_is_set() -> None:
    # A field added to CheckResult must be set by _result too (its default, if optional).
    check = PlannedCheck("step 1 accepted", "accepted", 1, 7, ("END-1",))
    fast = _result(check, "pass")
    assert set(vars(fast)) == {f.name for f in dataclasses.fields(CheckResult)}


def test_outcome_counts_from_the_checks() -> None:
    plan = [
        PlannedCheck("step 1 accepted", "accepted", 1, 3, ("LAYOFF-1",)),
        PlannedCheck("step 1 totals", "totals", 1, 4, ("SCORE-4",)),
        PlannedCheck("final turn", "turn", None, 9, ("DEAL-5",)),
    ]
    ledger = Ledger(plan, "scenarios/x.yaml")
    ledger.passed(plan[0])
    ledger.failed(plan[1], [Mismatch("totals", "[0, 50]", "[0, 30]")], kind="action", signature="s")
    ledger.not_graded(ledger.rest(1), "divergence", "after step 1")
    outcome = ledger.outcome()
    assert outcome["status"] == "fail"
    assert outcome["failed_rules"] == ("SCORE-4",)
    assert [r.status for r in outcome["checks"]] == ["pass", "fail", "not_graded"]
    assert outcome["failing_step"] == "step 1 totals (action, scenarios/x.yaml:4)"


def test_a_field_the_result_does_not_have_is_refused() -> None:
    check = PlannedCheck("step 1 accepted", "accepted", 1, 7, ("END-1",))
    with pytest.raises(TypeError, match="dif"):
        _result(check, "fail", dif="x")  # misspelt: never dropped silently


@given(st.lists(checks, max_size=6, unique_by=lambda c: c.key))
def test_results_made_ahead_are_the_results_a_pass_records(plan: list[PlannedCheck]) -> None:
    """A ledger given pass_results records those shared results, equal to its own."""
    made = pass_results(plan)
    ahead, alone = Ledger(plan, "x.yaml", made), Ledger(plan, "x.yaml")
    for check in plan:
        ahead.passed(check)
        alone.passed(check)
    assert ahead.results == alone.results
    assert all(a is made[a.key] for a in ahead.results)  # shared, not rebuilt
    assert ahead.outcome() == alone.outcome()


def _invariants_then_an_action() -> tuple[list[PlannedCheck], Ledger]:
    plan = [
        PlannedCheck("setup invariants", "invariants", 0, 2, ("CARDS-1",)),
        PlannedCheck("step 1 accepted", "accepted", 1, 3, ("TURN-1",)),
        PlannedCheck("step 1 invariants", "invariants", 1, 3, ("CARDS-1",)),
    ]
    return plan, Ledger(plan, "scenarios/x.yaml")


def test_invariants_of_a_state_the_engine_was_handed_alone_grade_nothing() -> None:
    """An engine that echoes load_state and answers unsupported to the action holds the
    setup's invariants (the harness built the state): that shows none of the rules, so they
    are not counted, under the cause that kept the case's own checks from being graded."""
    plan, ledger = _invariants_then_an_action()
    ledger.passed(plan[0])
    ledger.not_graded(ledger.rest(0), "op", "step 1: the engine answered unsupported")
    outcome = ledger.outcome()
    assert outcome["status"] == "unsupported"
    assert [(r.status, r.cause) for r in outcome["checks"]] == [("not_graded", "op")] * 3
    assert "the harness built the state" in (outcome["checks"][0].note or "")
    assert ledger.results == outcome["checks"]  # the ledger keeps what the outcome says


def test_invariants_count_once_one_of_the_cases_own_checks_is_graded() -> None:
    plan, ledger = _invariants_then_an_action()
    for check in plan:
        ledger.passed(check)
    assert [r.status for r in ledger.outcome()["checks"]] == ["pass"] * 3
    plan, ledger = _invariants_then_an_action()
    ledger.passed(plan[0])
    ledger.failed(plan[1], [Mismatch("accepted", "true", "false")], kind="action", signature="s")
    ledger.not_graded(ledger.rest(1), "divergence", "after step 1")
    assert [r.status for r in ledger.outcome()["checks"]] == ["pass", "fail", "not_graded"]


def test_an_invariant_that_breaks_fails_even_alone() -> None:
    """A state answered with cards lost or made up is the engine's fault, whoever built it."""
    plan, ledger = _invariants_then_an_action()
    ledger.failed(plan[0], [Mismatch("state", "the pack", "1 card missing")], kind="setup",
                  signature="s")  # fmt: skip
    ledger.not_graded(ledger.rest(0), "op", "unsupported")
    assert ledger.outcome()["status"] == "fail"
