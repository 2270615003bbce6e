"""Chilean rule mutants: the reference playing seed 001 with one Chilean rule wrong.

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
from reference.cards import Card, Rank
from reference.melds import Meld, Run
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


@chilean_mutant(
    "chilean_natural_two_refused_in_place",
    ["CHILE-SWAP-1", "CHILE-WILD-3"],
    "a natural 2 may never take a wild card's place, not even at the 2-position of its suit",
)
def _natural_two_refused_in_place() -> None:
    _chilean()

    def make(original: Callable[..., tuple[int, ...]]) -> Callable[..., tuple[int, ...]]:
        def swappable_wilds(meld: Meld, card: Card, profile: Profile) -> tuple[int, ...]:
            if profile.name == NAME and card.rank is Rank.TWO:
                return ()
            return original(meld, card, profile)

        return swappable_wilds

    _patch(reference.melds, "swappable_wilds", make)


@chilean_mutant(
    "chilean_swap_by_rank_any_suit",
    ["CHILE-SWAP-1"],
    "a run's wild card may be taken by a card of its rank in any suit, not the exact card",
)
def _swap_by_rank_any_suit() -> None:
    _chilean()

    def make(original: Callable[..., tuple[int, ...]]) -> Callable[..., tuple[int, ...]]:
        def swappable_wilds(meld: Meld, card: Card, profile: Profile) -> tuple[int, ...]:
            found = original(meld, card, profile)
            suit = reference.melds.run_suit(meld, profile) if isinstance(meld, Run) else None
            if found or profile.name != NAME or suit is None or card.rank is None:
                return found
            if card.suit == suit or card.rank is Rank.TWO:
                return found
            return original(meld, Card(card.rank, suit), profile)

        return swappable_wilds

    _patch(reference.melds, "swappable_wilds", make)


# --- ported faults: Argentine function mutants made in the Chilean profile only -------------------

#: (Argentine mutant, Chilean rules it breaks, what the Chilean engine does wrong).
PORTED: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("draw_twice", ("TURN-2",), "a second draw in the same Chilean turn is accepted"),
    (
        "buy_out_of_turn",
        ("TURN-3",),
        "a Chilean player whose turn it is not may take the top discard",
    ),
    ("turn_passes_left", ("TURN-1", "TURN-5"), "after a Chilean discard the turn passes left"),
    ("first_turn_dealer", ("DEAL-5",), "the Chilean dealer takes the first turn"),
    ("next_dealer_left", ("DEAL-2",), "after a Chilean round the deal passes to the left"),
    ("stock_drawn_from_bottom", ("TURN-2",), "a Chilean stock draw takes the bottom card"),
    (
        "recycle_whole_pile",
        ("STOCK-1", "STOCK-2"),
        "an empty Chilean stock is rebuilt from the whole discard pile, top card included",
    ),
    (
        "layoff_on_opening_turn",
        ("TURN-6",),
        "a Chilean player may lay off on the turn they lay down",
    ),
    (
        "layoff_before_opening",
        ("CONTRACT-10",),
        "a Chilean player who has not laid down may lay off",
    ),
    ("layoff_with_gap", ("LAYOFF-4", "MELD-RUN-6"), "a Chilean run lay-off may skip ranks"),
    (
        "layoff_own_melds_only",
        ("LAYOFF-2",),
        "Chilean lay-offs are refused on other players' melds",
    ),
    ("trio_capped_at_three", ("MELD-TRIO-4",), "a Chilean trio never grows past 3 cards"),
    ("trio_needs_distinct_suits", ("MELD-TRIO-2",), "a Chilean trio may not repeat a suit"),
    (
        "throw_back_refused",
        ("TURN-5",),
        "a Chilean player may not throw back the discard just taken",
    ),
    ("joker_discard_refused", ("TURN-5",), "a Chilean player may never discard a joker"),
    (
        "opening_twice",
        ("CONTRACT-11", "TURN-8"),
        "a Chilean player may lay the contract down a second time on a later turn",
    ),
    (
        "extra_meld_other_kind",
        ("CONTRACT-8",),
        "a Chilean laying down may add melds of a kind the contract does not ask for",
    ),
    (
        "last_stock_card_recycled",
        ("STOCK-1",),
        "the Chilean stock counts as exhausted one card early",
    ),
    (
        "recycle_needs_three",
        ("STOCK-1", "STOCK-2"),
        "an empty Chilean stock over two discards cancels the round instead of recycling one card",
    ),
    (
        "recycle_keeps_bottom",
        ("STOCK-1",),
        "recycling the Chilean pile keeps the oldest discard face up",
    ),
    (
        "largest_table_first_turn_left",
        ("DEAL-5", "CHILE-PLAYERS-1"),
        "with six Chilean players the dealer's left-hand neighbour moves first",
    ),
    (
        "largest_table_turn_skips",
        ("TURN-1", "CHILE-PLAYERS-1"),
        "with six Chilean players a discard passes the turn two seats on",
    ),
    (
        "largest_table_dealer_stays",
        ("DEAL-2", "CHILE-PLAYERS-1"),
        "with six Chilean players the same dealer deals again",
    ),
    (
        "largest_table_dealt_from_dealer",
        ("DEAL-2", "CHILE-PLAYERS-1"),
        "with six Chilean players the dealing starts with the dealer",
    ),
    (
        "largest_table_last_seat_unscored",
        ("CHILE-SCORE-2", "CHILE-PLAYERS-1"),
        "with six Chilean players the last seat's cards score nothing",
    ),
    ("two_players_dealer_first", ("DEAL-5",), "with two Chilean players the dealer moves first"),
    (
        "two_players_dealer_stays",
        ("DEAL-2",),
        "with two Chilean players the same dealer deals every round",
    ),
    (
        "two_players_totals_replaced",
        ("SCORE-4",),
        "with two Chilean players a round's scores replace the totals",
    ),
)

for _base, _rules, _description in PORTED:
    MUTANTS_OF.port(_base, f"chilean_{_base}", _rules, _description)

# This round's faults: tests/mutants/round4_faults.py and round4_behaviours.py,
# their own mutants and the Argentine ones ported.
from . import round4_behaviours, round4_faults, round5  # noqa: E402

round4_faults.register(MUTANTS_OF)
round4_behaviours.register(MUTANTS_OF)
round5.register(MUTANTS_OF)  # round 5: tests/mutants/round5.py
