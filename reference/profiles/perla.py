"""Seed 003, Perla's Cariocas (docs/rules.md, "Perla profile"): its points, the Argentine
points they restate, and the parameters that follow from its rulings (PERLA-* rules)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from types import MappingProxyType

from reference.cards import Card, Rank, Suit
from reference.profiles.argentine import ARGENTINE, shared_points
from reference.profiles.points import (
    CATALOGUE_FIXED,
    CATALOGUE_RULINGS,
    Restated,
    restate,
    restated,
)
from reference.profiles.profile import Profile, derive, register

#: Perla points that restate an Argentine point (or house variant), as the Chilean ones do.
RESTATED: Restated = restated(
    {
        "DISPUTE-64": {
            "after_passes": {"DISPUTE-29": "steal"},
            "forbidden": {"DISPUTE-29": "forbidden"},
        },
        "DISPUTE-66": {o: {"DISPUTE-31": o} for o in ("at_least", "exact")},
        "DISPUTE-71": {
            "melding": {"DISPUTE-07": "closes", "DISPUTE-13": "yes"},
            "discard_only": {"DISPUTE-07": "refused", "DISPUTE-13": "no"},
        },
        "DISPUTE-47": {o: {"DISPUTE-15": o} for o in ("share", "tiebreak")},
        "DISPUTE-76": {o: {"VARIANT-04": o} for o in ("forbidden", "allowed")},
        "DISPUTE-69": {
            "both": {"DISPUTE-27": "eight"},
            "round_7_only": {"DISPUTE-27": "seven"},
            "round_8_only": {"DISPUTE-27": "seven"},
        },
        "DISPUTE-73": {
            "two_to_eight": {"DISPUTE-32": "more_players"},
            "two_to_four": {"DISPUTE-32": "two_to_four"},
        },
    }
)

#: Points the Perla profile plays only one way, with what decides them instead.
FIXED: Mapping[str, str] = CATALOGUE_FIXED["perla"]


_PERLA_CONTRACTS: tuple[tuple[int, int], ...] = (*ARGENTINE.contracts[:6], (4, 0), (0, 3))


def derive_perla(profile: Profile) -> Profile:
    """The Perla parameters that follow from its rulings (seed 003, PERLA-* rules)."""
    p = profile.plays
    # DISPUTE-64 after_passes sets DISPUTE-29 steal...
    rulings = restate(profile.rulings, RESTATED)
    # PERLA-GAME-1, DISPUTE-69: both rounds 7 and 8, or only one of them as the last round.
    contracts = _PERLA_CONTRACTS
    if p("DISPUTE-69", "round_7_only"):
        contracts = _PERLA_CONTRACTS[:7]
    elif p("DISPUTE-69", "round_8_only"):
        contracts = (*_PERLA_CONTRACTS[:6], _PERLA_CONTRACTS[7])
    # PERLA-DEAL-3, DISPUTE-68: 11 cards, 13 in the last round; or 11 in every round.
    hand_sizes = [11] * len(contracts)
    if p("DISPUTE-68", "thirteen_last"):
        hand_sizes[-1] = 13
    different = p("DISPUTE-63", "different")  # PERLA-TRIO-1
    shared = shared_points(p)
    if different:
        shared["max_trio_size"] = 4  # PERLA-TRIO-4: one card of each suit at most
    return replace(
        profile,
        rulings=MappingProxyType(rulings),
        deals=len(contracts),
        contracts=contracts,
        hand_sizes=tuple(hand_sizes),
        jokers=2 if p("DISPUTE-61", "two_jokers") else 4,  # CARDS-1
        max_players=4 if p("DISPUTE-73", "two_to_four") else 8,  # PERLA-PLAYERS-1
        # PERLA-SCORE-2, DISPUTE-62: a red ace left in hand costs 25 like a joker, or 15.
        wild_card_value=25 if p("DISPUTE-62", "joker_value") else None,
        natural_in_place=p("DISPUTE-49", "in_place"),  # PERLA-WILD-3
        # PERLA-WILD-2, DISPUTE-50: no wild limit per meld, or 000's one per laid-down meld.
        initial_joker_limit=1 if p("DISPUTE-50", "one_per_meld") else None,
        # PERLA-TRIO-1, PERLA-TRIO-4: 3 or 4 cards of different suits; or 000's free trios.
        trio_suits_differ=different,
        initial_sizes_exact=p("DISPUTE-66", "exact"),  # PERLA-OPEN-1
        lowering_out_score=None if p("DISPUTE-65", "zero") else -30,  # PERLA-SCORE-1
        lowering_out_by_discard=p("DISPUTE-65", "same_turn"),
        cut_score=-10 if p("DISPUTE-67", "minus_ten") else 0,  # PERLA-CUT-2
        wild_swap="none" if p("DISPUTE-72", "none") else "run_end",  # PERLA-WILD-4
        max_run_length=13 if p("DISPUTE-77", "forbidden") else 14,  # MELD-RUN-4
        **shared,
    )


#: The option seed 003 is read to take on every point (docs/rules.md, "Perla profile").
_PERLA_RULINGS: Mapping[str, str] = CATALOGUE_RULINGS["perla"]

register("perla", derive_perla, FIXED)

PERLA = derive(
    Profile(
        name="perla",
        max_players=8,  # PERLA-PLAYERS-1
        deals=8,  # PERLA-GAME-1
        contracts=_PERLA_CONTRACTS,
        # PERLA-WILD-1: the red aces are wild beside the jokers.
        wild_cards=frozenset({Card(Rank.ACE, Suit.HEARTS), Card(Rank.ACE, Suit.DIAMONDS)}),
        # PERLA-SCORE-2: A 15, 2..10 face value, J Q K 10, joker 25.
        rank_values=(15, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10),
        joker_value=25,
        bury_ranks=frozenset(),  # DISPUTE-09 bury: only wild cards are buried
        rulings=_PERLA_RULINGS,
    )
)
"""Seed 003: Perla's Cariocas, 8 rounds, 108 cards, jokers and red aces wild, steals, -30 for
going out on the lowering turn, -10 for a perfect cut."""
