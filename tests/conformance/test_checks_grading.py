"""The parts of check-by-check grading: facts under rulings, signatures, invariants, reasons.

The facts under options (conformance/data/option_facts.json) are compared with the
reference, which plays every option; the rest are small unit checks with values worked out
from the rules text in the comments.
"""

from __future__ import annotations

import sys

import pytest

from conformance.grading.compare import Mismatch
from conformance.grading.invariants import invariant_problems
from conformance.grading.signature import card_value_diagnosis, signature
from conformance.knowledge.catalogue import load_catalogue
from conformance.knowledge.optionfacts import hand_size, pack, points, with_options
from conformance.knowledge.profiles import default_profiles
from conformance.run.runner import RunOptions, run_scenarios
from conformance.scenarios import load_corpus
from reference.profiles import OPTIONS, find_profile
from tests.paths import ROOT

#: An engine that answers is all these tests need: the reference answers in-process
#: (tests/adapters.py); the tests of what its process does run it as a process.
pytestmark = pytest.mark.usefixtures("reference_in_process")

PROFILES = default_profiles()


@pytest.mark.parametrize("name", sorted(points()))
def test_hand_sizes_and_packs_under_every_option_agree_with_the_reference(name: str) -> None:
    facts = PROFILES[name]
    for point in points()[name]:
        for option in OPTIONS[point]:
            ref = find_profile(name).with_rulings({point: option})

            def ruling(p: str, point: str = point, option: str = option) -> str | None:
                return option if p == point else None  # every other point: the profile's

            for deal in range(1, min(facts.deal_count, ref.deals) + 1):
                assert hand_size(facts, deal, ruling) == ref.hand_size(deal), (point, option)
            # The deals the option plays, each with its contract and cards dealt.
            played = with_options(facts, ruling)
            assert played.deal_count == ref.deals, (point, option)
            for deal in played.deals:
                first = deal.contracts[0]
                assert (first.trios, first.runs) == ref.contracts[deal.number - 1], (point, deal)
                assert deal.hand_size == ref.hand_size(deal.number), (point, option)
            for players in facts.players:
                ours = pack(facts, players, ruling)
                assert (ours.copies, ours.jokers) == ref.pack(players), (point, option)


def test_a_pack_under_a_ruling_loses_its_joker() -> None:
    chilean = PROFILES["chilean"]
    # CHILE-CARDS-2 with DISPUTE-43 one_fifty_nine: 3 packs and 3 jokers, 159 cards.
    assert pack(chilean, 5, lambda p: "one_fifty_nine" if p == "DISPUTE-43" else None).size == 159
    assert pack(chilean, 5, lambda p: None).size == 160
    assert pack(chilean, 4, lambda p: "one_fifty_nine").size == 106


@pytest.mark.parametrize("big_pack", [None, "one_fifty_nine"])
def test_a_chilean_game_always_108_has_two_packs_and_four_jokers(big_pack: str | None) -> None:
    chilean = PROFILES["chilean"]
    # DISPUTE-78 always_108: 2 x 52 + 4 = 108 cards for 2 to 6 players, whatever DISPUTE-43
    # says of the third pack's jokers (the later fact wins).
    ruling = {"DISPUTE-78": "always_108", "DISPUTE-43": big_pack}.get
    for players in (2, 3, 4, 5, 6):
        found = pack(chilean, players, ruling)
        assert (found.copies, found.jokers, found.size) == (2, 4, 108), players
    # by_players: CHILE-CARDS-1 (2 x 52 + 2 = 106) and CHILE-CARDS-2 (3 x 52 + 4 = 160).
    by_players = {"DISPUTE-78": "by_players"}.get
    assert [pack(chilean, n, by_players).size for n in (2, 4, 5, 6)] == [106, 106, 160, 160]


def test_twelve_cards_in_every_deal() -> None:
    argentine = PROFILES["argentine"]
    twelve = {"VARIANT-05": "twelve"}.get
    assert [hand_size(argentine, d, twelve) for d in range(1, 8)] == [12] * 7
    assert [hand_size(argentine, d, lambda p: None) for d in range(1, 8)] == [11] * 6 + [12]


def test_a_joker_counted_30_is_named_whatever_the_case() -> None:
    values = PROFILES["argentine"]
    # Player 1 holds a joker and a queen; only the joker can be worth 20 less (a queen
    # "worth -10" is no diagnosis).
    hands = [["AS", "3D"], ["JK", "QC", "AH"], []]
    found = card_value_diagnosis([0, -20, 0], hands, values)
    assert found == "joker left in hand: expected 50, got 30"
    # Two jokers, twice the difference.
    assert card_value_diagnosis([0, -40], [["AS"], ["JK", "JK"]], values) == (
        "joker left in hand: expected 50, got 30"
    )
    # No single rank explains it: no diagnosis.
    assert card_value_diagnosis([-5, -20], [["AS", "5D"], ["JK"]], values) is None
    assert card_value_diagnosis([0, -20], [["AS"], ["JK"]], None) is None


def test_signatures_of_a_penalty_and_of_anything_else() -> None:
    mismatch = [Mismatch("points", "50", "30")]
    assert signature("penalty", mismatch, expected=50, got=30, hands=[["JK"]]) == (
        "penalty of JK: expected 50, got 30"
    )
    assert signature("penalty", mismatch, expected=100, got=60, hands=[["JK", "JK"]]) == (
        "penalty of joker: expected 50, got 30"
    )
    # Mixed cards with no single rank to blame: the cards themselves name it.
    mixed = signature("penalty", mismatch, expected=33, got=34, hands=[["AS", "QD", "3C"]])
    assert mixed == "penalty of [A♠ Q♦ 3♣]: expected 33, got 34"
    other = [Mismatch("dealer", "1", "2")]
    assert signature("dealer", other) == "dealer: expected 1, got 2"
    refused = [Mismatch("outcome", "accepted", "rejected (does_not_fit), engine says: no")]
    action = {"type": "lay_off", "player": 2}
    assert signature("accepted", refused, action=action) == (
        "lay_off: expected accepted, got rejected (does_not_fit)"
    )


def test_invariants_name_extra_hands_and_extra_copies() -> None:
    argentine = PROFILES["argentine"]
    the_pack = argentine.pack(2)
    cards = list(the_pack.canonical_order())
    state = {
        "hands": [cards[:11], cards[11:22]],
        "table": [],
        "stock": cards[23:],
        "discard": [cards[22]],
    }
    assert invariant_problems(state, 2, the_pack) == []
    queens = {**state, "hands": [*state["hands"], ["QH"] * 40]}
    problems = invariant_problems(queens, 2, the_pack)
    assert "3 hands for 2 players" in problems
    assert "42 copies of QH: the pack has 2" in problems
    # Canonical order: AS..KS, then AH..KH; card 23 is the JH.
    short = {**state, "stock": cards[24:]}
    assert invariant_problems(short, 2, the_pack) == ["1 card(s) of the pack missing (JH)"]


def test_a_reason_is_graded_only_for_engines_claiming_reasons() -> None:
    catalogue = load_catalogue()
    corpus = load_corpus([ROOT / "scenarios" / "turn"], catalogue=catalogue).scenarios
    case = next(
        s
        for s in corpus
        if "argentine" in s.profiles
        and not s.disputed
        and any(c.what == "reason" for c in s.plan_for("argentine"))
    )
    reference = [sys.executable, "-m", "reference.adapter"]
    plain = [*reference, "--capabilities", "melds,turns,deals"]
    for argv, status, cause in ((reference, "pass", None), (plain, "not_graded", "capability")):
        (result,) = run_scenarios(argv, [case], RunOptions(), catalogue=catalogue).results
        reasons = [c for c in result.checks if c.what == "reason"]
        assert reasons and all(c.status == status and c.cause == cause for c in reasons)
        assert result.status == "pass"
