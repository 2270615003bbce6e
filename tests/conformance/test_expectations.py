"""Expectations files: xfail, xpass, strict, and writing them from a run."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from conformance.grading.results import CaseResult, CheckResult, failing_rules, graded
from conformance.run.expectations import (
    ExpectationsError,
    apply_expectations,
    load_expectations,
    write_expectations,
)


def case(cid: str, status: str) -> CaseResult:
    return CaseResult(cid, "t", ("TURN-1",), "TURN", status)


def test_yaml_and_json_files(tmp_path: Path) -> None:
    y = tmp_path / "e.yaml"
    y.write_text('expected_failures:\n  cc-0042: {reason: "we allow K-A-2 on purpose"}\n')
    j = tmp_path / "e.json"
    j.write_text('{"expected_failures": {"cc-0042": {"reason": "x"}}}')
    assert load_expectations(y).expected_failures == {"cc-0042": "we allow K-A-2 on purpose"}
    assert load_expectations(j).expected_failures == {"cc-0042": "x"}


def test_bad_file_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "e.yaml"
    bad.write_text("expected_failures:\n  cc-42: {reason: x}\n")
    with pytest.raises(ExpectationsError, match="cc-42"):
        load_expectations(bad)


def test_a_hostile_probe_case_may_be_listed_and_nothing_else_new(tmp_path: Path) -> None:
    listed = tmp_path / "e.yaml"
    listed.write_text(
        "expected_failures:\n  hostile/lay_off-without-end: {reason: our engine picks}\n"
    )
    assert load_expectations(listed).expected_failures == {
        "hostile/lay_off-without-end": "our engine picks"
    }
    for bad in ("hostile/", "hostile/Lay Off", "other/lay_off-without-end"):
        listed.write_text(f"expected_failures:\n  '{bad}': {{reason: x}}\n")
        with pytest.raises(ExpectationsError, match="is not a case id"):
            load_expectations(listed)


def test_apply_turns_fail_into_xfail_and_pass_into_xpass(tmp_path: Path) -> None:
    f = tmp_path / "e.yaml"
    f.write_text("expected_failures:\n  cc-0001: {reason: r1}\n  cc-0002: {reason: r2}\n")
    results = apply_expectations(
        [case("cc-0001", "fail"), case("cc-0002", "pass"), case("cc-0003", "fail")],
        load_expectations(f),
    )
    assert [r.status for r in results] == ["xfail", "xpass", "fail"]
    assert results[0].note is not None and "r1" in results[0].note


def test_write_lists_failures_with_empty_reasons(tmp_path: Path) -> None:
    # Issue 12 item 8: an errored case is never written as an expected failure, so a
    # rerun with the file cannot turn a crash green.
    target = tmp_path / "out.yaml"
    n = write_expectations(
        target, [case("cc-0001", "fail"), case("cc-0002", "pass"), case("cc-0003", "error")]
    )
    assert n == 1
    document = yaml.safe_load(target.read_text())
    assert document == {"expected_failures": {"cc-0001": {"reason": ""}}}
    assert load_expectations(target).expected_failures == {"cc-0001": ""}


# --- issue 12 item 8: an expected failure never covers an error ---------------------------


def test_an_expected_failure_does_not_cover_an_error_or_a_case_not_run(tmp_path: Path) -> None:
    f = tmp_path / "e.yaml"
    f.write_text("expected_failures:\n  cc-0001: {reason: r1}\n  cc-0002: {reason: r2}\n")
    results = apply_expectations(
        [case("cc-0001", "error"), case("cc-0002", "not_run")], load_expectations(f)
    )
    assert [r.status for r in results] == ["error", "not_run"]
    assert results[0].note is not None and "status: error" in results[0].note


def test_an_explicit_status_error_entry_expects_exactly_an_error(tmp_path: Path) -> None:
    f = tmp_path / "e.yaml"
    f.write_text(
        "expected_failures:\n"
        "  cc-0001: {reason: crashes on swaps, status: error}\n"
        "  cc-0002: {reason: known crash, status: error}\n"
        "  cc-0003: {reason: no deals yet, status: not_run}\n"
    )
    loaded = load_expectations(f)
    assert loaded.status_of("cc-0001") == "error"
    results = apply_expectations(
        [case("cc-0001", "error"), case("cc-0002", "fail"), case("cc-0003", "not_run")], loaded
    )
    # An expected error covers an error only; the fail is a new, different outcome.
    assert [r.status for r in results] == ["xfail", "fail", "xfail"]
    assert results[0].note == "expected error: crashes on swaps"


def test_a_bad_status_is_refused(tmp_path: Path) -> None:
    f = tmp_path / "e.yaml"
    f.write_text("expected_failures:\n  cc-0001: {reason: r, status: pass}\n")
    with pytest.raises(ExpectationsError, match="status"):
        load_expectations(f)


def test_rewriting_keeps_explicit_error_entries_that_still_hold(tmp_path: Path) -> None:
    f = tmp_path / "e.yaml"
    f.write_text("expected_failures:\n  cc-0001: {reason: known crash, status: error}\n")
    loaded = load_expectations(f)
    results = apply_expectations([case("cc-0001", "error"), case("cc-0002", "fail")], loaded)
    target = tmp_path / "out.yaml"
    assert write_expectations(target, results, loaded) == 2
    assert yaml.safe_load(target.read_text()) == {
        "expected_failures": {
            "cc-0001": {"reason": "known crash", "status": "error"},
            "cc-0002": {"reason": ""},
        }
    }


# --- issue 23: an entry may name a case, or a case and a check ----------------------------


def chk(key: str, status: str) -> CheckResult:
    return CheckResult(key, key.split()[-1], ("SCORE-2",), status)


def checked(cid: str, *checks: CheckResult) -> CaseResult:
    failing = any(c.status == "fail" for c in checks)
    return CaseResult(cid, "t", ("DEAL-1",), "DEAL", "fail" if failing else "pass", checks=checks)


BY_CHECK = (
    "expected_failures:\n"
    "  cc-0302:\n"
    "    reason: our joker counts 30\n"
    "    checks:\n"
    "      step 3 deal_scores:\n"
    "      step 3 totals: {reason: totals follow the scores}\n"
)


def test_an_entry_may_list_checks_of_a_case_in_either_form(tmp_path: Path) -> None:
    mapping = tmp_path / "m.yaml"
    mapping.write_text(BY_CHECK)
    listing = tmp_path / "l.json"
    listing.write_text(
        '{"expected_failures": ['
        '{"id": "cc-0302", "check": "step 3 deal_scores", "reason": "our joker counts 30"},'
        '{"id": "cc-0302", "check": "step 3 totals", "reason": "totals follow the scores"},'
        '{"id": "cc-0001", "reason": "whole"}]}'
    )
    want = {
        "step 3 deal_scores": "our joker counts 30",
        "step 3 totals": "totals follow the scores",
    }
    assert load_expectations(mapping).expected_checks == {"cc-0302": want}
    both = load_expectations(listing)
    assert both.expected_checks == {"cc-0302": want}
    assert both.expected_failures == {"cc-0001": "whole"}
    assert both.ids == {"cc-0302", "cc-0001"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "expected_failures:\n  - {id: cc-0001, check: final turn}\n"
            "  - {id: cc-0001, check: final turn}\n",
            "entry 2 names check 'final turn' of cc-0001 a second time",
        ),
        (
            "expected_failures:\n  - {id: cc-0001}\n  - {id: cc-0001, check: final turn}\n",
            "also listed as a whole case",
        ),
        ("expected_failures:\n  - {id: cc-0001}\n  - {id: cc-0001}\n", "a second time"),
        (
            "expected_failures:\n  cc-0001: {status: error, checks: {final turn: null}}\n",
            "at /expected_failures/cc-0001",
        ),
        ("expected_failures:\n  - {id: cc-0001, check: x, status: error}\n", "at /"),
        ("expected_failures:\n  cc-0001: {checks: {}}\n", "at /expected_failures/cc-0001"),
    ],
)
def test_a_check_entry_named_twice_or_with_a_status_is_refused(
    tmp_path: Path, text: str, message: str
) -> None:
    f = tmp_path / "e.yaml"
    f.write_text(text)
    with pytest.raises(ExpectationsError, match=re.escape(message)):
        load_expectations(f)


def test_a_listed_check_that_fails_is_xfail_and_one_that_passes_is_xpass(tmp_path: Path) -> None:
    f = tmp_path / "e.yaml"
    f.write_text(BY_CHECK)
    loaded = load_expectations(f)
    only_listed = checked(
        "cc-0302",
        chk("step 3 deal_scores", "fail"),
        chk("step 3 totals", "fail"),
        chk("step 4 dealer", "pass"),
    )
    (result,) = apply_expectations([only_listed], loaded)
    assert result.status == "xfail"
    assert [c.status for c in result.checks] == ["xfail", "xfail", "pass"]
    assert result.checks[1].note == "expected failure: totals follow the scores"
    assert graded([result]).failed == 0 and failing_rules([result]) == {}
    # Another check failing keeps the case failing: an entry for some checks hides no other.
    another = checked("cc-0302", chk("step 3 deal_scores", "fail"), chk("step 4 dealer", "fail"))
    (result,) = apply_expectations([another], loaded)
    assert result.status == "fail"
    assert [c.status for c in result.checks] == ["xfail", "fail"]
    assert result.note is not None and "did not make: step 3 totals" in result.note
    # A listed check that passes now is a stale entry: xpass, which --strict fails.
    fixed = checked("cc-0302", chk("step 3 deal_scores", "pass"), chk("step 3 totals", "fail"))
    (result,) = apply_expectations([fixed], loaded)
    assert result.status == "xpass"
    assert [c.status for c in result.checks] == ["xpass", "xfail"]
    # A case that failed without checks to match stays failing; an error is never covered.
    (bare,) = apply_expectations([case("cc-0302", "fail")], loaded)
    (crash,) = apply_expectations([case("cc-0302", "error")], loaded)
    assert (bare.status, crash.status) == ("fail", "error")


def test_a_whole_case_entry_marks_its_failing_checks_expected(tmp_path: Path) -> None:
    f = tmp_path / "e.yaml"
    f.write_text("expected_failures:\n  cc-0302: {reason: joker 30}\n")
    failing = checked("cc-0302", chk("step 3 totals", "fail"), chk("step 4 dealer", "pass"))
    (result,) = apply_expectations([failing], load_expectations(f))
    assert result.status == "xfail" and [c.status for c in result.checks] == ["xfail", "pass"]


def test_write_expectations_lists_failing_checks_and_a_rerun_expects_them(tmp_path: Path) -> None:
    run = [
        checked("cc-0302", chk("step 3 totals", "fail"), chk("step 4 dealer", "pass")),
        case("cc-0001", "fail"),  # no checks: listed whole
        case("cc-0002", "error"),  # never listed
    ]
    target = tmp_path / "out.yaml"
    assert write_expectations(target, run) == 2
    assert yaml.safe_load(target.read_text()) == {
        "expected_failures": {
            "cc-0001": {"reason": ""},
            "cc-0302": {"checks": {"step 3 totals": {"reason": ""}}},
        }
    }
    loaded = load_expectations(target)
    assert [r.status for r in apply_expectations(run, loaded)] == ["xfail", "xfail", "error"]
    # Rewriting keeps the reasons written since, check by check.
    f = tmp_path / "kept.yaml"
    f.write_text(BY_CHECK)
    previous = load_expectations(f)
    again = apply_expectations(
        [checked("cc-0302", chk("step 3 totals", "fail"), chk("step 3 deal_scores", "pass"))],
        previous,
    )
    json_target = tmp_path / "out.json"
    assert write_expectations(json_target, again, previous) == 1
    assert json.loads(json_target.read_text()) == {
        "expected_failures": {
            "cc-0302": {"checks": {"step 3 totals": {"reason": "totals follow the scores"}}}
        }
    }


def test_a_json_expectations_file_is_read_within_the_report_bounds(tmp_path: Path) -> None:
    f = tmp_path / "e.json"
    f.write_text('{"expected_failures": {"cc-0001": {"reason": ' + "1" * 5000 + "}}}")
    with pytest.raises(ExpectationsError, match="an integer of 5000 digits"):
        load_expectations(f)
