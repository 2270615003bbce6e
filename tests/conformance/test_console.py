"""What a run prints (conformance/reports/console.py), from results built here: brief where all is
as expected, the detail where something differs, and counts by failing checks."""

from __future__ import annotations

from types import MappingProxyType

from conformance.adapter.engine import Handshake
from conformance.grading.results import (
    CaseResult,
    CheckResult,
    PropertyResult,
    RunResult,
    count_statuses,
)
from conformance.knowledge.catalogue import load_catalogue
from conformance.reports.console import NORMAL, QUIET, VERBOSE, run_text
from conformance.run.verdict import judge

CATALOGUE = load_catalogue()
JOKER = "joker left in hand: expected 50, got 30"


def engine(**rulings: str) -> Handshake:
    return Handshake(
        1, "engine", "1.0", "python", ("argentine",), frozenset({"melds", "turns", "deals"}),
        rulings=MappingProxyType(rulings),
    )  # fmt: skip


def failing(key: str, rules: tuple[str, ...], signature: str, diff: str) -> CheckResult:
    return CheckResult(key, "totals", rules, "fail", diff=diff, signature=signature)


def passing(key: str = "step 1 accepted") -> CheckResult:
    return CheckResult(key, "accepted", ("TURN-1",), "pass")


def run_of(
    *results: CaseResult, hs: Handshake | None = None, laws: tuple[PropertyResult, ...] = ()
) -> RunResult:
    return RunResult(
        argv=("engine",),
        profile="argentine",
        handshake=hs or engine(),
        results=tuple(results),
        counts=count_statuses(results),
        properties=laws,
        corpus_path="/corpus",
    )


def text(run: RunResult, verbosity: str = NORMAL, part_of_all: bool = False) -> str:
    return run_text(
        run, CATALOGUE, judge(run, CATALOGUE), verbosity=verbosity, part_of_all=part_of_all
    )


def scoring_run() -> RunResult:
    """Two dealer-rotation cases broken by one root cause (a joker counted 30), plus a pass."""
    first = CaseResult(
        "cc-0302", "Dealer passes left", ("DEAL-2", "END-1"), "DEAL", "fail",
        checks=(
            passing("step 2 dealer"),
            failing("step 3 totals", ("SCORE-2",), JOKER, "expected [50, 0]\ngot      [30, 0]"),
            failing("step 3 deal_scores", ("SCORE-2",), JOKER, "expected 50\ngot      30"),
        ),
        failed_rules=("SCORE-2",),
    )  # fmt: skip
    second = CaseResult(
        "cc-0303", "Dealer passes again", ("DEAL-2",), "DEAL", "fail",
        checks=(
            passing("step 4 dealer"),
            failing("final totals", ("SCORE-2",), JOKER, "expected [0, 50]\ngot [0, 30]"),
            failing("final winners", ("END-1", "END-4"), "winners: expected [0], got [1]", "wd"),
        ),
        failed_rules=("END-1", "END-4", "SCORE-2"),
    )  # fmt: skip
    fine = CaseResult(
        "cc-0001", "A trio", ("MELD-TRIO-1",), "MELD-TRIO", "pass", checks=(passing(),)
    )
    return run_of(first, second, fine)


def test_failing_checks_are_counted_by_their_own_rules_not_the_cases_topic() -> None:
    out = text(scoring_run())
    block = out.split("Failing checks by rule:\n")[1].split("\n\n")[0].splitlines()
    assert [line.split() for line in block] == [["SCORE-2", "3"], ["END-1", "1"], ["END-4", "1"]]
    assert "DEAL-2" not in "\n".join(block)  # the cases' topic, not broken by any check


def test_a_root_cause_is_shown_once_with_its_count() -> None:
    out = text(scoring_run())
    # Scores off by one card value are one cause; the winners of the same final block follow
    # the totals that failed first there.
    assert (
        "  1. JK counted 30 instead of 50 — 4 check(s) in 2 case(s) [SCORE-2, END-1, END-4]" in out
    )
    assert "     e.g. cc-0302 step 3 totals (line 0); also cc-0303" in out
    assert "Divergences" not in out
    # Its diffs are not repeated case by case.
    assert "got      [30, 0]" not in out
    # A case whose every failing check is told there is one line naming them.
    assert out.count("cause 1 (see Causes)") == 2
    (line,) = [line for line in out.splitlines() if "FAIL" in line and "cc-0302" in line]
    assert "step 3 totals" in line and line.endswith(": cause 1 (see Causes)")
    verbose = text(scoring_run(), VERBOSE)
    assert "got      [30, 0]" in verbose and "see Causes" not in verbose
    # -v lists every check of the cause under it.
    assert "       cc-0303 final winners line 0: wd" in verbose


def test_the_summary_line_shows_graded_checks_and_what_was_not_graded() -> None:
    run = run_of(
        CaseResult(
            "cc-1", "t", ("TURN-1",), "TURN", "pass",
            checks=(passing(), CheckResult("step 2 reason", "reason", ("TURN-1",), "not_graded",
                                           cause="capability")),
        ),
    )  # fmt: skip
    last = text(run).rstrip().splitlines()[-1]
    assert last.startswith("1 cases: 1 pass in 0.0 s; ")
    assert last.endswith("graded 1/2 checks (not graded: 1 capability not claimed)")


def test_a_clean_run_is_one_line_per_section_then_the_summary() -> None:
    out = text(scoring_run()).splitlines()
    assert out[0].startswith("carioca-conformance ") and out[1] == "corpus: /corpus"
    sections = [line for line in out if " — " in line and not line.startswith(" ")]
    assert sections[0].startswith("MELD-TRIO — ") and sections[1].startswith("DEAL — ")


def test_rulings_show_only_the_profiles_points_the_engine_plays_otherwise() -> None:
    # VARIANT-01 is argentine's (fifty); DISPUTE-39 is a point of another profile, which a
    # many-profile engine declares too: it is not graded here, so it is not shown.
    hs = engine(**{"VARIANT-01": "thirty", "DISPUTE-39": "either", "DISPUTE-31": "exact"})
    run = run_of(CaseResult("cc-1", "t", ("TURN-1",), "TURN", "pass", checks=(passing(),)), hs=hs)
    out = text(run)
    rows = out.split("Rulings the engine plays otherwise (engine / profile argentine):\n")[1]
    assert [line.split()[:3] for line in rows.splitlines() if line.startswith(" *")] == [
        ["*VARIANT-01", "thirty", "fifty"]
    ]
    assert "DISPUTE-39" not in out and "DISPUTE-31" not in out
    table = text(run, VERBOSE).split("; * where they differ):\n")[1].split("\n\n")[0]
    assert len(table.splitlines()) == len(CATALOGUE.disputes_for("argentine"))
    assert " DISPUTE-31  exact          exact" in table
    assert " DISPUTE-01  not declared" in table
    # The engine plays every point as the profile does: no rulings block at all.
    assert "Rulings" not in text(run_of(*run.results))


def test_laws_that_held_are_one_line_and_a_broken_one_is_named() -> None:
    held = tuple(PropertyResult(n, ("CARDS-1",), True, "checked", 3) for n in ("a", "b", "c"))
    run = run_of(
        CaseResult("cc-1", "t", ("TURN-1",), "TURN", "pass", checks=(passing(),)), laws=held
    )
    quiet = text(run, QUIET)
    assert [line for line in quiet.splitlines() if "Laws" in line or "held" in line] == [
        "Laws over seeded deals (seed 3): all 3 held"
    ]
    assert len(quiet.splitlines()) == 3  # header, laws, summary
    broken = (*held[:2], PropertyResult("c", ("CARDS-1",), False, "a card vanished", 3))
    out = text(run_of(*run.results, laws=broken), QUIET)
    assert "Laws over seeded deals (seed 3): 2 of 3 held" in out
    assert "  FAIL c (CARDS-1): a card vanished" in out and "  pass a" not in out


def test_laws_an_engine_lacks_the_capabilities_for_are_one_line_saying_what_they_need() -> None:
    why = "not checked: needs the turns and deals capabilities (the engine does not claim turns)"
    laws = tuple(PropertyResult(n, ("CARDS-1",), False, why, 3, False, False) for n in "abc")
    run = run_of(
        CaseResult("cc-1", "t", ("TURN-1",), "TURN", "pass", checks=(passing(),)), laws=laws
    )
    out = text(run, QUIET)
    assert f"Laws over seeded deals (seed 3): {why}" in out
    assert "held" not in out and "FAIL" not in out


def test_within_profile_all_a_quiet_clean_profile_is_its_summary_line_alone() -> None:
    run = run_of(CaseResult("cc-1", "t", ("TURN-1",), "TURN", "unsupported"))
    run = run_of(
        CaseResult("cc-1", "t", ("TURN-1",), "TURN", "pass", checks=(passing(),)), *run.results
    )
    assert text(run, QUIET, part_of_all=True).splitlines() == [
        "argentine: 2 cases: 1 pass, 1 unsupported in 0.0 s; graded 1/1 checks"
    ]
    loud = text(scoring_run(), QUIET, part_of_all=True).splitlines()
    assert loud[0] == "== profile argentine" and loud[-1].startswith("argentine: 3 cases: ")
    assert any(line.startswith("  FAIL        cc-0302") for line in loud)


def test_causes_beyond_the_first_ten_are_counted_in_one_line() -> None:
    cases = [
        CaseResult(
            f"cc-{n:04d}", "t", ("TURN-1",), "TURN", "fail",
            checks=(CheckResult("step 1 phase", f"phase{n}", ("TURN-1",), "fail", step=1,
                                diff=f"phase {n}", signature=f"phase{n}: expected p, got q"),),
        )
        for n in range(12)
    ]  # fmt: skip
    out = text(run_of(*cases))
    block = out.split("Causes (most checks first):\n")[1].split("\n\n")[0]
    assert "  10. " in block and "  11. " not in block
    assert "  and 2 more cause(s) of 2 check(s) (-v lists them)" in block
    assert "  12. " in text(run_of(*cases), VERBOSE)
