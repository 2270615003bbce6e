"""Game laws for the Chilean profile (seed 001): every reachable state holds the pack of its
player count (106, or 160 for 5-6 players), a rejected action changes nothing, every action
legal_actions lists is accepted, and seeded games under both policies are deterministic,
the greedy ones playing all eight rounds to the end."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st
from profile_laws import LAWS, all_cards, check_random_games, check_step, listed_actions, probes

from reference import (
    CHILEAN,
    LayOff,
    Open,
    Phase,
    SwapJoker,
    legal_actions,
    start_deal,
)
from reference.game import shuffled_pack
from reference.play import play_game

STEPS = 60
"""Actions per playout: enough to reach laying down, swaps and lay-offs in early rounds."""


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
    for _ in range(STEPS):
        if state.phase not in (Phase.DRAW, Phase.PLAY):
            break
        for probe in probes(state, rng, swap_wild=True):
            check_step(state, probe)  # probes are judged, never kept
        legal = legal_actions(state)
        assert legal, "a live deal always offers an action"
        # Laying down and swaps first, so that tables and Chilean swaps come up.
        keen = [a for a in legal if isinstance(a, Open | SwapJoker | LayOff)]
        action = keen[0] if keen and rng.random() < 0.8 else rng.choice(legal)
        after = check_step(state, action)
        assert after is not state, f"a listed action was refused: {action}"
        state = after


@LAWS
@given(st.integers(2, 6), st.integers(1, 8), st.integers(0, 2**32 - 1))
def test_every_listed_action_is_accepted(players: int, deal: int, seed: int) -> None:
    listed_actions(CHILEAN, players, deal, seed)


def test_greedy_chilean_games_play_all_eight_rounds() -> None:
    for seed, players in ((1, 2), (2, 5)):
        record = play_game(seed, players, "greedy", profile=CHILEAN, max_actions_per_deal=2000)
        assert record.finished, (seed, players)
        final = record.final
        assert final.phase is Phase.GAME_OVER and final.deal_number == 8
        closed = [d for d in record.deals if not d.cancelled]
        assert [d.deal_number for d in closed] == list(range(1, 9))
        # SCORE-4: the totals are the sums of the round scores.
        sums = [sum(d.deal_scores[i] for d in closed if d.deal_scores) for i in range(players)]
        assert list(final.totals) == sums
        assert final.winners == tuple(i for i, t in enumerate(sums) if t == min(sums))


def test_random_chilean_games_are_deterministic_and_keep_the_pack() -> None:
    check_random_games(CHILEAN, 6)
