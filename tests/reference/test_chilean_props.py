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
    listed_actions,
    playout,
    probes,
)

from reference import (
    CHILEAN,
    LayOff,
    Open,
    Phase,
    SwapJoker,
    start_deal,
)
from reference.game import shuffled_pack
from reference.play import play_game


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
