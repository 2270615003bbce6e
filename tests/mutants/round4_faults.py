"""Mutants of the corpus-strength round 4: faults that independent engines showed were killed
by one case only, or by no case of ``run`` at all.

The Argentine ones register in :data:`tests.mutants.mutants.MUTANTS` when that module is
imported. Each later profile module (chilean.py, pagat.py, perla.py) calls :func:`register`
with its ``MUTANTS_OF``, which ports the Argentine faults that hold there
(``ProfileMutants.port``) and registers that profile's own faults of this round, run against
its slice:

- a run that repeats a rank (4-5-5-6-7 judged as 4-5-6-7), opening refused after a draw from
  the discard pile (DISPUTE-06 ``no`` played undeclared), a discard accepted before the draw;
- Chilean: only a joker upcard buried, a 2 left face up (DISPUTE-09 ``jokers``);
- Pagat: a joker swap whose run is not checked again once the joker has moved (a 14-card run);
- Perla: the steal chance left open past the discard and the next draw, the first dealer
  always player 0 whatever the lot (DISPUTE-74 ``first_seat`` played undeclared).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import reference.game
import reference.melding
import reference.melds
from reference.actions import Action, Discard, DrawDiscard, Open, SwapJoker
from reference.errors import IllegalActionError
from reference.game import GameState, Phase
from reference.melds import Meld, Run
from reference.profiles import Profile
from reference.reasons import Reason

from .mutants import _ARGENTINE, _patch, mutant
from .profiled import ProfileMutants

# --- runs -------------------------------------------------------------------------------------


@mutant(
    "run_repeated_rank",
    ["MELD-RUN-1", "MELD-RUN-6"],
    "a run may repeat a rank: 4S 5S 5S 6S 7S is judged as 4-5-6-7, a run, and a second copy "
    "of a run's end card may be laid off there",
)
def _run_repeated_rank() -> None:
    def make(original: Callable[..., Reason | None]) -> Callable[..., Reason | None]:
        def check_meld(
            meld: Meld, *, initial: bool, profile: Profile = _ARGENTINE
        ) -> Reason | None:
            reason = original(meld, initial=initial, profile=profile)
            if reason is not Reason.RUN_GAP or not isinstance(meld, Run):
                return reason
            collapsed: list[Any] = []
            for card in meld.cards:
                if collapsed and not card.is_joker and card == collapsed[-1]:
                    continue  # the repeated card is skipped when the sequence is judged
                collapsed.append(card)
            if len(collapsed) == len(meld.cards):
                return reason
            masked = reference.melds._masked(tuple(collapsed), profile)
            return reason if reference.melds._sequence_reason(masked) is not None else None

        return check_meld

    _patch(reference.melds, "check_meld", make)

    def make_lay_off(original: Callable[..., Reason | None]) -> Callable[..., Reason | None]:
        def check_lay_off(
            meld: Meld, card: Any, end: str | None, profile: Profile = _ARGENTINE
        ) -> Reason | None:
            reason = original(meld, card, end, profile)
            if reason is None or not isinstance(meld, Run) or card.is_joker:
                return reason
            # A second copy of an end card "extends" the run, as 4-5-6-7-7 reads as 4-5-6-7.
            at_end = meld.cards[0] if end == "low" else meld.cards[-1]
            return None if card == at_end else reason

        return check_lay_off

    _patch(reference.melds, "check_lay_off", make_lay_off)


# --- the turn ---------------------------------------------------------------------------------


@mutant(
    "opening_after_discard_refused",
    ["TURN-2"],
    "a player who drew from the discard pile may not open that turn (DISPUTE-06 no, undeclared)",
)
def _opening_after_discard_refused() -> None:
    def make(original: Callable[..., GameState]) -> Callable[..., GameState]:
        def apply(state: GameState, action: Action) -> GameState:
            if (
                isinstance(action, Open)
                and state.phase is Phase.PLAY
                and action.player == state.turn
                and state.taken is not None
                and not state.opened[action.player]
            ):
                raise IllegalActionError(action, Reason.OPENING_TURN, "mutant: drew the discard")
            return original(state, action)

        return apply

    _patch(reference.game, "apply", make)


@mutant(
    "discard_before_draw",
    ["TURN-2", "TURN-5"],
    "the player to move may discard without drawing first; the turn passes on",
)
def _discard_before_draw() -> None:
    def make(original: Callable[..., GameState]) -> Callable[..., GameState]:
        def apply(state: GameState, action: Action) -> GameState:
            if (
                isinstance(action, Discard)
                and state.phase is Phase.DRAW
                and action.player == state.turn
                and action.card in state.hands[action.player]
                and len(state.hands[action.player]) > 1
            ):
                return reference.game._discard(state, action.player, action.card)
            return original(state, action)

        return apply

    _patch(reference.game, "apply", make)


# --- Chilean ---------------------------------------------------------------------------------


def _upcard_jokers_only(of: ProfileMutants) -> None:
    of.swap(bury_wild_naturals=False)


# --- Pagat ------------------------------------------------------------------------------------


def _swap_unchecked(of: ProfileMutants) -> None:
    of.profile()

    def make(original: Callable[..., GameState]) -> Callable[..., GameState]:
        def _meld_action(state: GameState, action: Any) -> GameState:
            if not isinstance(action, SwapJoker) or state.profile.name != of.name:
                return original(state, action)
            # The check of the run after the joker moved is the only check_meld on this path.
            checked = getattr(reference.melding, "check_meld")  # noqa: B009
            setattr(reference.melding, "check_meld", lambda *a, **k: None)  # noqa: B010
            try:
                return original(state, action)
            finally:
                setattr(reference.melding, "check_meld", checked)  # noqa: B010

        return _meld_action

    _patch(reference.melding, "_meld_action", make)


# --- Perla ------------------------------------------------------------------------------------


def _steal_window_stays_open(of: ProfileMutants) -> None:
    of.profile()

    def make(original: Callable[..., GameState]) -> Callable[..., GameState]:
        def apply(state: GameState, action: Action) -> GameState:
            after = original(state, action)
            if state.profile.name != of.name or not state.passed:
                return after
            if action.player != state.turn:
                return after
            # The player to move's discard, and the next player's draw from the pile, keep
            # the passes made on the card before.
            carried = (isinstance(action, Discard) and after.phase is Phase.DRAW) or (
                isinstance(action, DrawDiscard) and not after.passed
            )
            return replace(after, passed=state.passed) if carried else after

        return apply

    _patch(reference.game, "apply", make)


def _first_dealer_seat_0(of: ProfileMutants) -> None:
    of.play_option("DISPUTE-74", "first_seat")


#: Each profile's own faults of this round: (name, rules, deviation, patch).
OWN: dict[str, tuple[tuple[str, tuple[str, ...], str, Callable[[ProfileMutants], None]], ...]] = {
    "chilean": (
        (
            "chilean_upcard_jokers_only",
            ("CHILE-DEAL-7",),
            "only a joker upcard is buried: a wild 2 turned up stays as the first discard",
            _upcard_jokers_only,
        ),
    ),
    "pagat": (
        (
            "pagat_swap_unchecked",
            ("JOKER-4", "PAGAT-RUN-4"),
            "a Pagat joker swap is not checked again once the joker has moved: a 14-card run "
            "stands",
            _swap_unchecked,
        ),
    ),
    "perla": (
        (
            "perla_steal_window_stays_open",
            ("PERLA-STEAL-1",),
            "the passes on a Perla discard outlive the discard and the next draw: a later "
            "player may steal the new top card without anyone passing on it",
            _steal_window_stays_open,
        ),
        (
            "perla_first_dealer_seat_0",
            ("PERLA-DEAL-1",),
            "player 0 deals the first Perla round whoever draws the lowest card "
            "(DISPUTE-74 first_seat)",
            _first_dealer_seat_0,
        ),
    ),
}

#: The Argentine faults above made in each later profile: (base, rules there, deviation).
PORTED: dict[str, tuple[tuple[str, tuple[str, ...], str], ...]] = {
    "chilean": (
        ("run_repeated_rank", ("MELD-RUN-1", "MELD-RUN-6"), "a Chilean escala may repeat a rank"),
        (
            "opening_after_discard_refused",
            ("TURN-2",),
            "a Chilean player who drew from the discard pile may not lay down that turn",
        ),
        (
            "discard_before_draw",
            ("TURN-2", "TURN-5"),
            "a Chilean player may discard without drawing first",
        ),
    ),
    "pagat": (
        ("run_repeated_rank", ("MELD-RUN-1", "MELD-RUN-6"), "a Pagat run may repeat a rank"),
        (
            "opening_after_discard_refused",
            ("TURN-2",),
            "a Pagat player who drew the upcard may not meet the contract that turn",
        ),
        ("discard_before_draw", ("TURN-2", "TURN-5"), "a Pagat player may discard without drawing"),
    ),
    "perla": (
        (
            "run_repeated_rank",
            ("PERLA-RUN-1", "MELD-RUN-6"),
            "a Perla straight may repeat a rank",
        ),
        (
            "opening_after_discard_refused",
            ("TURN-2",),
            "a Perla player who drew from the discard pile may not lower that turn",
        ),
        ("discard_before_draw", ("TURN-2", "TURN-5"), "a Perla player may discard without drawing"),
    ),
}


def register(of: ProfileMutants) -> None:
    """Register this round's mutants of the profile ``of`` deviates from: its own faults,
    and the Argentine ones above made in that profile only."""
    for name, rules, description, patch in OWN.get(of.name, ()):
        of.mutant(name, rules, description)(lambda patch=patch: patch(of))
    for base, rules, description in PORTED.get(of.name, ()):
        of.port(base, f"{of.name}_{base}", rules, description)
