"""Trios and runs: whether they are valid, how they grow, how a joker is replaced.

Terminology (the words of the rules text, seed 000):

- *natural card*: any card that is not a joker.
- *trio*: three or more cards of one rank; suits are free, copies may repeat (9♠ 9♠ 9♦).
- *run*: four or more cards of one suit in consecutive ranks, listed low to high.
- *position*: a run's place on the ladder 1..14: 1 is the low ace, 2..13 the ranks 2..K,
  14 the high ace. A run occupies ``low..high``; a joker stands for the card of its position.
- *wrap*: a run turning the corner K-A-2; never allowed.
- *initial* meld: a meld as laid in an opening (exact size, at most one joker);
  *table* meld: as it may stand later, after lay-offs (bigger, any number of jokers).
- *meld*: a trio or a run; *table meld*: a meld on the table with its owner.
- *lay-off*: adding one card from hand to a table meld (a trio, or a run end).
- *joker swap*: putting the natural card a run joker stands for in its place, the joker
  moving to the low or high end of the same run.
- *contract*: the trios and runs a deal requires; *open*: lay the contract down;
  *close*: the discard that empties a hand.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from reference.cards import JOKER, Card, Rank, Suit, sort_cards
from reference.profiles import ARGENTINE, Profile
from reference.reasons import Reason

#: Positions of the ace on the run ladder.
LOW_ACE = 1
HIGH_ACE = 14


def rank_at(position: int) -> Rank:
    """The rank that occupies a run position (1 and 14 are both the ace)."""
    return Rank.ACE if position == HIGH_ACE else Rank(position)


@dataclass(frozen=True, slots=True)
class Trio:
    """A trio. Its cards are an unordered multiset, stored sorted so equal trios compare equal."""

    cards: tuple[Card, ...]
    kind: ClassVar[str] = "trio"

    def __post_init__(self) -> None:
        object.__setattr__(self, "cards", sort_cards(self.cards))

    @property
    def rank(self) -> Rank | None:
        """The rank of the trio's natural cards (of the first one, if they disagree)."""
        return next((c.rank for c in self.cards if c.rank is not None), None)

    def has_joker(self) -> bool:
        """True if a joker stands in the trio."""
        return any(c.is_joker for c in self.cards)


@dataclass(frozen=True, slots=True)
class Run:
    """A run, cards listed low to high; a joker stands for the card of its position."""

    cards: tuple[Card, ...]
    kind: ClassVar[str] = "run"

    @property
    def suit(self) -> Suit | None:
        """The suit of the run's natural cards (of the first one, if they disagree)."""
        return next((c.suit for c in self.cards if c.suit is not None), None)

    @property
    def low(self) -> int:
        """Position (1..14) of the first card.

        :raises ValueError: if the cards are not one unbroken, in-range sequence.
        """
        low = _placement(self.cards)
        if low is None:
            raise ValueError(f"not a valid sequence of positions: {_codes(self.cards)}")
        return low

    @property
    def high(self) -> int:
        """Position (1..14) of the last card."""
        return self.low + len(self.cards) - 1

    def represented(self, i: int) -> Card:
        """The card that ``cards[i]`` stands for (itself when natural, by position if a joker)."""
        card = self.cards[i]
        if not card.is_joker:
            return card
        suit = self.suit
        if suit is None:
            raise ValueError("a run without natural cards has no suit")
        return Card(rank_at(self.low + i), suit)


Meld = Trio | Run


@dataclass(frozen=True, slots=True)
class TableMeld:
    """A meld on the table and the player who laid it."""

    owner: int
    meld: Meld


def _codes(cards: tuple[Card, ...]) -> str:
    return " ".join(c.code() for c in cards)


# --- runs: positions ------------------------------------------------------------------------


def _cyclic_start(cards: tuple[Card, ...]) -> int | None:
    """Rank index (0 = A .. 12 = K) of the first card, read round the corner, or None.

    Each natural card at index i says "the first card is i ranks below me". Read modulo 13
    (round the K-A corner), they must all agree for the cards to be one unbroken sequence.
    Jokers say nothing: they take whatever their place implies.
    """
    starts = {(c.rank.value - 1 - i) % 13 for i, c in enumerate(cards) if c.rank is not None}
    if len(starts) != 1:
        return None
    return starts.pop()


def _placement(cards: tuple[Card, ...]) -> int | None:
    """The position of the first card if the run is a valid unbroken sequence in 1..14."""
    start = _cyclic_start(cards)
    if start is None:
        return None
    # Without wrapping, the first card is either at start+1 (aces low) or, when the run
    # begins with an ace that can only be the high one, at 14: covered by start+1+13.
    for low in (start + 1, start + 1 + 13):
        if low >= LOW_ACE and low + len(cards) - 1 <= HIGH_ACE:
            return low
    return None


def _sequence_reason(cards: tuple[Card, ...]) -> Reason | None:
    """run_wraps, beyond_ace or run_gap for an unplaceable sequence of one suit; else None."""
    start = _cyclic_start(cards)
    if start is None:
        # Natural cards that disagree even round the corner: a gap or a repeated rank.
        return Reason.RUN_GAP
    if _placement(cards) is not None:
        return None
    # The cards form a sequence only by going past an ace. Try both ways of laying it on
    # the 1..14 ladder: if in one of them only jokers fall off the ladder, the naturals fit
    # and a joker sits beyond an ace; otherwise natural cards sit on both sides of K-A-2.
    for low in (start + 1, start + 1 - 13):
        off = [c for i, c in enumerate(cards) if not LOW_ACE <= low + i <= HIGH_ACE]
        if all(c.is_joker for c in off):
            return Reason.BEYOND_ACE
    return Reason.RUN_WRAPS


# --- validity -------------------------------------------------------------------------------


def check_meld(meld: Meld, *, initial: bool, profile: Profile = ARGENTINE) -> Reason | None:
    """Why ``meld`` is not a valid meld, or None if it is.

    ``initial`` judges it as laid in an opening (exact size, joker limit); otherwise as it
    may stand on the table after lay-offs. Checks run in the precedence of docs/reasons.md:
    size, joker limit, composition, then (runs) wrap, beyond an ace, gap.
    """
    jokers = sum(1 for c in meld.cards if profile.is_wild(c))
    naturals = [c for c in meld.cards if not profile.is_wild(c)]
    n = len(meld.cards)
    limit = profile.initial_joker_limit if initial else profile.later_joker_limit
    if isinstance(meld, Trio):
        size = profile.initial_trio_size
        if n < size or (initial and profile.initial_sizes_exact and n != size):
            return Reason.TRIO_SIZE  # MELD-TRIO-1, DISPUTE-31
        if not initial and profile.ruling("DISPUTE-03") == "fixed" and n != size:
            return Reason.TRIO_SIZE  # DISPUTE-03 fixed: a trio stays at 3 cards
        if profile.max_trio_size is not None and n > profile.max_trio_size:
            return Reason.TRIO_SIZE  # DISPUTE-10 cap: at most 8 cards
        if limit is not None and jokers > limit:
            return Reason.TOO_MANY_JOKERS  # JOKER-2
        if profile.ruling("VARIANT-06") == "one" and jokers > 1:
            return Reason.TOO_MANY_JOKERS  # VARIANT-06 one: one joker in a trio at any time
        if not naturals or len({c.rank for c in naturals}) > 1:
            return Reason.TRIO_MIXED_RANKS  # MELD-TRIO-3
        if initial and profile.ruling("DISPUTE-04") == "invalid":
            suits = [c.suit for c in naturals]
            if len(set(suits)) != len(suits):
                return Reason.TRIO_MIXED_RANKS  # DISPUTE-04 invalid: suits must differ
        return None
    size = profile.initial_run_size
    if (
        n < size
        or n > profile.max_run_length
        or (initial and profile.initial_sizes_exact and n != size)
    ):
        return Reason.RUN_SIZE  # MELD-RUN-1
    if limit is not None and jokers > limit:
        return Reason.TOO_MANY_JOKERS  # JOKER-2
    if not naturals or len({c.suit for c in naturals}) > 1:
        return Reason.RUN_SUIT  # MELD-RUN-1
    cards = _masked(meld.cards, profile)
    reason = _sequence_reason(cards)  # MELD-RUN-3, MELD-RUN-5, MELD-RUN-6
    if reason is not None:
        return reason
    return _ace_reason(cards, profile)


def _masked(cards: tuple[Card, ...], profile: Profile) -> tuple[Card, ...]:
    """The cards with every wild card shown as a joker (DISPUTE-25 wild: twos stand in too)."""
    if not profile.wild_ranks:
        return cards
    return tuple(JOKER if profile.is_wild(c) else c for c in cards)


def _ace_reason(cards: tuple[Card, ...], profile: Profile) -> Reason | None:
    """Why a placeable run breaks a ruling on aces, or None.

    VARIANT-02 low_only: no run reaches the high-ace position (CARDS-3, MELD-RUN-2).
    DISPUTE-12 no: both ends of a 14-card run are natural aces (MELD-RUN-4).
    """
    low = _placement(cards)
    assert low is not None  # the sequence was checked first
    high = low + len(cards) - 1
    if not profile.ace_high and high == HIGH_ACE:
        return Reason.RUN_WRAPS if not cards[-1].is_joker else Reason.BEYOND_ACE
    joker_end = cards[0].is_joker or cards[-1].is_joker
    if len(cards) == HIGH_ACE and joker_end and profile.ruling("DISPUTE-12") == "no":
        return Reason.BEYOND_ACE
    return None


def is_valid_meld(meld: Meld, *, initial: bool, profile: Profile = ARGENTINE) -> bool:
    """True if :func:`check_meld` finds nothing wrong."""
    return check_meld(meld, initial=initial, profile=profile) is None


# --- growing a meld -------------------------------------------------------------------------


def extend(meld: Meld, card: Card, end: str | None = None) -> Meld:
    """The meld with ``card`` added: anywhere for a trio, at ``end`` ("low"/"high") for a run.

    No rule is checked; see :func:`check_lay_off`.
    """
    if isinstance(meld, Trio):
        return Trio((*meld.cards, card))
    if end == "low":
        return Run((card, *meld.cards))
    if end == "high":
        return Run((*meld.cards, card))
    raise ValueError(f"a run grows only at its 'low' or 'high' end, not {end!r}")


def check_lay_off(
    meld: Meld, card: Card, end: str | None, profile: Profile = ARGENTINE
) -> Reason | None:
    """Why ``card`` cannot be laid off on ``meld`` (at ``end`` for a run), or None.

    Order of docs/reasons.md: for a run, ``beyond_ace`` when the named end is already an
    ace (nothing goes below a low ace or above a high ace, MELD-RUN-5), then
    ``does_not_fit`` (LAYOFF-4).
    """
    if isinstance(meld, Trio):
        if not profile.is_wild(card) and card.rank != meld.rank:
            return Reason.DOES_NOT_FIT
        if profile.is_wild(card) and profile.ruling("DISPUTE-05") == "no":
            return Reason.DOES_NOT_FIT  # DISPUTE-05 no: only natural cards extend a trio
    else:
        if end not in ("low", "high"):
            return Reason.DOES_NOT_FIT
        placed = _placement(_masked(meld.cards, profile))
        if placed is None:
            return Reason.DOES_NOT_FIT
        low, high = placed, placed + len(meld.cards) - 1
        if (end == "low" and low == LOW_ACE) or (end == "high" and high == HIGH_ACE):
            return Reason.BEYOND_ACE
        if len(meld.cards) >= profile.max_run_length:
            return Reason.DOES_NOT_FIT
        target = low - 1 if end == "low" else high + 1
        if not profile.is_wild(card) and (card.suit != meld.suit or card.rank != rank_at(target)):
            return Reason.DOES_NOT_FIT
    grown = extend(meld, card, end)
    reason = check_meld(grown, initial=False, profile=profile)
    if reason is Reason.TOO_MANY_JOKERS:
        return reason
    return None if reason is None else Reason.DOES_NOT_FIT


def joker_index(run: Run, card: Card) -> int | None:
    """Index of the joker in ``run`` that stands for exactly ``card``, or None."""
    if card.is_joker:
        return None
    for i, c in enumerate(run.cards):
        if c.is_joker and run.represented(i) == card:
            return i
    return None


def check_swap(run: Meld, card: Card, to: str) -> Reason | None:
    """Why ``card`` cannot replace a joker of ``run``, the joker going to end ``to``, or None.

    Checks ``not_a_run``, ``no_joker_for_card``, ``joker_to_hand`` and ``no_joker_position``
    (the other-meld check needs the table and lives in the game). JOKER-4..6, DISPUTE-11.
    """
    if not isinstance(run, Run):
        return Reason.NOT_A_RUN
    if joker_index(run, card) is None:
        return Reason.NO_JOKER_FOR_CARD
    if to == "hand":
        return Reason.JOKER_TO_HAND
    if (to == "low" and run.low == LOW_ACE) or (to == "high" and run.high == HIGH_ACE):
        return Reason.NO_JOKER_POSITION
    if to not in ("low", "high"):
        return Reason.NO_JOKER_POSITION
    return None


def swap_joker(run: Run, card: Card, to: str) -> Run:
    """The run after ``card`` takes its joker's place and the joker moves to end ``to``.

    :raises ValueError: if the run holds no joker standing for ``card``.
    """
    i = joker_index(run, card)
    if i is None:
        raise ValueError(f"no joker stands for {card.code()} in {_codes(run.cards)}")
    replaced = Run((*run.cards[:i], card, *run.cards[i + 1 :]))
    joker = run.cards[i]
    return Run((joker, *replaced.cards)) if to == "low" else Run((*replaced.cards, joker))


# --- DISPUTE-30 declared: a joker stands for the card its player declares --------------------


def arrange_declared(run: Run, declared: tuple[Card, ...]) -> Run | None:
    """``run`` with each joker moved to the position of the card declared for it.

    ``declared`` names, in listing order, the card each joker of ``run`` stands for
    (DISPUTE-30 ``declared``, MELD-RUN-6). The natural cards keep their ranks; the result
    lists every card low to high. None when the declarations do not make one unbroken
    sequence of one suit (a declared joker, a card of another suit, a repeated or missing
    position), or when their number is not the number of jokers.
    """
    jokers = [i for i, c in enumerate(run.cards) if c.is_joker]
    if len(jokers) != len(declared) or any(c.is_joker for c in declared):
        return None
    stands: list[tuple[Card, Card]] = []  # (card laid, card it stands for)
    it = iter(declared)
    for card in run.cards:
        stands.append((card, next(it) if card.is_joker else card))
    if len({rep.suit for _, rep in stands}) != 1:
        return None
    # An ace may be low (1) or high (14); a 14-card run holds one of each.
    aces = [i for i, (_, rep) in enumerate(stands) if rep.rank is Rank.ACE]
    choices: list[tuple[int, ...]] = [(LOW_ACE,) * len(aces), (HIGH_ACE,) * len(aces)]
    if len(aces) == 2:
        choices.append((LOW_ACE, HIGH_ACE))
    for choice in choices:
        where = dict(zip(aces, choice, strict=True))
        positions = [
            where.get(i, rep.rank.value if rep.rank is not None else 0)
            for i, (_, rep) in enumerate(stands)
        ]
        order = sorted(range(len(stands)), key=lambda i: positions[i])
        ladder = [positions[i] for i in order]
        if ladder == list(range(ladder[0], ladder[0] + len(ladder))):
            return Run(tuple(stands[i][0] for i in order))
    return None


def redeclared(run: Meld) -> tuple[Run, ...]:
    """The runs ``run`` becomes when a joker at one end is declared as the card beyond
    the other end instead (DISPUTE-30 ``declared``: a declaration may change later).

    ``4S 5S 6S JK`` (the joker as 7S) gives ``JK 4S 5S 6S`` (the joker as 3S). Only
    arrangements that are still one valid sequence are returned; none for a trio.
    """
    if not isinstance(run, Run) or len(run.cards) < 2:
        return ()
    cards = run.cards
    found: list[Run] = []
    if cards[-1].is_joker and not cards[0].is_joker:
        found.append(Run((cards[-1], *cards[:-1])))
    if cards[0].is_joker and not cards[-1].is_joker:
        found.append(Run((*cards[1:], cards[0])))
    return tuple(r for r in found if _placement(r.cards) is not None)
