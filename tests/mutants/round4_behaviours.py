"""Mutants of the corpus-strength round 4, part B: behaviours real engines got wrong that no
case graded.

Registered as Argentine mutants in :data:`tests.mutants.mutants.MUTANTS` when that module is
imported; each later profile ports the ones that hold in it (``ProfileMutants.port``,
:data:`PORTED`); the Perla pass is Perla's alone, the only profile whose own option has a
``pass`` (steals):

- a joker upcard left face up when the hands are twelve cards, by an engine that declares
  DISPUTE-09 ``jokers`` and buries it with eleven (in deal 7), or that also declares
  VARIANT-05 ``twelve`` (in every deal);
- a lay-off of the card an inner joker stands for taken as a joker replacement;
- an opening that takes every card held accepted where going out needs a discard, so the
  player is left with nothing to discard and the deal never ends;
- runs listed out of order accepted by an engine that declares ``run_order: engine`` but
  lays them as listed;
- a run lay-off sent without an end (well-formed for an engine that picks the end) refused
  by an engine that declares ``run_ends: engine``;
- a ``pass`` by the Perla player to move refused as if it were not their turn.

A mutant that declares an option or an interface reading plays it honestly everywhere but
in its one fault: the reference passes every case under that declaration (the audit's
promise), so every case it fails is one its fault fails.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import reference.adapter
import reference.adapter_cli
import reference.dealing
import reference.game
import reference.interface
from reference.actions import Action, LayOff, Open, Pass, SwapJoker
from reference.codec import action_from_json
from reference.errors import IllegalActionError
from reference.game import GameState, Phase
from reference.melds import Run, joker_index
from reference.reasons import Reason

if TYPE_CHECKING:
    from .profiled import ProfileMutants

# --- what each later profile registers -----------------------------------------------------------
# Defined before this module imports tests.mutants.mutants, which imports the profile modules:
# each of them calls :func:`register` once its ``MUTANTS_OF`` exists, even while this module
# is still loading. The upcard fault is Pagat's only: the Chilean profile never deals twelve
# but under a house option (DISPUTE-42), and Perla's wild upcard stays; an opening that empties
# the hand goes out in chilean and perla (DISPUTE-45, DISPUTE-71).

#: (profile, Argentine mutant, the profile's rules it breaks, what its engine does wrong).
PORTED: tuple[tuple[str, str, tuple[str, ...], str], ...] = (
    (
        "pagat",
        "joker_upcard_kept_at_twelve",
        ("DEAL-4",),
        "declaring DISPUTE-09 jokers, a Pagat joker upcard stays face up when hands are twelve",
    ),
    (
        "pagat",
        "joker_upcard_kept_dealt_twelve",
        ("DEAL-4",),
        "declaring DISPUTE-09 jokers and VARIANT-05 twelve, a Pagat joker upcard is never buried",
    ),
    (
        "pagat",
        "opening_may_empty_hand",
        ("TURN-9",),
        "a Pagat initial meld that takes every card held is accepted and the hand goes on",
    ),
    *(
        (
            profile,
            "layoff_takes_joker_place",
            ("LAYOFF-4",),
            f"a {profile.capitalize()} lay-off of the card an inner joker stands for takes "
            "the joker's place",
        )
        for profile in ("pagat", "chilean", "perla")
    ),
    *(
        (
            profile,
            "layoff_without_end_refused",
            ("LAYOFF-4",),
            f"declaring run_ends engine, a {profile.capitalize()} run lay-off without an end "
            "is refused",
        )
        for profile in ("pagat", "chilean", "perla")
    ),
    *(
        (
            profile,
            "runs_kept_as_listed",
            ("MELD-RUN-6", "LAYOFF-4"),
            f"declaring run_order engine, a {profile.capitalize()} run listed out of order is "
            "laid as listed",
        )
        for profile in ("pagat", "chilean", "perla")
    ),
)

#: Mutants of one profile alone: (profile, name, rules, description); the patch is
#: ``_OWN_PATCHES[name]``.
OWN: tuple[tuple[str, str, tuple[str, ...], str], ...] = (
    (
        "perla",
        "perla_pass_by_mover_not_your_turn",
        ("TURN-2",),
        "a pass by the Perla player to move is refused with not_your_turn, not draw_first or "
        "already_drew",
    ),
)


def register(of: ProfileMutants) -> None:
    """Register this round's mutants of the profile ``of``: its ports and its own (called by
    chilean.py, pagat.py and perla.py)."""
    for profile, base, rules, description in PORTED:
        if profile == of.name:
            of.port(base, f"{profile}_{base}", rules, description)
    for profile, name, rules, description in OWN:
        if profile == of.name:
            of.mutant(name, rules, description)(functools.partial(_own_patch, name))


def _own_patch(name: str) -> None:
    _OWN_PATCHES[name]()


from .mutants import _patch, mutant  # noqa: E402

# --- declarations ------------------------------------------------------------------------------


def _declare_rulings(rulings: dict[str, str]) -> None:
    """Declare and play these options (as ``--ruling POINT=OPTION`` would), unless the
    command line names the point itself."""

    def make(original: Callable[..., dict[str, str]]) -> Callable[..., dict[str, str]]:
        def parse_rulings(pairs: Sequence[str], path: str | None = None) -> dict[str, str]:
            return {**rulings, **original(pairs, path)}

        return parse_rulings

    _patch(reference.adapter_cli, "parse_rulings", make)


def _declare_interface(pair: str) -> None:
    """Declare and play the interface reading ``pair`` (``--interface FIELD=VALUE``)."""

    def make(original: Callable[..., Any]) -> Callable[..., Any]:
        def parse_interface(pairs: Sequence[str], *args: Any, **kwargs: Any) -> Any:
            field = pair.partition("=")[0]
            named = any(p.partition("=")[0] == field for p in pairs)
            return original(pairs if named else [pair, *pairs], *args, **kwargs)

        return parse_interface

    _patch(reference.interface, "parse_interface", make)


# --- the upcard ----------------------------------------------------------------------------------


def _joker_upcard_stays_at_twelve() -> None:
    """A joker upcard stays face up when the hands are twelve cards, whatever the ruling."""

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


@mutant(
    "joker_upcard_kept_at_twelve",
    ["DEAL-4"],
    "declaring DISPUTE-09 jokers, a joker upcard is buried when hands are eleven cards but "
    "stays face up when they are twelve (deal 7)",
)
def _joker_upcard_kept_at_twelve() -> None:
    _declare_rulings({"DISPUTE-09": "jokers"})
    _joker_upcard_stays_at_twelve()


@mutant(
    "joker_upcard_kept_dealt_twelve",
    ["DEAL-4"],
    "declaring DISPUTE-09 jokers and VARIANT-05 twelve, a joker upcard is never buried: "
    "every hand is twelve cards",
)
def _joker_upcard_kept_dealt_twelve() -> None:
    _declare_rulings({"DISPUTE-09": "jokers", "VARIANT-05": "twelve"})
    _joker_upcard_stays_at_twelve()


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
            player = action.player
            if (
                not isinstance(action, LayOff)
                or action.end is None
                or not 0 <= action.meld < len(state.table)
                or not state.opened[player]
                or state.turn_opened
                or len(state.hands[player]) < 2
                or action.card not in state.hands[player]
            ):
                return original(state, action)
            laid = state.table[action.meld]
            if not isinstance(laid.meld, Run):
                return original(state, action)
            i = joker_index(laid.meld, action.card)
            if i is None:
                return original(state, action)
            cards = [*laid.meld.cards[:i], action.card, *laid.meld.cards[i + 1 :]]
            joker = laid.meld.cards[i]
            grown = Run((joker, *cards) if str(action.end) == "low" else (*cards, joker))
            table = list(state.table)
            table[action.meld] = replace(laid, meld=grown)
            hand = list(state.hands[player])
            hand.remove(action.card)
            return replace(
                state,
                hands=tuple(tuple(hand) if p == player else h for p, h in enumerate(state.hands)),
                table=tuple(table),
                added=(*state.added, action.meld),
            )

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


@mutant(
    "layoff_without_end_refused",
    ["LAYOFF-4"],
    "declaring run_ends engine, a run lay-off sent without an end is refused as not fitting "
    "instead of going to the end where the card fits",
)
def _layoff_without_end_refused() -> None:
    _declare_interface("run_ends=engine")
    original = reference.adapter.Adapter.act

    def act(self: reference.adapter.Adapter, request: dict[str, Any]) -> dict[str, Any]:
        raw = request.get("action")
        game = self.state
        if (
            game is not None
            and isinstance(raw, dict)
            and raw.get("type") == "lay_off"
            and "end" not in raw
            and isinstance(raw.get("meld"), int)
            and 0 <= raw["meld"] < len(game.table)
            and isinstance(game.table[raw["meld"]].meld, Run)
        ):
            return {"accepted": False, **self._reason("does_not_fit"), "state": self._dump()}
        return original(self, request)

    reference.adapter.Adapter.act = act  # type: ignore[method-assign]


# --- Perla's pass ------------------------------------------------------------------------------


def _pass_by_mover_refused_as_out_of_turn() -> None:
    """A pass by the player to move refused with ``not_your_turn`` (Perla's own mutant: the
    only profile whose own option has a pass)."""

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


_OWN_PATCHES: dict[str, Callable[[], None]] = {
    "perla_pass_by_mover_not_your_turn": _pass_by_mover_refused_as_out_of_turn,
}
