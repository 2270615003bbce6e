"""Seed 001, Chilean Carioca (docs/rules.md, "Chilean profile"): its points, the Argentine
points they restate, and the parameters that follow from its rulings (CHILE-* rules)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import Any

from reference.cards import Rank
from reference.profiles.argentine import ARGENTINE, shared_points
from reference.profiles.points import (
    CATALOGUE_FIXED,
    CATALOGUE_RULINGS,
    Restated,
    restate,
    restated,
)
from reference.profiles.profile import Profile, derive, register

#: Chilean points that restate an Argentine point (or house variant): the Chilean option
#: sets the Argentine point's option, so the rules code reads one ruling per fact.
RESTATED: Restated = restated(
    {
        "DISPUTE-41": {o: {"DISPUTE-31": o} for o in ("exact", "at_least", "runs_at_least")},
        "DISPUTE-45": {
            "melding": {"DISPUTE-07": "closes", "DISPUTE-13": "yes"},
            "discard_only": {"DISPUTE-07": "refused", "DISPUTE-13": "no"},
        },
        "DISPUTE-47": {o: {"DISPUTE-15": o} for o in ("share", "tiebreak")},
        "DISPUTE-48": {o: {"DISPUTE-25": o} for o in ("wild", "natural")},
        "DISPUTE-51": {o: {"DISPUTE-09": o} for o in ("bury", "stays")},
        "DISPUTE-76": {o: {"VARIANT-04": o} for o in ("forbidden", "allowed")},
        "DISPUTE-42": {
            "eleven": {"VARIANT-05": "eleven", "DISPUTE-33": "thirteen"},
            "twelve": {"VARIANT-05": "twelve", "DISPUTE-33": "twelve"},
        },
    }
)

#: Points the Chilean profile plays only one way, with what decides them instead (the
#: catalogue's ``fixed``; every point :data:`RESTATED` sets is among them).
FIXED: Mapping[str, str] = CATALOGUE_FIXED["chilean"]


def derive_chilean(profile: Profile) -> Profile:
    """The Chilean parameters that follow from its rulings (seed 001, CHILE-* rules)."""
    p = profile.plays
    # DISPUTE-48 natural sets DISPUTE-25 natural...
    rulings = restate(profile.rulings, RESTATED)
    wild = p("DISPUTE-48", "wild")  # CHILE-WILD-1
    # CHILE-SCORE-2: A 15, 2 25 (a natural 2: 2), 3..10 face value, J Q K 10, joker 50.
    values = [15, 25 if wild else 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10]
    joker_value = 30 if p("DISPUTE-55", "joker_30") else 20 if p("DISPUTE-55", "joker_20") else 50
    if p("DISPUTE-55", "two_20") and wild:
        values[1] = 20  # DISPUTE-55 two_20: a wild 2 left in hand costs 20
    wild_ranks = frozenset({Rank.TWO}) if wild else frozenset()
    return replace(
        profile,
        rulings=MappingProxyType(rulings),
        rank_values=tuple(values),
        joker_value=joker_value,
        wild_ranks=wild_ranks,
        # CHILE-DEAL-7: only a wild upcard is buried (DISPUTE-51 stays: none is).
        bury_ranks=wild_ranks,
        natural_in_place=p("DISPUTE-49", "in_place"),  # CHILE-WILD-3
        # CHILE-DEAL-3, DISPUTE-42: 11 cards and 13 in round 8, or 12 in every round.
        hand_sizes=(12,) * 8 if p("DISPUTE-42", "twelve") else (11,) * 7 + (13,),
        # CHILE-CARDS-2, DISPUTE-43: 4 jokers with the third pack (160 cards), or 3 (159).
        big_jokers=3 if p("DISPUTE-43", "one_fifty_nine") else 4,
        **_chilean_pack(p),
        initial_sizes_exact=not p("DISPUTE-41", "at_least"),  # CONTRACT-8
        initial_runs_exact=p("DISPUTE-41", "exact"),  # runs_at_least: runs of 4 or more
        short_runs=p("DISPUTE-52", "three"),  # MELD-RUN-1: runs of 3 cards too
        # DISPUTE-40 three_card_runs: round 8's four runs may be of 3 cards (L55 "12 cards").
        going_out_run_size=3 if p("DISPUTE-40", "three_card_runs") else None,
        # CHILE-WILD-2, DISPUTE-50: no wild limit per meld, or 000's one per laid-down meld.
        initial_joker_limit=1 if p("DISPUTE-50", "one_per_meld") else None,
        max_run_length=13 if p("DISPUTE-77", "forbidden") else 14,  # MELD-RUN-4
        out_score=-10 if p("DISPUTE-46", "minus_ten") else 0,  # SCORE-1
        **shared_points(p),
    )


def _chilean_pack(p: Callable[[str, str], bool]) -> dict[str, Any]:
    """The Chilean pack by DISPUTE-78: CHILE-CARDS-1 and -2 (``by_players``: 106 cards for 2
    to 4 players, the third pack from 5 on), or the house game's 108 cards (two packs and 4
    jokers, as CARDS-1) for every player count, DISPUTE-43 then having no effect."""
    if p("DISPUTE-78", "always_108"):
        return {"jokers": 4, "big_pack_players": None}
    return {"jokers": 2, "big_pack_players": 5}


#: The option seed 001 is read to take on every point (docs/rules.md, "Chilean profile"; the
#: catalogue's chilean options).
_CHILEAN_RULINGS: Mapping[str, str] = CATALOGUE_RULINGS["chilean"]

register("chilean", derive_chilean, FIXED)

CHILEAN = derive(
    Profile(
        name="chilean",
        max_players=6,  # CHILE-PLAYERS-1
        jokers=2,  # CHILE-CARDS-1: 106 cards
        big_pack_players=5,  # CHILE-CARDS-2
        deals=8,  # CHILE-GAME-1
        contracts=(*ARGENTINE.contracts, (4, 0)),  # CONTRACT-1..7, CHILE-ROUND8-1
        alternative_contracts=MappingProxyType({8: ((0, 4),)}),  # CHILE-ROUND8-1
        going_out_deals=frozenset({8}),  # CHILE-ROUND8-2
        wild_swap="to_hand",  # CHILE-SWAP-1..3
        rulings=_CHILEAN_RULINGS,
    )
)
"""Seed 001: Chilean Carioca, 8 rounds, 106 cards (160 for 5-6 players), jokers and 2s wild."""
