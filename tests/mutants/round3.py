"""Mutants of the fault classes that independent mutants (written outside the project)
showed were caught once or not at all.

Registered as Argentine mutants in :data:`tests.mutants.mutants.MUTANTS` when that module is
imported; each later profile ports the ones that hold in it (``ProfileMutants.port``), so a
fault class is checked in every profile's slice:

- throwing back the taken discard refused (DISPUTE-19 ``allowed`` everywhere), discarding a
  joker refused (DISPUTE-08 ``yes``), opening twice, an extra meld of another kind with the
  contract (deal 1: two trios and a run);
- the empty stock at its boundaries: the last stock card, a pile of two discards, which
  discard stays face up;
- a fault only at the profile's largest player count (the first turn, the turn order, the
  deal passing, the dealing, the scoring) or only with two players.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import reference.contracts
import reference.game
import reference.melds
from reference.actions import Action, Discard, Open
from reference.errors import IllegalActionError
from reference.game import GameState, Phase
from reference.melds import Meld, Trio
from reference.profiles import Profile
from reference.reasons import Reason

from .mutants import _ARGENTINE, _patch, mutant

# --- discards ---------------------------------------------------------------------------------


def _refuse_discard(refused: Callable[[GameState, Discard], bool], why: str) -> None:
    def make(original: Callable[..., GameState]) -> Callable[..., GameState]:
        def apply(state: GameState, action: Action) -> GameState:
            if (
                isinstance(action, Discard)
                and state.phase is Phase.PLAY
                and action.player == state.turn
                and refused(state, action)
            ):
                raise IllegalActionError(action, Reason.DOES_NOT_FIT, why)
            return original(state, action)

        return apply

    _patch(reference.game, "apply", make)


@mutant(
    "throw_back_refused",
    ["TURN-5"],
    "the card just taken from the discard pile may not be discarded again that turn",
)
def _throw_back_refused() -> None:
    _refuse_discard(lambda state, action: action.card == state.taken, "mutant: the taken card")


@mutant("joker_discard_refused", ["TURN-5"], "a joker may never be discarded")
def _joker_discard_refused() -> None:
    _refuse_discard(lambda state, action: action.card.is_joker, "mutant: a joker")


# --- openings ----------------------------------------------------------------------------------


@mutant(
    "opening_twice",
    ["CONTRACT-11", "TURN-8"],
    "an opened player may lay the whole contract down again on a later turn",
)
def _opening_twice() -> None:
    def make(original: Callable[..., GameState]) -> Callable[..., GameState]:
        def _open(state: GameState, action: Open) -> GameState:
            player = action.player
            if not state.opened[player] or state.turn_opened:
                return original(state, action)
            fresh = tuple(o and i != player for i, o in enumerate(state.opened))
            after = original(replace(state, opened=fresh), action)
            if after.phase in (Phase.DRAW, Phase.PLAY):
                return replace(after, opened=state.opened)
            return after

        return _open

    _patch(reference.game, "_open", make)


@mutant(
    "extra_meld_other_kind",
    ["CONTRACT-8"],
    "an opening may add melds of a kind its contract does not ask for (deal 1: two trios "
    "and a run)",
)
def _extra_meld_other_kind() -> None:
    def make(original: Callable[..., Reason | None]) -> Callable[..., Reason | None]:
        def check_contract(
            melds: Sequence[Meld], deal_number: int, profile: Profile = _ARGENTINE
        ) -> Reason | None:
            trios, runs = profile.contract(deal_number)
            # Only the kinds the contract names are counted; the others ride along.
            named = [bool(trios if isinstance(m, Trio) else runs) for m in melds]
            counted = [m for m, n in zip(melds, named, strict=True) if n]
            extra = [m for m, n in zip(melds, named, strict=True) if not n]
            if not extra or not counted:
                return original(melds, deal_number, profile)
            reason = original(counted, deal_number, profile)
            if reason is not None:
                return reason
            judged = profile.for_deal(deal_number)
            for meld in extra:
                reason = reference.melds.check_meld(meld, initial=True, profile=judged)
                if reason is not None:
                    return reason
            return None

        return check_contract

    _patch(reference.contracts, "check_contract", make)


# --- the empty stock -----------------------------------------------------------------------------


def _recycled_draw(
    state: GameState, player: int, keep: Sequence[Any], shuffle: Sequence[Any]
) -> GameState:
    """``player`` draws from a new stock made of ``shuffle``; ``keep`` is the discard pile."""
    rng = random.Random(state.seed)
    cards = list(shuffle)
    rng.shuffle(cards)
    return reference.game._draw(
        state, player, cards[0], tuple(cards[1:]), tuple(keep), seed=rng.getrandbits(63)
    )


def _patch_stock_draw(deviate: Callable[[Callable[..., GameState], GameState, int], Any]) -> None:
    def make(original: Callable[..., GameState]) -> Callable[..., GameState]:
        def _draw_stock(state: GameState, player: int) -> GameState:
            changed = deviate(original, state, player)
            return original(state, player) if changed is None else changed

        return _draw_stock

    _patch(reference.game, "_draw_stock", make)


@mutant(
    "last_stock_card_recycled",
    ["STOCK-1"],
    "the stock counts as exhausted one card early: its last card is shuffled in with the "
    "recycled discards",
)
def _last_stock_card_recycled() -> None:
    def deviate(original: Any, state: GameState, player: int) -> GameState | None:
        if len(state.stock) != 1 or len(state.discard) < 2:
            return None
        return _recycled_draw(state, player, state.discard[:1], (*state.stock, *state.discard[1:]))

    _patch_stock_draw(deviate)


@mutant(
    "recycle_needs_three",
    ["STOCK-1", "STOCK-2"],
    "an empty stock over only two discards cancels the deal instead of recycling the one card",
)
def _recycle_needs_three() -> None:
    def deviate(original: Any, state: GameState, player: int) -> GameState | None:
        if state.stock or len(state.discard) != 2:
            return None
        return original(replace(state, discard=state.discard[:1]), player)

    _patch_stock_draw(deviate)


@mutant(
    "recycle_keeps_bottom",
    ["STOCK-1"],
    "recycling keeps the oldest discard face up and shuffles the rest, the top one included",
)
def _recycle_keeps_bottom() -> None:
    def deviate(original: Any, state: GameState, player: int) -> GameState | None:
        if state.stock or len(state.discard) < 3:
            return None
        return _recycled_draw(state, player, state.discard[-1:], state.discard[:-1])

    _patch_stock_draw(deviate)


# --- one player count only ----------------------------------------------------------------------


def _at_largest(state: GameState) -> bool:
    return state.players == state.profile.max_players


def _at_two(state: GameState) -> bool:
    return state.players == 2


def _first_turn_at(applies: Callable[[GameState], bool], offset: int) -> None:
    """When ``applies`` to a fresh deal, the player ``offset`` seats right of the dealer
    moves first (-1: the left-hand neighbour; 0: the dealer)."""

    def make(original: Callable[..., GameState]) -> Callable[..., GameState]:
        def start_deal(*args: Any, **kwargs: Any) -> GameState:
            state = original(*args, **kwargs)
            if not applies(state):
                return state
            return replace(state, turn=(state.dealer + offset) % state.players)

        return start_deal

    def make_fresh(original: Callable[[GameState], bool]) -> Callable[[GameState], bool]:
        # Keep redeal working: "as dealt" now means that player is to move.
        def before_first_draw(state: GameState) -> bool:
            if not applies(state):
                return original(state)
            if state.turn != (state.dealer + offset) % state.players:
                return False
            return original(replace(state, turn=(state.dealer + 1) % state.players))

        return before_first_draw

    _patch(reference.game, "start_deal", make)
    _patch(reference.game, "before_first_draw", make_fresh)


def _dealer_stays(applies: Callable[[GameState], bool]) -> None:
    """When ``applies``, the deal after a close is dealt by the same dealer again."""

    def make(original: Callable[..., GameState]) -> Callable[..., GameState]:
        def next_deal(state: GameState, deck: Sequence[Any], cut: int | None = None) -> GameState:
            if state.phase is not Phase.DEAL_OVER or not applies(state):
                return original(state, deck, cut)
            return original(replace(state, dealer=(state.dealer - 1) % state.players), deck, cut)

        return next_deal

    _patch(reference.game, "next_deal", make)


@mutant(
    "largest_table_first_turn_left",
    ["DEAL-5"],
    "at the profile's largest player count the dealer's left-hand neighbour moves first",
)
def _largest_table_first_turn_left() -> None:
    _first_turn_at(_at_largest, -1)


@mutant(
    "largest_table_turn_skips",
    ["TURN-1", "TURN-5"],
    "at the profile's largest player count a discard passes the turn two seats to the right",
)
def _largest_table_turn_skips() -> None:
    def make(original: Callable[..., GameState]) -> Callable[..., GameState]:
        def _discard(state: GameState, player: int, card: Any) -> GameState:
            after = original(state, player, card)
            if after.phase is not Phase.DRAW or not _at_largest(state):
                return after
            return replace(after, turn=(player + 2) % state.players)

        return _discard

    _patch(reference.game, "_discard", make)


@mutant(
    "largest_table_dealer_stays",
    ["DEAL-2"],
    "at the profile's largest player count the same dealer deals the next deal",
)
def _largest_table_dealer_stays() -> None:
    _dealer_stays(_at_largest)


@mutant(
    "largest_table_dealt_from_dealer",
    ["DEAL-2"],
    "at the profile's largest player count the dealing starts with the dealer, not the "
    "dealer's right-hand neighbour",
)
def _largest_table_dealt_from_dealer() -> None:
    def make(original: Callable[..., GameState]) -> Callable[..., GameState]:
        def start_deal(
            profile: Profile,
            players: int,
            deal_number: int,
            dealer: int,
            totals: Sequence[int],
            deck: Sequence[Any],
            **kwargs: Any,
        ) -> GameState:
            state = original(profile, players, deal_number, dealer, totals, deck, **kwargs)
            if not _at_largest(state):
                return state
            left = (dealer - 1) % players
            shifted = original(profile, players, deal_number, left, totals, deck, **kwargs)
            return replace(state, hands=shifted.hands)

        return start_deal

    _patch(reference.game, "start_deal", make)


@mutant(
    "largest_table_last_seat_unscored",
    ["SCORE-2"],
    "at the profile's largest player count the last seat's cards left in hand score nothing",
)
def _largest_table_last_seat_unscored() -> None:
    def make(original: Callable[..., GameState]) -> Callable[..., GameState]:
        def _deal_over(
            state: GameState, scores: tuple[int, ...], closer: int | None, **changes: Any
        ) -> GameState:
            last = state.players - 1
            if _at_largest(state) and closer != last:
                scores = (*scores[:last], 0)
            return original(state, scores, closer, **changes)

        return _deal_over

    _patch(reference.game, "_deal_over", make)


@mutant(
    "two_players_dealer_first",
    ["DEAL-5"],
    "with two players the dealer takes the first turn",
)
def _two_players_dealer_first() -> None:
    _first_turn_at(_at_two, 0)


@mutant(
    "two_players_dealer_stays",
    ["DEAL-2"],
    "with two players the same dealer deals every deal",
)
def _two_players_dealer_stays() -> None:
    _dealer_stays(_at_two)


@mutant(
    "two_players_totals_replaced",
    ["SCORE-4"],
    "with two players a deal's scores replace the running totals instead of adding to them",
)
def _two_players_totals_replaced() -> None:
    def make(original: Callable[..., GameState]) -> Callable[..., GameState]:
        def _deal_over(
            state: GameState, scores: tuple[int, ...], closer: int | None, **changes: Any
        ) -> GameState:
            if _at_two(state):
                state = replace(state, totals=(0,) * state.players)
            return original(state, scores, closer, **changes)

        return _deal_over

    _patch(reference.game, "_deal_over", make)
