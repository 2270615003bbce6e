"""What a run comes to (conformance/run/verdict.py), from results built here: a green is
earned (something graded, the gates met), and the exit code says why when it is not."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import pytest

from conformance.adapter.engine import Handshake
from conformance.grading.results import (
    CaseResult,
    CheckResult,
    OpSupport,
    PropertyResult,
    RunResult,
    count_statuses,
)
from conformance.knowledge.catalogue import load_catalogue
from conformance.run.verdict import (
    EXIT_ADAPTER,
    EXIT_FAILED,
    EXIT_OK,
    EXIT_UNGRADED,
    Gates,
    judge,
    parse_share,
    tally,
    worst,
)

CATALOGUE = load_catalogue()


def check(status: str, *, cause: str | None = None, key: str = "step 1 accepted") -> CheckResult:
    return CheckResult(key=key, what="accepted", rules=("TURN-1",), status=status, cause=cause)


def case(cid: str, status: str, *checks: CheckResult) -> CaseResult:
    return CaseResult(cid, f"case {cid}", ("TURN-1",), "TURN", status, checks=checks)


def handshake(
    profiles: Sequence[str] = ("pagat",), players: Sequence[int] = (2, 3, 4, 5)
) -> Handshake:
    return Handshake(
        1, "engine", "1.0", "python", tuple(profiles), frozenset({"melds", "turns", "deals"}),
        players=tuple(players),
    )  # fmt: skip


def run_of(
    *results: CaseResult,
    profile: str = "pagat",
    hs: Handshake | None = None,
    laws: tuple[PropertyResult, ...] = (),
) -> RunResult:
    return RunResult(
        argv=("engine",),
        profile=profile,
        handshake=hs if hs is not None else handshake(),
        results=tuple(results),
        counts=count_statuses(results),
        properties=laws,
    )


def test_checks_are_counted_graded_against_all_and_the_rest_by_cause() -> None:
    run = run_of(
        case("cc-1", "pass", check("pass"), check("not_graded", cause="option")),
        case("cc-2", "pass", check("pass"), check("pass")),
        case(
            "cc-3", "unsupported", check("not_graded", cause="op"), check("not_graded", cause="op")
        ),
    )
    counted = tally(run, CATALOGUE)
    assert counted.unit == "checks"
    assert (counted.counts.graded, counted.counts.total) == (3, 6)
    assert counted.line() == "graded 3/6 checks (not graded: 2 op unsupported, 1 option declared)"
    assert judge(run, CATALOGUE).code == EXIT_OK


def test_an_engine_graded_on_nothing_exits_4_with_one_line_saying_why() -> None:
    # Claims everything, answers unsupported to every request: every check not graded.
    unsupported = [
        case(
            f"cc-{n}",
            "unsupported",
            check("not_graded", cause="op"),
            check("not_graded", cause="op"),
        )
        for n in range(3)
    ]
    verdict = judge(run_of(*unsupported), CATALOGUE)
    assert verdict.code == EXIT_UNGRADED
    assert verdict.reasons == (
        "profile pagat: nothing was graded: 0 of 6 checks (6 op unsupported)",
    )


def test_results_without_checks_are_counted_by_case() -> None:
    # A runner that does not grade check by check yet: the case is the unit.
    run = run_of(case("cc-1", "pass"), case("cc-2", "unsupported"), case("cc-3", "xfail"))
    counted = tally(run, CATALOGUE)
    assert counted.line() == "graded 2/3 cases (not graded: 1 unsupported)"
    nothing = run_of(case("cc-1", "unsupported"), case("cc-2", "unsupported"))
    assert judge(nothing, CATALOGUE).code == EXIT_UNGRADED


def test_failures_exit_1_and_every_reason_is_still_given() -> None:
    failed = case("cc-1", "fail", check("fail"), check("not_graded", cause="divergence"))
    verdict = judge(run_of(failed), CATALOGUE, gates=Gates(min_graded=0.9))
    assert verdict.code == EXIT_FAILED
    assert len(verdict.reasons) == 1 and "under --min-graded 90%" in verdict.reasons[0]
    errored = run_of(case("cc-1", "error", check("not_graded", cause="error")))
    verdict = judge(errored, CATALOGUE)
    assert verdict.code == EXIT_FAILED and "nothing was graded" in verdict.reasons[0]


def test_a_broken_law_or_an_xpass_under_strict_fails_the_run() -> None:
    law = PropertyResult("conservation", ("CARDS-1",), False, "a card vanished", 0)
    assert judge(run_of(case("cc-1", "pass", check("pass")), laws=(law,)), CATALOGUE).code == 1
    xpass = run_of(case("cc-1", "xpass", check("pass")))
    assert judge(xpass, CATALOGUE).code == EXIT_OK
    assert judge(xpass, CATALOGUE, strict=True).code == EXIT_FAILED


def test_laws_an_engine_without_turns_and_deals_cannot_have_do_not_fail_the_run() -> None:
    why = "not checked: needs the turns and deals capabilities"
    absent = PropertyResult("conservation", ("CARDS-1",), False, why, 0, False, applies=False)
    graded = run_of(case("cc-1", "pass", check("pass")), laws=(absent,))
    assert judge(graded, CATALOGUE).code == EXIT_OK
    # A law that applies and checked nothing is still no pass.
    unchecked = PropertyResult(
        "conservation", ("CARDS-1",), False, "not checked: no deal", 0, False
    )
    assert (
        judge(run_of(case("cc-1", "pass", check("pass")), laws=(unchecked,)), CATALOGUE).code == 1
    )
    # And the laws never turn a run that graded nothing green.
    nothing = run_of(
        case("cc-1", "unsupported", check("not_graded", cause="unsupported")), laws=(absent,)
    )
    assert judge(nothing, CATALOGUE).code != EXIT_OK


def test_min_graded_gate() -> None:
    run = run_of(
        case("cc-1", "pass", check("pass"), check("pass"), check("pass")),
        case("cc-2", "pass", check("pass"), check("not_graded", cause="interface")),
    )
    assert judge(run, CATALOGUE, gates=Gates(min_graded=0.8)).code == EXIT_OK
    verdict = judge(run, CATALOGUE, gates=Gates(min_graded=0.81))
    assert verdict.code == EXIT_UNGRADED
    assert verdict.reasons == ("profile pagat: 4/5 checks graded (80.0%), under --min-graded 81%",)


def test_player_counts_the_engine_does_not_play_are_shown_and_gated() -> None:
    # The Pagat text is for two to five players; this engine plays two to four.
    run = run_of(case("cc-1", "pass", check("pass")), hs=handshake(players=(2, 3, 4)))
    counted = tally(run, CATALOGUE)
    assert counted.missing_players == (5,)
    assert counted.line() == (
        "graded 1/1 checks (not graded: players 5 not played, the engine plays 2-4)"
    )
    assert judge(run, CATALOGUE).code == EXIT_OK
    verdict = judge(run, CATALOGUE, gates=Gates(all_players=True))
    assert verdict.code == EXIT_UNGRADED
    assert verdict.reasons == (
        "profile pagat: the engine does not play 5 players; the profile's text has 2-5 "
        "(--all-players)",
    )
    full = run_of(case("cc-1", "pass", check("pass")))
    assert judge(full, CATALOGUE, gates=Gates(all_players=True)).code == EXIT_OK


def test_a_profile_the_engine_does_not_list_or_a_dead_adapter_exits_3() -> None:
    chilean_only = run_of(case("cc-1", "unsupported"), hs=handshake(profiles=("chilean",)))
    verdict = judge(chilean_only, CATALOGUE)
    assert verdict.code == EXIT_ADAPTER
    assert verdict.reasons[0].startswith("the engine does not support profile 'pagat'")
    dead = RunResult(("x",), "pagat", None, (case("cc-1", "not_run"),), run_error="boom")
    assert judge(dead, CATALOGUE).code == EXIT_ADAPTER


@pytest.mark.parametrize(
    ("codes", "expected"),
    [
        ([0, 0], 0),
        ([0, 4], 4),
        ([4, 1], 1),
        ([1, 3], 3),
        ([3, 2], 2),
        ([0, 130, 2], 130),
        ([], 0),
    ],
)
def test_the_worst_exit_code_of_several_profiles_wins(codes: list[int], expected: int) -> None:
    assert worst(codes) == expected


@pytest.mark.parametrize(
    ("text", "share"), [("0.9", 0.9), ("90%", 0.9), ("1", 1.0), ("0", 0.0), (" 12.5% ", 0.125)]
)
def test_min_graded_reads_a_share_or_a_percentage(text: str, share: float) -> None:
    assert parse_share(text) == pytest.approx(share)


@pytest.mark.parametrize("text", ["", "ninety", "1.5", "-0.1", "150%", "nan", "%"])
def test_min_graded_refuses_what_is_not_a_share(text: str) -> None:
    with pytest.raises(ValueError, match="--min-graded"):
        parse_share(text)


def test_an_op_answered_in_one_case_and_refused_in_another_is_not_green() -> None:
    """unsupported says the engine lacks an op, a player count or an action: refused here
    and answered there, it hid what the engine would fail (docs/protocol.md §1)."""
    graded_run = run_of(case("cc-1", "pass", check("pass")), case("cc-2", "unsupported"))
    both = OpSupport("act:discard", 3, answered=4, refused=2, answered_in=("cc-1",),
                     refused_in=("cc-2",), answered_cases=1, refused_cases=1)  # fmt: skip
    verdict = judge(replace(graded_run, ops=(both,)), CATALOGUE)
    assert verdict.code == EXIT_FAILED and verdict.details["inconsistent"] == 1
    assert any("refused as unsupported in others" in r for r in verdict.reasons)
    # One op refused everywhere (an engine without penalty), another answered everywhere.
    lacking = OpSupport("penalty", None, refused=3, refused_in=("cc-2",), refused_cases=1)
    answered = OpSupport("act:discard", 3, answered=4, answered_in=("cc-1",), answered_cases=1)
    assert judge(replace(graded_run, ops=(lacking, answered)), CATALOGUE).code == EXIT_OK


def test_all_players_reads_what_was_answered_not_only_what_was_declared() -> None:
    """An engine declaring 2-5 that answered unsupported to every 5-player request (its
    load_state echoed does not count) does not play 5: --all-players fails, and the
    summary says so without the gate."""
    run = run_of(case("cc-1", "pass", check("pass")), case("cc-2", "unsupported"))
    refused = (
        OpSupport("act:draw_stock", 4, answered=2, answered_in=("cc-1",), answered_cases=1),
        OpSupport("load_state", 5, answered=1, answered_in=("cc-2",), answered_cases=1),
        OpSupport("act:draw_stock", 5, refused=1, refused_in=("cc-2",), refused_cases=1),
    )
    counted = tally(replace(run, ops=refused), CATALOGUE)
    assert counted.missing_players == (5,) and counted.players == (2, 3, 4)
    assert counted.line().endswith("players 5 not played (5 declared, refused as unsupported), "
                                   "the engine plays 2-4)")  # fmt: skip
    assert judge(replace(run, ops=refused), CATALOGUE).code == EXIT_OK
    gated = judge(replace(run, ops=refused), CATALOGUE, gates=Gates(all_players=True))
    assert gated.code == EXIT_UNGRADED
    assert "declares 5 but refused those games as unsupported (--all-players)" in gated.reasons[0]
    # Once one 5-player act is answered, 5 is played: the gate holds.
    played = (*refused[:2], replace(refused[2], answered=1, answered_cases=1))
    counted = tally(replace(run, ops=played), CATALOGUE)
    assert counted.missing_players == ()


def test_a_capability_claimed_and_never_played_is_a_broken_claim() -> None:
    from conformance.grading.results import OpSupport

    played = run_of(case("cc-1", "pass", check("pass")))
    # Every load_state and action refused, meld queries answered: turns never played.
    ops = (
        OpSupport("check_meld", None, answered=3),
        OpSupport("load_state", 2, refused=4),
        OpSupport("start_deal", 2, refused=2),
    )
    verdict = judge(replace(played, ops=ops), CATALOGUE)
    assert verdict.code == EXIT_FAILED
    assert [r.split(": ", 1)[1][:32] for r in verdict.reasons] == [
        "the engine claims deals but neve",
        "the engine claims turns but neve",
    ]
    # One op of a capability lacking is allowed (penalty alone), as is a load_state echo
    # beside actions answered.
    fine = (
        OpSupport("penalty", None, refused=3),
        OpSupport("check_meld", None, answered=1),
        OpSupport("load_state", 2, answered=2),
        OpSupport("act:discard", 2, answered=2),
        OpSupport("act:swap_joker", 2, refused=1),
    )
    assert judge(replace(played, ops=fine), CATALOGUE).code == EXIT_OK


def test_a_section_the_declarations_mostly_hide_is_named() -> None:
    from conformance.run.verdict import hidden_sections

    hidden = [check("not_graded", cause="op", key=f"step {n} accepted") for n in range(3)]
    results = [
        case("cc-1", "unsupported", *hidden, check("pass")),
        CaseResult("cc-2", "c", ("MELD-1",), "MELD", "pass", checks=(check("pass"),)),
    ]
    assert hidden_sections(results) == [("TURN", 3, 4, "3 op unsupported")]
    # Half or less is not "most".
    assert (
        hidden_sections([case("cc-3", "pass", check("not_graded", cause="op"), check("pass"))])
        == []
    )
