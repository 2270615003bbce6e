"""Game laws for the Pagat profile (seed 002): every reachable state holds the one 108-card
pack for 2 to 5 players, a rejected action changes nothing, every action legal_actions lists
is accepted (under the profile's options and the other options of its own points), no run
ever holds more than 13 cards, and seeded games under both policies are deterministic, the
greedy ones playing all seven hands to the end."""

from __future__ import annotations

import random

import pytest
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
from profile_laws import check_step as shared_check_step

from reference import (
    Action,
    GameState,
    LayOff,
    Open,
    Phase,
    SwapJoker,
    start_deal,
)
from reference.game import shuffled_pack
from reference.play import play_game
from reference.profiles import PAGAT, Profile

#: The profile, and the other option of each Pagat point the rules code branches on.
VARIANTS: dict[str, Profile] = {
    "pagat": PAGAT,
    "DISPUTE-57=allowed": PAGAT.with_rulings({"DISPUTE-57": "allowed"}),
    "DISPUTE-58=melding": PAGAT.with_rulings({"DISPUTE-58": "melding"}),
    "DISPUTE-59=anyone": PAGAT.with_rulings({"DISPUTE-59": "anyone"}),
    "DISPUTE-60=unmatched_only": PAGAT.with_rulings({"DISPUTE-60": "unmatched_only"}),
    "DISPUTE-79=same_turn": PAGAT.with_rulings({"DISPUTE-79": "same_turn"}),
}


def check_step(state: GameState, action: Action) -> GameState:
    """The shared step laws (profile_laws.check_step), and pagat's own: 108 cards for every
    player count (CARDS-1, PAGAT-PLAYERS-1) and no run of 14 cards (PAGAT-RUN-4)."""
    after = shared_check_step(state, action)
    assert sum(all_cards(after).values()) == 108
    longest = max((len(tm.meld.cards) for tm in after.table), default=0)
    assert longest <= after.profile.max_run_length
    return after


@LAWS
@given(
    st.sampled_from(sorted(VARIANTS)),
    st.integers(2, 5),
    st.integers(1, 7),
    st.integers(0, 2**32 - 1),
)
def test_pagat_playouts_keep_the_pack_and_reject_without_effect(
    variant: str, players: int, deal: int, seed: int
) -> None:
    profile = VARIANTS[variant]
    rng = random.Random(seed)
    deck = shuffled_pack(profile, rng, players)
    state = start_deal(profile, players, deal, rng.randrange(players), (0,) * players, deck)
    # DEAL-3: 11 cards, 12 in the seventh hand; DEAL-4: the rest, less the upcard, is stock.
    size = 12 if deal == 7 else 11
    assert [len(hand) for hand in state.hands] == [size] * players
    assert len(state.stock) == 108 - players * size - 1
    # Openings, lay-offs and replacements first, so that tables and swaps come up.
    ends = ("low", "high", "hand")
    keen = (Open, SwapJoker, LayOff)
    playout(state, rng, lambda s, r: probes(s, r, swap_to=ends), keen, step=check_step)


@LAWS
@given(
    st.sampled_from(sorted(VARIANTS)),
    st.integers(2, 5),
    st.integers(1, 7),
    st.integers(0, 2**32 - 1),
)
def test_every_listed_pagat_action_is_accepted(
    variant: str, players: int, deal: int, seed: int
) -> None:
    listed_actions(VARIANTS[variant], players, deal, seed)


@pytest.mark.parametrize(("seed", "players"), [(1, 2), (2, 5)])
def test_greedy_pagat_games_play_all_seven_hands(seed: int, players: int) -> None:
    closed = greedy_game(PAGAT, seed, players)
    # SCORE-1: the closer of each hand scores 0.
    for deal in closed:
        assert deal.deal_scores is not None and 0 in deal.deal_scores


@pytest.mark.parametrize("variant", ["DISPUTE-58=melding", "DISPUTE-60=unmatched_only"])
def test_greedy_pagat_games_finish_under_the_other_options(variant: str) -> None:
    record = play_game(5, 3, "greedy", profile=VARIANTS[variant], max_actions_per_deal=2000)
    assert record.finished and record.final.phase is Phase.GAME_OVER
    assert record.final.deal_number == 7


def test_random_pagat_games_are_deterministic_and_keep_the_pack() -> None:
    check_random_games(PAGAT, 5)
