"""Runner statuses against a fake adapter and the reference adapter."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from conformance.errors import EngineError
from conformance.knowledge.catalogue import load_catalogue
from conformance.run.runner import CaseRunner, RunOptions, run_scenarios, section_of, start_session
from conformance.scenarios import Scenario, load_corpus
from tests.adapters import REFERENCE

#: An engine that answers is all these tests need: the reference answers in-process
#: (tests/adapters.py); the tests of what its process does run it as a process.
pytestmark = pytest.mark.usefixtures("reference_in_process")

DATA = Path(__file__).parent / "data"
FAKE = [sys.executable, str(DATA / "fake_engine.py")]
CATALOGUE = load_catalogue(DATA / "catalogue.json")
# Generous limits: a loaded CI machine must never turn a prompt answer into a timeout (a
# test of a hang sets its own).
FAST = RunOptions(timeout=30.0, case_timeout=60.0)


def good() -> list[Scenario]:
    result = load_corpus([DATA / "good"], catalogue=CATALOGUE)
    assert result.errors == ()
    return list(result.scenarios)


def statuses(
    argv: list[str], scenarios: list[Scenario], options: RunOptions = FAST
) -> dict[str, str]:
    run = run_scenarios(argv, scenarios, options, catalogue=CATALOGUE)
    assert [r.id for r in run.results] == [s.id for s in scenarios]  # corpus order kept
    return {r.id: r.status for r in run.results}


def test_everything_passes_on_a_correct_fake() -> None:
    assert set(statuses(FAKE, good()).values()) == {"pass"}


def test_wrong_penalty_fails_with_diff_and_step() -> None:
    run = run_scenarios([*FAKE, "--wrong-penalty"], good(), FAST, catalogue=CATALOGUE)
    (failed,) = [r for r in run.results if r.status == "fail"]
    assert failed.id == "cc-0001"
    assert failed.failing_step is not None and failed.failing_step.startswith("check 1 (penalty")
    assert failed.diff is not None and "expected 33" in failed.diff and "actual   34" in failed.diff
    assert failed.section == "SCORE"


def test_crash_is_an_error_with_stderr_then_restart() -> None:
    run = run_scenarios([*FAKE, "--crash-on", "penalty"], good(), FAST, catalogue=CATALOGUE)
    by_id = {r.id: r for r in run.results}
    assert by_id["cc-0001"].status == "error"
    assert "fake engine crashing on penalty" in by_id["cc-0001"].stderr_tail
    # The adapter was restarted: the following cases still ran and passed.
    assert by_id["cc-0002"].status == "pass" and by_id["cc-0004"].status == "pass"


def test_melds_only_engine_reports_turn_cases_unsupported() -> None:
    got = statuses([*FAKE, "--capabilities", "melds"], good())
    assert got == {
        "cc-0005": "unsupported",
        "cc-0001": "pass",
        "cc-0002": "pass",
        "cc-0003": "unsupported",
        "cc-0004": "unsupported",
    }


def test_by_option_grades_against_the_engine_ruling() -> None:
    # The fake accepts throwing the discard back; declaring "forbidden" makes that a failure.
    disputed = [s for s in good() if s.id == "cc-0005"]
    assert statuses(FAKE, disputed) == {"cc-0005": "pass"}
    run = run_scenarios([*FAKE, "--ruling", "DISPUTE-19=forbidden"], disputed, FAST)
    (result,) = run.results
    assert result.status == "fail" and result.option == "forbidden"
    # An engine writing the id with one digit is normalised.
    run = run_scenarios([*FAKE, "--ruling", "DISPUTE-19=allowed"], disputed, FAST)
    assert run.results[0].option == "allowed"


def test_an_unknown_ruling_option_is_warned_about_and_graded_by_the_profile() -> None:
    # An engine naming an option the catalogue does not have (a typo, or its own word)
    # is graded against the profile's option, and the run says why.
    disputed = [s for s in good() if s.id == "cc-0005"]
    argv = [*FAKE, "--ruling", "DISPUTE-19=throw_back_ok", "--ruling", "DISPUTE-99=x"]
    run = run_scenarios(argv, disputed, FAST, catalogue=CATALOGUE)
    (result,) = run.results
    assert result.status == "pass" and result.option == "allowed"
    assert any("'throw_back_ok' is not one of its options" in w for w in run.warnings)
    assert any("DISPUTE-99 is not a disputed point" in w for w in run.warnings)


def test_consecutive_errors_stop_the_run() -> None:
    turn_cases = [s for s in good() if s.level == "turns"]
    many = [replace(s, id=f"cc-08{i:02d}") for i, s in enumerate(turn_cases * 3)]
    opts = replace(FAST, max_consecutive_errors=3)
    got = list(statuses([*FAKE, "--crash-on", "load_state"], many, opts).values())
    assert got[:3] == ["error"] * 3
    assert set(got[3:]) == {"not_run"} and len(got) == len(many)


def test_a_pass_resets_the_error_count() -> None:
    melds = [s for s in good() if s.level == "melds"]  # cc-0001 penalty, cc-0002 check_meld
    many = [replace(s, id=f"cc-09{i:02d}") for i, s in enumerate(melds * 4)]
    opts = replace(FAST, max_consecutive_errors=2)
    got = list(statuses([*FAKE, "--crash-on", "check_meld"], many, opts).values())
    assert got == ["pass", "error"] * 4


def test_case_timeout_is_an_error() -> None:
    scenarios = [s for s in good() if s.id == "cc-0003"]
    opts = replace(FAST, timeout=5.0, case_timeout=0.5)
    run = run_scenarios([*FAKE, "--hang-on", "act"], scenarios, opts)
    (result,) = run.results
    assert result.status == "error" and result.error is not None and "0.5 s" in result.error


def test_adapter_that_cannot_start_raises() -> None:
    with pytest.raises(EngineError):
        run_scenarios([*FAKE, "--exit-at-start"], good(), FAST)


def test_workers_keep_corpus_order_and_every_result() -> None:
    scenarios = good() * 1
    run = run_scenarios(FAKE, scenarios, replace(FAST, workers=3), catalogue=CATALOGUE)
    assert [r.id for r in run.results] == [s.id for s in scenarios]
    assert run.counts["pass"] == len(scenarios) and run.counts["total"] == len(scenarios)


def test_reference_melds_only_gives_a_partial_report() -> None:
    scenarios = good()
    got = statuses([*REFERENCE, "--capabilities", "melds"], scenarios)
    assert {k for k, v in got.items() if v == "unsupported"} == {"cc-0003", "cc-0004", "cc-0005"}
    # Both answers follow from the rules text (A+Q+3 = 33; 8-8-8 is a trio, 8-9-9 is not).
    assert got["cc-0001"] == "pass" and got["cc-0002"] == "pass"


@pytest.mark.parametrize("fresh", [False, True])
def test_fresh_process_starts_a_new_adapter_for_every_case(fresh: bool) -> None:
    options = replace(FAST, fresh_process=fresh)
    runner = CaseRunner(start_session(FAKE, options), options, CATALOGUE)
    try:
        pids = []
        for scenario in good()[:3]:
            assert runner.run(scenario, section_of(scenario, CATALOGUE)).status == "pass"
            pids.append(runner.session.pid)
    finally:
        runner.session.close()
    assert len(set(pids)) == (3 if fresh else 1)


def test_a_case_assuming_another_ruling_is_unsupported_not_failed(tmp_path: Path) -> None:
    # cc-0001 (a penalty check) does not test DISPUTE-19 but is declared to rely on it.
    text = (DATA / "good" / "melds.yaml").read_text(encoding="utf-8")
    assumed = tmp_path / "assumed.yaml"
    assumed.write_text(
        text.replace("review: checked", "review: checked\nassumes: {DISPUTE-19: allowed}", 1),
        encoding="utf-8",
    )
    loaded = load_corpus([assumed], catalogue=CATALOGUE)
    assert loaded.errors == ()
    (first, *_) = loaded.scenarios
    assert first.assumes == {"DISPUTE-19": "allowed"}
    # Undeclared: the profile's option (allowed) holds, so the case is graded.
    run = run_scenarios(FAKE, [first], FAST, catalogue=CATALOGUE)
    assert run.results[0].status == "pass"
    run = run_scenarios(
        [*FAKE, "--ruling", "DISPUTE-19=forbidden"], [first], FAST, catalogue=CATALOGUE
    )
    (result,) = run.results
    assert result.status == "unsupported"
    assert "assumes DISPUTE-19 option 'allowed'; the engine rules 'forbidden'" in (
        result.note or ""
    )


def test_assumes_names_must_be_known(tmp_path: Path) -> None:
    text = (DATA / "good" / "melds.yaml").read_text(encoding="utf-8")
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        text.replace("review: checked", "review: checked\nassumes: {DISPUTE-19: maybe}", 1),
        encoding="utf-8",
    )
    errors = load_corpus([bad], catalogue=CATALOGUE).errors
    assert any("unknown option 'maybe' of DISPUTE-19" in e.message for e in errors)


TEE = Path(__file__).resolve().parents[2] / "benchmarks" / "tee_adapter.py"


def flipped(case: Scenario, index: int) -> Scenario:
    """``case`` with step ``index``'s acceptance expected the other way round (in the step
    and in the check plan, which the grading reads)."""
    step = case.steps[index]
    expect: object = "accepted" if step.expect != "accepted" else {"rejected": None}
    key = f"step {index + 1} accepted"
    plans = {
        profile: tuple(replace(c, expected=expect) if c.key == key else c for c in plan)
        for profile, plan in case.plans.items()
    }
    steps = (*case.steps[:index], replace(step, expect=expect), *case.steps[index + 1 :])
    return replace(case, steps=steps, plans=plans)


DECLARING = TEE.parents[1] / "tests" / "fake_adapters" / "declaring_proxy.py"


@pytest.mark.parametrize("takes", [None, 1, 2])
def test_a_case_that_fails_early_drops_the_answer_sent_ahead(
    tmp_path: Path, takes: int | None
) -> None:
    # The harness keeps the case's next action requests in flight while it grades the
    # answer before them: two for an engine that takes two (the reference does), else one.
    # A case whose first step is refused when it must be accepted cannot go on (the state
    # after it is unknown): the steps in flight are read and dropped, and the next case is
    # graded as if nothing had happened.
    catalogue = load_catalogue()
    corpus = load_corpus([Path(__file__).resolve().parents[2] / "scenarios"], catalogue=catalogue)
    case = next(
        s
        for s in corpus.scenarios
        if "argentine" in s.profiles
        and s.level == "turns"
        and len(s.steps) >= 3
        and all(step.kind == "action" for step in s.steps)
        and isinstance(s.steps[0].expect, dict)
        and "rejected" in s.steps[0].expect
        and not s.disputed
        and not s.steps[0].state
    )
    wrong = flipped(case, 0)
    record = tmp_path / "requests.jsonl"
    engine = REFERENCE
    if takes is not None:
        declared = json.dumps({"max_in_flight": takes})
        engine = [sys.executable, str(DECLARING), "--hello", declared]
    argv = [sys.executable, str(TEE), str(record), "--", *engine]
    run = run_scenarios(argv, [wrong, case], RunOptions(), catalogue=catalogue)
    assert [r.status for r in run.results] == ["fail", "pass"]
    assert run.results[0].failing_step is not None
    assert run.results[0].failing_step.startswith("step 1 ")
    ops = [json.loads(line)["op"] for line in record.read_text().splitlines()]
    steps = len(case.steps)
    # hello; the failing case: setup, step 1, and the steps in flight behind it (2 and 3
    # two at a time, else step 2); the passing case whole.
    ahead = 1 if takes == 1 else 2
    assert ops == ["hello", ops[1], "act", *["act"] * ahead, ops[1], *["act"] * steps, "bye"]


PERLA_ROUNDS = Path(__file__).resolve().parents[2] / "scenarios" / "perla" / "rounds.yaml"


@pytest.mark.parametrize(("cut", "totals"), [(40, [69, -30, 89]), (41, [79, -30, 89])])
def test_a_next_deal_step_sends_its_cut(tmp_path: Path, cut: int, totals: list[int]) -> None:
    # cc-1965 deals round 8 (13 cards each, 3 players) with player 1 dealing: the cutter is
    # player 0, the dealer's left-hand neighbour. 3 x 13 + 1 = 40 cards left for the dealer
    # is a perfect cut, -10 for the cutter (003 L31, DISPUTE-67 minus_ten); 41 is not.
    text = PERLA_ROUNDS.read_text(encoding="utf-8").split("\n---\n")[0]
    text = text.replace("id: cc-1965", "id: cc-1001", 1)
    text = text.replace("next_deal: {deck_top: [KD]}", f"next_deal: {{deck_top: [KD], cut: {cut}}}")
    # The totals after next_deal, at DISPUTE-65 same_turn (the profile's option).
    after = "\n                  totals: {by_option: {DISPUTE-65: {same_turn: [79, -30, 89]"
    assert text.count(after) == 1
    text = text.replace(after, after.replace("[79, -30, 89]", str(totals)))
    case = tmp_path / "cut.yaml"
    case.write_text(text, encoding="utf-8")
    loaded = load_corpus([case], catalogue=load_catalogue())
    assert loaded.errors == ()
    (scenario,) = loaded.scenarios
    assert scenario.steps[-1].deck is not None and scenario.steps[-1].deck.cut == cut
    run = run_scenarios(
        REFERENCE, [scenario], RunOptions(profile="perla"), catalogue=load_catalogue()
    )
    assert run.results[0].status == "pass", run.results[0].diff


def _recorded_ops(record: Path) -> list[str]:
    return [json.loads(line)["op"] for line in record.read_text().splitlines()]


def test_the_next_cases_first_request_goes_with_the_last_and_nothing_is_sent_twice(
    tmp_path: Path,
) -> None:
    # After a case's last request, the next case's first goes out while the last answer
    # is graded. A case failing on its last answer leaves that request to its case: the
    # adapter gets exactly the requests of running the cases one by one.
    catalogue = load_catalogue()
    corpus = load_corpus([Path(__file__).resolve().parents[2] / "scenarios"], catalogue=catalogue)
    argentine = [s for s in corpus.scenarios if "argentine" in s.profiles and not s.disputed]
    # Cases whose last step has one expectation under every option, so flipping it fails.
    turns = [
        s
        for s in argentine
        if s.level == "turns" and s.steps and "by_option" not in str(s.steps[-1].expect)
    ][:3]
    melds = [s for s in argentine if s.level == "melds" and len(s.checks) >= 2][:2]
    wrong_last = flipped(turns[0], len(turns[0].steps) - 1)
    cases = [turns[1], melds[0], wrong_last, turns[2], melds[1]]
    argv = [sys.executable, str(TEE), str(tmp_path / "together.jsonl"), "--", *REFERENCE]
    run = run_scenarios(argv, cases, RunOptions(), catalogue=catalogue)
    assert [r.status for r in run.results] == ["pass", "pass", "fail", "pass", "pass"]
    assert run.results[2].failing_step is not None
    assert run.results[2].failing_step.startswith(f"step {len(turns[0].steps)} ")
    alone: list[str] = []
    for index, case in enumerate(cases):
        record = tmp_path / f"alone{index}.jsonl"
        argv = [sys.executable, str(TEE), str(record), "--", *REFERENCE]
        run_scenarios(argv, [case], RunOptions(), catalogue=catalogue)
        alone += _recorded_ops(record)[1:-1]  # without hello and bye
    assert _recorded_ops(tmp_path / "together.jsonl") == ["hello", *alone, "bye"]


def test_preparing_the_next_case_while_waiting_never_changes_what_the_engine_is_sent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The next case's judge and first request are worked out the first time the harness
    # waits for an answer (EngineSession.while_waiting), else at a fixed point in the case.
    # Which of the two it was depends on timing; the requests sent and the results must not.
    # Both extremes are forced here, with no timing involved.
    catalogue = load_catalogue()
    corpus = load_corpus([Path(__file__).resolve().parents[2] / "scenarios"], catalogue=catalogue)
    argentine = [s for s in corpus.scenarios if "argentine" in s.profiles]
    cases = [s for level in ("melds", "turns", "deals") for s in argentine if s.level == level][::9]
    assert {s.level for s in cases} == {"melds", "turns", "deals"}
    ran: list[int] = []
    prepare = CaseRunner._prepare_next

    def counted(self: CaseRunner) -> None:
        ran.append(1)
        prepare(self)

    monkeypatch.setattr(CaseRunner, "_prepare_next", counted)

    def sent(name: str) -> tuple[list[str], list[tuple[str, str]]]:
        record = tmp_path / f"{name}.jsonl"
        argv = [sys.executable, str(TEE), str(record), "--", *REFERENCE]
        run = run_scenarios(argv, cases, RunOptions(), catalogue=catalogue)
        return record.read_text().splitlines(), [(r.id, r.status) for r in run.results]

    with monkeypatch.context() as never_in:
        # Every answer looked for is "not in yet": the work is done at each case's first wait.
        never_in.setattr("conformance.adapter.pipes.StdoutLines.ready", lambda self: False)
        waited = sent("waited")
    assert len(ran) >= len(cases) // 2, (len(ran), len(cases))
    # The work never done while waiting: all of it at the fixed points.
    monkeypatch.setattr(
        "conformance.adapter.engine.EngineSession.while_waiting", lambda self, work: None
    )
    ran.clear()
    fixed = sent("fixed")
    assert ran == []
    assert waited == fixed
    # (A few cases are written for interface readings the reference does not declare.)
    assert {status for _, status in fixed[1]} <= {"pass", "unsupported"}


def test_a_melds_case_cut_short_by_an_engine_error_keeps_the_checks_graded_before() -> None:
    # Melds answers are graded when the harness next waits, or at the case's end; an
    # error that ends the case must not leave the answers received before it ungraded.
    catalogue = load_catalogue()
    corpus = load_corpus([Path(__file__).resolve().parents[2] / "scenarios"], catalogue=catalogue)

    def first_late_op(case: Scenario) -> int | None:
        ops = [check.op for check in case.checks]
        late = [i for i, op in enumerate(ops) if i >= 2 and op not in ops[:i]]
        return late[0] if late else None

    case = next(
        s
        for s in corpus.scenarios
        if s.level == "melds" and "argentine" in s.profiles and first_late_op(s) is not None
    )
    index = first_late_op(case)
    assert index is not None
    proxy = TEE.parents[1] / "tests" / "fake_adapters" / "hostile_proxy.py"
    argv = [sys.executable, str(proxy), "--on", case.checks[index].op, "--do", "crash"]
    (result,) = run_scenarios(argv, [case], RunOptions(), catalogue=catalogue).results
    assert result.status == "error"
    by_step = {c.step: c.status for c in result.checks if c.what == "answer"}
    assert all(by_step[n] == "pass" for n in range(1, index + 1)), by_step
    assert by_step[index + 1] == "not_graded"
