"""conformance.laws.properties against the reference adapter (every law holds) and against a
deliberately broken relay of it (each broken law is caught, and engine faults are results,
never exceptions)."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path
from typing import NoReturn

import pytest

from conformance.adapter.engine import EngineSession, Handshake
from conformance.grading.results import PropertyResult
from conformance.laws.greedy import PACK, card_value, find_opening, full_deck
from conformance.laws.properties import RULES, run_properties
from tests.adapters import REFERENCE
from tests.paths import ROOT

#: An engine that answers is all these tests need: the reference answers in-process
#: (tests/adapters.py); the tests of what its process does run it as a process.
pytestmark = pytest.mark.usefixtures("reference_in_process")

BROKEN = str(Path(__file__).parents[1] / "fake_adapters" / "broken_properties_adapter.py")
HOUSE = [sys.executable, str(Path(__file__).parents[1] / "fake_adapters" / "house_engine.py")]


def run(
    argv: list[str], *, seed: int = 7, deals: int = 3, profile: str = "argentine"
) -> dict[str, PropertyResult]:
    with EngineSession(argv, cwd=str(ROOT), timeout=20) as session:
        results = run_properties(session, seed=seed, deals=deals, profile=profile)
    return {r.name: r for r in results}


def broken(results: dict[str, PropertyResult]) -> dict[str, str]:
    return {name: r.detail for name, r in results.items() if not r.passed}


def test_the_pack_is_108_cards() -> None:
    """CARDS-1, written out: 52 naturals twice and four jokers."""
    assert len(full_deck()) == 108
    assert PACK["JK"] == 4
    assert PACK["10H"] == 2 and len(PACK) == 53


@pytest.mark.parametrize(
    ("codes", "points"),
    [(["AS", "QD", "3C"], 33), (["JK"], 50), (["2H", "10S", "KC"], 22), ([], 0)],
)
def test_card_values_follow_the_rules(codes: list[str], points: int) -> None:
    """SCORE-2's values, including its worked example A+Q+3 = 33."""
    assert sum(card_value(c) for c in codes) == points


def test_the_harness_search_finds_the_worked_example_opening() -> None:
    """EXAMPLE-1: deal 2 with 8C 8D 8H and 4S-7S opens with 7 cards, keeping 8S to discard."""
    hand = ["8C", "8D", "8H", "4S", "5S", "6S", "7S", "8S", "KD", "2C", "9H", "JK"]
    melds = find_opening(hand, 2)
    assert melds is not None
    kinds = Counter(m["kind"] for m in melds)
    assert kinds == {"trio": 1, "run": 1}
    assert sum(len(m["cards"]) for m in melds) == 7
    assert find_opening(["8C", "8D", "4S", "5S", "6S", "9H", "KD"], 2) is None


@pytest.mark.parametrize("seed", [1, 2])
def test_every_law_holds_for_the_reference(seed: int) -> None:
    results = run(REFERENCE, seed=seed, deals=4)
    assert set(results) == set(RULES)
    for result in results.values():
        assert result.passed, (result.name, result.detail)
        assert result.seed == seed
        assert result.rules == RULES[result.name]
    assert "held in" in results["scoring-at-close"].detail  # at least one close was scored


@pytest.mark.parametrize(
    ("mode", "broken"),
    [
        ("lose-card", "conservation"),
        ("dirty-reject", "rejected-leaves-unchanged"),
        ("accept-out-of-turn", "illegal-actions-rejected"),
        ("shuffle-deal", "determinism"),
        ("bad-scores", "scoring-at-close"),
        ("fixed-dealer", "random-choices"),
    ],
)
def test_a_broken_engine_is_caught(mode: str, broken: str) -> None:
    results = run([sys.executable, BROKEN, "--mode", mode], deals=4)
    failed = {name for name, r in results.items() if not r.passed}
    assert broken in failed, {n: r.detail for n, r in results.items()}
    assert results[broken].detail


def test_the_relay_itself_is_faithful() -> None:
    """The broken adapter in mode "none" passes, so each failure above is its bend."""
    results = run([sys.executable, BROKEN, "--mode", "none"], deals=2)
    assert all(r.passed for r in results.values()), results


def test_an_engine_crash_is_a_result_not_an_exception() -> None:
    results = run([sys.executable, BROKEN, "--mode", "crash"], deals=3)
    assert not results["engine"].passed
    assert "exit" in results["engine"].detail


def test_an_engine_without_deals_has_every_law_not_checked() -> None:
    """The laws need start_deal; an engine that does not claim it is not observed, and the
    laws say so: not checked, which is no pass (a green must be earned)."""

    class MeldsOnly:
        handshake = Handshake(1, "melds-only", "0", "python", ("argentine",), frozenset({"melds"}))

        def request(self, op: str, **fields: object) -> NoReturn:
            raise AssertionError(f"no request should be sent, got {op}")

    results = run_properties(MeldsOnly(), seed=1, deals=1)  # type: ignore[arg-type]
    assert [r.name for r in results] == list(RULES)
    for result in results:
        assert not result.checked and not result.passed and result.verdict == "not checked"
        assert not result.applies  # so it does not make the run red (verdict.judge)
        assert result.detail == (
            "not checked: needs the turns and deals capabilities (the laws play whole deals; "
            "the engine does not claim deals, turns)"
        )


def test_random_choices_vary_over_seeds_for_the_reference() -> None:
    """DEAL-1: the law saw more than one first dealer over its fixed seeds (never flaky)."""
    results = run(REFERENCE, seed=3, deals=1)
    assert results["random-choices"].passed, results["random-choices"].detail
    assert "held in 2 checks" in results["random-choices"].detail


def test_a_fixed_dealer_is_named_in_the_failure() -> None:
    results = run([sys.executable, BROKEN, "--mode", "fixed-dealer"], deals=1)
    detail = results["random-choices"].detail
    assert not results["random-choices"].passed
    assert "all chose dealer 0" in detail and "DEAL-1" in detail


def test_random_choices_follow_the_declared_players_and_unmodelled_dealer() -> None:
    """An engine playing 3-4 players without a dealer model is judged on its hands only."""
    results = run([sys.executable, BROKEN, "--mode", "no-dealer-three-four"], deals=2)
    law = results["random-choices"]
    assert law.passed, law.detail
    assert "held in 1 checks" in law.detail  # the hands, not the (unmodelled) dealer
    assert all(r.passed for r in results.values()), {n: r.detail for n, r in results.items()}


def test_scoring_at_close_charges_refusals_to_an_engine_ruling_dispute_35_penalty() -> None:
    """DISPUTE-35 penalty: each refused action costs its player 10 points at the close
    (docs/rules.md); the law adds them for an engine that declares it, and only then."""
    penalised = run([*REFERENCE, "--ruling", "DISPUTE-35=penalty"], seed=3, deals=2)
    assert all(r.passed for r in penalised.values()), penalised
    assert "held in" in penalised["scoring-at-close"].detail
    # The same play under a handshake that declares nothing breaks the law.
    hide = (
        "import sys; from reference.adapter import Adapter; "
        "from reference.adapter_cli import main; hello = Adapter.hello; "
        "Adapter.hello = lambda self, r: {**hello(self, r), 'rulings': {}}; "
        "sys.exit(main(['--ruling', 'DISPUTE-35=penalty']))"
    )
    undeclared = run([sys.executable, "-c", hide], seed=3, deals=2)
    assert not undeclared["scoring-at-close"].passed


def test_scoring_at_close_leaves_the_values_of_a_declared_scoring_option_to_the_engine() -> None:
    """An engine declaring VARIANT-01 thirty scores a joker 30: the law cannot know every
    house's values, so it checks only that the totals add the deal scores up, and says so.
    A false failure here would teach engine authors to ignore the laws."""
    thirty = run([*REFERENCE, "--ruling", "VARIANT-01=thirty"], seed=2, deals=3)
    assert all(r.passed for r in thirty.values()), thirty
    detail = thirty["scoring-at-close"].detail
    assert "held in" in detail and "not judged: the engine rules VARIANT-01=thirty" in detail
    # The profile's own values stay judged for an engine that declares nothing else.
    plain = run(REFERENCE, seed=2, deals=3)
    assert "not judged" not in plain["scoring-at-close"].detail
    # And an engine that plays 30 without declaring it is caught.
    hide = (
        "import sys; from reference.adapter import Adapter; "
        "from reference.adapter_cli import main; hello = Adapter.hello; "
        "Adapter.hello = lambda self, r: {**hello(self, r), 'rulings': {}}; "
        "sys.exit(main(['--ruling', 'VARIANT-01=thirty']))"
    )
    undeclared = run([sys.executable, "-c", hide], seed=2, deals=3)
    assert not undeclared["scoring-at-close"].passed


@pytest.mark.slow
def test_a_declared_going_out_score_leaves_every_other_deal_score_judged() -> None:
    """DISPUTE-65 decides only what the closer scores (PERLA-SCORE-1): an engine ruling
    ``no_discard`` still has every other entry of its deal scores judged, so one that
    counts a joker left in hand 50 instead of 25 (PERLA-SCORE-2) fails the law."""
    ruling = ["--ruling", "DISPUTE-65=no_discard"]
    honest = run([*REFERENCE, *ruling], seed=4, deals=3, profile="perla")
    detail = honest["scoring-at-close"].detail
    assert honest["scoring-at-close"].passed, detail
    assert "the closer's deal score not judged (the others' are)" in detail
    mutant = [sys.executable, "-m", "tests.mutants.adapter", "--mutant", "perla_joker_worth_50"]
    fifty = run([*mutant, *ruling], seed=4, deals=3, profile="perla")
    assert not fifty["scoring-at-close"].passed
    assert "deal_scores" in fifty["scoring-at-close"].detail


def test_closer_only_points_are_those_scoring_the_closer_alone() -> None:
    from conformance.laws.properties import closer_only

    assert closer_only("DISPUTE-65") and closer_only("DISPUTE-46")  # going out: -30, -10
    assert not closer_only("DISPUTE-62") and not closer_only("VARIANT-01")  # card values
    assert not closer_only("DISPUTE-27") and not closer_only("DISPUTE-99")


def test_own_scoring_lists_only_scoring_points_the_engine_plays_its_own_way() -> None:
    from conformance.laws.properties import own_scoring

    rulings = {"VARIANT-01": "thirty", "DISPUTE-31": "at_least", "DISPUTE-60": "unmatched_only"}
    assert own_scoring(rulings, "argentine") == ("VARIANT-01=thirty",)  # 60 is pagat's
    assert own_scoring(rulings, "pagat") == ("DISPUTE-60=unmatched_only", "VARIANT-01=thirty")
    assert own_scoring({"VARIANT-01": "fifty"}, "argentine") == ()


# --- every declaration honoured -----------------------------------------------------------------


def test_winners_are_not_compared_for_an_engine_that_does_not_model_them() -> None:
    """The scoring law compared ``winners`` even when the engine declared it unmodelled.
    Seed 1 of pagat reaches a game end; the engine sends winners null there."""
    declared = run([*HOUSE, "--unmodelled", "winners"], seed=1, deals=7, profile="pagat")
    assert broken(declared) == {}
    assert "not judged, the engine declares unmodelled: winners" in (
        declared["scoring-at-close"].detail
    )
    undeclared = run(
        [*HOUSE, "--unmodelled", "winners", "--undeclared"], seed=1, deals=7, profile="pagat"
    )
    assert "winners None, expected" in broken(undeclared)["scoring-at-close"]


def test_every_unmodelled_field_is_left_alone_and_the_rest_still_judged() -> None:
    fields = "dealer,winners,closer,totals,deal_scores,turn_opened"
    declared = run([*HOUSE, "--unmodelled", fields], seed=1, deals=4, profile="perla")
    assert broken(declared) == {}
    # The harness still checks what it knows: the deal ended on an emptied hand or stock.
    assert declared["scoring-at-close"].detail.startswith("held in")
    assert "dealer" in declared["random-choices"].detail  # named as not judged
    undeclared = run([*HOUSE, "--unmodelled", fields, "--undeclared"], seed=1, deals=4)
    assert {"scoring-at-close", "random-choices"} <= set(broken(undeclared))


def test_runs_the_engine_arranges_are_compared_as_multisets() -> None:
    """An engine declaring ``run_order: engine`` lists a run's cards in its own order, here
    a fresh one in every state: the laws compare runs as sets (docs/protocol.md §2)."""
    declared = run([*HOUSE, "--scramble-runs"], seed=3, deals=4, profile="perla")
    assert broken(declared) == {}
    undeclared = run([*HOUSE, "--scramble-runs", "--undeclared"], seed=3, deals=4, profile="perla")
    assert "after rejecting" in broken(undeclared)["rejected-leaves-unchanged"]
    assert "\n  table:\n" in broken(undeclared)["rejected-leaves-unchanged"]


def test_an_engine_recycling_in_its_own_order_breaks_no_law() -> None:
    """The recycled stock's order is the engine's own (docs/protocol.md §6): nothing to
    declare, and no law may depend on it."""
    assert broken(run([*HOUSE, "--own-recycle"], seed=2, deals=7, profile="pagat")) == {}


def test_laws_that_could_check_nothing_are_not_checked_never_held() -> None:
    """Every deal and new game answered unsupported (the engine plays 7 players only and
    declares no counts): no law saw anything, so none is a pass."""
    results = run([*HOUSE, "--plays", "7", "--declare-players", "none"], deals=2)
    assert set(results) == set(RULES)
    for result in results.values():
        assert result.verdict == "not checked" and not result.passed, result
    assert results["conservation"].detail == (
        "not checked: every deal offered (2) was answered unsupported"
    )
    assert results["random-choices"].detail.startswith(
        "not checked: new_game answered unsupported (new game 1 of 32 (4 players): this engine "
        "deals 7 players)"
    )


def test_a_law_with_no_close_plays_extra_deals_before_giving_up() -> None:
    """One deal that does not close leaves the scoring law nothing; a few more deals are
    played so that it is checked (and the other laws' checks grow with them)."""
    from conformance.laws.properties import EXTRA_DEALS

    one = run(REFERENCE, seed=5, deals=1)
    assert one["scoring-at-close"].checked, one["scoring-at-close"].detail
    assert EXTRA_DEALS >= 1


def test_run_properties_is_not_green_when_the_laws_checked_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The case passes, but no law could be observed: the run says so and is no green."""
    import json
    import shlex

    from conformance.cli import main

    adapter = shlex.join([*HOUSE, "--plays", "7", "--declare-players", "none"])
    report = tmp_path / "r.json"
    args = ["run", "--scenario", "cc-0200", "--adapter", adapter, "--properties", "--deals", "1"]
    code = main([*args, "--json", str(report)])
    doc = json.loads(report.read_text())
    assert [c["status"] for c in doc["cases"]] == ["pass"]
    assert {law["name"] for law in doc["properties"]} == set(RULES)
    assert not any(law["passed"] for law in doc["properties"])
    assert all(law["detail"].startswith("not checked: ") for law in doc["properties"])
    assert "not checked conservation (CARDS-1): not checked: every deal offered" in (
        capsys.readouterr().out
    )
    assert code == 1
