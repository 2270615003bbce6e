"""Turn flow, lay-offs, jokers, stock, closing and dealing through ``apply`` and friends.

Each test names the rule ID(s) it checks; expected values come from seed 000 and the
rulings of rules-reading.md, never from running the engine.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest
from ref_helpers import cards, make_state, run, trio

from reference import (
    ARGENTINE,
    Card,
    Discard,
    DrawDiscard,
    DrawStock,
    End,
    GameState,
    IllegalActionError,
    InvalidActionError,
    InvalidStateError,
    LayOff,
    Open,
    Phase,
    Reason,
    SwapJoker,
    apply,
    full_pack,
    is_legal,
    legal_actions,
    new_game,
    next_deal,
    redeal,
    start_deal,
    state_from_json,
    state_to_json,
    validate_state,
)
from reference.melds import TableMeld


def C(code: str) -> Card:
    return Card.from_code(code)


def play(state: GameState, *actions: object) -> GameState:
    for action in actions:
        state = apply(state, action)  # type: ignore[arg-type]
    return state


def rejected(state: GameState, action: object) -> Reason:
    """Apply an action that must be refused; check the state is untouched (DISPUTE-35)."""
    before = state
    with pytest.raises(IllegalActionError) as info:
        apply(state, action)  # type: ignore[arg-type]
    assert state == before
    assert info.value.rule == info.value.reason.rule
    assert info.value.reason.value in str(info.value)
    return info.value.reason


# The worked example of seed 000 §10 as a deal-2 state (player 1 to move).
EXAMPLE_HANDS = [
    "2C 3C 4C 5C 9D 9H JD QH KS KD 7H",
    "8C 8D 8H 4S 5S 6S 7S 8S QD 2H 3H",
    "AH AD 5D 6D 10C 10S JC QC KC 2S 9S",
]
EXAMPLE_OPEN = Open(1, (trio("8C 8D 8H"), run("4S 5S 6S 7S")))


def example() -> GameState:
    return make_state(EXAMPLE_HANDS, stock_top="5H", discard="6H")


def opened_table(hand1: str = "8S 3S JK KD", *, turn_opened: bool = False) -> GameState:
    """Player 1 opened earlier (trio of eights and 4♠-7♠) and has drawn this turn."""
    return make_state(
        ["2C 3C 4C", hand1, "AH AD 5D"],
        phase="play",
        opened=[False, True, False],
        turn_opened=turn_opened,
        table=[(1, trio("8C 8D 8H")), (1, run("4S 5S 6S 7S"))],
    )


# --- the worked example (EXAMPLE-1) ---------------------------------------------------------


def test_example_1_worked_example_of_deal_2() -> None:
    state = play(example(), DrawStock(1))
    state = apply(state, EXAMPLE_OPEN)  # the trio and the run, exactly 7 cards
    assert state.table == (TableMeld(1, trio("8C 8D 8H")), TableMeld(1, run("4S 5S 6S 7S")))
    assert len(state.hands[1]) == 12 - 7
    assert state.opened == (False, True, False) and state.turn_opened
    # Adding 8♠ on the opening turn is an extra card: TURN-6
    assert rejected(state, LayOff(1, C("8S"), 1, End.HIGH)) == Reason.OPENING_TURN
    assert rejected(state, LayOff(1, C("8S"), 0)) == Reason.OPENING_TURN
    # A normal discard, the other players' turns, then player 1 draws again.
    state = play(
        state,
        Discard(1, C("QD")),
        DrawStock(2),
        Discard(2, C("2S")),
        DrawStock(0),
        Discard(0, C("KS")),
        DrawStock(1),
    )
    assert not state.turn_opened
    on_run = apply(state, LayOff(1, C("8S"), 1, End.HIGH))
    assert on_run.table[1].meld == run("4S 5S 6S 7S 8S")
    # Holding the trio of eights does not prevent the choice: the trio takes it as well.
    on_trio = apply(state, LayOff(1, C("8S"), 0))
    assert on_trio.table[0].meld == trio("8C 8D 8H 8S")


# --- turn order and drawing (TURN-1..3, TURN-10, DISPUTE-06/19/36) --------------------------


def test_turn_1_only_the_player_to_move_acts() -> None:
    state = example()
    assert rejected(state, DrawStock(2)) == Reason.NOT_YOUR_TURN
    assert rejected(state, Discard(0, C("2C"))) == Reason.NOT_YOUR_TURN
    assert apply(state, DrawStock(1)).phase is Phase.PLAY  # accepted


def test_turn_1_turn_passes_to_the_right() -> None:
    state = play(example(), DrawStock(1), Discard(1, C("QD")))
    assert state.turn == 2 and state.phase is Phase.DRAW
    state = play(state, DrawStock(2), Discard(2, C("2S")))
    assert state.turn == 0


def test_turn_3_no_buying_the_discard_out_of_turn() -> None:
    assert rejected(example(), DrawDiscard(0)) == Reason.BUY_OUT_OF_TURN
    assert rejected(example(), DrawDiscard(2)) == Reason.BUY_OUT_OF_TURN


def test_turn_2_draw_from_stock_or_discard() -> None:
    from_stock = apply(example(), DrawStock(1))
    assert Counter(from_stock.hands[1]) - Counter(example().hands[1]) == Counter([C("5H")])
    assert from_stock.stock == example().stock[1:]
    from_discard = apply(example(), DrawDiscard(1))  # DISPUTE-06: no condition on it
    assert C("6H") in from_discard.hands[1] and from_discard.discard == ()
    assert from_discard.stock == example().stock


def test_turn_2_and_turn_4_draw_first_then_only_one_draw() -> None:
    assert rejected(example(), Discard(1, C("QD"))) == Reason.DRAW_FIRST
    assert rejected(example(), EXAMPLE_OPEN) == Reason.DRAW_FIRST  # TURN-4
    drawn = apply(example(), DrawStock(1))
    assert rejected(drawn, DrawStock(1)) == Reason.ALREADY_DREW
    assert rejected(drawn, DrawDiscard(1)) == Reason.ALREADY_DREW


def test_dispute_36_empty_discard_pile() -> None:
    state = make_state(EXAMPLE_HANDS, discard="")
    assert rejected(state, DrawDiscard(1)) == Reason.EMPTY_DISCARD
    assert apply(state, DrawStock(1)).phase is Phase.PLAY


def test_turn_5_and_dispute_19_discard_may_throw_back_the_taken_card() -> None:
    state = play(example(), DrawDiscard(1))
    state = apply(state, Discard(1, C("6H")))
    assert state.discard[0] == C("6H") and state.turn == 2
    assert state.hands[1] == example().hands[1]


def test_dispute_08_a_joker_may_be_discarded() -> None:
    state = apply(opened_table(), Discard(1, C("JK")))
    assert state.discard[0] == C("JK")


def test_turn_10_cards_come_from_the_players_own_hand() -> None:
    drawn = apply(example(), DrawStock(1))
    assert rejected(drawn, Discard(1, C("KS"))) == Reason.CARD_NOT_IN_HAND  # player 0 holds it
    stolen = Open(1, (trio("8C 8D 8C"), run("4S 5S 6S 7S")))  # only one 8♣ held
    assert rejected(drawn, stolen) == Reason.CARD_NOT_IN_HAND
    assert rejected(opened_table(), LayOff(1, C("3H"), 1, End.LOW)) == Reason.CARD_NOT_IN_HAND
    assert rejected(opened_table(), LayOff(1, C("9S"), 1, End.HIGH)) == Reason.CARD_NOT_IN_HAND
    assert apply(drawn, Discard(1, C("QD"))).turn == 2  # accepted with a held card


# --- opening (CONTRACT-8..11, TURN-6, TURN-8, TURN-9, JOKER-2, DISPUTE-01) ------------------


def test_contract_9_no_partial_opening() -> None:
    drawn = apply(example(), DrawStock(1))
    assert rejected(drawn, Open(1, (trio("8C 8D 8H"),))) == Reason.CONTRACT_MISMATCH
    assert apply(drawn, EXAMPLE_OPEN).opened[1]


def test_contract_8_opening_must_be_exact() -> None:
    drawn = apply(example(), DrawStock(1))
    big_run = Open(1, (trio("8C 8D 8H"), run("4S 5S 6S 7S 8S")))
    assert rejected(drawn, big_run) == Reason.RUN_SIZE
    extra = Open(1, (trio("8C 8D 8H"), run("4S 5S 6S 7S"), trio("2H 3H QD")))
    assert rejected(drawn, extra) == Reason.CONTRACT_MISMATCH


def test_game_1_deal_1_uses_contract_1() -> None:
    state = make_state(["2C 3C 4C", "8C 8D 8H 9S 9D 9H 4S 5S 6S 7S 2H", "AH AD 5D"], deal_number=1)
    drawn = apply(state, DrawStock(1))
    assert rejected(drawn, EXAMPLE_OPEN) == Reason.CONTRACT_MISMATCH
    assert apply(drawn, Open(1, (trio("8C 8D 8H"), trio("9S 9D 9H")))).opened[1]


def test_turn_8_and_contract_11_no_second_opening() -> None:
    state = opened_table("8S 9S 9D 9H QS QD QH KD KH KS")
    again = Open(1, (trio("9S 9D 9H"), run("QS QD QH KD")))
    assert rejected(state, again) == Reason.ALREADY_OPENED


def test_turn_9_an_opening_may_not_empty_the_hand() -> None:
    # DISPUTE-07: a loaded state where the 7 contract cards are the whole hand
    state = make_state(["2C", "8C 8D 8H 4S 5S 6S 7S", "AH"], phase="play")
    assert rejected(state, EXAMPLE_OPEN) == Reason.HAND_WOULD_EMPTY


def test_joker_2_and_dispute_01_limit_applies_to_every_opening() -> None:
    # Player 0 already opened; player 1's own opening is still limited to one joker a meld.
    state = make_state(
        ["2C 3C 4C", "8C JK JK 4S 5S 6S 7S QD 2H 3H KD", "AH AD 5D"],
        phase="play",
        opened=[True, False, False],
        table=[(0, trio("KS KH KC")), (0, run("9D 10D JD QD"))],
    )
    assert rejected(state, Open(1, (trio("8C JK JK"), run("4S 5S 6S 7S")))) == (
        Reason.TOO_MANY_JOKERS
    )
    one_each = Open(1, (trio("8C JK KD"), run("4S 5S 6S 7S")))
    assert rejected(state, one_each) == Reason.TRIO_MIXED_RANKS


def test_joker_2_one_joker_per_meld_is_accepted() -> None:
    state = make_state(["2C 3C 4C", "8C 8D JK 4S 5S 6S JK QD 2H 3H KD", "AH AD 5D"], phase="play")
    after = apply(state, Open(1, (trio("8C 8D JK"), run("4S 5S 6S JK"))))
    assert after.table[1].meld.represented(3) == C("7S")  # type: ignore[union-attr]


def test_dispute_14_and_end_3_in_deal_6_opening_leaves_one_card_to_close() -> None:
    hand = "8C 8D 8H 4S 5S 6S 7S 9H 10H JH QH"  # 11 cards dealt
    state = make_state(["2C 3C 4C 5C 6C 7C 8S 9S 10S JS QS", hand], deal_number=6, turn=1)
    state = play(state, DrawStock(1))  # draws the first stock card
    state = apply(state, Open(1, (trio("8C 8D 8H"), run("4S 5S 6S 7S"), run("9H 10H JH QH"))))
    assert len(state.hands[1]) == 1
    last = state.hands[1][0]
    assert rejected(state, LayOff(1, last, 0)) == Reason.OPENING_TURN  # no lay-off either
    closed = apply(state, Discard(1, last))
    assert closed.phase is Phase.DEAL_OVER and closed.closer == 1


# --- lay-offs (CONTRACT-10, TURN-6, TURN-7, LAYOFF-1..4, TURN-9) ----------------------------


def test_contract_10_no_lay_off_or_swap_before_opening() -> None:
    state = make_state(
        ["2C 3C 8S", "9S 9D 4H", "AH AD 5D"],
        turn=0,
        phase="play",
        opened=[False, True, False],
        table=[(1, trio("8C 8D 8H")), (1, run("JK 5S 6S 7S"))],
    )
    assert rejected(state, LayOff(0, C("8S"), 0)) == Reason.NOT_OPENED
    assert rejected(state, SwapJoker(0, 1, C("8S"), "low")) == Reason.NOT_OPENED


def test_turn_6_no_swap_on_the_opening_turn() -> None:
    state = opened_table("4S 8S KD", turn_opened=True)
    state = replace(state, table=(TableMeld(1, run("JK 5S 6S 7S")),))
    assert rejected(state, SwapJoker(1, 0, C("4S"), "high")) == Reason.OPENING_TURN


def test_turn_7_and_layoff_1_several_lay_offs_one_at_a_time() -> None:
    # DISPUTE-34: independent single-card actions, both ends of the same run
    state = opened_table("8S 3S 9S KD")
    state = play(
        state,
        LayOff(1, C("8S"), 1, End.HIGH),
        LayOff(1, C("3S"), 1, End.LOW),
        LayOff(1, C("9S"), 1, End.HIGH),
    )
    assert state.table[1].meld == run("3S 4S 5S 6S 7S 8S 9S")
    assert state.hands[1] == cards("KD")


def test_layoff_2_lay_off_on_another_players_meld() -> None:
    state = make_state(
        ["2C 3C 4C", "9S 9D 9H 8S KD", "AH AD 5D"],
        phase="play",
        opened=[True, True, False],
        table=[(0, trio("8C 8D 8H")), (0, run("4S 5S 6S 7S")), (1, trio("9S 9C JK"))],
    )
    after = apply(state, LayOff(1, C("8S"), 1, End.HIGH))
    assert after.table[1] == TableMeld(0, run("4S 5S 6S 7S 8S"))  # owner unchanged


def test_layoff_3_only_existing_melds() -> None:
    assert rejected(opened_table(), LayOff(1, C("8S"), 2)) == Reason.NO_SUCH_MELD
    assert rejected(opened_table(), LayOff(1, C("8S"), -1)) == Reason.NO_SUCH_MELD
    assert apply(opened_table(), LayOff(1, C("8S"), 0)).table[0].meld == trio("8C 8D 8H 8S")


def test_layoff_4_the_card_must_fit() -> None:
    state = opened_table("8S 3S KD JK")
    assert rejected(state, LayOff(1, C("KD"), 0)) == Reason.DOES_NOT_FIT
    assert rejected(state, LayOff(1, C("8S"), 1, End.LOW)) == Reason.DOES_NOT_FIT
    assert rejected(state, LayOff(1, C("3S"), 1, End.HIGH)) == Reason.DOES_NOT_FIT
    assert apply(state, LayOff(1, C("JK"), 1, End.LOW)).table[1].meld == run("JK 4S 5S 6S 7S")


def test_lay_off_on_a_run_needs_an_end() -> None:
    with pytest.raises(InvalidActionError):
        apply(opened_table(), LayOff(1, C("8S"), 1))


def test_meld_run_5_lay_off_beyond_an_ace() -> None:
    state = make_state(
        ["2C", "2S 10S KD", "AH"],
        phase="play",
        opened=[False, True, False],
        table=[(1, run("JS QS KS AS"))],
    )
    assert rejected(state, LayOff(1, C("2S"), 0, End.HIGH)) == Reason.BEYOND_ACE
    assert apply(state, LayOff(1, C("10S"), 0, End.LOW)).table[0].meld == run("10S JS QS KS AS")


def test_turn_9_no_lay_off_or_swap_that_empties_the_hand() -> None:
    state = opened_table("8S")
    assert rejected(state, LayOff(1, C("8S"), 0)) == Reason.HAND_WOULD_EMPTY
    swap = make_state(
        ["2C", "4S", "AH"],
        phase="play",
        opened=[False, True, False],
        table=[(1, run("JK 5S 6S 7S"))],
    )
    assert rejected(swap, SwapJoker(1, 0, C("4S"), "high")) == Reason.HAND_WOULD_EMPTY
    assert apply(opened_table("8S KD"), LayOff(1, C("8S"), 0)).hands[1] == cards("KD")


# --- jokers (JOKER-3..6, DISPUTE-11, DISPUTE-21) --------------------------------------------


def swap_state(hand: str = "4S 8S KD", table_run: str = "JK 5S 6S 7S") -> GameState:
    """Player 1 (opened earlier) to play; player 0 owns a run and a trio with jokers."""
    return make_state(
        ["2C 3C 4C", hand, "AH AD 5D"],
        phase="play",
        opened=[True, True, False],
        table=[(0, run(table_run)), (0, trio("9C 9D JK")), (1, trio("QS QD QH"))],
    )


def test_joker_3_jokers_without_limit_after_opening() -> None:
    state = swap_state("JK JK KD")
    state = play(state, LayOff(1, C("JK"), 0, End.HIGH), LayOff(1, C("JK"), 1))
    assert state.table[0].meld == run("JK 5S 6S 7S JK")
    assert state.table[1].meld == trio("9C 9D JK JK")


def test_joker_4_swap_on_any_players_run_moves_joker_to_chosen_end() -> None:
    # JOKER-4, DISPUTE-21 (player 0's run), DISPUTE-11 (low or high)
    high = apply(swap_state(), SwapJoker(1, 0, C("4S"), "high"))
    assert high.table[0] == TableMeld(0, run("4S 5S 6S 7S JK"))
    assert high.hands[1] == cards("8S KD")
    low = apply(swap_state(), SwapJoker(1, 0, C("4S"), "low"))
    assert low.table[0].meld == run("JK 4S 5S 6S 7S")
    assert rejected(swap_state(), SwapJoker(1, 0, C("8S"), "high")) == Reason.NO_JOKER_FOR_CARD


def test_dispute_34_swap_then_extend_beyond_the_moved_joker() -> None:
    state = play(swap_state("4S 9S KD"), SwapJoker(1, 0, C("4S"), "high"))
    state = apply(state, LayOff(1, C("9S"), 0, End.HIGH))
    assert state.table[0].meld == run("4S 5S 6S 7S JK 9S")


def test_joker_4_and_dispute_02_no_swap_in_a_trio() -> None:
    assert rejected(swap_state("9H KD"), SwapJoker(1, 1, C("9H"), "high")) == Reason.NOT_A_RUN


def test_joker_5_the_joker_never_goes_to_hand_or_another_meld() -> None:
    assert rejected(swap_state(), SwapJoker(1, 0, C("4S"), "hand")) == Reason.JOKER_TO_HAND
    to_trio = SwapJoker(1, 0, C("4S"), "high", to_meld=1)
    assert rejected(swap_state(), to_trio) == Reason.JOKER_TO_OTHER_MELD
    same = SwapJoker(1, 0, C("4S"), "high", to_meld=0)
    assert apply(swap_state(), same).table[0].meld == run("4S 5S 6S 7S JK")


def test_joker_6_no_position_beyond_an_ace() -> None:
    state = swap_state("AS KD", "JK 2S 3S 4S")
    assert rejected(state, SwapJoker(1, 0, C("AS"), "low")) == Reason.NO_JOKER_POSITION
    assert apply(state, SwapJoker(1, 0, C("AS"), "high")).table[0].meld == run("AS 2S 3S 4S JK")


# --- stock (STOCK-1, STOCK-2, DISPUTE-17, DISPUTE-18) ---------------------------------------


def empty_stock_state(discard: str) -> GameState:
    # A state whose stock is empty: every card not in the discard pile or in players 1
    # and 2's hands sits in player 0's (unrealistically big) hand.
    others = ["8C 8D 8H", "AH AD 5D"]
    placed = Counter(c for h in others for c in cards(h)) + Counter(cards(discard))
    rest = Counter(full_pack()) - placed
    hand0 = " ".join(c.code() for c in sorted(rest.elements()))
    return make_state([hand0, *others], stock="", discard=discard, dealer=0, turn=1)


def test_stock_1_recycle_keeps_the_top_discard() -> None:
    state = empty_stock_state("QS 9D 9H")
    after = apply(state, DrawStock(1))
    assert after.discard == cards("QS")
    drawn = Counter(after.hands[1]) - Counter(state.hands[1])
    assert sum(drawn.values()) == 1
    assert Counter(after.stock) + drawn == Counter(cards("9D 9H"))
    assert apply(state, DrawStock(1)) == after  # seeded: reproducible
    assert validate_state(after) == ()


def test_dispute_18_drawing_the_discard_from_an_empty_stock_does_not_recycle() -> None:
    after = apply(empty_stock_state("QS 9D"), DrawDiscard(1))
    assert after.stock == () and after.discard == cards("9D") and C("QS") in after.hands[1]


def test_stock_2_nothing_to_recycle_cancels_the_deal() -> None:
    state = replace(empty_stock_state("QS"), totals=(5, 6, 7))
    cancelled = apply(state, DrawStock(1))
    assert cancelled.phase is Phase.CANCELLED
    assert cancelled.deal_scores is None and cancelled.totals == (5, 6, 7)
    assert rejected(cancelled, Discard(1, C("8C"))) == Reason.DEAL_OVER
    replay = next_deal(cancelled, full_pack())  # DISPUTE-17: same deal, same dealer
    assert (replay.deal_number, replay.dealer, replay.totals) == (2, 0, (5, 6, 7))
    assert replay.phase is Phase.DRAW and replay.opened == (False, False, False)


# --- closing and the game's end (END-1..5, SCORE-1..4, CONTRACT-11) -------------------------


def test_end_1_the_discard_that_empties_the_hand_closes_at_once() -> None:
    state = make_state(
        ["AS QD 3C", "KD", "JK 2H"],
        phase="play",
        opened=[False, True, False],
        table=[(1, trio("8C 8D 8H")), (1, run("4S 5S 6S 7S"))],
        totals=[10, 20, 30],
    )
    closed = apply(state, Discard(1, C("KD")))
    assert closed.phase is Phase.DEAL_OVER and closed.closer == 1
    assert closed.deal_scores == (33, 0, 52)  # SCORE-1, SCORE-2, SCORE-3 (table is free)
    assert closed.totals == (43, 20, 82)  # SCORE-4
    assert closed.winners is None
    assert rejected(closed, DrawStock(2)) == Reason.DEAL_OVER  # nobody takes another turn
    nxt = next_deal(closed, full_pack())  # DEAL-2: next deal, next dealer to the right
    assert (nxt.deal_number, nxt.dealer, nxt.turn, nxt.totals) == (3, 1, 2, (43, 20, 82))
    assert nxt.opened == (False, False, False) and nxt.table == ()  # CONTRACT-11 resets


def test_end_1_a_discard_that_leaves_cards_does_not_close() -> None:
    state = apply(opened_table("8S KD"), Discard(1, C("KD")))
    assert state.phase is Phase.DRAW and state.closer is None


def test_end_2_deal_7_open_twelve_then_discard_the_thirteenth() -> None:
    hand = "AS 2S 3S 4S 5H 6H 7H 8H 9D 10D JD QD"
    state = make_state(
        ["2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC", hand],
        deal_number=7,
        turn=1,
        stock_top="KH",
        totals=[30, 25],
    )
    state = play(
        state,
        DrawStock(1),
        Open(1, (run("AS 2S 3S 4S"), run("5H 6H 7H 8H"), run("9D 10D JD QD"))),
    )
    assert state.hands[1] == cards("KH")
    over = apply(state, Discard(1, C("KH")))
    assert over.phase is Phase.GAME_OVER and over.closer == 1
    assert over.deal_scores == (2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 10 + 10 + 10 + 10, 0)
    assert over.totals == (30 + 84, 25)
    assert over.winners == (1,)  # END-4
    with pytest.raises(IllegalActionError) as info:
        next_deal(over, full_pack())
    assert info.value.reason == Reason.GAME_OVER


def test_end_5_tied_lowest_totals_share_the_win() -> None:
    state = make_state(["AS", "KD", "3C 2C"], deal_number=7, phase="play", totals=[0, 20, 15])
    over = apply(state, Discard(1, C("KD")))
    assert over.totals == (20, 20, 20)
    assert over.winners == (0, 1, 2)


def test_next_deal_during_a_deal_is_rejected() -> None:
    with pytest.raises(IllegalActionError) as info:
        next_deal(example(), full_pack())
    assert info.value.reason == Reason.DEAL_IN_PROGRESS


# --- dealing (PLAYERS-1, DEAL-1..6) ----------------------------------------------------------


def test_deal_2_to_5_dealing_from_an_explicit_deck() -> None:
    deck = full_pack()
    state = start_deal(ARGENTINE, 3, 1, 2, (0, 0, 0), deck)
    # One card at a time from the dealer's right (player 0), dealer (2) last.
    assert state.hands[0] == tuple(sorted(deck[0:33:3]))
    assert state.hands[1] == tuple(sorted(deck[1:33:3]))
    assert state.hands[2] == tuple(sorted(deck[2:33:3]))
    assert all(len(h) == 11 for h in state.hands)  # DEAL-3
    assert state.discard == (deck[33],)  # DEAL-4 upcard
    assert state.stock == deck[34:] and len(state.stock) == 108 - 33 - 1
    assert state.turn == 0 and state.phase is Phase.DRAW  # DEAL-5
    assert validate_state(state) == ()


def test_deal_3_twelve_cards_in_deal_7() -> None:
    state = start_deal(ARGENTINE, 4, 7, 0, (0, 0, 0, 0), full_pack())
    assert all(len(h) == 12 for h in state.hands)
    assert len(state.stock) == 108 - 48 - 1


def test_dispute_09_a_joker_upcard_stays() -> None:
    deck = (*full_pack()[:22], C("JK"), *full_pack()[22:-1])
    state = start_deal(ARGENTINE, 2, 1, 0, (0, 0), deck)
    assert state.discard == (C("JK"),)
    assert apply(state, DrawDiscard(1)).hands[1].count(C("JK")) == 1


@pytest.mark.parametrize("players", [2, 3, 4])
def test_players_1_two_to_four_players(players: int) -> None:
    state = new_game(ARGENTINE, players, 1)
    assert state.players == players and validate_state(state) == ()


@pytest.mark.parametrize("players", [1, 5])
def test_players_1_other_counts_are_refused(players: int) -> None:
    with pytest.raises(InvalidStateError):
        start_deal(ARGENTINE, players, 1, 0, (0,) * players, full_pack())


def test_deck_must_be_the_whole_pack() -> None:
    with pytest.raises(InvalidStateError) as info:
        start_deal(ARGENTINE, 2, 1, 0, (0, 0), (*full_pack()[:-1], C("AS")))
    assert any("AS" in p for p in info.value.problems)


def test_deal_1_first_dealer_by_lot_from_the_seed() -> None:
    dealers = {new_game(ARGENTINE, 3, seed).dealer for seed in range(40)}
    assert dealers == {0, 1, 2}
    assert new_game(ARGENTINE, 3, 5) == new_game(ARGENTINE, 3, 5)
    game = new_game(ARGENTINE, 3, 5)
    assert game.deal_number == 1 and game.totals == (0, 0, 0)
    assert game.turn == (game.dealer + 1) % 3


def test_deal_6_redeal_before_the_first_draw_only() -> None:
    state = start_deal(ARGENTINE, 3, 4, 1, (5, 6, 7), full_pack())
    deck = tuple(reversed(full_pack()))
    again = redeal(state, deck)
    assert (again.deal_number, again.dealer, again.totals) == (4, 1, (5, 6, 7))
    assert again.hands == start_deal(ARGENTINE, 3, 4, 1, (5, 6, 7), deck).hands
    drawn = apply(state, DrawStock(2))
    with pytest.raises(IllegalActionError) as info:
        redeal(drawn, deck)
    assert info.value.reason == Reason.REDEAL_TOO_LATE


def test_deal_6_a_round_of_throw_backs_still_makes_a_redeal_too_late() -> None:
    # Every player takes the upcard and throws it straight back (DISPUTE-19): the cards
    # look as dealt again, but the first turn is long past.
    state = start_deal(ARGENTINE, 3, 4, 1, (0, 0, 0), full_pack())
    for player in (2, 0, 1):
        upcard = state.discard[0]
        state = apply(apply(state, DrawDiscard(player)), Discard(player, upcard))
    assert state.hands == start_deal(ARGENTINE, 3, 4, 1, (0, 0, 0), full_pack()).hands
    with pytest.raises(IllegalActionError) as info:
        redeal(state, tuple(reversed(full_pack())))
    assert info.value.reason == Reason.REDEAL_TOO_LATE
    # The memory of the first draw survives the JSON round trip.
    with pytest.raises(IllegalActionError):
        redeal(state_from_json(state_to_json(state)), full_pack())


# --- legal_actions and is_legal -----------------------------------------------------------


def test_legal_actions_in_the_draw_phase() -> None:
    assert legal_actions(example()) == (DrawStock(1), DrawDiscard(1))
    assert legal_actions(make_state(EXAMPLE_HANDS, discard="")) == (DrawStock(1),)


def test_legal_actions_for_an_opened_player() -> None:
    # Trio 8♣8♦8♥ and run 4♠-7♠ on the table; hand 3♠ 8♠ K♦: 3♠ goes below the run,
    # 8♠ on the trio or above the run, K♦ nowhere; then one discard per distinct card.
    state = opened_table("8S 3S KD")
    assert legal_actions(state) == (
        LayOff(1, C("3S"), 1, End.LOW),
        LayOff(1, C("8S"), 0, None),
        LayOff(1, C("8S"), 1, End.HIGH),
        Discard(1, C("3S")),
        Discard(1, C("8S")),
        Discard(1, C("KD")),
    )


def test_legal_actions_on_the_opening_turn_are_discards_only() -> None:
    state = opened_table("8S 3S KD", turn_opened=True)
    assert legal_actions(state) == (Discard(1, C("3S")), Discard(1, C("8S")), Discard(1, C("KD")))


def test_legal_actions_include_swaps() -> None:
    state = swap_state("4S KD")
    actions = legal_actions(state)
    assert SwapJoker(1, 0, C("4S"), "low") in actions
    assert SwapJoker(1, 0, C("4S"), "high") in actions
    assert LayOff(1, C("4S"), 0, End.LOW) not in actions  # the joker already stands for 4♠
    assert all(is_legal(state, a) for a in actions)


def test_legal_actions_include_every_opening_of_the_solver() -> None:
    state = apply(example(), DrawStock(1))
    opens = [a for a in legal_actions(state) if isinstance(a, Open)]
    assert EXAMPLE_OPEN in opens
    assert len(opens) == 5  # as counted in test_solver for this hand
    assert Discard(1, C("QD")) in legal_actions(state)


def test_is_legal_agrees_with_apply() -> None:
    state = opened_table("8S 3S KD")
    assert is_legal(state, LayOff(1, C("8S"), 0))
    assert not is_legal(state, LayOff(1, C("KD"), 0))
    assert not is_legal(state, DrawStock(1))
    assert legal_actions(apply(state, Discard(1, C("KD")))) == (DrawStock(2), DrawDiscard(2))


def test_no_legal_actions_once_the_deal_is_over() -> None:
    over = apply(make_state(["AS", "KD", "3C"], phase="play"), Discard(1, C("KD")))
    assert legal_actions(over) == ()


# --- validate_state ----------------------------------------------------------------------


def test_validate_state_accepts_consistent_states() -> None:
    assert validate_state(example()) == ()
    assert validate_state(opened_table()) == ()


def test_validate_state_finds_every_problem() -> None:
    good = example()
    third = replace(good, discard=cards("6H 6H 6H"))
    problems = validate_state(third)
    assert any("6H" in p for p in problems)
    assert any("110 cards" in p for p in problems)
    jokers = replace(good, discard=cards("JK"))
    assert any("JK" in p for p in validate_state(jokers))
    bad_turn = replace(good, turn=3)
    assert any("turn" in p for p in validate_state(bad_turn))
    bad_meld = make_state(
        ["2C", "8S", "AH"], opened=[False, True, False], table=[(1, run("KS AS 2S 3S"))]
    )
    assert any("table[0]" in p and "run_wraps" in p for p in validate_state(bad_meld))


def test_rejected_actions_leave_the_state_equal() -> None:
    # DISPUTE-35: checked by ``rejected`` for every case above; here a whole sweep.
    state = opened_table()
    for action in (DrawStock(0), DrawStock(1), Discard(1, C("AS")), LayOff(1, C("KD"), 1, End.LOW)):
        assert not is_legal(state, action)
    assert state == opened_table()


def test_deal_6_a_misdealt_loaded_deal_is_redealt() -> None:
    # DISPUTE-16: a wrong card count found before the first draw is redealt. A state as
    # dealt, but with one card moved from player 0's hand to player 1's (12 and 10 cards).
    dealt = start_deal(ARGENTINE, 2, 1, 0, (3, 4), full_pack())
    moved = dealt.hands[0][0]
    misdealt = replace(
        dealt,
        hands=(dealt.hands[0][1:], (*dealt.hands[1], moved)),
        drawn=False,
    )
    misdealt = state_from_json(state_to_json(misdealt) | {"x": {}})  # loaded: no memory
    again = redeal(misdealt, tuple(reversed(full_pack())))
    assert (again.deal_number, again.dealer, again.totals) == (1, 0, (3, 4))
    assert [len(h) for h in again.hands] == [11, 11]


def test_validate_state_finds_phase_contradictions() -> None:
    dealt = start_deal(ARGENTINE, 2, 7, 0, (0, 0), full_pack())
    assert validate_state(dealt) == ()
    problems = validate_state(replace(dealt, phase=Phase.DEAL_OVER))
    assert any("is the last: its close is game_over" in p for p in problems)
    problems = validate_state(replace(dealt, deal_number=3, phase=Phase.GAME_OVER))
    assert any("before the last deal" in p for p in problems)
    problems = validate_state(replace(dealt, opened=(True, True), turn_opened=True))
    assert any("before the player to move has drawn" in p for p in problems)
    emptied = replace(dealt, hands=((), dealt.hands[1]), stock=(*dealt.stock, *dealt.hands[0]))
    assert any("holds no card while the deal is live" in p for p in validate_state(emptied))
