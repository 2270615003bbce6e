"""Errored cases grouped by behaviour (conformance/reports/errors.py), and how the terminal
tells them: one line per behaviour, each case naming its group."""

from __future__ import annotations

from conformance.grading.results import CaseResult, RunResult, count_statuses
from conformance.reports.console import VERBOSE, run_text
from conformance.reports.errors import error_groups, error_key
from conformance.run.verdict import judge


def errored(cid: str, error: str, rules: tuple[str, ...] = ("SCORE-2",)) -> CaseResult:
    return CaseResult(cid, f"title of {cid}", rules, "SCORE", "error", error=error)


SCHEMA = (
    "penalty response breaks the schema at JSON pointer '/points': '{}' is not of type 'integer'"
)


def test_one_error_is_one_group_whatever_its_request_id_and_numbers() -> None:
    results = [
        errored("cc-1", SCHEMA.format(33) + " (id 4)"),
        errored("cc-2", SCHEMA.format(20) + " (id 17)", ("SCORE-2", "JOKER-7")),
        errored("cc-3", "adapter exited with code 3 during act (id 213)", ("JOKER-4",)),
        CaseResult("cc-4", "passed", ("SCORE-2",), "SCORE", "pass"),
        errored("cc-5", "adapter exited with code 3 during act (id 3)", ("JOKER-5",)),
        errored("cc-6", SCHEMA.format(10)),
    ]
    assert error_key(results[0].error or "") == error_key(results[1].error or "")
    groups = error_groups(results)
    assert [g.cases for g in groups] == [("cc-1", "cc-2", "cc-6"), ("cc-3", "cc-5")]
    assert groups[0].summary == SCHEMA.format(33)
    assert groups[0].rules == ("SCORE-2", "JOKER-7")
    assert groups[1].summary == "adapter exited with code 3 during act"


def test_two_errors_of_other_words_are_two_groups() -> None:
    results = [
        errored("cc-1", "no answer to act within 10 s (id 5)"),
        errored("cc-2", "adapter exited with code 3 during act (id 6)"),
    ]
    assert len(error_groups(results)) == 2


def run_of(results: list[CaseResult]) -> RunResult:
    return RunResult(
        argv=("engine",),
        profile="argentine",
        handshake=None,
        results=tuple(results),
        counts=count_statuses(results),
    )


def test_the_terminal_tells_a_shared_error_once_and_a_lone_one_where_it_is() -> None:
    results = [
        errored("cc-1", SCHEMA.format(33) + " (id 4)"),
        errored("cc-2", SCHEMA.format(20) + " (id 17)"),
        errored("cc-3", "no answer to act within 10 s (id 5)"),
    ]
    run = run_of(results)
    text = run_text(run, None, judge(run))
    assert text.count("is not of type 'integer'") == 1
    assert "cc-1 title of cc-1 — error 1 (see Errors)" in text
    assert "cc-2 title of cc-2 — error 1 (see Errors)" in text
    assert "  1. " + SCHEMA.format(33) + " — 2 case(s) [SCORE-2]" in text
    assert "     e.g. cc-1; also cc-2" in text
    # The lone error keeps its words under its case, and is no numbered group of its own.
    assert "      no answer to act within 10 s (id 5)" in text
    assert "  2. " not in text.split("Errors (", 1)[1]
    # -v tells every error under its case.
    verbose = run_text(run, None, judge(run), verbosity=VERBOSE)
    assert "see Errors" not in verbose and verbose.count("is not of type 'integer'") == 2
