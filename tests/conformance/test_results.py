"""Counting checks: what a green is made of, and one root cause shown once."""

from __future__ import annotations

from conformance.grading.results import CaseResult, CheckResult, divergences, failing_rules, graded


def case(cid: str, *checks: CheckResult) -> CaseResult:
    failed = any(c.status == "fail" for c in checks)
    return CaseResult(cid, cid, ("DEAL-2",), "DEAL", "fail" if failed else "pass", checks=checks)


def check(
    key: str, status: str, rules: tuple[str, ...] = ("SCORE-2",), **kw: object
) -> CheckResult:
    return CheckResult(key, key.split()[-1], rules, status, **kw)  # type: ignore[arg-type]


def test_graded_counts_checks_and_groups_the_rest_by_cause() -> None:
    results = [
        case("cc-1", check("step 1 accepted", "pass"), check("step 1 totals", "fail")),
        case(
            "cc-2",
            check("step 1 accepted", "not_graded", cause="option"),
            check("step 2 dealer", "not_graded", cause="unmodelled"),
            check("final turn", "not_graded", cause="option"),
        ),
    ]
    tally = graded(results)
    assert (tally.graded, tally.total, tally.passed, tally.failed) == (2, 5, 1, 1)
    assert list(tally.not_graded.items()) == [("option", 2), ("unmodelled", 1)]
    assert tally.share == 2 / 5
    assert graded([]).share == 0.0


def test_one_divergence_across_cases_is_one_line_and_rules_count_failing_checks() -> None:
    joker = "joker left in hand: expected 50, got 30"
    results = [
        case("cc-1", check("step 3 deal_scores", "fail", signature=joker)),
        case(
            "cc-2",
            check("step 3 deal_scores", "fail", signature=joker),
            check("step 3 totals", "fail", signature=joker),
            check("step 4 dealer", "fail", rules=("DEAL-2",), signature="dealer: 1 != 2"),
        ),
    ]
    found = divergences(results)
    assert [(d.signature, d.checks, d.cases) for d in found] == [
        (joker, 3, ("cc-1", "cc-2")),
        ("dealer: 1 != 2", 1, ("cc-2",)),
    ]
    assert failing_rules(results) == {"SCORE-2": 3, "DEAL-2": 1}
