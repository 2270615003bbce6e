"""Perla rule mutants (issue 16): the reference playing seed 003 with one Perla rule wrong.

Registered in :data:`tests.mutants.mutants.MUTANTS` when that module is imported (it imports
this one last), and listed in :data:`PERLA` so that ``tests/test_mutants.py`` and
``python -m tests.mutants.report`` run them against the Perla slice of the corpus
(``--profile perla``, scenarios/perla/) rather than the Argentine one.

As for the Chilean mutants (tests/mutants/chilean.py), a mutant changes one rule of the
``perla`` profile only:

- a *parameter* mutant serves a copy of the Perla profile with one field changed (card values,
  wild cards, contracts, the largest leg);
- an *option* mutant plays another option of one Perla disputed point while the adapter still
  announces the profile's own options in its handshake, so the harness grades it against the
  profile: the disputed cases under each option, and the cases that ``assumes`` the profile's
  option, must catch it;
- a *function* mutant wraps one reference function for ``perla`` states only (the steal's 2
  points).

Applying a mutant to a reference without the ``perla`` profile raises ``RuntimeError``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import reference.adapter
import reference.game
import reference.profiles
from reference.cards import Rank

from .mutants import _patch
from .profiled import ProfileMutants

NAME = "perla"
"""The profile these mutants deviate from (docs/protocol.md §10)."""

MUTANTS_OF = ProfileMutants(NAME)
PERLA: set[str] = MUTANTS_OF.names
"""Names of the mutants of this module, run against the Perla slice of the corpus."""
perla_mutant = MUTANTS_OF.mutant
reference_plays_perla = MUTANTS_OF.plays
_perla = MUTANTS_OF.profile
_swap_perla = MUTANTS_OF.swap
_play_option = MUTANTS_OF.play_option


def _value_of(rank: Rank, points: int) -> None:
    values = list(_perla().rank_values)
    values[rank.value - 1] = points
    _swap_perla(rank_values=tuple(values))


# --- wild cards -------------------------------------------------------------------------------


@perla_mutant(
    "perla_red_aces_natural",
    ["PERLA-WILD-1"],
    "red aces are ordinary aces: only the jokers are wild",
)
def _red_aces_natural() -> None:
    _swap_perla(wild_cards=frozenset())


@perla_mutant(
    "perla_red_ace_always_wild",
    ["PERLA-WILD-3"],
    "a red ace in its own place (an ace end of its suit, a leg of aces) is still wild",
)
def _red_ace_always_wild() -> None:
    _play_option("DISPUTE-49", "always_wild")


@perla_mutant(
    "perla_one_wild_per_meld",
    ["PERLA-WILD-2"],
    "a Perla meld laid down may hold only one wild card",
)
def _one_wild_per_meld() -> None:
    _play_option("DISPUTE-50", "one_per_meld")


@perla_mutant(
    "perla_wild_swaps",
    ["PERLA-WILD-4"],
    "a natural card may replace a joker in a straight, as in the Argentine game",
)
def _wild_swaps() -> None:
    _play_option("DISPUTE-72", "run_end")


# --- legs, straights and the ladder ------------------------------------------------------------


@perla_mutant(
    "perla_leg_suits_free",
    ["PERLA-TRIO-1"],
    "a leg may repeat a suit and grow past four cards",
)
def _leg_suits_free() -> None:
    _play_option("DISPUTE-63", "free")


@perla_mutant(
    "perla_legs_uncapped",
    ["PERLA-TRIO-4"],
    "a leg of four suits still takes a wild card as a fifth card",
)
def _legs_uncapped() -> None:
    _swap_perla(max_trio_size=None)


@perla_mutant(
    "perla_exact_sizes",
    ["PERLA-OPEN-1", "PERLA-RUN-1"],
    "legs and straights are lowered at exactly 3 and 4 cards",
)
def _exact_sizes() -> None:
    _play_option("DISPUTE-66", "exact")


@perla_mutant(
    "perla_round7_three_straights",
    ["PERLA-CONTRACT-7"],
    "round 7 asks for three straights (the Argentine seventh contract) instead of four legs",
)
def _round7_three_straights() -> None:
    contracts = list(_perla().contracts)
    contracts[6] = (0, 3)
    _swap_perla(contracts=tuple(contracts))


@perla_mutant(
    "perla_seven_rounds",
    ["PERLA-GAME-1"],
    "the game ends after round 7 (DISPUTE-69 round_7_only)",
)
def _seven_rounds() -> None:
    _play_option("DISPUTE-69", "round_7_only")


@perla_mutant(
    "perla_eleven_in_last_round",
    ["PERLA-DEAL-3"],
    "the last round deals 11 cards, like the others, instead of 13",
)
def _eleven_in_last_round() -> None:
    _play_option("DISPUTE-68", "eleven")


# --- going out, scoring, steals and the cut ----------------------------------------------------


@perla_mutant(
    "perla_discard_to_go_out",
    ["PERLA-OUT-1"],
    "a Perla player may not go out by melding: the last card must be discarded",
)
def _discard_to_go_out() -> None:
    _play_option("DISPUTE-71", "discard_only")


@perla_mutant(
    "perla_going_out_zero",
    ["PERLA-SCORE-1"],
    "going out on the lowering turn scores 0 instead of -30",
)
def _going_out_zero() -> None:
    _play_option("DISPUTE-65", "zero")


@perla_mutant(
    "perla_minus_30_any_turn",
    ["PERLA-SCORE-1"],
    "going out on a later turn scores -30 too, instead of 0",
)
def _minus_30_any_turn() -> None:
    _swap_perla(out_score=-30)


@perla_mutant(
    "perla_red_ace_worth_15",
    ["PERLA-SCORE-2"],
    "a red ace left in hand costs 15, as a black ace, instead of 25",
)
def _red_ace_worth_15() -> None:
    _play_option("DISPUTE-62", "ace_value")


@perla_mutant(
    "perla_joker_worth_50", ["PERLA-SCORE-2"], "a joker left in hand costs 50 instead of 25"
)
def _joker_worth_50() -> None:
    _swap_perla(joker_value=50)


@perla_mutant(
    "perla_ace_worth_20", ["PERLA-SCORE-2"], "a black ace left in hand costs 20 instead of 15"
)
def _ace_worth_20() -> None:
    _value_of(Rank.ACE, 20)


@perla_mutant(
    "perla_no_steals",
    ["PERLA-STEAL-1"],
    "nobody may take the discard out of turn (DISPUTE-64 forbidden)",
)
def _no_steals() -> None:
    _play_option("DISPUTE-64", "forbidden")


@perla_mutant(
    "perla_free_steals",
    ["PERLA-STEAL-2"],
    "a steal adds nothing to the stealer's score instead of 2 points",
)
def _free_steals() -> None:
    _perla()

    def make(original: Callable[..., Any]) -> Callable[..., Any]:
        def take_discard(state: Any, player: int, points: int) -> Any:
            if state.profile.name == NAME:
                points = 0
            return original(state, player, points)

        return take_discard

    _patch(reference.game, "_take_discard", make)


@perla_mutant(
    "perla_no_cut_bonus",
    ["PERLA-CUT-2"],
    "a perfect cut earns the cutter nothing instead of -10",
)
def _no_cut_bonus() -> None:
    _play_option("DISPUTE-67", "no_bonus")
