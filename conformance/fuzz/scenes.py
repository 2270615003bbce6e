"""Scenes: after each main game, material random play seldom reaches, aimed at on
purpose (a close, often tied, in the last deals; runs probed at their ace and joker
ends; a deal with a cut; a new game), from a stream of its own (docs/fuzzing.md)."""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from conformance.grading.compare import strip_private
from conformance.knowledge.cards import CANONICAL_ORDER, JOKER, RANKS, SUITS
from conformance.knowledge.profiles import ProfileData
from conformance.laws.greedy import card_value

from .games import game_rng, play_steps
from .melds import run_card, shuffled_deck
from .model import EndGame, Occurrence, SetupRefused, Trace
from .pair import Pair
from .player import Policy
from .states import draw_state

#: Steps a scene (the end-of-game or run-end material after the main game) may play.
SCENE_STEPS: Final = 30
#: Scripted lay-off and replacement attempts a run-end scene makes after its draw.
SCENE_ATTEMPTS: Final = 20


def play_scene(pair: Pair, game: int) -> list[Occurrence]:
    """One scene after the main game, from its own stream (``carioca-fuzz:S:G:scene``).

    A scene is material that random play seldom reaches, put to both engines like any
    game (docs/fuzzing.md, "Scenes"):

    - **closing** (engines that load states): a fresh deal, most often the profile's last,
      whose first player holds a going-out hand (:func:`_closing_state`), with totals set
      so that the close often ties for the lowest total;
    - **run ends** (engines that load states): an opened player facing runs that end at
      an ace or in a joker, trying each held card at both ends (:func:`_run_end_state`);
    - **deal**: ``start_deal`` of the last deal (or any), with a cut where the profile
      scores one (a perfect cut, or one card off), then greedy play;
    - **new game**: ``new_game``, compared by what the rules fix whatever the shuffle
      (:func:`new_game_check`), then greedy play from the engine's deal.
    """
    options = pair.options
    rng = game_rng(options.seed, game, "scene")
    decl = pair.decl
    facts = pair.facts  # the engine's packs
    players = rng.choice(pair.player_counts)
    dealer = rng.randrange(players)
    roll = rng.random()
    if not pair.can_load:
        roll = 0.75 + roll / 4  # an engine that only deals: the deal or new-game scenes
    script: Callable[[Mapping[str, Any]], dict[str, Any] | None] | None = None
    setup: dict[str, Any] | None = None
    kind = "deal"
    if roll < 0.75:
        closing = roll < 0.4
        built = (
            _closing_state(rng, players, dealer, facts)
            if closing
            else _run_end_state(rng, players, dealer, facts)
        )
        if built is not None:
            setup = {"op": "load_state", "state": built[0]}
            script = built[1]
            kind = "closing" if closing else "run ends"
    elif roll >= 0.9 and pair.can_deal:
        setup = {"op": "new_game", "profile": options.profile, "players": players}
        setup["seed"] = rng.randrange(1, 10**6)
        kind = "new game"
    if setup is None:
        if not pair.can_deal:
            return []
        deal = facts.deal_count if rng.random() < 0.6 else rng.randint(1, facts.deal_count)
        setup = {
            "op": "start_deal",
            "profile": options.profile,
            "players": players,
            "deal_number": deal,
            "dealer": dealer,
            "totals": [rng.choice([0, 40, 40, 90]) for _ in range(players)],
            "deck": shuffled_deck(rng, facts, players),
        }
        if "DISPUTE-67" in pair.catalogue.disputes_for(options.profile):
            # The profile scores a perfect cut (docs/protocol.md §10): cut exactly the
            # hands and the upcard, or one card off either way.
            perfect = players * facts.hand_size(deal) + 1
            setup["cut"] = perfect + rng.choice([0, 0, -1, 1])
    policy = Policy(rng, decl, facts)
    policy.greedy = True  # a scene's point is a close or a lay-off, not a random walk
    try:
        try:
            found = pair.setup(setup)
        except SetupRefused:
            pair.events["scene: refused"] += 1
            return []
        trace = Trace(setup)
        if found is not None:
            return [Occurrence(game, found, trace, {"state": pair.ref_state})]
        pair.events[f"scene: {kind}"] += 1
        if setup["op"] == "new_game" and pair.can_load:
            # The reference now holds the engine's deal: replay from that state.
            state = {**strip_private(pair.ref_state), "profile": options.profile}
            setup = {"op": "load_state", "state": state}
            trace = Trace(setup)
        limit = min(options.max_steps, SCENE_STEPS)
        found_step = play_steps(pair, game, trace, rng, policy, facts, players, limit, script)
        return [found_step] if found_step is not None else []
    except EndGame as exc:
        pair.ended_early[str(exc).split(":", 1)[0]] += 1
    return []


def _take(counts: Counter[str], cards: Sequence[str]) -> bool:
    """Take ``cards`` out of ``counts`` if all are there (else take nothing)."""
    need = Counter(cards)
    if any(counts[c] < n for c, n in need.items()):
        return False
    counts.subtract(need)
    return True


def natural_meld(
    rng: random.Random, counts: Counter[str], kind: str, size: int, facts: ProfileData
) -> list[str] | None:
    """A meld of ``size`` natural (never wild) cards from ``counts``, taken out of it: a
    trio of one rank in as many suits as it can, or a run of one suit listed low to high."""
    if kind == "trio":
        ranks = list(RANKS)
        rng.shuffle(ranks)
        for rank in ranks:
            pool = [c for c in CANONICAL_ORDER if c[:-1] == rank and not facts.is_wild(c)]
            cards: list[str] = []
            # One card of each suit first, then second copies (perla's legs differ in suit).
            for _ in range(2):
                for card in pool:
                    if len(cards) < size and counts[card] - cards.count(card) > 0:
                        cards.append(card)
            if len(cards) == size and _take(counts, cards):
                return cards
        return None
    suits = list(SUITS)
    rng.shuffle(suits)
    for suit in suits:
        lows = list(range(1, 15 - size + 1))
        rng.shuffle(lows)
        for low in lows:
            cards = [run_card(low + k, suit) for k in range(size)]
            if not any(facts.is_wild(c) for c in cards) and _take(counts, cards):
                return cards
    return None


def _closing_state(
    rng: random.Random, players: int, dealer: int, facts: ProfileData
) -> tuple[dict[str, Any], Callable[[Mapping[str, Any]], dict[str, Any] | None]] | None:
    """A fresh deal (half the time the profile's last, a quarter the one before it) whose
    first player can go out at once.

    The player to move holds one of the deal's contracts as natural melds; the melds
    together take the dealt cards (the drawn card is then discarded), or one card more
    (the stock's top card completes them and the hand empties), or, now and then, one
    card fewer, and their sizes are spread from the contract's (3-card runs, 4-card trios)
    so that near misses are tried too. Totals are set so that this close ties two players
    for the lowest total (or leaves a tie among the others) more often than not. The
    script draws, lays the melds and discards what is left; the policy plays on.
    """
    # The last deal (the game ends), the one before it (the game goes on to the last), or
    # any.
    roll = rng.random()
    deal = (
        facts.deal_count
        if roll < 0.5
        else facts.deal_count - 1
        if roll < 0.75
        else rng.randint(1, facts.deal_count)
    )
    dealt = facts.hand_size(deal)
    contract = rng.choice(facts.deal(deal).contracts)
    kinds = ["trio"] * contract.trios + ["run"] * contract.runs
    sizes = [facts.trio_size if k == "trio" else facts.run_size for k in kinds]
    target = dealt + rng.choice([0, 0, 0, 1, 1, -1])
    while sum(sizes) != target:
        i = rng.randrange(len(sizes))
        if sum(sizes) < target:
            sizes[i] += 1
        elif sizes[i] > 3:
            sizes[i] -= 1
        elif all(n <= 3 for n in sizes):
            return None
    counts = Counter(facts.pack(players).canonical_order())
    melds = []
    for kind, size in zip(kinds, sizes, strict=True):
        cards = natural_meld(rng, counts, kind, size, facts)
        if cards is None:
            return None
        melds.append({"kind": kind, "cards": cards})
    laid = [c for m in melds for c in m["cards"]]
    rest = list(counts.elements())
    rng.shuffle(rest)
    mover = (dealer + 1) % players
    hand = list(laid)
    stock_top: list[str] = []
    if len(hand) > dealt:
        # One meld card waits on the stock: drawing it completes the melds.
        stock_top = [hand.pop(rng.randrange(len(hand)))]
    while len(hand) < dealt:
        hand.append(rest.pop())
    hands = [hand if p == mover else [rest.pop() for _ in range(dealt)] for p in range(players)]
    # The upcard is never wild, as a fresh deal's is (CHILE-DEAL-7 buries a wild upcard).
    upcard = next(i for i, c in enumerate(rest) if c != JOKER and not facts.is_wild(c))
    discard = [rest.pop(upcard)]
    stock = stock_top + rest
    totals = _tie_totals(rng, hands, mover, facts)
    state = draw_state(
        facts.name, deal, dealer, mover, hands, [False] * players, [], stock, discard, totals
    )
    done: set[str] = set()

    def script(now: Mapping[str, Any]) -> dict[str, Any] | None:
        if now["turn"] != mover or "out" in done:
            return None
        if now["phase"] == "draw":
            done.add("drew")
            return {"type": "draw_stock", "player": mover}
        held = list(now["hands"][mover])
        if "open" not in done:
            done.add("open")
            return {"type": "open", "player": mover, "melds": melds}
        done.add("out")
        if len(held) == 1:
            return {"type": "discard", "player": mover, "card": held[0]}
        return None

    return state, script


def _tie_totals(
    rng: random.Random, hands: Sequence[Sequence[str]], mover: int, facts: ProfileData
) -> list[int]:
    """Totals before a deal the player to move may close at once: often such that the
    close leaves two players equal at the lowest total (END-5), counting each other hand
    at its penalty and the closer at the profile's closer score."""
    players = len(hands)
    penalty = [sum(card_value(c, facts) for c in h) for h in hands]
    base = rng.choice([40, 90, 150])
    totals = [base + rng.choice([30, 60, 120]) for _ in range(players)]
    others = [p for p in range(players) if p != mover]
    roll = rng.random()
    closer = (
        facts.lowering_turn_closer_score
        if facts.lowering_turn_closer_score is not None
        else facts.closer_score
    )
    if roll < 0.5:
        # The closer ties with one other player.
        other = rng.choice(others)
        totals[other] = base
        totals[mover] = base + penalty[other] - closer
    elif roll < 0.7 and len(others) >= 2:
        # Two other players tie, the closer stays above them.
        a, b = rng.sample(others, 2)
        totals[a] = base + max(penalty[b] - penalty[a], 0)
        totals[b] = base + max(penalty[a] - penalty[b], 0)
        totals[mover] = base + max(penalty[a], penalty[b]) + 40
    return [max(0, t) for t in totals]


def _run_end_state(
    rng: random.Random, players: int, dealer: int, facts: ProfileData
) -> tuple[dict[str, Any], Callable[[Mapping[str, Any]], dict[str, Any] | None]] | None:
    """A mid-deal state whose player to move has opened and faces runs with telling ends.

    Runs (owned by the player to move, sometimes one by another opened player) end at a
    low or a high ace, or carry a joker at an end, standing for an ace, or beside a
    natural card. The hand holds probe cards: the card that fits at each end, the card an
    end joker stands for (next to the last natural card), the K below a low ace and the 2
    above a high one, a card two ranks off, and a joker. After the draw the script tries
    each probe at each end of each run (lay-offs) and on each joker (replacements to both
    ends and to the hand), then the policy discards and plays on.
    """
    deals = [
        d.number
        for d in facts.deals
        if facts.hand_size(d.number) - facts.contract_cards(d.number) >= 3
    ]
    if not deals:
        return None
    deal = rng.choice(deals)
    dealt = facts.hand_size(deal)
    room = dealt - facts.contract_cards(deal)
    counts = Counter(facts.pack(players).canonical_order())
    mover = (dealer + 1) % players
    table: list[dict[str, Any]] = []
    probes: list[str] = []
    shapes = ["low_ace", "high_ace", "joker_low", "joker_high", "joker_ace", "joker_inside"]
    for shape in rng.sample(shapes, rng.randint(2, 4)):
        suit = rng.choice(SUITS)
        length = rng.randint(4, 6)
        if shape == "low_ace" or (shape == "joker_ace" and rng.random() < 0.5):
            low = 1
        elif shape in ("high_ace", "joker_ace"):
            low = 15 - length
        else:
            low = rng.randint(2, 13 - length)
        positions = list(range(low, low + length))
        cards = [run_card(p, suit) for p in positions]
        jokers = {
            "low_ace": [],
            "high_ace": [],
            "joker_low": [0],
            "joker_high": [length - 1],
            "joker_ace": [0 if low == 1 else length - 1],
            "joker_inside": [rng.randrange(1, length - 1)],
        }[shape]
        if rng.random() < 0.25 and shape in ("low_ace", "high_ace"):
            jokers = [rng.randrange(1, length - 1)]
        stood_for = [cards[i] for i in jokers]
        for i in jokers:
            cards[i] = JOKER
        if any(facts.is_wild(c) for c in cards if c != JOKER) or not _take(counts, cards):
            continue
        table.append({"owner": mover, "kind": "run", "cards": cards})
        high = low + length - 1
        wanted = [*stood_for, run_card(low + length + 1, suit) if high + 2 <= 14 else None]
        wanted.append(run_card(low - 1, suit) if low > 1 else run_card(13, suit))
        wanted.append(run_card(high + 1, suit) if high < 14 else run_card(2, suit))
        probes += [c for c in wanted if c is not None]
    if not table:
        return None
    probes.append(JOKER)
    rng.shuffle(probes)
    hand: list[str] = []
    for card in probes:
        if len(hand) < room and card not in hand and _take(counts, [card]):
            hand.append(card)
    if not hand:
        return None
    rest = list(counts.elements())
    rng.shuffle(rest)
    hands: list[list[str]] = []
    opened = [False] * players
    opened[mover] = True
    for p in range(players):
        if p == mover:
            hands.append(hand)
        elif rng.random() < 0.3 and len(table) > 1:
            # Another opened player owns one of the runs.
            opened[p] = True
            table[rng.randrange(len(table))]["owner"] = p
            hands.append([rest.pop() for _ in range(rng.randint(1, room))])
        else:
            hands.append([rest.pop() for _ in range(dealt)])
    if not any(m["owner"] == mover for m in table):
        table[0]["owner"] = mover
    for p in range(players):
        if opened[p] and not any(m["owner"] == p for m in table):
            opened[p] = False
            hands[p] += [rest.pop() for _ in range(dealt - len(hands[p]))]
    discard = [rest.pop()]
    totals = [rng.choice([0, 10, 35]) for _ in range(players)]
    state = draw_state(facts.name, deal, dealer, mover, hands, opened, table, rest, discard, totals)
    tried: set[str] = set()
    pick = random.Random(rng.random())  # the script's own choices, seeded by the scene

    def script(now: Mapping[str, Any]) -> dict[str, Any] | None:
        if now["turn"] != mover or len(tried) >= SCENE_ATTEMPTS:
            return None
        if now["phase"] == "draw":
            return {"type": "draw_stock", "player": mover}
        held = sorted(set(now["hands"][mover]))
        if len(now["hands"][mover]) < 2:
            return None  # the last card is discarded (TURN-9)
        moves: list[dict[str, Any]] = []
        for index, meld in enumerate(now["table"]):
            naturals = [c for c in meld["cards"] if c != JOKER]
            if meld.get("kind") != "run" or not naturals:
                continue
            for card in held:
                if card != JOKER and card[-1] != naturals[0][-1]:
                    continue
                moves += [
                    {"type": "lay_off", "card": card, "meld": index, "end": end}
                    for end in ("low", "high")
                ]
                if JOKER in meld["cards"] and card != JOKER:
                    moves += [
                        {"type": "swap_joker", "card": card, "meld": index, "to": to}
                        for to in ("low", "high", "hand")
                    ]
        fresh = [m for m in moves if json.dumps(m, sort_keys=True) not in tried]
        if not fresh:
            return None
        move = pick.choice(fresh)
        tried.add(json.dumps(move, sort_keys=True))
        return {**move, "player": mover}

    return state, script
