"""Turn flow, legality and dealing: the judge of the reference engine.

A :class:`GameState` is immutable. :func:`apply` checks an action and returns the next
state, or raises :class:`IllegalActionError` naming the first broken rule in the precedence
of docs/reasons.md; the old state is untouched either way (DISPUTE-35).
"""

from __future__ import annotations

import enum
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from reference import trace
from reference.actions import (
    SWAP_DESTINATIONS,
    Action,
    Discard,
    DrawDiscard,
    DrawStock,
    End,
    LayOff,
    Open,
    Pass,
    SwapJoker,
)
from reference.cards import JOKER, Card, Rank, full_pack, sort_cards
from reference.contracts import check_contract, find_openings
from reference.deadwood import hand_score, trace_values
from reference.errors import IllegalActionError, InvalidActionError, InvalidStateError
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


# --- dealing --------------------------------------------------------------------------------


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


def _next_seed(seed: int) -> int:
    """A fresh seed derived from the previous one, so every shuffle differs but replays."""
    return random.Random(seed).getrandbits(63)


def start_deal(
    profile: Profile,
    players: int,
    deal_number: int,
    dealer: int,
    totals: Sequence[int],
    deck: Sequence[Card],
    *,
    seed: int = 0,
    cut: int | None = None,
) -> GameState:
    """Deal ``deck`` (``deck[0]`` on top) for deal ``deal_number`` (docs/protocol.md §7).

    One card at a time from the dealer's right-hand neighbour onward, dealer last, until each
    player has the deal's hand size (DEAL-3); the next card starts the discard pile; the rest
    is the stock (DEAL-4); the dealer's right-hand neighbour moves first (DEAL-5).

    ``cut`` is the number of cards the cutter left for the dealer (perla, docs/protocol.md
    §10); it never changes the deal, but a perfect one scores for the cutter at once
    (PERLA-CUT-1, PERLA-CUT-2).

    :raises InvalidStateError: for a player count, deal number, dealer, totals, deck or cut
        the profile does not allow.
    """
    problems = []
    if not profile.min_players <= players <= profile.max_players:
        problems.append(f"players {players} not in {profile.min_players}..{profile.max_players}")
    if not 1 <= deal_number <= profile.deals:
        problems.append(f"deal_number {deal_number} not in 1..{profile.deals}")
    if not 0 <= dealer < max(players, 1):
        problems.append(f"dealer {dealer} is not a player")
    if len(totals) != players:
        problems.append(f"totals has {len(totals)} entries for {players} players")
    problems += _deck_problems(profile, deck, players)
    if cut is not None and not 1 <= cut < len(deck):
        problems.append(f"cut {cut} does not leave two parts of a {len(deck)}-card deck")
    if problems:
        raise InvalidStateError(problems)
    if trace.active():
        _trace_dealing(profile, players, deal_number)
    size = profile.hand_size(deal_number)
    hands: list[list[Card]] = [[] for _ in range(players)]
    for i in range(size * players):
        hands[(dealer + 1 + i) % players].append(deck[i])
    first = (dealer + 1) % players
    upcard, stock = deck[size * players], tuple(deck[size * players + 1 :])
    if upcard.is_joker or upcard.rank is Rank.TWO or upcard in profile.wild_cards:
        trace.decided("DISPUTE-09")  # the options part ways: it stays, or is buried
    if profile.ruling("DISPUTE-09") in ("bury", "jokers"):
        # DISPUTE-09 bury (DEAL-4): a joker or a 2 turned up goes to the bottom of the
        # stock and the next card is turned up instead; DISPUTE-09 jokers: a joker only.
        # CHILE-DEAL-7 (DISPUTE-51): in the Chilean profile only a wild upcard is buried.
        # In perla a wild upcard is a joker or a red ace (PERLA-WILD-1).
        for _ in range(len(stock)):
            natural = upcard.rank in profile.bury_ranks or upcard in profile.wild_cards
            if not upcard.is_joker and not (natural and profile.bury_wild_naturals):
                break
            trace.decided("CHILE-DEAL-7")
            upcard, stock = stock[0], (*stock[1:], upcard)
    return GameState(
        profile=profile,
        players=players,
        deal_number=deal_number,
        dealer=dealer,
        turn=first,
        phase=Phase.DRAW,
        hands=tuple(tuple(h) for h in hands),
        opened=(False,) * players,
        turn_opened=False,
        table=(),
        stock=stock,
        discard=(upcard,),
        totals=_cut_totals(profile, players, deal_number, dealer, totals, cut),
        seed=seed,
    )


def _trace_dealing(profile: Profile, players: int, deal_number: int) -> None:
    """Trace the rules a deal is dealt by: the player count (PLAYERS-1, DISPUTE-32), the
    pack (CARDS-1; CHILE-CARDS-2 and DISPUTE-43 for the big pack), the dealing order, hand
    size, upcard and first player (DEAL-2..5; DISPUTE-33, VARIANT-05), the contract number
    (GAME-1)."""
    trace.decided("PLAYERS-1", "DEAL-2", "DEAL-3", "DEAL-4", "DEAL-5", "GAME-1")
    if players > 4:
        trace.decided("DISPUTE-32")
    if profile.big_pack_players is not None and players >= profile.big_pack_players:
        trace.decided("CHILE-CARDS-2", "DISPUTE-43")
    else:
        trace.decided("CARDS-1")
    if profile.name != "perla":
        trace.decided("VARIANT-05")  # perla's hand sizes are DISPUTE-68's, by the round
    if deal_number == 7 or (profile.name == "perla" and deal_number == profile.deals):
        trace.decided("DISPUTE-33")
    if deal_number == 8 and profile.name in ("argentine", "pagat"):
        trace.decided("DISPUTE-27")


def _cut_totals(
    profile: Profile,
    players: int,
    deal_number: int,
    dealer: int,
    totals: Sequence[int],
    cut: int | None,
) -> tuple[int, ...]:
    """``totals`` with a perfect cut scored for the cutter, the dealer's left-hand neighbour
    (PERLA-DEAL-1, PERLA-CUT-1, PERLA-CUT-2, DISPUTE-67)."""
    if cut is not None:
        trace.decided("PERLA-CUT-1")
        if cut == profile.perfect_cut(players, deal_number):
            trace.decided("DISPUTE-67")
    if not profile.cut_score or cut != profile.perfect_cut(players, deal_number):
        return tuple(totals)
    cutter = (dealer - 1) % players
    trace.decided("PERLA-CUT-2", "PERLA-DEAL-1", "DISPUTE-67")
    return tuple(t + profile.cut_score if i == cutter else t for i, t in enumerate(totals))


def shuffled_pack(
    profile: Profile, rng: random.Random, players: int | None = None
) -> tuple[Card, ...]:
    """A full pack for ``players`` (default: the smallest) shuffled by ``rng`` (never the
    global random generator)."""
    pack = list(full_pack(*profile.pack(players or profile.min_players)))
    rng.shuffle(pack)
    return tuple(pack)


def new_game(profile: Profile, players: int, seed: int) -> GameState:
    """Deal 1 of a new game; the first dealer is drawn by lot from ``seed`` (DEAL-1)."""
    rng = random.Random(seed)
    dealer = rng.randrange(players) if players > 0 else 0
    trace.decided("DEAL-1", *(("DISPUTE-74",) if "DISPUTE-74" in profile.rulings else ()))
    if profile.rules_on("DISPUTE-74", "first_seat"):
        dealer = 0  # DISPUTE-74 first_seat: player 0 deals the first round
    deck = shuffled_pack(profile, rng, players)
    return start_deal(profile, players, 1, dealer, (0,) * players, deck, seed=rng.getrandbits(63))


def next_deal(state: GameState, deck: Sequence[Card], cut: int | None = None) -> GameState:
    """The next deal, dealt from ``deck`` (``cut`` as in :func:`start_deal`), once the
    current one has ended.

    After a close: the next deal number, the next dealer to the right (DEAL-2). After a
    cancellation: the same deal and dealer, totals unchanged (STOCK-2, DISPUTE-17).

    :raises IllegalActionError: ``deal_in_progress`` during a deal, ``game_over`` after the
        last deal.
    :raises InvalidStateError: for a wrong deck.
    """
    if state.phase in _LIVE:
        raise _reject("next_deal", Reason.DEAL_IN_PROGRESS)
    if state.phase is Phase.GAME_OVER:
        raise _reject("next_deal", Reason.GAME_OVER, rules=("END-4", "GAME-1"))
    deal_number, dealer = state.deal_number, state.dealer
    if state.phase is Phase.DEAL_OVER:
        # After the last deal only a DISPUTE-15 tiebreak round is left: it replays the
        # last deal's number and contract.
        deal_number = min(deal_number + 1, state.profile.deals)
        dealer = (dealer + 1) % state.players
        trace.decided("DEAL-2", "GAME-1", "PERLA-DEAL-2")
        if deal_number == state.deal_number:
            trace.decided("DISPUTE-15", "END-5")  # the tiebreak round
    else:
        trace.decided("STOCK-2", "DISPUTE-17", "GAME-1")
        if state.profile.ruling("DISPUTE-17") == "next_dealer":
            dealer = (dealer + 1) % state.players  # DISPUTE-17 next_dealer: the replay passes on
    return start_deal(
        state.profile,
        state.players,
        deal_number,
        dealer,
        state.totals,
        deck,
        seed=_next_seed(state.seed),
        cut=cut,
    )


def before_first_draw(state: GameState) -> bool:
    """True if the deal still looks exactly as dealt: no one has drawn yet.

    The engine remembers the first draw (``drawn``, kept under the JSON's ``x``). A state
    loaded without it is judged by the table: the first player to move, nothing melded, and
    no more than the upcard on the discard pile (every turn that draws from the stock
    leaves a discard behind).
    """
    # Hand sizes and the upcard are not consulted: a misdeal is exactly a deal where they
    # are wrong, and it must still be redealt (DEAL-6).
    return (
        not state.drawn
        and state.phase is Phase.DRAW
        and state.turn == (state.dealer + 1) % state.players
        and not state.table
        and not any(state.opened)
        and len(state.discard) <= 1
    )


def redeal(state: GameState, deck: Sequence[Card]) -> GameState:
    """A complete redeal of the current deal from ``deck`` (DEAL-6, DISPUTE-16).

    Same deal number, same dealer, totals unchanged.

    :raises IllegalActionError: ``deal_over`` once the deal has ended, ``redeal_too_late``
        once the first draw was made.
    :raises InvalidStateError: for a wrong deck.
    """
    if state.phase not in _LIVE:
        raise _reject("redeal", Reason.DEAL_OVER, rules=("DEAL-6",))
    if not before_first_draw(state):
        raise _reject("redeal", Reason.REDEAL_TOO_LATE)
    if state.deal_number != 1:
        trace.decided("DISPUTE-37")
        if state.profile.ruling("DISPUTE-37") == "first_deal":
            # DISPUTE-37 first_deal
            raise _reject("redeal", Reason.REDEAL_TOO_LATE, rules=("DEAL-6", "DISPUTE-37"))
    trace.decided("DEAL-6", "DISPUTE-16", "GAME-1")
    dealer = state.dealer
    if state.profile.ruling("DISPUTE-16") == "next_dealer":
        dealer = (dealer + 1) % state.players  # DISPUTE-16 next_dealer
    return start_deal(
        state.profile,
        state.players,
        state.deal_number,
        dealer,
        state.totals,
        deck,
        seed=_next_seed(state.seed),
    )


# --- applying actions -----------------------------------------------------------------------


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


def _check_form(action: object) -> None:
    """Reject input that is not an action at all (malformed, not illegal)."""
    if not isinstance(action, DrawStock | DrawDiscard | Open | LayOff | SwapJoker | Discard | Pass):
        raise InvalidActionError(f"not an action: {action!r}")
    if isinstance(action, Open) and not all(isinstance(m, Trio | Run) for m in action.melds):
        raise InvalidActionError(f"an opening holds only trios and runs: {action!r}")
    if isinstance(action, SwapJoker) and action.to not in SWAP_DESTINATIONS:
        raise InvalidActionError(f"swap_joker 'to' must be low, high or hand: {action.to!r}")


def apply(state: GameState, action: Action) -> GameState:
    """The state after ``action``, checked against every rule.

    :raises IllegalActionError: the action breaks a rule; ``.reason`` is the first failing
        check in the precedence of docs/reasons.md.
    :raises InvalidActionError: the action is malformed (not an action, a run lay-off
        without an end, a swap destination other than low/high/hand).
    """
    _check_form(action)

    # 1. The deal must be live (END-1).
    if state.phase not in _LIVE:
        raise _reject(action, Reason.DEAL_OVER, f"phase is {state.phase.value}")
    # 2. Only the player to move acts (TURN-1); taking the discard out of turn is a buy (TURN-3).
    player = action.player
    profile = state.profile
    if player != state.turn:
        if (
            isinstance(action, DrawDiscard | Pass)
            and profile.ruling("DISPUTE-29") == "steal"
            and 0 <= player < state.players
        ):
            return _steal(state, action)
        if (
            isinstance(action, DrawDiscard)
            and profile.rules_on("DISPUTE-53", "yes")
            and state.discard
            and 0 <= player < state.players
        ):
            trace.decided("TURN-3", "DISPUTE-53")
            return _take_discard(state, player, points=0)  # DISPUTE-53 yes: no charge
        if isinstance(action, Pass):
            raise _reject(
                action,
                Reason.NOT_YOUR_TURN,
                "DISPUTE-29: no steal is open",
                rules=("TURN-1", "DISPUTE-29"),
            )
        if isinstance(action, DrawDiscard):
            points = ("DISPUTE-29", "DISPUTE-53")
            buy = points if "DISPUTE-53" in profile.rulings else points[:1]
            raise _reject(
                action,
                Reason.BUY_OUT_OF_TURN,
                f"it is player {state.turn}'s turn",
                rules=("TURN-3", *buy),
            )
        raise _reject(action, Reason.NOT_YOUR_TURN, f"it is player {state.turn}'s turn")
    trace.decided("TURN-1")
    if isinstance(action, Pass):
        # The player to move passes on the discard by drawing from the stock (DISPUTE-29).
        drew = state.phase is Phase.PLAY
        reason = Reason.ALREADY_DREW if drew else Reason.DRAW_FIRST
        raise _reject(action, reason, rules=("TURN-2", "DISPUTE-29"))
    # 3. Exactly one draw, first (TURN-2).
    if isinstance(action, DrawStock | DrawDiscard):
        if state.phase is Phase.PLAY:
            raise _reject(action, Reason.ALREADY_DREW)
        trace.decided("TURN-2")
        if isinstance(action, DrawDiscard):
            if not state.discard:
                trace.decided("DISPUTE-36")
                if profile.ruling("DISPUTE-36") == "stock_instead":
                    return _draw_stock(state, player)  # DISPUTE-36 stock_instead
                raise _reject(action, Reason.EMPTY_DISCARD, rules=("TURN-2", "DISPUTE-36"))
            top = state.discard[0]
            return replace(_draw(state, player, top, state.stock, state.discard[1:]), taken=top)
        drawn = _draw_stock(state, player)
        if profile.ruling("DISPUTE-18") == "a" and drawn.phase is Phase.PLAY:
            drawn = _recycle(drawn)  # DISPUTE-18 a: right after the last stock card is drawn
        if profile.ruling("DISPUTE-29") == "steal" and drawn.phase is Phase.PLAY:
            trace.decided("DISPUTE-29")
            drawn = replace(drawn, passed=(player,))  # DISPUTE-29 steal: the first pass
        return drawn
    if state.phase is Phase.DRAW:
        rules = ("TURN-2", "TURN-5") if isinstance(action, Discard) else ("TURN-2", "TURN-4")
        raise _reject(action, Reason.DRAW_FIRST, rules=rules)
    # 4. Every card used comes from the player's own hand (TURN-10).
    hand = state.hands[player]
    used = [c for m in action.melds for c in m.cards] if isinstance(action, Open) else [action.card]
    if not _holds(hand, used):
        raise _reject(
            action, Reason.CARD_NOT_IN_HAND, f"hand is {' '.join(c.code() for c in hand)}"
        )
    trace.decided("TURN-10")
    if isinstance(action, Discard):
        if action.card.is_joker:
            trace.decided("DISPUTE-08")
            if profile.ruling("DISPUTE-08") == "no":
                detail = "DISPUTE-08 no: a joker is never discarded"
                raise _reject(action, Reason.DOES_NOT_FIT, detail, rules=("TURN-5", "DISPUTE-08"))
        if action.card == state.taken:
            trace.decided("DISPUTE-19")
            if profile.ruling("DISPUTE-19") == "forbidden":
                detail = "DISPUTE-19 forbidden: the taken card"
                raise _reject(action, Reason.DOES_NOT_FIT, detail, rules=("TURN-5", "DISPUTE-19"))
        if profile.rules_on("DISPUTE-54", "compulsory"):
            trace.decided("DISPUTE-54")
            if _could_lay_down(state, player):
                detail = "DISPUTE-54 compulsory: lay down first"
                raise _reject(action, Reason.MUST_LAY_DOWN, detail, rules=("TURN-4", "DISPUTE-54"))
        after = _discard(state, player, action.card)
        if profile.ruling("DISPUTE-18") == "c" and after.phase is Phase.DRAW:
            after = _recycle(after)  # DISPUTE-18 c: a turn that starts with the stock empty
        return after
    trace.decided("TURN-4")  # melding after the draw, before the discard
    if isinstance(action, Open):
        return _open(state, _as_declared(state, action))
    return _meld_action_redeclaring(state, action)


def _draw(
    state: GameState,
    player: int,
    card: Card,
    stock: tuple[Card, ...],
    discard: tuple[Card, ...],
    seed: int | None = None,
) -> GameState:
    return replace(
        state,
        hands=_with_hand(state, player, (*state.hands[player], card)),
        stock=stock,
        discard=discard,
        phase=Phase.PLAY,
        seed=state.seed if seed is None else seed,
        drawn=True,
        taken=None,
        added=(),
        passed=(),
    )


def game_ends(profile: Profile, deal_number: int, totals: Sequence[int]) -> bool:
    """True if closing deal ``deal_number`` with ``totals`` ends the game (END-4).

    DISPUTE-15 tiebreak: a tie on the lowest total after the last deal is settled by a
    deciding extra round, under the last deal's number and contract, until it is broken.
    """
    if deal_number < profile.deals:
        return False
    if profile.ruling("DISPUTE-15") == "tiebreak" and totals:
        return sum(1 for t in totals if t == min(totals)) == 1
    return True


def _recycle(state: GameState) -> GameState:
    """Shuffle all discards but the top one into an empty stock (STOCK-1), if any.

    Used by DISPUTE-18 options ``a`` and ``c``; option ``b`` recycles inside the stock draw.
    """
    if state.stock or len(state.discard) <= 1:
        return state
    trace.decided("STOCK-1", "DISPUTE-18")
    rng = random.Random(state.seed)
    recycled = list(state.discard[1:])
    rng.shuffle(recycled)
    return replace(
        state, stock=tuple(recycled), discard=state.discard[:1], seed=rng.getrandbits(63)
    )


def _steal(state: GameState, action: DrawDiscard | Pass) -> GameState:
    """DISPUTE-29 steal (TURN-3): take the top discard out of turn, or pass on it.

    After the player to move has drawn from the stock (their pass), the players after them
    in turn order may each pass (``Pass``) or steal the card (``DrawDiscard``), one after the
    other: a player may steal only when every player before them has passed (003). The
    stealer takes the card into hand and 2 points onto their total at once; the steal then
    closes until the next discard.
    """
    player = action.player
    following = (state.passed[-1] + 1) % state.players if state.passed else None
    if player != following or not state.discard:
        if isinstance(action, Pass):
            detail = "DISPUTE-29 steal: not your pass"
            raise _reject(action, Reason.NOT_YOUR_TURN, detail, rules=("TURN-3", "DISPUTE-29"))
        detail = "DISPUTE-29 steal: earlier players first"
        raise _reject(action, Reason.BUY_OUT_OF_TURN, detail, rules=("TURN-3", "DISPUTE-29"))
    trace.decided("TURN-3", "DISPUTE-29")
    if isinstance(action, Pass):
        return replace(state, passed=(*state.passed, player))
    trace.decided("PERLA-STEAL-2")
    return _take_discard(state, player, points=2)


def _take_discard(state: GameState, player: int, points: int) -> GameState:
    """``player`` takes the top discard out of turn and ``points`` onto their total at once
    (DISPUTE-29 steal: 2; DISPUTE-53 yes: none)."""
    totals = tuple(t + points if i == player else t for i, t in enumerate(state.totals))
    return replace(
        state,
        hands=_with_hand(state, player, (*state.hands[player], state.discard[0])),
        discard=state.discard[1:],
        totals=totals,
        passed=(),
    )


def refuse(state: GameState, action: Action) -> GameState:
    """The state after ``action`` was refused (the adapter answers it with the rejection).

    DISPUTE-35 ``no_change``: the state as it was (TURN-1). ``penalty``: the same, except
    that a real player acting during a live deal owes the profile's penalty for an illegal
    action, added to their score in this deal at its close (SCORE-1); a cancelled deal
    scores nothing, so its penalties lapse (STOCK-2).
    """
    points = state.profile.illegal_action_penalty
    player = getattr(action, "player", None)
    if not points or state.phase not in _LIVE or not isinstance(player, int):
        return state
    if not 0 <= player < state.players:
        return state
    owed = state.owed or (0,) * state.players
    trace.decided("DISPUTE-35")
    return replace(state, owed=tuple(o + points if i == player else o for i, o in enumerate(owed)))


def _scores(
    state: GameState, hands: Sequence[Sequence[Card]], closer: int, *, lowering: bool = False
) -> tuple[int, ...]:
    """Each player's score in a deal ``closer`` closed: the closer the profile's score for
    going out, others what they hold (SCORE-1, SCORE-2), plus any penalty owed (DISPUTE-35
    penalty). ``lowering``: the closer's hand emptied on their laying-down turn, which
    earns perla's going-out bonus (PERLA-SCORE-1, DISPUTE-65)."""
    profile = state.profile
    owed = state.owed or (0,) * state.players
    out = profile.out_score
    if lowering and profile.lowering_out_score is not None:
        out = profile.lowering_out_score
    if trace.active():
        trace_values(profile, [h for i, h in enumerate(hands) if i != closer])
        trace.decided("SCORE-1", "SCORE-5")
        if profile.out_score:
            trace.decided("DISPUTE-46")
        if lowering:
            trace.decided("PERLA-SCORE-1", "DISPUTE-65")
        if any(owed):
            trace.decided("DISPUTE-35")
    return tuple(
        (out if i == closer else hand_score(h, profile)) + owed[i] for i, h in enumerate(hands)
    )


def _close(state: GameState, player: int) -> GameState:
    """The deal closed by ``player``, whose hand a meld action emptied (END-1).

    Only under DISPUTE-07 closes or DISPUTE-13 yes; a discard closes in :func:`_discard`.
    """
    # A meld action emptied the hand: on the laying-down turn when turn_opened holds.
    if state.turn_opened:
        trace.decided(*_opening_closes(state), *_lowering_point(state.profile))
    scores = _scores(state, state.hands, player, lowering=state.turn_opened)
    return _deal_over(state, scores, closer=player, turn=(player + 1) % state.players)


def _deal_over(
    state: GameState, scores: tuple[int, ...], closer: int | None, **changes: Any
) -> GameState:
    """The deal over with these ``scores`` (SCORE-4): totals grow, and after the last deal
    the lowest totals win (END-4); ``changes`` are the closing action's own effects."""
    totals = tuple(t + s for t, s in zip(state.totals, scores, strict=True))
    last = game_ends(state.profile, state.deal_number, totals)
    best = min(totals)
    trace.decided("SCORE-4", "GAME-1")
    if state.deal_number >= state.profile.deals:
        trace.decided("END-4", "GAME-2")
        if sum(1 for t in totals if t == best) > 1:
            trace.decided("END-5", "DISPUTE-15")
    return replace(
        state,
        **changes,
        turn_opened=False,
        phase=Phase.GAME_OVER if last else Phase.DEAL_OVER,
        deal_scores=scores,
        closer=closer,
        totals=totals,
        winners=tuple(i for i, t in enumerate(totals) if t == best) if last else None,
    )


def profile_rules(state: GameState, point: str, option: str) -> bool:
    """True if the state's profile plays ``option`` on ``point``."""
    return state.profile.rules_on(point, option)


def _end_without_closer(state: GameState) -> GameState:
    """DISPUTE-75 round_ends: the stock ran out; every hand scores, nobody went out."""
    trace.decided("DISPUTE-75", "PERLA-STOCK-1", "PERLA-END-1")
    if trace.active():
        trace_values(state.profile, state.hands)
    scores = tuple(hand_score(h, state.profile) for h in state.hands)
    return _deal_over(state, scores, closer=None)


def _opening_closes(state: GameState) -> tuple[str, ...]:
    """The rules under which a hand emptied on its laying-down turn closes the deal: END-3
    in deal 6 and END-2 in deal 7 (CHILE-END-3; PERLA-END-3 in rounds 6 and 7)."""
    rules = {6: ("END-3",), 7: ("END-2",)}.get(state.deal_number, ())
    return (*rules, "PERLA-END-3") if rules and state.profile.name == "perla" else rules


def _lowering_point(profile: Profile) -> tuple[str, ...]:
    """DISPUTE-65, where the profile scores going out on the laying-down turn apart."""
    return ("DISPUTE-65",) if "DISPUTE-65" in profile.rulings else ()


def _could_lay_down(state: GameState, player: int) -> bool:
    """DISPUTE-54 compulsory: the player has not laid down and holds a legal laying down."""
    if state.opened[player]:
        return False
    hand = state.hands[player]
    with trace.quiet():  # trying each opening decides nothing
        return any(
            is_legal(state, Open(player, melds))
            for melds in find_openings(hand, state.deal_number, state.profile)
        )


def _draw_stock(state: GameState, player: int) -> GameState:
    if state.stock:
        return _draw(state, player, state.stock[0], state.stock[1:], state.discard)
    if profile_rules(state, "DISPUTE-75", "round_ends"):
        return _end_without_closer(state)  # DISPUTE-75 round_ends: everyone scores
    if "DISPUTE-75" in state.profile.rulings:
        trace.decided("DISPUTE-75")
    if len(state.discard) <= 1:
        # STOCK-2, DISPUTE-17: nothing to recycle; the deal is void, nobody scores.
        trace.decided("STOCK-2", "DISPUTE-17")
        return replace(state, phase=Phase.CANCELLED)
    # STOCK-1, DISPUTE-18: recycle on the attempted draw; the top discard stays put.
    trace.decided("STOCK-1", "DISPUTE-18")
    rng = random.Random(state.seed)
    recycled = list(state.discard[1:])
    rng.shuffle(recycled)
    return _draw(
        state,
        player,
        recycled[0],
        tuple(recycled[1:]),
        state.discard[:1],
        seed=rng.getrandbits(63),
    )


def _discard(state: GameState, player: int, card: Card) -> GameState:
    hand = _remove(state.hands[player], [card])
    hands = _with_hand(state, player, hand)
    discard = (card, *state.discard)
    after = (player + 1) % state.players
    trace.decided("TURN-5")
    if hand:
        return replace(
            state,
            hands=hands,
            discard=discard,
            turn=after,
            phase=Phase.DRAW,
            turn_opened=False,
            passed=(),
        )
    # END-1: the discard that empties the hand closes the deal at once.
    # DISPUTE-65 same_turn: the discard ending the laying-down turn earns the bonus too.
    lowering = state.turn_opened and state.profile.lowering_out_by_discard
    trace.decided("END-1")
    if state.turn_opened:
        trace.decided(*_opening_closes(state), *_lowering_point(state.profile))
    scores = _scores(state, hands, player, lowering=lowering)
    return _deal_over(state, scores, closer=player, hands=hands, discard=discard, turn=after)


def _open(state: GameState, action: Open) -> GameState:
    player = action.player
    profile = state.profile
    if state.opened[player]:
        trace.decided("VARIANT-04")
        if profile.ruling("VARIANT-04") == "allowed" and not state.turn_opened:
            return _new_melds(state, action)
        rules = ("TURN-8", "CONTRACT-11", "VARIANT-04")
        raise _reject(action, Reason.ALREADY_OPENED, rules=rules)  # TURN-8, CONTRACT-11
    if state.taken is not None:
        trace.decided("DISPUTE-06")
        if profile.ruling("DISPUTE-06") == "no":
            detail = "DISPUTE-06 no: opening needs a stock draw"
            raise _reject(action, Reason.OPENING_TURN, detail, rules=("TURN-2", "DISPUTE-06"))
    judged = profile
    if any(state.opened) and _joker_limit_matters(action.melds, profile):
        trace.decided("DISPUTE-01")
        if profile.ruling("DISPUTE-01") == "a":
            # DISPUTE-01 a: once anyone has opened, no opening is held to one joker per meld.
            judged = replace(profile, initial_joker_limit=None)
    reason = check_contract(action.melds, state.deal_number, judged)
    if reason is not None:
        raise _reject(action, reason)
    checks = trace.active() or profile.ruling("DISPUTE-22") == "no"
    if checks and _joker_for_visible_card(state, action.melds):
        trace.decided("DISPUTE-22")
        if profile.ruling("DISPUTE-22") == "no":
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
        allowed = {"either": (0, 1), "no_discard": (0,), "discard": (1,)}
        # A profile without DISPUTE-39 (Argentine DISPUTE-27 eight) needs no discard.
        point = ("DISPUTE-39",) if "DISPUTE-39" in profile.rulings else ("DISPUTE-27",)
        if left not in allowed[profile.rulings.get("DISPUTE-39", "no_discard")]:
            detail = f"{left} cards would stay in hand"
            rules = ("CHILE-ROUND8-2", "CHILE-ROUND8-3", *point)
            raise _reject(action, Reason.NOT_GOING_OUT, detail, rules=rules)
        trace.decided("CHILE-ROUND8-2", *point)
        closes = left == 0
    elif profile.discard_to_close and len(hand) == len(laid):
        trace.decided("DISPUTE-07")
        if profile.ruling("DISPUTE-07") != "closes":
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
    if state.profile.ruling("DISPUTE-30") != "declared" or not action.declared:
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
        if state.profile.ruling("DISPUTE-30") != "declared" or refused.reason not in _REDECLARABLE:
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
    if len(hand) == len(laid):
        raise _reject(action, Reason.HAND_WOULD_EMPTY)  # TURN-9
    trace.decided("TURN-8", "VARIANT-04")
    return replace(
        state,
        hands=_with_hand(state, action.player, _remove(hand, laid)),
        table=(*state.table, *(TableMeld(action.player, m) for m in action.melds)),
    )


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
        if profile.ruling("DISPUTE-21") == "own":
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
            rules = ("CONTRACT-10", *pagat) if "DISPUTE-59" in state.profile.rulings else ()
            raise _reject(action, Reason.NOT_OPENED, rules=rules)  # CONTRACT-10
        trace.decided(*pagat)
    profile = state.profile
    if state.turn_opened:
        trace.decided("DISPUTE-20")
        if profile.ruling("DISPUTE-20") != "same_turn":
            # TURN-6; DISPUTE-20 same_turn allows it
            rules = ("TURN-6", "DISPUTE-20", *_example(state))
            raise _reject(action, Reason.OPENING_TURN, rules=rules)
        trace.decided("TURN-6", "PERLA-LAYOFF-1")
    if not 0 <= action.meld < len(state.table):
        raise _reject(action, Reason.NO_SUCH_MELD, f"the table has {len(state.table)} melds")
    if action.meld in state.added:
        trace.decided("DISPUTE-34")
        if profile.ruling("DISPUTE-34") == "no":
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
    elif isinstance(target.meld, Trio) and profile.ruling("DISPUTE-02") == "b":
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
        keeps = profile.ruling("DISPUTE-28") == "taker_keeps" or profile.ruling("DISPUTE-11") == "c"
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
            if profile.ruling("DISPUTE-21") == "own":
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
        if profile.ruling("DISPUTE-13") != "yes":
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


def is_legal(state: GameState, action: Action) -> bool:
    """True if :func:`apply` would accept ``action``."""
    try:
        with trace.quiet():  # asking is not deciding
            apply(state, action)
    except (IllegalActionError, InvalidActionError):
        return False
    return True


def legal_actions(state: GameState) -> tuple[Action, ...]:
    """Every legal action, in a fixed order: draws; openings; lay-offs; joker swaps; discards.

    Openings come from the solver in its order (trios first, then runs); an opening listing
    the same melds in another order is legal too but not listed again. A Chilean round 8
    going-out play is listed in the solver's greedy growths of each opening, so some legal
    ones (other ways to spread the extra cards) are not listed; Chilean swaps name their wild.
    Lay-offs go card by card (canonical order), meld by meld, low end before high end.
    """
    with trace.quiet():  # listing moves decides nothing
        return _legal_actions(state)


def _legal_actions(state: GameState) -> tuple[Action, ...]:
    if state.phase not in _LIVE:
        return ()
    player = state.turn
    if state.phase is Phase.DRAW:
        draws: list[Action] = [DrawStock(player)]
        if state.discard:
            draws.append(DrawDiscard(player))
        return tuple(draws)
    hand = state.hands[player]
    distinct = sort_cards(list(set(hand)))
    found: list[Action] = []
    if not state.opened[player]:
        for melds in find_openings(hand, state.deal_number, state.profile):
            opening = Open(player, melds)
            if is_legal(state, opening):
                found.append(opening)
    elif _may_lay_off(state, len(hand)):
        for card in distinct:
            for i, tm in enumerate(state.table):
                ends: tuple[End | None, ...] = (
                    (None,) if isinstance(tm.meld, Trio) else (End.LOW, End.HIGH)
                )
                for end in ends:
                    if check_lay_off(tm.meld, card, end, state.profile) is None:
                        found.append(LayOff(player, card, i, end))
        for i, tm in enumerate(state.table):
            run = tm.meld
            if not isinstance(run, Run) or state.profile.wild_swap != "run_end":
                continue
            for j, c in enumerate(run.cards):
                if not c.is_joker:
                    continue
                stands_for = run.represented(j)
                if stands_for not in hand:
                    continue
                for to in (End.LOW, End.HIGH):
                    if check_swap(run, stands_for, to.value) is None:
                        swap = SwapJoker(player, i, stands_for, to.value)
                        # The moved joker must leave a run the profile allows (PAGAT-RUN-4).
                        if is_legal(state, swap):
                            found.append(swap)
    if state.profile.wild_swap == "to_hand":
        found.extend(_chilean_swaps(state, player, distinct))
    if not state.opened[player] and state.profile.rules_on("DISPUTE-59", "anyone"):
        found.extend(_unopened_run_swaps(state, player))
    found.extend(Discard(player, card) for card in distinct)
    return tuple(found)


def _may_lay_off(state: GameState, held: int) -> bool:
    """Whether :func:`legal_actions` lists lay-offs for the opened player to move, who holds
    ``held`` cards: not on the opening turn (TURN-6) unless DISPUTE-20 same_turn (perla's
    PERLA-LAYOFF-1), and not the last card unless melding may empty the hand (DISPUTE-13)."""
    profile = state.profile
    if state.turn_opened and profile.ruling("DISPUTE-20") != "same_turn":
        return False
    return held > 1 or profile.ruling("DISPUTE-13") == "yes"


def _example(state: GameState) -> tuple[str, ...]:
    """EXAMPLE-1 (000 §10), for a deal-2 lay-off: refused on the opening turn, allowed on a
    later one."""
    return ("EXAMPLE-1",) if state.deal_number == 2 and state.profile.name == "argentine" else ()


def _pagat_anyone_swaps(state: GameState, action: LayOff | SwapJoker) -> bool:
    """DISPUTE-59 anyone (seed 002 L24): a player who has not met the contract may still
    replace a run's joker with the natural card it stands for (JOKER-4)."""
    return isinstance(action, SwapJoker) and state.profile.rules_on("DISPUTE-59", "anyone")


def _unopened_run_swaps(state: GameState, player: int) -> list[SwapJoker]:
    """Every legal joker replacement of a player who has not opened (DISPUTE-59 anyone)."""
    found = []
    hand = state.hands[player]
    for i, tm in enumerate(state.table):
        run = tm.meld
        if not isinstance(run, Run):
            continue
        for j, c in enumerate(run.cards):
            if c.is_joker and run.represented(j) in hand:
                for to in (End.LOW, End.HIGH):
                    swap = SwapJoker(player, i, run.represented(j), to.value)
                    if swap not in found and is_legal(state, swap):
                        found.append(swap)
    return found


def _chilean_swaps(state: GameState, player: int, distinct: tuple[Card, ...]) -> list[SwapJoker]:
    """Every legal Chilean wild swap (CHILE-SWAP-1), naming its wild card."""
    found = []
    for i, tm in enumerate(state.table):
        for card in distinct:
            places = swappable_wilds(tm.meld, card, state.profile)
            for wild in sorted({tm.meld.cards[j] for j in places}):
                swap = SwapJoker(player, i, card, "hand", wild=wild)
                if is_legal(state, swap):
                    found.append(swap)
    return found


# --- validation -----------------------------------------------------------------------------


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
