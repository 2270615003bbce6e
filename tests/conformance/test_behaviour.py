"""What a failing check shows the engine doing (conformance/reports/behaviour.py): the key a
cause is grouped by, from checks built here as the grader words them."""

from __future__ import annotations

from conformance.grading.results import CaseResult, CheckResult
from conformance.reports.behaviour import behaviour
from conformance.reports.causes import group_causes

PACK = "state: expected one hand per player and the whole pack, got "


def invariants(cid: str, got: str) -> CaseResult:
    check = CheckResult(
        "step 2 invariants",
        "invariants",
        ("CARDS-1",),
        "fail",
        step=2,
        line=3,
        diff=PACK + got,
        signature=PACK + got,
    )
    return CaseResult(cid, cid, ("CARDS-1",), "TURN", "fail", checks=(check,))


def test_a_card_lost_is_one_behaviour_whichever_card_it_was() -> None:
    lost = [
        invariants("cc-1", "1 card(s) of the pack missing (JK)"),
        invariants("cc-2", "1 card(s) of the pack missing (10C)"),
        invariants("cc-3", "2 card(s) of the pack missing (KH, 2S)"),
    ]
    keys = {behaviour(r.checks[0], "discard").key for r in lost}
    assert keys == {("invariants", "cards of the pack missing")}
    (cause,) = group_causes(lost)
    assert cause.cases == ("cc-1", "cc-2", "cc-3")
    assert cause.summary.startswith("state: cards of the pack missing")


def test_a_card_doubled_is_another_behaviour_than_a_card_lost() -> None:
    results = [
        invariants("cc-1", "1 card(s) of the pack missing (JK)"),
        invariants("cc-2", "3 copies of 7H: the pack has 2"),
        invariants("cc-3", "3 hands for 2 players"),
    ]
    summaries = sorted(c.summary.split(" (e.g.", 1)[0] for c in group_causes(results))
    assert summaries == [
        "state: another number of hands than of players",
        "state: cards of the pack missing",
        "state: more copies of a card than the pack has",
    ]
