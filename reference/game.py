"""The turn: draws, discards and :func:`apply`, the judge of the reference engine.

A :class:`GameState` is immutable. :func:`apply` checks an action and returns the next
state, or raises :class:`IllegalActionError` naming the first broken rule in the precedence
of docs/reasons.md; the old state is untouched either way (DISPUTE-35).

The rules are read in sittings: :mod:`reference.state` (the state and what every rule shares),
:mod:`reference.dealing` (deals), this module (the turn, legal moves), :mod:`reference.melding`
(openings, lay-offs, swaps) and :mod:`reference.closing` (scoring a closed deal). Every name
of those modules is importable from here too, as it was before the split.
"""

from __future__ import annotations

import random
from dataclasses import replace

from reference import trace
from reference.actions import (
    SWAP_DESTINATIONS,
    Action,
    Discard,
    DrawDiscard,
    DrawStock,
    End,
    LayOff,
    Open,
    Pass,
    SwapJoker,
)
from reference.cards import Card, sort_cards
from reference.closing import (  # noqa: F401  (re-exported: each name stays importable here)
    _close,
    _deal_over,
    _end_without_closer,
    _lowering_point,
    _opening_closes,
    _scores,
    refuse,
)
from reference.contracts import find_openings
from reference.dealing import (  # noqa: F401  (re-exported: each name stays importable here)
    _cut_totals,
    _next_seed,
    _trace_dealing,
    before_first_draw,
    new_game,
    next_deal,
    redeal,
    shuffled_pack,
    start_deal,
)
from reference.errors import IllegalActionError, InvalidActionError
from reference.melding import (  # noqa: F401  (re-exported: each name stays importable here)
    _REDECLARABLE,
    _as_declared,
    _example,
    _joker_for_visible_card,
    _joker_limit_matters,
    _meld_action,
    _meld_action_redeclaring,
    _new_melds,
    _open,
    _pagat_anyone_swaps,
    _swap_to_hand,
    timing_point,
)
from reference.melds import (
    Run,
    Trio,
    check_lay_off,
    check_swap,
    swappable_wilds,
)
from reference.reasons import Reason
from reference.state import (  # noqa: F401  (re-exported: each name stays importable here)
    _LIVE,
    GameState,
    Phase,
    _count_problems,
    _deck_problems,
    _holds,
    _reject,
    _remove,
    _state_problems,
    _with_hand,
    game_ends,
    profile_rules,
    validate_state,
)

#: The public API of the turn flow, the names of the modules split from here included.
__all__ = [
    "GameState",
    "Phase",
    "apply",
    "before_first_draw",
    "game_ends",
    "is_legal",
    "legal_actions",
    "new_game",
    "next_deal",
    "profile_rules",
    "redeal",
    "refuse",
    "shuffled_pack",
    "start_deal",
    "validate_state",
]


def _check_form(action: object) -> None:
    """Reject input that is not an action at all (malformed, not illegal)."""
    if not isinstance(action, DrawStock | DrawDiscard | Open | LayOff | SwapJoker | Discard | Pass):
        raise InvalidActionError(f"not an action: {action!r}")
    if isinstance(action, Open) and not all(isinstance(m, Trio | Run) for m in action.melds):
        raise InvalidActionError(f"an opening holds only trios and runs: {action!r}")
    if isinstance(action, SwapJoker) and action.to not in SWAP_DESTINATIONS:
        raise InvalidActionError(f"swap_joker 'to' must be low, high or hand: {action.to!r}")


def apply(state: GameState, action: Action) -> GameState:
    """The state after ``action``, checked against every rule.

    :raises IllegalActionError: the action breaks a rule; ``.reason`` is the first failing
        check in the precedence of docs/reasons.md.
    :raises InvalidActionError: the action is malformed (not an action, a run lay-off
        without an end, a swap destination other than low/high/hand).
    """
    _check_form(action)

    # 1. The deal must be live (END-1).
    if state.phase not in _LIVE:
        raise _reject(action, Reason.DEAL_OVER, f"phase is {state.phase.value}")
    # 2. Only the player to move acts (TURN-1); taking the discard out of turn is a buy (TURN-3).
    player = action.player
    profile = state.profile
    if player != state.turn:
        if (
            isinstance(action, DrawDiscard | Pass)
            and profile.plays("DISPUTE-29", "steal")
            and 0 <= player < state.players
        ):
            return _steal(state, action)
        if (
            isinstance(action, DrawDiscard)
            and profile.rules_on("DISPUTE-53", "yes")
            and state.discard
            and 0 <= player < state.players
        ):
            trace.decided("TURN-3", "DISPUTE-53")
            return _take_discard(state, player, points=0)  # DISPUTE-53 yes: no charge
        if isinstance(action, Pass):
            raise _reject(
                action,
                Reason.NOT_YOUR_TURN,
                "DISPUTE-29: no steal is open",
                rules=("TURN-1", "DISPUTE-29"),
            )
        if isinstance(action, DrawDiscard):
            points = ("DISPUTE-29", "DISPUTE-53")
            buy = points if profile.rules_on("DISPUTE-53") else points[:1]
            raise _reject(
                action,
                Reason.BUY_OUT_OF_TURN,
                f"it is player {state.turn}'s turn",
                rules=("TURN-3", *buy),
            )
        raise _reject(action, Reason.NOT_YOUR_TURN, f"it is player {state.turn}'s turn")
    trace.decided("TURN-1")
    if isinstance(action, Pass):
        # The player to move passes on the discard by drawing from the stock (DISPUTE-29).
        drew = state.phase is Phase.PLAY
        reason = Reason.ALREADY_DREW if drew else Reason.DRAW_FIRST
        raise _reject(action, reason, rules=("TURN-2", "DISPUTE-29"))
    # 3. Exactly one draw, first (TURN-2).
    if isinstance(action, DrawStock | DrawDiscard):
        if state.phase is Phase.PLAY:
            raise _reject(action, Reason.ALREADY_DREW)
        trace.decided("TURN-2")
        if isinstance(action, DrawDiscard):
            if not state.discard:
                trace.decided("DISPUTE-36")
                if profile.plays("DISPUTE-36", "stock_instead"):
                    return _draw_stock(state, player)  # DISPUTE-36 stock_instead
                raise _reject(action, Reason.EMPTY_DISCARD, rules=("TURN-2", "DISPUTE-36"))
            top = state.discard[0]
            return replace(_draw(state, player, top, state.stock, state.discard[1:]), taken=top)
        drawn = _draw_stock(state, player)
        if profile.plays("DISPUTE-18", "a") and drawn.phase is Phase.PLAY:
            drawn = _recycle(drawn)  # DISPUTE-18 a: right after the last stock card is drawn
        if profile.plays("DISPUTE-29", "steal") and drawn.phase is Phase.PLAY:
            trace.decided("DISPUTE-29")
            drawn = replace(drawn, passed=(player,))  # DISPUTE-29 steal: the first pass
        return drawn
    if state.phase is Phase.DRAW:
        rules = ("TURN-2", "TURN-5") if isinstance(action, Discard) else ("TURN-2", "TURN-4")
        raise _reject(action, Reason.DRAW_FIRST, rules=rules)
    # 4. Every card used comes from the player's own hand (TURN-10).
    hand = state.hands[player]
    used = [c for m in action.melds for c in m.cards] if isinstance(action, Open) else [action.card]
    if not _holds(hand, used):
        raise _reject(
            action, Reason.CARD_NOT_IN_HAND, f"hand is {' '.join(c.code() for c in hand)}"
        )
    trace.decided("TURN-10")
    if isinstance(action, Discard):
        _check_discard(state, action)
        after = _discard(state, player, action.card)
        if profile.plays("DISPUTE-18", "c") and after.phase is Phase.DRAW:
            after = _recycle(after)  # DISPUTE-18 c: a turn that starts with the stock empty
        return after
    trace.decided("TURN-4")  # melding after the draw, before the discard
    if isinstance(action, Open):
        return _open(state, _as_declared(state, action))
    return _meld_action_redeclaring(state, action)


def _draw(
    state: GameState,
    player: int,
    card: Card,
    stock: tuple[Card, ...],
    discard: tuple[Card, ...],
    seed: int | None = None,
) -> GameState:
    return replace(
        state,
        hands=_with_hand(state, player, (*state.hands[player], card)),
        stock=stock,
        discard=discard,
        phase=Phase.PLAY,
        seed=state.seed if seed is None else seed,
        drawn=True,
        taken=None,
        added=(),
        passed=(),
    )


def _recycle(state: GameState) -> GameState:
    """Shuffle all discards but the top one into an empty stock (STOCK-1), if any.

    Used by DISPUTE-18 options ``a`` and ``c``; option ``b`` recycles inside the stock draw.
    Under DISPUTE-75 ``round_ends`` no stock is ever recycled (docs/rules.md, DISPUTE-18's
    Perla ruling): the draw from the empty stock ends the round instead.
    """
    if state.stock or len(state.discard) <= 1 or profile_rules(state, "DISPUTE-75", "round_ends"):
        return state
    trace.decided("STOCK-1", "DISPUTE-18")
    rng = random.Random(state.seed)
    recycled = list(state.discard[1:])
    rng.shuffle(recycled)
    return replace(
        state, stock=tuple(recycled), discard=state.discard[:1], seed=rng.getrandbits(63)
    )


def _steal(state: GameState, action: DrawDiscard | Pass) -> GameState:
    """DISPUTE-29 steal (TURN-3): take the top discard out of turn, or pass on it.

    After the player to move has drawn from the stock (their pass), the players after them
    in turn order may each pass (``Pass``) or steal the card (``DrawDiscard``), one after the
    other: a player may steal only when every player before them has passed (003). The
    stealer takes the card into hand and 2 points onto their total at once; the steal then
    closes until the next discard.
    """
    player = action.player
    following = (state.passed[-1] + 1) % state.players if state.passed else None
    if player != following or not state.discard:
        if isinstance(action, Pass):
            detail = "DISPUTE-29 steal: not your pass"
            raise _reject(action, Reason.NOT_YOUR_TURN, detail, rules=("TURN-3", "DISPUTE-29"))
        detail = "DISPUTE-29 steal: earlier players first"
        raise _reject(action, Reason.BUY_OUT_OF_TURN, detail, rules=("TURN-3", "DISPUTE-29"))
    trace.decided("TURN-3", "DISPUTE-29")
    if isinstance(action, Pass):
        return replace(state, passed=(*state.passed, player))
    trace.decided("PERLA-STEAL-2")
    return _take_discard(state, player, points=2)


def _take_discard(state: GameState, player: int, points: int) -> GameState:
    """``player`` takes the top discard out of turn and ``points`` onto their total at once
    (DISPUTE-29 steal: 2; DISPUTE-53 yes: none)."""
    totals = tuple(t + points if i == player else t for i, t in enumerate(state.totals))
    return replace(
        state,
        hands=_with_hand(state, player, (*state.hands[player], state.discard[0])),
        discard=state.discard[1:],
        totals=totals,
        passed=(),
    )


def _could_lay_down(state: GameState, player: int) -> bool:
    """DISPUTE-54 compulsory: the player has not laid down and holds a legal laying down."""
    if state.opened[player]:
        return False
    hand = state.hands[player]
    with trace.quiet():  # trying each opening decides nothing
        return any(
            is_legal(state, Open(player, melds))
            for melds in find_openings(hand, state.deal_number, state.profile)
        )


def _draw_stock(state: GameState, player: int) -> GameState:
    if state.stock:
        return _draw(state, player, state.stock[0], state.stock[1:], state.discard)
    if profile_rules(state, "DISPUTE-75", "round_ends"):
        return _end_without_closer(state)  # DISPUTE-75 round_ends: everyone scores
    if state.profile.rules_on("DISPUTE-75"):
        trace.decided("DISPUTE-75")
    if len(state.discard) <= 1:
        # STOCK-2, DISPUTE-17: nothing to recycle; the deal is void, nobody scores.
        trace.decided("STOCK-2", "DISPUTE-17")
        return replace(state, phase=Phase.CANCELLED)
    # STOCK-1, DISPUTE-18: recycle on the attempted draw; the top discard stays put.
    trace.decided("STOCK-1", "DISPUTE-18")
    rng = random.Random(state.seed)
    recycled = list(state.discard[1:])
    rng.shuffle(recycled)
    return _draw(
        state,
        player,
        recycled[0],
        tuple(recycled[1:]),
        state.discard[:1],
        seed=rng.getrandbits(63),
    )


def _discard(state: GameState, player: int, card: Card) -> GameState:
    hand = _remove(state.hands[player], [card])
    hands = _with_hand(state, player, hand)
    discard = (card, *state.discard)
    after = (player + 1) % state.players
    trace.decided("TURN-5")
    if hand:
        return replace(
            state,
            hands=hands,
            discard=discard,
            turn=after,
            phase=Phase.DRAW,
            turn_opened=False,
            passed=(),
        )
    # END-1: the discard that empties the hand closes the deal at once.
    # DISPUTE-65 same_turn: the discard ending the laying-down turn earns the bonus too.
    lowering = state.turn_opened and state.profile.lowering_out_by_discard
    trace.decided("END-1")
    if state.turn_opened:
        trace.decided(*_opening_closes(state), *_lowering_point(state.profile))
    scores = _scores(state, hands, player, lowering=lowering)
    return _deal_over(state, scores, closer=player, hands=hands, discard=discard, turn=after)


def _check_discard(state: GameState, action: Discard) -> None:
    """Refuse a discard of a card the player to move holds, after their draw, where a point
    forbids it (TURN-5). Every point that refuses a discard decides here, so that
    :func:`legal_actions` lists exactly the discards :func:`apply` takes.

    :raises IllegalActionError: naming the point's reason and rules.
    """
    profile = state.profile
    if action.card.is_joker:
        trace.decided("DISPUTE-08")
        if profile.plays("DISPUTE-08", "no"):
            detail = "DISPUTE-08 no: a joker is never discarded"
            raise _reject(action, Reason.DOES_NOT_FIT, detail, rules=("TURN-5", "DISPUTE-08"))
    if action.card == state.taken:
        trace.decided("DISPUTE-19")
        if profile.plays("DISPUTE-19", "forbidden"):
            detail = "DISPUTE-19 forbidden: the taken card"
            raise _reject(action, Reason.DOES_NOT_FIT, detail, rules=("TURN-5", "DISPUTE-19"))
    if profile.rules_on("DISPUTE-54", "compulsory"):
        trace.decided("DISPUTE-54")
        if _could_lay_down(state, action.player):
            detail = "DISPUTE-54 compulsory: lay down first"
            raise _reject(action, Reason.MUST_LAY_DOWN, detail, rules=("TURN-4", "DISPUTE-54"))


def _may_discard(state: GameState, discard: Discard) -> bool:
    """Whether :func:`_check_discard` lets the player to move throw ``discard``'s card."""
    try:
        _check_discard(state, discard)
    except IllegalActionError:
        return False
    return True


def is_legal(state: GameState, action: Action) -> bool:
    """True if :func:`apply` would accept ``action``."""
    try:
        with trace.quiet():  # asking is not deciding
            apply(state, action)
    except (IllegalActionError, InvalidActionError):
        return False
    return True


def legal_actions(state: GameState) -> tuple[Action, ...]:
    """Every legal action, in a fixed order: draws; openings; lay-offs; joker swaps; discards.

    Openings come from the solver in its order (trios first, then runs); an opening listing
    the same melds in another order is legal too but not listed again. A Chilean round 8
    going-out play is listed in the solver's greedy growths of each opening, so some legal
    ones (other ways to spread the extra cards) are not listed; Chilean swaps name their wild.
    Lay-offs go card by card (canonical order), meld by meld, low end before high end.
    """
    with trace.quiet():  # listing moves decides nothing
        return _legal_actions(state)


def _legal_actions(state: GameState) -> tuple[Action, ...]:
    if state.phase not in _LIVE:
        return ()
    player = state.turn
    if state.phase is Phase.DRAW:
        draws: list[Action] = [DrawStock(player)]
        if state.discard:
            draws.append(DrawDiscard(player))
        return tuple(draws)
    hand = state.hands[player]
    distinct = sort_cards(list(set(hand)))
    found: list[Action] = []
    if not state.opened[player]:
        for melds in find_openings(hand, state.deal_number, state.profile):
            opening = Open(player, melds)
            if is_legal(state, opening):
                found.append(opening)
    else:
        _opened_meld_actions(state, player, distinct, found)
    if state.profile.wild_swap == "to_hand":
        found.extend(_chilean_swaps(state, player, distinct))
    if not state.opened[player] and state.profile.rules_on("DISPUTE-59", "anyone"):
        found.extend(_unopened_run_swaps(state, player))
    found.extend(d for d in (Discard(player, c) for c in distinct) if _may_discard(state, d))
    return tuple(found)


def _opened_meld_actions(
    state: GameState, player: int, distinct: tuple[Card, ...], found: list[Action]
) -> None:
    """The lay-offs and run joker replacements of the opened player to move, into ``found``."""
    hand = state.hands[player]
    if _may_lay_off(state, len(hand), "DISPUTE-20"):
        for card in distinct:
            for i, tm in enumerate(state.table):
                ends: tuple[End | None, ...] = (
                    (None,) if isinstance(tm.meld, Trio) else (End.LOW, End.HIGH)
                )
                for end in ends:
                    if check_lay_off(tm.meld, card, end, state.profile) is None:
                        found.append(LayOff(player, card, i, end))
    if _may_lay_off(state, len(hand), timing_point(state.profile, True)):
        for i, tm in enumerate(state.table):
            run = tm.meld
            if not isinstance(run, Run) or state.profile.wild_swap != "run_end":
                continue
            for j, c in enumerate(run.cards):
                if not c.is_joker:
                    continue
                stands_for = run.represented(j)
                if stands_for not in hand:
                    continue
                for to in (End.LOW, End.HIGH):
                    if check_swap(run, stands_for, to.value) is None:
                        swap = SwapJoker(player, i, stands_for, to.value)
                        # The moved joker must leave a run the profile allows (PAGAT-RUN-4).
                        if is_legal(state, swap):
                            found.append(swap)


def _may_lay_off(state: GameState, held: int, point: str) -> bool:
    """Whether :func:`legal_actions` lists lay-offs (or replacements) for the opened player to
    move, who holds ``held`` cards: not on the opening turn (TURN-6) unless ``point`` (DISPUTE-20,
    or DISPUTE-79 for a Pagat replacement) is ``same_turn`` (perla's PERLA-LAYOFF-1), and not
    the last card unless melding may empty the hand (DISPUTE-13)."""
    profile = state.profile
    if state.turn_opened and not profile.plays(point, "same_turn"):
        return False
    return held > 1 or profile.plays("DISPUTE-13", "yes")


def _unopened_run_swaps(state: GameState, player: int) -> list[SwapJoker]:
    """Every legal joker replacement of a player who has not opened (DISPUTE-59 anyone)."""
    found = []
    hand = state.hands[player]
    for i, tm in enumerate(state.table):
        run = tm.meld
        if not isinstance(run, Run):
            continue
        for j, c in enumerate(run.cards):
            if c.is_joker and run.represented(j) in hand:
                for to in (End.LOW, End.HIGH):
                    swap = SwapJoker(player, i, run.represented(j), to.value)
                    if swap not in found and is_legal(state, swap):
                        found.append(swap)
    return found


def _chilean_swaps(state: GameState, player: int, distinct: tuple[Card, ...]) -> list[SwapJoker]:
    """Every legal Chilean wild swap (CHILE-SWAP-1), naming its wild card."""
    found = []
    for i, tm in enumerate(state.table):
        for card in distinct:
            places = swappable_wilds(tm.meld, card, state.profile)
            for wild in sorted({tm.meld.cards[j] for j in places}):
                swap = SwapJoker(player, i, card, "hand", wild=wild)
                if is_legal(state, swap):
                    found.append(swap)
    return found
