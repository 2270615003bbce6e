"""The ruling audit (conformance/audit.py, ``carioca-conformance audit``) and grading under
declared rulings: an engine that rules otherwise on a point is never failed for it."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from conformance.audit import Finding, audit, audit_summary, changes_to_audit, judge, names_point
from conformance.cli import main
from conformance.knowledge.catalogue import load_catalogue
from conformance.run.runner import CaseResult, RunOptions, RunResult, run_scenarios
from conformance.scenarios import Scenario, load_corpus, resolve_option
from conformance.scenarios.corpus import default_corpus_dir
from tests.adapters import REFERENCE

#: An engine that answers is all these tests need: the reference answers in-process
#: (tests/adapters.py); the tests of what its process does run it as a process.
pytestmark = pytest.mark.usefixtures("reference_in_process")

CORPUS = default_corpus_dir()


@pytest.fixture(scope="module")
def corpus() -> list[Scenario]:
    loaded = load_corpus([CORPUS], catalogue=load_catalogue())
    assert not loaded.errors
    # The reference runs below play the Argentine profile (the Chilean slice: audit --profile).
    return [s for s in loaded.scenarios if "argentine" in s.profiles]


def _broken_copy(tmp_path: Path) -> Path:
    """The file holding cc-0102 with its check's DISPUTE-31 values cut to the profile's.

    The check then says a four-card trio is refused without naming the point it leans on,
    which an engine ruling ``at_least`` would be failed for.
    """
    source = CORPUS / "contracts" / "deal-1.yaml"
    text = source.read_text(encoding="utf-8")
    start = text.index("id: cc-0102")
    end = text.index("\n---", start)
    case = text[start:end]
    at = case.index("    expect:\n")
    assert "by_option:" in case[at:] and "DISPUTE-31" in case[at:], "cc-0102 changed shape"
    broken = case[:at] + "    expect: {valid: false, reason: trio_size}\n"
    target = tmp_path / "deal-1.yaml"
    target.write_text(text[:start] + broken.rstrip("\n") + text[end:], encoding="utf-8")
    return target


def test_changes_are_the_profiles_rulings_then_every_other_option() -> None:
    changes = changes_to_audit(load_catalogue())
    assert changes[0] == (None, None)
    assert ("DISPUTE-31", "at_least") in changes and ("DISPUTE-31", "exact") not in changes
    assert ("VARIANT-01", "thirty") in changes
    argentine = load_catalogue().disputes_for("argentine").values()
    assert len(changes) == 1 + sum(len(p.options) - 1 for p in argentine)


def test_audit_passes_on_the_corpus_for_opening_meld_size() -> None:
    # The whole audit (every option) runs in tox's `audit` env; this keeps the suite quick.
    result = audit(REFERENCE, [CORPUS], load_catalogue(), points=["DISPUTE-31"], workers=1)
    assert result.ok, "\n".join(f.line() for f in result.findings)
    assert result.changes == (
        (None, None),
        ("DISPUTE-31", "at_least"),
        ("DISPUTE-31", "runs_at_least"),
    )
    assert result.cases >= 250


def test_audit_fails_on_a_case_that_stops_naming_its_point(tmp_path: Path) -> None:
    broken = _broken_copy(tmp_path)
    result = audit(REFERENCE, [broken], load_catalogue(), points=["DISPUTE-31"], workers=1)
    assert not result.ok
    assert [(f.case, f.point, f.option, f.status) for f in result.findings] == [
        ("cc-0102", "DISPUTE-31", "at_least", "fail")
    ]
    assert "does not name DISPUTE-31" in result.findings[0].detail


def test_audit_command_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = _broken_copy(tmp_path)
    assert main(["audit", "--point", "DISPUTE-31", "--workers", "1", str(broken)]) == 1
    out = capsys.readouterr().out
    assert "cc-0102 under DISPUTE-31=at_least: fail" in out and "audit FAILED" in out
    shutil.copy(CORPUS / "contracts" / "deal-1.yaml", broken)
    assert main(["audit", "--point", "DISPUTE-31", "--workers", "1", str(broken)]) == 0
    assert "audit OK" in capsys.readouterr().out
    assert main(["audit", "--point", "DISPUTE-99", str(broken)]) == 2


def test_judge_accepts_pass_and_unsupported_only_for_a_named_point(
    corpus: list[Scenario],
) -> None:
    case = next(s for s in corpus if s.id == "cc-0102")
    assert names_point(case, "DISPUTE-31") and not names_point(case, "DISPUTE-25")
    base = CaseResult(case.id, case.title, case.rules, "CONTRACT", "pass")
    assert judge(case, base, ("DISPUTE-25", "wild")) is None
    unsupported = replace(base, status="unsupported", note="assumes")
    assert judge(case, unsupported, ("DISPUTE-31", "at_least")) is None
    found = judge(case, unsupported, ("DISPUTE-25", "wild"))
    assert isinstance(found, Finding) and found.point == "DISPUTE-25"
    assert judge(case, replace(base, status="fail"), (None, None)) is not None


def _run(extra: list[str], scenarios: list[Scenario]) -> RunResult:
    return run_scenarios([*REFERENCE, *extra], scenarios, RunOptions(), catalogue=load_catalogue())


def test_an_engine_ruling_at_least_is_never_failed_for_opening_meld_size(
    corpus: list[Scenario],
) -> None:
    run = _run(["--ruling", "DISPUTE-31=at_least"], corpus)
    assert run.handshake is not None and run.handshake.rulings["DISPUTE-31"] == "at_least"
    bad = [(r.id, r.status) for r in run.results if r.status not in ("pass", "unsupported")]
    assert bad == []
    # A case that only checks the point in passing (cc-0102: a four-card trio in deal 1)
    # gives its at_least value and is graded on it, not skipped.
    by_id = {r.id: r for r in run.results}
    assert by_id["cc-0102"].status == "pass"
    assert [c.status for c in by_id["cc-0102"].checks] == ["pass"]
    # The case about the point itself is graded against the engine's option, and passes.
    graded = {r.id: (r.option, r.status) for r in run.results}
    assert graded["cc-0136"] == ("at_least", "pass")


def _names_option(scenario: Scenario, point: str, option: str) -> bool:
    """True if the case is about ``point`` and has an expectation for ``option``."""
    if scenario.disputed is None or scenario.disputed.id != point:
        return False
    try:
        resolve_option([s.expect for s in scenario.steps or ()], option)
        resolve_option([c.expect for c in scenario.checks or ()], option)
        resolve_option(scenario.final, option)
        resolve_option([s.state for s in scenario.steps or ()], option)
    except KeyError:
        return False
    return True


@pytest.mark.parametrize("point", sorted(load_catalogue().disputes))
def test_the_reference_under_each_option_passes_every_case_naming_it(
    point: str, corpus: list[Scenario]
) -> None:
    for option in load_catalogue().disputes[point].options:
        cases = [s for s in corpus if _names_option(s, point, option)]
        if not cases:
            continue
        # A case may lean on other points (cc-2701 plays new melds under VARIANT-04
        # `allowed`): the engine under test declares those too, as an honest one would.
        for assumed, group in _by_assumptions(cases, point).items():
            rulings = [f"{p}={o}" for p, o in (*assumed, (point, option))]
            run = _run([a for r in rulings for a in ("--ruling", r)], group)
            statuses = {r.id: r.status for r in run.results}
            assert statuses == {s.id: "pass" for s in group}, (option, assumed)


def _by_assumptions(
    cases: list[Scenario], point: str
) -> dict[tuple[tuple[str, str], ...], list[Scenario]]:
    groups: dict[tuple[tuple[str, str], ...], list[Scenario]] = {}
    for case in cases:
        key = tuple(sorted((p, o) for p, o in case.assumes.items() if p != point))
        groups.setdefault(key, []).append(case)
    return groups


def test_a_case_for_another_interface_reading_is_audited_in_that_reading() -> None:
    # cc-9001 and cc-9002 are written for engines that arrange runs themselves
    # (run_order: engine): the audit plays them with the reference in that reading, so
    # cc-9001's unnamed lean on the high ace (VARIANT-02) is caught, and cc-9002, which
    # names it on its check, is honest.
    cases = Path(__file__).parent / "data" / "audit" / "interface-ace.yaml"
    result = audit(REFERENCE, [cases], load_catalogue(), points=["VARIANT-02"], workers=1)
    assert result.not_audited == ()
    assert [(f.case, f.point, f.option, f.status) for f in result.findings] == [
        ("cc-9001", "VARIANT-02", "low_only", "fail")
    ]
    assert "does not name VARIANT-02" in audit_summary(result)
