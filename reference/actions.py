"""Player actions as values (docs/protocol.md §6). Every action names the acting player."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from reference.cards import Card
from reference.melds import Meld


class End(enum.StrEnum):
    """An end of a run."""

    LOW = "low"
    HIGH = "high"


@dataclass(frozen=True, slots=True)
class DrawStock:
    """Take the top card of the stock (recycling or cancelling when it is empty)."""

    player: int


@dataclass(frozen=True, slots=True)
class DrawDiscard:
    """Take the top card of the discard pile."""

    player: int


@dataclass(frozen=True, slots=True)
class Open:
    """Lay down the whole contract at once; melds are appended to the table in this order."""

    player: int
    melds: tuple[Meld, ...]
    declared: tuple[tuple[Card, ...] | None, ...] = ()
    """Per meld (same order), the cards its jokers stand for, in listing order, or None.

    Only a run's jokers are declared, and only DISPUTE-30 ``declared`` reads it (the
    protocol's optional ``declared`` field of an opening run); empty when nothing is declared.
    """


@dataclass(frozen=True, slots=True)
class LayOff:
    """Add one card to table meld ``meld``: at ``end`` of a run; ``end`` is None for a trio."""

    player: int
    card: Card
    meld: int
    end: End | None = None


@dataclass(frozen=True, slots=True)
class SwapJoker:
    """Put natural ``card`` in place of the joker standing for it in run ``meld``.

    ``to`` says where the joker goes: ``"low"`` or ``"high"`` (ends of the same run) or
    ``"hand"`` (never allowed); ``to_meld`` asks to move it to another meld (never allowed).
    In the Chilean profile the wild card (``wild``, a joker or a 2) goes to the hand, from a
    run or a trio (CHILE-SWAP-1..3).
    """

    player: int
    meld: int
    card: Card
    to: str
    to_meld: int | None = None
    wild: Card | None = None
    """Chilean swaps (CHILE-SWAP-1): the wild card taken into the hand, when named."""


@dataclass(frozen=True, slots=True)
class Discard:
    """Discard one card from hand, ending the turn (and the deal, if the hand empties)."""

    player: int
    card: Card


@dataclass(frozen=True, slots=True)
class Pass:
    """Decline the top discard out of turn, so that a later player may steal it.

    Only DISPUTE-29 ``steal`` gives it a meaning (docs/protocol.md §6).
    """

    player: int


Action = DrawStock | DrawDiscard | Open | LayOff | SwapJoker | Discard | Pass

SWAP_DESTINATIONS = ("low", "high", "hand")
"""The values of ``SwapJoker.to`` that the protocol allows."""
