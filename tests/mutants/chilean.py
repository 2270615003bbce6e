"""Chilean rule mutants (issue 15): the reference playing seed 001 with one Chilean rule wrong.

Registered in :data:`tests.mutants.mutants.MUTANTS` when that module is imported (it imports
this one last), and listed in :data:`CHILEAN` so that ``tests/test_mutants.py`` and
``python -m tests.mutants.report`` run them against the Chilean slice of the corpus
(``--profile chilean``, scenarios/chilean/) rather than the Argentine one.

The reference keeps a profile's rules as data of its :class:`~reference.profiles.Profile`
(card values, hand sizes, meld sizes, wild-card limits, aces) and reads every disputed point
with :meth:`~reference.profiles.Profile.ruling` at the branch that cites it. A mutant here
changes one of those for the ``chilean`` profile only:

- a *parameter* mutant serves a copy of the Chilean profile with one field changed;
- an *option* mutant plays another option of one Chilean disputed point while the adapter
  still announces the profile's own options in its handshake, so the harness grades it
  against the profile: an engine that plays another house's rule without declaring it is
  wrong, and the corpus must say so (the disputed cases under each option, and the cases
  that ``assumes`` the profile's option, catch it).

Applying a mutant to a reference without the ``chilean`` profile raises ``RuntimeError``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import reference.adapter
import reference.melds
import reference.profiles
from reference.cards import Rank
from reference.melds import Meld
from reference.profiles import Profile
from reference.reasons import Reason

from .mutants import _ARGENTINE, _patch
from .profiled import ProfileMutants

NAME = "chilean"
"""The profile these mutants deviate from (docs/protocol.md §8)."""

MUTANTS_OF = ProfileMutants(NAME)
CHILEAN: set[str] = MUTANTS_OF.names
"""Names of the mutants of this module, run against the Chilean slice of the corpus."""
chilean_mutant = MUTANTS_OF.mutant
reference_plays_chilean = MUTANTS_OF.plays
_chilean = MUTANTS_OF.profile
_swap_chilean = MUTANTS_OF.swap


def _other_option(point: str, preferred: Sequence[str]) -> str:
    """An option of ``point`` that the Chilean profile does not play: the first of
    ``preferred`` that the reference knows, else the first other option it lists."""
    own = _chilean().ruling(point)
    known = [o for o in reference.profiles.OPTIONS[point] if o != own]
    if not known:
        raise RuntimeError(f"{point} has no option besides {own!r}")
    return next((o for o in preferred if o in known), known[0])


def _play_option(point: str, *preferred: str) -> None:
    """Play another option of ``point`` (the first of ``preferred`` the reference knows)
    for the Chilean profile, announcing the profile's own (:meth:`ProfileMutants.play_option`)."""
    MUTANTS_OF.play_option(point, _other_option(point, preferred))


def _value_of(rank: Rank, points: int) -> None:
    values = list(_chilean().rank_values)
    values[rank.value - 1] = points
    _swap_chilean(rank_values=tuple(values))


# --- wild cards -------------------------------------------------------------------------------


@chilean_mutant(
    "chilean_twos_natural",
    ["CHILE-WILD-1", "CHILE-SCORE-2"],
    "Chilean 2s are natural cards worth 2, as if DISPUTE-48 were ruled natural",
)
def _twos_natural() -> None:
    _play_option("DISPUTE-48", "natural")


@chilean_mutant(
    "chilean_one_wild_per_meld",
    ["CHILE-WILD-2"],
    "a Chilean meld laid down may hold only one wild card",
)
def _one_wild_per_meld() -> None:
    _swap_chilean(initial_joker_limit=1)


@chilean_mutant(
    "chilean_natural_two_wild",
    ["CHILE-WILD-3"],
    "a 2 in its own natural place is still a wild card (swappable, no natural card)",
)
def _natural_two_wild() -> None:
    _play_option("DISPUTE-49", "always_wild")


# --- melds and contracts ---------------------------------------------------------------------


@chilean_mutant(
    "chilean_melds_at_least",
    ["CONTRACT-8", "MELD-RUN-1", "MELD-TRIO-1"],
    "Chilean melds laid down may be larger than 3 and 4 cards",
)
def _melds_at_least() -> None:
    _swap_chilean(initial_sizes_exact=False)


@chilean_mutant(
    "chilean_k_a_2_allowed",
    ["MELD-RUN-3"],
    "a Chilean escala may turn the K-A-2 corner or pass an ace",
)
def _k_a_2_allowed() -> None:
    _chilean()

    def make(original: Callable[..., Reason | None]) -> Callable[..., Reason | None]:
        def check_meld(
            meld: Meld, *, initial: bool, profile: Profile = _ARGENTINE
        ) -> Reason | None:
            reason = original(meld, initial=initial, profile=profile)
            if profile.name == NAME and reason in (Reason.RUN_WRAPS, Reason.BEYOND_ACE):
                return None
            return reason

        return check_meld

    _patch(reference.melds, "check_meld", make)


@chilean_mutant(
    "chilean_ace_low_only",
    ["MELD-RUN-2"],
    "a Chilean ace is only low: J-Q-K-A is refused",
)
def _ace_low_only() -> None:
    _swap_chilean(ace_high=False)


@chilean_mutant(
    "chilean_four_short_escalas",
    ["CHILE-ROUND8-1"],
    "round 8 may be won with four escalas of three cards",
)
def _four_short_escalas() -> None:
    _play_option("DISPUTE-40", "three_card_runs")


@chilean_mutant(
    "chilean_round8_one_way_out",
    ["CHILE-ROUND8-2"],
    "round 8 is won only one way (all cards melded, or melds and a discard), not both",
)
def _round8_one_way_out() -> None:
    _play_option("DISPUTE-39", "no_discard", "discard")


# --- going out, scoring, the game ---------------------------------------------------------


@chilean_mutant(
    "chilean_discard_to_go_out",
    ["CHILE-OUT-1", "CHILE-END-3"],
    "a Chilean player may not go out by melding: the last card must be discarded",
)
def _discard_to_go_out() -> None:
    _play_option("DISPUTE-45", "discard_only")


@chilean_mutant(
    "chilean_going_out_minus_ten",
    ["SCORE-1", "CHILE-SCORE-5"],
    "the player who goes out scores -10 instead of 0",
)
def _going_out_minus_ten() -> None:
    _play_option("DISPUTE-46", "minus_ten")


@chilean_mutant("chilean_ace_worth_20", ["CHILE-SCORE-2"], "a Chilean ace left in hand costs 20")
def _ace_worth_20() -> None:
    _value_of(Rank.ACE, 20)


@chilean_mutant(
    "chilean_two_worth_2", ["CHILE-SCORE-2"], "a wild 2 left in hand costs 2 instead of 25"
)
def _two_worth_2() -> None:
    _value_of(Rank.TWO, 2)


@chilean_mutant(
    "chilean_joker_worth_25", ["CHILE-SCORE-2"], "a joker left in hand costs 25 instead of 50"
)
def _joker_worth_25() -> None:
    _swap_chilean(joker_value=25)


@chilean_mutant(
    "chilean_seven_rounds",
    ["CHILE-GAME-1", "CHILE-END-4"],
    "the Chilean game ends after round 7, as the Argentine one does",
)
def _seven_rounds() -> None:
    _swap_chilean(deals=7)


# --- dealing and swaps -----------------------------------------------------------------------


@chilean_mutant(
    "chilean_round8_dealt_11",
    ["CHILE-DEAL-3"],
    "round 8 deals 11 cards, like the other rounds, instead of 13",
)
def _round8_dealt_11() -> None:
    sizes = list(_chilean().hand_sizes)
    sizes[-1] = 11
    _swap_chilean(hand_sizes=tuple(sizes))


@chilean_mutant(
    "chilean_twelve_cards",
    ["CHILE-DEAL-3"],
    "every Chilean round deals 12 cards, the house option of DISPUTE-42",
)
def _twelve_cards() -> None:
    _play_option("DISPUTE-42", "twelve")


@chilean_mutant(
    "chilean_wild_upcard_stays",
    ["CHILE-DEAL-7"],
    "a wild upcard stays on the discard pile instead of being buried",
)
def _wild_upcard_stays() -> None:
    _play_option("DISPUTE-51", "stays")


@chilean_mutant(
    "chilean_swap_laid_down_only",
    ["CHILE-SWAP-1"],
    "only a player who has laid down may swap a wild card out of a meld",
)
def _swap_laid_down_only() -> None:
    _play_option("DISPUTE-44", "laid_down")


@chilean_mutant(
    "chilean_tie_breaks",
    ["END-5"],
    "a tie for the lowest total after round 8 is played off instead of shared",
)
def _tie_breaks() -> None:
    _play_option("DISPUTE-47", "tiebreak")
