"""The audit both ways (conformance/audit/bothways.py) and its static half (``check
--strict``, conformance/audit/static.py); the grading's audit mode that grades assumed checks
anyway (RunOptions.grade_assumed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance.audit.allowance import AllowanceError, parse_allowance, read_allowance
from conformance.audit.bothways import Assumption, Use, gated_checks
from conformance.audit.static import static_findings
from conformance.cli import main
from conformance.knowledge.catalogue import load_catalogue
from conformance.run.runner import RunOptions, run_scenarios
from conformance.scenarios import load_corpus
from tests.adapters import REFERENCE

#: An engine that answers is all these tests need: the reference answers in-process
#: (tests/adapters.py); the tests of what its process does run it as a process.
pytestmark = pytest.mark.usefixtures("reference_in_process")

DATA = Path(__file__).parent / "data" / "audit"


def _statuses(path: Path, extra: list[str], grade_assumed: frozenset[str]) -> dict[str, str]:
    loaded = load_corpus([path], catalogue=load_catalogue())
    run = run_scenarios(
        [*REFERENCE, *extra],
        loaded.scenarios,
        RunOptions(grade_assumed=grade_assumed),
        catalogue=load_catalogue(),
    )
    return {f"{r.id} {c.key}": c.status for r in run.results for c in r.checks}


def test_grade_assumed_grades_a_steps_checks_and_the_later_ones_anyway() -> None:
    thirty = ["--ruling", "VARIANT-01=thirty"]
    plain = _statuses(DATA / "grade-anyway.yaml", thirty, frozenset())
    assert plain["cc-9031 step 1 accepted"] == "pass"
    assert plain["cc-9031 step 2 accepted"] == "not_graded"
    assert plain["cc-9031 final phase"] == "not_graded"
    anyway = _statuses(DATA / "grade-anyway.yaml", thirty, frozenset({"VARIANT-01"}))
    assert set(anyway.values()) == {"pass"}
    # Only the points named are graded anyway.
    other = _statuses(DATA / "grade-anyway.yaml", thirty, frozenset({"VARIANT-02"}))
    assert other == plain


def test_grade_assumed_grades_case_and_check_assumptions_anyway() -> None:
    thirty = ["--ruling", "VARIANT-01=thirty"]
    plain = _statuses(DATA / "both-ways.yaml", thirty, frozenset())
    assert plain["cc-9021 check 1"] == "not_graded"  # the case assumes fifty
    assert plain["cc-9023 check 1"] == "pass"
    assert plain["cc-9023 check 2"] == "not_graded"  # the check assumes fifty
    anyway = _statuses(DATA / "both-ways.yaml", thirty, frozenset({"VARIANT-01"}))
    # The penalty of a joker under thirty is not 55: the assumption is needed there only.
    assert anyway["cc-9021 check 1"] == "pass"
    assert anyway["cc-9021 check 2"] == "fail"
    assert anyway["cc-9023 check 2"] == "fail"


def test_both_ways_names_the_unneeded_and_the_too_wide(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "bw.json"
    args = ["audit", "--both-ways", "--point", "VARIANT-01", "--point", "VARIANT-02"]
    code = main([*args, "--workers", "1", "--json", str(out), str(DATA / "both-ways.yaml")])
    text = capsys.readouterr().out
    assert code == 1
    assert (
        "cc-9022: the case assumes VARIANT-02=low_or_high, but every check it gates (1) "
        "passes under low_only too (in argentine): remove it"
    ) in text
    assert "cc-9021: the case assumes VARIANT-01=fifty, but 1 of the 2 checks" in text
    assert "needed by check 2 (fails under thirty): move it down to the assumes of check 2" in (
        text
    )
    assert "cc-9023" not in text  # its assumption sits on the one check that needs it
    found = json.loads(out.read_text(encoding="utf-8"))
    assert found["ok"] is False
    kinds = {(f["case"], f["kind"]) for f in found["both_ways"]}
    assert kinds == {("cc-9022", "unneeded"), ("cc-9021", "too_wide")}
    wide = next(f for f in found["both_ways"] if f["kind"] == "too_wide")
    assert wide["needed_by"] == {"check 2": "fails under thirty"}


def test_a_step_assumption_needed_by_its_acceptance_is_not_too_wide() -> None:
    # Needed by step 2's acceptance: a step's assumes gates that step and every later one,
    # so moving it anywhere narrower is impossible.
    use = Use(Assumption("cc-1", "case", "P", "a"))
    plan = {
        "step 1 accepted": (1, "accepted"),
        "step 2 accepted": (2, "accepted"),
        "step 2 totals": (2, "totals"),
        "final totals": (None, "totals"),
    }
    use.places.update(plan)
    use.gated.update(dict.fromkeys(plan))
    use.options["b"] = None
    use.passed.update(dict.fromkeys(["step 1 accepted"]))
    use.needed.update({"step 2 accepted": "fails under b", "final totals": "not graded"})
    assert use.too_wide and use.narrower() == 1
    assert use.advice() == "step 2's assumes"
    use.needed["step 1 accepted"] = "fails under b"
    assert not use.too_wide


def test_gated_checks_of_a_case_a_step_and_a_check() -> None:
    loaded = load_corpus([DATA / "grade-anyway.yaml"], catalogue=load_catalogue())
    plan = loaded.scenarios[0].plan_for("argentine")
    case = gated_checks(Assumption("cc-9031", "case", "VARIANT-01", "fifty"), plan)
    step = gated_checks(Assumption("cc-9031", "step 2", "VARIANT-01", "fifty"), plan)
    check = gated_checks(Assumption("cc-9031", "step 2 turn", "VARIANT-01", "fifty"), plan)
    assert case[0] == "step 1 accepted" and "final phase" in case
    assert step == ["step 2 accepted", "step 2 turn", "final phase"]
    assert check == ["step 2 turn"]
    assert not any("invariants" in key for key in case)


# -- static ---------------------------------------------------------------------------------


def test_static_findings_need_no_run() -> None:
    loaded = load_corpus([DATA / "static.yaml"], catalogue=load_catalogue())
    found = static_findings(loaded.scenarios, load_catalogue())
    assert [(f.case, f.where.rsplit(":", 1)[1]) for f in found] == [
        ("cc-9011", "12"),
        ("cc-9012", "16"),
    ]
    assert "by_option on VARIANT-01 gives the same value for every option" in found[0].message
    assert "assumes DISPUTE-48 option 'wild', which none of its profiles" in found[1].message


def test_check_strict_fails_on_static_findings(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(DATA / "static.yaml")]) == 0
    assert main(["check", "--strict", str(DATA / "static.yaml")]) == 2
    assert "2 audit finding(s) (--strict)" in capsys.readouterr().err
    assert main(["check", "--strict", str(DATA / "both-ways.yaml")]) == 0


# -- the allowance file ---------------------------------------------------------------------


def test_an_allowance_written_by_a_run_lets_exactly_that_run_pass(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    allowance = tmp_path / "allowance.yaml"
    files = [str(DATA / "both-ways.yaml"), str(DATA / "interface-ace.yaml")]
    args = ["audit", "--graded", "--both-ways", "--point", "VARIANT-01", "--point", "VARIANT-02"]
    args += ["--workers", "1"]
    assert main([*args, "--write-allowance", str(allowance), *files]) == 1
    capsys.readouterr()
    written = read_allowance(allowance)
    # 9 checks at the profile's rulings. Under thirty, cc-9021's two (its case assumes fifty)
    # and cc-9023's check 2 are not graded: 6/9. Under low_only, cc-9022's one and cc-9002's
    # check 2: 7/9, and cc-9001's check 2 fails. Shares are kept rounded down.
    assert written.floors == {
        "argentine": {"VARIANT-01=thirty": 0.666, "VARIANT-02=low_only": 0.777}
    }
    assert written.failing == {("argentine", "VARIANT-02=low_only", "cc-9001", "check 2")}
    assert written.both_ways == {
        ("cc-9021", "case", "VARIANT-01"),
        ("cc-9022", "case", "VARIANT-02"),
    }
    assert main([*args, "--allowance", str(allowance), *files]) == 0
    out = capsys.readouterr().out
    assert "allowed for now" in out and "no longer needed" not in out
    # An OK under an allowance says so: it never claims what the allowance excuses.
    assert "no check fails that the allowance does not list" in out
    assert "no finding the allowance does not list (2 listed)" in out
    assert "each needed by every check it gates" not in out
    # An entry the corpus no longer needs is named, to be removed; it does not fail the run.
    text = allowance.read_text(encoding="utf-8")
    allowance.write_text(
        text.replace(
            "both_ways:\n", "both_ways:\n  - {case: cc-9023, where: case, point: VARIANT-01}\n"
        ),
        encoding="utf-8",
    )
    assert main([*args, "--allowance", str(allowance), *files]) == 0
    out = capsys.readouterr().out
    assert "both_ways cc-9023 case VARIANT-01" in out
    # Only what the run could see: floors are judged on the whole corpus alone, and no
    # entry of a case outside the selection is called stale.
    assert "floors." not in out and "1 allowance entry(ies) no longer needed" in out


def test_a_lower_share_than_allowed_still_fails() -> None:
    allowance = parse_allowance({"floors": {"perla": {"P=x": 0.5}}}, "a.yaml")
    assert allowance.floor("perla", "P=x", 0.97) == 0.5
    assert allowance.floor("perla", "Q=y", 0.97) == 0.97
    assert allowance.floor("perla", "P=x", 0.4) == 0.4  # never above the floor asked for


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ({"floors": {"perla": {"P=x": 1.5}}}, "floors.perla.P=x: expected a share 0..1"),
        ({"failing": [{"case": "cc-1"}]}, "failing[0]: expected a mapping with profile"),
        ({"colour": []}, "expected a mapping of floors, failing and both_ways"),
    ],
)
def test_a_bad_allowance_is_named(data: object, words: str) -> None:
    with pytest.raises(AllowanceError, match=r"a\.yaml") as caught:
        parse_allowance(data, "a.yaml")
    assert words in str(caught.value)


def test_both_ways_under_point_judges_only_that_points_assumptions(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["audit", "--both-ways", "--point", "VARIANT-01", "--workers", "1"]
    assert main([*args, str(DATA / "both-ways.yaml")]) == 1
    text = capsys.readouterr().out
    assert "cc-9021: the case assumes VARIANT-01=fifty" in text
    assert "cc-9022" not in text  # its VARIANT-02 assumption is not audited here


def test_a_pass_after_an_earlier_divergence_does_not_make_an_assumption_unneeded() -> None:
    # Under the other option step 3's scores fail, the grading puts the expected state back,
    # and step 4's totals then pass. An engine ruling that option has step 3's scores not
    # graded, so it is never put back, and its step 4 totals carry step 3's other scores:
    # the pass is no evidence that step 4's totals need no assumption.
    from conformance.audit.bothways import _outcome
    from conformance.audit.runs import CaseRecord, CheckRecord

    record = CaseRecord(
        "cc-9900",
        "fail",
        "",
        (
            CheckRecord("step 1 accepted", "pass"),
            CheckRecord("check 1", "fail"),
            CheckRecord("check 2", "pass"),
            CheckRecord("step 3 deal_scores", "fail"),
            CheckRecord("step 4 totals", "pass"),
            CheckRecord("check 3", "pass"),
        ),
    )
    # A query check is graded on its own: a failed one puts nothing back.
    assert _outcome(record, "check 2") is None
    assert _outcome(record, "step 4 totals") == "passes only after an earlier divergence"
    # Queries ask about no state, so an earlier state divergence does not touch them.
    assert _outcome(record, "check 3") is None
    assert _outcome(record, "step 3 deal_scores") == "fails"
    assert _outcome(record, "step 1 accepted") is None
