"""The random player: a seeded policy (greedy or random, with near misses) that picks
the next action from the reference's state, and the random melds-level queries."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from conformance.adapter.declarations import Declarations
from conformance.knowledge.cards import CANONICAL_ORDER, JOKER, RANKS, SUITS
from conformance.knowledge.profiles import ProfileData, find_profile
from conformance.laws.greedy import card_value, find_opening, keep_score, lay_off_candidates

from .melds import any_opening, candidates, contract_kinds, joker_swaps, run_card, run_low


class Policy:
    """Chooses the next action from the reference's state: greedy or random, seeded."""

    def __init__(
        self, rng: random.Random, decl: Declarations, facts: ProfileData | None = None
    ) -> None:
        self.rng = rng
        self.facts = facts or find_profile("argentine")
        self.listed_runs = decl.run_order == "listed"
        self.requested_ends = decl.run_ends == "requested"
        self.greedy = rng.random() < 0.6

    def action(self, state: Mapping[str, Any]) -> dict[str, Any]:
        """The next action to put to both engines (legal or not)."""
        rng = self.rng
        if rng.random() < 0.08:
            return self.probe(state)
        turn = int(state["turn"])
        hand = list(state["hands"][turn])
        if state["phase"] == "draw":
            return self.draw(state, turn, hand)
        opened = bool(state["opened"][turn])
        deal = int(state["deal_number"])
        if not opened:
            opening = find_opening(hand, deal, self.facts)
            if opening is None and rng.random() < 0.3:
                opening = any_opening(hand, deal, self.facts)  # may empty the hand (TURN-9)
            if opening is not None and (self.greedy or rng.random() < 0.6):
                if rng.random() < 0.15:
                    # One meld more than the contract (CONTRACT-8), when the hand has one.
                    left = Counter(hand) - Counter(c for m in opening for c in m["cards"])
                    extra = [
                        m
                        for kind in ("trio", "run")
                        for m in candidates(list(left.elements()), kind, self.facts)
                    ]
                    if extra:
                        kind, cards = rng.choice(extra)
                        opening = [*opening, {"kind": kind, "cards": list(cards)}]
                return {"type": "open", "player": turn, "melds": opening}
            if rng.random() < 0.08:
                return {"type": "open", "player": turn, "melds": self.random_opening(state, hand)}
        elif state.get("turn_opened") and rng.random() < 0.3:
            # A lay-off on the opening turn (TURN-6): refused, unless the engine differs.
            layoffs = list(lay_off_candidates(hand, state["table"]))
            if layoffs:
                return {"type": "lay_off", "player": turn, **rng.choice(layoffs)}
        elif not state.get("turn_opened"):
            table = state["table"]
            swaps = joker_swaps(hand, table)
            if swaps and rng.random() < 0.7:
                swap = rng.choice(swaps)
                to = rng.choice(["low", "high", "low", "high", "hand"])
                action: dict[str, Any] = {"type": "swap_joker", "player": turn, **swap, "to": to}
                if to != "hand" and rng.random() < 0.1:
                    action["to_meld"] = rng.randrange(len(table))
                return action
            if rng.random() < 0.4:
                probe = self.meld_probe(turn, hand, table, deal)
                if probe is not None:
                    return probe
            layoffs = list(lay_off_candidates(hand, table))
            if (
                layoffs
                and (len(hand) > 1 or rng.random() < 0.3)
                and (self.greedy or rng.random() < 0.6)
            ):
                return {"type": "lay_off", "player": turn, **rng.choice(layoffs)}
            trios = [i for i, m in enumerate(table) if m.get("kind") == "trio"]
            if JOKER in hand and trios and len(hand) > 1 and rng.random() < 0.3:
                return {"type": "lay_off", "player": turn, "card": JOKER, "meld": rng.choice(trios)}
        return {"type": "discard", "player": turn, "card": self.discard_choice(hand)}

    def meld_probe(
        self, turn: int, hand: Sequence[str], table: Sequence[Mapping[str, Any]], deal: int
    ) -> dict[str, Any] | None:
        """A near miss for an opened player: a swap with the wrong card or destination, a
        lay-off one rank off or past an ace, a joker at a run end, a second opening."""
        rng = self.rng
        roll = rng.random()
        runs = [i for i, m in enumerate(table) if m.get("kind") == "run"]
        with_jokers = [i for i, m in enumerate(table) if JOKER in m.get("cards", [])]
        if roll < 0.35 and with_jokers:
            index = rng.choice(with_jokers)
            cards = table[index]["cards"]
            low = run_low(cards) if table[index]["kind"] == "run" else None
            naturals = [c for c in cards if c != JOKER]
            # Cards from the hand (a card not held is refused before anything else):
            # the one a joker stands for, or one of its rank in another suit, or any.
            ranks = set()
            if low is not None and naturals:
                suit = naturals[0][-1]
                ranks = {
                    run_card(low + i, suit)[:-1]
                    for i, c in enumerate(cards)
                    if c == JOKER and 1 <= low + i <= 14
                }
            elif naturals:
                ranks = {naturals[0][:-1]}
            options = [c for c in hand if c[:-1] in ranks] or list(hand)
            card = rng.choice(options)
            to = rng.choice(["low", "high", "hand"])
            action: dict[str, Any] = {
                "type": "swap_joker",
                "player": turn,
                "meld": index,
                "card": card,
                "to": to,
            }
            if rng.random() < 0.2:
                action["to_meld"] = rng.randrange(len(table))
            return action
        if roll < 0.75 and runs:
            index = rng.choice(runs)
            cards = table[index]["cards"]
            low = run_low(cards)
            naturals = [c for c in cards if c != JOKER]
            if low is None or not naturals:
                return None
            suit = naturals[0][-1]
            high = low + len(cards) - 1
            # A held card of the run's suit (one rank off, past an ace, anywhere) or a joker.
            options = [c for c in hand if c == JOKER or c[-1] == suit] or list(hand)
            card = rng.choice(options)
            position = None if card == JOKER else RANKS.index(card[:-1]) + 1
            if position is not None and (abs(position - low) < abs(position - high)):
                end = "low"
            elif position is not None:
                end = "high"
            else:
                end = rng.choice(["low", "high"])
            if rng.random() < 0.2:
                end = "low" if end == "high" else "high"
            return {"type": "lay_off", "player": turn, "card": card, "meld": index, "end": end}
        melds = [m for kind in ("trio", "run") for m in candidates(hand, kind, self.facts)]
        if melds:
            kind, cards = rng.choice(melds)
            return {"type": "open", "player": turn, "melds": [{"kind": kind, "cards": list(cards)}]}
        return None

    def draw(self, state: Mapping[str, Any], turn: int, hand: list[str]) -> dict[str, Any]:
        """Stock or discard; the discard when it helps (greedy) or when the stock is low."""
        discard = state["discard"]
        if discard:
            top = discard[0]
            helps = top == JOKER or keep_score(top, [*hand, top]) >= 2
            low_stock = len(state["stock"]) <= 1
            weight = 0.7 if (helps and self.greedy) or low_stock else 0.25
            if self.rng.random() < weight:
                return {"type": "draw_discard", "player": turn}
        return {"type": "draw_stock", "player": turn}

    def discard_choice(self, hand: Sequence[str]) -> str:
        """The least useful card (greedy) or any card."""
        if not self.greedy or self.rng.random() < 0.2:
            return self.rng.choice(list(hand))
        return min(hand, key=lambda c: (keep_score(c, hand), -card_value(c, self.facts), c))

    def random_opening(self, state: Mapping[str, Any], hand: Sequence[str]) -> list[dict[str, Any]]:
        """An opening that is usually wrong: wrong kinds, sizes, ranks, suits or jokers."""
        rng = self.rng
        kinds = contract_kinds(self.facts, int(state["deal_number"]), rng)
        if rng.random() < 0.2:
            kinds.append(rng.choice(["trio", "run"]))
        elif rng.random() < 0.2 and len(kinds) > 1:
            kinds.pop()
        melds = []
        for kind in kinds:
            size = (3 if kind == "trio" else 4) + rng.choice([0, 0, 0, 1, -1])
            melds.append({"kind": kind, "cards": self.random_cards(hand, kind, size)})
        return melds

    def random_cards(self, hand: Sequence[str], kind: str, size: int) -> list[str]:
        """``size`` cards, mostly from ``hand``, that look like a meld of ``kind``."""
        rng = self.rng
        pool = list(hand) if hand else ["AS"]
        if kind == "trio":
            rank = rng.choice(pool)[:-1] if pool[0] != JOKER else rng.choice(RANKS)
            same = [c for c in pool if c != JOKER and c[:-1] == rank]
            cards = same[:size] + [rng.choice(pool) for _ in range(max(0, size - len(same)))]
            return cards[:size]
        suit = rng.choice(SUITS)
        low = rng.randrange(1, 15 - max(size, 1) + 1)
        cards = [run_card(min(low + k, 14), suit) for k in range(size)]
        if self.listed_runs:
            if rng.random() < 0.3:
                cards[rng.randrange(size)] = JOKER
            if rng.random() < 0.2:
                rng.shuffle(cards)
        elif rng.random() < 0.3:
            cards[rng.randrange(size)] = run_card(
                min(low + rng.randrange(size), 14), rng.choice(SUITS)
            )
        return cards

    def probe(self, state: Mapping[str, Any]) -> dict[str, Any]:
        """An action that is often illegal: wrong player, card, meld, end or phase."""
        rng = self.rng
        players = int(state["players"])
        player = rng.randrange(players) if rng.random() < 0.4 else int(state["turn"])
        hand = list(state["hands"][player]) or ["AS"]
        card = rng.choice(hand) if rng.random() < 0.8 else rng.choice(CANONICAL_ORDER)
        table = state["table"]
        meld = rng.randrange(len(table) + 1) if rng.random() < 0.95 else len(table) + 3
        kind = rng.choice(
            ["draw_stock", "draw_discard", "discard", "lay_off", "swap_joker", "open"][
                : rng.choice([5, 6])
            ]
        )
        if kind in ("draw_stock", "draw_discard"):
            return {"type": kind, "player": player}
        if kind == "discard":
            return {"type": "discard", "player": player, "card": card}
        if kind == "open":
            return {"type": "open", "player": player, "melds": self.random_opening(state, hand)}
        target = table[meld] if meld < len(table) else None
        ends: dict[str, Any] = {}
        if kind == "lay_off":
            if target is None or target.get("kind") == "run":
                ends = {"end": rng.choice(["low", "high"])} if self.requested_ends else {}
                if not ends:
                    ends = {"end": "high"}
            return {"type": "lay_off", "player": player, "card": card, "meld": meld, **ends}
        to = rng.choice(["low", "high", "hand"])
        return {"type": "swap_joker", "player": player, "meld": meld, "card": card, "to": to}


def random_query(rng: random.Random, decl: Declarations, profile: str) -> dict[str, Any]:
    """One random meld, contract or penalty query (protocol request fields plus ``query``)."""
    facts = find_profile(profile)
    policy = Policy(rng, decl, facts)
    roll = rng.random()
    if roll < 0.2:
        size = rng.randrange(0, 13)
        return {
            "query": "penalty",
            "profile": profile,
            "cards": [rng.choice(CANONICAL_ORDER) for _ in range(size)],
        }
    if roll < 0.45:
        deal = rng.randrange(1, facts.deal_count + 1)
        kinds = contract_kinds(facts, deal, rng)
        if rng.random() < 0.2:
            rng.shuffle(kinds)
            kinds = kinds[: rng.randrange(1, len(kinds) + 1)] + (
                [rng.choice(["trio", "run"])] if rng.random() < 0.3 else []
            )
        melds = [_query_meld(rng, policy, kind, initial=True) for kind in kinds]
        return {"query": "check_contract", "profile": profile, "deal_number": deal, "melds": melds}
    initial = rng.random() < 0.5
    meld = _query_meld(rng, policy, rng.choice(["trio", "run"]), initial=initial)
    return {"query": "check_meld", "profile": profile, "meld": meld, "initial": initial}


def _query_meld(rng: random.Random, policy: Policy, kind: str, *, initial: bool) -> dict[str, Any]:
    """A meld that is valid about half of the time: sizes, jokers, aces and suits vary."""
    if rng.random() < 0.04:
        return {"kind": kind, "cards": [JOKER] * rng.choice([3, 4, 5])}
    if kind == "trio":
        rank = rng.choice(RANKS)
        size = rng.choice([3, 3, 3, 4, 2] if initial else [3, 4, 5, 6, 2])
        cards = [rank + rng.choice(SUITS) for _ in range(size)]
        for _ in range(rng.choice([0, 0, 1, 2])):
            cards[rng.randrange(size)] = JOKER
        if rng.random() < 0.15:
            cards[rng.randrange(size)] = rng.choice(CANONICAL_ORDER[:52])
        return {"kind": "trio", "cards": cards}
    size = rng.choice([4, 4, 4, 3, 5] if initial else [4, 5, 6, 8, 10, 13, 14, 3])
    suit = rng.choice(SUITS)
    low = rng.randrange(1, max(2, 15 - size + 1))
    cards = [run_card(low + k, suit) if low + k <= 14 else "2" + suit for k in range(size)]
    if rng.random() < 0.2:
        # Round the K-A corner (MELD-RUN-3): Q-K-A-2, K-A-2-3, J-Q-K-A-2 ...
        start = rng.choice([10, 11, 12, 13])
        cards = [RANKS[(start + k) % 13] + suit for k in range(rng.choice([4, 5]))]
    if policy.listed_runs:
        for _ in range(rng.choice([0, 0, 1, 1, 2])):
            cards[rng.randrange(len(cards))] = JOKER
        if rng.random() < 0.1:
            i, j = rng.randrange(len(cards)), rng.randrange(len(cards))
            cards[i], cards[j] = cards[j], cards[i]
        if rng.random() < 0.15 and len(cards) > 1:
            # A joker slid in among the naturals: it may now stand on a gap, or past an ace.
            cards.insert(rng.randrange(len(cards) + 1), JOKER)
            cards.pop(rng.randrange(len(cards)))
        if rng.random() < 0.1 and len(cards) > 3:
            del cards[rng.randrange(1, len(cards) - 1)]  # a gap
    if rng.random() < 0.1:
        i = rng.randrange(len(cards))
        if cards[i] != JOKER:
            cards[i] = cards[i][:-1] + rng.choice(SUITS)
    return {"kind": "run", "cards": cards}
