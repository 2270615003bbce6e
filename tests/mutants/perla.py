"""Perla rule mutants: the reference playing seed 003 with one Perla rule wrong.

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
import reference.melds
import reference.profiles
from reference.actions import DrawDiscard
from reference.cards import JOKER, Card, Rank
from reference.melds import HIGH_ACE, LOW_ACE

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


# --- the empty stock, the steal, the cut, red aces ---------------------------------------------


@perla_mutant(
    "perla_last_stock_draw_ends_round",
    ["PERLA-STOCK-1", "PERLA-END-1"],
    "the round ends as soon as the last stock card is drawn, not when a player draws from "
    "the empty stock",
)
def _last_stock_draw_ends_round() -> None:
    _perla()

    def make(original: Callable[..., Any]) -> Callable[..., Any]:
        def _draw_stock(state: Any, player: int) -> Any:
            after = original(state, player)
            if state.profile.name == NAME and len(state.stock) == 1:
                return reference.game._end_without_closer(after)
            return after

        return _draw_stock

    _patch(reference.game, "_draw_stock", make)


@perla_mutant(
    "perla_stock_recycles",
    ["PERLA-STOCK-1"],
    "an empty Perla stock is rebuilt from the discards, as in the other profiles (DISPUTE-75 "
    "recycle)",
)
def _stock_recycles() -> None:
    _play_option("DISPUTE-75", "recycle")


@perla_mutant(
    "perla_red_ace_in_place_any_suit",
    ["PERLA-WILD-3", "PERLA-WILD-1"],
    "a red ace at an ace end of a straight counts as a natural ace even in another suit's "
    "straight, which it then breaks",
)
def _red_ace_in_place_any_suit() -> None:
    _perla()

    def make(original: Callable[..., tuple[bool, ...]]) -> Callable[..., tuple[bool, ...]]:
        def _run_wild_flags(cards: tuple[Card, ...], profile: Any) -> tuple[bool, ...]:
            flags = list(original(cards, profile))
            if profile.name != NAME:
                return tuple(flags)
            masked = tuple(JOKER if w else c for c, w in zip(cards, flags, strict=True))
            low = reference.melds._placement(masked)
            if low is None:
                return tuple(flags)
            for i in {0, len(cards) - 1}:
                at_ace_end = low + i in (LOW_ACE, HIGH_ACE)
                if flags[i] and cards[i].rank is Rank.ACE and at_ace_end:
                    flags[i] = False
            return tuple(flags)

        return _run_wild_flags

    _patch(reference.melds, "_run_wild_flags", make)


@perla_mutant(
    "perla_steal_skips_passes",
    ["PERLA-STEAL-1"],
    "any player after the one to move may steal at once, without the players before them passing",
)
def _steal_skips_passes() -> None:
    _perla()

    def make(original: Callable[..., Any]) -> Callable[..., Any]:
        def _steal(state: Any, action: Any) -> Any:
            if (
                state.profile.name == NAME
                and isinstance(action, DrawDiscard)
                and state.passed
                and state.discard
                and action.player not in state.passed
            ):
                return reference.game._take_discard(state, action.player, points=2)
            return original(state, action)

        return _steal

    _patch(reference.game, "_steal", make)


@perla_mutant(
    "perla_cut_bonus_to_dealer",
    ["PERLA-CUT-2"],
    "a perfect cut's -10 goes to the dealer instead of the cutter",
)
def _cut_bonus_to_dealer() -> None:
    _perla()

    def make(original: Callable[..., Any]) -> Callable[..., Any]:
        def _cut_totals(
            profile: Any,
            players: int,
            deal_number: int,
            dealer: int,
            totals: Any,
            cut: int | None,
        ) -> Any:
            if profile.name == NAME:
                dealer = (dealer + 1) % players  # the cutter sits left of this "dealer"
            return original(profile, players, deal_number, dealer, totals, cut)

        return _cut_totals

    _patch(reference.game, "_cut_totals", make)


@perla_mutant(
    "perla_layoff_not_on_lowering_turn",
    ["PERLA-TURN-6", "PERLA-LAYOFF-1"],
    "a Perla player may not lay off on the turn they lower (DISPUTE-20 later_turns)",
)
def _layoff_not_on_lowering_turn() -> None:
    _play_option("DISPUTE-20", "later_turns")


@perla_mutant(
    "perla_bonus_by_melding_only",
    ["PERLA-SCORE-1"],
    "going out by a discard on the lowering turn scores 0: only melding out earns -30",
)
def _bonus_by_melding_only() -> None:
    _play_option("DISPUTE-65", "no_discard")


# --- ported faults: Argentine function mutants made in the Perla profile only ---------------------

#: (Argentine mutant, Perla rules it breaks, what the Perla engine does wrong).
PORTED: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("draw_twice", ("TURN-2",), "a second draw in the same Perla turn is accepted"),
    ("turn_passes_left", ("TURN-1", "TURN-5"), "after a Perla discard the turn passes left"),
    ("first_turn_dealer", ("DEAL-5",), "the Perla dealer takes the first turn"),
    (
        "next_dealer_left",
        ("DEAL-2", "PERLA-DEAL-2"),
        "after a Perla round the deal passes to the left",
    ),
    ("stock_drawn_from_bottom", ("TURN-2",), "a Perla stock draw takes the bottom card"),
    (
        "layoff_before_opening",
        ("PERLA-LAYOFF-1", "CONTRACT-10"),
        "a Perla player who has not lowered may lay off",
    ),
    ("layoff_with_gap", ("LAYOFF-4", "MELD-RUN-6"), "a Perla straight lay-off may skip ranks"),
    ("layoff_own_melds_only", ("LAYOFF-2",), "Perla lay-offs are refused on other players' melds"),
    ("trio_capped_at_three", ("PERLA-TRIO-4",), "a Perla leg never grows past 3 cards"),
    ("k_a_2_allowed", ("MELD-RUN-3",), "a Perla straight may turn the K-A-2 corner"),
    (
        "runs_wrap_when_extended",
        ("MELD-RUN-3", "MELD-RUN-5"),
        "a Perla straight on the table may wrap Q-K-A-2",
    ),
    ("tie_first_player_wins", ("END-5",), "equal lowest Perla totals do not share the win"),
    ("throw_back_refused", ("TURN-5",), "a Perla player may not throw back the discard just taken"),
    ("joker_discard_refused", ("TURN-5",), "a Perla player may never discard a joker"),
    (
        "opening_twice",
        ("CONTRACT-11", "TURN-8"),
        "a Perla player may lower the contract a second time on a later turn",
    ),
    (
        "extra_meld_other_kind",
        ("PERLA-OPEN-1",),
        "a Perla lowering may add melds of a kind the round does not ask for",
    ),
    (
        "largest_table_first_turn_left",
        ("DEAL-5", "PERLA-PLAYERS-1"),
        "with eight Perla players the dealer's left-hand neighbour moves first",
    ),
    (
        "largest_table_turn_skips",
        ("TURN-1", "PERLA-PLAYERS-1"),
        "with eight Perla players a discard passes the turn two seats on",
    ),
    (
        "largest_table_dealer_stays",
        ("DEAL-2", "PERLA-PLAYERS-1"),
        "with eight Perla players the same dealer deals again",
    ),
    (
        "largest_table_dealt_from_dealer",
        ("DEAL-2", "PERLA-PLAYERS-1"),
        "with eight Perla players the dealing starts with the dealer",
    ),
    (
        "largest_table_last_seat_unscored",
        ("PERLA-SCORE-2", "PERLA-PLAYERS-1"),
        "with eight Perla players the last seat's cards score nothing",
    ),
    ("two_players_dealer_first", ("DEAL-5",), "with two Perla players the dealer moves first"),
    (
        "two_players_dealer_stays",
        ("DEAL-2",),
        "with two Perla players the same dealer deals every round",
    ),
    (
        "two_players_totals_replaced",
        ("SCORE-4",),
        "with two Perla players a round's scores replace the totals",
    ),
)

for _base, _rules, _description in PORTED:
    MUTANTS_OF.port(_base, f"perla_{_base}", _rules, _description)

# This round's faults: tests/mutants/round4_faults.py and round4_behaviours.py,
# their own mutants and the Argentine ones ported.
from . import round4_behaviours, round4_faults, round5  # noqa: E402

round4_faults.register(MUTANTS_OF)
round4_behaviours.register(MUTANTS_OF)
round5.register(MUTANTS_OF)  # round 5: tests/mutants/round5.py
