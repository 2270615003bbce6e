"""Mutants of the corpus-strength round 5: what an author's own probes caught in a newcomer's
engine before the suite did.

Registered as Argentine mutants in :data:`tests.mutants.mutants.MUTANTS` when that module is
imported; each later profile registers its own and ports the Argentine ones that hold there
(:func:`register`, called from chilean.py, pagat.py and perla.py):

- impossible requests taken (the hostile probes of conformance/laws/hostile/impossible.py):
  a deck that is not the pack dealt, a player count outside the profile answered
  ``unsupported``, an impossible ``load_state`` smoothed over and loaded;
- ``turn_opened`` dropped by ``load_state`` (read back false);
- a redeal judged by the look of the table, accepted after a round of take-and-throw-back;
- a 13-card opening run, and an opening trio past four cards, let through the size check;
- Pagat: a 14th card on a run refused with ``beyond_ace``.

The mutants in :data:`HOSTILE` deviate only on requests the corpus never sends: the kill
matrix grades them with the hostile probes too (``run --hostile``), each probe its own setup
(tests/mutants/harness.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import reference.adapter
import reference.dealing
import reference.melds
import reference.state
from reference.game import GameState, Phase
from reference.melds import Meld, Run
from reference.profiles import Profile
from reference.reasons import Reason

from .mutants import _ARGENTINE, _patch, mutant

if TYPE_CHECKING:
    from .profiled import ProfileMutants

#: The mutants whose only fault is in answering impossible requests: graded with the hostile
#: probes as well as the corpus.
HOSTILE: set[str] = set()

_PHASES = {phase.value for phase in Phase}


# --- impossible requests ----------------------------------------------------------------------


def _deck_unchecked(profile: str | None) -> None:
    def make(original: Callable[..., list[str]]) -> Callable[..., list[str]]:
        def _deck_problems(deck_profile: Profile, deck: Any, players: int) -> list[str]:
            if profile is None or deck_profile.name == profile:
                return []  # any deck is dealt: a third KD, 107 cards, a fifth joker
            return original(deck_profile, deck, players)

        return _deck_problems

    _patch(reference.state, "_deck_problems", make)


def _outside_unsupported(profile: str | None) -> None:
    adapter = reference.adapter.Adapter

    def guarded(op: Callable[..., dict[str, Any]]) -> Callable[..., dict[str, Any]]:
        def answer(self: Any, request: dict[str, Any]) -> dict[str, Any]:
            name, players = request.get("profile"), request.get("players")
            served = self.profiles.get(name) if isinstance(name, str) else None
            if (
                served is not None
                and (profile is None or name == profile)
                and isinstance(players, int)
                and not served.min_players <= players <= served.max_players
            ):
                raise reference.adapter.Unsupported(f"{players} players: not played")
            return op(self, request)

        return answer

    adapter.start_deal = guarded(adapter.start_deal)  # type: ignore[method-assign]
    adapter.new_game = guarded(adapter.new_game)  # type: ignore[method-assign]


def _mended(state: dict[str, Any]) -> dict[str, Any]:
    """An impossible state smoothed over, as a careless loader reads it."""
    players = state.get("players")
    if not isinstance(players, int) or players < 1:
        return state
    mended = dict(state)
    if mended.get("phase") not in _PHASES:
        mended["phase"] = "draw"
    for seat in ("turn", "dealer"):
        if isinstance(mended.get(seat), int):
            mended[seat] %= players
    opened = mended.get("opened")
    if isinstance(opened, list):
        mended["opened"] = (opened + [False] * players)[:players]
    turn = mended.get("turn")
    if mended.get("phase") == "draw" or (
        isinstance(turn, int) and isinstance(opened, list) and not mended["opened"][turn]
    ):
        mended["turn_opened"] = False
    return mended


def _impossible_loaded(profile: str | None) -> None:
    adapter = reference.adapter.Adapter
    original = adapter.load_state

    def load_state(self: Any, request: dict[str, Any]) -> dict[str, Any]:
        state = request.get("state")
        if isinstance(state, dict) and (profile is None or state.get("profile") == profile):
            request = {**request, "state": _mended(state)}
        return original(self, request)

    adapter.load_state = load_state  # type: ignore[method-assign]


def _hostile(name: str, rules: list[str], description: str) -> Callable[[Any], Any]:
    HOSTILE.add(name)
    return mutant(name, rules, description)


@_hostile(
    "deck_not_pack_dealt",
    ["CARDS-1", "DEAL-3"],
    "start_deal, next_deal and redeal deal a deck that is not the pack: a third copy of a "
    "card, a card missing, a fifth joker",
)
def _deck_not_pack_dealt() -> None:
    _deck_unchecked(None)


@_hostile(
    "players_outside_unsupported",
    ["CARDS-1"],
    "a player count outside the profile (1, or 5 in argentine) is answered unsupported, "
    "not bad_request",
)
def _players_outside_unsupported() -> None:
    _outside_unsupported(None)


@_hostile(
    "impossible_state_loaded",
    ["TURN-1", "TURN-6"],
    "load_state smooths an impossible state over: an unknown phase read as draw, a turn or "
    "dealer past the players wrapped, turn_opened dropped where it cannot be, opened cut or "
    "padded",
)
def _impossible_state_loaded() -> None:
    _impossible_loaded(None)


# --- state a load must carry ------------------------------------------------------------------


def _turn_opened_dropped(profile: str | None) -> None:
    adapter = reference.adapter.Adapter
    original = adapter.load_state

    def load_state(self: Any, request: dict[str, Any]) -> dict[str, Any]:
        answer = original(self, request)
        game = self.state
        if game is not None and (profile is None or game.profile.name == profile):
            self.state = replace(game, turn_opened=False)
            answer = {"state": self._dump()}
        return answer

    adapter.load_state = load_state  # type: ignore[method-assign]


@mutant(
    "turn_opened_dropped_on_load",
    ["TURN-6"],
    "load_state reads turn_opened back as false: a player who opened this turn may lay off at once",
)
def _turn_opened_dropped_on_load() -> None:
    _turn_opened_dropped(None)


# --- redeal -----------------------------------------------------------------------------------


@mutant(
    "redeal_after_throw_back",
    ["DEAL-6"],
    "a redeal is judged by the table alone: after every player took the upcard and threw it "
    "back the deal looks as dealt, and the redeal is accepted",
)
def _redeal_after_throw_back() -> None:
    def make(original: Callable[[GameState], bool]) -> Callable[[GameState], bool]:
        def before_first_draw(state: GameState) -> bool:
            # Nothing remembered of the draws: whose turn, and who drew, are not consulted.
            return (
                state.phase is Phase.DRAW
                and not state.table
                and not any(state.opened)
                and len(state.discard) <= 1
            )

        return before_first_draw

    _patch(reference.dealing, "before_first_draw", make)


# --- opening melds at their longest -----------------------------------------------------------


def _check_meld_patch(
    wrap: Callable[[Meld, bool, Profile, Reason | None], Reason | None],
) -> None:
    def make(original: Callable[..., Reason | None]) -> Callable[..., Reason | None]:
        def check_meld(
            meld: Meld, *, initial: bool, profile: Profile = _ARGENTINE
        ) -> Reason | None:
            return wrap(meld, initial, profile, original(meld, initial=initial, profile=profile))

        return check_meld

    _patch(reference.melds, "check_meld", make)


@mutant(
    "opening_run_13_accepted",
    ["MELD-RUN-1", "CONTRACT-8"],
    "the opening size check lets a 13-card run through (it refuses 5 to 12 cards only)",
)
def _opening_run_13_accepted() -> None:
    def wrap(meld: Meld, initial: bool, profile: Profile, reason: Reason | None) -> Reason | None:
        if (
            initial
            and reason is Reason.RUN_SIZE
            and isinstance(meld, Run)
            and len(meld.cards) == 13
        ):
            return None
        return reason

    _check_meld_patch(wrap)


@mutant(
    "opening_trio_past_four_accepted",
    ["MELD-TRIO-1", "CONTRACT-8"],
    "the opening size check refuses a four-card trio only: five cards or more are laid",
)
def _opening_trio_past_four_accepted() -> None:
    def wrap(meld: Meld, initial: bool, profile: Profile, reason: Reason | None) -> Reason | None:
        if initial and reason is Reason.TRIO_SIZE and len(meld.cards) >= 5:
            return None
        return reason

    _check_meld_patch(wrap)


# --- Pagat: the 14th card ---------------------------------------------------------------------


def _fourteenth_beyond_ace(of: ProfileMutants) -> None:
    of.profile()

    def wrong(reason: Reason | None, length: int, profile: Profile) -> Reason | None:
        if (
            profile.name == of.name
            and length >= 14
            and reason
            in (
                Reason.RUN_SIZE,
                Reason.DOES_NOT_FIT,
            )
        ):
            return Reason.BEYOND_ACE
        return reason

    def wrap(meld: Meld, initial: bool, profile: Profile, reason: Reason | None) -> Reason | None:
        return wrong(reason, len(meld.cards), profile) if isinstance(meld, Run) else reason

    _check_meld_patch(wrap)

    def make(original: Callable[..., Reason | None]) -> Callable[..., Reason | None]:
        def check_lay_off(
            meld: Meld, card: Any, end: str | None, profile: Profile = _ARGENTINE
        ) -> Reason | None:
            reason = original(meld, card, end, profile)
            if not isinstance(meld, Run):
                return reason
            return wrong(reason, len(meld.cards) + 1, profile)

        return check_lay_off

    _patch(reference.melds, "check_lay_off", make)


# --- what each later profile registers --------------------------------------------------------

#: Each profile's own faults of this round: (name, rules, deviation, patch, hostile).
OWN: dict[
    str, tuple[tuple[str, tuple[str, ...], str, Callable[[ProfileMutants], None], bool], ...]
] = {
    "pagat": (
        (
            "pagat_fourteenth_beyond_ace",
            ("PAGAT-RUN-4", "LAYOFF-4"),
            "a 14th card on a Pagat run is refused as beyond_ace: the run, the lay-off and the "
            "joker moved past the 13th",
            _fourteenth_beyond_ace,
            False,
        ),
        (
            "pagat_deck_not_pack_dealt",
            ("CARDS-1", "DEAL-3"),
            "a Pagat deal op deals a deck that is not the pack",
            lambda of: _deck_unchecked(of.name),
            True,
        ),
        (
            "pagat_players_outside_unsupported",
            ("PAGAT-PLAYERS-1",),
            "players: 6 in pagat is answered unsupported, not bad_request",
            lambda of: _outside_unsupported(of.name),
            True,
        ),
        (
            "pagat_impossible_state_loaded",
            ("TURN-1", "TURN-6"),
            "a Pagat load_state smooths an impossible state over (phase bogus, turn 9, dealer 5, "
            "turn_opened where it cannot be)",
            lambda of: _impossible_loaded(of.name),
            True,
        ),
    ),
}

#: The Argentine faults above made in each later profile: (base, rules there, deviation).
PORTED: dict[str, tuple[tuple[str, tuple[str, ...], str], ...]] = {
    "chilean": (
        ("redeal_after_throw_back", ("DEAL-6",), "a Chilean redeal is judged by the table alone"),
        (
            "opening_run_13_accepted",
            ("MELD-RUN-1", "CONTRACT-8"),
            "a 13-card escala passes the Chilean laying-down size check",
        ),
    ),
    "pagat": (
        ("redeal_after_throw_back", ("DEAL-6",), "a Pagat redeal is judged by the table alone"),
        (
            "opening_run_13_accepted",
            ("MELD-RUN-1", "CONTRACT-8"),
            "a 13-card run passes the Pagat opening size check",
        ),
        (
            "opening_trio_past_four_accepted",
            ("MELD-TRIO-1", "CONTRACT-8"),
            "a Pagat opening trio of five cards or more is laid",
        ),
    ),
    "perla": (
        ("redeal_after_throw_back", ("DEAL-6",), "a Perla redeal is judged by the table alone"),
    ),
}

#: Profiles whose load_state drops turn_opened (a patch of the adapter: not portable).
_DROPPED = {
    "chilean": "a Chilean load_state reads turn_opened back as false",
    "pagat": "a Pagat load_state reads turn_opened back as false",
    "perla": "a Perla load_state reads turn_opened back as false: the lowering turn's bonus "
    "is lost",
}


def register(of: ProfileMutants) -> None:
    """Register this round's mutants of the profile ``of``: its own faults, the Argentine ones
    above made in that profile only, and its ``turn_opened`` dropped on load."""
    for name, rules, description, patch, hostile in OWN.get(of.name, ()):
        if hostile:
            HOSTILE.add(name)
        of.mutant(name, rules, description)(lambda patch=patch: patch(of))
    for base, rules, description in PORTED.get(of.name, ()):
        of.port(base, f"{of.name}_{base}", rules, description)
    if of.name in _DROPPED:
        rule = "PERLA-SCORE-1" if of.name == "perla" else "TURN-6"
        of.mutant(f"{of.name}_turn_opened_dropped_on_load", (rule,), _DROPPED[of.name])(
            lambda: _turn_opened_dropped(of.name)
        )
