"""Contract probes: classes of play that real engines got wrong and random play seldom
offers, put to both engines once per game from a stream of their own
(``carioca-fuzz:S:G:probe``), after the game's scene, so no main game or scene of a seed
changes:

- **an opening with an extra meld of another kind**: the contract plus one meld of the
  kind the contract has fewer of (deal 1: two trios and a run; deal 3: two runs and a
  trio; deal 2: a trio and a run and one more of either), as a ``check_contract`` query
  (``melds`` engines) and, for engines that load states, as the opening of a player who
  holds exactly those melds and draws first;
- **chilean: a natural 2 at the 2-position of a run**, where 2s are wild: as
  ``check_meld`` queries (the run A-2-3-4 or 2-3-4-5 of the 2's suit, now and then with a
  wild card elsewhere) and, for engines that load states, as a replacement of the wild
  card standing at a run's 2-position by the natural 2 of that suit.

Every meld is made of natural cards of the profile's pack, so a probe is about the rule it
aims at, not about a malformed meld.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any, Final

from conformance.knowledge.cards import JOKER, SUITS
from conformance.knowledge.profiles import ProfileData

from .games import game_rng, play_steps
from .melds import run_card
from .model import EndGame, Occurrence, SetupRefused, Trace
from .pair import Pair
from .player import Policy
from .scenes import natural_meld
from .states import draw_state

#: Steps a probe plays: the draw, the opening or replacement, and a discard or two.
PROBE_STEPS: Final = 4

Script = Callable[[Mapping[str, Any]], dict[str, Any] | None]


def other_kind_deals(facts: ProfileData) -> list[tuple[int, list[str], str]]:
    """``(deal, contract kinds, extra kind)`` for each contract that leaves room, in the
    dealt hand, for one more meld of the kind it has fewer of (a card is left to discard)."""
    out = []
    for deal in facts.deals:
        for contract in deal.contracts:
            kinds = ["trio"] * contract.trios + ["run"] * contract.runs
            extras = ["run"] if contract.trios > contract.runs else ["trio"]
            if contract.trios == contract.runs:
                extras = ["trio", "run"]
            for extra in extras:
                size = facts.trio_size if extra == "trio" else facts.run_size
                if facts.contract_cards(deal.number) + size <= facts.hand_size(deal.number):
                    out.append((deal.number, kinds, extra))
    return out


def _melds(
    rng: random.Random, counts: Counter[str], kinds: list[str], facts: ProfileData
) -> list[dict[str, Any]] | None:
    melds = []
    for kind in kinds:
        size = facts.trio_size if kind == "trio" else facts.run_size
        cards = natural_meld(rng, counts, kind, size, facts)
        if cards is None:
            return None
        melds.append({"kind": kind, "cards": cards})
    return melds


def contract_query(rng: random.Random, facts: ProfileData) -> dict[str, Any] | None:
    """A ``check_contract`` query: a contract in natural melds plus one of another kind."""
    choices = other_kind_deals(facts)
    if not choices:
        return None
    deal, kinds, extra = rng.choice(choices)
    counts = Counter(facts.pack(min(facts.players)).canonical_order())
    melds = _melds(rng, counts, [*kinds, extra], facts)
    if melds is None:
        return None
    rng.shuffle(melds)
    return {"query": "check_contract", "profile": facts.name, "deal_number": deal, "melds": melds}


def natural_two_queries(rng: random.Random, facts: ProfileData) -> list[dict[str, Any]]:
    """``check_meld`` queries of runs whose 2-position holds the natural 2 of their suit
    (in a profile where 2s are wild), sometimes with a wild card elsewhere in the run."""
    if "2" not in facts.wild_ranks:
        return []
    out = []
    for initial in (True, False):
        suit = rng.choice(SUITS)
        low = rng.choice([1, 2])
        cards = [run_card(low + k, suit) for k in range(facts.run_size)]
        if rng.random() < 0.5:
            spot = rng.choice([i for i, c in enumerate(cards) if not c.startswith("2")])
            cards[spot] = rng.choice([JOKER, "2" + rng.choice([s for s in SUITS if s != suit])])
        meld = {"kind": "run", "cards": cards}
        out.append({"query": "check_meld", "profile": facts.name, "meld": meld, "initial": initial})
    return out


def extra_meld_state(
    rng: random.Random, players: int, dealer: int, facts: ProfileData
) -> tuple[dict[str, Any], Script] | None:
    """A fresh deal whose first player holds the contract and a meld of another kind in
    natural cards; the script draws and opens with all of them (then the policy plays)."""
    choices = other_kind_deals(facts)
    if not choices:
        return None
    deal, kinds, extra = rng.choice(choices)
    counts = Counter(facts.pack(players).canonical_order())
    melds = _melds(rng, counts, [*kinds, extra], facts)
    if melds is None:
        return None
    rest = list(counts.elements())
    rng.shuffle(rest)
    dealt = facts.hand_size(deal)
    mover = (dealer + 1) % players
    hand = [c for m in melds for c in m["cards"]]
    while len(hand) < dealt:
        hand.append(rest.pop())
    hands = [hand if p == mover else [rest.pop() for _ in range(dealt)] for p in range(players)]
    upcard = next(i for i, c in enumerate(rest) if c != JOKER and not facts.is_wild(c))
    discard = [rest.pop(upcard)]
    state = draw_state(
        facts.name, deal, dealer, mover, hands, [False] * players, [], rest, discard, [0] * players
    )
    done: set[str] = set()

    def script(now: Mapping[str, Any]) -> dict[str, Any] | None:
        if now["turn"] != mover or "open" in done:
            return None
        if now["phase"] == "draw":
            return {"type": "draw_stock", "player": mover}
        done.add("open")
        return {"type": "open", "player": mover, "melds": melds}

    return state, script


def natural_two_state(
    rng: random.Random, players: int, dealer: int, facts: ProfileData
) -> tuple[dict[str, Any], Script] | None:
    """An opened player facing a run whose 2-position holds a wild card (a joker, or a 2
    of another suit), holding the natural 2 of the run's suit; the script draws and puts
    that 2 in the wild card's place (to the hand, then to either end)."""
    if "2" not in facts.wild_ranks:
        return None
    deal = rng.choice([d.number for d in facts.deals if len(d.contracts) == 1][:3])
    dealt = facts.hand_size(deal)
    room = dealt - facts.contract_cards(deal)
    if room < 2:
        return None
    suit = rng.choice(SUITS)
    counts = Counter(facts.pack(players).canonical_order())
    low = rng.choice([1, 2])
    run = [run_card(low + k, suit) for k in range(facts.run_size)]
    two = "2" + suit
    wild = rng.choice([JOKER, "2" + rng.choice([s for s in SUITS if s != suit])])
    run[run.index(two)] = wild
    needed = Counter([*run, two])
    if any(counts[c] < n for c, n in needed.items()):
        return None
    counts.subtract(needed)
    rest = list(counts.elements())
    rng.shuffle(rest)
    mover = (dealer + 1) % players
    hand = [two, *(rest.pop() for _ in range(room - 1))]
    hands = [hand if p == mover else [rest.pop() for _ in range(dealt)] for p in range(players)]
    opened = [p == mover for p in range(players)]
    table = [{"owner": mover, "kind": "run", "cards": run}]
    upcard = next(i for i, c in enumerate(rest) if c != JOKER and not facts.is_wild(c))
    discard = [rest.pop(upcard)]
    state = draw_state(
        facts.name, deal, dealer, mover, hands, opened, table, rest, discard, [0] * players
    )
    tried: list[str] = []

    def script(now: Mapping[str, Any]) -> dict[str, Any] | None:
        if now["turn"] != mover:
            return None
        if now["phase"] == "draw":
            return {"type": "draw_stock", "player": mover}
        if two not in now["hands"][mover] or len(tried) == 3:
            return None
        to = ("hand", "low", "high")[len(tried)]
        tried.append(to)
        return {"type": "swap_joker", "player": mover, "meld": 0, "card": two, "to": to}

    return state, script


def play_probes(pair: Pair, game: int) -> list[Occurrence]:
    """The probes of ``game`` (see the module's docstring); their divergences."""
    options = pair.options
    rng = game_rng(options.seed, game, "probe")
    facts = pair.facts  # the engine's packs
    found: list[Occurrence] = []
    if pair.can_query and "query" not in pair.unsupported_ops:
        queries = [contract_query(rng, facts), *natural_two_queries(rng, facts)]
        for setup in queries:
            if setup is None or setup["query"] in pair.unsupported_ops:
                continue
            try:
                div, ref = pair.query(setup)
            except EndGame:
                pair.unsupported_ops.add(setup["query"])
                continue
            if div is not None:
                found.append(Occurrence(game, div, Trace({"op": "query", **setup}), ref))
            else:
                pair.agreed_on(Trace({"op": "query", **setup}))
    if not pair.can_load:
        return found
    players = rng.choice(pair.player_counts)
    dealer = rng.randrange(players)
    builders = [("extra meld", extra_meld_state), ("natural 2", natural_two_state)]
    for kind, build in builders:
        built = build(rng, players, dealer, facts)
        if built is None:
            continue
        state, script = built
        setup = {"op": "load_state", "state": state}
        try:
            div = pair.setup(setup)
            trace = Trace(setup)
            if div is not None:
                found.append(Occurrence(game, div, trace, {"state": pair.ref_state}))
                continue
            pair.events[f"probe: {kind}"] += 1
            policy = Policy(rng, pair.decl, facts)
            policy.greedy = True
            step = play_steps(pair, game, trace, rng, policy, facts, players, PROBE_STEPS, script)
            if step is not None:
                found.append(step)
        except SetupRefused:
            pair.events["probe: refused"] += 1
        except EndGame as exc:
            pair.ended_early[str(exc).split(":", 1)[0]] += 1
    return found
