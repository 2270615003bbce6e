"""Failing checks grouped by root cause (conformance/reports/causes.py), from results built here."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from conformance.grading.results import CaseResult, CheckResult
from conformance.knowledge.catalogue import load_catalogue
from conformance.reports.causes import group_causes
from conformance.reports.symptoms import Inference, card_table, direction, explanation

CATALOGUE = load_catalogue()
SCHEMA = json.loads(
    (Path(__file__).parents[2] / "conformance" / "schemas" / "report.schema.json").read_text()
)


def fail(
    key: str, what: str, signature: str, *, step: int | None = 1, rules=("SCORE-2",), note=None
):
    return CheckResult(
        key,
        what,
        tuple(rules),
        "fail",
        step=step,
        line=7,
        diff=signature,
        signature=signature,
        note=note,
    )


def case(cid: str, *checks: CheckResult) -> CaseResult:
    return CaseResult(cid, cid, ("SCORE-2",), "SCORE", "fail", checks=checks)


def test_the_direction_of_a_difference() -> None:
    assert direction("totals: expected [40, 128], got [40, 108]") == "lower"
    assert direction("turn: expected 1, got 2") == "higher"
    assert direction("totals: expected [1, 2], got [2, 1]") is None
    assert direction("phase: expected game_over, got dealing") is None


def test_one_card_value_accounts_for_every_penalty_whose_cards_are_known() -> None:
    joker = [
        fail("check 1", "answer", "penalty of JK: expected 50, got 30"),
        fail("check 2", "answer", "penalty of [A♠ 2♦ K♣ JK]: expected 82, got 62"),
        fail("check 3", "answer", "penalty of [K♣ JK JK]: expected 110, got 70"),
    ]
    assert card_table(joker) == ("JK", 50, 30)
    # One more point on every hand is no card's value: no table.
    plus_one = [
        fail("check 1", "answer", "penalty of JK: expected 50, got 51"),
        fail("check 2", "answer", "penalty of [K♣ JK JK]: expected 110, got 111"),
    ]
    assert card_table(plus_one) is None


def test_scores_off_by_one_card_are_one_cause_named_by_the_card() -> None:
    results = [
        case("cc-1", fail("check 1", "answer", "penalty of JK: expected 50, got 30")),
        case(
            "cc-2",
            fail(
                "final deal_scores",
                "deal_scores",
                "deal_scores: expected [0, 50], got [0, 30]",
                step=None,
            ),
            fail("final totals", "totals", "totals: expected [9, 50], got [9, 30]", step=None),
            fail(
                "final winners",
                "winners",
                "winners: expected [1], got [0]",
                step=None,
                rules=("END-4",),
            ),
        ),
        case("cc-3", fail("check 1", "answer", "penalty of [A♠ JK]: expected 70, got 50")),
    ]
    causes = group_causes(results, files={"cc-1": "scenarios/s.yaml"})
    assert len(causes) == 1
    (only,) = causes
    assert only.summary == "JK counted 30 instead of 50"
    assert (only.checks, only.cases) == (5, ("cc-1", "cc-2", "cc-3"))
    assert only.explained_by is None
    # The smallest example is the case with the fewest checks, with its file and line.
    assert only.example.where() == "cc-1 check 1 (scenarios/s.yaml:7)"
    jsonschema.validate(
        [only.as_record()], SCHEMA["properties"]["causes"] | {"$defs": SCHEMA["$defs"]}
    )


def test_refusals_group_by_the_engines_reason_and_words_not_the_cases_rules() -> None:
    said = "deck is empty"
    results = [
        case(
            "cc-1",
            fail(
                "step 2 accepted",
                "accepted",
                "draw_stock: expected accepted, got rejected (not_your_turn)",
                rules=("TURN-1",),
                note=said,
            ),
        ),
        case(
            "cc-2",
            fail(
                "step 5 reason",
                "reason",
                "reason: expected deal_over, got not_your_turn",
                rules=("END-1",),
                note=said,
            ),
        ),
        case(
            "cc-3",
            fail(
                "step 1 accepted",
                "accepted",
                "draw_stock: expected accepted, got rejected (not_your_turn)",
                rules=("TURN-1",),
                note="wait your turn",
            ),
        ),
    ]
    causes = group_causes(results)
    assert [(c.checks, c.cases) for c in causes] == [(2, ("cc-1", "cc-2")), (1, ("cc-3",))]
    assert (
        causes[0].summary == 'the engine refuses with not_your_turn (engine says "deck is empty")'
    )


def test_checks_an_option_explains_are_one_cause_that_names_it() -> None:
    results = [
        case("cc-1", fail("check 1", "answer", "penalty of JK: expected 50, got 30")),
        case(
            "cc-2",
            fail("final totals", "totals", "totals: expected [9, 50], got [9, 30]", step=None),
        ),
        case(
            "cc-3",
            fail(
                "step 2 reason",
                "reason",
                "reason: expected run_gap, got run_suit",
                rules=("MELD-RUN-6",),
            ),
        ),
        # Not replayed: joins the explanation its symptom's replayed checks all share.
        case("cc-4", fail("check 1", "answer", "penalty of [K♣ JK]: expected 60, got 40")),
    ]
    thirty = explanation([("VARIANT-01", "thirty")], CATALOGUE)
    inference = Inference(
        {("cc-1", "check 1"): thirty, ("cc-2", "final totals"): thirty},
        tried=frozenset({"cc-1", "cc-2", "cc-3"}),
    )
    causes = group_causes(results, inference)
    assert [c.checks for c in causes] == [3, 1]
    assert causes[0].explained_by == {"VARIANT-01": "thirty"}
    assert (
        "explained by VARIANT-01=thirty (30 points): declare it in the handshake"
        in causes[0].summary
    )
    assert causes[0].cases == ("cc-1", "cc-2", "cc-4")
    assert causes[1].explained_by is None and causes[1].summary.startswith(
        "reason: expected run_gap"
    )


def test_an_expected_failure_is_no_cause() -> None:
    xfail = CheckResult("check 1", "answer", ("SCORE-2",), "xfail", signature="x", diff="x")
    assert group_causes([case("cc-1", xfail)]) == ()


def test_every_report_of_a_run_speaks_its_causes() -> None:
    from conformance.grading.results import RunResult, count_statuses
    from conformance.reports.html_report import render_html
    from conformance.reports.markdown_report import render_markdown
    from conformance.reports.report import build_report, cause_names, junit_xml
    from conformance.reports.report_tools import LoadedReport
    from conformance.run.expectations import expectations_from_results

    results = (
        case("cc-1", fail("check 1", "answer", "penalty of JK: expected 50, got 30")),
        case("cc-2", fail("check 1", "answer", "penalty of [K♣ JK]: expected 60, got 40")),
    )
    thirty = explanation([("VARIANT-01", "thirty")], CATALOGUE)
    inference = Inference({("cc-1", "check 1"): thirty, ("cc-2", "check 1"): thirty})
    run = RunResult(
        argv=("engine",),
        profile="argentine",
        handshake=None,
        results=results,
        counts=count_statuses(results),
        causes=group_causes(results, inference),
    )
    document = build_report(run, CATALOGUE)
    assert [c["explained_by"] for c in document["causes"]] == [{"VARIANT-01": "thirty"}]
    assert document["causes"][0]["checks"] == 2
    xml = junit_xml(run, CATALOGUE)
    assert xml.count("cause 1 of 1: answer differ: explained by VARIANT-01=thirty") >= 2
    page = render_html([LoadedReport("r.json", document)], CATALOGUE)
    assert page.index('id="causes"') < page.index('id="matrix-h"')
    assert "explained by VARIANT-01=thirty" in page
    digest = render_markdown([LoadedReport("r.json", document)], CATALOGUE)
    assert "Causes:" in digest and "explained by VARIANT-01=thirty" in digest
    # A report without causes (older, or merged) has them grouped again from its checks.
    older = {k: v for k, v in document.items() if k != "causes"}
    assert "JK counted 30 instead of 50" in render_markdown([LoadedReport("o.json", older)])
    # A new expectations entry starts with its cause as its reason.
    written = expectations_from_results(results, None, cause_names(run))
    reason = written["expected_failures"]["cc-2"]["checks"]["check 1"]["reason"]
    assert reason.startswith("cause 1 of 1: answer differ: explained by VARIANT-01=thirty")


def test_a_table_in_another_order_is_one_symptom_whatever_the_cards() -> None:
    runs = "table[3].cards: expected [4♠ 5♠ 6♠ 7♠], got [5♠ 7♠ 6♠ 4♠]"
    kept = (
        "table (a rejected action must leave the state unchanged): "
        "expected [{'cards': ['4H', '5H', '3H']}], got [{'cards': ['3H', '5H', '4H']}]"
    )
    results = [
        case("cc-1", fail("step 2 table", "table", runs, rules=("MELD-RUN-1",))),
        case("cc-2", fail("step 4 unchanged", "unchanged", kept, rules=("LAYOFF-2",))),
    ]
    (only,) = group_causes(results)
    assert only.summary == "table: the same cards in another order"
    assert only.checks == 2
