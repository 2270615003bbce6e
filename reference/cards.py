"""Cards and card notation (docs/protocol.md §3).

Two packs mean two physically distinct but indistinguishable copies of each natural card,
so a ``Card`` is a value, never an identity: a hand is a multiset of cards, stored as a
sorted tuple. Sorting follows the canonical order of docs/scenario-format.md
(spades, hearts, diamonds, clubs; A..K within a suit; jokers last).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from reference.errors import CardParseError


class Suit(enum.Enum):
    """The four suits, in canonical order. The value is the suit letter of the card code."""

    SPADES = "S"
    HEARTS = "H"
    DIAMONDS = "D"
    CLUBS = "C"

    @property
    def glyph(self) -> str:
        """The suit symbol, e.g. ``♠``."""
        return _SUIT_GLYPHS[self]


_SUIT_GLYPHS = {Suit.SPADES: "♠", Suit.HEARTS: "♥", Suit.DIAMONDS: "♦", Suit.CLUBS: "♣"}


class Rank(enum.IntEnum):
    """The thirteen ranks. The value is the rank's place A=1..K=13 (the ace's low place)."""

    ACE = 1
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13

    @property
    def code(self) -> str:
        """The rank part of a card code: ``A``, ``2``..``10``, ``J``, ``Q``, ``K``."""
        return _RANK_CODES[self]


_RANK_CODES = {r: str(r.value) for r in Rank} | {
    Rank.ACE: "A",
    Rank.JACK: "J",
    Rank.QUEEN: "Q",
    Rank.KING: "K",
}
_RANKS_BY_CODE = {code: rank for rank, code in _RANK_CODES.items()}
_SUITS_BY_CODE = {s.value: s for s in Suit}
_CODES = frozenset({"JK"} | {r + s for r in _RANKS_BY_CODE for s in _SUITS_BY_CODE})
_SUIT_ORDER = {s: i for i, s in enumerate(Suit)}


@dataclass(frozen=True, slots=True)
class Card:
    """One card: a natural card (rank and suit) or a joker (neither).

    Build cards with :meth:`from_code` or :data:`JOKER` rather than the constructor.
    """

    rank: Rank | None
    """The rank; ``None`` for a joker."""
    suit: Suit | None
    """The suit; ``None`` for a joker."""
    # A card is immutable, and the adapter encodes, sorts and counts tens of thousands of
    # them per corpus run: its code and canonical place are computed once, here, instead of
    # through two enum lookups at every use. Neither takes part in equality.
    _code: str = field(init=False, repr=False, compare=False)
    _key: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if (self.rank is None) != (self.suit is None):
            raise CardParseError(f"a card has both a rank and a suit, or neither: {self.rank!r}")
        if self.rank is None or self.suit is None:
            code, key = "JK", 52
        else:
            code = self.rank.code + self.suit.value
            key = _SUIT_ORDER[self.suit] * 13 + self.rank.value - 1
        object.__setattr__(self, "_code", code)
        object.__setattr__(self, "_key", key)

    def __hash__(self) -> int:
        # Equal cards have equal places in the canonical order, and only equal cards do.
        return self._key

    @classmethod
    def from_code(cls, code: str) -> Card:
        """Parse a card code such as ``"10H"`` or ``"JK"``.

        :raises CardParseError: if ``code`` is not one of the 53 card codes; the message
            says which part is wrong.
        """
        if not isinstance(code, str):
            raise CardParseError(f"card code must be a string, not {type(code).__name__}")
        known = _CARDS_BY_CODE.get(code)
        if known is not None:
            return known
        if code in _RANKS_BY_CODE:
            raise CardParseError(f"unknown card code {code!r}: a rank without a suit (S H D C)")
        if len(code) < 2:
            raise CardParseError(f"unknown card code {code!r}: too short")
        if code.upper() != code and code.upper() in _CODES:
            raise CardParseError(
                f"unknown card code {code!r}: codes are upper case ({code.upper()!r})"
            )
        rank_code, suit_code = code[:-1], code[-1]
        if suit_code not in _SUITS_BY_CODE:
            raise CardParseError(
                f"unknown card code {code!r}: suit {suit_code!r} is not one of S H D C"
            )
        if rank_code not in _RANKS_BY_CODE:
            raise CardParseError(
                f"unknown card code {code!r}: rank {rank_code!r} is not one of "
                "A 2 3 4 5 6 7 8 9 10 J Q K"
            )
        return cls(_RANKS_BY_CODE[rank_code], _SUITS_BY_CODE[suit_code])

    @property
    def is_joker(self) -> bool:
        """True for a joker."""
        return self.rank is None

    def code(self) -> str:
        """The card code, e.g. ``"10H"``; ``"JK"`` for a joker."""
        return self._code

    def glyph(self) -> str:
        """A human-readable form, e.g. ``"10♥"``; ``"JK"`` for a joker."""
        if self.rank is None or self.suit is None:
            return "JK"
        return self.rank.code + self.suit.glyph

    def sort_key(self) -> int:
        """The card's place in the canonical order (0..51 for naturals, 52 for a joker)."""
        return self._key

    def __lt__(self, other: Card) -> bool:
        return self.sort_key() < other.sort_key()

    def __repr__(self) -> str:
        return f"Card.from_code({self.code()!r})"

    def __str__(self) -> str:
        return self.code()


JOKER = Card(None, None)
"""The joker. All four jokers are the same value."""

# The 53 cards by code: parsing a well-formed code is one lookup, and equal codes give the
# same (immutable) object. Unknown codes fall through to from_code's explanations.
_CARDS_BY_CODE = {"JK": JOKER} | {
    rank_code + suit.value: Card(rank, suit)
    for rank_code, rank in _RANKS_BY_CODE.items()
    for suit in Suit
}


def parse_cards(text: str) -> tuple[Card, ...]:
    """Parse whitespace-separated card codes, e.g. ``"AS 10H JK"``, keeping their order.

    :raises CardParseError: on the first unknown code.
    """
    return tuple(Card.from_code(code) for code in text.split())


def full_pack(copies: int = 2, jokers: int = 4) -> tuple[Card, ...]:
    """The whole pack in canonical order: AS..KS AH..KH AD..KD AC..KC, again, then jokers."""
    naturals = tuple(Card(rank, suit) for suit in Suit for rank in Rank)
    return naturals * copies + (JOKER,) * jokers


def sort_cards(cards: tuple[Card, ...] | list[Card]) -> tuple[Card, ...]:
    """The cards as a canonical sorted tuple: the stored form of a multiset (a hand)."""
    return tuple(sorted(cards, key=Card.sort_key))


def cards_text(cards: tuple[Card, ...] | list[Card], *, glyphs: bool = False) -> str:
    """Cards joined by spaces, as codes or glyphs."""
    return " ".join(c.glyph() if glyphs else c.code() for c in cards)
