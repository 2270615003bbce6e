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


def test_refusals_group_by_the_engines_reason_not_its_words_nor_the_cases_rules() -> None:
    results = [
        case(
            "cc-1",
            fail(
                "step 2 accepted",
                "accepted",
                "lay_off: expected accepted, got rejected (too_many_jokers)",
                rules=("JOKER-3",),
                note="deck is empty",
            ),
        ),
        case(
            "cc-2",
            fail(
                "step 5 reason",
                "reason",
                "reason: expected run_suit, got too_many_jokers",
                rules=("MELD-RUN-1",),
                note="two jokers",
            ),
        ),
        case(
            "cc-3",
            fail(
                "check 1",
                "answer",
                "valid: expected true, got false (too_many_jokers)",
                rules=("JOKER-1",),
            ),
        ),
        case(
            "cc-4",
            fail(
                "step 1 accepted",
                "accepted",
                "discard: expected accepted, got rejected (empty_discard)",
                rules=("TURN-1",),
            ),
        ),
    ]
    causes = group_causes(results)
    assert [(c.checks, c.cases) for c in causes] == [
        (3, ("cc-1", "cc-2", "cc-3")),
        (1, ("cc-4",)),
    ]
    assert causes[0].summary.startswith("refuses with too_many_jokers what the rules accept")
    assert set(causes[0].rules) == {"JOKER-3", "MELD-RUN-1", "JOKER-1"}
    assert "empty_discard" in causes[1].summary


def test_acceptances_whose_refusal_reasons_overlap_are_one_behaviour() -> None:
    wraps = "lay_off: expected rejected (beyond_ace or run_wraps), got accepted"
    results = [
        case("cc-1", fail("step 3 accepted", "accepted", wraps, rules=("LAYOFF-4",))),
        case("cc-2", fail("check 1", "answer", "valid: expected false (run_wraps), got true")),
        case("cc-3", fail("check 2", "answer", "valid: expected false (run_size), got true")),
    ]
    causes = group_causes(results)
    assert [(c.checks, c.cases) for c in causes] == [(2, ("cc-1", "cc-2")), (1, ("cc-3",))]
    assert "accepts what the rules refuse (beyond_ace or run_wraps)" in causes[0].summary


def test_one_phase_answered_otherwise_is_one_line_whatever_the_case() -> None:
    results = [
        case(
            f"cc-{i}",
            fail(
                "final phase",
                "phase",
                "phase: expected game_over, got deal_over",
                step=None,
                rules=(rule,),
            ),
        )
        for i, rule in enumerate(["END-4", "GAME-1", "END-2"])
    ]
    (only,) = group_causes(results)
    assert only.summary == "phase: game_over → deal_over"
    assert only.checks == 3 and set(only.rules) == {"END-4", "GAME-1", "END-2"}


def test_whose_turn_and_the_cards_held_are_each_one_behaviour() -> None:
    results = [
        case("cc-1", fail("step 1 turn", "turn", "turn: expected 1, got 0", rules=("DEAL-5",))),
        case(
            "cc-2",
            fail(
                "step 2 accepted",
                "accepted",
                "draw_stock: expected accepted, got rejected (not_your_turn)",
                rules=("TURN-1",),
            ),
        ),
        case(
            "cc-3",
            fail("step 1 stock_top", "stock_top", "stock_top: expected [K♥], got [JK]"),
        ),
        case(
            "cc-4",
            fail(
                "step 3 accepted",
                "accepted",
                "discard: expected accepted, got rejected (card_not_in_hand)",
            ),
        ),
    ]
    causes = group_causes(results)
    assert sorted(c.cases for c in causes) == [("cc-1", "cc-2"), ("cc-3", "cc-4")]


def test_a_cause_is_explained_only_by_an_option_proved_for_every_check_of_it() -> None:
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
        case("cc-4", fail("check 1", "answer", "penalty of [K♣ JK]: expected 60, got 40")),
    ]
    thirty = explanation([("VARIANT-01", "thirty")], CATALOGUE)
    every = frozenset({("cc-1", "check 1"), ("cc-2", "final totals"), ("cc-4", "check 1")})
    inference = Inference({}, frozenset({"cc-1", "cc-2", "cc-3", "cc-4"}), ((thirty, every),))
    causes = group_causes(results, inference)
    assert [c.checks for c in causes] == [3, 1]
    assert causes[0].explained_by == {"VARIANT-01": "thirty"}
    assert (
        "explained by VARIANT-01=thirty (30 points): declare it in the handshake"
        in causes[0].summary
    )
    assert causes[1].explained_by is None
    # Proved for some of the cause's checks only: no hint at all.
    part = Inference({}, frozenset({"cc-1"}), ((thirty, every - {("cc-4", "check 1")}),))
    assert all(c.explained_by is None for c in group_causes(results, part))
    # Every option tried for these checks, none proved: the line says so plainly.
    tried = Inference({}, frozenset(), (), frozenset({("cc-3", "step 2 reason")}))
    (lone,) = [c for c in group_causes(results, tried) if c.cases == ("cc-3",)]
    assert lone.summary.endswith(
        "no declarable option explains it: a bug to fix, or an entry for the expectations file"
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
    words = "cause 1 of 1: JK counted 30 instead of 50: explained by VARIANT-01=thirty"
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
    assert xml.count(words) >= 2
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
    assert reason.startswith(words)


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
