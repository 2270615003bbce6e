"""Rule mutants: each one deliberate deviation from the rules that a real engine might make.

A mutant patches the reference engine *in-process*. The reference modules import names from
each other (``from reference.melds import check_meld``), so replacing a function in its home
module alone would leave stale copies behind; :func:`_replace_everywhere` swaps every binding
of the original object in every loaded ``reference`` module (``reference.adapter`` included)
and in function defaults, so the whole engine sees one consistent deviation.

Mutants must stay well-behaved adapters: they answer every request, and a rejection still
carries a reason from docs/reasons.md, so a scenario kills a mutant by *failing* (a wrong
outcome), not by crashing it.

Use :func:`apply_mutant` once per process, before serving requests.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from types import FunctionType, MappingProxyType, ModuleType
from typing import Any, TypeVar

import reference.adapter
import reference.codec
import reference.contracts
import reference.game
import reference.melds
import reference.play
import reference.profiles
import reference.scoring
import reference.solver
from reference.actions import Action, DrawDiscard, DrawStock, LayOff, Open, SwapJoker
from reference.cards import JOKER, Card, Rank, Suit
from reference.errors import IllegalActionError
from reference.game import GameState, Phase
from reference.melds import HIGH_ACE, LOW_ACE, Meld, Run, TableMeld, Trio
from reference.profiles import Profile
from reference.reasons import Reason

F = TypeVar("F", bound=Callable[..., Any])

_LIVE = (Phase.DRAW, Phase.PLAY)
# The unmutated profile, as the default of wrapped functions that take a profile.
_ARGENTINE = reference.profiles.ARGENTINE


@dataclass(frozen=True)
class Mutant:
    """One deliberate rule deviation of the reference engine."""

    name: str
    rules: tuple[str, ...]
    """The rule IDs (docs/rules.md) the deviation breaks."""
    description: str
    """One line: what the mutated engine does wrong."""
    patch: Callable[[], None]
    """Applies the deviation to the loaded reference modules (once per process)."""


MUTANTS: dict[str, Mutant] = {}
_applied: list[str] = []


def mutant(name: str, rules: Iterable[str], description: str) -> Callable[[F], F]:
    """Register the decorated zero-argument patch function as mutant ``name``."""

    def register(patch: F) -> F:
        if name in MUTANTS:
            raise ValueError(f"mutant {name!r} defined twice")
        MUTANTS[name] = Mutant(name, tuple(rules), description, patch)
        return patch

    return register


def apply_mutant(name: str) -> Mutant:
    """Patch the reference engine with mutant ``name`` and return it.

    :raises KeyError: for an unknown name.
    :raises RuntimeError: if a mutant was already applied in this process (patches would
        stack and the result would no longer be one deviation).
    """
    chosen = MUTANTS[name]
    if _applied:
        raise RuntimeError(f"mutant {_applied[0]!r} is already applied in this process")
    chosen.patch()
    _applied.append(name)
    return chosen


# --- patching machinery ---------------------------------------------------------------------


def _reference_modules() -> list[ModuleType]:
    return [
        module
        for name, module in sorted(sys.modules.items())
        if module is not None and (name == "reference" or name.startswith("reference."))
    ]


def _replace_everywhere(original: object, replacement: object) -> None:
    """Rebind every reference-module name (and function default) bound to ``original``."""
    found = 0
    for module in _reference_modules():
        for attr, value in list(vars(module).items()):
            if value is original:
                setattr(module, attr, replacement)
                found += 1
            elif isinstance(value, FunctionType) and value.__module__.startswith("reference"):
                found += _replace_defaults(value, original, replacement)
    if not found:
        # A rename in the reference would otherwise make the mutant a silent no-op.
        raise RuntimeError(f"nothing in the reference is bound to {original!r}")


def _replace_defaults(function: FunctionType, original: object, replacement: object) -> int:
    # Defaults such as ``profile: Profile = ARGENTINE`` are bound when the function is defined.
    changed = 0
    if function.__defaults__ and any(d is original for d in function.__defaults__):
        function.__defaults__ = tuple(
            replacement if d is original else d for d in function.__defaults__
        )
        changed += 1
    kwdefaults = function.__kwdefaults__
    if kwdefaults and any(d is original for d in kwdefaults.values()):
        function.__kwdefaults__ = {
            k: replacement if d is original else d for k, d in kwdefaults.items()
        }
        changed += 1
    return changed


def _patch(module: ModuleType, name: str, make: Callable[[Any], Any]) -> None:
    """Replace ``module.name`` (and every import of it) by ``make(original)``."""
    original = getattr(module, name)
    _replace_everywhere(original, make(original))


def _swap_profile(**changes: Any) -> None:
    """Serve a copy of the Argentine profile with some rule parameters changed."""
    old = reference.profiles.ARGENTINE
    new = replace(old, **changes)
    _replace_everywhere(old, new)
    _replace_everywhere(reference.profiles.PROFILES, MappingProxyType({new.name: new}))


def _reject(action: object, reason: Reason) -> IllegalActionError:
    return IllegalActionError(action, reason, "mutant")


def _with_hand(state: GameState, player: int, hand: Sequence[Card]) -> tuple[tuple[Card, ...], ...]:
    return tuple(tuple(hand) if i == player else h for i, h in enumerate(state.hands))


def _without(hand: Sequence[Card], cards: Sequence[Card]) -> list[Card]:
    left = list(hand)
    for card in cards:
        left.remove(card)
    return left


def _close(state: GameState, player: int, closer_score: int = 0) -> GameState:
    """The deal closed by ``player``: scores, totals and (after the last deal) winners."""
    profile = state.profile
    scores = tuple(
        closer_score if i == player else profile.penalty(h) for i, h in enumerate(state.hands)
    )
    totals = tuple(t + s for t, s in zip(state.totals, scores, strict=True))
    last = state.deal_number >= profile.deals
    best = min(totals)
    return replace(
        state,
        turn=(player + 1) % state.players,
        turn_opened=False,
        phase=Phase.GAME_OVER if last else Phase.DEAL_OVER,
        deal_scores=scores,
        closer=player,
        totals=totals,
        winners=tuple(i for i, t in enumerate(totals) if t == best) if last else None,
    )


def _position(card: Card, end: str) -> int:
    """The run position a natural card would take at ``end`` (an ace is high at the top)."""
    assert card.rank is not None
    if card.rank is Rank.ACE:
        return HIGH_ACE if end == "high" else LOW_ACE
    return int(card.rank.value)


# --- melds ----------------------------------------------------------------------------------


@mutant("k_a_2_allowed", ["MELD-RUN-3"], "runs may turn the K-A-2 corner (K-A-2-3 is a run)")
def _k_a_2_allowed() -> None:
    def make(original: Callable[..., Reason | None]) -> Callable[..., Reason | None]:
        def check_meld(
            meld: Meld, *, initial: bool, profile: Profile = _ARGENTINE
        ) -> Reason | None:
            reason = original(meld, initial=initial, profile=profile)
            return None if reason is Reason.RUN_WRAPS else reason

        return check_meld

    _patch(reference.melds, "check_meld", make)


@mutant(
    "runs_wrap_when_extended",
    ["MELD-RUN-3", "MELD-RUN-5"],
    "a table run may wrap Q-K-A-2: a 2 laid above a high ace, a K below a low ace",
)
def _runs_wrap_when_extended() -> None:
    def make_check(original: Callable[..., Reason | None]) -> Callable[..., Reason | None]:
        def check_meld(
            meld: Meld, *, initial: bool, profile: Profile = _ARGENTINE
        ) -> Reason | None:
            reason = original(meld, initial=initial, profile=profile)
            return None if reason is Reason.RUN_WRAPS and not initial else reason

        return check_meld

    def make_layoff(original: Callable[..., Reason | None]) -> Callable[..., Reason | None]:
        def check_lay_off(
            meld: Meld, card: Card, end: str | None, profile: Profile = _ARGENTINE
        ) -> Reason | None:
            if isinstance(meld, Run) and not card.is_joker and card.suit == meld.suit:
                # Judged by the end cards, so a run that already wrapped can wrap again.
                over_high = end == "high" and meld.cards[-1].rank is Rank.ACE
                under_low = end == "low" and meld.cards[0].rank is Rank.ACE
                if (over_high and card.rank is Rank.TWO) or (under_low and card.rank is Rank.KING):
                    return None
            return original(meld, card, end, profile)

        return check_lay_off

    _patch(reference.melds, "check_meld", make_check)
    _patch(reference.melds, "check_lay_off", make_layoff)


@mutant(
    "two_jokers_initial",
    ["JOKER-2"],
    "an opening trio or run may hold two jokers",
)
def _two_jokers_initial() -> None:
    _swap_profile(initial_joker_limit=2)


@mutant(
    "joker_limit_per_opening",
    ["JOKER-2"],
    "the one-joker limit counts the whole opening: two melds with one joker each are refused",
)
def _joker_limit_per_opening() -> None:
    def make(original: Callable[..., Reason | None]) -> Callable[..., Reason | None]:
        def check_contract(
            melds: Sequence[Meld], deal_number: int, profile: Profile = _ARGENTINE
        ) -> Reason | None:
            reason = original(melds, deal_number, profile)
            if reason is None and sum(c.is_joker for m in melds for c in m.cards) > 1:
                return Reason.TOO_MANY_JOKERS
            return reason

        return check_contract

    _patch(reference.contracts, "check_contract", make)


@mutant(
    "joker_limit_after_opening",
    ["JOKER-3"],
    "the one-joker limit never lifts: a table meld may never hold a second joker",
)
def _joker_limit_after_opening() -> None:
    _swap_profile(later_joker_limit=1)


@mutant("opening_runs_of_3", ["MELD-RUN-1"], "an opening run of 3 cards is accepted")
def _opening_runs_of_3() -> None:
    def make(original: Callable[..., Reason | None]) -> Callable[..., Reason | None]:
        def check_meld(
            meld: Meld, *, initial: bool, profile: Profile = _ARGENTINE
        ) -> Reason | None:
            if initial and isinstance(meld, Run) and len(meld.cards) == 3:
                naturals = [c for c in meld.cards if not c.is_joker]
                if len(meld.cards) - len(naturals) > 1:
                    return Reason.TOO_MANY_JOKERS
                if not naturals or len({c.suit for c in naturals}) > 1:
                    return Reason.RUN_SUIT
                return reference.melds._sequence_reason(meld.cards)
            return original(meld, initial=initial, profile=profile)

        return check_meld

    _patch(reference.melds, "check_meld", make)


@mutant("opening_trios_of_4", ["MELD-TRIO-1"], "an opening trio of 4 cards is accepted")
def _opening_trios_of_4() -> None:
    def make(original: Callable[..., Reason | None]) -> Callable[..., Reason | None]:
        def check_meld(
            meld: Meld, *, initial: bool, profile: Profile = _ARGENTINE
        ) -> Reason | None:
            if initial and isinstance(meld, Trio) and len(meld.cards) == 4:
                if sum(c.is_joker for c in meld.cards) > 1:
                    return Reason.TOO_MANY_JOKERS
                return original(meld, initial=False, profile=profile)
            return original(meld, initial=initial, profile=profile)

        return check_meld

    _patch(reference.melds, "check_meld", make)


@mutant(
    "trio_needs_distinct_suits",
    ["MELD-TRIO-2"],
    "a trio may not repeat a suit (two same-suit copies are refused, as in another variant)",
)
def _trio_needs_distinct_suits() -> None:
    def make(original: Callable[..., Reason | None]) -> Callable[..., Reason | None]:
        def check_meld(
            meld: Meld, *, initial: bool, profile: Profile = _ARGENTINE
        ) -> Reason | None:
            reason = original(meld, initial=initial, profile=profile)
            if reason is None and isinstance(meld, Trio):
                suits = [c.suit for c in meld.cards if not c.is_joker]
                if len(set(suits)) != len(suits):
                    return Reason.TRIO_MIXED_RANKS
            return reason

        return check_meld

    _patch(reference.melds, "check_meld", make)


@mutant("run_max_13", ["MELD-RUN-4"], "a run stops at 13 cards: low A to high A is refused")
def _run_max_13() -> None:
    _swap_profile(max_run_length=13)


@mutant(
    "twos_wild",
    ["CARDS-2", "SCORE-2"],
    "a 2 may stand in for any card like a joker, and is worth 25",
)
def _twos_wild() -> None:
    values = list(reference.profiles.ARGENTINE.rank_values)
    values[Rank.TWO.value - 1] = 25
    _swap_profile(wild_ranks=frozenset({Rank.TWO}), rank_values=tuple(values))

    def make(original: Callable[[tuple[Card, ...]], int | None]) -> Callable[..., int | None]:
        def _cyclic_start(cards: tuple[Card, ...]) -> int | None:
            # A wild 2 says nothing about where the run starts, like a joker.
            wild = tuple(JOKER if c.rank is Rank.TWO else c for c in cards)
            return original(wild)

        return _cyclic_start

    _patch(reference.melds, "_cyclic_start", make)

    # A meld's rank or suit is read from its first natural card; a wild 2 must not count.
    def trio_rank(self: Trio) -> Rank | None:
        ranks = [c.rank for c in self.cards if c.rank is not None]
        return next((r for r in ranks if r is not Rank.TWO), ranks[0] if ranks else None)

    def run_suit(self: Run) -> Suit | None:
        tame = [c for c in self.cards if c.rank is not None and c.rank is not Rank.TWO]
        return (tame or [c for c in self.cards if c.suit is not None] or [JOKER])[0].suit

    Trio.rank = property(trio_rank)  # type: ignore[assignment,method-assign]
    Run.suit = property(run_suit)  # type: ignore[assignment,method-assign]


# --- scoring --------------------------------------------------------------------------------


@mutant("ace_worth_15", ["SCORE-2", "SCORE-5"], "an ace left in hand costs 15, not 20")
def _ace_worth_15() -> None:
    values = list(reference.profiles.ARGENTINE.rank_values)
    values[Rank.ACE.value - 1] = 15
    _swap_profile(rank_values=tuple(values))


@mutant("joker_worth_25", ["SCORE-2", "JOKER-7", "SCORE-5"], "a joker left in hand costs 25")
def _joker_worth_25() -> None:
    _swap_profile(joker_value=25)


@mutant(
    "closer_scores_hand",
    ["SCORE-1"],
    "the closer is charged for the cards of their last hand (the closing discard)",
)
def _closer_scores_hand() -> None:
    def make(original: Callable[..., GameState]) -> Callable[..., GameState]:
        def _discard(state: GameState, player: int, card: Card) -> GameState:
            after = original(state, player, card)
            if after.closer is None:
                return after
            return _close(
                replace(after, totals=state.totals), player, state.profile.card_value(card)
            )

        return _discard

    _patch(reference.game, "_discard", make)


@mutant(
    "tie_first_player_wins",
    ["END-5"],
    "equal lowest totals do not share the win: only the first such player wins",
)
def _tie_first_player_wins() -> None:
    def make(original: Callable[..., GameState]) -> Callable[..., GameState]:
        def _discard(state: GameState, player: int, card: Card) -> GameState:
            after = original(state, player, card)
            if after.winners:
                return replace(after, winners=after.winners[:1])
            return after

        return _discard

    _patch(reference.game, "_discard", make)


# --- dealing --------------------------------------------------------------------------------


@mutant("deal_7_dealt_11", ["DEAL-3"], "deal 7 deals 11 cards, like the others, instead of 12")
def _deal_7_dealt_11() -> None:
    _swap_profile(hand_sizes=(11,) * 7)


@mutant("first_turn_dealer", ["DEAL-5"], "the dealer takes the first turn")
def _first_turn_dealer() -> None:
    def make(original: Callable[..., GameState]) -> Callable[..., GameState]:
        def start_deal(*args: Any, **kwargs: Any) -> GameState:
            state = original(*args, **kwargs)
            return replace(state, turn=state.dealer)

        return start_deal

    def make_fresh(original: Callable[[GameState], bool]) -> Callable[[GameState], bool]:
        # Keep redeal working: "as dealt" now means the dealer is to move.
        def before_first_draw(state: GameState) -> bool:
            if state.turn != state.dealer:
                return False
            return original(replace(state, turn=(state.dealer + 1) % state.players))

        return before_first_draw

    _patch(reference.game, "start_deal", make)
    _patch(reference.game, "before_first_draw", make_fresh)


@mutant("turn_passes_left", ["TURN-1", "TURN-5"], "after a discard the turn passes to the left")
def _turn_passes_left() -> None:
    def make(original: Callable[..., GameState]) -> Callable[..., GameState]:
        def _discard(state: GameState, player: int, card: Card) -> GameState:
            after = original(state, player, card)
            if after.phase is not Phase.DRAW:
                return after
            return replace(after, turn=(player - 1) % state.players)

        return _discard

    _patch(reference.game, "_discard", make)


@mutant("stock_drawn_from_bottom", ["TURN-2"], "a stock draw takes the bottom card, not the top")
def _stock_drawn_from_bottom() -> None:
    def make(original: Callable[..., GameState]) -> Callable[..., GameState]:
        def _draw_stock(state: GameState, player: int) -> GameState:
            if not state.stock:
                return original(state, player)
            return original(replace(state, stock=tuple(reversed(state.stock))), player)

        return _draw_stock

    _patch(reference.game, "_draw_stock", make)


@mutant("totals_not_added", ["SCORE-4"], "a deal's scores replace the running totals")
def _totals_not_added() -> None:
    def make(original: Callable[..., GameState]) -> Callable[..., GameState]:
        def _discard(state: GameState, player: int, card: Card) -> GameState:
            after = original(state, player, card)
            if after.deal_scores is None or after.phase is Phase.DRAW:
                return after
            return replace(after, totals=after.deal_scores)

        return _discard

    _patch(reference.game, "_discard", make)


@mutant("no_game_over_after_7", ["END-4", "GAME-1"], "closing deal 7 ends only the deal")
def _no_game_over_after_7() -> None:
    def make(original: Callable[..., GameState]) -> Callable[..., GameState]:
        def _discard(state: GameState, player: int, card: Card) -> GameState:
            after = original(state, player, card)
            if after.phase is not Phase.GAME_OVER:
                return after
            return replace(after, phase=Phase.DEAL_OVER, winners=None)

        return _discard

    _patch(reference.game, "_discard", make)


@mutant("swap_joker_always_high", ["JOKER-4"], "a replaced joker always goes to the high end")
def _swap_joker_always_high() -> None:
    def make(original: Callable[..., Any]) -> Callable[..., Any]:
        def swap_joker(run: Any, card: Card, to: str) -> Any:
            return original(run, card, "high" if to in ("low", "high") else to)

        return swap_joker

    _patch(reference.melds, "swap_joker", make)


@mutant("next_dealer_left", ["DEAL-2"], "after a close the deal passes to the left (dealer - 1)")
def _next_dealer_left() -> None:
    def make(original: Callable[..., GameState]) -> Callable[..., GameState]:
        def next_deal(state: GameState, deck: Sequence[Card], cut: int | None = None) -> GameState:
            after = original(state, deck, cut)
            if state.phase is not Phase.DEAL_OVER:
                return after
            dealer = (state.dealer - 1) % state.players
            return reference.game.start_deal(
                state.profile,
                state.players,
                after.deal_number,
                dealer,
                state.totals,
                deck,
                seed=after.seed,
                cut=cut,
            )

        return next_deal

    _patch(reference.game, "next_deal", make)


def _patch_cancelled_next_deal(advance_number: bool) -> None:
    def make(original: Callable[..., GameState]) -> Callable[..., GameState]:
        def next_deal(state: GameState, deck: Sequence[Card], cut: int | None = None) -> GameState:
            after = original(state, deck, cut)
            if state.phase is not Phase.CANCELLED:
                return after
            number = state.deal_number
            if advance_number:
                number = min(number + 1, state.profile.deals)
            return reference.game.start_deal(
                state.profile,
                state.players,
                number,
                (state.dealer + 1) % state.players,
                state.totals,
                deck,
                seed=after.seed,
                cut=cut,
            )

        return next_deal

    _patch(reference.game, "next_deal", make)


@mutant(
    "cancelled_deal_passes",
    ["STOCK-2"],
    "a cancelled deal is replayed by the next dealer (the deal passes to the right)",
)
def _cancelled_deal_passes() -> None:
    _patch_cancelled_next_deal(advance_number=False)


@mutant(
    "cancelled_deal_advances",
    ["STOCK-2", "GAME-1"],
    "a cancelled deal counts as played: the next deal number follows, dealt by the next dealer",
)
def _cancelled_deal_advances() -> None:
    _patch_cancelled_next_deal(advance_number=True)


# --- turns ----------------------------------------------------------------------------------


@mutant("draw_twice", ["TURN-2"], "a second draw in the same turn is accepted")
def _draw_twice() -> None:
    def make(original: Callable[..., GameState]) -> Callable[..., GameState]:
        def apply(state: GameState, action: Action) -> GameState:
            if (
                isinstance(action, DrawStock | DrawDiscard)
                and state.phase is Phase.PLAY
                and action.player == state.turn
            ):
                return original(replace(state, phase=Phase.DRAW), action)
            return original(state, action)

        return apply

    _patch(reference.game, "apply", make)


@mutant(
    "buy_out_of_turn",
    ["TURN-3"],
    "a player whose turn it is not may take the top discard",
)
def _buy_out_of_turn() -> None:
    def make(original: Callable[..., GameState]) -> Callable[..., GameState]:
        def apply(state: GameState, action: Action) -> GameState:
            if (
                isinstance(action, DrawDiscard)
                and state.phase in _LIVE
                and action.player != state.turn
                and 0 <= action.player < state.players
                and state.discard
            ):
                hand = (*state.hands[action.player], state.discard[0])
                return replace(
                    state,
                    hands=_with_hand(state, action.player, hand),
                    discard=state.discard[1:],
                )
            return original(state, action)

        return apply

    _patch(reference.game, "apply", make)


@mutant(
    "recycle_whole_pile",
    ["STOCK-1", "STOCK-2"],
    "an empty stock is rebuilt from the whole discard pile, top card included",
)
def _recycle_whole_pile() -> None:
    def make(original: Callable[..., GameState]) -> Callable[..., GameState]:
        def _draw_stock(state: GameState, player: int) -> GameState:
            if state.stock or not state.discard:
                return original(state, player)
            rng = random.Random(state.seed)
            recycled = list(state.discard)
            rng.shuffle(recycled)
            return reference.game._draw(
                state, player, recycled[0], tuple(recycled[1:]), (), seed=rng.getrandbits(63)
            )

        return _draw_stock

    _patch(reference.game, "_draw_stock", make)


@mutant(
    "meld_may_empty_hand",
    ["TURN-9"],
    "a meld action may leave the hand empty (no card kept for the discard)",
)
def _meld_may_empty_hand() -> None:
    _swap_profile(discard_to_close=False)


@mutant(
    "deal_ends_on_meld",
    ["TURN-9", "END-1"],
    "a meld action that empties the hand closes the deal at once, without a discard",
)
def _deal_ends_on_meld() -> None:
    _swap_profile(discard_to_close=False)

    def make(original: Callable[..., GameState]) -> Callable[..., GameState]:
        def meld_step(state: GameState, action: Any) -> GameState:
            after = original(state, action)
            if not after.hands[action.player]:
                return _close(after, action.player)
            return after

        return meld_step

    _patch(reference.game, "_open", make)
    _patch(reference.game, "_meld_action", make)


# --- opening and lay-offs -------------------------------------------------------------------


@mutant(
    "opening_extra_meld",
    ["CONTRACT-8"],
    "an opening may lay more melds than the contract asks for",
)
def _opening_extra_meld() -> None:
    def make(original: Callable[..., Reason | None]) -> Callable[..., Reason | None]:
        def check_contract(
            melds: Sequence[Meld], deal_number: int, profile: Profile = _ARGENTINE
        ) -> Reason | None:
            contract = reference.contracts.contract_for(profile, deal_number)
            trios = sum(1 for m in melds if isinstance(m, Trio))
            runs = sum(1 for m in melds if isinstance(m, Run))
            if trios >= contract.trios and runs >= contract.runs:
                for meld in melds:
                    reason = reference.melds.check_meld(meld, initial=True, profile=profile)
                    if reason is not None:
                        return reason
                return None
            return original(melds, deal_number, profile)

        return check_contract

    _patch(reference.contracts, "check_contract", make)


@mutant(
    "layoff_on_opening_turn",
    ["TURN-6", "EXAMPLE-1"],
    "an extra card may be laid off on the turn of the opening",
)
def _layoff_on_opening_turn() -> None:
    def make(original: Callable[..., GameState]) -> Callable[..., GameState]:
        def _meld_action(state: GameState, action: LayOff | SwapJoker) -> GameState:
            if state.turn_opened:
                return replace(
                    original(replace(state, turn_opened=False), action), turn_opened=True
                )
            return original(state, action)

        return _meld_action

    _patch(reference.game, "_meld_action", make)


@mutant(
    "layoff_before_opening",
    ["CONTRACT-10"],
    "a player who has not opened may lay off and replace jokers",
)
def _layoff_before_opening() -> None:
    def make(original: Callable[..., GameState]) -> Callable[..., GameState]:
        def _meld_action(state: GameState, action: LayOff | SwapJoker) -> GameState:
            if not state.opened[action.player]:
                opened = tuple(o or i == action.player for i, o in enumerate(state.opened))
                after = original(replace(state, opened=opened), action)
                return replace(after, opened=state.opened)
            return original(state, action)

        return _meld_action

    _patch(reference.game, "_meld_action", make)


@mutant(
    "new_meld_after_opening",
    ["TURN-8", "LAYOFF-3"],
    "an opened player may lay down new independent melds",
)
def _new_meld_after_opening() -> None:
    def make(original: Callable[..., GameState]) -> Callable[..., GameState]:
        def _open(state: GameState, action: Open) -> GameState:
            player = action.player
            if not state.opened[player]:
                return original(state, action)
            if not action.melds:
                raise _reject(action, Reason.CONTRACT_MISMATCH)
            for meld in action.melds:
                reason = reference.melds.check_meld(meld, initial=False, profile=state.profile)
                if reason is not None:
                    raise _reject(action, reason)
            hand = state.hands[player]
            laid = [c for m in action.melds for c in m.cards]
            if len(laid) >= len(hand):
                raise _reject(action, Reason.HAND_WOULD_EMPTY)
            return replace(
                state,
                hands=_with_hand(state, player, _without(hand, laid)),
                table=(*state.table, *(TableMeld(player, m) for m in action.melds)),
            )

        return _open

    _patch(reference.game, "_open", make)


@mutant(
    "layoff_with_gap",
    ["LAYOFF-4", "MELD-RUN-6"],
    "a run lay-off may skip ranks at either end (4-5-6-7 takes a 9)",
)
def _layoff_with_gap() -> None:
    def make(original: Callable[..., Reason | None]) -> Callable[..., Reason | None]:
        def check_lay_off(
            meld: Meld, card: Card, end: str | None, profile: Profile = _ARGENTINE
        ) -> Reason | None:
            reason = original(meld, card, end, profile)
            if (
                reason is Reason.DOES_NOT_FIT
                and isinstance(meld, Run)
                and end in ("low", "high")
                and not card.is_joker
                and card.suit == meld.suit
            ):
                try:
                    low, high = meld.low, meld.high
                except ValueError:
                    return reason
                at = _position(card, end)
                if (end == "high" and at > high + 1) or (end == "low" and at < low - 1):
                    return None
            return reason

        return check_lay_off

    _patch(reference.melds, "check_lay_off", make)


@mutant(
    "layoff_own_melds_only",
    ["LAYOFF-2"],
    "lay-offs are refused on other players' melds",
)
def _layoff_own_melds_only() -> None:
    def make(original: Callable[..., GameState]) -> Callable[..., GameState]:
        def _meld_action(state: GameState, action: LayOff | SwapJoker) -> GameState:
            if (
                isinstance(action, LayOff)
                and state.opened[action.player]
                and not state.turn_opened
                and 0 <= action.meld < len(state.table)
                and state.table[action.meld].owner != action.player
            ):
                raise _reject(action, Reason.DOES_NOT_FIT)
            return original(state, action)

        return _meld_action

    _patch(reference.game, "_meld_action", make)


@mutant(
    "trio_capped_at_three",
    ["MELD-TRIO-4"],
    "a trio never grows past 3 cards: lay-offs on trios are refused",
)
def _trio_capped_at_three() -> None:
    def make(original: Callable[..., Reason | None]) -> Callable[..., Reason | None]:
        def check_lay_off(
            meld: Meld, card: Card, end: str | None, profile: Profile = _ARGENTINE
        ) -> Reason | None:
            if isinstance(meld, Trio):
                return Reason.DOES_NOT_FIT
            return original(meld, card, end, profile)

        return check_lay_off

    _patch(reference.melds, "check_lay_off", make)


# --- jokers on the table --------------------------------------------------------------------


def _swap_prechecks(state: GameState, action: SwapJoker) -> None:
    """The checks a replacement shares with every meld action, in docs/reasons.md order."""
    if not state.opened[action.player]:
        raise _reject(action, Reason.NOT_OPENED)
    if state.turn_opened:
        raise _reject(action, Reason.OPENING_TURN)
    if not 0 <= action.meld < len(state.table):
        raise _reject(action, Reason.NO_SUCH_MELD)


@mutant(
    "joker_to_hand",
    ["JOKER-5"],
    "a replaced joker may be taken into the replacer's hand",
)
def _joker_to_hand() -> None:
    def make(original: Callable[..., GameState]) -> Callable[..., GameState]:
        def _meld_action(state: GameState, action: LayOff | SwapJoker) -> GameState:
            if not (isinstance(action, SwapJoker) and action.to == "hand"):
                return original(state, action)
            _swap_prechecks(state, action)
            target = state.table[action.meld]
            if not isinstance(target.meld, Run):
                raise _reject(action, Reason.NOT_A_RUN)
            i = reference.melds.joker_index(target.meld, action.card)
            if i is None:
                raise _reject(action, Reason.NO_JOKER_FOR_CARD)
            cards = target.meld.cards
            run = Run((*cards[:i], action.card, *cards[i + 1 :]))
            table = list(state.table)
            table[action.meld] = TableMeld(target.owner, run)
            hand = [*_without(state.hands[action.player], [action.card]), JOKER]
            return replace(state, hands=_with_hand(state, action.player, hand), table=tuple(table))

        return _meld_action

    _patch(reference.game, "_meld_action", make)


@mutant(
    "joker_to_other_meld",
    ["JOKER-5"],
    "a replaced joker may be moved to another meld (to_meld is honoured)",
)
def _joker_to_other_meld() -> None:
    def make(original: Callable[..., GameState]) -> Callable[..., GameState]:
        def _meld_action(state: GameState, action: LayOff | SwapJoker) -> GameState:
            if not (
                isinstance(action, SwapJoker)
                and action.to in ("low", "high")
                and action.to_meld is not None
                and action.to_meld != action.meld
            ):
                return original(state, action)
            _swap_prechecks(state, action)
            source = state.table[action.meld]
            if not isinstance(source.meld, Run):
                raise _reject(action, Reason.NOT_A_RUN)
            i = reference.melds.joker_index(source.meld, action.card)
            if i is None:
                raise _reject(action, Reason.NO_JOKER_FOR_CARD)
            if not 0 <= action.to_meld < len(state.table):
                raise _reject(action, Reason.NO_SUCH_MELD)
            dest = state.table[action.to_meld]
            end = None if isinstance(dest.meld, Trio) else action.to
            if reference.melds.check_lay_off(dest.meld, JOKER, end, state.profile) is not None:
                raise _reject(action, Reason.JOKER_TO_OTHER_MELD)
            if len(state.hands[action.player]) == 1:
                raise _reject(action, Reason.HAND_WOULD_EMPTY)
            cards = source.meld.cards
            table = list(state.table)
            table[action.meld] = TableMeld(
                source.owner, Run((*cards[:i], action.card, *cards[i + 1 :]))
            )
            table[action.to_meld] = TableMeld(
                dest.owner, reference.melds.extend(dest.meld, JOKER, end)
            )
            hand = _without(state.hands[action.player], [action.card])
            return replace(state, hands=_with_hand(state, action.player, hand), table=tuple(table))

        return _meld_action

    _patch(reference.game, "_meld_action", make)


@mutant(
    "joker_swap_in_trio",
    ["JOKER-4"],
    "a replacement aimed at a trio is accepted: the card joins it and the joker stays",
)
def _joker_swap_in_trio() -> None:
    def make(original: Callable[..., GameState]) -> Callable[..., GameState]:
        def _meld_action(state: GameState, action: LayOff | SwapJoker) -> GameState:
            if isinstance(action, SwapJoker) and 0 <= action.meld < len(state.table):
                trio = state.table[action.meld].meld
                if (
                    isinstance(trio, Trio)
                    and JOKER in trio.cards
                    and not action.card.is_joker
                    and action.card.rank == trio.rank
                ):
                    # Wherever the action asks the joker to go, it stays in the trio.
                    return original(state, LayOff(action.player, action.card, action.meld, None))
            return original(state, action)

        return _meld_action

    _patch(reference.game, "_meld_action", make)


@mutant(
    "swap_any_suit",
    ["JOKER-4"],
    "a run joker may be replaced by a card of the right rank in any suit",
)
def _swap_any_suit() -> None:
    def make(original: Callable[[Run, Card], int | None]) -> Callable[[Run, Card], int | None]:
        def joker_index(run: Run, card: Card) -> int | None:
            found = original(run, card)
            if found is not None or card.is_joker:
                return found
            for i, c in enumerate(run.cards):
                if c.is_joker and run.represented(i).rank == card.rank:
                    return i
            return None

        return joker_index

    _patch(reference.melds, "joker_index", make)


def names() -> list[str]:
    """Every mutant name, in definition order."""
    return list(MUTANTS)


__all__ = ["MUTANTS", "Mutant", "apply_mutant", "mutant", "names"]


# The corpus-strength mutants live in their own modules and register on import, and so do
# the Chilean rule mutants, which tests/test_mutants.py runs against the Chilean slice of the
# corpus (tests.mutants.chilean.CHILEAN), the Pagat ones against the Pagat slice
# (tests.mutants.pagat.PAGAT), and the Perla ones against the Perla slice
# (tests.mutants.perla.PERLA).
from . import chilean, pagat, perla, round3, round4_behaviours, round4_faults, round5, strength  # noqa: E402, F401
