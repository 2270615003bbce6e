"""Whole games played by a simple seeded policy: a smoke test and a demonstration.

``greedy`` opens when it can, lays off when it can, takes the discard only when it lets it
open or lay off, and otherwise discards its least useful card (the highest penalty among
cards that are not part of a pair or a near-run). ``random`` picks uniformly among the legal
actions, except that it always opens when it can. Both are deterministic from the seed.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from reference.actions import Action, Discard, DrawDiscard, DrawStock, LayOff, Open
from reference.cards import Card
from reference.contracts import find_openings
from reference.game import (
    GameState,
    Phase,
    apply,
    legal_actions,
    new_game,
    next_deal,
    shuffled_pack,
)
from reference.melds import check_lay_off
from reference.profiles import ARGENTINE, Profile

POLICIES = ("greedy", "random")


@dataclass(frozen=True, slots=True)
class DealRecord:
    """What happened in one deal."""

    deal_number: int
    dealer: int
    dealt: tuple[tuple[Card, ...], ...]
    """Each player's hand as dealt."""
    actions: int
    """Actions applied in the deal."""
    cancelled: bool
    closer: int | None
    deal_scores: tuple[int, ...] | None
    totals: tuple[int, ...]
    """Running totals after the deal."""


@dataclass(frozen=True, slots=True)
class GameRecord:
    """A played game: one record per deal (cancelled deals included) and the final state."""

    seed: int
    players: int
    policy: str
    deals: tuple[DealRecord, ...]
    final: GameState
    finished: bool
    """False if a deal hit the action cap before anyone closed."""

    @property
    def winners(self) -> tuple[int, ...]:
        """The winners, once the game is over."""
        return self.final.winners or ()


def _partners(card: Card, hand: tuple[Card, ...], trios: bool, runs: bool) -> int:
    """How many other cards in hand could share a contract meld with ``card`` (capped).

    Pairs only count when the deal needs trios, suit neighbours only when it needs runs, so
    a player saving for runs does not hoard pairs; each count stops at what one meld needs.
    """
    others = list(hand)
    others.remove(card)
    same_rank = sum(1 for o in others if trios and o.rank is not None and o.rank == card.rank)
    neighbours = set()
    for other in others:
        if runs and other.suit == card.suit and other.rank is not None and card.rank is not None:
            gap = abs(other.rank.value - card.rank.value)
            if 0 < min(gap, 13 - gap) <= 3:
                neighbours.add(other.rank)
    return min(same_rank, 2) + min(len(neighbours), 3)


def _greedy_discard(state: GameState, hand: tuple[Card, ...], rng: random.Random) -> Card:
    profile = state.profile
    trios, runs = profile.contract(state.deal_number)
    opened = state.opened[state.turn]
    naturals = [c for c in hand if not c.is_joker]
    if not opened and naturals and rng.random() < 0.2:
        # A pure greedy keeper can stall forever on a hand of surplus pairs; an occasional
        # random discard (from the seeded generator) keeps every game finite in practice.
        return rng.choice(naturals)

    def keep(card: Card) -> tuple[int, int, int]:
        # Once opened only lay-offs remain, so shed the most expensive card; before that,
        # shed the card with the fewest partners, then the most expensive. Jokers last.
        if card.is_joker:
            return (99, 0, 0)
        partners = 0 if opened else _partners(card, hand, trios > 0, runs > 0)
        return (partners, -profile.card_value(card), -card.sort_key())

    return min(hand, key=keep)


def _fits_somewhere(state: GameState, card: Card) -> bool:
    for tm in state.table:
        ends = ("low", "high") if tm.meld.kind == "run" else (None,)
        if any(check_lay_off(tm.meld, card, end, state.profile) is None for end in ends):
            return True
    return False


def _greedy(state: GameState, rng: random.Random) -> Action:
    player = state.turn
    hand = state.hands[player]
    if state.phase is Phase.DRAW:
        if state.discard:
            top = state.discard[0]
            if state.opened[player]:
                helps = _fits_somewhere(state, top) and len(hand) > 1
            else:
                helps = bool(find_openings((*hand, top), state.deal_number, state.profile))
            if helps:
                return DrawDiscard(player)
        return DrawStock(player)
    legal = legal_actions(state)
    for kind in (Open, LayOff):
        choices = [a for a in legal if isinstance(a, kind)]
        if choices:
            return choices[0]
    return Discard(player, _greedy_discard(state, hand, rng))


def _random(state: GameState, rng: random.Random) -> Action:
    legal = legal_actions(state)
    opens = [a for a in legal if isinstance(a, Open)]
    return opens[0] if opens else rng.choice(legal)


def play_game(
    seed: int,
    players: int = 3,
    policy: str = "greedy",
    *,
    profile: Profile = ARGENTINE,
    max_actions_per_deal: int = 4000,
) -> GameRecord:
    """Play a whole game from ``seed``; the same arguments always give the same record.

    :raises ValueError: for an unknown policy.
    """
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r}; choose one of {', '.join(POLICIES)}")
    choose = _greedy if policy == "greedy" else _random
    rng = random.Random(seed)
    state = new_game(profile, players, seed)
    records: list[DealRecord] = []
    finished = True
    # Each completed deal plus a few cancelled replays; the cap keeps a pathological seed finite.
    for _ in range(profile.deals * 10):
        dealt = state.hands
        count = 0
        while state.phase in (Phase.DRAW, Phase.PLAY) and count < max_actions_per_deal:
            state = apply(state, choose(state, rng))
            count += 1
        cancelled = state.phase is Phase.CANCELLED
        records.append(
            DealRecord(
                deal_number=state.deal_number,
                dealer=state.dealer,
                dealt=dealt,
                actions=count,
                cancelled=cancelled,
                closer=state.closer,
                deal_scores=state.deal_scores,
                totals=state.totals,
            )
        )
        if state.phase in (Phase.DRAW, Phase.PLAY):
            finished = False
            break
        if state.phase is Phase.GAME_OVER:
            break
        state = next_deal(state, shuffled_pack(profile, rng, players))
    else:
        finished = False
    return GameRecord(seed, players, policy, tuple(records), state, finished)
