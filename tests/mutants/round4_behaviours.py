"""Mutants of the corpus-strength round 4, part B: behaviours real engines got wrong that no
case graded.

Registered as Argentine mutants in :data:`tests.mutants.mutants.MUTANTS` when that module is
imported; the Pagat profile ports the ones that hold in it (``ProfileMutants.port``); the
Perla one is Perla's alone, the only profile whose own option has a ``pass`` (steals):

- a joker upcard left face up when the hands are twelve cards, by an engine that declares
  DISPUTE-09 ``jokers`` and buries it with eleven;
- a lay-off of the card an inner joker stands for taken as a joker replacement;
- an opening that takes every card held accepted where going out needs a discard, so the
  player is left with nothing to discard and the deal never ends;
- runs listed out of order accepted by an engine that declares ``run_order: engine`` but
  lays them as listed;
- a ``pass`` by the Perla player to move refused as if it were not their turn.

A mutant that declares an option or an interface reading plays it honestly everywhere but
in its one fault: the reference passes every case under that declaration (the audit's
promise), so every case it fails is one its fault fails.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import reference.adapter
import reference.dealing
import reference.game
from reference.actions import Action, LayOff, Open, Pass, SwapJoker
from reference.codec import action_from_json
from reference.errors import IllegalActionError
from reference.game import GameState, Phase
from reference.melds import Run, joker_index
from reference.reasons import Reason

from . import pagat, perla
from .mutants import _patch, mutant

# --- declarations ------------------------------------------------------------------------------


def _declare_ruling(point: str, option: str) -> None:
    """Declare and play ``option`` on ``point`` (as ``--ruling POINT=OPTION`` would), unless
    the command line names the point itself."""

    def make(original: Callable[..., dict[str, str]]) -> Callable[..., dict[str, str]]:
        def parse_rulings(pairs: Sequence[str], path: str | None = None) -> dict[str, str]:
            return {point: option, **original(pairs, path)}

        return parse_rulings

    _patch(reference.adapter, "parse_rulings", make)


def _declare_interface(pair: str) -> None:
    """Declare and play the interface reading ``pair`` (``--interface FIELD=VALUE``)."""

    def make(original: Callable[..., Any]) -> Callable[..., Any]:
        def parse_interface(pairs: Sequence[str], *args: Any, **kwargs: Any) -> Any:
            field = pair.partition("=")[0]
            named = any(p.partition("=")[0] == field for p in pairs)
            return original(pairs if named else [pair, *pairs], *args, **kwargs)

        return parse_interface

    _patch(reference.adapter, "parse_interface", make)


# --- the upcard ----------------------------------------------------------------------------------


@mutant(
    "joker_upcard_kept_at_twelve",
    ["DEAL-4"],
    "declaring DISPUTE-09 jokers, a joker upcard is buried when hands are eleven cards but "
    "stays face up when they are twelve",
)
def _joker_upcard_kept_at_twelve() -> None:
    _declare_ruling("DISPUTE-09", "jokers")

    def make(original: Callable[..., GameState]) -> Callable[..., GameState]:
        def start_deal(
            profile: Any,
            players: int,
            deal_number: int,
            dealer: int,
            totals: Sequence[int],
            deck: Sequence[Any],
            **kwargs: Any,
        ) -> GameState:
            state = original(profile, players, deal_number, dealer, totals, deck, **kwargs)
            size = profile.hand_size(deal_number)
            dealt = size * players
            if size != 12 or len(deck) <= dealt or not deck[dealt].is_joker:
                return state
            # The deck as dealt, the joker still on the discard pile.
            return replace(state, discard=(deck[dealt],), stock=tuple(deck[dealt + 1 :]))

        return start_deal

    _patch(reference.dealing, "start_deal", make)


# --- lay-offs ------------------------------------------------------------------------------------


@mutant(
    "layoff_takes_joker_place",
    ["LAYOFF-4", "JOKER-4"],
    "a lay-off of the card an inner joker stands for takes the joker's place, and the joker "
    "moves to the end named",
)
def _layoff_takes_joker_place() -> None:
    def make(original: Callable[..., GameState]) -> Callable[..., GameState]:
        def _meld_action(state: GameState, action: LayOff | SwapJoker) -> GameState:
            if (
                isinstance(action, LayOff)
                and action.end is not None
                and 0 <= action.meld < len(state.table)
            ):
                target = state.table[action.meld].meld
                if isinstance(target, Run) and joker_index(target, action.card) is not None:
                    swap = SwapJoker(action.player, action.meld, action.card, str(action.end))
                    return original(state, swap)
            return original(state, action)

        return _meld_action

    _patch(reference.game, "_meld_action", make)


# --- openings ------------------------------------------------------------------------------------


@mutant(
    "opening_may_empty_hand",
    ["TURN-9"],
    "an opening that takes every card held is accepted where going out needs a discard: the "
    "player has nothing left to discard and the deal goes on",
)
def _opening_may_empty_hand() -> None:
    def make(original: Callable[..., GameState]) -> Callable[..., GameState]:
        def _open(state: GameState, action: Open) -> GameState:
            laid = sum(len(m.cards) for m in action.melds)
            profile = state.profile
            if (
                not profile.discard_to_close
                or state.deal_number in profile.going_out_deals
                or not 0 <= action.player < state.players
                or laid != len(state.hands[action.player])
            ):
                return original(state, action)
            lenient = replace(state, profile=replace(profile, discard_to_close=False))
            return replace(original(lenient, action), profile=profile)

        return _open

    _patch(reference.game, "_open", make)


# --- run order -----------------------------------------------------------------------------------


@mutant(
    "runs_kept_as_listed",
    ["MELD-RUN-1", "LAYOFF-4"],
    "declaring run_order engine, an opening run listed out of order is accepted but laid in "
    "the order listed, so it takes no lay-off at its real ends",
)
def _runs_kept_as_listed() -> None:
    _declare_interface("run_order=engine")
    original = reference.adapter.Adapter.act

    def act(self: reference.adapter.Adapter, request: dict[str, Any]) -> dict[str, Any]:
        answer = original(self, request)
        raw = request.get("action")
        game = self.state
        if not answer.get("accepted") or game is None or not isinstance(raw, dict):
            return answer
        listed = action_from_json(raw)
        if not isinstance(listed, Open) or game.phase not in (Phase.DRAW, Phase.PLAY):
            return answer
        table = list(game.table)
        first = len(table) - len(listed.melds)
        for offset, meld in enumerate(listed.melds):
            if isinstance(meld, Run):
                table[first + offset] = replace(table[first + offset], meld=meld)
        self.state = replace(game, table=tuple(table))
        return {**answer, "state": self._dump()}

    reference.adapter.Adapter.act = act  # type: ignore[method-assign]


# --- Perla's pass ----------------------------------------------------------------------------------


@perla.MUTANTS_OF.mutant(
    "perla_pass_by_mover_not_your_turn",
    ["TURN-2"],
    "a pass by the Perla player to move is refused with not_your_turn, not draw_first or "
    "already_drew",
)
def _perla_pass_by_mover_not_your_turn() -> None:
    def make(original: Callable[..., GameState]) -> Callable[..., GameState]:
        def apply(state: GameState, action: Action) -> GameState:
            if (
                isinstance(action, Pass)
                and state.profile.name == "perla"
                and state.phase in (Phase.DRAW, Phase.PLAY)
                and action.player == state.turn
            ):
                raise IllegalActionError(action, Reason.NOT_YOUR_TURN, "mutant: the mover's pass")
            return original(state, action)

        return apply

    _patch(reference.game, "apply", make)


# --- ported to Pagat, where each fault holds ---------------------------------------------------

#: (Argentine mutant, Pagat rules it breaks, what the Pagat engine does wrong).
PORTED: tuple[tuple[str, tuple[str, ...], str], ...] = (
    (
        "joker_upcard_kept_at_twelve",
        ("DEAL-4",),
        "declaring DISPUTE-09 jokers, a Pagat joker upcard stays face up when hands are twelve",
    ),
    (
        "layoff_takes_joker_place",
        ("LAYOFF-4", "JOKER-4"),
        "a Pagat lay-off of the card an inner joker stands for takes the joker's place",
    ),
    (
        "opening_may_empty_hand",
        ("TURN-9",),
        "a Pagat initial meld that takes every card held is accepted and the hand goes on",
    ),
    (
        "runs_kept_as_listed",
        ("MELD-RUN-1", "LAYOFF-4"),
        "declaring run_order engine, a Pagat escalera listed out of order is laid as listed",
    ),
)

for _base, _rules, _description in PORTED:
    pagat.MUTANTS_OF.port(_base, f"pagat_{_base}", _rules, _description)
