"""Fair to every honest engine: no dealer, its own first player, a wrong answer costs only
its own checks.

The engines here are the reference as test doubles (``python -m reference.adapter`` with
its interface flags, and the fakes of tests/fake_adapters/), each honest about what it
declares; undeclared, the same behaviour must still be failed, or the grading would be
judging nothing.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

import pytest

from conformance.grading.results import CaseResult, CheckResult, graded
from conformance.knowledge.catalogue import load_catalogue
from conformance.run.runner import RunOptions, RunResult, run_scenarios
from conformance.scenarios import load_corpus
from tests.paths import ROOT

FAKES = ROOT / "tests" / "fake_adapters"
REFERENCE = (sys.executable, "-m", "reference.adapter")
#: An engine that keeps no dealer and starts deal k with player (k - 1) mod n.
NO_DEALER = (
    *REFERENCE,
    *("--unmodelled", "dealer,winners", "--interface", "first_player=deal_index"),
)
PROFILES = ("argentine", "chilean", "pagat", "perla")

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("reference_in_process")]


@pytest.fixture(scope="module")
def corpus() -> tuple:  # type: ignore[type-arg]
    catalogue = load_catalogue(ROOT / "conformance" / "data" / "catalogue.json")
    loaded = load_corpus([ROOT / "scenarios"], catalogue=catalogue)
    assert not loaded.errors
    return loaded.scenarios, catalogue


def run_profile(
    corpus: tuple,  # type: ignore[type-arg]
    argv: Sequence[str],
    profile: str,
    ids: Sequence[str] = (),
) -> RunResult:
    scenarios, catalogue = corpus
    chosen = [s for s in scenarios if profile in s.profiles and (not ids or s.id in ids)]
    options = RunOptions(profile=profile)
    return run_scenarios(list(argv), chosen, options, catalogue=catalogue)


def failing(run: RunResult) -> dict[str, list[str]]:
    """Each failed or errored case with its failed checks' keys."""
    return {
        r.id: [c.key for c in r.checks if c.status == "fail"] or [str(r.error)]
        for r in run.results
        if r.status in ("fail", "error")
    }


# --- no dealer, the engine's own first player ---------------------------------------------------


@pytest.mark.parametrize("profile", PROFILES)
def test_an_engine_without_a_dealer_picking_its_first_player_passes_every_profile(
    corpus: tuple,  # type: ignore[type-arg]
    profile: str,
) -> None:
    run = run_profile(corpus, NO_DEALER, profile)
    assert failing(run) == {}
    counted = graded(run.results)
    assert counted.share >= 0.9, counted
    assert counted.not_graded.get("divergence", 0) == 0, counted


#: Cases whose first action after a deal op is the dealer's neighbour's, or whose refused
#: action is "not your turn" from a seat derived from the dealer.
FIRST_SEAT_CASES = ("cc-0520", "cc-0521", "cc-0522", "cc-0524", "cc-0525", "cc-0530")


#: Keeps no dealer, deals from the dealer's neighbour as asked, and starts with the next one.
NO_DEALER_OWN_TURN = (sys.executable, str(FAKES / "house_engine_proxy.py"), "--no-dealer")


@pytest.mark.parametrize("engine", [NO_DEALER, NO_DEALER_OWN_TURN], ids=["own-seat", "own-turn"])
def test_the_steps_after_a_deal_are_graded_on_the_case_seats(
    corpus: tuple,  # type: ignore[type-arg]
    engine: tuple[str, ...],
) -> None:
    run = run_profile(corpus, engine, "argentine", FIRST_SEAT_CASES)
    assert len(run.results) == len(FIRST_SEAT_CASES)
    assert failing(run) == {}
    for result in run.results:
        assert result.status == "pass", result.id
        for check in result.checks:
            # Only the first seat itself (and the fields not modelled) go ungraded.
            if check.status == "not_graded":
                assert check.cause in ("interface", "unmodelled"), (result.id, check)
                if check.cause == "interface":
                    assert check.what == "turn", (result.id, check)


def test_the_same_engine_declaring_a_dealer_is_failed(corpus: tuple) -> None:  # type: ignore[type-arg]
    undeclared = (*REFERENCE, "--interface", "first_player=deal_index")
    run = run_profile(corpus, undeclared, "argentine", FIRST_SEAT_CASES)
    assert failing(run), "an engine starting with another player than the dealer's neighbour"


def test_a_redealt_deck_follows_the_engine_s_next_dealer_option_when_dealer_is_unmodelled(
    corpus: tuple,  # type: ignore[type-arg]
) -> None:
    # DISPUTE-16/17 next_dealer: the deck of a redeal or a cancelled deal's replay is dealt
    # from the next dealer, which the case gives only as an ungraded field of this engine.
    rulings = ("--ruling", "DISPUTE-16=next_dealer", "--ruling", "DISPUTE-17=next_dealer")
    ids = ("cc-0530", "cc-0765", "cc-0304", "cc-0305", "cc-2114", "cc-1853", "cc-1571")
    for profile in ("argentine", "chilean"):
        for argv in (
            (*REFERENCE, *rulings, "--unmodelled", "dealer"),
            (*NO_DEALER, *rulings),
        ):
            run = run_profile(corpus, argv, profile, ids)
            assert failing(run) == {}, (profile, argv)
            assert any(r.status == "pass" for r in run.results)


# --- grading goes on after a wrong answer --------------------------------------------------------

HOUSE = (sys.executable, str(FAKES / "house_engine.py"))


def test_an_engine_refusing_one_action_in_fifteen_loses_only_those_checks(
    corpus: tuple,  # type: ignore[type-arg]
) -> None:
    run = run_profile(corpus, (*HOUSE, "--refuse-every", "15"), "argentine")
    counted = graded(run.results)
    # Each wrong refusal fails its own acceptance, and nothing else: the harness put the
    # engine on the state the case expects after that step and graded the rest.
    failed = [(r.id, c.key) for r in run.results for c in r.checks if c.status == "fail"]
    assert failed and all(key.endswith(" accepted") for _, key in failed), failed
    assert counted.not_graded.get("divergence", 0) <= 0.02 * counted.total, counted


@pytest.mark.parametrize("profile", PROFILES)
def test_an_engine_refusing_about_one_action_in_fifteen_fails_only_those(
    corpus: tuple,  # type: ignore[type-arg]
    profile: str,
) -> None:
    # Chosen by a hash of the action and its state (benchmarks/refusals.py measures the
    # share lost over several choices): whatever is refused, nothing else fails.
    run = run_profile(corpus, (*HOUSE, "--refuse-hash", "15"), profile)
    failed = [(r.id, c.key) for r in run.results for c in r.checks if c.status == "fail"]
    assert failed and all(key.endswith(" accepted") for _, key in failed), failed
    assert not [r.id for r in run.results if r.status == "error"]
    # Grading went on: in some case a check after the refused step passed.
    later = []
    for result in run.results:
        refused = [c.step or 0 for c in result.checks if c.status == "fail"]
        if refused and any(c.status == "pass" for c in after_step(result, min(refused))):
            later.append(result.id)
    assert later, profile


def after_step(result: CaseResult, step: int) -> list[CheckResult]:
    """The checks of ``result`` after step ``step``, ``final``'s included."""
    return [c for c in result.checks if c.step is None or c.step > step]


#: Cases, the action refused (the first of its type in the case) and its step, where the
#: state the case expects after it is known in full: every later check is graded.
GOES_ON = [
    ("argentine", "cc-0762", "draw_stock", 1),  # the draw cancels the deal
    ("chilean", "cc-1618", "discard", 1),  # the discard closes; the next deal follows
    ("chilean", "cc-1548", "swap_joker", 2),  # the joker taken into the hand
    ("perla", "cc-2191", "draw_stock", 1),  # a draw after which the others may steal
    ("perla", "cc-1955", "draw_discard", 2),  # a steal, and its 2 points
]


@pytest.mark.parametrize(("profile", "case", "action", "step"), GOES_ON)
def test_an_engine_that_refuses_then_plays_right_passes_every_later_check(
    corpus: tuple,  # type: ignore[type-arg]
    profile: str,
    case: str,
    action: str,
    step: int,
) -> None:
    run = run_profile(corpus, (*HOUSE, "--refuse-first", action), profile, [case])
    (result,) = run.results
    failed = [c.key for c in result.checks if c.status == "fail"]
    assert failed == [f"step {step} accepted"], result
    later = after_step(result, step)
    assert later and all(c.status == "pass" for c in later), later


@pytest.mark.parametrize("case", ["cc-2191", "cc-2192", "cc-2193"])
def test_a_wrong_answer_after_a_refusal_still_fails(
    corpus: tuple,  # type: ignore[type-arg]
    case: str,
) -> None:
    # The closer's -30 for going out on the laying-down turn (DISPUTE-65 same_turn, Perla's
    # option) played as zero and not declared: the close after the refused first draw
    # is graded, and fails.
    zero = ("--undeclared", "--ruling", "DISPUTE-65=zero")
    run = run_profile(corpus, (*HOUSE, "--refuse-first", "draw_stock", *zero), "perla", [case])
    (result,) = run.results
    failed = {c.key for c in result.checks if c.status == "fail"}
    # The next deal starts from the totals the rules give: the wrong close costs only itself.
    assert failed == {"step 1 accepted", "step 5 deal_scores", "step 5 totals"}
    honest = run_profile(corpus, (*HOUSE, "--refuse-first", "draw_stock"), "perla", [case])
    assert {c.key for r in honest.results for c in r.checks if c.status == "fail"} == {
        "step 1 accepted"
    }


@pytest.mark.parametrize(
    ("case", "argv", "why"),
    [
        # The steal still open after the refused draw is in no state field.
        ("cc-1952", ("--refuse-first", "draw_stock"), "who may still take the top discard"),
        # Nor is the penalty player 1 owes for the refused first action (DISPUTE-35).
        (
            "cc-2700",
            ("--ruling", "DISPUTE-35=penalty", "--refuse-first", "discard"),
            "penalties owed",
        ),
    ],
)
def test_nothing_a_reload_loses_is_graded(
    corpus: tuple,  # type: ignore[type-arg]
    case: str,
    argv: tuple[str, ...],
    why: str,
) -> None:
    run = run_profile(corpus, (*HOUSE, *argv), "perla", [case])
    (result,) = run.results
    failed = [c for c in result.checks if c.status == "fail"]
    assert len(failed) == 1 and failed[0].key.endswith(" accepted"), failed
    refused = failed[0].step or 0
    later = after_step(result, refused)
    assert later and all(c.status == "not_graded" for c in later), later
    assert any(why in (c.note or "") for c in later), [c.note for c in later]


def test_an_internal_answer_to_one_melds_query_fails_it_and_the_others_are_asked(
    corpus: tuple,  # type: ignore[type-arg]
) -> None:
    scenarios, _ = corpus
    mixed = [
        s.id
        for s in scenarios
        if s.level == "melds"
        and "argentine" in s.profiles
        and {c.op for c in s.checks} >= {"check_meld", "check_contract"}
    ]
    assert mixed
    run = run_profile(corpus, (*HOUSE, "--internal-on", "check_contract"), "argentine", mixed)
    assert not [r.id for r in run.results if r.status == "error"]
    asked: list[CheckResult] = []
    failed: list[CheckResult] = []
    for result in run.results:
        scenario = next(s for s in scenarios if s.id == result.id)
        ops = {c.index + 1: c.op for c in scenario.checks}
        answers = [c for c in result.checks if c.what == "answer" and c.status != "not_graded"]
        meld = [c for c in answers if ops[c.step] == "check_meld"]
        contract = [c for c in answers if ops[c.step] == "check_contract"]
        assert all(c.status == "pass" for c in meld), result.id
        assert all(c.status == "fail" and "internal" in (c.diff or "") for c in contract)
        asked.extend(meld)
        failed.extend(contract)
    assert asked and failed


@pytest.mark.parametrize("kind", ["internal", "bad_request"])
def test_a_reload_answered_with_an_error_keeps_the_engine_s_words(
    corpus: tuple,  # type: ignore[type-arg]
    kind: str,
) -> None:
    engine = (*HOUSE, "--refuse-every", "15", "--reload-error", kind)
    run = run_profile(corpus, engine, "argentine")
    stopped = [
        r
        for r in run.results
        if any(c.cause == "error" and "to go on from" in (c.note or "") for c in r.checks)
    ]
    assert stopped
    for result in stopped:
        assert result.engine_message == "cannot reload in the middle of a game"
        notes = [c.note or "" for c in result.checks if c.cause == "error"]
        assert all(f"answered {kind}" in n and "cannot reload" in n for n in notes), notes
        # Never counted as a plain refusal after a divergence.
        assert not [c for c in result.checks if "refused the state" in (c.note or "")]
