"""Pagat rule mutants: the reference playing seed 002 with one Pagat rule wrong.

Registered in :data:`tests.mutants.mutants.MUTANTS` when that module is imported (it imports
this one last), and listed in :data:`PAGAT` so that ``tests/test_mutants.py`` and
``python -m tests.mutants.report`` run them against the Pagat slice of the corpus
(``--profile pagat``: scenarios/pagat/ and the Argentine cases that list ``pagat``).

As in :mod:`tests.mutants.chilean`, a mutant changes one thing for the ``pagat`` profile
only: a *parameter* mutant serves a copy of the Pagat profile with one field changed; an
*option* mutant plays another option of one disputed point the profile rules on while the
adapter still announces the profile's own options, so the harness grades it against the
profile (an engine that plays another house's rule without declaring it is wrong).

Applying a mutant to a reference without the ``pagat`` profile raises ``RuntimeError``.
"""

from __future__ import annotations

from reference.cards import Rank

from .profiled import ProfileMutants

NAME = "pagat"
"""The profile these mutants deviate from (docs/protocol.md §9)."""

MUTANTS_OF = ProfileMutants(NAME)
PAGAT: set[str] = MUTANTS_OF.names
"""Names of the mutants of this module, run against the Pagat slice of the corpus."""
pagat_mutant = MUTANTS_OF.mutant
reference_plays_pagat = MUTANTS_OF.plays
_pagat = MUTANTS_OF.profile
_swap_pagat = MUTANTS_OF.swap
_play_option = MUTANTS_OF.play_option


# --- players and the pack ------------------------------------------------------------------


@pagat_mutant(
    "pagat_five_players_big_pack",
    ["PAGAT-PLAYERS-1", "CARDS-1"],
    "five Pagat players play with a third pack (160 cards), as the Chilean table does",
)
def _five_players_big_pack() -> None:
    _swap_pagat(big_pack_players=5, big_copies=3, big_jokers=4)


@pagat_mutant(
    "pagat_seventh_hand_dealt_11",
    ["DEAL-3"],
    "the seventh Pagat hand deals 11 cards, not 12",
)
def _seventh_hand_dealt_11() -> None:
    _swap_pagat(hand_sizes=(11,) * 7)


# --- runs ----------------------------------------------------------------------------------


@pagat_mutant(
    "pagat_fourteen_card_runs",
    ["PAGAT-RUN-4"],
    "a Pagat run may hold a low and a high ace, 14 cards, as if DISPUTE-57 were allowed",
)
def _fourteen_card_runs() -> None:
    _play_option("DISPUTE-57", "allowed")


@pagat_mutant(
    "pagat_twelve_card_runs",
    ["PAGAT-RUN-4", "MELD-RUN-2"],
    "a Pagat run stops at 12 cards: no run goes from the low ace to the K, or the 2 to the ace",
)
def _twelve_card_runs() -> None:
    _swap_pagat(max_run_length=12)


@pagat_mutant(
    "pagat_ace_low_only",
    ["MELD-RUN-2", "CARDS-3"],
    "a Pagat ace is only low: J-Q-K-A is refused",
)
def _ace_low_only() -> None:
    _swap_pagat(ace_high=False)


# --- jokers --------------------------------------------------------------------------------


@pagat_mutant(
    "pagat_two_jokers_initial",
    ["JOKER-2"],
    "a meld of the Pagat initial meld may hold two jokers",
)
def _two_jokers_initial() -> None:
    _swap_pagat(initial_joker_limit=2)


@pagat_mutant(
    "pagat_unopened_joker_swap",
    ["JOKER-4", "CONTRACT-10"],
    "a Pagat player who has not met the contract may replace a joker (DISPUTE-59 anyone)",
)
def _unopened_joker_swap() -> None:
    _play_option("DISPUTE-59", "anyone")


# --- going out and scoring -----------------------------------------------------------------


@pagat_mutant(
    "pagat_meld_may_empty_hand",
    ["TURN-9", "END-1"],
    "a Pagat player may go out by melding the last card (DISPUTE-58 melding)",
)
def _meld_may_empty_hand() -> None:
    _play_option("DISPUTE-58", "melding")


@pagat_mutant(
    "pagat_deadwood_unmatched",
    ["SCORE-3"],
    "a Pagat loser scores only the cards that form no meld in hand (DISPUTE-60 unmatched_only)",
)
def _deadwood_unmatched() -> None:
    _play_option("DISPUTE-60", "unmatched_only")


@pagat_mutant("pagat_ace_worth_15", ["SCORE-2"], "a Pagat ace left in hand costs 15, not 20")
def _ace_worth_15() -> None:
    values = list(_pagat().rank_values)
    values[Rank.ACE.value - 1] = 15
    _swap_pagat(rank_values=tuple(values))


@pagat_mutant("pagat_joker_worth_25", ["JOKER-7", "SCORE-2"], "a Pagat joker in hand costs 25")
def _joker_worth_25() -> None:
    _swap_pagat(joker_value=25)


# --- the silences ----------------------------------------------------------------------------


@pagat_mutant(
    "pagat_empty_stock_ends_hand",
    ["STOCK-2"],
    "an empty Pagat stock with nothing to recycle ends the hand, everyone scoring (DISPUTE-75)",
)
def _empty_stock_ends_hand() -> None:
    _play_option("DISPUTE-75", "round_ends")


@pagat_mutant(
    "pagat_discard_out_of_turn",
    ["TURN-3"],
    "a Pagat player may take the top discard out of turn (DISPUTE-53 yes)",
)
def _discard_out_of_turn() -> None:
    _play_option("DISPUTE-53", "yes")


@pagat_mutant(
    "pagat_new_melds_after_opening",
    ["TURN-8"],
    "a Pagat player may lay new melds after the initial meld (DISPUTE-76 allowed)",
)
def _new_melds_after_opening() -> None:
    _play_option("DISPUTE-76", "allowed")


# --- ported faults: Argentine function mutants made in the Pagat profile only ---------------------

#: (Argentine mutant, Pagat rules it breaks, what the Pagat engine does wrong).
PORTED: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("draw_twice", ("TURN-2",), "a second draw in the same Pagat turn is accepted"),
    ("turn_passes_left", ("TURN-1", "TURN-5"), "after a Pagat discard the turn passes left"),
    ("first_turn_dealer", ("DEAL-5",), "the Pagat dealer takes the first turn"),
    ("next_dealer_left", ("DEAL-2",), "after a Pagat hand the deal passes to the left"),
    ("stock_drawn_from_bottom", ("TURN-2",), "a Pagat stock draw takes the bottom card"),
    ("totals_not_added", ("SCORE-4",), "a Pagat hand's scores replace the running totals"),
    (
        "recycle_whole_pile",
        ("STOCK-1", "STOCK-2"),
        "an empty Pagat stock is rebuilt from the whole discard pile, top card included",
    ),
    (
        "cancelled_deal_passes",
        ("STOCK-2",),
        "a cancelled Pagat hand is replayed by the next dealer",
    ),
    (
        "layoff_on_opening_turn",
        ("TURN-6",),
        "a Pagat player may lay off on the turn of the initial meld",
    ),
    (
        "layoff_before_opening",
        ("CONTRACT-10",),
        "a Pagat player who has not met the contract may lay off",
    ),
    ("layoff_with_gap", ("LAYOFF-4", "MELD-RUN-6"), "a Pagat run lay-off may skip ranks"),
    ("layoff_own_melds_only", ("LAYOFF-2",), "Pagat lay-offs are refused on other players' melds"),
    ("trio_capped_at_three", ("MELD-TRIO-4",), "a Pagat trio never grows past 3 cards"),
    ("k_a_2_allowed", ("MELD-RUN-3",), "a Pagat run may turn the K-A-2 corner"),
    ("opening_runs_of_3", ("MELD-RUN-1",), "a Pagat initial meld may hold a run of 3 cards"),
    (
        "closer_scores_hand",
        ("SCORE-1",),
        "the Pagat player who goes out is charged for the last card discarded",
    ),
    (
        "no_game_over_after_7",
        ("END-4", "GAME-1"),
        "closing the seventh Pagat hand ends only the hand",
    ),
    ("joker_to_hand", ("JOKER-5",), "a replaced Pagat joker may be taken into the hand"),
    ("swap_any_suit", ("JOKER-4",), "a Pagat run joker may be replaced by its rank in any suit"),
    ("throw_back_refused", ("TURN-5",), "a Pagat player may not throw back the discard just taken"),
    ("joker_discard_refused", ("TURN-5",), "a Pagat player may never discard a joker"),
    (
        "opening_twice",
        ("CONTRACT-11", "TURN-8"),
        "a Pagat player may meet the contract a second time on a later turn",
    ),
    (
        "extra_meld_other_kind",
        ("CONTRACT-8",),
        "a Pagat initial meld may add melds of a kind the contract does not ask for",
    ),
    (
        "last_stock_card_recycled",
        ("STOCK-1",),
        "the Pagat stock counts as exhausted one card early",
    ),
    (
        "recycle_needs_three",
        ("STOCK-1", "STOCK-2"),
        "an empty Pagat stock over two discards cancels the hand instead of recycling one card",
    ),
    (
        "recycle_keeps_bottom",
        ("STOCK-1",),
        "recycling the Pagat pile keeps the oldest discard face up",
    ),
    (
        "largest_table_first_turn_left",
        ("DEAL-5", "PAGAT-PLAYERS-1"),
        "with five Pagat players the dealer's left-hand neighbour moves first",
    ),
    (
        "largest_table_turn_skips",
        ("TURN-1", "PAGAT-PLAYERS-1"),
        "with five Pagat players a discard passes the turn two seats on",
    ),
    (
        "largest_table_dealer_stays",
        ("DEAL-2", "PAGAT-PLAYERS-1"),
        "with five Pagat players the same dealer deals again",
    ),
    (
        "largest_table_dealt_from_dealer",
        ("DEAL-2", "PAGAT-PLAYERS-1"),
        "with five Pagat players the dealing starts with the dealer",
    ),
    (
        "largest_table_last_seat_unscored",
        ("SCORE-2", "PAGAT-PLAYERS-1"),
        "with five Pagat players the last seat's cards score nothing",
    ),
    ("two_players_dealer_first", ("DEAL-5",), "with two Pagat players the dealer moves first"),
    (
        "two_players_dealer_stays",
        ("DEAL-2",),
        "with two Pagat players the same dealer deals every hand",
    ),
    (
        "two_players_totals_replaced",
        ("SCORE-4",),
        "with two Pagat players a hand's scores replace the totals",
    ),
)

for _base, _rules, _description in PORTED:
    MUTANTS_OF.port(_base, f"pagat_{_base}", _rules, _description)

# This round's faults: tests/mutants/round4_faults.py and round4_behaviours.py,
# their own mutants and the Argentine ones ported.
from . import round4_behaviours, round4_faults, round5  # noqa: E402

round4_faults.register(MUTANTS_OF)
round4_behaviours.register(MUTANTS_OF)
round5.register(MUTANTS_OF)  # round 5: tests/mutants/round5.py
