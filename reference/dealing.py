"""Dealing: a deal from a given deck, a new game, the next deal and a redeal (DEAL-1..6,
STOCK-2, DISPUTE-09, -16, -17, -37; PERLA-CUT-1, -2)."""

from __future__ import annotations

import random
from collections.abc import Sequence

from reference import trace
from reference.cards import Card, Rank, full_pack
from reference.errors import InvalidStateError
from reference.profiles import Profile
from reference.reasons import Reason
from reference.state import _LIVE, GameState, Phase, _deck_problems, _reject


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
    if profile.plays("DISPUTE-09", "bury") or profile.plays("DISPUTE-09", "jokers"):
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
    pack (CARDS-1; CHILE-CARDS-2 and DISPUTE-43 for the big pack, DISPUTE-78 for chilean's),
    the dealing order, hand size, upcard and first player (DEAL-2..5; DISPUTE-33, VARIANT-05),
    the contract number (GAME-1)."""
    trace.decided("PLAYERS-1", "DEAL-2", "DEAL-3", "DEAL-4", "DEAL-5", "GAME-1")
    if players > 4:
        trace.decided("DISPUTE-32")
    if profile.big_pack_players is not None and players >= profile.big_pack_players:
        trace.decided("CHILE-CARDS-2", "DISPUTE-43")
    else:
        trace.decided("CARDS-1")
    if profile.rules_on("DISPUTE-78"):
        trace.decided("DISPUTE-78")  # the Chilean pack: by the player count, or always 108
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


def new_game(
    profile: Profile, players: int, seed: int, lot: Sequence[Card] | None = None
) -> GameState:
    """Deal 1 of a new game; the first dealer is drawn by lot from ``seed`` (DEAL-1).

    ``lot`` (perla, docs/protocol.md §10) is the card each player drew for the first dealer:
    the lowest, aces high, cuts and the cutter's right-hand neighbour deals (PERLA-DEAL-1).
    The shuffle is ``seed``'s either way.

    :raises InvalidStateError: for a lot the text cannot read: not one card per player, a
        joker, or two players sharing the lowest rank.
    """
    rng = random.Random(seed)
    dealer = rng.randrange(players) if players > 0 else 0
    if lot is not None:
        dealer = _dealer_by_cards(lot, players)
        trace.decided("PERLA-DEAL-1")
    trace.decided("DEAL-1", *(("DISPUTE-74",) if profile.rules_on("DISPUTE-74") else ()))
    if profile.rules_on("DISPUTE-74", "first_seat"):
        dealer = 0  # DISPUTE-74 first_seat: player 0 deals the first round
    deck = shuffled_pack(profile, rng, players)
    return start_deal(profile, players, 1, dealer, (0,) * players, deck, seed=rng.getrandbits(63))


def _dealer_by_cards(lot: Sequence[Card], players: int) -> int:
    """The first dealer when player ``i`` drew ``lot[i]`` (PERLA-DEAL-1, 003 L27-L28)."""
    if len(lot) != players:
        raise InvalidStateError([f"lot has {len(lot)} cards for {players} players"])
    ranks = [card.rank for card in lot]
    if None in ranks:
        raise InvalidStateError(["a lot holds no joker: 003 ranks none"])
    # Aces high: the ace's place is above the K.
    places = [14 if rank is Rank.ACE else int(rank) for rank in ranks if rank is not None]
    lowest = min(places)
    if places.count(lowest) > 1:
        raise InvalidStateError(["two players drew the lowest rank: 003 settles no tie"])
    cutter = places.index(lowest)
    return (cutter + 1) % players  # the cutter sits at the dealer's left (003 L28)


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
        if state.profile.plays("DISPUTE-17", "next_dealer"):
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
        if state.profile.plays("DISPUTE-37", "first_deal"):
            # DISPUTE-37 first_deal
            raise _reject("redeal", Reason.REDEAL_TOO_LATE, rules=("DEAL-6", "DISPUTE-37"))
    trace.decided("DEAL-6", "DISPUTE-16", "GAME-1")
    dealer = state.dealer
    if state.profile.plays("DISPUTE-16", "next_dealer"):
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
