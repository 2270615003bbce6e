"""Seed 002, Pagat-style Argentine Carioca (docs/rules.md, "Pagat profile"): seed 000's game
with its own points (PAGAT-* rules) added to the Argentine derivation."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from types import MappingProxyType

from reference.profiles.argentine import ARGENTINE, derive_argentine
from reference.profiles.points import OPTIONS, Restated, restate, restated, set_by
from reference.profiles.profile import Profile, derive, register

#: Pagat points that restate an Argentine point: the Pagat option sets the Argentine one's.
#: DISPUTE-47, -76 are the shared silences of seed 002.
RESTATED: Restated = restated(
    {
        "DISPUTE-58": {
            "discard": {"DISPUTE-07": "refused", "DISPUTE-13": "no"},
            "melding": {"DISPUTE-07": "closes", "DISPUTE-13": "yes"},
        },
        "DISPUTE-47": {o: {"DISPUTE-15": o} for o in ("share", "tiebreak")},
        "DISPUTE-76": {o: {"VARIANT-04": o} for o in ("forbidden", "allowed")},
    }
)

#: Points the Pagat profile plays only one way, with what decides them instead.
FIXED: Mapping[str, str] = MappingProxyType(
    {
        **set_by(RESTATED),
        "DISPUTE-32": "fixed: 2 to 5 players (PAGAT-PLAYERS-1)",
    }
)


def derive_pagat(profile: Profile) -> Profile:
    """The Pagat parameters that follow from its rulings (seed 002, PAGAT-* rules).

    Seed 002 is seed 000's game: every Argentine point keeps its Argentine derivation, and the
    Pagat points only add to it.
    """
    p = profile.plays
    # DISPUTE-58 melding sets DISPUTE-13 yes...
    rulings = restate(profile.rulings, RESTATED)
    derived = derive_argentine(replace(profile, rulings=MappingProxyType(rulings)))
    return replace(
        derived,
        # PAGAT-RUN-4, DISPUTE-57: "not both at the same time": no run holds a low and a
        # high ace, so 13 cards at most; ``allowed``: 000's 14-card run (MELD-RUN-4).
        max_run_length=13 if p("DISPUTE-57", "forbidden") else 14,
    )


def _pagat_point(point: str) -> bool:
    """True for the points seed 002 raises or leaves silent (DISPUTE-57..60 and -79, the
    shared silences DISPUTE-47, -53, -54 and DISPUTE-74..76)."""
    number = int(point.split("-")[1]) if point.startswith("DISPUTE-") else 0
    return 57 <= number <= 60 or number in (47, 53, 54, 74, 75, 76, 79)


register("pagat", derive_pagat, FIXED)

PAGAT = derive(
    Profile(
        name="pagat",
        max_players=5,  # PAGAT-PLAYERS-1; CARDS-1: one 108-card pack for every count (002 L7)
        # Every Argentine point at its Argentine option (002 restates 000), then the Pagat
        # points at their first option (docs/rules.md, "Pagat profile", gives each reason).
        rulings=MappingProxyType(
            {
                **ARGENTINE.rulings,
                "DISPUTE-32": "more_players",  # PAGAT-PLAYERS-1: a fifth player
                **{point: options[0] for point, options in OPTIONS.items() if _pagat_point(point)},
            }
        ),
    )
)
"""Seed 002: Pagat-style Argentine Carioca, 7 hands, 108 cards, 2 to 5 players, no run holding
two aces."""
