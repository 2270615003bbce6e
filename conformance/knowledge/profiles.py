"""What the harness knows about each rule profile, loaded from ``data/profiles.json``.

The harness never imports an engine, the reference included, so the facts it needs to
build decks, check scenarios and play the property laws (the pack for a player count, the
wild ranks, each deal's hand size and contract, card values, the range of a deal score,
the fields of a state) are data here, one entry per profile. ``tests/test_profiles_agree.py``
proves that the reference's profiles say the same.

Only a profile's *default* facts are here (its options on every disputed point); a case
that leans on another option says so with ``disputed`` or ``assumes``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

from conformance.errors import HarnessError
from conformance.io.resources import package_file
from conformance.knowledge.cards import JOKER, RANKS, SUITS

DEFAULT_PROFILES = package_file("data", "profiles.json")
SCHEMA_PATH = package_file("schemas", "profiles.schema.json")
#: The profile every command uses when none is named.
DEFAULT_PROFILE = "argentine"


class ProfileError(HarnessError):
    """The profile data is missing or malformed, or a profile or fact does not exist."""


class UnknownProfile(ProfileError):
    """A profile name the profile data does not hold."""

    def __init__(self, name: str, known: tuple[str, ...]) -> None:
        self.name = name
        self.known = known
        super().__init__(f"unknown profile {name!r} (profiles known: {', '.join(known)})")


@dataclass(frozen=True)
class Pack:
    """The pack used for some player counts: ``copies`` of each natural card and jokers."""

    players: tuple[int, ...]
    copies: int
    jokers: int

    @property
    def size(self) -> int:
        """Number of cards in the pack (108 for two packs and four jokers)."""
        return 52 * self.copies + self.jokers

    def canonical_order(self) -> tuple[str, ...]:
        """The pack in canonical order: AS..KS AH..KH AD..KD AC..KC, ``copies`` times, then
        the jokers (docs/scenario-format.md)."""
        return _canonical_order(self.copies, self.jokers)


@cache
def _canonical_order(copies: int, jokers: int) -> tuple[str, ...]:
    # Built once per pack shape: a deal step asks for it at every deck it composes.
    # Interned, like the corpus's own card codes, so a cached state stores each once.
    naturals = tuple(sys.intern(rank + suit) for suit in SUITS for rank in RANKS)
    return naturals * copies + (JOKER,) * jokers


@dataclass(frozen=True)
class Contract:
    """One way to make a deal's contract: so many trios and so many runs."""

    trios: int
    runs: int

    def __str__(self) -> str:
        parts = [
            f"{n} {word}{'s' if n != 1 else ''}"
            for n, word in ((self.trios, "trio"), (self.runs, "run"))
            if n
        ]
        return " and ".join(parts) or "nothing"


@dataclass(frozen=True)
class Deal:
    """Deal ``number``: cards dealt to each player and the contract(s) it asks for."""

    number: int
    hand_size: int
    contracts: tuple[Contract, ...]
    """Several when the player chooses (Chilean round 8: 4 trios or 4 runs)."""


@dataclass(frozen=True)
class ProfileData:
    """Every fact the harness needs about one profile (one entry of profiles.json)."""

    name: str
    seed: str
    title: str
    players: tuple[int, ...]
    packs: tuple[Pack, ...]
    wild_ranks: frozenset[str]
    """Natural ranks that are wild like jokers (``"2"`` for chilean)."""
    trio_size: int
    run_size: int
    deals: tuple[Deal, ...]
    card_values: Mapping[str, int]
    """Penalty of each rank and of ``JK``."""
    deal_score_min: int
    deal_score_max: int | None
    closer_score: int
    state_fields: tuple[str, ...]
    own_rules: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    """Argentine rule ID -> this profile's own ID where it states the rule differently."""
    wild_cards: frozenset[str] = frozenset()
    """Natural cards wild by rank and suit (``AH``, ``AD`` for perla), beside ``wild_ranks``."""
    lowering_turn_closer_score: int | None = None
    """What the closer scores when the hand empties on their laying-down turn, when it is
    not ``closer_score`` (perla: -30, PERLA-SCORE-1)."""
    cut: bool = False
    """Whether a deal may be cut (docs/protocol.md §10; perla, PERLA-CUT-1)."""

    def rule_id(self, rule: str) -> str:
        """The ID under which this profile states ``rule`` (``CARDS-1`` -> ``CHILE-CARDS-1``)."""
        return self.own_rules.get(rule, rule)

    def pack(self, players: int) -> Pack:
        """The pack dealt to ``players`` players.

        :raises ProfileError: for a player count the profile does not play.
        """
        for pack in self.packs:
            if players in pack.players:
                return pack
        counts = ", ".join(map(str, self.players))
        raise ProfileError(f"profile {self.name} plays {counts} players, not {players}")

    @property
    def max_copies(self) -> int:
        """Most copies of one natural card in any of the profile's packs."""
        return max(pack.copies for pack in self.packs)

    @property
    def max_jokers(self) -> int:
        """Most jokers in any of the profile's packs."""
        return max(pack.jokers for pack in self.packs)

    @property
    def deal_count(self) -> int:
        """Number of scored deals in a game."""
        return len(self.deals)

    def deal(self, number: int) -> Deal:
        """Deal ``number`` (1-based).

        :raises ProfileError: for a deal number the profile does not have.
        """
        if not 1 <= number <= len(self.deals):
            raise ProfileError(
                f"profile {self.name} has deals 1 to {len(self.deals)}, not deal {number}"
            )
        return self.deals[number - 1]

    def hand_size(self, deal_number: int) -> int:
        """Cards dealt to each player in deal ``deal_number``."""
        return self.deal(deal_number).hand_size

    def contract_cards(self, deal_number: int) -> int:
        """The fewest cards an opening of deal ``deal_number`` lays (the smallest contract)."""
        return min(
            c.trios * self.trio_size + c.runs * self.run_size
            for c in self.deal(deal_number).contracts
        )

    def is_wild(self, card: str) -> bool:
        """True for a joker, a card of a wild rank (a 2 in chilean) and a wild card (a red
        ace in perla)."""
        return card == JOKER or card[:-1] in self.wild_ranks or card in self.wild_cards

    def card_value(self, card: str) -> int:
        """Penalty points of one card code left in hand at a close (a card's own value, as
        perla's red aces have, before its rank's)."""
        if card in self.card_values:
            return self.card_values[card]
        return self.card_values[JOKER if card == JOKER else card[:-1]]

    def hand_sizes_text(self) -> str:
        """The dealt hand sizes in words, for messages (``11, 12 in deal 7``)."""
        sizes = [d.hand_size for d in self.deals]
        usual = max(set(sizes), key=sizes.count)
        others = [f"{d.hand_size} in deal {d.number}" for d in self.deals if d.hand_size != usual]
        return ", ".join([str(usual), *others])


class Profiles(Mapping[str, ProfileData]):
    """The profiles of one profiles.json, by name; ``profiles[name]`` raises UnknownProfile."""

    def __init__(self, profiles: Mapping[str, ProfileData]) -> None:
        self._profiles = MappingProxyType(dict(profiles))

    def __getitem__(self, name: str) -> ProfileData:
        try:
            return self._profiles[name]
        except (KeyError, TypeError):
            raise UnknownProfile(str(name), tuple(self._profiles)) from None

    def __contains__(self, name: object) -> bool:
        return name in self._profiles

    def get(self, name: str, default: Any = None) -> Any:
        """The profile called ``name``, or ``default`` (never raises)."""
        return self._profiles.get(name, default)

    def __iter__(self) -> Iterator[str]:
        return iter(self._profiles)

    def __len__(self) -> int:
        return len(self._profiles)

    @property
    def max_players(self) -> int:
        """The most players any profile deals to."""
        return max(max(p.players) for p in self._profiles.values())


def _parse(name: str, entry: Mapping[str, Any]) -> ProfileData:
    packs = tuple(Pack(tuple(p["players"]), p["copies"], p["jokers"]) for p in entry["packs"])
    deals = tuple(
        Deal(
            d["number"],
            d["hand_size"],
            tuple(Contract(c["trios"], c["runs"]) for c in d["contracts"]),
        )
        for d in entry["deals"]
    )
    players = tuple(sorted(entry["players"]))
    for i, deal in enumerate(deals):
        if deal.number != i + 1:
            raise ProfileError(f"profile {name}: deal {i + 1} is numbered {deal.number}")
    covered = sorted(n for pack in packs for n in pack.players)
    if covered != list(players):
        raise ProfileError(
            f"profile {name}: the packs must cover each player count {list(players)} "
            f"exactly once, not {covered}"
        )
    score = entry["deal_score"]
    return ProfileData(
        name=name,
        seed=entry["seed"],
        title=entry["title"],
        players=players,
        packs=packs,
        wild_ranks=frozenset(entry["wild_ranks"]),
        trio_size=entry["meld_sizes"]["trio"],
        run_size=entry["meld_sizes"]["run"],
        deals=deals,
        card_values=MappingProxyType(dict(entry["card_values"])),
        deal_score_min=score["min"],
        deal_score_max=score.get("max"),
        closer_score=entry["closer_score"],
        state_fields=tuple(entry["state_fields"]),
        own_rules=MappingProxyType(dict(entry.get("own_rules", {}))),
        wild_cards=frozenset(entry.get("wild_cards", ())),
        lowering_turn_closer_score=entry.get("lowering_turn_closer_score"),
        cut=entry.get("cut", False),
    )


def load_profiles(path: Path | str | None = None) -> Profiles:
    """Load and validate the profile data (default: the packaged ``data/profiles.json``).

    :raises ProfileError: when the file is missing, not JSON, or breaks its schema
        (the message names the file and the JSON pointer of the first problem).
    """
    from conformance.io.validation import SchemaValidator

    target = Path(path) if path is not None else DEFAULT_PROFILES
    try:
        data = json.loads(target.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ProfileError(f"cannot read profile data {target}: {exc.strerror}") from exc
    except json.JSONDecodeError as exc:
        raise ProfileError(f"profile data {target} is not JSON: {exc}") from exc
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    error = SchemaValidator(schema).best_error(data)
    if error is not None:
        pointer = "/" + "/".join(str(p) for p in error.absolute_path)
        raise ProfileError(f"profile data {target}: at {pointer}: {error.message}")
    profiles = {}
    for name, entry in data["profiles"].items():
        try:
            profiles[name] = _parse(name, entry)
        except ProfileError as exc:
            raise ProfileError(f"profile data {target}: {exc}") from None
    return Profiles(profiles)


@cache
def default_profiles() -> Profiles:
    """The packaged profile data, loaded once."""
    return load_profiles()


def find_profile(name: str) -> ProfileData:
    """The packaged data of profile ``name``.

    :raises UnknownProfile: naming the profiles that exist.
    """
    return default_profiles()[name]
