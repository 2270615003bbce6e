"""Pagat rule mutants (issue 16): the reference playing seed 002 with one Pagat rule wrong.

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
