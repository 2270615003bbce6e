"""Game laws for the Perla profile (seed 003): every reachable state holds the 108 cards, a
rejected action changes nothing, every action legal_actions lists is accepted, steals keep the
pack and cost 2, and seeded games under both policies are deterministic, the greedy ones playing
all eight rounds to the end."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st
from profile_laws import (
    LAWS,
    all_cards,
    check_random_games,
    check_step,
    greedy_game,
    listed_actions,
    playout,
    probes,
)

from reference import (
    PERLA,
    Action,
    DrawDiscard,
    GameState,
    LayOff,
    Open,
    Phase,
    SwapJoker,
    start_deal,
)
from reference.actions import Pass
from reference.game import shuffled_pack


def perla_probes(state: GameState, rng: random.Random) -> list[Action]:
    """The shared probes, with a steal and a pass by any player instead of a draw from
    the discard pile by the one to move."""
    other = rng.randrange(state.players)
    return [DrawDiscard(other), Pass(other), *probes(state, rng)[1:]]


def steal_or_pass(state: GameState, rng: random.Random) -> GameState:
    """While a steal is open (DISPUTE-64), the next player in line passes or steals."""
    if not state.passed or state.phase is not Phase.PLAY:
        return state
    following = (state.passed[-1] + 1) % state.players
    if following == state.turn:
        return state
    before = state.totals
    if rng.random() < 0.3:
        after = check_step(state, DrawDiscard(following))
        assert after is not state, "a steal open to the next player was refused"
        # PERLA-STEAL-2: the stealer's total grows by 2 at once, nobody else's changes.
        assert after.totals == tuple(t + 2 * (i == following) for i, t in enumerate(before))
        return after
    after = check_step(state, Pass(following))
    assert after is not state and after.totals == before
    return after


@LAWS
@given(st.integers(2, 8), st.integers(1, 8), st.integers(0, 2**32 - 1))
def test_perla_playouts_keep_the_pack_and_reject_without_effect(
    players: int, deal: int, seed: int
) -> None:
    rng = random.Random(seed)
    deck = shuffled_pack(PERLA, rng, players)
    cut = rng.choice([None, players * PERLA.hand_size(deal) + 1, 30])
    state = start_deal(PERLA, players, deal, rng.randrange(players), (0,) * players, deck, cut=cut)
    assert sum(all_cards(state).values()) == 108
    # Laying down and lay-offs first, so that tables and going out come up.
    playout(state, rng, perla_probes, (Open, LayOff), between=steal_or_pass)


@LAWS
@given(st.integers(2, 8), st.integers(1, 8), st.integers(0, 2**32 - 1))
def test_every_listed_action_is_accepted(players: int, deal: int, seed: int) -> None:
    listed = listed_actions(PERLA, players, deal, seed)
    assert not any(isinstance(a, SwapJoker) for a in listed)  # PERLA-WILD-4: never listed


def test_greedy_perla_games_play_all_eight_rounds() -> None:
    bonuses = 0
    for seed, players in ((1, 2), (2, 5), (3, 8)):
        # SCORE-4: with no steal and no cut, the totals are the sums of the round scores.
        closed = greedy_game(PERLA, seed, players)
        # PERLA-SCORE-1: a closer scores -30 or 0; a round without a closer ended when the
        # stock ran out (PERLA-STOCK-1), every player scoring their hand.
        for d in closed:
            assert d.deal_scores is not None
            if d.closer is not None:
                assert d.deal_scores[d.closer] in (-30, 0), d
            else:
                assert min(d.deal_scores) >= 0, d
            bonuses += d.closer is not None and d.deal_scores[d.closer] == -30
    assert bonuses, "no greedy player went out on the lowering turn"


def test_random_perla_games_are_deterministic_and_keep_the_pack() -> None:
    check_random_games(PERLA, 7)
