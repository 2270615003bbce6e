"""Codec laws (reference.codec): the protocol JSON forms round-trip exactly."""

from __future__ import annotations

import json
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import cards, illegal_probes, reachable_states, table_states, valid_melds

from reference import (
    GameState,
    action_from_json,
    action_to_json,
    card_from_json,
    card_to_json,
    legal_actions,
    meld_from_json,
    meld_to_json,
    state_from_json,
    state_to_json,
    validate_state,
)
from reference.cards import Card
from reference.melds import Meld

GAME_STATES = settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
CARD_CODE = r"^(A|[2-9]|10|J|Q|K)[SHDC]$|^JK$"


@given(cards())
def test_card_codes_round_trip(card: Card) -> None:
    """Every card has one code of docs/protocol.md §3 and reads back as itself (CARDS-1)."""
    code = card_to_json(card)
    assert re.fullmatch(CARD_CODE, code)
    assert card_from_json(code) == card


@given(valid_melds(initial=False))
def test_melds_round_trip(meld: Meld) -> None:
    """A meld's JSON reads back as the same meld, run order kept (MELD-RUN-6)."""
    assert meld_from_json(meld_to_json(meld)) == meld
    assert meld_to_json(meld_from_json(meld_to_json(meld))) == meld_to_json(meld)


@GAME_STATES
@given(st.one_of(reachable_states(), table_states()))
def test_state_json_round_trip_is_identity(state: GameState) -> None:
    """state -> JSON -> state is the identity, and so is JSON -> state -> JSON, through a
    real text encoding; every reachable state also passes validation (CARDS-1)."""
    text = json.dumps(state_to_json(state))
    back = state_from_json(json.loads(text))
    assert back == state
    assert state_to_json(back) == json.loads(text)
    assert validate_state(state) == ()


@GAME_STATES
@given(st.data(), st.one_of(reachable_states(), table_states()))
def test_actions_round_trip(data: st.DataObject, state: GameState) -> None:
    """Every listed or probing action survives JSON (docs/protocol.md §6)."""
    actions = list(legal_actions(state)) + [data.draw(illegal_probes(state)) for _ in range(3)]
    for action in actions:
        encoded = json.loads(json.dumps(action_to_json(action)))
        assert action_from_json(encoded) == action
