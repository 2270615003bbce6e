"""Builders for reference-engine unit tests: cards from text and states with a filled stock."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from reference import (
    ARGENTINE,
    Card,
    GameState,
    Meld,
    Phase,
    Profile,
    Run,
    TableMeld,
    Trio,
    full_pack,
    parse_cards,
)


def cards(text: str) -> tuple[Card, ...]:
    """``cards("8C 8D JK")``."""
    return parse_cards(text)


def trio(text: str) -> Trio:
    return Trio(cards(text))


def run(text: str) -> Run:
    return Run(cards(text))


def make_state(
    hands: Sequence[str],
    *,
    deal_number: int = 2,
    dealer: int = 0,
    turn: int = 1,
    phase: str = "draw",
    opened: Sequence[bool] | None = None,
    turn_opened: bool = False,
    table: Sequence[tuple[int, Meld]] = (),
    stock_top: str = "",
    stock: str | None = None,
    discard: str = "6H",
    totals: Sequence[int] | None = None,
    seed: int = 0,
    profile: Profile = ARGENTINE,
) -> GameState:
    """A state like a scenario setup: the stock is ``stock_top`` then the rest of the pack
    in canonical order (earliest remaining copy skipped for each card placed elsewhere)."""
    players = len(hands)
    hand_cards = [cards(h) for h in hands]
    placed = Counter(c for h in hand_cards for c in h)
    placed.update(c for _, m in table for c in m.cards)
    placed.update(cards(discard))
    if stock is not None:
        stock_cards = cards(stock)
    else:
        top = cards(stock_top)
        placed.update(top)
        rest = []
        for card in full_pack(*profile.pack(players)):
            if placed[card]:
                placed[card] -= 1
            else:
                rest.append(card)
        stock_cards = top + tuple(rest)
    return GameState(
        profile=profile,
        players=players,
        deal_number=deal_number,
        dealer=dealer,
        turn=turn,
        phase=Phase(phase),
        hands=tuple(hand_cards),
        opened=tuple(opened) if opened is not None else (False,) * players,
        turn_opened=turn_opened,
        table=tuple(TableMeld(owner, meld) for owner, meld in table),
        stock=stock_cards,
        discard=cards(discard),
        totals=tuple(totals) if totals is not None else (0,) * players,
        seed=seed,
    )
