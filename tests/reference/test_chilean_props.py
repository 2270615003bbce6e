"""Game laws for the Chilean profile (seed 001): every reachable state holds the pack of its
player count (106, or 160 for 5-6 players), a rejected action changes nothing, every action
legal_actions lists is accepted, and seeded games under both policies are deterministic,
the greedy ones playing all eight rounds to the end."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st
from profile_laws import (
    LAWS,
    all_cards,
    check_random_games,
    greedy_game,
    listed_actions,
    playout,
    probes,
)

from reference import (
    CHILEAN,
    LayOff,
    Open,
    SwapJoker,
    start_deal,
)
from reference.game import shuffled_pack


@LAWS
@given(
    st.integers(2, 6),
    st.integers(1, 8),
    st.integers(0, 2**32 - 1),
)
def test_chilean_playouts_keep_the_pack_and_reject_without_effect(
    players: int, deal: int, seed: int
) -> None:
    rng = random.Random(seed)
    deck = shuffled_pack(CHILEAN, rng, players)
    state = start_deal(CHILEAN, players, deal, rng.randrange(players), (0,) * players, deck)
    assert sum(all_cards(state).values()) == (160 if players >= 5 else 106)
    # Laying down and swaps first, so that tables and Chilean swaps come up.
    playout(state, rng, lambda s, r: probes(s, r, swap_wild=True), (Open, SwapJoker, LayOff))


@LAWS
@given(st.integers(2, 6), st.integers(1, 8), st.integers(0, 2**32 - 1))
def test_every_listed_action_is_accepted(players: int, deal: int, seed: int) -> None:
    listed_actions(CHILEAN, players, deal, seed)


def test_greedy_chilean_games_play_all_eight_rounds() -> None:
    for seed, players in ((1, 2), (2, 5)):
        greedy_game(CHILEAN, seed, players)


def test_random_chilean_games_are_deterministic_and_keep_the_pack() -> None:
    check_random_games(CHILEAN, 6)
