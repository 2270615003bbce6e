"""Expectations files: xfail, xpass, strict, and writing them from a run."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from conformance.expectations import (
    ExpectationsError,
    apply_expectations,
    load_expectations,
    write_expectations,
)
from conformance.runner import CaseResult


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
