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

Seed 001 (the Chilean profile) adds: a *wild card* is a joker or a 2 (CHILE-WILD-1), except a
2 lying in its own place (the 2-position of its suit's run, a trio of 2s), which is natural
(CHILE-WILD-3); a *wild swap* puts the natural card in a wild card's place in any meld and
the wild card goes to the taker's hand (CHILE-SWAP-1..3).

Seed 003 (the Perla profile) makes the red aces wild (PERLA-WILD-1), except a red ace in its own
place (an ace end of its suit's run, a trio of aces: PERLA-WILD-3); its trios ("legs") hold 3 or
4 cards of different suits (PERLA-TRIO-1).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar

from reference import trace
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
    flags = wild_flags(meld, profile)
    if trace.active():
        _trace_wilds(meld, flags, profile)
    jokers = sum(flags)
    naturals = [c for c, wild in zip(meld.cards, flags, strict=True) if not wild]
    n = len(meld.cards)
    limit = profile.initial_joker_limit if initial else profile.later_joker_limit
    if isinstance(meld, Trio):
        return _trio_reason(meld, n, jokers, naturals, limit, initial=initial, profile=profile)
    size = profile.initial_run_size
    short = profile.short_runs and n == size - 1  # DISPUTE-52 three: a 3-card run
    if n == size - 1 and profile.rules_on("DISPUTE-52"):
        trace.decided("DISPUTE-52")
    if initial and n > size:
        trace.decided("DISPUTE-31")
    if (
        (n < size and not short)
        or n > profile.max_run_length
        or (initial and profile.initial_sizes_exact and n < size and not short)
        or (initial and profile.initial_sizes_exact and profile.initial_runs_exact and n > size)
    ):
        if n > profile.max_run_length:
            return _no(Reason.RUN_SIZE, "MELD-RUN-4", "MELD-RUN-5", *_long_run_points(profile))
        return _no(Reason.RUN_SIZE)  # MELD-RUN-1
    if limit is not None and jokers > limit:
        return _no(Reason.TOO_MANY_JOKERS)  # JOKER-2
    if not naturals or len({c.suit for c in naturals}) > 1:
        return _no(Reason.RUN_SUIT)  # MELD-RUN-1
    cards = _masked(meld.cards, profile)
    reason = _sequence_reason(cards)  # MELD-RUN-3, MELD-RUN-5, MELD-RUN-6
    if reason is not None:
        return _no(reason)
    reason = _ace_reason(cards, profile)
    if reason is not None:
        return reason
    trace.decided("MELD-RUN-1", "MELD-RUN-6")
    if jokers:
        trace.decided("JOKER-1", "JOKER-2" if initial else "JOKER-3")
    if trace.active():
        _trace_run_ends(cards)
    return None


def _no(reason: Reason, *rules: str) -> Reason:
    """``reason``, traced as a refusal by its rule and ``rules``."""
    trace.refused(reason.rule, *rules)
    return reason


def _long_run_points(profile: Profile) -> tuple[str, ...]:
    """The points that set a profile's longest run (DISPUTE-57 pagat, DISPUTE-77 others)."""
    return tuple(p for p in ("DISPUTE-57", "DISPUTE-77", "DISPUTE-12") if profile.rules_on(p))


def _trio_reason(
    meld: Trio,
    n: int,
    jokers: int,
    naturals: list[Card],
    limit: int | None,
    *,
    initial: bool,
    profile: Profile,
) -> Reason | None:
    """The trio half of :func:`check_meld`."""
    size = profile.initial_trio_size
    if initial and n > size:
        trace.decided("DISPUTE-31")
    if n < size or (initial and profile.initial_sizes_exact and n != size):
        return _no(Reason.TRIO_SIZE)  # MELD-TRIO-1, DISPUTE-31
    if not initial and n != size:
        trace.decided("DISPUTE-03")
        if profile.plays("DISPUTE-03", "fixed"):
            return _no(Reason.TRIO_SIZE, "DISPUTE-03")  # DISPUTE-03 fixed: a trio stays at 3
    if n > 8 and profile.rules_on("DISPUTE-10"):
        trace.decided("DISPUTE-10")
    if profile.max_trio_size is not None and n > profile.max_trio_size:
        # DISPUTE-10 cap: at most 8 cards; PERLA-TRIO-4: at most 4 of different suits.
        return _no(Reason.TRIO_SIZE, "MELD-TRIO-4", "PERLA-TRIO-4")
    if limit is not None and jokers > limit:
        return _no(Reason.TOO_MANY_JOKERS)  # JOKER-2
    if jokers > 1 and profile.plays("VARIANT-06", "one"):
        # VARIANT-06 one: one joker in a trio at any time
        return _no(Reason.TOO_MANY_JOKERS, "VARIANT-06")
    if not naturals or len({c.rank for c in naturals}) > 1:
        return _no(Reason.TRIO_MIXED_RANKS)  # MELD-TRIO-3
    repeated = len({c.suit for c in naturals}) != len(naturals)
    if initial and repeated and profile.rules_on("DISPUTE-04"):
        trace.decided("DISPUTE-04")
        if profile.plays("DISPUTE-04", "invalid"):
            # DISPUTE-04 invalid: suits must differ
            return _no(Reason.TRIO_MIXED_RANKS, "DISPUTE-04")
    if profile.trio_suits_differ and repeated:
        return _no(Reason.TRIO_SUITS, "DISPUTE-63")  # PERLA-TRIO-1, DISPUTE-63 different
    trace.decided("MELD-TRIO-1", "MELD-TRIO-3")
    if repeated:
        trace.decided("MELD-TRIO-2")
    if profile.trio_suits_differ:
        trace.decided("PERLA-TRIO-1", "DISPUTE-63")
    if jokers:
        trace.decided("JOKER-1", "JOKER-2" if initial else "JOKER-3")
        if jokers > 1:
            trace.decided("VARIANT-06")
    return None


def _trace_wilds(meld: Meld, flags: tuple[bool, ...], profile: Profile) -> None:
    """Trace what decided whether each 2 and each natural wild card of ``meld`` is wild:
    CARDS-2 (only jokers wild; CHILE-WILD-1, PERLA-WILD-1), DISPUTE-25 for a 2, and the
    in-place reading (CHILE-WILD-3, PERLA-WILD-3, DISPUTE-49)."""
    for card, wild in zip(meld.cards, flags, strict=True):
        if card.is_joker:
            continue
        if card.rank is Rank.TWO:
            trace.decided("CARDS-2", "DISPUTE-25")
        if profile.is_wild(card):
            trace.decided("CARDS-2")
            if not wild:
                rule = "CHILE-WILD-3" if profile.name == "chilean" else "PERLA-WILD-3"
                trace.decided(rule, "DISPUTE-49")
            elif profile.rules_on("DISPUTE-49") and _in_own_place(meld, card, profile):
                trace.decided("DISPUTE-49")


def _in_own_place(meld: Meld, card: Card, profile: Profile) -> bool:
    """Whether a natural wild card would lie in its own place were it read as natural
    (DISPUTE-49 always_wild reads it wild there)."""
    flags = wild_flags(meld, replace(profile, natural_in_place=True))
    return not all(flags[i] for i, c in enumerate(meld.cards) if c == card)


def _trace_run_ends(cards: tuple[Card, ...]) -> None:
    """Trace the ace rules a valid run's ends decided by (MELD-RUN-2..5)."""
    low = _placement(cards)
    assert low is not None
    high = low + len(cards) - 1
    if low == LOW_ACE or high == HIGH_ACE:
        trace.decided("MELD-RUN-2", "MELD-RUN-3", "CARDS-3")
    if len(cards) == HIGH_ACE:
        trace.decided("MELD-RUN-4", "MELD-RUN-5")


def _masked(cards: tuple[Card, ...], profile: Profile) -> tuple[Card, ...]:
    """A run's cards with every wild card shown as a joker (DISPUTE-25 wild, CHILE-WILD-1:
    twos stand in too; CHILE-WILD-3: not a 2 in its own place; PERLA-WILD-1, PERLA-WILD-3:
    red aces, not at an ace end of their own suit)."""
    if not profile.natural_wilds:
        return cards
    flags = _run_wild_flags(cards, profile)
    return tuple(JOKER if wild else c for c, wild in zip(cards, flags, strict=True))


def wild_flags(meld: Meld, profile: Profile = ARGENTINE) -> tuple[bool, ...]:
    """For each card of ``meld``, whether it acts as a wild card there.

    Jokers always do; a natural wild card (a Chilean 2, a Perla red ace) does, unless the
    profile counts it as natural in its own place (CHILE-WILD-3, PERLA-WILD-3, DISPUTE-49): in
    a trio of its own rank, or at its own position in a run of its own suit.
    """
    if isinstance(meld, Run):
        return _run_wild_flags(meld.cards, profile)
    flags = tuple(profile.is_wild(c) for c in meld.cards)
    if not profile.natural_in_place or not any(flags):
        return flags
    # The trio's rank: that of its other natural cards (a trio of aces holding a red ace);
    # with none, the one rank of its natural wild cards (a Chilean trio of 2s and jokers).
    ranks = {c.rank for c, wild in zip(meld.cards, flags, strict=True) if not wild}
    if not ranks:
        ranks = {c.rank for c in meld.cards if c.rank is not None}
    if len(ranks) != 1:
        return flags
    rank = ranks.pop()
    return tuple(
        wild and (c.is_joker or c.rank != rank) for c, wild in zip(meld.cards, flags, strict=True)
    )


def _run_wild_flags(cards: tuple[Card, ...], profile: Profile) -> tuple[bool, ...]:
    flags = [profile.is_wild(c) for c in cards]
    if not profile.natural_in_place or not profile.natural_wilds:
        return tuple(flags)
    candidates = [i for i, c in enumerate(cards) if flags[i] and not c.is_joker]
    masked = tuple(JOKER if wild else c for c, wild in zip(cards, flags, strict=True))
    suits = {c.suit for c, wild in zip(cards, flags, strict=True) if not wild}
    for i in candidates:
        # Read the card as natural: it is, if the run still places it at its own rank and
        # every natural card shares its suit.
        trial = (*masked[:i], cards[i], *masked[i + 1 :])
        low = _placement(trial)
        if low is not None and rank_at(low + i) == cards[i].rank and suits <= {cards[i].suit}:
            flags[i] = False
            masked, suits = trial, {cards[i].suit}
    return tuple(flags)


def trio_rank(trio: Trio, profile: Profile = ARGENTINE) -> Rank | None:
    """The rank a trio stands for: that of its natural cards (a trio of 2s: 2)."""
    flags = wild_flags(trio, profile)
    return next((c.rank for c, wild in zip(trio.cards, flags, strict=True) if not wild), None)


def run_suit(run: Run, profile: Profile = ARGENTINE) -> Suit | None:
    """The suit of a run's natural cards (a wild 2 of another suit does not count)."""
    flags = _run_wild_flags(run.cards, profile)
    return next((c.suit for c, wild in zip(run.cards, flags, strict=True) if not wild), None)


def _ace_reason(cards: tuple[Card, ...], profile: Profile) -> Reason | None:
    """Why a placeable run breaks a ruling on aces, or None.

    VARIANT-02 low_only: no run reaches the high-ace position (CARDS-3, MELD-RUN-2).
    DISPUTE-12 no: both ends of a 14-card run are natural aces (MELD-RUN-4).
    """
    low = _placement(cards)
    assert low is not None  # the sequence was checked first
    high = low + len(cards) - 1
    if high == HIGH_ACE:
        trace.decided("VARIANT-02")
    if not profile.ace_high and high == HIGH_ACE:
        return _no(Reason.RUN_WRAPS if not cards[-1].is_joker else Reason.BEYOND_ACE, "VARIANT-02")
    joker_end = cards[0].is_joker or cards[-1].is_joker
    if len(cards) == HIGH_ACE and joker_end:
        trace.decided("DISPUTE-12")
        if profile.plays("DISPUTE-12", "no"):
            return _no(Reason.BEYOND_ACE, "MELD-RUN-4", "DISPUTE-12")
    return None


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
    ``does_not_fit`` (LAYOFF-4), then ``run_size`` for a card that fits but would make the run
    longer than the profile's longest (13 cards in pagat, PAGAT-RUN-4).
    """
    if isinstance(meld, Trio):
        if not profile.is_wild(card) and card.rank != trio_rank(meld, profile):
            return _no(Reason.DOES_NOT_FIT, "MELD-TRIO-4")
        if profile.is_wild(card):
            trace.decided("DISPUTE-05")
            if profile.plays("DISPUTE-05", "no"):
                # DISPUTE-05 no: only natural cards extend a trio
                return _no(Reason.DOES_NOT_FIT, "DISPUTE-05")
    else:
        if end not in ("low", "high"):
            return _no(Reason.DOES_NOT_FIT)
        placed = _placement(_masked(meld.cards, profile))
        if placed is None:
            return _no(Reason.DOES_NOT_FIT)
        low, high = placed, placed + len(meld.cards) - 1
        if (end == "low" and low == LOW_ACE) or (end == "high" and high == HIGH_ACE):
            return _no(Reason.BEYOND_ACE)
        target = low - 1 if end == "low" else high + 1
        suit = run_suit(meld, profile)
        if not profile.is_wild(card) and (card.suit != suit or card.rank != rank_at(target)):
            return _no(Reason.DOES_NOT_FIT, "MELD-RUN-6")
        if len(meld.cards) >= profile.max_run_length:
            # A card that fits but makes the run longer than the profile allows (13 cards in
            # pagat, PAGAT-RUN-4): the size reason, as check_meld and a replacement give it.
            return _no(Reason.RUN_SIZE, "MELD-RUN-4", *_long_run_points(profile))
    grown = extend(meld, card, end)
    reason = check_meld(grown, initial=False, profile=profile)
    if reason is Reason.TOO_MANY_JOKERS:
        return reason
    if reason is not None:
        return _no(Reason.DOES_NOT_FIT)
    trace.decided("LAYOFF-4", "MELD-TRIO-4" if isinstance(meld, Trio) else "MELD-RUN-6")
    if isinstance(meld, Trio) and profile.trio_suits_differ:
        trace.decided("PERLA-TRIO-4")
    return None


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


# --- Chilean wild swaps (CHILE-SWAP-1..3) ------------------------------------------------------


def swappable_wilds(meld: Meld, card: Card, profile: Profile) -> tuple[int, ...]:
    """Indices of the wild cards of ``meld`` whose place natural ``card`` may take.

    In a run: the wild card at the position of ``card`` (same rank, the run's suit). In a
    trio: every wild card, when ``card`` has the trio's rank. Either way ``card`` must lie
    there as a natural card (a 2 put in a trio of 5s would be wild itself), and a 2 lying in
    its own place is natural, so it is never swapped out (CHILE-WILD-3).
    """
    flags = wild_flags(meld, profile)
    if card.is_joker or not any(flags):
        return ()
    if isinstance(meld, Run):
        low = _placement(_masked(meld.cards, profile))
        suit = run_suit(meld, profile)
        if low is None or card.suit != suit:
            return ()
        places = [i for i, wild in enumerate(flags) if wild and rank_at(low + i) == card.rank]
    else:
        if card.rank != trio_rank(meld, profile):
            return ()
        places = [i for i, wild in enumerate(flags) if wild]
    found = []
    for i in places:
        swapped = swap_to_hand(meld, i, card)
        # One wild card fewer: the new card lies there as a natural card.
        if sum(wild_flags(swapped, profile)) == sum(flags) - 1:
            found.append(i)
    return tuple(found)


def swap_to_hand(meld: Meld, i: int, card: Card) -> Meld:
    """The meld after natural ``card`` takes the place of its wild card ``meld.cards[i]``
    (CHILE-SWAP-3: same size, same positions); no rule is checked."""
    cards = (*meld.cards[:i], card, *meld.cards[i + 1 :])
    return Run(cards) if isinstance(meld, Run) else Trio(cards)


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
