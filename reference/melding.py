"""Melding on the player's turn: the opening (CONTRACT-8..11, TURN-6, TURN-8, TURN-9), lay-offs
(LAYOFF-1..4) and joker swaps (JOKER-4..6; Chilean wild swaps CHILE-SWAP-1..3; Perla's none,
PERLA-WILD-4), with every disputed point that bears on them."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

from reference import trace
from reference.actions import (
    LayOff,
    Open,
    SwapJoker,
)
from reference.cards import JOKER, Card
from reference.closing import _close
from reference.contracts import check_contract
from reference.errors import IllegalActionError, InvalidActionError
from reference.melds import (
    Meld,
    Run,
    TableMeld,
    Trio,
    arrange_declared,
    check_lay_off,
    check_meld,
    check_swap,
    extend,
    joker_index,
    redeclared,
    swap_joker,
    swap_to_hand,
    swappable_wilds,
)
from reference.profiles import Profile
from reference.reasons import Reason
from reference.state import GameState, _reject, _remove, _with_hand


def _open(state: GameState, action: Open) -> GameState:
    player = action.player
    profile = state.profile
    if state.opened[player]:
        trace.decided("VARIANT-04")
        if profile.plays("VARIANT-04", "allowed") and not state.turn_opened:
            return _new_melds(state, action)
        rules = ("TURN-8", "CONTRACT-11", "VARIANT-04")
        raise _reject(action, Reason.ALREADY_OPENED, rules=rules)  # TURN-8, CONTRACT-11
    if state.taken is not None:
        trace.decided("DISPUTE-06")
        if profile.plays("DISPUTE-06", "no"):
            detail = "DISPUTE-06 no: opening needs a stock draw"
            raise _reject(action, Reason.OPENING_TURN, detail, rules=("TURN-2", "DISPUTE-06"))
    judged = profile
    if any(state.opened) and _joker_limit_matters(action.melds, profile):
        trace.decided("DISPUTE-01")
        if profile.plays("DISPUTE-01", "a"):
            # DISPUTE-01 a: once anyone has opened, no opening is held to one joker per meld.
            judged = replace(profile, initial_joker_limit=None)
    reason = check_contract(action.melds, state.deal_number, judged)
    if reason is not None:
        raise _reject(action, reason)
    checks = trace.active() or profile.plays("DISPUTE-22", "no")
    if checks and _joker_for_visible_card(state, action.melds):
        trace.decided("DISPUTE-22")
        if profile.plays("DISPUTE-22", "no"):
            detail = "DISPUTE-22 no: a joker for a card all on view"
            raise _reject(action, Reason.RUN_GAP, detail, rules=("JOKER-1", "DISPUTE-22"))
    trace.decided("CONTRACT-11")
    hand = state.hands[player]
    laid = [c for m in action.melds for c in m.cards]
    closes = False
    if state.deal_number in profile.going_out_deals:
        # CHILE-ROUND8-2, DISPUTE-39: laid down only as the going-out play, taking every
        # card held, or all but one which the player then discards.
        left = len(hand) - len(laid)
        # A profile without DISPUTE-39 (Argentine DISPUTE-27 eight) needs no discard.
        allowed: tuple[int, ...] = (0,)  # DISPUTE-39 no_discard
        if profile.rules_on("DISPUTE-39", "either"):
            allowed = (0, 1)
        elif profile.rules_on("DISPUTE-39", "discard"):
            allowed = (1,)
        point = ("DISPUTE-39",) if profile.rules_on("DISPUTE-39") else ("DISPUTE-27",)
        if left not in allowed:
            detail = f"{left} cards would stay in hand"
            rules = ("CHILE-ROUND8-2", "CHILE-ROUND8-3", *point)
            raise _reject(action, Reason.NOT_GOING_OUT, detail, rules=rules)
        trace.decided("CHILE-ROUND8-2", *point)
        closes = left == 0
    elif profile.discard_to_close and len(hand) == len(laid):
        trace.decided("DISPUTE-07")
        if not profile.plays("DISPUTE-07", "closes"):
            raise _reject(action, Reason.HAND_WOULD_EMPTY, rules=("TURN-9", "DISPUTE-07"))
        closes = True  # DISPUTE-07 closes: the opening ends the deal without a discard
        trace.decided("END-1", "TURN-9")
    opened = replace(
        state,
        hands=_with_hand(state, player, _remove(hand, laid)),
        table=(*state.table, *(TableMeld(player, m) for m in action.melds)),
        opened=tuple(o or i == player for i, o in enumerate(state.opened)),
        turn_opened=True,
    )
    return _close(opened, player) if closes else opened


def _joker_limit_matters(melds: Sequence[Meld], profile: Profile) -> bool:
    """True if some meld of an opening holds more wild cards than one (DISPUTE-01)."""
    return any(sum(1 for c in m.cards if profile.is_wild(c)) > 1 for m in melds)


def _as_declared(state: GameState, action: Open) -> Open:
    """DISPUTE-30 declared (MELD-RUN-6): each opening run with declared jokers, arranged
    so that every joker sits at the position of the card declared for it.

    Under ``position`` the declarations are not read: the listing fixes every joker.

    :raises IllegalActionError: ``run_gap`` when the declarations make no unbroken run.
    """
    if not state.profile.plays("DISPUTE-30", "declared") or not action.declared:
        return action
    melds: list[Meld] = []
    for meld, declared in zip(action.melds, action.declared, strict=False):
        if isinstance(meld, Run) and declared is not None:
            arranged = arrange_declared(meld, declared)
            if arranged is None:
                detail = "DISPUTE-30 declared: no such run"
                raise _reject(action, Reason.RUN_GAP, detail, rules=("MELD-RUN-6", "DISPUTE-30"))
            trace.decided("DISPUTE-30", "MELD-RUN-6")
            meld = arranged
        melds.append(meld)
    melds.extend(action.melds[len(melds) :])
    return replace(action, melds=tuple(melds))


#: Refusals of a lay-off or replacement that a re-declared end joker may lift (DISPUTE-30).
_REDECLARABLE = frozenset(
    {Reason.DOES_NOT_FIT, Reason.BEYOND_ACE, Reason.NO_JOKER_FOR_CARD, Reason.NO_JOKER_POSITION}
)


def _meld_action_redeclaring(state: GameState, action: LayOff | SwapJoker) -> GameState:
    """A lay-off or joker replacement; under DISPUTE-30 ``declared`` one refused on the run
    as listed is tried again with a joker at one end declared as the card beyond the other
    end (a declaration may change later), and accepted if it then fits."""
    try:
        return _meld_action(state, action)
    except IllegalActionError as refused:
        if not state.profile.plays("DISPUTE-30", "declared") or refused.reason not in _REDECLARABLE:
            raise
        target = state.table[action.meld]
        for run in redeclared(target.meld):
            table = list(state.table)
            table[action.meld] = TableMeld(target.owner, run)
            try:
                after = _meld_action(replace(state, table=tuple(table)), action)
            except IllegalActionError:
                continue
            trace.decided("DISPUTE-30")
            return after
        trace.refused("DISPUTE-30")
        raise


def _joker_for_visible_card(state: GameState, melds: Sequence[Meld]) -> bool:
    """True if a run joker of ``melds`` stands for a card whose copies are all on the table."""
    table = Counter(c for tm in state.table for c in tm.meld.cards)
    table.update(c for m in melds for c in m.cards)
    for meld in melds:
        if isinstance(meld, Run):
            for i, card in enumerate(meld.cards):
                if card.is_joker and table[meld.represented(i)] >= state.profile.copies:
                    return True
    return False


def _new_melds(state: GameState, action: Open) -> GameState:
    """VARIANT-04 allowed (TURN-8): an opened player lays new melds on a later turn."""
    for meld in action.melds:
        reason = check_meld(meld, initial=False, profile=state.profile)
        if reason is not None:
            raise _reject(action, reason)
    hand = state.hands[action.player]
    laid = [c for m in action.melds for c in m.cards]
    closes = False
    if state.profile.discard_to_close and len(hand) == len(laid):
        # New melds are a meld action like a lay-off: DISPUTE-13 says whether they may
        # empty the hand (perla's going out by melding, DISPUTE-71, sets it to yes).
        trace.decided("DISPUTE-13")
        if not state.profile.plays("DISPUTE-13", "yes"):
            raise _reject(action, Reason.HAND_WOULD_EMPTY, rules=("TURN-9", "DISPUTE-13"))
        closes = True
        trace.decided("END-1", "TURN-9")
    trace.decided("TURN-8", "VARIANT-04")
    after = replace(
        state,
        hands=_with_hand(state, action.player, _remove(hand, laid)),
        table=(*state.table, *(TableMeld(action.player, m) for m in action.melds)),
    )
    return _close(after, action.player) if closes else after


def _swap_to_hand(state: GameState, action: SwapJoker) -> GameState:
    """A Chilean wild swap (CHILE-SWAP-1..3, DISPUTE-44): the natural card takes a wild
    card's place in any run or trio, and the wild card goes to the taker's hand."""
    player, profile = action.player, state.profile
    if not state.opened[player]:
        trace.decided("DISPUTE-44")
        if profile.rules_on("DISPUTE-44", "laid_down"):
            # DISPUTE-44 laid_down (CONTRACT-10)
            raise _reject(action, Reason.NOT_OPENED, rules=("CONTRACT-10", "DISPUTE-44"))
    if not 0 <= action.meld < len(state.table):
        raise _reject(action, Reason.NO_SUCH_MELD, f"the table has {len(state.table)} melds")
    if action.to != "hand" or action.to_meld is not None:
        raise _reject(action, Reason.WILD_TO_HAND)  # CHILE-SWAP-2
    target = state.table[action.meld]
    if target.owner != player:
        trace.decided("DISPUTE-21")
        if profile.plays("DISPUTE-21", "own"):
            detail = "DISPUTE-21 own: own melds only"
            rules = ("CHILE-SWAP-1", "DISPUTE-21")
            raise _reject(action, Reason.NO_JOKER_FOR_CARD, detail, rules=rules)
    places = swappable_wilds(target.meld, action.card, profile)
    if action.wild is not None:
        places = tuple(i for i in places if target.meld.cards[i] == action.wild)
    if not places:
        # CHILE-SWAP-1, CHILE-WILD-3
        raise _reject(action, Reason.NO_JOKER_FOR_CARD, rules=("CHILE-SWAP-1",))
    if len({target.meld.cards[i] for i in places}) > 1:
        raise InvalidActionError(f"name the wild card to take (JK or a 2): {action!r}")
    i = places[0]
    wild = target.meld.cards[i]
    trace.decided("CHILE-SWAP-1", "CHILE-SWAP-2", "CHILE-SWAP-3")
    table = list(state.table)
    table[action.meld] = TableMeld(target.owner, swap_to_hand(target.meld, i, action.card))
    hand = (*_remove(state.hands[player], [action.card]), wild)
    return replace(
        state,
        hands=_with_hand(state, player, hand),
        table=tuple(table),
        added=(*state.added, action.meld),
    )


def _meld_action(state: GameState, action: LayOff | SwapJoker) -> GameState:
    player = action.player
    if isinstance(action, SwapJoker) and state.profile.wild_swap == "none":
        # PERLA-WILD-4, DISPUTE-72 none; JOKER-5 for a wild card asked into a hand or meld
        moves = action.to == "hand" or action.to_meld is not None
        rules = ("PERLA-WILD-4", "DISPUTE-72", *(("JOKER-5",) if moves else ()))
        raise _reject(action, Reason.NO_WILD_SWAPS, rules=rules)
    if isinstance(action, SwapJoker) and state.profile.wild_swap == "to_hand":
        return _swap_to_hand(state, action)
    if not state.opened[player]:
        pagat = ("DISPUTE-59",) if isinstance(action, SwapJoker) else ()
        if not _pagat_anyone_swaps(state, action):
            rules = ("CONTRACT-10", *pagat) if state.profile.rules_on("DISPUTE-59") else ()
            raise _reject(action, Reason.NOT_OPENED, rules=rules)  # CONTRACT-10
        trace.decided(*pagat)
    profile = state.profile
    if state.turn_opened:
        point = timing_point(profile, isinstance(action, SwapJoker))
        trace.decided(point)
        if not profile.plays(point, "same_turn"):
            # TURN-6; DISPUTE-20 same_turn (DISPUTE-79 for a Pagat replacement) allows it
            rules = ("TURN-6", point, *_example(state))
            raise _reject(action, Reason.OPENING_TURN, rules=rules)
        trace.decided("TURN-6", "PERLA-LAYOFF-1")
    if not 0 <= action.meld < len(state.table):
        raise _reject(action, Reason.NO_SUCH_MELD, f"the table has {len(state.table)} melds")
    if action.meld in state.added:
        trace.decided("DISPUTE-34")
        if profile.plays("DISPUTE-34", "no"):
            detail = "DISPUTE-34 no: one addition per meld"
            raise _reject(action, Reason.DOES_NOT_FIT, detail, rules=("TURN-7", "DISPUTE-34"))
    target = state.table[action.meld]
    grown: Meld
    to_hand: tuple[Card, ...] = ()
    if isinstance(action, LayOff):
        if isinstance(target.meld, Run) and action.end is None:
            raise InvalidActionError(f"a lay-off on run {action.meld} needs an end: {action!r}")
        end = None if isinstance(target.meld, Trio) else action.end
        reason = check_lay_off(target.meld, action.card, end, state.profile)
        if reason is not None:
            raise _reject(action, reason)
        trace.decided("LAYOFF-1", "LAYOFF-3", "TURN-7", *_example(state))
        if target.owner != player:
            trace.decided("LAYOFF-2")
        grown = extend(target.meld, action.card, end)
    elif isinstance(target.meld, Trio) and profile.plays("DISPUTE-02", "b"):
        # DISPUTE-02 b: a natural card of the rank replaces a trio's joker, which the
        # replacer takes into hand.
        trio = target.meld
        if action.to != "hand":
            raise _reject(action, Reason.NOT_A_RUN, rules=("JOKER-4", "DISPUTE-02"))
        if action.card.is_joker or action.card.rank != trio.rank or not trio.has_joker():
            raise _reject(action, Reason.NO_JOKER_FOR_CARD, rules=("JOKER-4", "DISPUTE-02"))
        trace.decided("DISPUTE-02", "JOKER-4")
        rest = list(trio.cards)
        rest.remove(next(c for c in trio.cards if c.is_joker))
        grown, to_hand = Trio((*rest, action.card)), (JOKER,)
    else:
        reason = check_swap(target.meld, action.card, action.to)
        keeps = profile.plays("DISPUTE-28", "taker_keeps") or profile.plays("DISPUTE-11", "c")
        if reason is Reason.JOKER_TO_HAND:
            trace.decided("DISPUTE-28", "DISPUTE-11")
            if keeps:
                reason, to_hand = None, (JOKER,)  # DISPUTE-28 taker_keeps, DISPUTE-11 c
        if reason is Reason.NOT_A_RUN:
            raise _reject(action, reason, rules=("JOKER-4", "DISPUTE-02"))
        if reason is Reason.JOKER_TO_HAND:
            raise _reject(action, reason, rules=("JOKER-5", "DISPUTE-11", "DISPUTE-28"))
        if reason is Reason.NO_JOKER_FOR_CARD:
            raise _reject(action, reason)
        if action.to_meld is not None and action.to_meld != action.meld:
            raise _reject(action, Reason.JOKER_TO_OTHER_MELD, rules=("JOKER-5", "DISPUTE-11"))
        if reason is not None:
            raise _reject(action, reason)
        if target.owner != player:
            trace.decided("DISPUTE-21")
            if profile.plays("DISPUTE-21", "own"):
                detail = "DISPUTE-21 own: own runs only"
                rules = ("JOKER-4", "DISPUTE-21")
                raise _reject(action, Reason.NO_JOKER_FOR_CARD, detail, rules=rules)
        assert isinstance(target.meld, Run)  # check_swap said so
        if to_hand:
            i = joker_index(target.meld, action.card)
            assert i is not None  # check_swap found it
            grown = Run((*target.meld.cards[:i], action.card, *target.meld.cards[i + 1 :]))
        else:
            grown = swap_joker(target.meld, action.card, action.to)
            # The moved joker must leave a run the profile allows: in pagat no run holds a
            # low and a high ace (PAGAT-RUN-4, DISPUTE-57), so a 13-card run has no free end.
            moved = check_meld(grown, initial=False, profile=profile)
            if moved is not None:
                raise _reject(action, moved, rules=(moved.rule, "JOKER-6"))
            trace.decided("JOKER-6", "DISPUTE-11")
        trace.decided("JOKER-4", *(() if to_hand else ("JOKER-5",)))
    hand = state.hands[player]
    closes = False
    if state.profile.discard_to_close and len(hand) == 1 and not to_hand:
        trace.decided("DISPUTE-13")
        if not profile.plays("DISPUTE-13", "yes"):
            raise _reject(action, Reason.HAND_WOULD_EMPTY, rules=("TURN-9", "DISPUTE-13"))
        closes = True  # DISPUTE-13 yes: melding the last card goes out
        trace.decided("END-1", "TURN-9")
    table = list(state.table)
    table[action.meld] = TableMeld(target.owner, grown)
    after = replace(
        state,
        hands=_with_hand(state, player, (*_remove(hand, [action.card]), *to_hand)),
        table=tuple(table),
        added=(*state.added, action.meld),
    )
    return _close(after, player) if closes else after


def timing_point(profile: Profile, replacement: bool) -> str:
    """The point that says whether a lay-off (or, with ``replacement``, a joker replacement)
    may follow the opening on the same turn: DISPUTE-20, except a Pagat replacement, whose
    turn seed 002 leaves open (DISPUTE-79)."""
    return "DISPUTE-79" if replacement and profile.rules_on("DISPUTE-79") else "DISPUTE-20"


def _example(state: GameState) -> tuple[str, ...]:
    """EXAMPLE-1 (000 §10), for a deal-2 lay-off: refused on the opening turn, allowed on a
    later one."""
    return ("EXAMPLE-1",) if state.deal_number == 2 and state.profile.name == "argentine" else ()


def _pagat_anyone_swaps(state: GameState, action: LayOff | SwapJoker) -> bool:
    """DISPUTE-59 anyone (seed 002 L24): a player who has not met the contract may still
    replace a run's joker with the natural card it stands for (JOKER-4)."""
    return isinstance(action, SwapJoker) and state.profile.rules_on("DISPUTE-59", "anyone")
