"""Mutants of the corpus's strength: jokers inside every meld rule, counts at
their boundaries, exact reasons, and what the state says after a close.

Registered in :data:`tests.mutants.mutants.MUTANTS` when that module is imported. Each one
has a direct probe in :mod:`tests.mutants.probes` that shows it answers differently from
the reference on one specific input, so none of them is an equivalent mutant.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from itertools import pairwise

import reference.game
import reference.melds
from reference.actions import Open
from reference.cards import Card
from reference.game import GameState, Phase
from reference.melds import HIGH_ACE, LOW_ACE, Meld, Run, Trio
from reference.profiles import Profile
from reference.reasons import Reason

from .mutants import _ARGENTINE, _close, _patch, _reject, _swap_profile, mutant

CheckMeld = Callable[..., Reason | None]


def _wrap_check_meld(judge: Callable[[CheckMeld, Meld, bool, Profile], Reason | None]) -> None:
    """Replace ``check_meld`` by ``judge(original, meld, initial, profile)``."""

    def make(original: CheckMeld) -> CheckMeld:
        def check_meld(
            meld: Meld, *, initial: bool, profile: Profile = _ARGENTINE
        ) -> Reason | None:
            return judge(original, meld, initial, profile)

        return check_meld

    _patch(reference.melds, "check_meld", make)


def _jokers(meld: Meld) -> int:
    return sum(1 for c in meld.cards if c.is_joker)


def _naturals(meld: Meld) -> list[Card]:
    return [c for c in meld.cards if not c.is_joker]


# --- jokers hiding a fault ------------------------------------------------------------------


@mutant(
    "run_suit_by_neighbours",
    ["MELD-RUN-1"],
    "a run's suit is compared only between neighbouring natural cards, so a joker hides a change",
)
def _run_suit_by_neighbours() -> None:
    def judge(original: CheckMeld, meld: Meld, initial: bool, profile: Profile) -> Reason | None:
        reason = original(meld, initial=initial, profile=profile)
        if reason is not Reason.RUN_SUIT or not isinstance(meld, Run) or not _naturals(meld):
            return reason
        cards = meld.cards
        for a, b in pairwise(cards):
            if not a.is_joker and not b.is_joker and a.suit != b.suit:
                return reason
        return reference.melds._sequence_reason(cards)

    _wrap_check_meld(judge)


@mutant(
    "joker_fills_any_gap",
    ["MELD-RUN-6", "JOKER-1"],
    "one joker fills a gap of any width: natural cards rising in one suit plus a joker are a run",
)
def _joker_fills_any_gap() -> None:
    def judge(original: CheckMeld, meld: Meld, initial: bool, profile: Profile) -> Reason | None:
        reason = original(meld, initial=initial, profile=profile)
        if reason is Reason.RUN_GAP and isinstance(meld, Run) and _jokers(meld):
            ranks = [c.rank.value for c in _naturals(meld) if c.rank is not None]
            if all(a < b for a, b in pairwise(ranks)):
                return None
        return reason

    _wrap_check_meld(judge)


@mutant(
    "joker_may_wrap",
    ["MELD-RUN-3", "MELD-RUN-5"],
    "a run holding a joker may turn the K-A-2 corner or pass an ace",
)
def _joker_may_wrap() -> None:
    def judge(original: CheckMeld, meld: Meld, initial: bool, profile: Profile) -> Reason | None:
        reason = original(meld, initial=initial, profile=profile)
        if reason in (Reason.RUN_WRAPS, Reason.BEYOND_ACE) and _jokers(meld):
            return None
        return reason

    _wrap_check_meld(judge)


@mutant(
    "run_size_counts_naturals",
    ["MELD-RUN-1", "JOKER-1"],
    "a joker does not count towards a run's size: an opening run needs 4 natural cards",
)
def _run_size_counts_naturals() -> None:
    def judge(original: CheckMeld, meld: Meld, initial: bool, profile: Profile) -> Reason | None:
        if not isinstance(meld, Run):
            return original(meld, initial=initial, profile=profile)
        naturals = len(_naturals(meld))
        if naturals < 4 or (initial and naturals != 4) or len(meld.cards) > 14:
            return Reason.RUN_SIZE
        if initial and _jokers(meld) > 1:
            return Reason.TOO_MANY_JOKERS
        return original(meld, initial=False, profile=profile)

    _wrap_check_meld(judge)


@mutant(
    "trio_size_counts_naturals",
    ["MELD-TRIO-1", "JOKER-1"],
    "a joker does not count towards a trio's size: an opening trio needs 3 natural cards",
)
def _trio_size_counts_naturals() -> None:
    def judge(original: CheckMeld, meld: Meld, initial: bool, profile: Profile) -> Reason | None:
        if not isinstance(meld, Trio):
            return original(meld, initial=initial, profile=profile)
        naturals = len(_naturals(meld))
        if naturals < 3 or (initial and naturals != 3):
            return Reason.TRIO_SIZE
        if initial and _jokers(meld) > 1:
            return Reason.TOO_MANY_JOKERS
        return original(meld, initial=False, profile=profile)

    _wrap_check_meld(judge)


@mutant(
    "all_joker_run_valid",
    ["MELD-RUN-1"],
    "a table run made only of jokers is accepted (it could be any suit)",
)
def _all_joker_run_valid() -> None:
    def judge(original: CheckMeld, meld: Meld, initial: bool, profile: Profile) -> Reason | None:
        if isinstance(meld, Run) and not initial and not _naturals(meld):
            return None if 4 <= len(meld.cards) <= 14 else Reason.RUN_SIZE
        return original(meld, initial=initial, profile=profile)

    _wrap_check_meld(judge)


@mutant(
    "all_joker_trio_valid",
    ["MELD-TRIO-1", "MELD-TRIO-3"],
    "a table trio made only of jokers is accepted (it could be any rank)",
)
def _all_joker_trio_valid() -> None:
    def judge(original: CheckMeld, meld: Meld, initial: bool, profile: Profile) -> Reason | None:
        if isinstance(meld, Trio) and not initial and not _naturals(meld):
            return None if len(meld.cards) >= 3 else Reason.TRIO_SIZE
        return original(meld, initial=initial, profile=profile)

    _wrap_check_meld(judge)


@mutant(
    "joker_hides_trio_rank",
    ["MELD-TRIO-3", "JOKER-1"],
    "a trio holding a joker may mix natural ranks (the joker 'bridges' them)",
)
def _joker_hides_trio_rank() -> None:
    def judge(original: CheckMeld, meld: Meld, initial: bool, profile: Profile) -> Reason | None:
        reason = original(meld, initial=initial, profile=profile)
        if reason is Reason.TRIO_MIXED_RANKS and _jokers(meld) and _naturals(meld):
            return None
        return reason

    _wrap_check_meld(judge)


# --- blaming the joker ----------------------------------------------------------------------


@mutant(
    "table_joker_blamed",
    ["JOKER-3"],
    "an invalid table meld with two or more jokers is refused as too_many_jokers",
)
def _table_joker_blamed() -> None:
    def judge(original: CheckMeld, meld: Meld, initial: bool, profile: Profile) -> Reason | None:
        reason = original(meld, initial=initial, profile=profile)
        if reason is not None and not initial and _jokers(meld) >= 2:
            return Reason.TOO_MANY_JOKERS
        return reason

    _wrap_check_meld(judge)


@mutant(
    "opening_joker_blamed",
    ["JOKER-2"],
    "an invalid opening meld with its one allowed joker is refused as too_many_jokers",
)
def _opening_joker_blamed() -> None:
    def judge(original: CheckMeld, meld: Meld, initial: bool, profile: Profile) -> Reason | None:
        reason = original(meld, initial=initial, profile=profile)
        if reason is not None and initial and _jokers(meld) == 1:
            return Reason.TOO_MANY_JOKERS
        return reason

    _wrap_check_meld(judge)


# --- lay-offs and swaps next to jokers ------------------------------------------------------


@mutant(
    "layoff_next_after_natural",
    ["LAYOFF-4", "MELD-RUN-6"],
    "a run end is judged from its last natural card: a joker at the end is ignored",
)
def _layoff_next_after_natural() -> None:
    def make(original: Callable[..., Reason | None]) -> Callable[..., Reason | None]:
        def check_lay_off(
            meld: Meld, card: Card, end: str | None, profile: Profile = _ARGENTINE
        ) -> Reason | None:
            if not isinstance(meld, Run) or card.is_joker or end not in ("low", "high"):
                return original(meld, card, end, profile)
            cards = meld.cards
            edge = len(cards) - 1 if end == "high" else 0
            if not cards[edge].is_joker:
                return original(meld, card, end, profile)
            # Strip the end jokers and judge the card against what is left.
            kept = list(cards)
            while kept and kept[edge if end == "low" else -1].is_joker:
                kept.pop(0 if end == "low" else -1)
            if len(kept) < 1:
                return original(meld, card, end, profile)
            stub = Run(tuple(kept))
            try:
                target = stub.low - 1 if end == "low" else stub.high + 1
            except ValueError:
                return original(meld, card, end, profile)
            if LOW_ACE <= target <= HIGH_ACE and card.suit == stub.suit:
                want = reference.melds.rank_at(target)
                return None if card.rank == want else Reason.DOES_NOT_FIT
            return Reason.DOES_NOT_FIT

        return check_lay_off

    _patch(reference.melds, "check_lay_off", make)


@mutant(
    "swap_first_joker",
    ["JOKER-4"],
    "a natural card replaces the run's first joker, whichever joker stands for it",
)
def _swap_first_joker() -> None:
    def make(original: Callable[..., int | None]) -> Callable[..., int | None]:
        def joker_index(run: Run, card: Card) -> int | None:
            if original(run, card) is None:
                return None
            return next(i for i, c in enumerate(run.cards) if c.is_joker)

        return joker_index

    _patch(reference.melds, "joker_index", make)


@mutant(
    "swap_by_rank_only",
    ["JOKER-4"],
    "a joker may be replaced by any card of the rank it stands for, whatever the suit",
)
def _swap_by_rank_only() -> None:
    def make(original: Callable[..., int | None]) -> Callable[..., int | None]:
        def joker_index(run: Run, card: Card) -> int | None:
            if card.is_joker or run.suit is None:
                return original(run, card)
            return original(run, Card(card.rank, run.suit)) if card.rank else None

        return joker_index

    _patch(reference.melds, "joker_index", make)


@mutant(
    "joker_laid_past_ace",
    ["MELD-RUN-5", "JOKER-3"],
    "a joker may be laid off beyond an ace at a run end",
)
def _joker_laid_past_ace() -> None:
    def make(original: Callable[..., Reason | None]) -> Callable[..., Reason | None]:
        def check_lay_off(
            meld: Meld, card: Card, end: str | None, profile: Profile = _ARGENTINE
        ) -> Reason | None:
            reason = original(meld, card, end, profile)
            if reason is Reason.BEYOND_ACE and card.is_joker:
                return None
            return reason

        return check_lay_off

    _patch(reference.melds, "check_lay_off", make)


@mutant(
    "past_ace_does_not_fit",
    ["MELD-RUN-5"],
    "a lay-off beyond an ace is refused as does_not_fit, not as beyond_ace",
)
def _past_ace_does_not_fit() -> None:
    def make(original: Callable[..., Reason | None]) -> Callable[..., Reason | None]:
        def check_lay_off(
            meld: Meld, card: Card, end: str | None, profile: Profile = _ARGENTINE
        ) -> Reason | None:
            reason = original(meld, card, end, profile)
            return Reason.DOES_NOT_FIT if reason is Reason.BEYOND_ACE else reason

        return check_lay_off

    _patch(reference.melds, "check_lay_off", make)


@mutant(
    "swapped_joker_past_ace",
    ["JOKER-6"],
    "a replaced joker may move beyond an ace at the chosen end",
)
def _swapped_joker_past_ace() -> None:
    def make(original: Callable[..., Reason | None]) -> Callable[..., Reason | None]:
        def check_swap(run: Meld, card: Card, to: str) -> Reason | None:
            reason = original(run, card, to)
            return None if reason is Reason.NO_JOKER_POSITION and to in ("low", "high") else reason

        return check_swap

    _patch(reference.melds, "check_swap", make)


# --- counts at their boundaries -------------------------------------------------------------


@mutant(
    "opening_keeps_two",
    ["TURN-9", "END-2", "END-3"],
    "an opening must leave two cards in hand, so opening and closing in one turn is refused",
)
def _opening_keeps_two() -> None:
    def make(original: Callable[..., GameState]) -> Callable[..., GameState]:
        def _open(state: GameState, action: Open) -> GameState:
            laid = sum(len(m.cards) for m in action.melds)
            if not state.opened[action.player] and len(state.hands[action.player]) - laid == 1:
                raise _reject(action, Reason.HAND_WOULD_EMPTY)
            return original(state, action)

        return _open

    _patch(reference.game, "_open", make)


@mutant("game_over_after_6", ["END-4", "GAME-1"], "closing deal 6 ends the game")
def _game_over_after_6() -> None:
    def make(original: Callable[..., GameState]) -> Callable[..., GameState]:
        def _discard(state: GameState, player: int, card: Card) -> GameState:
            after = original(state, player, card)
            if after.phase is not Phase.DEAL_OVER or state.deal_number != 6:
                return after
            best = min(after.totals)
            winners = tuple(i for i, t in enumerate(after.totals) if t == best)
            return replace(after, phase=Phase.GAME_OVER, winners=winners)

        return _discard

    _patch(reference.game, "_discard", make)


@mutant("deal_6_dealt_12", ["DEAL-3"], "deal 6 deals 12 cards, like deal 7")
def _deal_6_dealt_12() -> None:
    _swap_profile(hand_sizes=(11, 11, 11, 11, 11, 12, 12))


@mutant(
    "closer_scores_minus_10",
    ["SCORE-1", "SCORE-5"],
    "the closer is credited -10 points for going out (a bonus of another variant)",
)
def _closer_scores_minus_10() -> None:
    def make(original: Callable[..., GameState]) -> Callable[..., GameState]:
        def _discard(state: GameState, player: int, card: Card) -> GameState:
            after = original(state, player, card)
            if after.closer is None:
                return after
            return _close(replace(after, totals=state.totals), player, -10)

        return _discard

    _patch(reference.game, "_discard", make)


@mutant(
    "turn_opened_kept_after_close",
    ["TURN-6", "END-1"],
    "a player who opens and closes in one turn leaves turn_opened true after the close",
)
def _turn_opened_kept_after_close() -> None:
    def make(original: Callable[..., GameState]) -> Callable[..., GameState]:
        def _discard(state: GameState, player: int, card: Card) -> GameState:
            after = original(state, player, card)
            if after.closer is not None and state.turn_opened:
                return replace(after, turn_opened=True)
            return after

        return _discard

    _patch(reference.game, "_discard", make)
