"""Dispute options that change the flow of play are played, and play as their docs/rules.md
entries say: DISPUTE-29 ``steal`` (a pass round, then a steal for 2 points), DISPUTE-30 ``declared``
(declared openings, re-declarable end jokers), DISPUTE-35 ``penalty`` (10 points per refused
action, scored at the close). DISPUTE-02 ``a``/``c`` and DISPUTE-11 ``a``/``b`` answer every
request alike, as their entries argue: checked here over every replacement and lay-off of
many played positions."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from typing import Any

import pytest

from reference.actions import Discard, DrawDiscard, DrawStock, End, LayOff, Open, Pass, SwapJoker
from reference.adapter import Adapter
from reference.cards import full_pack, sort_cards
from reference.codec import action_from_json, action_to_json, state_to_json
from reference.errors import IllegalActionError, InvalidActionError
from reference.game import GameState, Phase, apply, legal_actions, new_game, next_deal, refuse
from reference.melds import Run, arrange_declared, redeclared
from reference.profiles import ARGENTINE
from reference.reasons import Reason
from tests.reference.ref_helpers import cards, make_state, run, trio

STEAL = ARGENTINE.with_rulings({"DISPUTE-29": "steal"})
DECLARED = ARGENTINE.with_rulings({"DISPUTE-30": "declared"})
PENALTY = ARGENTINE.with_rulings({"DISPUTE-35": "penalty"})


def _ask(adapter: Adapter, **request: object) -> dict[str, Any]:
    answer, _ = adapter.handle(json.dumps({"id": 1, **request}))
    return answer


def _refused(state: GameState, action: Any) -> Reason:
    with pytest.raises(IllegalActionError) as info:
        apply(state, action)
    return info.value.reason


# --- DISPUTE-29 steal ------------------------------------------------------------------------


def _three(profile: Any = STEAL, players: int = 3) -> GameState:
    hands = [
        "2C 3C 4C 5C 9D 9H JD QH KS KD 7H",
        "8C 8D 8H QS QD QC 2H 3H KC 10D 5S",
        "AH AD 5D 6D 10S JC JS KH 2S 9S 3D",
        "4H 5H 7D 8S 9C 10C QC 2D 3S 4S 6S",
    ][:players]
    state = make_state(hands, deal_number=1, turn=1, discard="JH 6H", stock_top="7C")
    return replace(state, profile=profile)


def test_steal_waits_for_the_player_to_move_to_pass_by_drawing_from_the_stock() -> None:
    state = _three()
    assert _refused(state, DrawDiscard(2)) is Reason.BUY_OUT_OF_TURN
    drawn = apply(state, DrawStock(1))
    stolen = apply(drawn, DrawDiscard(2))
    assert stolen.hands[2] == sort_cards([*drawn.hands[2], *cards("JH")])
    assert stolen.discard == cards("6H")
    assert stolen.totals == (0, 0, 2)  # 003: 2 points for stealing, at once
    assert (stolen.turn, stolen.phase) == (1, Phase.PLAY)
    # One steal per discard: the 6H beneath is not on offer.
    assert _refused(stolen, DrawDiscard(0)) is Reason.BUY_OUT_OF_TURN


def test_after_a_discard_from_the_discard_pile_nothing_is_on_offer() -> None:
    took = apply(_three(), DrawDiscard(1))
    assert _refused(took, DrawDiscard(2)) is Reason.BUY_OUT_OF_TURN


def test_every_player_before_the_stealer_must_pass_in_turn_order() -> None:
    drawn = apply(_three(players=4), DrawStock(1))
    assert _refused(drawn, DrawDiscard(3)) is Reason.BUY_OUT_OF_TURN  # player 2 first
    assert _refused(drawn, Pass(3)) is Reason.NOT_YOUR_TURN
    passed = apply(drawn, Pass(2))
    assert passed.passed == (1, 2)
    stolen = apply(passed, DrawDiscard(3))
    assert stolen.totals == (0, 0, 0, 2)
    assert len(stolen.hands[3]) == 12
    # The discard of the player to move ends the round: passes start afresh.
    after = apply(stolen, Discard(1, stolen.hands[1][0]))
    assert after.passed == ()
    assert _refused(after, DrawDiscard(3)) is Reason.BUY_OUT_OF_TURN


def test_pass_means_nothing_under_forbidden_and_never_for_the_player_to_move() -> None:
    state = _three(ARGENTINE)
    assert _refused(state, Pass(2)) is Reason.NOT_YOUR_TURN
    assert _refused(state, Pass(1)) is Reason.DRAW_FIRST
    drawn = apply(state, DrawStock(1))
    assert _refused(drawn, Pass(1)) is Reason.ALREADY_DREW
    assert _refused(drawn, DrawDiscard(2)) is Reason.BUY_OUT_OF_TURN
    assert drawn.passed == ()  # no steal round opens under forbidden


def test_pass_and_the_steal_round_travel_over_the_protocol() -> None:
    assert action_from_json({"type": "pass", "player": 2}) == Pass(2)
    assert action_to_json(Pass(2)) == {"type": "pass", "player": 2}
    adapter = Adapter(rulings={"DISPUTE-29": "steal"})
    _ask(adapter, op="load_state", state=state_to_json(_three(players=4)))
    assert _ask(adapter, op="act", action={"type": "draw_stock", "player": 1})["accepted"]
    answer = _ask(adapter, op="act", action={"type": "pass", "player": 2})
    assert answer["accepted"] and answer["state"]["x"]["passed"] == [1, 2]
    answer = _ask(adapter, op="act", action={"type": "draw_discard", "player": 3})
    assert answer["accepted"] and answer["state"]["totals"] == [0, 0, 0, 2]


# --- DISPUTE-30 declared ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("laid", "declared", "arranged"),
    [
        ("4S 5S 6S JK", "3S", "JK 4S 5S 6S"),
        ("4S 5S 6S JK", "7S", "4S 5S 6S JK"),
        ("JK 5S 6S 7S", "8S", "5S 6S 7S JK"),
        ("4S JK 6S 7S", "5S", "4S JK 6S 7S"),
        ("JS QS KS JK", "AS", "JS QS KS JK"),  # the high ace
        ("2S 3S 4S JK", "AS", "JK 2S 3S 4S"),  # the low ace
        ("JK 5S JK 7S", "4S 6S", "JK 5S JK 7S"),
        ("JK 5S JK 7S", "6S 8S", "5S JK 7S JK"),
    ],
)
def test_jokers_are_placed_at_their_declared_cards(laid: str, declared: str, arranged: str) -> None:
    assert arrange_declared(run(laid), cards(declared)) == run(arranged)


@pytest.mark.parametrize(
    ("laid", "declared"),
    [
        ("4S 5S 6S JK", "9S"),  # leaves a gap
        ("4S 5S 6S JK", "3H"),  # another suit
        ("4S 5S 6S JK", "5S"),  # a position already held
        ("4S 5S 6S JK", "3S 7S"),  # two declarations for one joker
        ("4S 5S 6S JK", "JK"),  # a joker is no card to stand for
    ],
)
def test_a_declaration_that_makes_no_run_is_none(laid: str, declared: str) -> None:
    assert arrange_declared(run(laid), cards(declared)) is None


def test_an_end_joker_may_be_redeclared_as_the_card_beyond_the_other_end() -> None:
    assert redeclared(run("4S 5S 6S JK")) == (run("JK 4S 5S 6S"),)
    assert redeclared(run("JK 5S 6S 7S")) == (run("5S 6S 7S JK"),)
    assert redeclared(run("4S JK 6S 7S")) == ()
    assert redeclared(run("JK 2S 3S 4S")) == (run("2S 3S 4S JK"),)  # the low ace, then 5S
    assert redeclared(run("JK QS KS AS")) == ()  # nothing lies above a high ace
    assert redeclared(trio("8C 8D JK")) == ()


def _end_joker_state(hand: str, profile: Any) -> GameState:
    state = make_state(
        ["2C 10C JD QS", hand],
        phase="play",
        opened=[True, True],
        table=[
            (0, trio("9C 9D 9H")),
            (0, run("4S 5S 6S JK")),
            (1, trio("KC KD KH")),
            (1, run("AH 2H 3H 4H")),
        ],
        discard="6C",
    )
    return replace(state, profile=profile)


def test_declared_lets_3s_replace_the_end_joker_that_position_reads_as_7s() -> None:
    swap = SwapJoker(1, 1, cards("3S")[0], "high")
    assert _refused(_end_joker_state("3S 10D QD 2D", ARGENTINE), swap) is Reason.NO_JOKER_FOR_CARD
    after = apply(_end_joker_state("3S 10D QD 2D", DECLARED), swap)
    assert after.table[1].meld == run("3S 4S 5S 6S JK")


def test_declared_lets_7s_follow_6s_when_the_joker_is_redeclared() -> None:
    lay = LayOff(1, cards("7S")[0], 1, End.HIGH)
    assert _refused(_end_joker_state("7S 10D QD 2D", ARGENTINE), lay) is Reason.DOES_NOT_FIT
    after = apply(_end_joker_state("7S 10D QD 2D", DECLARED), lay)
    assert after.table[1].meld == run("JK 4S 5S 6S 7S")
    # What fits neither way is still refused, with the reason of the run as it lies.
    wrong = LayOff(1, cards("10D")[0], 1, End.HIGH)
    assert _refused(_end_joker_state("7S 10D QD 2D", DECLARED), wrong) is Reason.DOES_NOT_FIT


def _opening(declared: list[str]) -> dict[str, Any]:
    return {
        "type": "open",
        "player": 1,
        "melds": [
            {"kind": "trio", "cards": ["8H", "8D", "8C"]},  # canonical order
            {"kind": "run", "cards": ["4S", "5S", "6S", "JK"], "declared": declared},
        ],
    }


@pytest.mark.parametrize(
    ("rulings", "declared", "accepted", "laid"),
    [
        ({"DISPUTE-30": "declared"}, ["3S"], True, ["JK", "4S", "5S", "6S"]),
        ({"DISPUTE-30": "declared"}, ["7S"], True, ["4S", "5S", "6S", "JK"]),
        ({"DISPUTE-30": "declared"}, ["9S"], False, None),
        ({}, ["3S"], True, ["4S", "5S", "6S", "JK"]),  # position: the field is not read
        ({}, ["9S"], True, ["4S", "5S", "6S", "JK"]),
    ],
)
def test_an_opening_run_declares_its_jokers_over_the_protocol(
    rulings: dict[str, str], declared: list[str], accepted: bool, laid: list[str] | None
) -> None:
    state = make_state(
        ["2C 10C JD QS 3D 4D 5D 6D 7D 8S KS", "8C 8D 8H 4S 5S 6S JK QD 2D"], phase="play"
    )
    adapter = Adapter(rulings=rulings)
    _ask(adapter, op="load_state", state=state_to_json(state))
    answer = _ask(adapter, op="act", action=_opening(declared))
    assert answer["accepted"] is accepted
    if accepted:
        assert answer["state"]["table"][1]["cards"] == laid
    else:
        assert answer["reason"] == "run_gap"


def test_declared_cards_are_read_and_written_and_malformed_ones_name_their_path() -> None:
    read = action_from_json(_opening(["3S"]))
    assert isinstance(read, Open) and read.declared == (None, cards("3S"))
    assert action_to_json(read) == _opening(["3S"])
    plain = action_from_json({**_opening(["3S"]), "melds": _opening(["3S"])["melds"][:1]})
    assert isinstance(plain, Open) and plain.declared == ()
    bad_trio = {
        "type": "open",
        "player": 1,
        "melds": [{"kind": "trio", "cards": ["8C", "8D", "JK"], "declared": ["8S"]}],
    }
    with pytest.raises(InvalidActionError, match=r"action\.melds\[0\]\.declared: only a run"):
        action_from_json(bad_trio)
    with pytest.raises(InvalidActionError, match=r"action\.melds\[1\]\.declared: expected 1"):
        action_from_json(_opening(["3S", "7S"]))
    with pytest.raises(InvalidActionError, match=r"declared\[0\]"):
        action_from_json(_opening(["3X"]))


# --- DISPUTE-35 penalty ----------------------------------------------------------------------


def _closing_state() -> GameState:
    return make_state(
        ["5C", "AH KD 3C 4D 5D 6H 8S 10S JC QC 2S"],
        deal_number=1,
        dealer=1,
        turn=0,
        phase="play",
        opened=[True, False],
        table=[(0, trio("9C 9D 9H")), (0, trio("7S 7H 7D"))],
        discard="6C",
        totals=[40, 60],
    )


@pytest.mark.parametrize(
    ("rulings", "scores"), [({}, [0, 88]), ({"DISPUTE-35": "penalty"}, [10, 88])]
)
def test_refused_actions_are_charged_to_their_players_at_the_close(
    rulings: dict[str, str], scores: list[int]
) -> None:
    adapter = Adapter(rulings=rulings)
    loaded = _ask(adapter, op="load_state", state=state_to_json(_closing_state()))["state"]
    refused = _ask(adapter, op="act", action={"type": "discard", "player": 0, "card": "QS"})
    assert refused["accepted"] is False
    # The protocol state is the state before; only the engine's own x records the debt.
    assert {k: v for k, v in refused["state"].items() if k != "x"} == {
        k: v for k, v in loaded.items() if k != "x"
    }
    closed = _ask(adapter, op="act", action={"type": "discard", "player": 0, "card": "5C"})
    assert closed["state"]["deal_scores"] == scores
    assert closed["state"]["totals"] == [40 + scores[0], 60 + scores[1]]


def test_the_penalty_falls_on_the_acting_player_and_only_in_a_live_deal() -> None:
    state = replace(_closing_state(), profile=PENALTY)
    owed = refuse(refuse(state, DrawStock(1)), DrawStock(1))
    assert owed.owed == (0, 20)
    assert refuse(state, DrawStock(7)) == state  # no such player
    over = replace(state, phase=Phase.DEAL_OVER)
    assert refuse(over, DrawStock(1)) == over
    assert refuse(replace(state, profile=ARGENTINE), DrawStock(1)).owed == ()


def test_a_cancelled_deal_drops_the_penalties_with_its_scores() -> None:
    state = replace(_closing_state(), profile=PENALTY, owed=(10, 0), phase=Phase.CANCELLED)
    replay = next_deal(state, full_pack())
    assert replay.owed == () and replay.totals == (40, 60)


# --- DISPUTE-02 a/c and DISPUTE-11 a/b answer alike --------------------------------------------


def _positions(seeds: range, every: int = 10) -> list[GameState]:
    """Play-phase positions with melds on the table from seeded random games (every
    ``every``-th such position, to keep the sweep quick)."""
    found: list[GameState] = []
    seen = 0
    for seed in seeds:
        rng = random.Random(seed)
        state = new_game(ARGENTINE, 2 + seed % 3, seed)
        for _ in range(600):
            if state.phase not in (Phase.DRAW, Phase.PLAY):
                break
            if state.phase is Phase.PLAY and state.table and state.opened[state.turn]:
                seen += 1
                if seen % every == 0:
                    found.append(state)
            legal = legal_actions(state)
            opens = [a for a in legal if isinstance(a, Open)]
            state = apply(state, opens[0] if opens else rng.choice(legal))
    return found


def _answer(state: GameState, action: Any) -> object:
    try:
        return apply(state, action)
    except IllegalActionError as exc:
        return exc.reason


@pytest.mark.parametrize(
    ("point", "first", "second"), [("DISPUTE-02", "a", "c"), ("DISPUTE-11", "a", "b")]
)
def test_options_the_catalogue_calls_indistinguishable_answer_every_request_alike(
    point: str, first: str, second: str
) -> None:
    one = ARGENTINE.with_rulings({point: first})
    two = ARGENTINE.with_rulings({point: second})
    checked = 0
    for state in _positions(range(12)):
        player = state.turn
        hand = sorted(set(state.hands[player]), key=lambda c: c.sort_key())
        for i, tm in enumerate(state.table):
            ends: tuple[End | None, ...] = (
                (End.LOW, End.HIGH) if isinstance(tm.meld, Run) else (None,)
            )
            for card in hand:
                actions: list[Any] = [
                    SwapJoker(player, i, card, to) for to in ("low", "high", "hand")
                ]
                actions += [LayOff(player, card, i, end) for end in ends]
                for action in actions:
                    a = _answer(replace(state, profile=one), action)
                    b = _answer(replace(state, profile=two), action)
                    if isinstance(a, GameState) and isinstance(b, GameState):
                        a, b = replace(a, profile=ARGENTINE), replace(b, profile=ARGENTINE)
                    assert a == b, (point, action)
                    checked += 1
    assert checked > 500
