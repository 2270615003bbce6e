"""The step laws every profile's playouts obey, shared by the per-profile property tests
(test_chilean_props, test_pagat_props, test_perla_props)."""

from __future__ import annotations

import json
from collections import Counter

from hypothesis import HealthCheck, settings

from reference import (
    Action,
    GameState,
    IllegalActionError,
    InvalidActionError,
    apply,
    full_pack,
    is_legal,
    state_to_json,
)
from reference.game import validate_state

#: Fewer examples than the default: each one plays a whole seeded playout.
LAWS = settings(
    max_examples=max(5, settings.default.max_examples // 4),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def snapshot(state: GameState) -> str:
    """The state's protocol JSON, as text: what "unchanged" is judged on."""
    return json.dumps(state_to_json(state), sort_keys=True)


def all_cards(state: GameState) -> Counter[object]:
    """Every card of the state: hands, table, stock and discard pile."""
    found: Counter[object] = Counter()
    for hand in state.hands:
        found.update(hand)
    for tm in state.table:
        found.update(tm.meld.cards)
    found.update(state.stock)
    found.update(state.discard)
    return found


def check_step(state: GameState, action: Action) -> GameState:
    """Apply ``action``: a rejection changes nothing (TURN-1, DISPUTE-35) and is not legal;
    an acceptance keeps the profile's whole pack for the player count (CARDS-1 and the
    profile's own pack rules) and gives a valid state."""
    before = snapshot(state)
    try:
        after = apply(state, action)
    except (IllegalActionError, InvalidActionError):
        assert snapshot(state) == before, action
        assert not is_legal(state, action)
        return state
    assert all_cards(after) == Counter(full_pack(*state.profile.pack(state.players)))
    assert validate_state(after) == (), validate_state(after)
    return after
