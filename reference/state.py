"""The game state and what every rule of the turn flow shares: the phases, hand arithmetic,
the refusal of an action, when the game ends, and what makes a state impossible.

:class:`GameState` is immutable (docs/protocol.md §5). The rules that change it live in
:mod:`reference.dealing` (deals), :mod:`reference.game` (the turn: draws, discards,
:func:`~reference.game.apply`), :mod:`reference.melding` (openings, lay-offs, joker swaps) and
:mod:`reference.closing` (scoring a closed deal).
"""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from reference import trace
from reference.actions import (
    Action,
)
from reference.cards import Card, sort_cards
from reference.errors import IllegalActionError
from reference.melds import (
    TableMeld,
    check_meld,
)
from reference.profiles import Profile
from reference.reasons import Reason


class Phase(enum.StrEnum):
    """Where a deal stands (docs/protocol.md §5)."""

    DRAW = "draw"
    """The current player must draw."""
    PLAY = "play"
    """The current player has drawn; may meld; must discard."""
    DEAL_OVER = "deal_over"
    """Someone closed the deal."""
    CANCELLED = "cancelled"
    """The stock ran out with nothing to recycle: the deal is void (STOCK-2)."""
    GAME_OVER = "game_over"
    """The last deal closed."""


_LIVE = (Phase.DRAW, Phase.PLAY)


@dataclass(frozen=True, slots=True)
class GameState:
    """Everything of the protocol state (docs/protocol.md §5), plus the recycle seed.

    Hands are multisets, stored as sorted tuples (the constructor sorts them).
    """

    profile: Profile
    players: int
    deal_number: int
    dealer: int
    turn: int
    phase: Phase
    hands: tuple[tuple[Card, ...], ...]
    opened: tuple[bool, ...]
    turn_opened: bool
    table: tuple[TableMeld, ...]
    stock: tuple[Card, ...]
    """Top first."""
    discard: tuple[Card, ...]
    """Top first."""
    totals: tuple[int, ...]
    deal_scores: tuple[int, ...] | None = None
    closer: int | None = None
    winners: tuple[int, ...] | None = None
    seed: int = 0
    """Seeds the next shuffle of recycled discards, so a game replays exactly."""
    drawn: bool = False
    """True once someone has drawn in this deal (a redeal is then too late, DEAL-6)."""
    taken: Card | None = None
    """The card the player to move took from the discard pile this turn (DISPUTE-06, -19)."""
    added: tuple[int, ...] = ()
    """Table melds the player to move has added to this turn (DISPUTE-34 no)."""
    owed: tuple[int, ...] = ()
    """Penalty points each player owes for refused actions, scored at the close
    (DISPUTE-35 penalty); empty when nobody owes any."""
    passed: tuple[int, ...] = ()
    """DISPUTE-29 steal: the players who have passed on the top discard, in turn order,
    starting with the player to move (who passes by drawing from the stock); empty when no
    steal is open."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "hands", tuple(sort_cards(h) for h in self.hands))


def _remove(hand: tuple[Card, ...], cards: Sequence[Card]) -> tuple[Card, ...]:
    left = Counter(hand)
    left.subtract(cards)
    return sort_cards(list(left.elements()))


def _holds(hand: tuple[Card, ...], cards: Sequence[Card]) -> bool:
    have = Counter(hand)
    return all(have[c] >= n for c, n in Counter(cards).items())


def _with_hand(
    state: GameState, player: int, hand: tuple[Card, ...]
) -> tuple[tuple[Card, ...], ...]:
    return tuple(hand if i == player else h for i, h in enumerate(state.hands))


def _reject(
    action: Action | str, reason: Reason, detail: str = "", *, rules: tuple[str, ...] = ()
) -> IllegalActionError:
    """The error for ``action`` breaking the rule behind ``reason``, traced as refused by
    ``rules`` (by default the rule ``reason`` cites)."""
    trace.refused(*(rules or (reason.rule,)))
    return IllegalActionError(action, reason, detail)


def game_ends(profile: Profile, deal_number: int, totals: Sequence[int]) -> bool:
    """True if closing deal ``deal_number`` with ``totals`` ends the game (END-4).

    DISPUTE-15 tiebreak: a tie on the lowest total after the last deal is settled by a
    deciding extra round, under the last deal's number and contract, until it is broken.
    """
    if deal_number < profile.deals:
        return False
    if profile.plays("DISPUTE-15", "tiebreak") and totals:
        return sum(1 for t in totals if t == min(totals)) == 1
    return True


def profile_rules(state: GameState, point: str, option: str) -> bool:
    """True if the state's profile plays ``option`` on ``point``."""
    return state.profile.rules_on(point, option)


def validate_state(state: GameState) -> tuple[str, ...]:
    """Every reason why ``state`` cannot occur; empty when it is consistent.

    Checks player counts and indices, the 108 cards (no third copy of a natural card, no
    fifth joker), and that every table meld is a valid meld with a real owner.
    """
    with trace.quiet():  # validating a loaded state plays no rule
        return _state_problems(state)


def _state_problems(state: GameState) -> tuple[str, ...]:
    profile = state.profile
    n = state.players
    problems: list[str] = []
    if not profile.min_players <= n <= profile.max_players:
        problems.append(f"players {n} not in {profile.min_players}..{profile.max_players}")
    if not 1 <= state.deal_number <= profile.deals:
        problems.append(f"deal_number {state.deal_number} not in 1..{profile.deals}")
    for name in ("dealer", "turn"):
        value = getattr(state, name)
        if not 0 <= value < n:
            problems.append(f"{name} {value} is not a player index (0..{n - 1})")
    for name in ("hands", "opened", "totals", "deal_scores"):
        value = getattr(state, name)
        if value is not None and len(value) != n:
            problems.append(f"{name} has {len(value)} entries for {n} players")
    if state.closer is not None and not 0 <= state.closer < n:
        problems.append(f"closer {state.closer} is not a player index")
    if state.winners is not None and any(not 0 <= w < n for w in state.winners):
        problems.append(f"winners {list(state.winners)} name a player that does not exist")
    cards: list[Card] = [c for h in state.hands for c in h]
    cards += [c for tm in state.table for c in tm.meld.cards]
    cards += [*state.stock, *state.discard]
    size = profile.pack_size_for(n)
    if len(cards) != size:
        problems.append(f"the state holds {len(cards)} cards, not {size}")
    problems += _count_problems(profile, Counter(cards), "the state", n)
    judged = profile  # a going-out deal's melds may be larger (CHILE-ROUND8-2)
    if 1 <= state.deal_number <= profile.deals:
        judged = profile.for_deal(state.deal_number)
    for i, tm in enumerate(state.table):
        reason = check_meld(tm.meld, initial=False, profile=judged)
        if reason is not None:
            problems.append(f"table[{i}] is not a valid {tm.meld.kind}: {reason.value}")
        if not 0 <= tm.owner < n:
            problems.append(f"table[{i}] owner {tm.owner} is not a player index")
        elif len(state.opened) == n and not state.opened[tm.owner]:
            problems.append(f"table[{i}] belongs to player {tm.owner}, who has not opened")
    if state.turn_opened and 0 <= state.turn < len(state.opened) and not state.opened[state.turn]:
        problems.append("turn_opened is true but the player to move has not opened")
    if state.turn_opened and state.phase is Phase.DRAW:
        problems.append("turn_opened is true before the player to move has drawn")
    if state.phase in _LIVE and any(not hand for hand in state.hands):
        problems.append("a player holds no card while the deal is live (an empty hand closes it)")
    last = game_ends(profile, state.deal_number, state.totals)
    if state.phase is Phase.DEAL_OVER and last:
        problems.append(f"deal {state.deal_number} is the last: its close is game_over")
    if state.phase is Phase.GAME_OVER and not last:
        problems.append(f"game_over after deal {state.deal_number}, before the last deal")
    return tuple(problems)


def _deck_problems(profile: Profile, deck: Sequence[Card], players: int) -> list[str]:
    problems = []
    size = profile.pack_size_for(players)
    if len(deck) != size:
        problems.append(f"deck has {len(deck)} cards, not {size}")
    problems += _count_problems(profile, Counter(deck), "deck", players)
    return problems


def _count_problems(profile: Profile, counts: Counter[Card], where: str, players: int) -> list[str]:
    problems = []
    copies, jokers = profile.pack(players)  # CARDS-1; CHILE-CARDS-1, CHILE-CARDS-2
    for card, n in sorted(counts.items(), key=lambda item: item[0].sort_key()):
        limit = jokers if card.is_joker else copies
        if n > limit:
            problems.append(f"{where} holds {n} copies of {card.code()} (at most {limit} exist)")
    return problems
