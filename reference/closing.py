"""Scoring a deal that ended: the closer's score, the hands left, the totals and, after
the last deal, the winners (SCORE-1..5, END-1, END-4, END-5; DISPUTE-15, -35, -46, -65, -75)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from reference import trace
from reference.actions import (
    Action,
)
from reference.cards import Card
from reference.deadwood import hand_score, trace_values
from reference.profiles import Profile
from reference.state import _LIVE, GameState, Phase, game_ends


def refuse(state: GameState, action: Action) -> GameState:
    """The state after ``action`` was refused (the adapter answers it with the rejection).

    DISPUTE-35 ``no_change``: the state as it was (TURN-1). ``penalty``: the same, except
    that a real player acting during a live deal owes the profile's penalty for an illegal
    action, added to their score in this deal at its close (SCORE-1); a cancelled deal
    scores nothing, so its penalties lapse (STOCK-2).
    """
    points = state.profile.illegal_action_penalty
    player = getattr(action, "player", None)
    if not points or state.phase not in _LIVE or not isinstance(player, int):
        return state
    if not 0 <= player < state.players:
        return state
    owed = state.owed or (0,) * state.players
    trace.decided("DISPUTE-35")
    return replace(state, owed=tuple(o + points if i == player else o for i, o in enumerate(owed)))


def _scores(
    state: GameState, hands: Sequence[Sequence[Card]], closer: int, *, lowering: bool = False
) -> tuple[int, ...]:
    """Each player's score in a deal ``closer`` closed: the closer the profile's score for
    going out, others what they hold (SCORE-1, SCORE-2), plus any penalty owed (DISPUTE-35
    penalty). ``lowering``: the closer's hand emptied on their laying-down turn, which
    earns perla's going-out bonus (PERLA-SCORE-1, DISPUTE-65)."""
    profile = state.profile
    owed = state.owed or (0,) * state.players
    out = profile.out_score
    if lowering and profile.lowering_out_score is not None:
        out = profile.lowering_out_score
    if trace.active():
        trace_values(profile, [h for i, h in enumerate(hands) if i != closer])
        trace.decided("SCORE-1", "SCORE-5")
        if profile.out_score:
            trace.decided("DISPUTE-46")
        if lowering:
            trace.decided("PERLA-SCORE-1", "DISPUTE-65")
        if any(owed):
            trace.decided("DISPUTE-35")
    return tuple(
        (out if i == closer else hand_score(h, profile)) + owed[i] for i, h in enumerate(hands)
    )


def _close(state: GameState, player: int) -> GameState:
    """The deal closed by ``player``, whose hand a meld action emptied (END-1).

    Only under DISPUTE-07 closes or DISPUTE-13 yes; a discard closes in :func:`_discard`.
    """
    # A meld action emptied the hand: on the laying-down turn when turn_opened holds.
    if state.turn_opened:
        trace.decided(*_opening_closes(state), *_lowering_point(state.profile))
    scores = _scores(state, state.hands, player, lowering=state.turn_opened)
    return _deal_over(state, scores, closer=player, turn=(player + 1) % state.players)


def _deal_over(
    state: GameState, scores: tuple[int, ...], closer: int | None, **changes: Any
) -> GameState:
    """The deal over with these ``scores`` (SCORE-4): totals grow, and after the last deal
    the lowest totals win (END-4); ``changes`` are the closing action's own effects."""
    totals = tuple(t + s for t, s in zip(state.totals, scores, strict=True))
    last = game_ends(state.profile, state.deal_number, totals)
    best = min(totals)
    trace.decided("SCORE-4", "GAME-1")
    if state.deal_number >= state.profile.deals:
        trace.decided("END-4", "GAME-2")
        if sum(1 for t in totals if t == best) > 1:
            trace.decided("END-5", "DISPUTE-15")
    return replace(
        state,
        **changes,
        turn_opened=False,
        phase=Phase.GAME_OVER if last else Phase.DEAL_OVER,
        deal_scores=scores,
        closer=closer,
        totals=totals,
        winners=tuple(i for i, t in enumerate(totals) if t == best) if last else None,
    )


def _end_without_closer(state: GameState) -> GameState:
    """DISPUTE-75 round_ends: the stock ran out; every hand scores, nobody went out."""
    trace.decided("DISPUTE-75", "PERLA-STOCK-1", "PERLA-END-1")
    if trace.active():
        trace_values(state.profile, state.hands)
    # A scored round pays the DISPUTE-35 penalties owed, as a closed deal does (only a
    # cancelled deal, which scores nothing, lets them lapse).
    owed = state.owed or (0,) * state.players
    if any(owed):
        trace.decided("DISPUTE-35")
    scores = tuple(hand_score(h, state.profile) + owed[i] for i, h in enumerate(state.hands))
    return _deal_over(state, scores, closer=None)


def _opening_closes(state: GameState) -> tuple[str, ...]:
    """The rules under which a hand emptied on its laying-down turn closes the deal: END-3
    in deal 6 and END-2 in deal 7 (CHILE-END-3; PERLA-END-3 in rounds 6 and 7)."""
    rules = {6: ("END-3",), 7: ("END-2",)}.get(state.deal_number, ())
    return (*rules, "PERLA-END-3") if rules and state.profile.name == "perla" else rules


def _lowering_point(profile: Profile) -> tuple[str, ...]:
    """DISPUTE-65, where the profile scores going out on the laying-down turn apart."""
    return ("DISPUTE-65",) if profile.rules_on("DISPUTE-65") else ()
