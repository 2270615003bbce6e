"""``carioca-conformance fuzz``: differential fuzzing of an engine against the reference.

The reference adapter is started as a subprocess (never imported), configured with the
rulings and house variants the engine under test declares in its handshake. Seeded games
are played with a mix of random and greedy policies; every action (and every deal op) is
put to both engines, and acceptance, rejection reason and resulting state are compared the
way ``run`` grades a case (conformance/compare.py), honouring the engine's interface
declarations (docs/protocol.md §2). For engines at the ``melds`` level, meld, contract and
penalty queries are fuzzed too.

A divergence is shrunk (the state just before it when the engine loads states, else delta
debugging over the steps) and written as a draft scenario (``review: draft``), grouped by
rule ID and de-duplicated. docs/fuzzing.md describes the campaign, the report
(``conformance/schemas/fuzz-report.schema.json``) and what is not compared.
"""

from __future__ import annotations

import json
import multiprocessing
import queue as queue_module
import random
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final

import yaml

from .cards import CANONICAL_ORDER, JOKER, RANKS, SUITS
from .catalogue import Catalogue
from .compare import (
    ENDED_PHASES,
    EXACT_KEYS,
    Mismatch,
    compare_state,
    compare_unchanged,
    strip_private,
)
from .engine import EngineSession, Handshake
from .errors import EngineError, EngineReportedError
from .profiles import ProfileData, find_profile
from .properties import (
    _keep_score,
    _lay_off_candidates,
    _meld_candidates,
    card_value,
    contract_melds,
    find_opening,
)
from .reachability import unreachable_problems
from .scenarios import DRAFT_IDS, fill_after, load_file

#: Version of the JSON report's layout (conformance/schemas/fuzz-report.schema.json).
REPORT_VERSION: Final = 1
#: Draft scenario ids: cc-8000 .. cc-8999 are reserved for fuzz drafts and never given to
#: corpus cases (docs/fuzzing.md), so a draft copied into ``scenarios/`` is renumbered.
FIRST_DRAFT_ID: Final = DRAFT_IDS[0]
LAST_DRAFT_ID: Final = DRAFT_IDS[1]
#: Steps (actions and deal ops) after which a game stops.
DEFAULT_MAX_STEPS: Final = 120
#: Meld, contract and penalty queries per game for ``melds``-level engines.
QUERIES_PER_GAME: Final = 12
#: Replays the delta-debugging shrinker may spend on one finding.
SHRINK_BUDGET: Final = 150
#: The most steps before a divergence that the shrinker replays from a loaded state (when
#: the state just before it does not show the divergence, docs/fuzzing.md).
SHRINK_TAIL: Final = 4
#: Reasons that docs/reasons.md ("Fair reasons by family") makes interchangeable.
FAIR_FAMILIES: Final[tuple[frozenset[str], ...]] = (
    frozenset({"run_wraps", "beyond_ace"}),
    frozenset({"beyond_ace", "does_not_fit"}),
    frozenset({"run_suit", "too_many_jokers"}),
)
#: The rule a divergence on an op or action type is filed under when no reason names one.
OP_RULES: Final[Mapping[str, str]] = {
    "draw_stock": "TURN-2",
    "draw_discard": "TURN-2",
    "open": "CONTRACT-8",
    "lay_off": "LAYOFF-4",
    "swap_joker": "JOKER-4",
    "discard": "TURN-5",
    "next_deal": "DEAL-2",
    "redeal": "DEAL-6",
    "start_deal": "DEAL-3",
    "load_state": "CARDS-1",
    "check_meld": "MELD-RUN-1",
    "check_contract": "CONTRACT-8",
    "penalty": "SCORE-2",
}
#: The rule a state difference in one field is filed under (before the op's own rule).
FIELD_RULES: Final[Mapping[str, str]] = {
    "totals": "SCORE-4",
    "deal_scores": "SCORE-2",
    "closer": "END-1",
    "winners": "END-5",
    "dealer": "DEAL-2",
}


class FuzzError(Exception):
    """A fuzz campaign cannot run as asked (a usage problem, named with what and where)."""


# --------------------------------------------------------------------------- options


@dataclass(frozen=True)
class FuzzOptions:
    """What one campaign (or one shard of it) plays."""

    games: int = 100
    seed: int = 0
    workers: int = 1
    shard: tuple[int, int] = (1, 1)
    """``(I, N)``: this run plays the games whose index is ``I-1`` modulo ``N``."""
    only_games: tuple[int, ...] = ()
    """Replay only these game indices (from a report's ``reproduce``)."""
    max_steps: int = DEFAULT_MAX_STEPS
    profile: str = "argentine"
    timeout: float = 10.0
    shrink: bool = True
    reference_argv: tuple[str, ...] = (sys.executable, "-m", "reference.adapter")
    reference_rulings: tuple[tuple[str, str], ...] = ()
    """Options the reference plays over what the engine declares: a campaign then shows
    exactly where that option changes play (the tests fuzz one ruling against another)."""


def parse_shard(text: str) -> tuple[int, int]:
    """``"I/N"`` with 1 <= I <= N, as ``(I, N)``.

    :raises FuzzError: when the text is not of that form.
    """
    index, sep, count = text.partition("/")
    if not sep or not index.strip().isdigit() or not count.strip().isdigit():
        raise FuzzError(f"--shard {text!r}: expected I/N, e.g. 2/4")
    i, n = int(index), int(count)
    if not 1 <= i <= n:
        raise FuzzError(f"--shard {text!r}: I must be between 1 and N")
    return i, n


def game_indices(options: FuzzOptions) -> list[int]:
    """The game indices this run plays: the shard's share of ``range(games)``.

    Each game's seed depends only on the campaign seed and its index, so the shards of a
    campaign together play exactly the games of the unsharded campaign.
    """
    if options.only_games:
        return sorted(set(options.only_games))
    i, n = options.shard
    return [g for g in range(options.games) if g % n == i - 1]


# --------------------------------------------------------------------------- findings


@dataclass
class Divergence:
    """One place where the engine and the reference disagree."""

    rule: str
    op: str
    kind: str
    """``outcome``, ``reason``, ``state``, ``unchanged`` (a rejection changed the state),
    ``setup`` (a dealt or loaded state), ``check`` (a melds query) or ``error``."""
    summary: str
    mismatches: list[str]

    @property
    def key(self) -> str:
        """What de-duplicates findings: the rule, the op, the kind and what differed."""
        return f"{self.rule}|{self.op}|{self.kind}|{self.summary}"


@dataclass
class Trace:
    """How to replay a game up to a divergence: a setup and the steps after it."""

    setup: dict[str, Any]
    """``{"op": "start_deal"|"load_state", ...request fields}`` or ``{"op": "query", ...}``."""
    steps: list[dict[str, Any]] = field(default_factory=list)
    """``{"op": "act", "action": ...}``, ``{"op": "next_deal"|"redeal", "deck": [...]}``."""
    stock_top: int | None = None
    """When set, the setup's stock is its first ``stock_top`` cards then the canonical fill,
    and a draft gives only those (``stock_top``)."""

    def size(self) -> tuple[int, int, int]:
        """Smaller is a better example: steps, players, cards outside the stock."""
        if self.setup["op"] == "query":
            return (0, 0, _query_size(self.setup))
        if self.setup["op"] not in ("load_state", "start_deal"):
            return (0, 0, 0)
        if self.setup["op"] == "load_state":
            state = self.setup["state"]
            players = int(state["players"])
            cards = sum(len(h) for h in state["hands"]) + sum(
                len(m["cards"]) for m in state["table"]
            )
        else:
            players = int(self.setup["players"])
            cards = len(self.setup["deck"])
        return (len(self.steps), players, cards)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        out: dict[str, Any] = {"setup": self.setup, "steps": self.steps}
        if self.stock_top is not None:
            out["stock_top"] = self.stock_top
        return out


def _query_size(setup: Mapping[str, Any]) -> int:
    if setup["query"] == "check_meld":
        return len(setup["meld"]["cards"])
    if setup["query"] == "check_contract":
        return sum(len(m["cards"]) for m in setup["melds"])
    return len(setup["cards"])


@dataclass
class Occurrence:
    """A divergence found in one game, with the trace that reaches it."""

    game: int
    divergence: Divergence
    trace: Trace
    reference: dict[str, Any]
    """The reference's answer at the divergent op (state, outcome or query result)."""


@dataclass
class Finding:
    """One de-duplicated divergence: a count, the games, and its smallest example."""

    divergence: Divergence
    count: int
    games: list[int]
    example: Occurrence
    shrunk: bool = False
    scenario: dict[str, Any] | None = None
    scenario_file: str | None = None


# --------------------------------------------------------------------------- helpers


def fair_reasons(reason: str) -> list[str]:
    """``reason`` and every reason docs/reasons.md makes equally fair with it."""
    out = {reason}
    for family in FAIR_FAMILIES:
        if reason in family:
            out |= family
    return sorted(out)


def lay_off_fair_reasons(
    reason: str, action: Mapping[str, Any], state: Mapping[str, Any]
) -> list[str]:
    """The reasons fair with ``reason`` for ``action`` in ``state``, by the cards.

    docs/reasons.md splits a lay-off past an ace in two families: a joker, or the 2 above
    a high ace (the K below a low one), would continue the run round the corner
    (``beyond_ace``, ``run_wraps``); any other card is past the ace and fits nowhere
    either (``beyond_ace``, ``does_not_fit``). Elsewhere: :func:`fair_reasons`.
    """
    table = state.get("table") or []
    index = action.get("meld")
    if (
        action.get("type") != "lay_off"
        or reason not in ("beyond_ace", "does_not_fit", "run_wraps")
        or not isinstance(index, int)
        or not 0 <= index < len(table)
        or table[index].get("kind") != "run"
    ):
        return fair_reasons(reason)
    cards = list(table[index]["cards"])
    low = _run_low(cards)
    naturals = [c for c in cards if c != JOKER]
    end = action.get("end")
    if low is None or not naturals:
        return fair_reasons(reason)
    high = low + len(cards) - 1
    if not ((end == "high" and high >= 14) or (end == "low" and low <= 1)):
        return fair_reasons(reason)
    suit = naturals[0][-1]
    wrap = _run_card(2 if end == "high" else 13, suit)
    if action.get("card") in (JOKER, wrap):
        return ["beyond_ace", "run_wraps"]
    return ["beyond_ace", "does_not_fit"]


def same_fair_family(a: str | None, b: str | None) -> bool:
    """True when ``a`` and ``b`` are the same reason or in one fair family."""
    if a == b:
        return True
    if a is None or b is None:
        return False
    return b in fair_reasons(a)


def reference_rulings(
    handshake: Handshake, catalogue: Catalogue
) -> tuple[dict[str, str], list[str]]:
    """The engine's declared rulings the reference can play, and warnings for the rest."""
    good: dict[str, str] = {}
    warnings: list[str] = []
    for point, option in sorted(handshake.rulings.items()):
        dispute = catalogue.disputes.get(point)
        if dispute is None or option not in dispute.options:
            warnings.append(
                f"the engine declares {point}={option!r}, which the catalogue does not know; "
                "the reference plays the profile's option there"
            )
            continue
        good[point] = option
    return good, warnings


def _shuffled_deck(rng: random.Random, facts: ProfileData, players: int) -> list[str]:
    deck = list(facts.pack(players).canonical_order())
    rng.shuffle(deck)
    return deck


def _contract_kinds(facts: ProfileData, deal: int, rng: random.Random | None = None) -> list[str]:
    """The meld kinds of one way to make deal ``deal``'s contract (a random one of several
    when ``rng`` is given, else the first)."""
    contracts = facts.deal(deal).contracts
    # A single contract draws nothing from ``rng``, so argentine games keep their seeds.
    contract = rng.choice(contracts) if rng is not None and len(contracts) > 1 else contracts[0]
    return ["trio"] * contract.trios + ["run"] * contract.runs


def _outcome(answer: Mapping[str, Any]) -> str:
    if answer.get("accepted"):
        return "accepted"
    reason = answer.get("reason")
    return f"rejected ({reason})" if reason else "rejected"


def _field_of(what: str) -> str:
    """The top-level state field a compare_state mismatch is about."""
    head = what.split("[", 1)[0].split(".", 1)[0].split(" (", 1)[0]
    if head.startswith("number of "):
        head = head.removeprefix("number of ").removesuffix(" melds").removesuffix("s") + "s"
        head = {"tables": "table", "hands": "hands"}.get(head, head)
    return head


def _expected_state(state: Mapping[str, Any], recycled: bool) -> dict[str, Any]:
    """The reference state as a state check, in the keys compare_state knows."""
    check: dict[str, Any] = {k: state[k] for k in EXACT_KEYS if k in state and k != "winners"}
    if isinstance(state.get("winners"), list) or "winners" in state:
        check["winners"] = state["winners"]
    check["hands"] = state["hands"]
    check["table"] = state["table"]
    check["discard"] = state["discard"]
    if recycled:
        # docs/protocol.md §6: a recycled stock's order is the engine's own.
        check["stock_cards"] = state["stock"]
    else:
        check["stock"] = state["stock"]
    return check


def new_game_check(state: Mapping[str, Any]) -> dict[str, Any]:
    """What a ``new_game`` state must show whatever the shuffle and the lot: the reference's
    counts, totals and phase, a dealer among the players and the next player to move."""
    players = int(state["players"])
    return {
        "players": players,
        "deal_number": state["deal_number"],
        "phase": state["phase"],
        "hand_sizes": [len(h) for h in state["hands"]],
        "stock_size": len(state["stock"]),
        "discard_size": len(state["discard"]),
        "opened": state["opened"],
        "table": state["table"],
        "totals": state["totals"],
        "dealer_in": list(range(players)),
        "turn_right_of_dealer": True,
    }


def _canonical(state: Mapping[str, Any], runs_as_sets: bool) -> dict[str, Any]:
    out = strip_private(state)
    out.pop("profile", None)
    out["hands"] = [sorted(h) for h in out.get("hands", [])]
    out["table"] = [
        {**m, "cards": sorted(m["cards"])} if (m.get("kind") == "trio" or runs_as_sets) else m
        for m in out.get("table", [])
    ]
    return out


# --------------------------------------------------------------------------- policies


def _run_card(position: int, suit: str) -> str:
    return ("A" if position in (1, 14) else RANKS[position - 1]) + suit


def _run_low(cards: Sequence[str]) -> int | None:
    """Position (1..14) of a run's first card, from its first natural card."""
    first = next((i for i, c in enumerate(cards) if c != JOKER), None)
    if first is None:
        return None
    rank = RANKS.index(cards[first][:-1]) + 1
    low = rank - first
    if low < 1:
        low += 13
    return low


def _joker_swaps(hand: Sequence[str], table: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Replacements whose card is the one a run's joker stands for (JOKER-4)."""
    out = []
    for index, meld in enumerate(table):
        cards = list(meld.get("cards", []))
        if meld.get("kind") != "run" or JOKER not in cards:
            continue
        low = _run_low(cards)
        naturals = [c for c in cards if c != JOKER]
        if low is None or not naturals:
            continue
        suit = naturals[0][-1]
        for i, card in enumerate(cards):
            if card == JOKER and 1 <= low + i <= 14:
                wanted = _run_card(low + i, suit)
                if wanted in hand:
                    out.append({"meld": index, "card": wanted})
    return out


class Policy:
    """Chooses the next action from the reference's state: greedy or random, seeded."""

    def __init__(
        self, rng: random.Random, handshake: Handshake, facts: ProfileData | None = None
    ) -> None:
        self.rng = rng
        self.facts = facts or find_profile("argentine")
        self.listed_runs = handshake.run_order == "listed"
        self.requested_ends = handshake.run_ends == "requested"
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
                opening = _any_opening(hand, deal, self.facts)  # may empty the hand (TURN-9)
            if opening is not None and (self.greedy or rng.random() < 0.6):
                if rng.random() < 0.15:
                    # One meld more than the contract (CONTRACT-8), when the hand has one.
                    left = Counter(hand) - Counter(c for m in opening for c in m["cards"])
                    extra = [
                        m
                        for kind in ("trio", "run")
                        for m in _candidates(list(left.elements()), kind, self.facts)
                    ]
                    if extra:
                        kind, cards = rng.choice(extra)
                        opening = [*opening, {"kind": kind, "cards": list(cards)}]
                return {"type": "open", "player": turn, "melds": opening}
            if rng.random() < 0.08:
                return {"type": "open", "player": turn, "melds": self.random_opening(state, hand)}
        elif state.get("turn_opened") and rng.random() < 0.3:
            # A lay-off on the opening turn (TURN-6): refused, unless the engine differs.
            layoffs = list(_lay_off_candidates(hand, state["table"]))
            if layoffs:
                return {"type": "lay_off", "player": turn, **rng.choice(layoffs)}
        elif not state.get("turn_opened"):
            table = state["table"]
            swaps = _joker_swaps(hand, table)
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
            layoffs = list(_lay_off_candidates(hand, table))
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
            low = _run_low(cards) if table[index]["kind"] == "run" else None
            naturals = [c for c in cards if c != JOKER]
            # Cards from the hand (a card not held is refused before anything else):
            # the one a joker stands for, or one of its rank in another suit, or any.
            ranks = set()
            if low is not None and naturals:
                suit = naturals[0][-1]
                ranks = {
                    _run_card(low + i, suit)[:-1]
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
            low = _run_low(cards)
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
        melds = [m for kind in ("trio", "run") for m in _candidates(hand, kind, self.facts)]
        if melds:
            kind, cards = rng.choice(melds)
            return {"type": "open", "player": turn, "melds": [{"kind": kind, "cards": list(cards)}]}
        return None

    def draw(self, state: Mapping[str, Any], turn: int, hand: list[str]) -> dict[str, Any]:
        """Stock or discard; the discard when it helps (greedy) or when the stock is low."""
        discard = state["discard"]
        if discard:
            top = discard[0]
            helps = top == JOKER or _keep_score(top, [*hand, top]) >= 2
            low_stock = len(state["stock"]) <= 1
            weight = 0.7 if (helps and self.greedy) or low_stock else 0.25
            if self.rng.random() < weight:
                return {"type": "draw_discard", "player": turn}
        return {"type": "draw_stock", "player": turn}

    def discard_choice(self, hand: Sequence[str]) -> str:
        """The least useful card (greedy) or any card."""
        if not self.greedy or self.rng.random() < 0.2:
            return self.rng.choice(list(hand))
        return min(hand, key=lambda c: (_keep_score(c, hand), -card_value(c, self.facts), c))

    def random_opening(self, state: Mapping[str, Any], hand: Sequence[str]) -> list[dict[str, Any]]:
        """An opening that is usually wrong: wrong kinds, sizes, ranks, suits or jokers."""
        rng = self.rng
        kinds = _contract_kinds(self.facts, int(state["deal_number"]), rng)
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
        cards = [_run_card(min(low + k, 14), suit) for k in range(size)]
        if self.listed_runs:
            if rng.random() < 0.3:
                cards[rng.randrange(size)] = JOKER
            if rng.random() < 0.2:
                rng.shuffle(cards)
        elif rng.random() < 0.3:
            cards[rng.randrange(size)] = _run_card(
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


def _candidates(
    hand: Sequence[str], kind: str, facts: ProfileData
) -> list[tuple[str, tuple[str, ...]]]:
    return [(kind, cards) for cards in _meld_candidates(Counter(hand), kind, facts.wild_ranks)]


def _any_opening(hand: Sequence[str], deal: int, facts: ProfileData) -> list[dict[str, Any]] | None:
    """An opening of the contract from ``hand`` even if it leaves no card (a TURN-9 probe)."""
    return contract_melds(hand, _contract_kinds(facts, deal), facts.wild_ranks)


# --------------------------------------------------------------------------- queries


def _query(rng: random.Random, handshake: Handshake, profile: str) -> dict[str, Any]:
    """One random meld, contract or penalty query (protocol request fields plus ``query``)."""
    facts = find_profile(profile)
    policy = Policy(rng, handshake, facts)
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
        kinds = _contract_kinds(facts, deal, rng)
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
    cards = [_run_card(low + k, suit) if low + k <= 14 else "2" + suit for k in range(size)]
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


# --------------------------------------------------------------------------- the pair


class EndGame(Exception):
    """The game cannot go on comparably (an op unsupported, a state the reference refuses)."""


class SetupRefused(EndGame):
    """The reference refuses a built state (a table the profile's rules do not allow)."""


class EngineFault(Exception):
    """The engine answered an error (not ``unsupported``) to a request the reference took."""

    def __init__(
        self, op: str, error: EngineReportedError, reference: Mapping[str, Any] | None = None
    ) -> None:
        super().__init__(f"{op}: {error.kind}: {error.message}")
        self.op = op
        self.kind = error.kind
        #: The reference's answer to the same request (a draft's expectations).
        self.reference: dict[str, Any] = dict(reference or {})


class Pair:
    """The engine under test and the reference, each in its own adapter process."""

    def __init__(
        self,
        engine_argv: Sequence[str],
        options: FuzzOptions,
        catalogue: Catalogue,
        *,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.options = options
        self.catalogue = catalogue
        self.engine = EngineSession(engine_argv, timeout=options.timeout, env=env)
        self.engine.start()
        hs = self.engine.handshake
        assert hs is not None
        # The engine's rulings in the fuzzed profile (docs/protocol.md §2, profile_rulings).
        hs = hs.for_profile(options.profile)
        self.handshake: Handshake = hs
        self.rulings, self.warnings = reference_rulings(hs, catalogue)
        self.rulings.update(dict(options.reference_rulings))
        ref_argv = [*options.reference_argv]
        for point, option in self.rulings.items():
            ref_argv += ["--ruling", f"{point}={option}"]
        self.reference_argv = ref_argv
        self.reference = EngineSession(ref_argv, timeout=options.timeout, env=env)
        try:
            self.reference.start()
        except EngineError:
            self.engine.close()
            raise
        self.reasons = "reasons" in hs.capabilities
        self.runs_as_sets = hs.run_order == "engine" or hs.run_ends == "engine"
        self.can_load = "turns" in hs.capabilities
        self.can_deal = "deals" in hs.capabilities
        self.can_query = "melds" in hs.capabilities
        self.unsupported_ops: set[str] = set()
        if self.can_load:
            self._probe_load_state()
        self.ref_state: dict[str, Any] = {}
        self.eng_state: dict[str, Any] = {}
        self.steps = 0
        self.queries = 0
        #: What the games exercised: accepted actions by type, recycles, cancels, closes.
        self.events: Counter[str] = Counter()
        #: Why games stopped before their last step (an op unsupported, a state refused).
        self.ended_early: Counter[str] = Counter()

    def _probe_load_state(self) -> None:
        """Learn once, before any game, whether the engine loads states, so that every
        worker plays the same games for a seed (an engine may lack ``load_state``)."""
        rng = random.Random("carioca-fuzz:probe")
        facts = find_profile(self.options.profile)
        players = ([p for p in self.handshake.players if p in facts.players] or [2])[0]
        state = _built_state(rng, players, 1, 0, [0] * players, self.options.profile)
        try:
            self.engine.request("load_state", state=state)
        except EngineReportedError as exc:
            if exc.kind == "unsupported":
                self.can_load = False
                self.unsupported_ops.add("load_state")

    def close(self) -> None:
        """Say bye to both adapters."""
        self.engine.close()
        self.reference.close()

    def restart_engine(self) -> None:
        """After an engine crash: start it again (the reference too, if it died)."""
        if not self.engine.alive:
            self.engine.restart()
        if not self.reference.alive:
            self.reference.restart()

    # -- requests ----------------------------------------------------------------------

    def _both(self, op: str, **fields: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        try:
            ref = self.reference.request(op, **fields)
        except EngineReportedError as exc:
            raise EndGame(f"the reference answered {exc.kind} to {op}: {exc.message}") from None
        try:
            eng = self.engine.request(op, **fields)
        except EngineReportedError as exc:
            if exc.kind == "unsupported":
                self.unsupported_ops.add(op if op != "act" else f"act:{fields['action']['type']}")
                raise EndGame(f"engine: {op} unsupported") from None
            raise EngineFault(op, exc, ref) from None
        return ref, eng

    def _resync(self, allowed: bool) -> None:
        """Make the reference hold the engine's state where they differ only as allowed.

        After a recycle the stock order is the engine's own, and an engine that arranges
        runs or picks ends lists runs its own way; the reference loads the engine's state
        (its unmodelled fields, and ``turn`` once a deal has ended, taken from the
        reference) so that later draws agree. ``allowed`` is False for an engine that only
        deals from decks: a game that would need it ends there, since no scenario could
        replay it.
        """
        merged = strip_private(self.eng_state)
        for name in self.handshake.unmodelled:
            merged[name] = self.ref_state.get(name)
        if merged.get("phase") in ENDED_PHASES:
            merged["turn"] = self.ref_state.get("turn")
        ref_winners, eng_winners = self.ref_state.get("winners"), merged.get("winners")
        # Winners are a set of players (docs/scenario-format.md): the engine's order is its own.
        if (
            isinstance(ref_winners, list)
            and isinstance(eng_winners, list)
            and sorted(ref_winners) == sorted(eng_winners)
        ):
            merged["winners"] = ref_winners
        if _canonical(merged, False) == _canonical(self.ref_state, False):
            return
        if not allowed:
            raise EndGame(
                "the states differ as the protocol allows; "
                "a deal-only engine cannot be replayed past it"
            )
        merged["profile"] = self.options.profile
        try:
            self.ref_state = self.reference.request("load_state", state=merged)["state"]
        except EngineReportedError as exc:
            raise EndGame(f"the reference refuses the engine's state: {exc}") from None

    # -- setup and steps ---------------------------------------------------------------

    def setup(self, setup: Mapping[str, Any]) -> Divergence | None:
        """Deal or load the setup on both; compare the states."""
        op = setup["op"]
        fields = {k: v for k, v in setup.items() if k != "op"}
        if op == "load_state":
            try:
                ref = self.reference.request("load_state", **fields)
            except EngineReportedError as exc:
                raise SetupRefused(f"the reference refuses the setup: {exc}") from None
            try:
                eng = self.engine.request("load_state", **fields)
            except EngineReportedError as exc:
                if exc.kind == "unsupported":
                    self.can_load = False
                    self.unsupported_ops.add("load_state")
                    raise EndGame("engine: load_state unsupported") from None
                if exc.kind == "invalid_state":
                    return Divergence(
                        "CARDS-1",
                        "load_state",
                        "setup",
                        "engine refuses a reachable state",
                        [str(exc)],
                    )
                return Divergence(
                    "CARDS-1", "load_state", "error", f"engine answered {exc.kind}", [str(exc)]
                )
        else:
            try:
                ref, eng = self._both(op, **fields)
            except EngineFault as exc:
                return Divergence(
                    OP_RULES.get(op, "DEAL-3"),
                    op,
                    "error",
                    f"engine answered {exc.kind}",
                    [str(exc)],
                )
        self.ref_state, self.eng_state = ref["state"], eng["state"]
        if op == "new_game":
            # The shuffle and the dealer drawn by lot are each engine's own: compare what
            # the rules fix (the counts, the dealer among the players, who moves first).
            found = compare_state(
                new_game_check(ref["state"]), eng["state"], unmodelled=self.handshake.unmodelled
            )
        else:
            found = self._state_diff(ref["state"], eng["state"], recycled=False)
        if found:
            return self._classify_state(op, found, ref["state"], eng["state"], kind="setup")
        self._resync(allowed=op == "load_state" or self.can_load)
        return None

    def step(self, step: Mapping[str, Any], *, deal_mode: bool) -> Divergence | None:
        """Put one step to both; return the divergence, if any."""
        before = self.ref_state
        eng_before = self.eng_state
        op = step["op"]
        self.steps += 1
        action = step.get("action")
        label = action["type"] if action is not None else op
        try:
            if action is not None:
                ref, eng = self._both("act", action=action)
            else:
                ref, eng = self._both(op, deck=step["deck"])
        except EngineFault as exc:
            return Divergence(
                OP_RULES.get(label, "TURN-1"),
                label,
                "error",
                f"engine answered {exc.kind}",
                [str(exc)],
            )
        ref_after, eng_after = ref["state"], eng["state"]
        if (
            ref.get("accepted") != eng.get("accepted")
            and action is not None
            and self.handshake.run_ends != "requested"
        ):
            ref, ref_after = self._other_end(before, action, ref, eng)
        recycled = bool(
            action is not None
            and action["type"] == "draw_stock"
            and not before["stock"]
            and ref.get("accepted")
        )
        self.ref_state, self.eng_state = ref_after, eng_after
        if bool(ref.get("accepted")) != bool(eng.get("accepted")):
            reason = ref.get("reason") if not ref.get("accepted") else eng.get("reason")
            rule = self._reason_rule(reason if isinstance(reason, str) else None, label)
            shown = _outcome(eng) if self.reasons or eng.get("accepted") else "rejected"
            summary = f"reference {_outcome(ref)}, engine {shown}"
            return Divergence(rule, label, "outcome", summary, [f"{label}: {summary}"])
        if not ref.get("accepted"):
            if self.reasons and not self._same_reason(
                ref.get("reason"), eng.get("reason"), action, before
            ):
                rule = self._reason_rule(ref.get("reason"), label)
                summary = (
                    f"reference rejected ({ref.get('reason')}), "
                    f"engine rejected ({eng.get('reason')})"
                )
                return Divergence(rule, label, "reason", summary, [summary])
            changed = compare_unchanged(eng_before, eng_after, unmodelled=self.handshake.unmodelled)
            if changed:
                return Divergence(
                    "DISPUTE-35",
                    label,
                    "unchanged",
                    "a rejected action changed the engine's state: "
                    + ", ".join(sorted({_field_of(m.what) for m in changed})),
                    [str(m) for m in changed],
                )
            return None
        self._count(label, before, ref_after, recycled)
        found = self._state_diff(ref_after, eng_after, recycled=recycled)
        if found:
            return self._classify_state(
                label, found, ref_after, eng_after, kind="state", recycled=recycled
            )
        self._resync(allowed=not deal_mode)
        return None

    def _count(
        self, label: str, before: Mapping[str, Any], after: Mapping[str, Any], recycled: bool
    ) -> None:
        self.events[label] += 1
        if recycled and after["phase"] != "cancelled":
            self.events["recycle"] += 1
        if after["phase"] != before["phase"] and after["phase"] in ENDED_PHASES:
            self.events[
                {"deal_over": "close", "cancelled": "cancel", "game_over": "game_over"}[
                    after["phase"]
                ]
            ] += 1
            winners = after.get("winners")
            if after["phase"] == "game_over" and isinstance(winners, list) and len(winners) > 1:
                self.events["tied game end"] += 1  # END-5: equal lowest totals share the win

    def _other_end(
        self,
        before: dict[str, Any],
        action: Mapping[str, Any],
        ref: dict[str, Any],
        eng: dict[str, Any],
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """An engine that picks run ends itself (``run_ends: engine``): try the other end."""
        key = (
            "end"
            if action["type"] == "lay_off"
            else "to"
            if action["type"] == "swap_joker"
            else None
        )
        if (
            key is None
            or action.get(key) not in ("low", "high")
            or ref.get("accepted")
            or not eng.get("accepted")
        ):
            return ref, ref["state"]
        other = {**action, key: "high" if action[key] == "low" else "low"}
        self.reference.request(
            "load_state", state={**strip_private(before), "profile": self.options.profile}
        )
        alt = self.reference.request("act", action=other)
        if alt.get("accepted"):
            return alt, alt["state"]
        self.reference.request(
            "load_state", state={**strip_private(ref["state"]), "profile": self.options.profile}
        )
        return ref, ref["state"]

    def _same_reason(
        self,
        ref_reason: Any,
        eng_reason: Any,
        action: Mapping[str, Any] | None,
        before: Mapping[str, Any],
    ) -> bool:
        """Whether the engine's rejection reason is fair beside the reference's: by the
        cards for a lay-off at a named end (:func:`lay_off_fair_reasons`), else by family.
        An engine that picks ends itself may judge another end: families only."""
        if ref_reason == eng_reason:
            return True
        if not isinstance(ref_reason, str) or not isinstance(eng_reason, str):
            return False
        if action is not None and self.handshake.run_ends == "requested":
            return eng_reason in lay_off_fair_reasons(ref_reason, action, before)
        return same_fair_family(ref_reason, eng_reason)

    def _reason_rule(self, reason: str | None, label: str) -> str:
        if reason and reason in self.catalogue.reasons:
            return self.catalogue.reasons[reason].rule
        return OP_RULES.get(label, "TURN-1")

    def _state_diff(
        self, ref_state: Mapping[str, Any], eng_state: Mapping[str, Any], *, recycled: bool
    ) -> list[Mismatch]:
        return compare_state(
            _expected_state(ref_state, recycled),
            eng_state,
            unmodelled=self.handshake.unmodelled,
            runs_as_sets=self.runs_as_sets,
        )

    def _classify_state(
        self,
        label: str,
        found: list[Mismatch],
        ref_state: Mapping[str, Any],
        eng_state: Mapping[str, Any],
        *,
        kind: str,
        recycled: bool = False,
    ) -> Divergence:
        fields = sorted({_field_of(m.what) for m in found})
        rule = next((FIELD_RULES[f] for f in fields if f in FIELD_RULES), None)
        if label == "new_game":
            # The pack (its size shows in the stock), the deal, the lot, the first turn.
            by_field = {"stock_size": "CARDS-1", "hand_sizes": "DEAL-3", "dealer": "DEAL-1"}
            rule = next((by_field[f] for f in fields if f in by_field), rule or "DEAL-5")
        if "phase" in fields and "game_over" in (ref_state.get("phase"), eng_state.get("phase")):
            rule = "END-4"  # whether the game ended comes before who won it (winners)
        if rule is None:
            if "phase" in fields and "cancelled" in (
                ref_state.get("phase"),
                eng_state.get("phase"),
            ):
                rule = "STOCK-2"
            elif "phase" in fields and "game_over" in (
                ref_state.get("phase"),
                eng_state.get("phase"),
            ):
                rule = "END-4"
            elif recycled:
                rule = "STOCK-1"
            elif label in ("start_deal", "next_deal", "redeal", "load_state") and fields == [
                "turn"
            ]:
                rule = "DEAL-5"
            elif label == "discard" and "phase" in fields:
                rule = "END-1"
            elif "turn" in fields and len(fields) == 1:
                rule = "TURN-1"
            else:
                rule = OP_RULES.get(label, "TURN-1")
        return Divergence(
            rule, label, kind, "state differs in " + ", ".join(fields), [str(m) for m in found]
        )

    def query(self, setup: Mapping[str, Any]) -> tuple[Divergence | None, dict[str, Any]]:
        """Put one melds-level query to both; compare valid/reason or points."""
        op = setup["query"]
        fields = {k: v for k, v in setup.items() if k != "query"}
        self.queries += 1
        try:
            ref, eng = self._both(op, **fields)
        except EngineFault as exc:
            summary = f"engine answered {exc.kind}"
            return Divergence(OP_RULES[op], op, "error", summary, [str(exc)]), exc.reference
        if op == "penalty":
            if ref.get("points") != eng.get("points"):
                summary = f"reference {ref.get('points')} points, engine {eng.get('points')}"
                return Divergence("SCORE-2", op, "check", "points differ", [summary]), ref
            return None, ref
        if ref.get("valid") != eng.get("valid"):
            reason = ref.get("reason") if not ref.get("valid") else eng.get("reason")
            rule = self._reason_rule(reason if isinstance(reason, str) else None, op)
            summary = f"reference valid={ref.get('valid')}, engine valid={eng.get('valid')}"
            if not ref.get("valid") and ref.get("reason"):
                summary += f" (reference: {ref['reason']})"
            return Divergence(rule, op, "check", summary, [summary]), ref
        if (
            self.reasons
            and ref.get("valid") is False
            and not same_fair_family(ref.get("reason"), eng.get("reason"))
        ):
            rule = self._reason_rule(ref.get("reason"), op)
            summary = f"reference reason {ref.get('reason')}, engine reason {eng.get('reason')}"
            return Divergence(rule, op, "reason", summary, [summary]), ref
        return None, ref


# --------------------------------------------------------------------------- games


def _game_rng(seed: int, game: int, what: str = "game") -> random.Random:
    # A string seed is hashed with SHA-512 by random.Random: stable across runs and machines.
    return random.Random(f"carioca-fuzz:{seed}:{game}:{what}")


def _built_state(
    rng: random.Random,
    players: int,
    deal: int,
    dealer: int,
    totals: list[int],
    profile: str,
    *,
    careful: bool = False,
) -> dict[str, Any]:
    """A reachable mid-deal state in the draw phase: some players opened, a small stock.

    The counts follow conformance/reachability.py: an unopened player holds the dealt
    number of cards; an opened one owns melds and holds at most dealt - contract cards.
    The table takes trios and runs of the remaining cards (jokers included), so lay-offs,
    joker replacements, recycling, cancels and closes come within a few turns.
    """
    facts = find_profile(profile)
    dealt = facts.hand_size(deal)
    laid = facts.contract_cards(deal)
    pool = _shuffled_deck(rng, facts, players)
    # In deals 6 and 7 an opening lays every card but the one discarded (END-2, END-3): no
    # player can be opened and still playing, so the table stays empty there.
    can_open = dealt - laid >= 1
    opened = [can_open and rng.random() < 0.6 for _ in range(players)]
    if can_open and not any(opened):
        opened[rng.randrange(players)] = True
    hands = []
    for p in range(players):
        size = dealt if not opened[p] else rng.randint(1, dealt - laid)
        hands.append([pool.pop() for _ in range(size)])
    counts = Counter(pool)
    mover = (dealer + 1) % players
    if not opened[mover] and rng.random() < 0.4:
        _bait_opening(rng, hands[mover], deal, counts, facts)
    table: list[dict[str, Any]] = []
    owners = [p for p in range(players) if opened[p]]
    # Runs first (some with a joker), then trios of what is left.
    for _ in range(rng.randint(1, 4) if owners else 0):
        suit = rng.choice(SUITS)
        length = rng.randint(4, 9)
        low = rng.choice([1, 15 - length, rng.randint(1, 15 - length)])  # aces at the ends
        cards = [_run_card(low + k, suit) for k in range(length)]
        for _ in range(rng.choice([0, 1, 1, 2])):
            cards[rng.randrange(length)] = JOKER
        need = Counter(cards)
        if all(counts[c] >= n for c, n in need.items()) and any(c != JOKER for c in cards):
            counts -= need
            table.append({"owner": 0, "kind": "run", "cards": cards})
    for rank in RANKS if owners else ():
        naturals = [c for c in sorted(counts.elements()) if c != JOKER and c[:-1] == rank]
        if careful:
            # One card of each suit and no wild card: a trio every profile allows.
            naturals = sorted({c for c in naturals if not facts.is_wild(c)})
        if len(naturals) >= 3 and rng.random() < 0.8:
            take = naturals[: rng.randint(3, min(4, len(naturals)))]
            counts -= Counter(take)
            table.append({"owner": 0, "kind": "trio", "cards": take})
    for i, meld in enumerate(table):
        meld["owner"] = owners[i % len(owners)] if i < len(owners) else rng.choice(owners)
    for p in owners:
        if not any(m["owner"] == p for m in table):
            opened[p] = False
            while len(hands[p]) < dealt:
                card = next(iter(counts.elements()))
                counts[card] -= 1
                hands[p].append(card)
    rest = list(counts.elements())
    rng.shuffle(rest)
    if table and rng.random() < 0.5:
        # Dense: the table takes what it can, the discard pile is one card and the stock
        # what is left, so the first draws cancel the deal or empty the stock (STOCK-2).
        kept = facts if careful else None
        top, rest = rest[:1], _absorb(rest[1:], table, kept)
        upcard_and_discard, stock = top, _trade(rest, hands, table, kept)
    else:
        upcard_and_discard = rest[: max(1, len(rest) - rng.choice([0, 1, 2, 3, 6, 12]))]
        stock = rest[len(upcard_and_discard) :]
    _bait_swaps(rng, hands, table, opened, (stock, upcard_and_discard))
    turn = (dealer + 1) % players
    return _draw_state(
        profile, deal, dealer, turn, hands, opened, table, stock, upcard_and_discard, totals
    )


def _draw_state(
    profile: str,
    deal: int,
    dealer: int,
    turn: int,
    hands: list[list[str]],
    opened: list[bool],
    table: list[dict[str, Any]],
    stock: list[str],
    discard: list[str],
    totals: list[int],
) -> dict[str, Any]:
    """A protocol state at the start of ``turn``'s turn (draw phase), as the fuzzer builds it."""
    return {
        "profile": profile,
        "players": len(hands),
        "deal_number": deal,
        "dealer": dealer,
        "turn": turn,
        "phase": "draw",
        "hands": hands,
        "opened": opened,
        "turn_opened": False,
        "table": table,
        "stock": stock,
        "discard": discard,
        "totals": totals,
        "deal_scores": None,
        "closer": None,
        "winners": None,
    }


def _bait_opening(
    rng: random.Random, hand: list[str], deal: int, counts: Counter[str], facts: ProfileData
) -> None:
    """Put a ready contract (at most one wild card a meld) into ``hand``, from ``counts``."""
    melds: list[str] = []
    for kind in _contract_kinds(facts, deal, rng):
        left = counts - Counter(melds)
        found = [list(c) for c in _meld_candidates(left, kind, facts.wild_ranks)]
        if not found:
            return
        melds += rng.choice(found)
    if len(melds) > len(hand):
        return
    for card in hand[: len(melds)]:
        counts[card] += 1
    counts.subtract(Counter(melds))
    hand[: len(melds)] = melds


def _bait_swaps(
    rng: random.Random,
    hands: list[list[str]],
    table: Sequence[Mapping[str, Any]],
    opened: Sequence[bool],
    piles: Sequence[list[str]],
) -> None:
    """Give opened players the cards some table jokers stand for (or that rank in another
    suit), taken from the stock or the discard pile below its top, so replacements happen."""
    holders = [p for p, o in enumerate(opened) if o and hands[p]]
    for swap in _joker_swaps(list(CANONICAL_ORDER), table):
        if not holders or rng.random() < 0.3:
            continue
        card = swap["card"]
        if rng.random() < 0.4:
            card = card[:-1] + rng.choice(SUITS)  # the right rank in some suit (JOKER-4)
        for pile, first in ((piles[0], 0), (piles[1], 1)):
            if card in pile[first:]:
                where = pile.index(card, first)
                p = rng.choice(holders)
                i = rng.randrange(len(hands[p]))
                pile[where], hands[p][i] = hands[p][i], card
                break


def _absorb(
    cards: list[str], table: list[dict[str, Any]], careful: ProfileData | None = None
) -> list[str]:
    """Lay ``cards`` onto the table melds where they fit; return those that fit nowhere.

    ``careful``: a trio takes only a natural card of its rank in a suit it lacks, up to four
    cards, so that every profile allows it (see :func:`_built_state`)."""
    left = []
    for card in cards:
        for meld in table:
            naturals = [c for c in meld["cards"] if c != JOKER]
            if meld["kind"] == "trio":
                if careful is not None:
                    fits = (
                        len(meld["cards"]) < 4
                        and not careful.is_wild(card)
                        and card[:-1] == naturals[0][:-1]
                        and card[-1] not in {c[-1] for c in naturals}
                    )
                else:
                    fits = card == JOKER or card[:-1] == naturals[0][:-1]
                if fits:
                    meld["cards"].append(card)
                    break
                continue
            low = _run_low(meld["cards"])
            if low is None or card == JOKER or card[-1] != naturals[0][-1]:
                continue
            high = low + len(meld["cards"]) - 1
            if high < 14 and card == _run_card(high + 1, card[-1]):
                meld["cards"].append(card)
                break
            if low > 1 and card == _run_card(low - 1, card[-1]):
                meld["cards"].insert(0, card)
                break
        else:
            left.append(card)
    return left


def _trade(
    cards: list[str],
    hands: list[list[str]],
    table: list[dict[str, Any]],
    careful: ProfileData | None = None,
) -> list[str]:
    """Swap cards that fit no meld for hand cards that do (the hand keeps its size)."""
    left = []
    for card in cards:
        placed = False
        for hand in hands:
            for i, held in enumerate(hand):
                if not _absorb([held], table, careful):
                    hand[i] = card
                    placed = True
                    break
            if placed:
                break
        if not placed:
            left.append(card)
    return left


def _play_game(pair: Pair, game: int) -> tuple[list[Occurrence], int]:
    """Play one seeded game: queries, the main game, then one end-of-game or run-end scene
    (:func:`_play_scene`, from a stream of its own, so the main games of a seed stay the
    same); return its divergences and steps played."""
    steps_before = pair.steps
    occurrences = _play_main(pair, game)
    if pair.can_load or pair.can_deal:
        occurrences += _play_scene(pair, game)
    return occurrences, pair.steps - steps_before


def _play_main(pair: Pair, game: int) -> list[Occurrence]:
    """The queries and the main game of ``game``: a shuffled deal or a built state, played
    by a seeded policy up to ``--max-steps`` steps."""
    options = pair.options
    rng = _game_rng(options.seed, game)
    occurrences: list[Occurrence] = []
    hs = pair.handshake
    if pair.can_query and "query" not in pair.unsupported_ops:
        for _ in range(QUERIES_PER_GAME):
            setup = _query(rng, hs, options.profile)
            if setup["query"] in pair.unsupported_ops:
                continue
            try:
                found, ref = pair.query(setup)
            except EndGame:
                pair.unsupported_ops.add(setup["query"])
                continue
            if found is not None:
                occurrences.append(Occurrence(game, found, Trace({"op": "query", **setup}), ref))
    if not (pair.can_load or pair.can_deal):
        return occurrences
    facts = find_profile(options.profile)
    players_choices = [p for p in hs.players if p in facts.players] or [min(facts.players)]
    players = rng.choice(players_choices)
    deal = rng.randint(1, facts.deal_count)
    dealer = rng.randrange(players)
    totals = [rng.choice([0, 0, 10, 25, 60]) for _ in range(players)]
    use_state = rng.random() < 0.5
    if pair.can_load and (use_state or not pair.can_deal):
        setup = {
            "op": "load_state",
            "state": _built_state(rng, players, deal, dealer, totals, options.profile),
        }
    else:
        setup = {
            "op": "start_deal",
            "profile": options.profile,
            "players": players,
            "deal_number": deal,
            "dealer": dealer,
            "totals": totals,
            "deck": _shuffled_deck(rng, facts, players),
        }
    policy = Policy(rng, hs, facts)
    try:
        try:
            try:
                found = pair.setup(setup)
            except SetupRefused:
                # The profile's rules refuse the built table (perla's trios of different
                # suits, say): build once more with trios that every profile allows.
                state = _built_state(
                    rng, players, deal, dealer, totals, options.profile, careful=True
                )
                setup = {"op": "load_state", "state": state}
                found = pair.setup(setup)
        except EndGame:
            if pair.can_load or not pair.can_deal or setup["op"] != "load_state":
                raise
            # The engine does not load states: play this game from a deck instead.
            state = setup["state"]
            fields = ("profile", "players", "deal_number", "dealer", "totals")
            setup = {
                "op": "start_deal",
                **{k: state[k] for k in fields},
                "deck": _shuffled_deck(rng, facts, players),
            }
            found = pair.setup(setup)
        trace = Trace(setup)
        if found is not None:
            occurrences.append(Occurrence(game, found, trace, {"state": pair.ref_state}))
            return occurrences
        found_step = _play_steps(pair, game, trace, rng, policy, facts, players, options.max_steps)
        if found_step is not None:
            occurrences.append(found_step)
    except EndGame as exc:
        pair.ended_early[str(exc).split(":", 1)[0]] += 1
    return occurrences


def _play_steps(
    pair: Pair,
    game: int,
    trace: Trace,
    rng: random.Random,
    policy: Policy,
    facts: ProfileData,
    players: int,
    limit: int,
    script: Callable[[Mapping[str, Any]], dict[str, Any] | None] | None = None,
) -> Occurrence | None:
    """Play up to ``limit`` steps from the pair's state; the first divergence, if any.

    ``script`` gives the next action while it has one (None: the policy's turn); it draws
    nothing from ``rng``, so a game without a script consumes its stream as it always did.
    """
    deal_mode = not pair.can_load
    drew = False
    befores: list[dict[str, Any]] = []  # the reference's state before each step
    for _ in range(limit):
        state = pair.ref_state
        befores.append(state)
        phase = state["phase"]
        step: dict[str, Any]
        scripted = script(state) if script is not None and phase not in ENDED_PHASES else None
        if scripted is not None:
            step = {"op": "act", "action": scripted}
            drew = True
        elif phase in ENDED_PHASES:
            if not pair.can_deal or "next_deal" in pair.unsupported_ops:
                break
            step = {"op": "next_deal", "deck": _shuffled_deck(rng, facts, players)}
            drew = False
        elif pair.can_deal and rng.random() < 0.02:
            step = {
                "op": rng.choice(["next_deal", "redeal"]),
                "deck": _shuffled_deck(rng, facts, players),
            }
        elif pair.can_deal and not drew and rng.random() < 0.1:
            step = {"op": "redeal", "deck": _shuffled_deck(rng, facts, players)}
        else:
            step = {"op": "act", "action": policy.action(state)}
            drew = True
        trace.steps.append(step)
        found = pair.step(step, deal_mode=deal_mode)
        if found is not None:
            return Occurrence(
                game,
                found,
                Trace(trace.setup, list(trace.steps)),
                {"state": pair.ref_state, "before": state, "befores": befores[-SHRINK_TAIL:]},
            )
        if phase == "game_over":
            break
    return None


# --------------------------------------------------------------------------- scenes

#: Steps a scene (the end-of-game or run-end material after the main game) may play.
SCENE_STEPS: Final = 30
#: Scripted lay-off and replacement attempts a run-end scene makes after its draw.
SCENE_ATTEMPTS: Final = 20


def _play_scene(pair: Pair, game: int) -> list[Occurrence]:
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
    rng = _game_rng(options.seed, game, "scene")
    hs = pair.handshake
    facts = find_profile(options.profile)
    players_choices = [p for p in hs.players if p in facts.players] or [min(facts.players)]
    players = rng.choice(players_choices)
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
            "deck": _shuffled_deck(rng, facts, players),
        }
        if "DISPUTE-67" in pair.catalogue.disputes_for(options.profile):
            # The profile scores a perfect cut (docs/protocol.md §10): cut exactly the
            # hands and the upcard, or one card off either way.
            perfect = players * facts.hand_size(deal) + 1
            setup["cut"] = perfect + rng.choice([0, 0, -1, 1])
    policy = Policy(rng, hs, facts)
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
        found_step = _play_steps(pair, game, trace, rng, policy, facts, players, limit, script)
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


def _natural_meld(
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
            cards = [_run_card(low + k, suit) for k in range(size)]
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
        cards = _natural_meld(rng, counts, kind, size, facts)
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
    state = _draw_state(
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
        cards = [_run_card(p, suit) for p in positions]
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
        wanted = [*stood_for, _run_card(low + length + 1, suit) if high + 2 <= 14 else None]
        wanted.append(_run_card(low - 1, suit) if low > 1 else _run_card(13, suit))
        wanted.append(_run_card(high + 1, suit) if high < 14 else _run_card(2, suit))
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
    state = _draw_state(
        facts.name, deal, dealer, mover, hands, opened, table, rest, discard, totals
    )
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


# --------------------------------------------------------------------------- shrinking


def _replay(pair: Pair, trace: Trace, key: str) -> int | None:
    """Replay ``trace``; the index of the step where divergence ``key`` shows, else None.

    ``-1`` means the setup itself diverges that way. Any other divergence first is None.
    ``key`` cites the profile's own rule IDs, as findings do (:func:`_in_profile`).
    """
    facts = find_profile(pair.options.profile)

    def same(found: Divergence | None) -> bool:
        return found is not None and replace(found, rule=facts.rule_id(found.rule)).key == key

    try:
        if trace.setup["op"] == "query":
            found, _ = pair.query({k: v for k, v in trace.setup.items() if k != "op"})
            return -1 if same(found) else None
        found = pair.setup(trace.setup)
        if found is not None:
            return -1 if same(found) else None
        deal_mode = not pair.can_load
        for i, step in enumerate(trace.steps):
            found = pair.step(step, deal_mode=deal_mode)
            if found is not None:
                return i if same(found) else None
    except (EndGame, EngineReportedError):
        return None
    except EngineError:
        pair.restart_engine()
        return None
    return None


def _ddmin(items: list[Any], test: Callable[[list[Any]], bool], budget: list[int]) -> list[Any]:
    """Zeller's delta debugging: a 1-minimal sublist for which ``test`` holds (within budget)."""
    n = 2
    while len(items) >= 2 and budget[0] > 0:
        chunk = max(1, len(items) // n)
        reduced = False
        for start in range(0, len(items), chunk):
            if budget[0] <= 0:
                break
            candidate = items[:start] + items[start + chunk :]
            budget[0] -= 1
            if candidate and test(candidate):
                items = candidate
                n = max(n - 1, 2)
                reduced = True
                break
        if not reduced:
            if chunk == 1:
                break
            n = min(len(items), n * 2)
    return items


def shrink(pair: Pair, occurrence: Occurrence) -> Occurrence:
    """A smaller reproduction of the same divergence (same key), or the original.

    Queries lose cards one at a time. With an engine that loads states, the reference's
    state just before the divergent step becomes the setup (one step), or else the state
    before the last few steps (up to ``SHRINK_TAIL``). Otherwise the steps before it are
    delta-debugged (rejected ones first), as long as the divergence stays.
    """
    key = occurrence.divergence.key
    trace = occurrence.trace
    budget = [SHRINK_BUDGET]
    if trace.setup["op"] == "query":
        return _shrink_query(pair, occurrence, budget)
    if not trace.steps:
        return occurrence
    last = trace.steps[-1]
    before = occurrence.reference.get("before")
    befores = occurrence.reference.get("befores") or ([before] if before is not None else [])
    if pair.can_load:
        # The state before the last step, else before the last few: what the protocol's
        # state does not carry (perla's chance to steal after a draw) is then replayed.
        for k in range(1, min(len(befores), len(trace.steps)) + 1):
            start = {**strip_private(befores[-k]), "profile": pair.options.profile}
            short = Trace({"op": "load_state", "state": start}, trace.steps[-k:])
            if _replay(pair, short, key) != k - 1:
                continue
            if k == 1:
                return _found_again(pair, occurrence, _shrink_state(pair, short, key, budget))
            return _found_again(pair, occurrence, short)
    prefix = trace.steps[:-1]

    def holds(candidate: list[Any]) -> bool:
        return _replay(pair, Trace(trace.setup, [*candidate, last]), key) == len(candidate)

    if prefix and holds([]):
        return _found_again(pair, occurrence, Trace(trace.setup, [last]))
    smaller = _ddmin(prefix, holds, budget) if prefix else prefix
    if len(smaller) < len(prefix) and holds(smaller):
        return _found_again(pair, occurrence, Trace(trace.setup, [*smaller, last]))
    return occurrence


def _shrink_state(pair: Pair, trace: Trace, key: str, budget: list[int]) -> Trace:
    """A smaller one-step reproduction: fewer table melds, a one-card discard pile, and a
    stock given by its first cards (the rest filled in canonical order, as a scenario's
    ``stock_top`` is, docs/scenario-format.md). Each change is kept only if the same
    divergence still shows on the step."""
    state = json.loads(json.dumps(trace.setup["state"]))
    action = dict(trace.steps[0].get("action") or {})

    def holds(candidate: dict[str, Any], act: dict[str, Any]) -> bool:
        budget[0] -= 1
        step = {"op": "act", "action": act} if act else trace.steps[0]
        return _replay(pair, Trace({"op": "load_state", "state": candidate}, [step]), key) == 0

    # Fewer players: drop one who neither acts nor is to move nor owns a meld (their
    # cards go to the stock); indices above them shift down by one.
    while int(state["players"]) > 2 and budget[0] > 0:
        for k in reversed(range(int(state["players"]))):
            fewer = _without_player(state, k, action)
            if fewer is not None and holds(*fewer):
                state, action = fewer
                break
        else:
            break
    # Table melds the action does not name, last first (indices above shift down by one).
    for index in reversed(range(len(state["table"]))):
        if budget[0] <= 0:
            break
        named = {action.get("meld"), action.get("to_meld")}
        if not action or index in named:
            continue
        owner = state["table"][index]["owner"]
        if sum(m["owner"] == owner for m in state["table"]) == 1 and state["opened"][owner]:
            continue  # an opened player keeps a meld (conformance/reachability.py)
        candidate = json.loads(json.dumps(state))
        meld = candidate["table"].pop(index)
        candidate["stock"] += meld["cards"]
        act = dict(action)
        for name in ("meld", "to_meld"):
            if isinstance(act.get(name), int) and act[name] > index:
                act[name] -= 1
        if holds(candidate, act):
            state, action = candidate, act
    if len(state["discard"]) > 1 and budget[0] > 0:
        candidate = json.loads(json.dumps(state))
        candidate["stock"] += candidate["discard"][1:]
        candidate["discard"] = candidate["discard"][:1]
        if holds(candidate, action):
            state = candidate
    placed = [c for h in state["hands"] for c in h] + [
        c for m in state["table"] for c in m["cards"]
    ]
    placed += state["discard"]
    for keep in (0, 1, 2, 4, 8, 16):
        if budget[0] <= 0 or keep >= len(state["stock"]):
            break
        candidate = {**state, "stock": fill_after(state["stock"][:keep], placed)}
        if holds(candidate, action):
            state = candidate
            trace = Trace({"op": "load_state", "state": state}, trace.steps, stock_top=keep)
            break
    step = {"op": "act", "action": action} if action else trace.steps[0]
    return Trace({"op": "load_state", "state": state}, [step], stock_top=trace.stock_top)


def _without_player(
    state: Mapping[str, Any], k: int, action: Mapping[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """``state`` and ``action`` with player ``k`` removed, or None when ``k`` matters."""
    players = int(state["players"])
    if k in (state["turn"], action.get("player")) or any(m["owner"] == k for m in state["table"]):
        return None

    def seat(i: int) -> int:
        return i - 1 if i > k else i

    out = json.loads(json.dumps(state))
    out["stock"] += out["hands"].pop(k)
    for key in ("opened", "totals"):
        out[key].pop(k)
    out["players"] = players - 1
    out["turn"] = seat(int(state["turn"]))
    dealer = int(state["dealer"])
    out["dealer"] = seat(dealer) if dealer != k else seat((k - 1) % players)
    for meld in out["table"]:
        meld["owner"] = seat(int(meld["owner"]))
    act = dict(action)
    if isinstance(act.get("player"), int):
        act["player"] = seat(act["player"])
    return out, act


def _found_again(pair: Pair, occurrence: Occurrence, trace: Trace) -> Occurrence:
    """Replay ``trace`` once more and keep the reference's answers along it."""
    _replay(pair, trace, occurrence.divergence.key)
    return Occurrence(occurrence.game, occurrence.divergence, trace, {"state": pair.ref_state})


def _shrink_query(pair: Pair, occurrence: Occurrence, budget: list[int]) -> Occurrence:
    setup = dict(occurrence.trace.setup)
    key = occurrence.divergence.key
    listed = "cards" if setup["query"] == "penalty" else None
    changed = True
    while changed and budget[0] > 0:
        changed = False
        places: list[tuple[str, int]] = []
        if listed:
            places = [("cards", i) for i in range(len(setup["cards"]))]
        elif setup["query"] == "check_meld":
            places = [("meld", i) for i in range(len(setup["meld"]["cards"]))]
        else:
            places = [
                (f"melds.{m}", i)
                for m, meld in enumerate(setup["melds"])
                for i in range(len(meld["cards"]))
            ]
        for where, i in places:
            budget[0] -= 1
            candidate = json.loads(json.dumps(setup))
            if where == "cards":
                del candidate["cards"][i]
            elif where == "meld":
                del candidate["meld"]["cards"][i]
            else:
                del candidate["melds"][int(where.split(".")[1])]["cards"][i]
            if _replay(pair, Trace(candidate), key) == -1:
                setup = candidate
                changed = True
                break
    if setup == occurrence.trace.setup:
        return occurrence
    _, ref = pair.query({k: v for k, v in setup.items() if k != "op"})
    return Occurrence(occurrence.game, occurrence.divergence, Trace(setup), ref)


# --------------------------------------------------------------------------- drafts


def draft_scenario(
    finding: Finding, scenario_id: str, pair_info: Mapping[str, Any], catalogue: Catalogue
) -> dict[str, Any]:
    """The finding's smallest example as a scenario document marked ``review: draft``.

    Its expectations are the reference's answers under the engine's rulings: they await a
    person's check against the rules text (docs/adding-scenarios.md).
    """
    occ = finding.example
    div = finding.divergence
    trace = occ.trace
    profile = pair_info["profile"]
    rulings: Mapping[str, str] = pair_info["rulings"]
    # Only points this profile rules on: a handshake may list every profile's points.
    points = catalogue.disputes_for(profile)
    assumes = {
        point: option
        for point, option in sorted(rulings.items())
        if point in points and points[point].profiles[profile] != option
    }
    doc: dict[str, Any] = {
        "id": scenario_id,
        "title": f"Fuzz draft: {div.op} ({div.kind}) under {div.rule}",
        "rules": [div.rule],
        "source": (
            f"drafted from the reference by fuzz (seed {pair_info['seed']}, game {occ.game}); "
            "check every expectation against the rules text"
        ),
        "profiles": [profile],
        "tags": ["fuzz"],
        "review": "draft",
        "notes": "; ".join(div.mismatches)[:500],
    }
    if assumes:
        doc["assumes"] = assumes
    if trace.setup["op"] == "query":
        setup = trace.setup
        op = setup["query"]
        ref = occ.reference
        if op == "penalty":
            check: dict[str, Any] = {"penalty": setup["cards"], "expect": {"points": ref["points"]}}
        else:
            expect: dict[str, Any] = {"valid": ref["valid"]}
            if ref.get("valid") is False and ref.get("reason"):
                fair = fair_reasons(ref["reason"])
                expect["reason"] = fair if len(fair) > 1 else fair[0]
            if op == "check_meld":
                check = {"check_meld": setup["meld"], "initial": setup["initial"], "expect": expect}
            else:
                check = {
                    "check_contract": {
                        "deal_number": setup["deal_number"],
                        "melds": setup["melds"],
                    },
                    "expect": expect,
                }
        doc["level"] = "melds"
        doc["checks"] = [check]
        return doc
    setup_op = trace.setup["op"]
    if setup_op == "load_state":
        state = {k: v for k, v in trace.setup["state"].items() if k != "profile"}
        if trace.stock_top is not None:
            # The harness fills the rest of the stock exactly as the shrinker did.
            state["stock_top"] = state.pop("stock")[: trace.stock_top]
        doc["level"] = "turns" if all(s["op"] == "act" for s in trace.steps) else "deals"
        doc["setup"] = {"state": state}
        problems = unreachable_problems(trace.setup["state"], find_profile(profile))
        if problems:
            doc["built"] = (
                "drafted by fuzz from a state the reference reached or built: "
                + "; ".join(problems)
            )
    elif setup_op == "new_game":
        doc["level"] = "deals"
        doc["setup"] = {"new_game": {k: trace.setup[k] for k in ("players", "seed")}}
    else:
        doc["level"] = "deals"
        doc["setup"] = {
            "deal": {
                k: trace.setup[k]
                for k in ("players", "deal_number", "dealer", "totals", "deck", "cut")
                if k in trace.setup
            }
        }
    steps = []
    befores = pair_info.get("befores") or [None] * len(trace.steps)
    by_cards = pair_info.get("run_ends", "requested") == "requested"
    for step, answer, before in zip(trace.steps, pair_info["answers"], befores, strict=True):
        if step["op"] == "act":
            out: dict[str, Any] = {"action": step["action"]}
        else:
            out = {step["op"]: {"deck": step["deck"]}}
        if answer.get("accepted"):
            out["expect"] = "accepted"
        elif answer.get("reason"):
            fair = (
                lay_off_fair_reasons(answer["reason"], step["action"], before)
                if by_cards and before is not None and step["op"] == "act"
                else fair_reasons(answer["reason"])
            )
            out["expect"] = {"rejected": fair if len(fair) > 1 else fair[0]}
        else:
            out["expect"] = "rejected"
        steps.append(out)
    doc["steps"] = steps
    ref_state = occ.reference["state"]
    check_keys = _check_keys(div)
    if setup_op == "new_game" and not trace.steps:
        doc["final"] = new_game_check(ref_state)
    elif check_keys:
        recycled = "stock_cards" in check_keys
        full = _expected_state(ref_state, recycled)
        final = {k: full[k] for k in check_keys if k in full}
        if final:
            if steps:
                steps[-1]["state"] = final
            else:
                doc["final"] = final
    return doc


def _draft(
    pair: Pair, finding: Finding, info: Mapping[str, Any], catalogue: Catalogue
) -> dict[str, Any]:
    """The draft scenario of ``finding``'s example, from the reference's answers along it."""
    answers, befores = _reference_answers(pair, finding.example.trace)
    pair_info = {**info, "answers": answers, "befores": befores}
    return draft_scenario(finding, "cc-8000", pair_info, catalogue)


def _draft_problems(doc: Mapping[str, Any], catalogue: Catalogue) -> list[str]:
    """What ``check`` says is wrong with a draft document (empty when it loads)."""
    with tempfile.TemporaryDirectory(prefix="carioca-fuzz-") as tmp:
        path = Path(tmp) / f"{doc['id']}.yaml"
        path.write_text(yaml.safe_dump(dict(doc), sort_keys=False), encoding="utf-8")
        # A label, not the temporary path: the messages and the load cache's key stay
        # the same from run to run.
        loaded = load_file(path, catalogue=catalogue, label=f"draft {doc['id']}")
    return [str(e) for e in loaded.errors]


def _check_keys(div: Divergence) -> list[str]:
    """The state-check keys a draft pins: the fields that differed."""
    if div.kind not in ("state", "setup"):
        return []
    keys = []
    for text in div.mismatches:
        name = _field_of(text.split(":", 1)[0])
        if name in EXACT_KEYS or name in ("stock_cards", "stock", "hands", "table", "discard"):
            keys.append(name)
    return sorted(set(keys))


def _reference_answers(
    pair: Pair, trace: Trace
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The reference's answers along a trace (for the draft's expectations), and its state
    before each step (for the reasons fair there)."""
    answers: list[dict[str, Any]] = []
    befores: list[dict[str, Any]] = []
    ref = pair.reference
    if trace.setup["op"] == "load_state":
        state = ref.request("load_state", state=trace.setup["state"])["state"]
    elif trace.setup["op"] in ("start_deal", "new_game"):
        fields = {k: v for k, v in trace.setup.items() if k != "op"}
        state = ref.request(trace.setup["op"], **fields)["state"]
    else:
        return [], []
    for step in trace.steps:
        befores.append(state)
        if step["op"] == "act":
            answer = ref.request("act", action=step["action"])
        else:
            answer = ref.request(step["op"], deck=step["deck"])
        answers.append(answer)
        state = answer.get("state", state)
    return answers, befores


# --------------------------------------------------------------------------- campaign


@dataclass
class FuzzResult:
    """A campaign's outcome, ready for the JSON report."""

    engine: dict[str, Any]
    engine_argv: list[str]
    reference_argv: list[str]
    rulings: dict[str, str]
    options: FuzzOptions
    games_played: int = 0
    games_ended_early: int = 0
    steps: int = 0
    queries: int = 0
    divergences: int = 0
    findings: list[Finding] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    unsupported_ops: list[str] = field(default_factory=list)
    events: dict[str, int] = field(default_factory=dict)
    interrupted: str | None = None
    """The signal that stopped the campaign early (``SIGINT``, ``SIGTERM``), else None."""
    seconds: float = 0.0


ProgressFn = Callable[[int, int, int, int], None]
"""Called as ``(games done, games total, steps so far, divergences so far)``."""


def fuzz(
    engine_argv: Sequence[str],
    options: FuzzOptions,
    catalogue: Catalogue,
    *,
    progress: ProgressFn | None = None,
    env: Mapping[str, str] | None = None,
    stop: threading.Event | None = None,
) -> FuzzResult:
    """Run a campaign (or one shard of it) and return its de-duplicated findings.

    Games are shared among ``options.workers`` pairs of adapters; the findings are merged
    in game order afterwards, so the same seed gives the same findings whatever the number
    of workers or the scheduling.

    Setting ``stop`` (or a KeyboardInterrupt) ends the campaign after the games under
    way; the result keeps the games finished before and says ``interrupted``.

    :raises EngineError: when the engine or the reference cannot start.
    """
    started = time.monotonic()
    games = game_indices(options)
    facts = find_profile(options.profile)
    workers = max(1, min(options.workers, len(games) or 1))
    stop = stop if stop is not None else threading.Event()
    # One pair here: it plays when there is one worker, and shrinks and drafts the findings;
    # more workers are processes with a pair each (_play_in_processes). Starting it first
    # reports an engine or reference that cannot start before any worker is spawned.
    pairs: list[Pair] = []
    try:
        pairs.append(Pair(engine_argv, options, catalogue, env=env))
    except BaseException:
        for p in pairs:
            p.close()
        raise
    per_game: dict[int, list[Occurrence]] = {}
    interrupted: str | None = None
    #: Every pair's counters: the in-process pairs', then each worker process's.
    stats: list[PairStats] = []

    played = [0]

    def record(game: int, found: list[Occurrence], steps: int) -> None:
        per_game[game] = found
        played[0] += steps
        if progress is not None:
            found_so_far = sum(len(v) for v in per_game.values())
            progress(len(per_game), len(games), played[0], found_so_far)

    try:
        try:
            if workers == 1:
                for game in games:
                    if stop.is_set():
                        break
                    outcome = _play_one(pairs[0], game, facts, stop)
                    if outcome is None:
                        break
                    found, steps, can_go_on = outcome
                    record(game, found, steps)
                    if not can_go_on:
                        stop.set()  # it cannot be restarted: keep what was played
            else:
                stats += _play_in_processes(
                    engine_argv, options, catalogue, env, games, workers, stop, record
                )
        except KeyboardInterrupt as exc:
            # Ctrl-C, SIGTERM, SIGHUP (conformance/interrupt.py): stop the workers, keep
            # the games already played; nothing is shrunk or drafted.
            interrupted = str(exc) or "SIGINT"
            stop.set()
            for p in pairs:
                p.close()
        if interrupted is None and stop.is_set() and len(per_game) < len(games):
            interrupted = "stopped"  # the caller's stop event, or an adapter that died
        findings = _group([o for g in sorted(per_game) for o in per_game[g]])
        pair = pairs[0]
        info = {
            "profile": options.profile,
            "rulings": pair.rulings,
            "seed": options.seed,
            "run_ends": pair.handshake.run_ends,
        }
        for finding in findings:
            if finding.divergence.op == "adapter" or interrupted is not None:
                continue  # a crash or hang, or an interrupted run: no answers to draft from
            as_found = finding.example
            if options.shrink:
                finding.example = shrink(pair, as_found)
                finding.shrunk = finding.example is not as_found
            try:
                finding.scenario = _draft(pair, finding, info, catalogue)
                problems = _draft_problems(finding.scenario, catalogue)
                if problems and finding.shrunk:
                    # A shrunk state the harness's own check refuses (the check is not the
                    # reference): draft the example as it was found instead.
                    pair.warnings.append(
                        f"the shrunk draft for {finding.divergence.key} fails check "
                        f"({problems[0]}); the example as found is drafted"
                    )
                    finding.example, finding.shrunk = as_found, False
                    finding.scenario = _draft(pair, finding, info, catalogue)
            except (EngineError, KeyError) as exc:
                finding.scenario = None
                pair.warnings.append(f"no draft for {finding.divergence.key}: {exc}")
        every = [*stats, *(PairStats.of(p) for p in pairs)]
        result = FuzzResult(
            engine=pair.handshake.as_dict(),
            engine_argv=list(engine_argv),
            reference_argv=pair.reference_argv,
            rulings=dict(pair.rulings),
            options=options,
            games_played=len(per_game),
            steps=sum(s.steps for s in every),
            queries=sum(s.queries for s in every),
            divergences=sum(len(v) for v in per_game.values()),
            findings=findings,
            interrupted=interrupted,
            warnings=sorted(set(w for s in every for w in s.warnings)),
            unsupported_ops=sorted(set(o for s in every for o in s.unsupported_ops)),
            events=dict(
                sorted(
                    (
                        sum((s.events for s in every), Counter())
                        + Counter(
                            {
                                f"ended early: {k}": v
                                for s in every
                                for k, v in s.ended_early.items()
                            }
                        )
                    ).items()
                )
            ),
        )
    finally:
        for p in pairs:
            p.close()
    result.seconds = time.monotonic() - started
    _number(result.findings)
    return result


@dataclass
class PairStats:
    """What one pair of adapters counted over its games (summed into the report)."""

    steps: int = 0
    queries: int = 0
    events: Counter[str] = field(default_factory=Counter)
    ended_early: Counter[str] = field(default_factory=Counter)
    warnings: list[str] = field(default_factory=list)
    unsupported_ops: set[str] = field(default_factory=set)

    @classmethod
    def of(cls, pair: Pair) -> PairStats:
        """A copy of ``pair``'s counters."""
        return cls(
            pair.steps,
            pair.queries,
            Counter(pair.events),
            Counter(pair.ended_early),
            list(pair.warnings),
            set(pair.unsupported_ops),
        )


def _play_one(
    pair: Pair, game: int, facts: ProfileData, stop: Any
) -> tuple[list[Occurrence], int, bool] | None:
    """Play ``game``: its occurrences (citing the profile's own rule IDs), its steps, and
    whether the pair can go on. An engine that fails mid-game is one finding and is
    restarted; None when the failure came from a stop (the adapters were closed)."""
    try:
        found, played = _play_game(pair, game)
        can_go_on = True
    except EngineError as exc:
        if stop.is_set():
            return None  # the adapters were stopped: this game is not counted
        div = Divergence(
            "TURN-1",
            "adapter",
            "error",
            f"the engine failed: {type(exc).__name__}",
            [str(exc)[:300]],
        )
        found, played = [Occurrence(game, div, Trace({"op": "none"}), {})], 0
        try:
            pair.restart_engine()
            can_go_on = True
        except EngineError:
            can_go_on = False
    # A profile that states a rule its own way cites its own ID (CHILE-CARDS-1).
    return [_in_profile(occ, facts) for occ in found], played, can_go_on


def _play_in_processes(
    engine_argv: Sequence[str],
    options: FuzzOptions,
    catalogue: Catalogue,
    env: Mapping[str, str] | None,
    games: Sequence[int],
    workers: int,
    stop: threading.Event,
    record: Callable[[int, list[Occurrence], int], None],
) -> list[PairStats]:
    """Play ``games`` in ``workers`` processes, each with its own pair of adapters.

    Processes, not threads: the harness's own work per step (JSON, validation, comparing
    two states) is about half of a step and would hold one interpreter's lock. Each game is
    seeded by its index, so which process plays it does not change its findings.
    ``record`` receives each game's occurrences and steps as they arrive; the processes'
    counters are returned.
    """
    context = multiprocessing.get_context("spawn")  # no fork of a process with threads
    todo = context.Queue()
    results = context.Queue()
    halt = context.Event()
    for game in games:
        todo.put(game)
    for _ in range(workers):
        todo.put(None)
    args = (list(engine_argv), options, catalogue, dict(env) if env is not None else None)
    procs = [
        context.Process(target=_worker_process, args=(*args, todo, results, halt), daemon=True)
        for _ in range(workers)
    ]
    for proc in procs:
        proc.start()
    stats: list[PairStats] = []
    failures: list[str] = []
    finished = 0
    gone = False
    try:
        while finished < workers:
            if stop.is_set():
                halt.set()
            try:
                message = results.get(timeout=0.5)
            except queue_module.Empty:
                if gone:
                    break  # every worker was gone and all they sent has been read
                # A worker that exited has flushed its messages to the queue first: read
                # once more after seeing them all gone, so that none is lost.
                gone = not any(proc.is_alive() for proc in procs)
                continue
            kind = message[0]
            if kind == "game":
                record(message[1], message[2], message[3])
            elif kind == "done":
                stats.append(message[1])
                finished += 1
            elif kind == "failed":
                failures.append(message[1])
                finished += 1
            elif kind == "gave_up":
                stop.set()  # the engine cannot be restarted: keep what was played
                halt.set()
    finally:
        halt.set()
        for proc in procs:
            proc.join(timeout=10)
            if proc.is_alive():
                proc.kill()
                proc.join()
    if failures and not stats:
        raise EngineError(failures[0])
    return stats


def _worker_process(
    engine_argv: list[str],
    options: FuzzOptions,
    catalogue: Catalogue,
    env: dict[str, str] | None,
    todo: Any,
    results: Any,
    halt: Any,
) -> None:
    """One worker process of :func:`_play_in_processes`: a pair plays games from ``todo``
    until it reads None or ``halt`` is set, sending each game's occurrences to ``results``
    and, at the end, its counters."""
    facts = find_profile(options.profile)
    try:
        pair = Pair(engine_argv, options, catalogue, env=env)
    except EngineError as exc:
        results.put(("failed", str(exc)))
        return
    try:
        while not halt.is_set():
            game = todo.get()
            if game is None:
                break
            outcome = _play_one(pair, game, facts, halt)
            if outcome is None:
                break
            found, steps, can_go_on = outcome
            results.put(("game", game, found, steps))
            if not can_go_on:
                results.put(("gave_up",))
                break
    finally:
        pair.close()
        results.put(("done", PairStats.of(pair)))


def _in_profile(occ: Occurrence, facts: ProfileData) -> Occurrence:
    """``occ`` citing the rule ID under which ``facts``' profile states its rule."""
    rule = facts.rule_id(occ.divergence.rule)
    if rule == occ.divergence.rule:
        return occ
    return replace(occ, divergence=replace(occ.divergence, rule=rule))


def _group(occurrences: Iterable[Occurrence]) -> list[Finding]:
    """One finding per divergence key: a count, the games, and the smallest example."""
    by_key: dict[str, Finding] = {}
    for occ in occurrences:
        key = occ.divergence.key
        finding = by_key.get(key)
        if finding is None:
            by_key[key] = Finding(occ.divergence, 1, [occ.game], occ)
            continue
        finding.count += 1
        finding.games.append(occ.game)
        if occ.trace.size() < finding.example.trace.size():
            finding.example = occ
    return sorted(by_key.values(), key=lambda f: (f.divergence.rule, f.divergence.key))


def _number(findings: Sequence[Finding]) -> None:
    """Give the drafts ids cc-8000, cc-8001, ... in finding order (docs/fuzzing.md)."""
    for i, finding in enumerate(findings):
        if finding.scenario is None:
            continue
        if FIRST_DRAFT_ID + i <= LAST_DRAFT_ID:
            finding.scenario["id"] = f"cc-{FIRST_DRAFT_ID + i:04d}"
        else:
            finding.scenario = None  # past the reserved range: the report keeps the trace


# --------------------------------------------------------------------------- report


def finding_dict(finding: Finding) -> dict[str, Any]:
    """A finding as the JSON report holds it."""
    occ = finding.example
    return {
        "key": finding.divergence.key,
        "rule": finding.divergence.rule,
        "op": finding.divergence.op,
        "kind": finding.divergence.kind,
        "summary": finding.divergence.summary,
        "count": finding.count,
        "games": sorted(finding.games)[:100],
        "example": {
            "game": occ.game,
            "steps": len(occ.trace.steps),
            "players": occ.trace.size()[1] or None,
            "shrunk": finding.shrunk,
            "mismatches": finding.divergence.mismatches,
            "trace": occ.trace.as_dict(),
        },
        "scenario": finding.scenario,
        "scenario_file": finding.scenario_file,
    }


def report_dict(result: FuzzResult) -> dict[str, Any]:
    """The JSON report (conformance/schemas/fuzz-report.schema.json)."""
    opts = result.options
    return {
        "report": "carioca-conformance fuzz",
        "version": REPORT_VERSION,
        "engine": result.engine,
        "engine_argv": result.engine_argv,
        "reference_argv": result.reference_argv,
        "rulings": result.rulings,
        "campaign": {
            "seed": opts.seed,
            "games": opts.games,
            "max_steps": opts.max_steps,
            "profile": opts.profile,
            "shards": [{"index": opts.shard[0], "count": opts.shard[1]}],
            "only_games": list(opts.only_games),
        },
        "totals": {
            "games": result.games_played,
            "steps": result.steps,
            "queries": result.queries,
            "divergences": result.divergences,
            "findings": len(result.findings),
            "seconds": round(result.seconds, 3),
        },
        "events": result.events,
        "findings": [finding_dict(f) for f in result.findings],
        "interrupted": result.interrupted,
        "unsupported_ops": result.unsupported_ops,
        "warnings": result.warnings,
    }


def write_outputs(report: dict[str, Any], out: Path) -> Path:
    """Write ``fuzz-report.json`` and one draft YAML per finding under ``out``; return its path.

    Drafts go to ``out/drafts/cc-8NNN.yaml`` and the report records each file's path.
    """
    from .report import atomic_write_text

    drafts = out / "drafts"
    drafts.mkdir(parents=True, exist_ok=True)
    for old in drafts.glob("cc-8*.yaml"):
        old.unlink()
    for finding in report["findings"]:
        doc = finding.get("scenario")
        if not doc:
            finding["scenario_file"] = None
            continue
        path = drafts / f"{doc['id']}.yaml"
        header = (
            "# Draft written by `carioca-conformance fuzz` from the reference's answers:\n"
            "# check every expectation against the rules text, then give it a corpus id.\n"
        )
        text = header + yaml.safe_dump(doc, sort_keys=False, default_flow_style=None, width=100)
        atomic_write_text(path, text)
        finding["scenario_file"] = str(path)
    target = out / "fuzz-report.json"
    atomic_write_text(target, json.dumps(report, indent=1, ensure_ascii=False) + "\n")
    return target


def merge_reports(reports: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Merge shard reports of one campaign: totals add up, findings merge by key.

    A finding seen in several shards keeps the sum of the counts and the smallest example
    (fewest steps, then fewest players, then the lowest game index).

    :raises FuzzError: when the reports are of different campaigns or engines.
    """
    if not reports:
        raise FuzzError("--merge needs at least one report")
    first = reports[0]
    for other in reports[1:]:
        for what in ("seed", "games", "profile", "max_steps"):
            if other["campaign"][what] != first["campaign"][what]:
                raise FuzzError(
                    f"cannot merge: campaign {what} differs "
                    f"({first['campaign'][what]!r} vs {other['campaign'][what]!r})"
                )
        if other["engine"]["implementation"] != first["engine"]["implementation"]:
            raise FuzzError("cannot merge reports of different engines")
    totals = {k: 0 for k in first["totals"]}
    by_key: dict[str, dict[str, Any]] = {}
    shards = []
    warnings: set[str] = set()
    unsupported: set[str] = set()
    events: Counter[str] = Counter()
    for rep in reports:
        for k, v in rep["totals"].items():
            totals[k] = totals.get(k, 0) + v
        events.update(rep.get("events", {}))
        shards += rep["campaign"]["shards"]
        warnings |= set(rep.get("warnings", []))
        unsupported |= set(rep.get("unsupported_ops", []))
        for f in rep["findings"]:
            have = by_key.get(f["key"])
            if have is None:
                by_key[f["key"]] = json.loads(json.dumps(f))
                continue
            have["count"] += f["count"]
            have["games"] = sorted(set(have["games"]) | set(f["games"]))[:100]

            def size(x: Mapping[str, Any]) -> tuple[int, int, int]:
                ex = x["example"]
                return (ex["steps"], ex["players"] or 0, ex["game"])

            if size(f) < size(have):
                keep = {"count": have["count"], "games": have["games"]}
                by_key[f["key"]] = {**json.loads(json.dumps(f)), **keep}
    findings = sorted(by_key.values(), key=lambda f: (f["rule"], f["key"]))
    totals["findings"] = len(findings)
    for i, f in enumerate(findings):
        if f.get("scenario") and FIRST_DRAFT_ID + i <= LAST_DRAFT_ID:
            f["scenario"]["id"] = f"cc-{FIRST_DRAFT_ID + i:04d}"
        elif f.get("scenario"):
            f["scenario"] = None
        f["scenario_file"] = None
    return {
        **{
            k: first[k]
            for k in ("report", "version", "engine", "engine_argv", "reference_argv", "rulings")
        },
        "campaign": {
            **first["campaign"],
            "shards": sorted(shards, key=lambda s: (s["count"], s["index"])),
        },
        "totals": totals,
        "events": dict(sorted(events.items())),
        "findings": findings,
        "interrupted": next((r["interrupted"] for r in reports if r.get("interrupted")), None),
        "unsupported_ops": sorted(unsupported),
        "warnings": sorted(warnings),
    }


def summary(report: Mapping[str, Any], catalogue: Catalogue | None = None) -> str:
    """The end-of-run summary: totals, then findings grouped by rule ID."""
    t = report["totals"]
    camp = report["campaign"]
    shards = ", ".join(f"{s['index']}/{s['count']}" for s in camp["shards"])
    lines = [
        f"fuzz: seed {camp['seed']}, shard(s) {shards}: {t['games']} games, {t['steps']} steps, "
        f"{t['queries']} queries in {t['seconds']:.1f} s",
        f"{t['divergences']} divergence(s), {t['findings']} finding(s)",
    ]
    if report.get("events"):
        lines.insert(1, "accepted: " + ", ".join(f"{k} {v}" for k, v in report["events"].items()))
    by_rule: dict[str, list[Mapping[str, Any]]] = {}
    for f in report["findings"]:
        by_rule.setdefault(f["rule"], []).append(f)
    for rule, findings in sorted(by_rule.items()):
        lines.append(f"  {rule}:")
        for f in findings:
            ex = f["example"]
            where = f", draft {f['scenario_file']}" if f.get("scenario_file") else ""
            lines.append(
                f"    {f['op']} ({f['kind']}): {f['summary']} — {f['count']}x; smallest: game "
                f"{ex['game']}, {ex['steps']} step(s){where}"
            )
    if report.get("interrupted"):
        lines.append(f"interrupted by {report['interrupted']}: the games played so far")
    for w in report.get("warnings", []):
        lines.append(f"warning: {w}")
    if report.get("unsupported_ops"):
        lines.append("engine answered unsupported to: " + ", ".join(report["unsupported_ops"]))
    return "\n".join(lines) + "\n"
