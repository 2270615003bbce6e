"""The state an accepted action leads to, built only where the protocol and the step make
it plain; and what no state field says, which no reload carries."""

from __future__ import annotations

from typing import Any

from conformance.adapter.declarations import Declarations, declarations
from conformance.adapter.engine import Handshake
from conformance.grading.after import Unseen, moved
from conformance.knowledge.catalogue import load_catalogue

CATALOGUE = load_catalogue()


def engine(profile: str = "argentine", **extra: Any) -> Declarations:
    shake = Handshake.from_hello(
        {
            "protocol": 1,
            "implementation": {"name": "t", "version": "1", "language": "x"},
            "profiles": ["argentine", "perla"],
            "capabilities": ["melds", "turns", "deals"],
            **extra,
        }
    )
    return declarations(shake, profile, CATALOGUE)


def state(**changes: Any) -> dict[str, Any]:
    base = {
        "profile": "argentine",
        "players": 2,
        "deal_number": 1,
        "dealer": 0,
        "turn": 1,
        "phase": "draw",
        "hands": [["2C", "3C"], ["8C", "8D", "8H", "5S", "6S", "7S", "9S", "KD"]],
        "opened": [False, False],
        "turn_opened": False,
        "table": [{"owner": 0, "kind": "trio", "cards": ["QS", "QH", "QD"]}],
        "stock": ["4S", "AH", "AD"],
        "discard": ["KC", "KH"],
        "totals": [0, 0],
        "deal_scores": None,
        "closer": None,
        "winners": None,
        "x": {"own": 1},
    }
    return {**base, **changes}


def test_a_draw_takes_the_top_card_and_keeps_the_turn() -> None:
    after = moved(state(), {"type": "draw_stock", "player": 1}, engine())
    assert after is not None
    assert after["hands"][1][-1] == "4S" and after["stock"] == ["AH", "AD"]
    assert after["phase"] == "play" and after["turn"] == 1 and "x" not in after
    taken = moved(state(), {"type": "draw_discard", "player": 1}, engine())
    assert taken is not None and taken["discard"] == ["KH"] and "KC" in taken["hands"][1]


def test_a_discard_passes_the_turn_unless_it_closes() -> None:
    before = state(phase="play", turn_opened=True)
    after = moved(before, {"type": "discard", "player": 1, "card": "KD"}, engine())
    assert after is not None
    assert after["discard"][0] == "KD" and "KD" not in after["hands"][1]
    assert (after["turn"], after["phase"], after["turn_opened"]) == (0, "draw", False)
    last = state(phase="play", turn=0, hands=[["2C"], ["8C"]])
    assert moved(last, {"type": "discard", "player": 0, "card": "2C"}, engine()) is None


def test_an_opening_and_a_lay_off_move_their_cards_to_the_table() -> None:
    melds = [{"kind": "trio", "cards": ["8C", "8D", "8H"]}]
    opened = moved(state(phase="play"), {"type": "open", "player": 1, "melds": melds}, engine())
    assert opened is not None
    assert opened["table"][-1] == {"owner": 1, "kind": "trio", "cards": ["8C", "8D", "8H"]}
    assert opened["opened"] == [False, True] and opened["turn_opened"] is True
    run = {"owner": 0, "kind": "run", "cards": ["6H", "7H", "8H", "9H"]}
    before = state(phase="play", table=[run], hands=[["2C"], ["5H", "KD"]])
    low = moved(
        before, {"type": "lay_off", "player": 1, "card": "5H", "meld": 0, "end": "low"}, engine()
    )
    assert low is not None and low["table"][0]["cards"] == ["5H", "6H", "7H", "8H", "9H"]
    # An end the engine picks itself is not known: nothing is built.
    picks = engine(run_ends="engine")
    lay = {"type": "lay_off", "player": 1, "card": "5H", "meld": 0, "end": "low"}
    assert moved(before, lay, picks) is None


def test_what_the_protocol_leaves_open_is_not_built() -> None:
    plain = engine()
    assert moved(state(), {"type": "draw_stock", "player": 0}, plain) is None  # not the turn
    swap = {"type": "swap_joker", "player": 1, "meld": 0, "card": "QC", "to": "hand"}
    assert moved(state(phase="play"), swap, plain) is None  # no joker in that meld
    declared = [{"kind": "run", "cards": ["5S", "6S", "7S", "JK"], "declared": ["4S"]}]
    act = {"type": "open", "player": 1, "melds": declared}
    assert moved(state(phase="play"), act, plain) is None
    over = state(phase="deal_over")
    assert moved(over, {"type": "draw_stock", "player": 1}, plain) is None


# -- the stock running out ------------------------------------------------------------------


def test_the_last_stock_card_is_a_plain_draw_unless_the_discards_are_recycled_at_once() -> None:
    draw = {"type": "draw_stock", "player": 1}
    lazy = moved(state(stock=["4S"]), draw, engine())  # DISPUTE-18 b, the profile's
    assert lazy is not None and lazy["stock"] == [] and lazy["hands"][1][-1] == "4S"
    at_once = engine(rulings={"DISPUTE-18": "a"})
    assert moved(state(stock=["4S"]), draw, at_once) is None
    # Under c the turn that starts with the stock empty recycles: the discard is not built.
    next_turn = engine(rulings={"DISPUTE-18": "c"})
    empty = state(phase="play", stock=[])
    discard = {"type": "discard", "player": 1, "card": "KD"}
    assert moved(empty, discard, next_turn) is None
    assert moved(empty, discard, engine()) is not None


def test_a_draw_from_an_empty_stock_is_built_only_as_the_step_says_it_ends() -> None:
    draw = {"type": "draw_stock", "player": 1}
    empty = state(stock=[], discard=["KC"])
    assert moved(empty, draw, engine()) is None  # what came of it: not said
    void = moved(empty, draw, engine(), {"phase": "cancelled"})
    assert void is not None and void["phase"] == "cancelled"
    assert void["hands"] == empty["hands"] and void["discard"] == ["KC"]
    # DISPUTE-75 round_ends: every hand scores, nobody went out.
    scores = {"phase": "deal_over", "deal_scores": [5, 70]}
    ended = moved(empty, draw, engine(), scores)
    assert ended is not None and ended["closer"] is None and ended["totals"] == [5, 70]
    assert moved(empty, draw, engine(), {"phase": "play"}) is None  # a recycle


# -- a close --------------------------------------------------------------------------------


def test_a_discard_that_empties_the_hand_closes_only_with_the_step_s_scores() -> None:
    last = state(phase="play", turn=0, hands=[["2C"], ["8C"]], totals=[10, 20])
    discard = {"type": "discard", "player": 0, "card": "2C"}
    assert moved(last, discard, engine()) is None
    assert moved(last, discard, engine(), {"phase": "deal_over"}) is None  # no scores
    closed = moved(last, discard, engine(), {"phase": "deal_over", "deal_scores": [0, 8]})
    assert closed is not None
    assert (closed["phase"], closed["closer"], closed["winners"]) == ("deal_over", 0, None)
    assert closed["totals"] == [10, 28] and closed["hands"][0] == []
    assert closed["discard"][0] == "2C" and closed["turn_opened"] is False
    # Totals given alone: the deal's scores are what they grew by.
    by_totals = moved(last, discard, engine(), {"phase": "deal_over", "totals": [10, 28]})
    assert by_totals is not None and by_totals["deal_scores"] == [0, 8]
    # The game over: the winners only as the step gives them.
    over = {"phase": "game_over", "deal_scores": [0, 8]}
    assert moved(last, discard, engine(), over) is None
    won = moved(last, discard, engine(), {**over, "winners": [0]})
    assert won is not None and won["winners"] == [0]


def test_an_opening_that_empties_the_hand_closes_the_deal() -> None:
    melds = [{"kind": "trio", "cards": ["8C", "8D", "8H"]}]
    before = state(phase="play", hands=[["2C"], ["8C", "8D", "8H"]])
    act = {"type": "open", "player": 1, "melds": melds}
    assert moved(before, act, engine("perla")) is None
    given = {"phase": "deal_over", "deal_scores": [2, -30], "totals": [2, -30]}
    closed = moved(before, act, engine("perla"), given)
    assert closed is not None and closed["closer"] == 1 and closed["opened"] == [False, True]


# -- steals ---------------------------------------------------------------------------------


def test_a_pass_changes_no_field_and_a_steal_takes_the_top_discard() -> None:
    perla = engine("perla")
    drawn = state(profile="perla", phase="play", turn=1, players=3, hands=[[], ["KD"], ["2C"]])
    drawn["hands"][0] = ["3C"]
    passed = moved(drawn, {"type": "pass", "player": 2}, perla)
    assert passed is not None and {k: v for k, v in drawn.items() if k != "x"} == passed
    drawn["totals"] = [5, 0, 0]
    steal = {"type": "draw_discard", "player": 0}
    stolen = moved(drawn, steal, perla)
    assert stolen is not None
    assert stolen["hands"][0] == ["3C", "KC"] and stolen["discard"] == ["KH"]
    assert stolen["totals"] == [7, 0, 0] and stolen["turn"] == 1  # 2 points (PERLA-STEAL-2)
    given = moved(drawn, steal, perla, {"totals": [9, 0, 0]})  # the step's own, put in
    assert given is not None and given["totals"] == [9, 0, 0]
    # Where nobody steals, neither is built.
    assert moved(drawn, {"type": "pass", "player": 2}, engine()) is None


def test_a_stock_draw_is_built_where_the_others_may_steal() -> None:
    steal = engine(rulings={"DISPUTE-29": "steal"})
    after = moved(state(), {"type": "draw_stock", "player": 1}, steal)
    assert after is not None and after["phase"] == "play"


# -- joker replacements ---------------------------------------------------------------------


def test_a_joker_replaced_goes_to_the_hand_or_the_end_named() -> None:
    run = {"owner": 0, "kind": "run", "cards": ["8C", "JK", "10C", "JC"]}
    before = state(phase="play", table=[run], hands=[["2C"], ["9C", "KD"]])
    to_hand = {"type": "swap_joker", "player": 1, "meld": 0, "card": "9C", "to": "hand"}
    taken = moved(before, to_hand, engine())
    assert taken is not None
    assert taken["table"][0]["cards"] == ["8C", "9C", "10C", "JC"]
    assert sorted(taken["hands"][1]) == ["JK", "KD"]
    to_high = {**to_hand, "to": "high"}
    high = moved(before, to_high, engine())
    assert high is not None and high["table"][0]["cards"] == ["8C", "9C", "10C", "JC", "JK"]
    assert high["hands"][1] == ["KD"]
    # Where the engine lists or reads runs its own way, nothing is built.
    assert moved(before, to_high, engine(run_ends="engine")) is None
    assert moved(before, to_high, engine(run_order="engine")) is None
    assert moved(before, to_hand, engine(rulings={"DISPUTE-30": "declared"})) is None
    # A card the joker does not stand for: the step is the rules', not a move to build.
    assert moved(before, {**to_hand, "card": "KD"}, engine()) is None
    eight = state(phase="play", table=[run], hands=[["2C"], ["9D", "8C"]])
    assert moved(eight, {**to_hand, "card": "9D"}, engine()) is None
    two = {**run, "cards": ["JK", "9C", "JK", "JC"]}
    assert moved(state(phase="play", table=[two]), to_hand, engine()) is None
    # Where 2s are wild a 2 in the run may be the card replaced: which is the rules' to say.
    deuce = state(
        phase="play",
        table=[{**run, "cards": ["AC", "2C", "3C", "JK", "5C"]}],
        hands=[["2H"], ["4C", "KD"]],
    )
    four = {**to_hand, "card": "4C"}
    assert moved(deuce, four, engine(rulings={"DISPUTE-25": "wild"})) is None
    natural = moved(deuce, four, engine())
    assert natural is not None and natural["table"][0]["cards"] == ["AC", "2C", "3C", "4C", "5C"]


def test_a_joker_replacement_follows_the_whole_table_the_step_gives() -> None:
    run = {"owner": 0, "kind": "run", "cards": ["8C", "JK", "10C", "JC"]}
    before = state(phase="play", table=[run], hands=[["2C"], ["9C", "KD"]])
    act = {"type": "swap_joker", "player": 1, "meld": 0, "card": "9C", "to": "low"}
    table = [{**run, "cards": ["JK", "8C", "9C", "10C", "JC"]}]
    after = moved(before, act, engine(), {"table": table})
    assert after is not None and after["table"] == table and after["hands"][1] == ["KD"]
    # A table holding a card that was neither there nor played is not believed.
    wrong = [{**run, "cards": ["JK", "8C", "9C", "10C", "QC"]}]
    assert moved(before, act, engine(), {"table": wrong}) is None


# -- what no state field says ---------------------------------------------------------------


def at(turn: int, phase: str = "play") -> dict[str, Any]:
    """The state a step is played from, as far as Unseen reads it."""
    return {"turn": turn, "phase": phase}


def test_a_reload_loses_a_steal_still_open_and_the_steps_it_bears_on_are_named() -> None:
    unseen = Unseen(engine("perla"))
    unseen.played("action", {"type": "draw_stock", "player": 1}, True, 1)
    assert unseen.bears_on("action", {"type": "pass", "player": 2}, at(1)) is None  # not lost
    assert unseen.reloaded() is None
    assert unseen.bears_on("action", {"type": "pass", "player": 2}, at(1))
    assert unseen.bears_on("action", {"type": "draw_discard", "player": 0}, at(1))
    assert unseen.bears_on("action", {"type": "discard", "player": 1, "card": "KD"}, at(1)) is None
    # Once the deal is over, every action is refused whatever was open.
    assert unseen.bears_on("action", {"type": "pass", "player": 2}, at(1, "cancelled")) is None
    # The discard ends the chance: what follows is graded again.
    unseen.played("action", {"type": "discard", "player": 1, "card": "KD"}, True, 1)
    assert unseen.bears_on("action", {"type": "draw_discard", "player": 2}, at(2)) is None


def test_a_reload_loses_the_card_taken_and_the_melds_added_where_the_rulings_read_them() -> None:
    strict = engine(rulings={"DISPUTE-19": "forbidden", "DISPUTE-34": "no"})
    for declared, bears in ((engine(), False), (strict, True)):
        unseen = Unseen(declared)
        unseen.played("action", {"type": "draw_discard", "player": 1}, True, 1)
        unseen.played("action", {"type": "lay_off", "player": 1, "card": "5H", "meld": 0}, True, 1)
        unseen.reloaded()
        discard = unseen.bears_on("action", {"type": "discard", "player": 1, "card": "KC"}, at(1))
        lay_off = unseen.bears_on("action", {"type": "lay_off", "player": 1, "meld": 0}, at(1))
        assert (discard is not None, lay_off is not None) == (bears, bears)


def test_penalties_owed_refuse_every_reload_and_a_redeal_needs_the_first_draw() -> None:
    penalty = Unseen(engine(rulings={"DISPUTE-35": "penalty"}))
    penalty.played("action", {"type": "draw_stock", "player": 0}, False, 1)
    assert penalty.reloaded() is not None
    plain = Unseen(engine())
    plain.played("action", {"type": "draw_stock", "player": 0}, False, 1)
    assert plain.reloaded() is None
    plain.played("action", {"type": "draw_stock", "player": 1}, True, 1)
    assert plain.reloaded() is None and plain.bears_on("redeal", None, at(1)) is not None
    # A new deal starts afresh.
    plain.played("next_deal", None, True, 1)
    assert plain.bears_on("redeal", None, at(1)) is None
