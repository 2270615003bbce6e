"""The canonical JSON forms of docs/protocol.md and their error messages."""

from __future__ import annotations

import json

import pytest
from ref_helpers import make_state, run, trio

from reference import (
    ARGENTINE,
    Card,
    Discard,
    DrawDiscard,
    DrawStock,
    End,
    InvalidActionError,
    InvalidStateError,
    LayOff,
    Open,
    SwapJoker,
    action_from_json,
    action_to_json,
    apply,
    card_to_json,
    meld_from_json,
    meld_to_json,
    new_game,
    state_from_json,
    state_to_json,
)
from reference.melds import TableMeld

ACTIONS_JSON = [
    {"type": "draw_stock", "player": 1},
    {"type": "draw_discard", "player": 1},
    {
        "type": "open",
        "player": 1,
        "melds": [
            {"kind": "trio", "cards": ["8D", "8C", "JK"]},  # canonical order S H D C
            {"kind": "run", "cards": ["JK", "5S", "6S", "7S"]},
        ],
    },
    {"type": "lay_off", "player": 1, "card": "8S", "meld": 1, "end": "high"},
    {"type": "lay_off", "player": 1, "card": "8S", "meld": 0},
    {"type": "swap_joker", "player": 1, "meld": 1, "card": "5S", "to": "high"},
    {"type": "swap_joker", "player": 1, "meld": 1, "card": "5S", "to": "low", "to_meld": 0},
    {"type": "discard", "player": 1, "card": "QD"},
]


@pytest.mark.parametrize("obj", ACTIONS_JSON)
def test_action_round_trip_is_the_identity(obj: dict) -> None:
    assert action_to_json(action_from_json(obj)) == obj


def test_actions_read_as_values() -> None:
    card = Card.from_code
    assert action_from_json(ACTIONS_JSON[0]) == DrawStock(1)
    assert action_from_json(ACTIONS_JSON[1]) == DrawDiscard(1)
    assert action_from_json(ACTIONS_JSON[2]) == Open(1, (trio("8C 8D JK"), run("JK 5S 6S 7S")))
    assert action_from_json(ACTIONS_JSON[3]) == LayOff(1, card("8S"), 1, End.HIGH)
    assert action_from_json(ACTIONS_JSON[4]) == LayOff(1, card("8S"), 0, None)
    assert action_from_json(ACTIONS_JSON[5]) == SwapJoker(1, 1, card("5S"), "high")
    assert action_from_json(ACTIONS_JSON[7]) == Discard(1, card("QD"))


def test_cards_and_melds() -> None:
    assert card_to_json(Card.from_code("10H")) == "10H"
    run_json = {"kind": "run", "cards": ["JK", "5S", "6S", "7S"]}
    assert meld_from_json(run_json) == run("JK 5S 6S 7S")
    assert meld_to_json(meld_from_json(run_json)) == run_json
    owned = meld_to_json(TableMeld(1, trio("KS KH KD")))
    assert owned == {"owner": 1, "kind": "trio", "cards": ["KS", "KH", "KD"]}


@pytest.mark.parametrize(
    ("obj", "fragment"),
    [
        ({"type": "discard", "player": 1, "card": "1S"}, "action.card: unknown card code '1S'"),
        ({"type": "discard", "player": 1}, "action.card: missing field"),
        ({"type": "discard", "card": "AS"}, "action.player: missing field"),
        ({"type": "discard", "player": True, "card": "AS"}, "action.player: expected an integer"),
        ({"type": "fly", "player": 1}, "action.type: unknown action type 'fly'"),
        ({"type": "lay_off", "player": 1, "card": "8S", "meld": "1"}, "action.meld"),
        ({"type": "lay_off", "player": 1, "card": "8S", "meld": 1, "end": "top"}, "action.end"),
        ({"type": "swap_joker", "player": 1, "meld": 1, "card": "5S", "to": "up"}, "action.to"),
        (
            {"type": "open", "player": 1, "melds": [{"kind": "set", "cards": []}]},
            "action.melds[0].kind",
        ),
        (
            {"type": "open", "player": 1, "melds": [{"kind": "run", "cards": ["4S", "X"]}]},
            "action.melds[0].cards[1]: unknown card code 'X'",
        ),
        ([], "action: expected an object"),
    ],
)
def test_action_errors_name_the_field(obj: object, fragment: str) -> None:
    with pytest.raises(InvalidActionError) as info:
        action_from_json(obj)
    assert fragment in str(info.value)


def test_state_shape_and_round_trip() -> None:
    state = make_state(
        ["2C 3C 4C", "8S 3S KD", "AH AD 5D"],
        phase="play",
        opened=[False, True, False],
        table=[(1, trio("8C 8D 8H")), (1, run("4S 5S 6S 7S"))],
        seed=42,
    )
    obj = state_to_json(state)
    assert list(obj) == [
        "profile", "players", "deal_number", "dealer", "turn", "phase", "hands", "opened",
        "turn_opened", "table", "stock", "discard", "totals", "deal_scores", "closer",
        "winners", "x",
    ]  # fmt: skip
    assert obj["profile"] == "argentine" and obj["phase"] == "play"
    assert obj["hands"][1] == ["3S", "8S", "KD"]  # canonical multiset order
    assert obj["table"][1] == {"owner": 1, "kind": "run", "cards": ["4S", "5S", "6S", "7S"]}
    assert obj["x"] == {"seed": 42, "drawn": False}
    assert obj["deal_scores"] is None and obj["closer"] is None and obj["winners"] is None
    text = json.dumps(obj)
    assert state_from_json(json.loads(text)) == state
    assert state_to_json(state_from_json(obj)) == obj


def test_state_round_trip_after_a_close() -> None:
    state = make_state(["AS QD 3C", "KD", "JK 2H"], phase="play", deal_number=7)
    over = apply(state, Discard(1, Card.from_code("KD")))
    obj = state_to_json(over)
    assert obj["phase"] == "game_over" and obj["closer"] == 1 and obj["winners"] == [1]
    assert state_from_json(obj) == over and state_to_json(state_from_json(obj)) == obj


def test_state_without_x_and_nulls_is_read() -> None:
    obj = state_to_json(new_game(ARGENTINE, 3, 9))
    for key in ("x", "deal_scores", "closer", "winners"):
        del obj[key]
    assert state_from_json(obj).seed == 0


def test_state_errors_name_the_field() -> None:
    obj = state_to_json(new_game(ARGENTINE, 3, 9))
    obj["hands"][2][5] = "1S"
    with pytest.raises(InvalidStateError) as info:
        state_from_json(obj)
    assert str(info.value.problems[0]).startswith("state.hands[2][5]: unknown card code '1S'")
    obj = state_to_json(new_game(ARGENTINE, 3, 9))
    obj["phase"] = "lunch"
    with pytest.raises(InvalidStateError, match=r"state\.phase"):
        state_from_json(obj)
    obj = state_to_json(new_game(ARGENTINE, 3, 9))
    obj["profile"] = "no_such_profile"
    with pytest.raises(InvalidStateError, match="unsupported profile"):
        state_from_json(obj)
    obj = state_to_json(new_game(ARGENTINE, 3, 9))
    del obj["turn"]
    with pytest.raises(InvalidStateError, match=r"state\.turn: missing field"):
        state_from_json(obj)
