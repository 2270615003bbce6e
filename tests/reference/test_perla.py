"""The Perla profile (seed 003) in the reference: each PERLA- rule and each Perla disputed
point, both ways (docs/rules.md, "Perla profile"; docs/protocol.md §10)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from profile_laws import all_cards
from ref_helpers import cards, make_state, run, trio

from reference import (
    ARGENTINE,
    PERLA,
    Discard,
    DrawDiscard,
    DrawStock,
    GameState,
    IllegalActionError,
    InvalidStateError,
    LayOff,
    Open,
    Phase,
    Reason,
    SwapJoker,
    apply,
    check_contract,
    check_meld,
    full_pack,
    new_game,
    next_deal,
    penalty,
    start_deal,
)
from reference.actions import Pass
from reference.adapter import Adapter
from reference.game import shuffled_pack, validate_state
from reference.profiles import Profile


def perla(**rulings: str) -> Profile:
    """The Perla profile playing other options (``perla(DISPUTE_65="zero")``)."""
    return PERLA.with_rulings({k.replace("_", "-"): v for k, v in rulings.items()})


def rejected(state: GameState, action: object) -> Reason:
    with pytest.raises(IllegalActionError) as info:
        apply(state, action)  # type: ignore[arg-type]
    return info.value.reason


def ordered_deck(profile: Profile, players: int) -> tuple[Any, ...]:
    """The pack in canonical order: a deal from it is fully predictable."""
    return full_pack(*profile.pack(players))


# --- pack, players, rounds (CARDS-1, PERLA-PLAYERS-1, PERLA-GAME-1, PERLA-DEAL-3) --------------


@pytest.mark.parametrize("players", [2, 4, 5, 8])
def test_the_108_cards_serve_two_to_eight_players(players: int) -> None:
    state = new_game(PERLA, players, 7)
    counts = all_cards(state)
    assert sum(counts.values()) == 108  # CARDS-1, DISPUTE-61 four_jokers, DISPUTE-73
    assert counts[cards("JK")[0]] == 4
    assert validate_state(state) == ()


def test_dispute_61_two_jokers_makes_106_cards() -> None:
    state = new_game(perla(DISPUTE_61="two_jokers"), 3, 1)
    assert sum(all_cards(state).values()) == 106
    assert all_cards(state)[cards("JK")[0]] == 2


def test_dispute_73_two_to_four_refuses_a_fifth_player() -> None:
    assert validate_state(new_game(PERLA, 8, 1)) == ()
    narrow = perla(DISPUTE_73="two_to_four")
    with pytest.raises(InvalidStateError):
        start_deal(narrow, 5, 1, 0, (0,) * 5, ordered_deck(narrow, 5))


def test_eight_players_are_dealt_thirteen_in_round_8() -> None:
    # PERLA-DEAL-3: 8 x 13 hands and the upcard are 105 of the 108 cards (DISPUTE-73).
    state = start_deal(PERLA, 8, 8, 0, (0,) * 8, ordered_deck(PERLA, 8))
    assert [len(h) for h in state.hands] == [13] * 8
    assert len(state.stock) == 3


def test_hand_sizes_and_contracts_of_the_eight_rounds() -> None:
    # PERLA-DEAL-3: 11 cards, 13 in round 8; PERLA-CONTRACT-7, PERLA-CONTRACT-8.
    assert PERLA.hand_sizes == (11,) * 7 + (13,)
    assert PERLA.contracts[6:] == ((4, 0), (0, 3))
    assert perla(DISPUTE_68="eleven").hand_sizes == (11,) * 8
    four_trios = [trio("4S 4H 4D"), trio("5S 5H 5D"), trio("6S 6H 6D"), trio("7S 7H 7D")]
    three_runs = [run("4S 5S 6S 7S"), run("4H 5H 6H 7H"), run("4D 5D 6D 7D")]
    assert check_contract(four_trios, 7, PERLA) is None
    assert check_contract(three_runs, 7, PERLA) is Reason.CONTRACT_MISMATCH
    assert check_contract(three_runs, 8, PERLA) is None
    assert check_contract(four_trios, 8, PERLA) is Reason.CONTRACT_MISMATCH


def test_dispute_69_plays_one_of_rounds_7_and_8_as_the_last_of_seven() -> None:
    both = PERLA
    only_8 = perla(DISPUTE_69="round_8_only")
    only_7 = perla(DISPUTE_69="round_7_only")
    assert both.deals == 8 and only_8.deals == 7 and only_7.deals == 7
    assert only_8.contract(7) == (0, 3) and only_7.contract(7) == (4, 0)
    assert only_8.hand_size(7) == 13 and only_7.hand_size(7) == 13  # the last round
    assert only_8.ruling("DISPUTE-27") == "seven" and both.ruling("DISPUTE-27") == "eight"


def test_dispute_70_thirteen_card_rounds_is_accepted_and_played_as_excluded() -> None:
    variation = perla(DISPUTE_70="thirteen_card_rounds")
    assert variation.ruling("DISPUTE-70") == "thirteen_card_rounds"
    assert (variation.deals, variation.contracts) == (PERLA.deals, PERLA.contracts)


# --- wild cards (PERLA-WILD-1..4) ------------------------------------------------------------


def test_red_aces_are_wild_and_black_aces_natural() -> None:
    assert check_meld(trio("8C 8D AH"), initial=True, profile=PERLA) is None
    assert check_meld(run("4S AD 6S 7S"), initial=True, profile=PERLA) is None
    # A black ace stays natural; in argentine a red ace is natural too.
    assert check_meld(trio("8C 8D AS"), initial=True, profile=PERLA) is Reason.TRIO_MIXED_RANKS
    assert check_meld(trio("8C 8D AH"), initial=True, profile=ARGENTINE) is not None


def test_a_red_ace_in_its_own_place_is_natural_under_dispute_49() -> None:
    # PERLA-WILD-3: the A♥ is the natural low ace of hearts, so the run has a natural card.
    assert check_meld(run("AH JK JK JK"), initial=True, profile=PERLA) is None
    assert check_meld(run("JD JK JK AD"), initial=True, profile=PERLA) is None
    assert check_meld(trio("AH AD JK"), initial=True, profile=PERLA) is None
    wild = perla(DISPUTE_49="always_wild")
    assert check_meld(run("AH JK JK JK"), initial=True, profile=wild) is Reason.RUN_SUIT
    assert check_meld(trio("AH AD JK"), initial=True, profile=wild) is Reason.TRIO_MIXED_RANKS


def test_two_natural_hearts_aces_in_a_trio_of_aces_repeat_a_suit() -> None:
    # In a trio of aces both A♥ are natural (PERLA-WILD-3), so the suit repeats (PERLA-TRIO-1).
    assert check_meld(trio("AH AH AS"), initial=True, profile=PERLA) is Reason.TRIO_SUITS
    assert check_meld(trio("AS AC AH"), initial=True, profile=PERLA) is None


def test_dispute_50_no_wild_limit_but_one_natural_card() -> None:
    assert check_meld(trio("8C JK AH"), initial=True, profile=PERLA) is None
    assert check_meld(run("4S JK JK JK"), initial=True, profile=PERLA) is None
    assert check_meld(trio("JK JK JK"), initial=True, profile=PERLA) is Reason.TRIO_MIXED_RANKS
    limited = perla(DISPUTE_50="one_per_meld")
    assert check_meld(trio("8C JK AH"), initial=True, profile=limited) is Reason.TOO_MANY_JOKERS


def test_dispute_72_no_wild_card_leaves_the_table() -> None:
    table = [(0, run("4S 5S JK 7S"))]
    state = make_state(
        ["6S 9C 9D", "KC KD KH"], deal_number=3, turn=0, phase="play",
        opened=[True, False], table=table, profile=PERLA,
    )  # fmt: skip
    swap = SwapJoker(0, 0, cards("6S")[0], "low")
    assert rejected(state, swap) is Reason.NO_WILD_SWAPS  # PERLA-WILD-4
    swapped = apply(replace_profile(state, perla(DISPUTE_72="run_end")), swap)
    assert swapped.table[0].meld == run("JK 4S 5S 6S 7S")  # JOKER-4 as argentine


def replace_profile(state: GameState, profile: Profile) -> GameState:
    from dataclasses import replace

    return replace(state, profile=profile)


# --- legs (PERLA-TRIO-1, PERLA-TRIO-4; DISPUTE-63) --------------------------------------------


def test_legs_have_three_or_four_cards_of_different_suits() -> None:
    assert check_meld(trio("8C 8C 8D"), initial=True, profile=PERLA) is Reason.TRIO_SUITS
    assert check_meld(trio("8C 8D 8H 8S"), initial=True, profile=PERLA) is None
    assert check_meld(trio("8C 8D 8H 8S JK"), initial=False, profile=PERLA) is Reason.TRIO_SIZE
    free = perla(DISPUTE_63="free")
    assert check_meld(trio("8C 8C 8D"), initial=True, profile=free) is None
    assert check_meld(trio("8C 8D 8H 8S JK"), initial=False, profile=free) is None


def test_a_leg_grows_only_with_a_missing_suit_up_to_four_cards() -> None:
    table = [(1, trio("8C 8D 8H")), (1, trio("9C 9D 9H 9S"))]
    state = make_state(
        ["8S 8C JK 2D", "KC KD KH"], deal_number=1, turn=0, phase="play",
        opened=[True, True], table=table, profile=PERLA,
    )  # fmt: skip
    assert apply(state, LayOff(0, cards("8S")[0], 0)).table[0].meld == trio("8C 8D 8H 8S")
    assert rejected(state, LayOff(0, cards("8C")[0], 0)) is Reason.DOES_NOT_FIT
    assert rejected(state, LayOff(0, cards("JK")[0], 1)) is Reason.DOES_NOT_FIT
    free = replace_profile(state, perla(DISPUTE_63="free"))
    assert apply(free, LayOff(0, cards("8C")[0], 0)).table[0].meld == trio("8C 8C 8D 8H")


# --- lowering and lay-offs (PERLA-OPEN-1, PERLA-TURN-6, PERLA-LAYOFF-1; DISPUTE-66, -20) ------


def test_melds_may_be_laid_down_longer_than_their_minimum() -> None:
    melds = [trio("8C 8D 8H 8S"), run("3S 4S 5S 6S 7S")]
    assert check_contract(melds, 2, PERLA) is None
    assert check_contract(melds, 2, perla(DISPUTE_66="exact")) is Reason.TRIO_SIZE
    assert perla(DISPUTE_66="exact").ruling("DISPUTE-31") == "exact"


def test_a_lay_off_may_follow_the_laying_down_on_the_same_turn() -> None:
    state = make_state(
        ["8C 8D 8H 3S 4S 5S 6S 7S 9C 9D", "KC KD KH"], deal_number=2, turn=0, phase="play",
        opened=[False, False], profile=PERLA,
    )  # fmt: skip
    opened = apply(state, Open(0, (trio("8C 8D 8H"), run("4S 5S 6S 7S"))))
    assert opened.turn_opened
    grown = apply(opened, LayOff(0, cards("3S")[0], 1, "low"))  # type: ignore[arg-type]
    assert grown.table[1].meld == run("3S 4S 5S 6S 7S")
    later = replace_profile(opened, perla(DISPUTE_20="later_turns"))
    assert rejected(later, LayOff(0, cards("3S")[0], 1, "low")) is Reason.OPENING_TURN  # type: ignore[arg-type]


def test_no_lay_off_before_ones_own_laying_down() -> None:
    state = make_state(
        ["8S 9C 9D", "KC KD KH"], deal_number=1, turn=0, phase="play",
        opened=[False, True], table=[(1, trio("8C 8D 8H"))], profile=PERLA,
    )  # fmt: skip
    assert rejected(state, LayOff(0, cards("8S")[0], 0)) is Reason.NOT_OPENED  # CONTRACT-10


# --- going out and its score (PERLA-OUT-1, PERLA-SCORE-1; DISPUTE-65, -71) -------------------


def round_6_lowering(profile: Profile) -> GameState:
    """Round 6, player 0 holds 12 cards: two runs and a trio leave the 10C to discard."""
    hand = "3S 4S 5S 6S 3H 4H 5H 6H 9C 9D 9H 10C"
    state = make_state([hand, "KC KD KS 2C"], deal_number=6, turn=0, phase="play", profile=profile)
    melds = (trio("9C 9D 9H"), run("3S 4S 5S 6S"), run("3H 4H 5H 6H"))
    return apply(state, Open(0, melds))


def test_going_out_on_the_lowering_turn_scores_minus_30() -> None:
    closed = apply(round_6_lowering(PERLA), Discard(0, cards("10C")[0]))
    assert closed.phase is Phase.DEAL_OVER and closed.closer == 0
    assert closed.deal_scores == (-30, 10 + 10 + 10 + 2)  # PERLA-SCORE-2: K 10, 2 2
    assert closed.totals == (-30, 32)


def test_going_out_on_a_later_turn_scores_zero() -> None:
    state = make_state(
        ["10C", "KC KD KS 2C"], deal_number=6, turn=0, phase="play", opened=[True, False],
        table=[(0, trio("9C 9D 9H")), (0, run("3S 4S 5S 6S")), (0, run("3H 4H 5H 6H"))],
        profile=PERLA,
    )  # fmt: skip
    closed = apply(state, Discard(0, cards("10C")[0]))
    assert closed.deal_scores == (0, 32)


def test_dispute_65_options_score_the_lowering_turn_differently() -> None:
    by_discard = {
        option: apply(round_6_lowering(perla(DISPUTE_65=option)), Discard(0, cards("10C")[0]))
        for option in ("same_turn", "no_discard", "zero")
    }
    assert {o: s.deal_scores[0] for o, s in by_discard.items()} == {  # type: ignore[index]
        "same_turn": -30,
        "no_discard": 0,
        "zero": 0,
    }
    # Emptying the hand by the laying down itself (round 7: four legs take all 12 cards).
    hand = "4S 4H 4D 5S 5H 5D 6S 6H 6D 7S 7H 7D"
    legs = (trio("4S 4H 4D"), trio("5S 5H 5D"), trio("6S 6H 6D"), trio("7S 7H 7D"))
    for option, score in (("same_turn", -30), ("no_discard", -30), ("zero", 0)):
        profile = perla(DISPUTE_65=option)
        state = make_state([hand, "KC KD"], deal_number=7, turn=0, phase="play", profile=profile)
        closed = apply(state, Open(0, legs))
        assert (closed.phase, closed.closer, closed.deal_scores) == (
            Phase.DEAL_OVER,
            0,
            (score, 20),
        ), option


def test_going_out_by_a_lay_off_ends_the_round_without_a_discard() -> None:
    state = make_state(
        ["8S", "KC KD KH"], deal_number=1, turn=0, phase="play", opened=[True, True],
        table=[(1, trio("8C 8D 8H"))], profile=PERLA,
    )  # fmt: skip
    closed = apply(state, LayOff(0, cards("8S")[0], 0))
    assert closed.phase is Phase.DEAL_OVER and closed.deal_scores == (0, 30)
    strict = replace_profile(state, perla(DISPUTE_71="discard_only"))
    assert rejected(strict, LayOff(0, cards("8S")[0], 0)) is Reason.HAND_WOULD_EMPTY


# --- steals (PERLA-STEAL-1, PERLA-STEAL-2; DISPUTE-64) -----------------------------------------


def steal_table(profile: Profile) -> GameState:
    """Four players; player 0 is to draw, the top discard is the 6H."""
    hands = ["2C 3C 4C", "5D 7D 9D", "JC QC KC", "2S 4S 8S"]
    return make_state(hands, deal_number=1, turn=0, discard="6H 9S", profile=profile)


def test_a_steal_needs_every_earlier_player_to_pass_and_costs_2() -> None:
    drawn = apply(steal_table(PERLA), DrawStock(0))  # the player to move passes by drawing
    assert rejected(drawn, DrawDiscard(2)) is Reason.BUY_OUT_OF_TURN  # player 1 has not passed
    assert rejected(drawn, Pass(2)) is Reason.NOT_YOUR_TURN
    passed = apply(drawn, Pass(1))
    stolen = apply(passed, DrawDiscard(2))
    assert cards("6H")[0] in stolen.hands[2] and len(stolen.hands[2]) == 4
    assert stolen.discard == cards("9S") and stolen.totals == (0, 0, 2, 0)
    assert stolen.turn == 0 and stolen.phase is Phase.PLAY  # player 0 plays on
    assert rejected(stolen, DrawDiscard(3)) is Reason.BUY_OUT_OF_TURN  # one steal per discard


def test_dispute_64_forbidden_allows_no_steal() -> None:
    profile = perla(DISPUTE_64="forbidden")
    assert profile.ruling("DISPUTE-29") == "forbidden"
    drawn = apply(steal_table(profile), DrawStock(0))
    assert rejected(drawn, DrawDiscard(1)) is Reason.BUY_OUT_OF_TURN
    assert rejected(drawn, Pass(1)) is Reason.NOT_YOUR_TURN


def test_steal_points_stay_in_the_total_through_the_close() -> None:
    drawn = apply(steal_table(PERLA), DrawStock(0))
    stolen = apply(drawn, DrawDiscard(1))
    assert stolen.totals == (0, 2, 0, 0)
    state = replace_profile(stolen, PERLA)
    # SCORE-4: the close adds the deal scores to totals that already hold the steal.
    closing = make_state(
        ["QS", *(" ".join(c.code() for c in h) for h in state.hands[1:])], deal_number=1,
        turn=0, phase="play", opened=[True, False, False, False], totals=state.totals,
        table=[(0, trio("10C 10D 10H")), (0, trio("JD JH JS"))], profile=PERLA,
    )  # fmt: skip
    closed = apply(closing, Discard(0, cards("QS")[0]))
    scores = closed.deal_scores or ()
    assert closed.totals == tuple(t + s for t, s in zip((0, 2, 0, 0), scores, strict=True))


# --- the cut (PERLA-CUT-1, PERLA-CUT-2; DISPUTE-67) -------------------------------------------


@pytest.mark.parametrize(("players", "deal", "perfect"), [(4, 1, 45), (2, 1, 23), (3, 8, 40)])
def test_a_perfect_cut_scores_minus_10_for_the_dealers_left_neighbour(
    players: int, deal: int, perfect: int
) -> None:
    deck = ordered_deck(PERLA, players)
    dealer = 1
    cutter = (dealer - 1) % players
    state = start_deal(PERLA, players, deal, dealer, (5,) * players, deck, cut=perfect)
    assert state.totals == tuple(-5 if i == cutter else 5 for i in range(players))
    # The cut never changes the deal itself.
    assert state.hands == start_deal(PERLA, players, deal, dealer, (5,) * players, deck).hands
    for near in (perfect - 1, perfect + 1):
        missed = start_deal(PERLA, players, deal, dealer, (5,) * players, deck, cut=near)
        assert missed.totals == (5,) * players
    plain = perla(DISPUTE_67="no_bonus")
    unscored = start_deal(plain, players, deal, dealer, (5,) * players, deck, cut=perfect)
    assert unscored.totals == (5,) * players


def test_a_cut_must_leave_two_parts_of_the_deck() -> None:
    deck = ordered_deck(PERLA, 2)
    for cut in (0, 108, 200):
        with pytest.raises(InvalidStateError, match="cut"):
            start_deal(PERLA, 2, 1, 0, (0, 0), deck, cut=cut)


def test_next_deal_takes_the_cut_of_the_new_round() -> None:
    state = make_state(
        ["QS", "KC KD KH"], deal_number=1, dealer=0, turn=0, phase="play",
        opened=[True, False], table=[(0, trio("10C 10D 10H")), (0, trio("JD JH JS"))],
        profile=PERLA,
    )  # fmt: skip
    closed = apply(state, Discard(0, cards("QS")[0]))
    assert closed.totals == (0, 30)
    # Round 2: player 1 deals, so player 0 (the previous dealer) cuts (PERLA-DEAL-2).
    dealt = next_deal(closed, ordered_deck(PERLA, 2), cut=2 * 11 + 1)
    assert (dealt.deal_number, dealt.dealer, dealt.totals) == (2, 1, (-10, 30))


def test_the_adapter_reads_the_cut_and_refuses_a_bad_one() -> None:
    adapter = Adapter()
    deck = [c.code() for c in ordered_deck(PERLA, 4)]
    request = {"id": 2, "op": "start_deal", "profile": "perla", "players": 4,
               "deal_number": 1, "dealer": 0, "totals": [0, 0, 0, 0], "deck": deck}  # fmt: skip
    answer, _ = adapter.handle(json.dumps({**request, "cut": 45}))
    assert answer["state"]["totals"] == [0, 0, 0, -10]
    for bad in (0, "45", True, 108):
        answer, _ = adapter.handle(json.dumps({**request, "cut": bad}))
        assert answer["error"]["kind"] == "bad_request", bad


# --- the first dealer (PERLA-DEAL-1, DISPUTE-74) ----------------------------------------------


@pytest.mark.parametrize(
    ("lot", "dealer"),
    [
        ("9H KD 5C QS", 3),  # player 2 draws the lowest and cuts; player 3 deals
        ("AS 7D JC 4H 10S 8C", 4),  # aces high: the 4H, not the AS, is lowest
        ("QH 8S 6D", 0),  # the cutter is the last seat: the deal goes round to player 0
    ],
)
def test_the_lowest_card_drawn_cuts_and_the_next_player_deals(lot: str, dealer: int) -> None:
    drawn = tuple(cards(lot))
    state = new_game(PERLA, len(drawn), 7, drawn)
    assert (state.dealer, state.turn) == (dealer, (dealer + 1) % len(drawn))
    # The seed still shuffles the pack: the same deal as without a lot, from that dealer.
    assert state.deal_number == 1 and state.totals == (0,) * len(drawn)
    assert new_game(perla(DISPUTE_74="first_seat"), len(drawn), 7, drawn).dealer == 0


@pytest.mark.parametrize("lot", ["9H KD 5C", "9H JK 5C QS", "9H 5D 5C QS"])
def test_a_lot_the_text_cannot_read_is_refused(lot: str) -> None:
    with pytest.raises(InvalidStateError, match=r"lot|joker|lowest"):
        new_game(PERLA, 4, 7, tuple(cards(lot)))


def test_the_adapter_reads_the_lot_only_in_perla() -> None:
    adapter = Adapter()
    request = {"id": 2, "op": "new_game", "players": 4, "seed": 3, "lot": ["9H", "KD", "5C", "QS"]}
    answer, _ = adapter.handle(json.dumps({**request, "profile": "perla"}))
    assert answer["state"]["dealer"] == 3
    for bad in ({"profile": "argentine"}, {"profile": "perla", "lot": ["9H", "5D", "5C", "QS"]}):
        answer, _ = adapter.handle(json.dumps({**request, **bad}))
        assert answer["error"]["kind"] == "bad_request", bad


# --- card values and the handshake (PERLA-SCORE-2; DISPUTE-62) --------------------------------


def test_card_values() -> None:
    assert penalty(cards("AH"), PERLA) == 25 and penalty(cards("AD"), PERLA) == 25
    assert penalty(cards("AS AC"), PERLA) == 30 and penalty(cards("JK"), PERLA) == 25
    assert penalty(cards("2S 9D 10H JC QD KS"), PERLA) == 2 + 9 + 10 + 30
    assert penalty(cards("AH AD"), perla(DISPUTE_62="ace_value")) == 30


def test_a_wild_upcard_stays_unless_dispute_9_buries_it() -> None:
    deck = list(ordered_deck(PERLA, 2))
    ace = deck.index(cards("AH")[0], 30)
    deck[22], deck[ace] = deck[ace], deck[22]  # the 23rd card, after two hands of 11
    assert start_deal(PERLA, 2, 1, 0, (0, 0), deck).discard == cards("AH")
    buried = start_deal(perla(DISPUTE_09="bury"), 2, 1, 0, (0, 0), deck)
    assert buried.discard != cards("AH") and buried.stock[-1] == cards("AH")[0]


def test_the_handshake_lists_perla_and_its_rulings() -> None:
    hello, _ = Adapter(rulings={"DISPUTE-65": "zero"}).handle('{"id": 1, "op": "hello"}')
    assert "perla" in hello["profiles"] and max(hello["players"]) == 8
    assert hello["profile_rulings"]["perla"]["DISPUTE-65"] == "zero"
    assert hello["profile_rulings"]["perla"]["DISPUTE-29"] == "steal"


def test_a_restated_argentine_point_names_the_perla_point() -> None:
    with pytest.raises(ValueError, match="DISPUTE-64"):
        PERLA.with_rulings({"DISPUTE-29": "forbidden"})
    with pytest.raises(ValueError, match="not a point of the perla profile"):
        PERLA.with_rulings({"DISPUTE-44": "laid_down"})


def test_a_new_perla_game_deals_a_valid_round_1() -> None:
    state = new_game(PERLA, 3, 11)
    assert state.deal_number == 1 and [len(h) for h in state.hands] == [11, 11, 11]
    assert state.totals == (0, 0, 0)  # new_game makes no cut
    assert len(shuffled_pack(PERLA, __import__("random").Random(1), 3)) == 108


# --- every option of every Perla point runs ---------------------------------------------------

PERLA_POINTS = [f"DISPUTE-{n}" for n in (*range(61, 78), 47, 49, 50)]


@pytest.mark.parametrize("point", PERLA_POINTS)
def test_every_option_of_a_perla_point_is_played_and_declared(point: str) -> None:
    from reference.profiles import OPTIONS

    for option in OPTIONS[point]:
        adapter = Adapter(rulings={point: option})
        hello, _ = adapter.handle('{"id": 1, "op": "hello"}')
        assert hello["profile_rulings"]["perla"][point] == option
        # A new game deals under the option (DISPUTE-73 two_to_four: four players at most).
        answer, _ = adapter.handle(
            '{"id": 2, "op": "new_game", "profile": "perla", "players": 4, "seed": 3}'
        )
        assert answer["state"]["profile"] == "perla", (point, option)


def test_shared_points_under_their_other_options() -> None:
    # DISPUTE-77 forbidden: a run holds one ace at most (MELD-RUN-4).
    ace_to_ace = run("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS")
    assert check_meld(ace_to_ace, initial=False, profile=PERLA) is None
    assert check_meld(ace_to_ace, initial=False, profile=perla(DISPUTE_77="forbidden"))
    # DISPUTE-74 first_seat: player 0 deals round 1.
    assert new_game(perla(DISPUTE_74="first_seat"), 5, 9).dealer == 0
    # DISPUTE-75 recycle: the empty stock is recycled as 000 (STOCK-1), not the end of the round.
    state = make_state(["8C 9D", "KC KD"], deal_number=1, turn=0, stock="", discard="6H 5S 4S")
    ended = apply(replace_profile(state, PERLA), DrawStock(0))
    assert ended.phase is Phase.DEAL_OVER and ended.closer is None
    assert ended.deal_scores == (17, 20)  # PERLA-STOCK-1: every hand scores
    recycled = apply(replace_profile(state, perla(DISPUTE_75="recycle")), DrawStock(0))
    assert recycled.phase is Phase.PLAY and len(recycled.hands[0]) == 3
