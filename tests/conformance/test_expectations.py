"""Expectations files: xfail, xpass, strict, and writing them from a run."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance.grading.results import CaseResult, CheckResult, failing_rules, graded
from conformance.reports.causes import Cause, Example
from conformance.run.budget import COST_VARIABLE
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
    # An errored case is never written as an expected failure, so a
    # rerun with the file cannot turn a crash green.
    target = tmp_path / "out.yaml"
    n = write_expectations(
        target, [case("cc-0001", "fail"), case("cc-0002", "pass"), case("cc-0003", "error")]
    )
    assert n == 1
    document = yaml.safe_load(target.read_text())
    assert document == {"expected_failures": {"cc-0001": {"reason": ""}}}
    assert load_expectations(target).expected_failures == {"cc-0001": ""}


# --- an expected failure never covers an error -------------------------------------------


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


# --- an entry may name a case, or a case and a check -------------------------------------


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


# --- one entry per root cause (run --write-expectations FILE --by-cause) -------------------


def fails(key: str, what: str, signature: str, rules: tuple[str, ...]) -> CheckResult:
    return CheckResult(
        key, what, rules, "fail", step=3, line=9, diff=signature, signature=signature
    )


def joker_run(*extra: CheckResult) -> list[CaseResult]:
    """A joker counted 30 in two cases (one cause, explained by VARIANT-01=thirty) and a
    turn handed to the wrong player in a third (another cause); ``extra`` checks join the
    first case."""
    return [
        checked(
            "cc-0302",
            fails(
                "step 3 deal_scores", "deal_scores", "expected [0, 50], got [0, 30]", ("SCORE-2",)
            ),
            fails("step 3 totals", "totals", "expected [9, 50], got [9, 30]", ("SCORE-1",)),
            chk("step 4 dealer", "pass"),
            *extra,
        ),
        checked(
            "cc-0209",
            fails("check 1", "answer", "penalty of JK: expected 50, got 30", ("SCORE-2",)),
        ),
        checked("cc-0101", fails("step 2 turn", "turn", "turn: expected 1, got 2", ("TURN-1",))),
        case("cc-0001", "fail"),  # no checks: no cause, listed whole
    ]


def joker_causes(results: list[CaseResult]) -> tuple[Cause, ...]:
    from conformance.knowledge.catalogue import load_catalogue
    from conformance.reports.causes import Inference, group_causes
    from conformance.reports.symptoms import explanation

    thirty = explanation([("VARIANT-01", "thirty")], load_catalogue())
    members = [
        ("cc-0302", "step 3 deal_scores"),
        ("cc-0302", "step 3 totals"),
        ("cc-0209", "check 1"),
    ]
    return group_causes(results, Inference(dict.fromkeys(members, thirty)))


def test_by_cause_writes_one_entry_per_cause_listing_exactly_its_checks(tmp_path: Path) -> None:
    results = joker_run()
    causes = joker_causes(results)
    target = tmp_path / "e.yaml"
    assert write_expectations(target, results, by_cause=causes) == 5
    text = target.read_text()
    assert "# cause 1 of 2: 3 check(s) in 2 case(s)" in text
    written = yaml.safe_load(text)
    joker, turn = written["expected_causes"]
    assert joker["explained_by"] == {"VARIANT-01": "thirty"}
    assert "explained by VARIANT-01=thirty" in joker["summary"]
    assert joker["rules"] == ["SCORE-2", "SCORE-1"]
    assert joker["checks"] == {
        "cc-0302": ["step 3 deal_scores", "step 3 totals"],
        "cc-0209": ["check 1"],
    }
    assert (joker["reason"], turn["explained_by"]) == ("", None)
    assert turn["checks"] == {"cc-0101": ["step 2 turn"]}
    # A failing case without checks belongs to no cause: it is listed whole, as before.
    assert written["expected_failures"] == {"cc-0001": {"reason": ""}}
    # Read back, exactly those checks are expected, each saying its cause.
    loaded = load_expectations(target)
    assert loaded.expected_checks["cc-0302"] == dict.fromkeys(
        ["step 3 deal_scores", "step 3 totals"], joker["summary"]
    )
    assert [c.checks for c in loaded.causes][1] == (("cc-0101", "step 2 turn"),)
    again = apply_expectations(results, loaded)
    assert [r.status for r in again] == ["xfail", "xfail", "xfail", "xfail"]
    assert again[1].checks[0].note == f"expected failure: {joker['summary']}"
    # A new, different fault in a case a cause covers still fails: check-level precision.
    (first, *_rest) = apply_expectations(
        joker_run(fails("step 4 hands", "hands", "hands: expected 11, got 12", ("DEAL-1",))),
        loaded,
    )
    assert first.status == "fail"
    assert [c.status for c in first.checks] == ["xfail", "xfail", "pass", "fail"]


def test_a_deleted_cause_fails_again_and_a_kept_one_stays_expected(tmp_path: Path) -> None:
    results = joker_run()
    target = tmp_path / "e.json"
    write_expectations(target, results, by_cause=joker_causes(results))
    document = json.loads(target.read_text())
    document["expected_causes"] = document["expected_causes"][:1]  # the turn cause deleted
    document["expected_causes"][0]["reason"] = "we count the joker 30"
    target.write_text(json.dumps(document))
    loaded = load_expectations(target)
    again = apply_expectations(results, loaded)
    assert [r.status for r in again] == ["xfail", "xfail", "fail", "xfail"]
    assert again[0].checks[0].note == "expected failure: we count the joker 30"


def test_rewriting_by_cause_keeps_a_kept_cause_and_drops_what_passes_now(tmp_path: Path) -> None:
    results = joker_run()
    first = tmp_path / "first.yaml"
    write_expectations(first, results, by_cause=joker_causes(results))
    document = yaml.safe_load(first.read_text())
    document["expected_causes"][0]["reason"] = "we count the joker 30"
    first.write_text(yaml.safe_dump(document))
    previous = load_expectations(first)
    # The engine now scores cc-0209 right and has a new fault; the causes of this run
    # hold only its unexpected failures (an expected failure is no cause).
    from conformance.reports.causes import group_causes

    now = [
        checked(
            "cc-0302",
            fails(
                "step 3 deal_scores", "deal_scores", "expected [0, 50], got [0, 30]", ("SCORE-2",)
            ),
            fails("step 3 totals", "totals", "expected [9, 50], got [9, 30]", ("SCORE-1",)),
            fails("step 4 hands", "hands", "hands: expected 11, got 12", ("DEAL-1",)),
        ),
        checked("cc-0209", chk("check 1", "pass")),
        checked("cc-0101", fails("step 2 turn", "turn", "turn: expected 1, got 2", ("TURN-1",))),
    ]
    applied = apply_expectations(now, previous)
    second = tmp_path / "second.yaml"
    write_expectations(second, applied, previous, by_cause=group_causes(applied))
    kept, turn, new = yaml.safe_load(second.read_text())["expected_causes"]
    assert kept["reason"] == "we count the joker 30"
    assert kept["checks"] == {"cc-0302": ["step 3 deal_scores", "step 3 totals"]}
    assert turn["checks"] == {"cc-0101": ["step 2 turn"]}
    assert new["checks"] == {"cc-0302": ["step 4 hands"]} and new["reason"] == ""
    rerun = apply_expectations(now, load_expectations(second))
    assert [r.status for r in rerun] == ["xfail", "pass", "xfail"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "expected_failures:\n  cc-0001: {reason: x}\n"
            "expected_causes:\n  - {checks: {cc-0001: [final turn]}}\n",
            "expected_causes entry 1 names check 'final turn' of cc-0001, which is also listed",
        ),
        (
            "expected_failures:\n  - {id: cc-0001, check: final turn}\n"
            "expected_causes:\n  - {checks: {cc-0001: [final turn]}}\n",
            "expected_causes entry 1 names check 'final turn' of cc-0001 a second time",
        ),
        (
            "expected_causes:\n  - {checks: {cc-0001: [final turn]}}\n"
            "  - {checks: {cc-0001: [final turn]}}\n",
            "expected_causes entry 2 names check 'final turn' of cc-0001 a second time",
        ),
        (
            "expected_causes:\n  - {checks: {1234: [final turn]}}\n",
            "e.yaml:2: expected_causes entry 1: '1234' is not a case id",
        ),
        (
            "expected_causes:\n  - {checks: {cc-0001: [3]}}\n",
            "a check key must be a string, not int 3",
        ),
        ('expected_causes:\n  - {checks: {cc-0001: ["a\\x1b[2J"]}}\n', "holds control characters"),
        ("expected_causes:\n  - {summary: x}\n", "at /expected_causes/0"),
        ("expected_causes:\n  - {checks: {cc-0001: []}}\n", "at /expected_causes/0/checks/cc-0001"),
        ("expected_causes:\n  - {checks: {cc-0001: [a]}, why: x}\n", "at /expected_causes/0"),
        (
            "expected_causes:\n  - checks: {cc-0001: [a]}\n    summary: " + "s" * 501 + "\n",
            "e.yaml:3: expected_causes entry 1: a reason of 501 characters",
        ),
    ],
)
def test_a_bad_cause_entry_is_refused_naming_it(tmp_path: Path, text: str, message: str) -> None:
    f = tmp_path / "e.yaml"
    f.write_text(text)
    with pytest.raises(ExpectationsError, match=re.escape(message)):
        load_expectations(f)


def test_a_long_summary_is_cut_so_the_file_reads_back(tmp_path: Path) -> None:
    long = Cause(
        "x" * 900,
        1,
        ("cc-0101",),
        ("TURN-1",),
        Example("cc-0101", "step 2 turn"),
        members=(("cc-0101", "step 2 turn"),),
    )
    results = [
        checked("cc-0101", fails("step 2 turn", "turn", "turn: expected 1, got 2", ("TURN-1",)))
    ]
    target = tmp_path / "e.yaml"
    write_expectations(target, results, by_cause=[long])
    (cause,) = load_expectations(target).causes
    assert len(cause.summary) == 500 and cause.summary.endswith("…")


@pytest.fixture
def untimed_explanation(monkeypatch: pytest.MonkeyPatch) -> None:
    """What explains a failure, found whatever the machine's load: the explanation's time
    bound (twice the run's grading time, conformance/run/budget.py) is measured
    by benchmarks/causes_bench.py, never by a test."""
    monkeypatch.setenv(COST_VARIABLE, "10000")


@pytest.mark.slow
@pytest.mark.usefixtures("untimed_explanation")
def test_a_file_written_by_cause_greens_the_same_engine_and_no_other_fault(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The reference playing joker 30 and hiding it: the file written by cause expects
    exactly its failures; a fixed engine is xpass (fails --strict); a second hidden option
    still fails, in the very cases the cause covers."""
    import sys

    from conformance.cli import main

    house = f"{sys.executable} {Path(__file__).parents[1] / 'fake_adapters' / 'house_engine.py'}"
    picked = [
        a for cid in ("cc-0302", "cc-0209", "cc-1000", "cc-0101") for a in ("--scenario", cid)
    ]

    def run(adapter: str, *flags: str) -> tuple[int, dict[str, Any]]:
        report = tmp_path / "r.json"
        argv = ["run", "--profile", "argentine", "--adapter", adapter, "--json", str(report)]
        code = main([*argv, *picked, *flags])
        capsys.readouterr()
        return code, json.loads(report.read_text())

    written = tmp_path / "e.yaml"
    thirty = f"{house} --ruling VARIANT-01=thirty --undeclared"
    code, document = run(thirty, "--write-expectations", str(written), "--by-cause")
    assert code == 1
    failing = {
        (c["id"], k["key"]) for c in document["cases"] for k in c["checks"] if k["status"] == "fail"
    }
    (cause,) = yaml.safe_load(written.read_text())["expected_causes"]
    assert cause["explained_by"] == {"VARIANT-01": "thirty"}
    assert {(cid, key) for cid, keys in cause["checks"].items() for key in keys} == failing
    code, document = run(thirty, "--expectations", str(written), "--strict")
    assert code == 0 and document["summary"].get("fail", 0) == 0
    fixed = house
    assert run(fixed, "--expectations", str(written))[0] == 0
    assert run(fixed, "--expectations", str(written), "--strict")[0] == 1
    both = f"{thirty} --ruling VARIANT-05=twelve"
    code, document = run(both, "--expectations", str(written), "--no-explain")
    assert code == 1
    (case_0302,) = [c for c in document["cases"] if c["id"] == "cc-0302"]
    statuses = {k["key"]: k["status"] for k in case_0302["checks"]}
    assert case_0302["status"] == "fail"
    assert statuses["step 3 deal_scores"] == "xfail" and statuses["step 4 hands"] == "fail"


def test_a_cause_entry_naming_a_case_not_in_the_corpus_is_named(tmp_path: Path) -> None:
    from conformance.grading.results import RunResult, count_statuses
    from conformance.jobs import with_expectations

    f = tmp_path / "e.yaml"
    f.write_text("expected_causes:\n  - {checks: {cc-9999: [check 1]}, summary: retired}\n")
    results = (checked("cc-0101", chk("check 1", "pass")),)
    run = RunResult(("engine",), "argentine", None, results, count_statuses(results))
    warned = with_expectations(run, load_expectations(f), known_ids=["cc-0101"])
    assert warned.warnings == (
        "expectations file names 1 id(s) that are not in the corpus: cc-9999",
    )


# --- a rewrite keeps what the run could not judge; files it cannot trust are refused ------


def test_rewriting_in_place_keeps_the_entries_of_errored_and_unselected_cases(
    tmp_path: Path,
) -> None:
    """An errored case's entry was dropped when E was rewritten in place."""
    f = tmp_path / "e.yaml"
    f.write_text(
        "expected_failures:\n"
        "  cc-0001: {reason: our reading}\n"
        "  cc-0002:\n    checks:\n      step 1 totals: {reason: joker counts 30}\n"
        "  cc-0003: {reason: not selected this time}\n"
        "  cc-0004: {reason: passes now}\n"
    )
    loaded = load_expectations(f)
    results = apply_expectations(
        [case("cc-0001", "error"), case("cc-0002", "not_run"), case("cc-0004", "pass")], loaded
    )
    assert write_expectations(f, results, loaded) == 3
    assert yaml.safe_load(f.read_text()) == {
        "expected_failures": {
            "cc-0001": {"reason": "our reading"},
            "cc-0002": {"checks": {"step 1 totals": {"reason": "joker counts 30"}}},
            "cc-0003": {"reason": "not selected this time"},
        }
    }


def test_rewriting_by_cause_keeps_a_cause_whose_case_errored(tmp_path: Path) -> None:
    f = tmp_path / "e.yaml"
    f.write_text(
        "expected_causes:\n"
        "- summary: jokers count 25\n  reason: our house rule\n  rules: [SCORE-2]\n"
        "  checks:\n    cc-0302: [step 3 totals]\n"
    )
    loaded = load_expectations(f)
    results = apply_expectations([case("cc-0302", "error")], loaded)
    write_expectations(f, results, loaded, by_cause=())
    again = load_expectations(f)
    assert [(c.reason, c.checks) for c in again.causes] == [
        ("our house rule", (("cc-0302", "step 3 totals"),))
    ]


@pytest.mark.parametrize(
    ("text", "lines"),
    [
        (
            "expected_failures:\n  cc-0001: {reason: a}\n  cc-0002: {reason: b}\n"
            "  cc-0001: {reason: c}\n",
            "lines 2 and 4",
        ),
        ("expected_failures: {}\nexpected_failures:\n  cc-0001: {reason: a}\n", "lines 1 and 2"),
        ("expected_failures:\n  cc-0001: {reason: a, reason: b}\n", "lines 2 and 2"),
    ],
    ids=["a case twice", "the section twice", "a reason twice"],
)
def test_a_key_written_twice_is_refused_naming_both_lines(
    tmp_path: Path, text: str, lines: str
) -> None:
    f = tmp_path / "e.yaml"
    f.write_text(text)
    with pytest.raises(ExpectationsError, match=f"written twice in one mapping, at {lines}"):
        load_expectations(f)


def test_a_json_file_with_a_key_twice_is_refused_too(tmp_path: Path) -> None:
    f = tmp_path / "e.json"
    f.write_text('{"expected_failures": {\n"cc-0001": {"reason": "a"},\n"cc-0001": {}}}\n')
    with pytest.raises(ExpectationsError, match=r"e\.json:3: the key 'cc-0001' is written twice"):
        load_expectations(f)


def test_a_fifo_or_a_device_is_refused_not_read(tmp_path: Path) -> None:
    """A FIFO given as --expectations hung run and fuzz; /dev/zero too."""
    import os

    fifo = tmp_path / "e.yaml"
    os.mkfifo(fifo)
    for path in (fifo, Path("/dev/zero")):
        with pytest.raises(ExpectationsError, match="not a regular file"):
            load_expectations(path)


@pytest.mark.parametrize("command", ["run", "fuzz"])
def test_run_and_fuzz_refuse_a_fifo_as_expectations_before_anything_starts(
    tmp_path: Path, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    import os

    from conformance.cli import main

    fifo = tmp_path / "e.yaml"
    os.mkfifo(fifo)
    extra = ["--out", str(tmp_path / "out")] if command == "fuzz" else []
    assert main([command, "--expectations", str(fifo), *extra]) == 2
    assert "a FIFO, not a regular file" in capsys.readouterr().err
