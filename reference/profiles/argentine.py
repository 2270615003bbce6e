"""Seed 000, Argentine Carioca: the profile every other one builds on, and the parameters
that follow from its rulings (card values, hand sizes, meld sizes, joker limits, aces)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from reference.cards import Rank
from reference.profiles.points import CATALOGUE_RULINGS
from reference.profiles.profile import Profile, register

ARGENTINE = Profile(
    name="argentine",
    # The catalogue's argentine option on every point it rules on (catalogued.py).
    rulings=CATALOGUE_RULINGS["argentine"],
)
"""Seed 000: Argentine Carioca, 7 deals, 108 cards, only jokers wild."""


def derive_argentine(profile: Profile) -> Profile:
    """The Argentine parameters that follow from its rulings (seed 000)."""
    p = profile.plays
    values = list(ARGENTINE.rank_values)  # DISPUTE-26 table_000, SCORE-2
    joker_value = ARGENTINE.joker_value
    if p("DISPUTE-26", "table_001"):
        values[0], values[1] = 15, 25
    elif p("DISPUTE-26", "table_003"):
        values[0], joker_value = 15, 25
    wild_ranks: frozenset[Rank] = frozenset()
    if p("DISPUTE-25", "wild"):  # CARDS-2: twos wild, 25 points each
        wild_ranks, values[1] = frozenset({Rank.TWO}), 25
    if p("VARIANT-01", "thirty"):  # JOKER-7, SCORE-2
        joker_value = 30
    deals, contracts = ARGENTINE.deals, ARGENTINE.contracts
    hand_sizes = list(ARGENTINE.hand_sizes)
    going_out_deals: frozenset[int] = frozenset()
    if p("DISPUTE-27", "eight"):  # GAME-1: an eighth round of 13 cards, three runs
        deals, contracts = 8, (*contracts, (0, 3))
        hand_sizes.append(13)
        # "A last round that needs no discard": deal 8 is laid down only as one play that
        # empties the hand, melds of any size (as CHILE-ROUND8-2 with DISPUTE-39 no_discard).
        going_out_deals = frozenset({8})
    if p("VARIANT-05", "twelve"):  # DEAL-3: 12 cards in every deal
        hand_sizes = [12] * len(hand_sizes)
    if p("DISPUTE-33", "thirteen"):  # DEAL-3: 13 cards in deal 7
        hand_sizes[6] = 13
    return replace(
        profile,
        rank_values=tuple(values),
        joker_value=joker_value,
        wild_ranks=wild_ranks,
        deals=deals,
        contracts=tuple(contracts),
        hand_sizes=tuple(hand_sizes),
        going_out_deals=going_out_deals,
        # DISPUTE-31: opening melds of exactly, or at least, 3 and 4 cards (CONTRACT-8), or
        # trios of exactly 3 and runs of at least 4 (runs_at_least).
        initial_sizes_exact=not p("DISPUTE-31", "at_least"),
        initial_runs_exact=p("DISPUTE-31", "exact"),
        # VARIANT-03: the one-joker limit of JOKER-2 kept on table melds (JOKER-3).
        later_joker_limit=1 if p("VARIANT-03", "kept") else None,
        **shared_points(p),
    )


def shared_points(p: Callable[[str, str], bool]) -> dict[str, Any]:
    """Parameters of the Argentine points every profile plays alike, by their options."""
    return {
        # VARIANT-02: the ace only below the 2 (CARDS-3, MELD-RUN-2).
        "ace_high": not p("VARIANT-02", "low_only"),
        # DISPUTE-10: a trio of at most the 8 natural copies of a rank (MELD-TRIO-4).
        "max_trio_size": 8 if p("DISPUTE-10", "cap") else None,
        # DISPUTE-35 penalty: 10 points per refused action, scored at the close (TURN-1).
        "illegal_action_penalty": 10 if p("DISPUTE-35", "penalty") else 0,
    }


register(ARGENTINE.name, derive_argentine)
