"""Hypothesis strategies for the Argentine Carioca property tests.

Every strategy builds its values from the rules text (docs/rules.md), never by asking the
reference engine what is valid, so the properties can catch the engine out. Values shrink
towards the "smallest" game: low ranks, spades, no jokers, two players, deal 1, seed 0 and
few steps of play, because each strategy draws those choices first from integers or
``sampled_from`` lists ordered that way.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from hypothesis import strategies as st

from reference import (
    ARGENTINE,
    JOKER,
    Action,
    Card,
    Discard,
    DrawDiscard,
    DrawStock,
    End,
    GameState,
    LayOff,
    Meld,
    Open,
    Phase,
    Rank,
    Run,
    Suit,
    SwapJoker,
    TableMeld,
    Trio,
    contract_for,
    full_pack,
    legal_actions,
    start_deal,
)

SUITS: tuple[Suit, ...] = tuple(Suit)
RANKS: tuple[Rank, ...] = tuple(Rank)
NATURALS: tuple[Card, ...] = tuple(Card(rank, suit) for suit in SUITS for rank in RANKS)
ALL_CODES: tuple[Card, ...] = (*NATURALS, JOKER)
PACK: Counter[Card] = Counter(full_pack())
"""The 108-card pack as a multiset: two of each natural card, four jokers (CARDS-1)."""

LOW_ACE, HIGH_ACE = 1, 14
LIVE = (Phase.DRAW, Phase.PLAY)


def rank_at(position: int) -> Rank:
    """The rank on run position 1..14 (1 and 14 are both the ace, MELD-RUN-2/4)."""
    return Rank.ACE if position == HIGH_ACE else Rank(position)


def card_at(position: int, suit: Suit) -> Card:
    """The natural card of ``suit`` standing on run position ``position``."""
    return Card(rank_at(position), suit)


def fits_pack(cards: Sequence[Card], used: Counter[Card] | None = None) -> bool:
    """True if ``cards`` (on top of ``used``) never exceed the copies the pack holds."""
    need = Counter(cards)
    if used is not None:
        need += used
    return all(n <= PACK[c] for c, n in need.items())


# --- cards --------------------------------------------------------------------------------


def naturals() -> st.SearchStrategy[Card]:
    """Any natural card; shrinks towards the ace of spades (the canonical first card)."""
    return st.sampled_from(NATURALS)


def cards() -> st.SearchStrategy[Card]:
    """Any card, jokers included; shrinks towards the ace of spades."""
    return st.sampled_from(ALL_CODES)


@st.composite
def pack_multisets(draw: st.DrawFn, min_size: int = 0, max_size: int = 20) -> tuple[Card, ...]:
    """A multiset of cards the pack can supply (≤2 of a natural, ≤4 jokers).

    Shrinks towards fewer cards and towards aces of spades.
    """
    size = draw(st.integers(min_size, max_size))
    chosen: list[Card] = []
    used: Counter[Card] = Counter()
    for _ in range(size):
        card = draw(cards())
        if used[card] < PACK[card]:
            used[card] += 1
            chosen.append(card)
    return tuple(chosen)


# --- valid melds --------------------------------------------------------------------------


@st.composite
def valid_trios(draw: st.DrawFn, initial: bool = True) -> Trio:
    """A valid trio: exactly 3 cards with ≤1 joker when ``initial`` (MELD-TRIO-1, JOKER-2);
    otherwise 3..12 cards of one rank, any jokers but at least one natural (MELD-TRIO-4).

    Shrinks towards aces, fewer cards, spades and no jokers.
    """
    rank = draw(st.sampled_from(RANKS))
    if initial:
        jokers = draw(st.integers(0, 1))
        size = 3
    else:
        size = draw(st.integers(3, 12))
        jokers = draw(st.integers(0, min(4, size - 1)))
    n_nat = size - jokers
    if n_nat > 8:  # only 8 naturals of one rank exist; the rest become jokers if they can
        n_nat = 8
    # Two copies of each suit: pick suits with replacement, capped at 2 per suit.
    suits: list[Suit] = []
    for _ in range(n_nat):
        choices = [s for s in SUITS if suits.count(s) < 2]
        suits.append(draw(st.sampled_from(choices)))
    return Trio((*(Card(rank, s) for s in suits), *(JOKER,) * jokers))


@st.composite
def valid_runs(draw: st.DrawFn, initial: bool = True) -> Run:
    """A valid run listed low to high: exactly 4 cards with ≤1 joker when ``initial``
    (MELD-RUN-1, JOKER-2); otherwise 4..14 positions within 1..14 (MELD-RUN-4/5) with up to
    4 jokers and at least one natural. Never wraps K-A-2 (MELD-RUN-3).

    Shrinks towards spades, low positions, short runs and no jokers.
    """
    suit = draw(st.sampled_from(SUITS))
    length = 4 if initial else draw(st.integers(4, 14))
    low = draw(st.integers(LOW_ACE, HIGH_ACE - length + 1))
    max_jokers = 1 if initial else min(4, length - 1)
    jokers = draw(st.integers(0, max_jokers))
    joker_at = set(draw(st.permutations(range(length)))[:jokers])
    return Run(tuple(JOKER if i in joker_at else card_at(low + i, suit) for i in range(length)))


def valid_melds(initial: bool = True) -> st.SearchStrategy[Meld]:
    """A valid trio or run (trios first, so shrinking prefers trios)."""
    return st.one_of(valid_trios(initial=initial), valid_runs(initial=initial))


# --- near-valid melds ---------------------------------------------------------------------


@dataclass(frozen=True)
class NearMiss:
    """A meld one card away from a valid initial meld, and the reasons that may reject it.

    ``reasons`` lists every code of docs/reasons.md a careful reading allows for the flaw.
    """

    meld: Meld
    flaw: str
    reasons: frozenset[str]


@st.composite
def _wrong_suit(draw: st.DrawFn) -> NearMiss:
    run = draw(valid_runs())
    naturals_at = [i for i, c in enumerate(run.cards) if not c.is_joker]
    i = draw(st.sampled_from(naturals_at))
    card = run.cards[i]
    other = draw(st.sampled_from([s for s in SUITS if s != card.suit]))
    cards_ = list(run.cards)
    cards_[i] = Card(card.rank, other)
    return NearMiss(Run(tuple(cards_)), "wrong suit", frozenset({"run_suit"}))


@st.composite
def _gap(draw: st.DrawFn) -> NearMiss:
    # A natural-only initial run with one interior card swapped for another rank of the suit:
    # its natural cards no longer agree on where the sequence starts (MELD-RUN-6).
    suit = draw(st.sampled_from(SUITS))
    low = draw(st.integers(LOW_ACE, HIGH_ACE - 3))
    cards_ = [card_at(low + i, suit) for i in range(4)]
    i = draw(st.sampled_from([1, 2]))
    rank = draw(st.sampled_from([r for r in RANKS if r != cards_[i].rank]))
    cards_[i] = Card(rank, suit)
    return NearMiss(Run(tuple(cards_)), "gap", frozenset({"run_gap"}))


@st.composite
def _wrap(draw: st.DrawFn) -> NearMiss:
    # Q-K-A-2 or K-A-2-3 of one suit; optionally one interior joker, so natural cards still
    # sit on both sides of the corner (a joker at an end would read as beyond an ace instead).
    suit = draw(st.sampled_from(SUITS))
    ranks = draw(
        st.sampled_from(
            [
                (Rank.QUEEN, Rank.KING, Rank.ACE, Rank.TWO),
                (Rank.KING, Rank.ACE, Rank.TWO, Rank.THREE),
            ]
        )
    )
    cards_: list[Card] = [Card(r, suit) for r in ranks]
    joker = draw(st.sampled_from([None, 1, 2]))
    if joker is not None:
        cards_[joker] = JOKER
    return NearMiss(Run(tuple(cards_)), "wrap K-A-2", frozenset({"run_wraps"}))


@st.composite
def _extra_joker(draw: st.DrawFn) -> NearMiss:
    # A valid initial meld with a second natural turned into a joker: two jokers (JOKER-2).
    meld = draw(valid_melds())
    naturals_at = [i for i, c in enumerate(meld.cards) if not c.is_joker]
    cards_ = list(meld.cards)
    if sum(c.is_joker for c in cards_) == 0:
        cards_[naturals_at[0]] = JOKER
        naturals_at = naturals_at[1:]
    i = draw(st.sampled_from(naturals_at[:-1]))  # keep at least one natural card
    cards_[i] = JOKER
    built: Meld = Trio(tuple(cards_)) if isinstance(meld, Trio) else Run(tuple(cards_))
    return NearMiss(built, "extra joker", frozenset({"too_many_jokers"}))


@st.composite
def _wrong_size(draw: st.DrawFn) -> NearMiss:
    # One card short or one card over the exact opening size (MELD-TRIO-1, MELD-RUN-1).
    if draw(st.booleans()):
        trio = draw(valid_trios())
        rank = next(c.rank for c in trio.cards if not c.is_joker)
        if draw(st.booleans()):
            return NearMiss(Trio(trio.cards[1:]), "trio short", frozenset({"trio_size"}))
        extra = Card(rank, draw(st.sampled_from(SUITS)))
        return NearMiss(Trio((*trio.cards, extra)), "trio long", frozenset({"trio_size"}))
    suit = draw(st.sampled_from(SUITS))
    length = draw(st.sampled_from([3, 5]))
    low = draw(st.integers(LOW_ACE, HIGH_ACE - length + 1))
    run = Run(tuple(card_at(low + i, suit) for i in range(length)))
    return NearMiss(run, f"run of {length}", frozenset({"run_size"}))


@st.composite
def _mixed_ranks(draw: st.DrawFn) -> NearMiss:
    trio = draw(valid_trios())
    naturals_at = [i for i, c in enumerate(trio.cards) if not c.is_joker]
    i = draw(st.sampled_from(naturals_at))
    card = trio.cards[i]
    rank = draw(st.sampled_from([r for r in RANKS if r != card.rank]))
    cards_ = list(trio.cards)
    cards_[i] = Card(rank, draw(st.sampled_from(SUITS)))
    return NearMiss(Trio(tuple(cards_)), "mixed ranks", frozenset({"trio_mixed_ranks"}))


def near_valid_melds() -> st.SearchStrategy[NearMiss]:
    """An initial meld one card off: wrong suit, gap, K-A-2 wrap, extra joker, wrong size or
    a trio of two ranks. Shrinks towards the first flaw in that list and its smallest meld.
    """
    return st.one_of(_wrong_suit(), _gap(), _wrap(), _extra_joker(), _wrong_size(), _mixed_ranks())


# --- hands and contracts ------------------------------------------------------------------


@st.composite
def opening_hands(draw: st.DrawFn, deal_number: int) -> tuple[tuple[Card, ...], tuple[Meld, ...]]:
    """A hand of the deal's size plus the drawn card that holds a planted opening.

    Returns ``(hand, planted_opening)``: the contract's trios then runs, each a valid
    initial meld (CONTRACT-1..8), plus filler cards the pack can still supply.
    Shrinks towards the simplest melds and the lowest filler cards.
    """
    contract = contract_for(ARGENTINE, deal_number)
    used: Counter[Card] = Counter()
    melds: list[Meld] = []
    for kind, count in ((valid_trios, contract.trios), (valid_runs, contract.runs)):
        for _ in range(count):
            meld = draw(kind().filter(lambda m: fits_pack(m.cards, used)))
            used.update(meld.cards)
            melds.append(meld)
    size = ARGENTINE.hand_size(deal_number) + 1
    hand = [c for m in melds for c in m.cards]
    while len(hand) < size:
        # Drawing only among cards still available keeps every draw useful (no rejection
        # loop), so the smallest example is small.
        card = draw(st.sampled_from([c for c in ALL_CODES if used[c] < PACK[c]]))
        used[card] += 1
        hand.append(card)
    order = draw(st.permutations(hand))
    return tuple(order), tuple(melds)


def _has_four_in_a_row(positions: set[int]) -> bool:
    return any(all(p + k in positions for k in range(4)) for p in range(LOW_ACE, HIGH_ACE - 2))


@st.composite
def non_opening_hands(draw: st.DrawFn, deal_number: int) -> tuple[Card, ...]:
    """A hand of the deal's size plus one that cannot meet the contract, by construction.

    No jokers; if the contract needs a trio, no rank appears three times (so no trio of
    MELD-TRIO-1 exists); if it needs only runs, no suit holds four consecutive positions on
    the 1..14 ladder (so no run of MELD-RUN-1 exists). Shrinks towards low cards.
    """
    contract = contract_for(ARGENTINE, deal_number)
    size = ARGENTINE.hand_size(deal_number) + 1
    hand: list[Card] = []

    def allowed(card: Card) -> bool:
        if hand.count(card) >= 2:
            return False
        if contract.trios:
            return sum(1 for c in hand if c.rank == card.rank) < 2
        positions = {p for c in (*hand, card) if c.suit == card.suit for p in _positions(c)}
        return not _has_four_in_a_row(positions)

    while len(hand) < size:
        # Only cards that keep the hand meld-free are offered, so no draw is wasted.
        hand.append(draw(st.sampled_from([c for c in NATURALS if allowed(c)])))
    return tuple(hand)


def _positions(card: Card) -> tuple[int, ...]:
    assert card.rank is not None
    return (LOW_ACE, HIGH_ACE) if card.rank is Rank.ACE else (card.rank.value,)


# --- reachable states ---------------------------------------------------------------------


def seeded_deck(seed: int) -> tuple[Card, ...]:
    """The 108 cards shuffled by ``random.Random(seed)``: a real, reproducible deal."""
    deck = list(full_pack())
    random.Random(seed).shuffle(deck)
    return tuple(deck)


def _partners(card: Card, hand: Sequence[Card]) -> int:
    """How many other cards of ``hand`` could share a meld with ``card`` (a rough keep-score).

    Jokers score high so the greedy policy keeps them.
    """
    if card.is_joker or card.rank is None:
        return 99
    others = list(hand)
    others.remove(card)
    score = 0
    for other in others:
        if (
            other.rank is None
            or other.rank == card.rank
            or (other.suit == card.suit and abs(other.rank.value - card.rank.value) <= 2)
        ):
            score += 1
    return score


Policy = Callable[[GameState, random.Random], Action]


def random_policy(state: GameState, rng: random.Random) -> Action:
    """Any legal action, uniformly, except that it always opens when it can."""
    legal = legal_actions(state)
    opens = [a for a in legal if isinstance(a, Open)]
    return opens[0] if opens else rng.choice(legal)


def greedy_policy(state: GameState, rng: random.Random) -> Action:
    """Draw from the stock, open, lay off or swap a joker whenever listed, else discard the
    card with the fewest partners (ties broken by ``rng``)."""
    legal = legal_actions(state)
    if state.phase is Phase.DRAW:
        return legal[0]  # legal_actions lists the stock draw first
    melds = [a for a in legal if isinstance(a, Open | LayOff | SwapJoker)]
    if melds:
        return melds[rng.randrange(len(melds))] if len(melds) > 1 else melds[0]
    hand = state.hands[state.turn]
    discards = [a for a in legal if isinstance(a, Discard)]
    fewest = min(_partners(a.card, hand) for a in discards)
    return rng.choice([a for a in discards if _partners(a.card, hand) == fewest])


POLICIES: dict[str, Policy] = {"greedy": greedy_policy, "random": random_policy}


@dataclass(frozen=True)
class Playout:
    """A real deal played for some steps: the start, the actions taken and every state."""

    seed: int
    policy: str
    actions: tuple[Action, ...]
    states: tuple[GameState, ...]
    """``states[0]`` is the deal as dealt; ``states[i + 1]`` follows ``actions[i]``."""

    @property
    def final(self) -> GameState:
        """The last state reached."""
        return self.states[-1]


def play(state: GameState, policy: str, seed: int, steps: int) -> Playout:
    """Play ``steps`` actions (fewer if the deal ends) from ``state`` with a seeded policy."""
    from reference import apply  # local: keeps the strategies' import list about values

    rng = random.Random(seed)
    choose = POLICIES[policy]
    states = [state]
    actions: list[Action] = []
    for _ in range(steps):
        if state.phase not in LIVE:
            break
        action = choose(state, rng)
        state = apply(state, action)
        actions.append(action)
        states.append(state)
    return Playout(seed, policy, tuple(actions), tuple(states))


@st.composite
def dealt_states(draw: st.DrawFn) -> GameState:
    """A fresh deal from a seeded shuffle: 2-4 players, deal 1-7, any dealer.

    Shrinks towards 2 players, deal 1, dealer 0 and seed 0.
    """
    players = draw(st.integers(2, 4))
    deal_number = draw(st.integers(1, 7))
    dealer = draw(st.integers(0, players - 1))
    seed = draw(st.integers(0, 2**32 - 1))
    totals = tuple(draw(st.lists(st.integers(0, 300), min_size=players, max_size=players)))
    return start_deal(ARGENTINE, players, deal_number, dealer, totals, seeded_deck(seed), seed=seed)


@st.composite
def playouts(draw: st.DrawFn, max_steps: int = 160) -> Playout:
    """A real shuffled deal played by the greedy or random policy for up to ``max_steps``.

    Shrinks towards the greedy policy, fewer steps and the simplest deal.
    """
    state = draw(dealt_states())
    policy = draw(st.sampled_from(sorted(POLICIES)))
    steps = draw(st.integers(0, max_steps))
    seed = draw(st.integers(0, 2**16))
    return play(state, policy, seed, steps)


def reachable_states(max_steps: int = 160) -> st.SearchStrategy[GameState]:
    """The last state of a :func:`playouts` run: any state a real deal can reach."""
    return playouts(max_steps).map(lambda p: p.final)


# --- constructed mid-deal states (lay-offs and joker swaps happen at once) ----------------


@st.composite
def table_states(draw: st.DrawFn) -> GameState:
    """A mid-deal state in ``play`` phase whose current player has opened on an earlier turn.

    The table holds 1-4 valid table melds (with jokers, so joker swaps are possible); the
    current player's hand holds some cards that fit them, including cards a table joker
    stands for; every other card of the pack goes to the other hands, the stock and the
    discard, so the state holds exactly the 108 cards. Deal 1-5 (after an opening in deals
    6-7 no play is left, END-3). Shrinks towards few melds, few cards and 2 players.
    """
    players = draw(st.integers(2, 4))
    deal_number = draw(st.integers(1, 5))
    turn = draw(st.integers(0, players - 1))
    used: Counter[Card] = Counter()
    table: list[TableMeld] = []
    for _ in range(draw(st.integers(1, 4))):
        meld = draw(valid_melds(initial=False))
        if fits_pack(meld.cards, used):
            used.update(meld.cards)
            owner = draw(st.integers(0, players - 1))
            table.append(TableMeld(owner, meld))
    hand: list[Card] = []
    # Cards a table joker stands for, and cards that extend a meld, so swaps and lay-offs
    # are listed; then a few random cards.
    wanted: list[Card] = []
    for tm in table:
        meld = tm.meld
        if isinstance(meld, Run):
            suit = meld.suit
            assert suit is not None
            wanted += [meld.represented(i) for i, c in enumerate(meld.cards) if c.is_joker]
            if meld.low > LOW_ACE:
                wanted.append(card_at(meld.low - 1, suit))
            if meld.high < HIGH_ACE:
                wanted.append(card_at(meld.high + 1, suit))
        else:
            rank = meld.rank
            assert rank is not None
            wanted.append(Card(rank, draw(st.sampled_from(SUITS))))
    fitting = draw(st.lists(st.sampled_from(wanted), max_size=4)) if wanted else []
    for card in fitting + list(draw(pack_multisets(1, 6))):
        if used[card] < PACK[card]:
            used[card] += 1
            hand.append(card)
    if not hand:
        hand.append(next(c for c in ALL_CODES if used[c] < PACK[c]))
        used[hand[0]] += 1
    rest = list((PACK - used).elements())
    random.Random(draw(st.integers(0, 2**16))).shuffle(rest)
    hands: list[tuple[Card, ...]] = []
    cut = 0
    for p in range(players):
        if p == turn:
            hands.append(tuple(hand))
        else:
            n = draw(st.integers(1, 11))
            hands.append(tuple(rest[cut : cut + n]))
            cut += n
    discard_n = draw(st.integers(1, 5))
    discard = tuple(rest[cut : cut + discard_n])
    stock = tuple(rest[cut + discard_n :])
    owners = {tm.owner for tm in table}
    opened = tuple(p == turn or p in owners or draw(st.booleans()) for p in range(players))
    return GameState(
        profile=ARGENTINE,
        players=players,
        deal_number=deal_number,
        dealer=(turn - 1) % players,
        turn=turn,
        phase=Phase.PLAY,
        hands=tuple(hands),
        opened=opened,
        turn_opened=False,
        table=tuple(table),
        stock=stock,
        discard=discard,
        totals=(0,) * players,
        seed=draw(st.integers(0, 2**16)),
    )


# --- actions ------------------------------------------------------------------------------


def legal_action_of(state: GameState) -> st.SearchStrategy[Action]:
    """One of ``legal_actions(state)``; shrinks towards the first listed (draws, openings)."""
    return st.sampled_from(legal_actions(state))


@st.composite
def illegal_probes(draw: st.DrawFn, state: GameState) -> Action:
    """A deliberately doubtful action for ``state``: out of turn, a draw in the wrong phase,
    a card the player lacks, a meld index off the table, a joker to the hand or to another
    meld, a lay-off that does not fit, a bogus opening; and near-legal discards, lay-offs
    and swaps of a held card. The tests judge each one with the rules, never assuming it is
    illegal. Shrinks towards discarding the first held card.
    """
    players = state.players
    me = state.turn
    other = (me + draw(st.integers(1, max(1, players - 1)))) % players
    hand = state.hands[me]
    # Half the time the card comes from the player's hand and the meld index is on the
    # table, so that some probes are legal and completeness of legal_actions is exercised.
    near = draw(st.booleans())
    card = draw(st.sampled_from(hand)) if near and hand else draw(cards())
    if near and state.table:
        meld_index = draw(st.integers(0, len(state.table) - 1))
    else:
        meld_index = draw(st.integers(-1, len(state.table) + 1))
    kind = draw(
        st.sampled_from(
            [
                "discard",
                "lay_off",
                "swap",
                "other_draw_stock",
                "other_draw_discard",
                "draw_stock",
                "draw_discard",
                "other_discard",
                "swap_hand",
                "swap_other",
                "open",
            ]
        )
    )
    if kind == "other_draw_stock":
        return DrawStock(other)
    if kind == "other_draw_discard":
        return DrawDiscard(other)
    if kind == "draw_stock":
        return DrawStock(me)
    if kind == "draw_discard":
        return DrawDiscard(me)
    if kind == "other_discard":
        return Discard(other, card)
    if kind == "discard":
        return Discard(me, card)
    if kind == "lay_off":
        return LayOff(me, card, meld_index, draw(st.sampled_from([End.LOW, End.HIGH])))
    if kind.startswith("swap"):
        to = "hand" if kind == "swap_hand" else draw(st.sampled_from(["low", "high"]))
        to_meld = meld_index + 1 if kind == "swap_other" else None
        return SwapJoker(me, meld_index, card, to, to_meld)
    melds = tuple(draw(st.lists(valid_melds(), min_size=1, max_size=3)))
    return Open(me, melds)


def state_with_hand(hand: Sequence[Card], deal_number: int, players: int = 2) -> GameState:
    """Player 0 to move in ``play`` phase of deal ``deal_number``, unopened, holding ``hand``.

    The rest of the pack fills the other hands (the deal's size each), one discard and the
    stock, in canonical order, so the state holds exactly the 108 cards.
    """
    rest = list((PACK - Counter(hand)).elements())
    size = ARGENTINE.hand_size(deal_number)
    hands = [tuple(hand)] + [tuple(rest[i * size : (i + 1) * size]) for i in range(players - 1)]
    cut = size * (players - 1)
    return GameState(
        profile=ARGENTINE,
        players=players,
        deal_number=deal_number,
        dealer=players - 1,
        turn=0,
        phase=Phase.PLAY,
        hands=tuple(hands),
        opened=(False,) * players,
        turn_opened=False,
        table=(),
        stock=tuple(rest[cut + 1 :]),
        discard=(rest[cut],),
        totals=(0,) * players,
    )


def opening_key(melds: Sequence[Meld]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """An opening as an order-free value: the melds' kinds and card codes, sorted.

    Meld order in an opening carries no meaning, and a trio's cards are a multiset (the
    Trio constructor sorts them); a run's order does matter (it places its jokers).
    """
    return tuple(sorted((m.kind, tuple(c.code() for c in m.cards)) for m in melds))


@st.composite
def candidate_openings(draw: st.DrawFn, hand: Sequence[Card], deal_number: int) -> tuple[Meld, ...]:
    """Melds of the deal's contract kinds cut from ``hand``: some opening-shaped, some not.

    Each trio takes cards of one rank the hand holds, topped up with jokers it holds; each
    run takes the cards of one suit on a 4-position window, a joker (if held) standing in
    for a missing card. Cards are never reused, so the candidate is in the hand. Candidates
    are often real openings the solver must also list, and often not (two jokers, a gap).
    Shrinks towards aces and spades and low windows.
    """
    contract = contract_for(ARGENTINE, deal_number)
    pool = Counter(hand)
    melds: list[Meld] = []

    def take(card: Card) -> Card | None:
        if pool[card] > 0:
            pool[card] -= 1
            return card
        if pool[JOKER] > 0:
            pool[JOKER] -= 1
            return JOKER
        return None

    held = sorted({c for c in hand if not c.is_joker}, key=Card.sort_key) or list(NATURALS)
    counts = Counter(c.rank for c in hand if c.rank is not None)
    # Prefer ranks held at least twice and windows mostly held, so that real openings come
    # up often; the rest of the time any held card anchors the meld.
    pairs = sorted((r for r, n in counts.items() if n >= 2), key=lambda r: r.value)
    windows = [
        (low, suit)
        for suit in SUITS
        for low in range(LOW_ACE, HIGH_ACE - 2)
        if sum(card_at(low + k, suit) in pool for k in range(4)) >= 3
    ]
    for _ in range(contract.trios):
        if pairs and draw(st.booleans()):
            rank = draw(st.sampled_from(pairs))
        else:
            rank = draw(st.sampled_from(held)).rank
        assert rank is not None
        suits = draw(st.lists(st.sampled_from(SUITS), min_size=3, max_size=3))
        got = [take(Card(rank, s)) for s in suits]
        melds.append(Trio(tuple(c for c in got if c is not None)))
    for _ in range(contract.runs):
        if windows and draw(st.booleans()):
            low, suit = draw(st.sampled_from(windows))
        else:
            anchor = draw(st.sampled_from(held))
            assert anchor.suit is not None
            start = draw(st.sampled_from(_positions(anchor))) - draw(st.integers(0, 3))
            low, suit = min(max(start, LOW_ACE), HIGH_ACE - 3), anchor.suit
        got = [take(card_at(low + k, suit)) for k in range(4)]
        melds.append(Run(tuple(c for c in got if c is not None)))
    return tuple(melds)
