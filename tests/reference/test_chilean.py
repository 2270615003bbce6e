"""The Chilean profile (seed 001) in the reference: each CHILE- rule and each Chilean
disputed point, both ways (docs/rules.md, "Chilean profile"; docs/protocol.md §8)."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from ref_helpers import cards, make_state, run, trio

from reference import (
    ARGENTINE,
    CHILEAN,
    Discard,
    DrawDiscard,
    DrawStock,
    IllegalActionError,
    InvalidActionError,
    InvalidStateError,
    LayOff,
    Open,
    Phase,
    Reason,
    SwapJoker,
    apply,
    check_contract,
    check_meld,
    new_game,
    penalty,
    start_deal,
)
from reference.adapter import Adapter
from reference.game import game_ends, shuffled_pack, validate_state
from reference.profiles import Profile


def chile(**rulings: str) -> Profile:
    """The Chilean profile playing other options (``chile(DISPUTE_44="laid_down")``)."""
    return CHILEAN.with_rulings({k.replace("_", "-"): v for k, v in rulings.items()})


def rejected(state: object, action: object) -> Reason:
    with pytest.raises(IllegalActionError) as info:
        apply(state, action)  # type: ignore[arg-type]
    return info.value.reason


def held(state: object) -> Counter[object]:
    found: Counter[object] = Counter()
    for hand in state.hands:  # type: ignore[attr-defined]
        found.update(hand)
    for tm in state.table:  # type: ignore[attr-defined]
        found.update(tm.meld.cards)
    found.update(state.stock)  # type: ignore[attr-defined]
    found.update(state.discard)  # type: ignore[attr-defined]
    return found


# --- pack, players, rounds (CHILE-CARDS-1/2, CHILE-PLAYERS-1, CHILE-GAME-1, CHILE-DEAL-3) -----


@pytest.mark.parametrize(
    ("players", "size", "copies", "jokers"),
    [(2, 106, 2, 2), (4, 106, 2, 2), (5, 160, 3, 4), (6, 160, 3, 4)],
)
def test_the_pack_depends_on_the_player_count(
    players: int, size: int, copies: int, jokers: int
) -> None:
    state = new_game(CHILEAN, players, 5)
    counts = held(state)
    assert sum(counts.values()) == size
    assert counts[cards("JK")[0]] == jokers
    assert {n for c, n in counts.items() if not c.is_joker} == {copies}
    assert validate_state(state) == ()


def test_dispute_43_one_fifty_nine_has_three_jokers_with_three_packs() -> None:
    state = new_game(chile(DISPUTE_43="one_fifty_nine"), 5, 1)
    assert sum(held(state).values()) == 159
    assert new_game(chile(DISPUTE_43="one_fifty_nine"), 4, 1).stock  # 2-4 players: 106


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("big_pack", ["one_sixty", "one_fifty_nine"])
def test_dispute_78_always_108_deals_two_packs_and_four_jokers_to_any_count(
    players: int, big_pack: str
) -> None:
    # docs/rules.md DISPUTE-78 always_108: 2 x 52 + 4 = 108 cards whatever the count;
    # DISPUTE-43 (the third pack's jokers) then has no effect.
    profile = chile(DISPUTE_78="always_108", DISPUTE_43=big_pack)
    state = new_game(profile, players, 7)
    counts = held(state)
    assert sum(counts.values()) == 108
    assert counts[cards("JK")[0]] == 4
    assert {n for c, n in counts.items() if not c.is_joker} == {2}
    # Round 1 deals 11 cards a hand: the stock is 108 - 11 x players - 1.
    assert len(state.stock) == 108 - 11 * players - 1
    assert validate_state(state) == ()


def test_dispute_78_by_players_is_the_profile_pack() -> None:
    assert chile(DISPUTE_78="by_players").pack(4) == CHILEAN.pack(4) == (2, 2)  # 106
    assert chile(DISPUTE_78="by_players").pack(5) == CHILEAN.pack(5) == (3, 4)  # 160


def test_dispute_78_always_108_refuses_the_profile_decks() -> None:
    profile = chile(DISPUTE_78="always_108")
    with pytest.raises(InvalidStateError, match="not 108"):
        start_deal(profile, 3, 1, 0, (0, 0, 0), shuffled_pack(CHILEAN, random.Random(1), 3))
    with pytest.raises(InvalidStateError, match="not 108"):
        start_deal(profile, 5, 1, 0, (0,) * 5, shuffled_pack(CHILEAN, random.Random(1), 5))
    deck = shuffled_pack(ARGENTINE, random.Random(1))
    state = start_deal(profile, 5, 8, 0, (0,) * 5, deck)
    assert len(state.stock) == 108 - 5 * 13 - 1  # round 8: 13 cards a hand


def test_a_deck_of_the_wrong_size_or_player_count_is_refused() -> None:
    argentine_deck = shuffled_pack(ARGENTINE, random.Random(1))
    with pytest.raises(InvalidStateError, match="not 106"):
        start_deal(CHILEAN, 3, 1, 0, (0, 0, 0), argentine_deck)
    with pytest.raises(InvalidStateError, match="players 7"):
        start_deal(CHILEAN, 7, 1, 0, (0,) * 7, shuffled_pack(CHILEAN, random.Random(1), 6))
    with pytest.raises(InvalidStateError, match="deal_number 9"):
        start_deal(CHILEAN, 2, 9, 0, (0, 0), shuffled_pack(CHILEAN, random.Random(1)))


@pytest.mark.parametrize(
    ("profile", "sizes"), [(CHILEAN, [11] * 7 + [13]), (chile(DISPUTE_42="twelve"), [12] * 8)]
)
def test_hand_sizes_per_round(profile: Profile, sizes: list[int]) -> None:
    deck = shuffled_pack(profile, random.Random(3), 6)
    for number, size in enumerate(sizes, start=1):
        state = start_deal(profile, 6, number, 2, (0,) * 6, deck)
        assert [len(h) for h in state.hands] == [size] * 6
        assert state.turn == 3  # DEAL-5: the dealer's right-hand neighbour (index + 1)


# --- wild cards (CHILE-WILD-1..3, DISPUTE-48..50) ---------------------------------------------


@pytest.mark.parametrize(
    ("meld", "initial", "wild2", "natural2"),
    [
        (trio("8C 8D 2S"), True, None, Reason.TRIO_MIXED_RANKS),  # a 2 stands in a trio
        (run("4H 2C 6H 7H"), True, None, Reason.RUN_SUIT),  # a 2 of another suit is the 5H
        (run("2S 3S 4S 5S"), True, None, None),  # the 2 in its own place is natural
        (trio("2S 2H 2D"), True, None, None),  # a trio of 2s
        (trio("8C 2S JK"), True, None, Reason.TRIO_MIXED_RANKS),  # no wild limit per meld
        (run("KS AS 2S 3S"), True, Reason.RUN_WRAPS, Reason.RUN_WRAPS),  # never K-A-2
        (run("JH QH 2D AH"), True, None, Reason.RUN_SUIT),  # ace high: J-Q-(K)-A
    ],
)
def test_wild_twos_by_dispute_48(
    meld: object, initial: bool, wild2: Reason | None, natural2: Reason | None
) -> None:
    assert check_meld(meld, initial=initial, profile=CHILEAN) is wild2  # type: ignore[arg-type]
    assert check_meld(meld, initial=initial, profile=chile(DISPUTE_48="natural")) is natural2  # type: ignore[arg-type]


def test_a_two_in_its_own_place_by_dispute_49() -> None:
    # CHILE-WILD-3: 2S JK JK JK has a natural card only if the 2 counts as natural.
    assert check_meld(run("2S JK JK JK"), initial=False, profile=CHILEAN) is None
    assert (
        check_meld(run("2S JK JK JK"), initial=False, profile=chile(DISPUTE_49="always_wild"))
        is Reason.RUN_SUIT
    )
    assert (
        check_meld(trio("2S 2H 2D"), initial=True, profile=chile(DISPUTE_49="always_wild"))
        is Reason.TRIO_MIXED_RANKS
    )


def test_wild_cards_per_meld_by_dispute_50() -> None:
    # CHILE-WILD-2: any number of wild cards, but one natural card.
    assert check_meld(run("5D JK 2C 8D"), initial=True, profile=CHILEAN) is None
    assert check_meld(trio("JK JK JK"), initial=False, profile=CHILEAN) is Reason.TRIO_MIXED_RANKS
    one = chile(DISPUTE_50="one_per_meld")
    assert check_meld(run("5D JK 2C 8D"), initial=True, profile=one) is Reason.TOO_MANY_JOKERS
    assert check_meld(run("5D JK 7D 8D"), initial=True, profile=one) is None


def test_runs_are_four_cards_when_laid_down_by_disputes_41_and_52() -> None:
    assert check_meld(run("5D 6D 7D 8D 9D"), initial=True, profile=CHILEAN) is Reason.RUN_SIZE
    assert (
        check_meld(run("5D 6D 7D 8D 9D"), initial=True, profile=chile(DISPUTE_41="at_least"))
        is None
    )
    assert check_meld(run("AS 2S 3S"), initial=True, profile=CHILEAN) is Reason.RUN_SIZE
    assert check_meld(run("AS 2S 3S"), initial=True, profile=chile(DISPUTE_52="three")) is None
    assert check_meld(run("AS 2S 3S 4S"), initial=True, profile=chile(DISPUTE_52="three")) is None
    two = run("AS 2S")
    assert check_meld(two, initial=False, profile=chile(DISPUTE_52="three")) is Reason.RUN_SIZE


def test_ace_to_ace_runs_by_dispute_77() -> None:
    long = run("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS")
    assert check_meld(long, initial=False, profile=CHILEAN) is None
    assert check_meld(long, initial=False, profile=chile(DISPUTE_77="forbidden")) is Reason.RUN_SIZE


# --- the penalty values (CHILE-SCORE-2, DISPUTE-55) -------------------------------------------


@pytest.mark.parametrize(
    ("profile", "points"),
    [
        (CHILEAN, 50 + 15 + 10 + 25 + 3),
        (chile(DISPUTE_48="natural"), 50 + 15 + 10 + 2 + 3),
        (chile(DISPUTE_55="joker_30"), 30 + 15 + 10 + 25 + 3),
        (chile(DISPUTE_55="joker_20"), 20 + 15 + 10 + 25 + 3),
        (chile(DISPUTE_55="two_20"), 50 + 15 + 10 + 20 + 3),
    ],
)
def test_penalty_values(profile: Profile, points: int) -> None:
    assert penalty(cards("JK AH KD 2C 3S"), profile) == points


# --- the upcard (CHILE-DEAL-7, DISPUTE-51) ----------------------------------------------------


def _deck_with_upcard(upcard: str, profile: Profile = CHILEAN) -> list[object]:
    deck = list(shuffled_pack(profile, random.Random(9)))
    card = cards(upcard)[0]
    deck.remove(card)
    deck.insert(22, card)  # 2 players x 11 cards, then the upcard
    return deck


def test_a_wild_upcard_is_buried_by_dispute_51() -> None:
    deck = _deck_with_upcard("2H")
    buried = start_deal(CHILEAN, 2, 1, 0, (0, 0), deck)  # type: ignore[arg-type]
    assert buried.stock[-1] == cards("2H")[0] and buried.discard[0] != cards("2H")[0]
    stays = start_deal(chile(DISPUTE_51="stays"), 2, 1, 0, (0, 0), deck)  # type: ignore[arg-type]
    assert stays.discard == cards("2H")
    natural = start_deal(chile(DISPUTE_48="natural"), 2, 1, 0, (0, 0), deck)  # type: ignore[arg-type]
    assert natural.discard == cards("2H")  # a natural 2 is not wild: not buried


# --- round 8 (CHILE-ROUND8-1..4, DISPUTE-39, DISPUTE-40) --------------------------------------

FOUR_TRIOS = [trio("5C 5D 5H"), trio("8C 8D 8S"), trio("KC KD KH"), trio("9S 9H 9D JK 2C")]


def test_round_8_contract_is_four_trios_or_four_runs_never_mixed() -> None:
    assert check_contract(FOUR_TRIOS, 8, CHILEAN) is None  # a 5-card trio is fine in round 8
    runs = [run("AS 2S 3S 4S"), run("5H 6H 7H 8H"), run("9D 10D JD QD"), run("3C 4C 5C 6C")]
    assert check_contract(runs, 8, CHILEAN) is None
    mixed = [*FOUR_TRIOS[:2], *runs[:2]]
    assert check_contract(mixed, 8, CHILEAN) is Reason.CONTRACT_MISMATCH
    three_card = [run("AS 2S 3S"), run("5H 6H 7H"), run("9D 10D JD"), run("3C 4C 5C")]
    assert check_contract(three_card, 8, CHILEAN) is Reason.RUN_SIZE
    assert check_contract(three_card, 8, chile(DISPUTE_40="three_card_runs")) is None
    assert check_contract(FOUR_TRIOS[:2], 1, CHILEAN) is None
    assert check_contract([trio("5C 5D 5H 5S"), FOUR_TRIOS[1]], 1, CHILEAN) is Reason.TRIO_SIZE


def _round8(hand: str, profile: Profile = CHILEAN) -> object:
    return make_state(
        [hand, "3D 4D 6D 7S 10H JH QS 4C 6C 7C 10S JC QC"],
        deal_number=8,
        turn=0,
        phase="play",
        profile=profile,
    )


HAND14 = "5C 5D 5H 8C 8D 8S KC KD KH 9S 9H 9D JK 2C"


def test_round_8_goes_out_in_one_play_taking_every_card() -> None:
    state = _round8(HAND14)
    after = apply(state, Open(0, tuple(FOUR_TRIOS)))  # type: ignore[arg-type]
    assert after.phase is Phase.GAME_OVER and after.closer == 0  # round 8 is the last
    assert after.deal_scores is not None and after.deal_scores[0] == 0
    assert after.winners == (0,)


def test_round_8_may_leave_one_card_to_discard_by_dispute_39() -> None:
    state = _round8(HAND14.replace(" 2C", " 4H"))
    melds = (*FOUR_TRIOS[:3], trio("9S 9H 9D JK"))
    after = apply(state, Open(0, melds))  # type: ignore[arg-type]
    assert after.phase is Phase.PLAY and after.turn_opened and after.hands[0] == cards("4H")
    assert rejected(after, LayOff(0, cards("4H")[0], 0)) is Reason.OPENING_TURN
    closed = apply(after, Discard(0, cards("4H")[0]))
    assert closed.phase is Phase.GAME_OVER and closed.closer == 0
    assert (
        rejected(
            _round8(HAND14.replace(" 2C", " 4H"), chile(DISPUTE_39="no_discard")), Open(0, melds)
        )
        is Reason.NOT_GOING_OUT
    )
    assert (
        rejected(_round8(HAND14, chile(DISPUTE_39="discard")), Open(0, tuple(FOUR_TRIOS)))
        is Reason.NOT_GOING_OUT
    )


def test_round_8_never_lays_down_short_of_going_out() -> None:
    # CHILE-ROUND8-3: twelve of fourteen cards is not a going-out play.
    state = _round8(HAND14.replace("JK 2C", "4H 6S"))
    melds = (*FOUR_TRIOS[:3], trio("9S 9H 9D"))
    assert rejected(state, Open(0, melds)) is Reason.NOT_GOING_OUT  # type: ignore[arg-type]


# --- going out by melding (CHILE-OUT-1, DISPUTE-45), rounds 6 and 7 (CHILE-END-3) -------------

ROUND7 = "AS 2S 3S 4S 5H 6H 7H 8H 9D 10D JD QD"


def test_laying_down_in_round_7_goes_out_without_a_discard() -> None:
    state = make_state(
        [ROUND7, "3D 4D 6D 7S 10H JH QS 4C 6C 7C 10S"],
        deal_number=7,
        turn=0,
        phase="play",
        profile=CHILEAN,
    )
    melds = (run("AS 2S 3S 4S"), run("5H 6H 7H 8H"), run("9D 10D JD QD"))
    after = apply(state, Open(0, melds))
    assert after.phase is Phase.DEAL_OVER and after.closer == 0 and not after.turn_opened
    assert after.deal_scores == (0, penalty(state.hands[1], CHILEAN))
    only = make_state(
        [ROUND7, "3D"],
        deal_number=7,
        turn=0,
        phase="play",
        profile=chile(DISPUTE_45="discard_only"),
    )
    assert rejected(only, Open(0, melds)) is Reason.HAND_WOULD_EMPTY


def test_laying_off_the_last_card_goes_out() -> None:
    state = make_state(
        ["9S", "3D 4D"],
        deal_number=3,
        turn=0,
        phase="play",
        opened=[True, True],
        table=[(1, run("5S 6S 7S 8S"))],
        profile=CHILEAN,
    )
    after = apply(state, LayOff(0, cards("9S")[0], 0, "high"))  # type: ignore[arg-type]
    assert after.phase is Phase.DEAL_OVER and after.closer == 0 and after.hands[0] == ()
    only = make_state(
        ["9S", "3D 4D"],
        deal_number=3,
        turn=0,
        phase="play",
        opened=[True, True],
        table=[(1, run("5S 6S 7S 8S"))],
        profile=chile(DISPUTE_45="discard_only"),
    )
    assert rejected(only, LayOff(0, cards("9S")[0], 0, "high")) is Reason.HAND_WOULD_EMPTY  # type: ignore[arg-type]


def test_the_going_out_score_by_dispute_46() -> None:
    zero = make_state(["9S", "3D 4D"], deal_number=1, turn=0, phase="play", profile=CHILEAN)
    assert apply(zero, Discard(0, cards("9S")[0])).deal_scores == (0, 7)
    out = make_state(
        ["9S", "3D 4D"], deal_number=1, turn=0, phase="play", profile=chile(DISPUTE_46="minus_ten")
    )
    done = apply(out, Discard(0, cards("9S")[0]))
    assert done.deal_scores == (-10, 7) and done.totals == (-10, 7)


def test_ties_after_round_8_by_dispute_47() -> None:
    assert game_ends(CHILEAN, 8, (40, 40, 90))
    assert not game_ends(chile(DISPUTE_47="tiebreak"), 8, (40, 40, 90))
    assert game_ends(chile(DISPUTE_47="tiebreak"), 8, (40, 41, 90))
    assert not game_ends(CHILEAN, 7, (0, 90, 90))


# --- wild swaps (CHILE-SWAP-1..3, DISPUTE-44, DISPUTE-49) -------------------------------------


def _table_state(hand: str, profile: Profile = CHILEAN, opened: bool = False) -> object:
    return make_state(
        [hand, "3D 4D 9C"],
        deal_number=2,
        turn=0,
        phase="play",
        opened=[opened, True],
        table=[(1, trio("8C 8D 2S JK")), (1, run("4H 2C 6H 7H")), (1, run("AS 2S 3S 4S"))],
        profile=profile,
    )


def test_anyone_swaps_a_wild_out_of_a_run_and_takes_it() -> None:
    state = _table_state("5H QC")
    after = apply(state, SwapJoker(0, 1, cards("5H")[0], "hand", wild=cards("2C")[0]))  # type: ignore[arg-type]
    assert after.table[1].meld.cards == cards("4H 5H 6H 7H")  # CHILE-SWAP-3: same place
    assert after.hands[0] == cards("2C QC")  # CHILE-SWAP-2: the wild goes to the hand
    assert after.phase is Phase.PLAY
    laid_down_only = _table_state("5H QC", chile(DISPUTE_44="laid_down"))
    assert rejected(laid_down_only, SwapJoker(0, 1, cards("5H")[0], "hand")) is Reason.NOT_OPENED
    opened = _table_state("5H QC", chile(DISPUTE_44="laid_down"), opened=True)
    assert apply(opened, SwapJoker(0, 1, cards("5H")[0], "hand")).hands[0] == cards("2C QC")  # type: ignore[arg-type]


def test_a_trio_swap_names_its_wild_card() -> None:
    state = _table_state("8H QC")
    joker = apply(state, SwapJoker(0, 0, cards("8H")[0], "hand", wild=cards("JK")[0]))  # type: ignore[arg-type]
    assert Counter(joker.table[0].meld.cards) == Counter(cards("8C 8D 8H 2S"))
    assert joker.hands[0] == cards("QC JK")
    two = apply(state, SwapJoker(0, 0, cards("8H")[0], "hand", wild=cards("2S")[0]))  # type: ignore[arg-type]
    assert two.hands[0] == cards("2S QC")
    with pytest.raises(InvalidActionError, match="name the wild card"):
        apply(state, SwapJoker(0, 0, cards("8H")[0], "hand"))  # type: ignore[arg-type]
    assert (
        rejected(state, SwapJoker(0, 0, cards("8H")[0], "hand", wild=cards("2D")[0]))
        is Reason.NO_JOKER_FOR_CARD
    )


def test_a_swap_rejects_what_the_rules_forbid() -> None:
    state = _table_state("5H 2S 2C 9H")
    assert rejected(state, SwapJoker(0, 1, cards("5H")[0], "low")) is Reason.WILD_TO_HAND
    assert rejected(state, SwapJoker(0, 1, cards("9H")[0], "hand")) is Reason.NO_JOKER_FOR_CARD
    # CHILE-WILD-3: the 2S of AS 2S 3S 4S is natural, nothing stands for it.
    assert rejected(state, SwapJoker(0, 2, cards("2S")[0], "hand")) is Reason.NO_JOKER_FOR_CARD
    # A 2 put into a trio of 8s would itself be wild there.
    assert rejected(state, SwapJoker(0, 0, cards("2C")[0], "hand")) is Reason.NO_JOKER_FOR_CARD
    assert rejected(state, SwapJoker(0, 7, cards("5H")[0], "hand")) is Reason.NO_SUCH_MELD


# --- the other Chilean points: DISPUTE-53, -54, -74, -75 --------------------------------------


def test_taking_the_discard_out_of_turn_by_dispute_53() -> None:
    state = make_state(["9S 3C", "3D 4D"], turn=0, discard="KH", profile=CHILEAN)
    assert rejected(state, DrawDiscard(1)) is Reason.BUY_OUT_OF_TURN
    taken = apply(
        make_state(["9S 3C", "3D 4D"], turn=0, discard="KH", profile=chile(DISPUTE_53="yes")),
        DrawDiscard(1),
    )
    assert Counter(taken.hands[1]) == Counter(cards("3D 4D KH"))
    assert taken.totals == (0, 0) and taken.turn == 0  # no charge; still player 0's turn


def test_laying_down_is_optional_unless_dispute_54_compulsory() -> None:
    hand = "5C 5D 5H 8C 8D 8S QH"
    state = make_state([hand, "3D 4D"], deal_number=1, turn=0, phase="play", profile=CHILEAN)
    assert apply(state, Discard(0, cards("QH")[0])).phase is Phase.DRAW
    must = make_state(
        [hand, "3D 4D"], deal_number=1, turn=0, phase="play", profile=chile(DISPUTE_54="compulsory")
    )
    assert rejected(must, Discard(0, cards("QH")[0])) is Reason.MUST_LAY_DOWN
    laid = apply(must, Open(0, (trio("5C 5D 5H"), trio("8C 8D 8S"))))
    assert apply(laid, Discard(0, cards("QH")[0])).phase is Phase.DEAL_OVER


def test_the_first_dealer_by_dispute_74() -> None:
    dealers = {new_game(CHILEAN, 4, seed).dealer for seed in range(12)}
    assert len(dealers) > 1  # by lot
    assert {new_game(chile(DISPUTE_74="first_seat"), 4, seed).dealer for seed in range(12)} == {0}


def test_the_empty_stock_by_dispute_75() -> None:
    base = dict(deal_number=1, turn=0, stock="", discard="KH 3C 4C")
    recycled = apply(make_state(["9S", "3D 4D"], profile=CHILEAN, **base), DrawStock(0))  # type: ignore[arg-type]
    assert recycled.phase is Phase.PLAY and recycled.discard == cards("KH")
    ends = apply(
        make_state(["9S", "3D 4D"], profile=chile(DISPUTE_75="round_ends"), **base), DrawStock(0)
    )  # type: ignore[arg-type]
    assert ends.phase is Phase.DEAL_OVER and ends.closer is None and ends.deal_scores == (9, 7)


# --- the profile's rulings and the adapter ----------------------------------------------------


def test_a_chilean_point_sets_the_argentine_point_it_restates() -> None:
    assert CHILEAN.ruling("DISPUTE-25") == "wild"
    assert chile(DISPUTE_48="natural").ruling("DISPUTE-25") == "natural"
    assert chile(DISPUTE_45="discard_only").ruling("DISPUTE-13") == "no"
    with pytest.raises(ValueError, match="DISPUTE-25 is set by DISPUTE-48 in the chilean profile"):
        CHILEAN.with_rulings({"DISPUTE-25": "natural"})
    with pytest.raises(ValueError, match="DISPUTE-44 is not a point of the argentine profile"):
        ARGENTINE.with_rulings({"DISPUTE-44": "laid_down"})


def test_the_adapter_plays_chilean_and_its_rulings() -> None:
    def ask(adapter: Adapter, **request: object) -> dict[str, object]:
        answer, _ = adapter.handle(json.dumps({"id": 1, **request}))
        return answer

    hello = ask(
        Adapter(rulings={"DISPUTE-44": "laid_down", "DISPUTE-25": "wild"}), op="hello", protocol=1
    )
    assert {"argentine", "chilean"} <= set(hello["profiles"])  # type: ignore[arg-type]
    assert hello["players"] == [2, 3, 4, 5, 6, 7, 8]
    assert hello["rulings"]["DISPUTE-25"] == "wild"  # type: ignore[index]
    chilean = hello["profile_rulings"]["chilean"]  # type: ignore[index]
    assert chilean["DISPUTE-44"] == "laid_down" and chilean["DISPUTE-25"] == "wild"
    # A point only chilean rules on is in `rulings` too, for harnesses that read only that.
    assert hello["rulings"]["DISPUTE-44"] == "laid_down"  # type: ignore[index]
    assert ask(Adapter(), op="penalty", profile="chilean", cards=["2S", "AS"]) == {
        "id": 1,
        "points": 40,
    }
    only = Adapter(profiles=["argentine"])
    assert ask(only, op="hello", protocol=1)["profiles"] == ["argentine"]
    assert ask(only, op="penalty", profile="chilean", cards=[])["error"]["kind"] == "unsupported"  # type: ignore[index]
    swap = {"type": "swap_joker", "player": 0, "meld": 1, "card": "5H", "to": "hand", "wild": "2C"}
    adapter = Adapter()
    state = _table_state("5H QC")
    from reference.codec import state_to_json

    assert "state" in ask(adapter, op="load_state", state=state_to_json(state))  # type: ignore[arg-type]
    answer = ask(adapter, op="act", action=swap)
    assert answer["accepted"] is True and answer["state"]["hands"][0] == ["2C", "QC"]  # type: ignore[index]


# --- DISPUTE-27 eight, the Argentine profile's eighth deal -------------------------------------


def test_argentine_dispute_27_eight_ends_with_a_going_out_play_of_three_runs() -> None:
    eight = ARGENTINE.with_rulings({"DISPUTE-27": "eight"})
    hand = "AS 2S 3S 4S 5S 5H 6H 7H 8H 9H 9D 10D JD QD"
    melds = (run("AS 2S 3S 4S 5S"), run("5H 6H 7H 8H 9H"), run("9D 10D JD QD"))
    state = make_state([hand, "3D 4D"], deal_number=8, turn=0, phase="play", profile=eight)
    after = apply(state, Open(0, melds))
    assert after.phase is Phase.GAME_OVER and after.closer == 0  # no discard needed
    short = make_state([hand + " KC", "3D 4D"], deal_number=8, turn=0, phase="play", profile=eight)
    assert rejected(short, Open(0, melds)) is Reason.NOT_GOING_OUT
    seven = make_state([hand, "3D 4D"], deal_number=7, turn=0, phase="play", profile=eight)
    assert rejected(seven, Open(0, melds)) is Reason.RUN_SIZE  # deal 7 keeps exact sizes
