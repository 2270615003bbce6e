"""What a loaded scenario is: plain, read-only data (docs/scenario-format.md).

Everything here is built by the loader (:mod:`conformance.scenarios.checker`) from a
document that passed its checks; nothing here reads YAML or the catalogue.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from conformance.profiles import Pack
from conformance.scenarios.packs import fill_after

Level = Literal["melds", "turns", "deals"]
StepKind = Literal["action", "next_deal", "redeal"]


class ScenarioError(Exception):
    """A problem with a scenario file, located by file, line, column and scenario id."""

    def __init__(
        self,
        message: str,
        *,
        file: str,
        line: int = 0,
        column: int = 0,
        scenario_id: str | None = None,
    ) -> None:
        self.message = message
        self.file = file
        self.line = line
        self.column = column
        self.scenario_id = scenario_id
        super().__init__(str(self))

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}:{self.column}"
        who = f" [{self.scenario_id}]" if self.scenario_id else ""
        return f"{where}:{who} {self.message}"


@dataclass(frozen=True)
class DeckSpec:
    """A deck as a scenario gives it: hands + upcard (+ stock_top), deck_top, or a whole deck."""

    hands: tuple[tuple[str, ...], ...] | None = None
    upcard: str | None = None
    stock_top: tuple[str, ...] = ()
    deck_top: tuple[str, ...] | None = None
    deck: tuple[str, ...] | None = None
    dealer: int | None = None
    deal_number: int | None = None
    #: perla's cut (docs/protocol.md §10), sent with the deck when the case gives one.
    cut: int | None = None

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> DeckSpec:
        """Build a spec from the (schema-valid) YAML mapping."""
        hands = data.get("hands")
        return cls(
            hands=tuple(tuple(h) for h in hands) if hands is not None else None,
            upcard=data.get("upcard"),
            stock_top=tuple(data.get("stock_top", ())),
            deck_top=tuple(data["deck_top"]) if "deck_top" in data else None,
            deck=tuple(data["deck"]) if "deck" in data else None,
            dealer=data.get("dealer"),
            deal_number=data.get("deal_number"),
            cut=data.get("cut"),
        )

    def compose(
        self, players: int, dealer: int, deal_number: int, pack: Pack | None = None
    ) -> list[str]:
        """Return the whole deck (top first) this spec stands for, filled from ``pack``
        (default: the argentine 108-card pack).

        With hands + upcard the deck is the inverse of the dealing rule of
        docs/protocol.md §7: card ``r*players + k`` goes to player ``dealer+1+k``.

        :raises ValueError: when the cards cannot make the pack.
        """
        if self.deck is not None:
            return list(self.deck)
        if self.deck_top is not None:
            return fill_after(list(self.deck_top), [], pack)
        assert self.hands is not None and self.upcard is not None
        if len(self.hands) != players:
            raise ValueError(f"{len(self.hands)} hands given for {players} players")
        # The hands say how many cards were dealt; the semantic check compares that with
        # the deal's hand size where one exists (there is none after deal 7).
        size = len(self.hands[0])
        if any(len(hand) != size for hand in self.hands):
            raise ValueError("hands of different sizes cannot come from one deal")
        top: list[str] = []
        for round_no in range(size):
            for k in range(1, players + 1):
                top.append(self.hands[(dealer + k) % players][round_no])
        top.append(self.upcard)
        top.extend(self.stock_top)
        return fill_after(top, [], pack)


@dataclass(frozen=True)
class Setup:
    """Where a turns/deals scenario starts.

    Exactly one of ``state`` (a complete protocol state, filled to the profile's pack),
    ``deal`` (the fields of a ``start_deal`` request, deck composed) or ``new_game``
    is set.
    """

    state: Mapping[str, Any] | None = None
    deal: Mapping[str, Any] | None = None
    new_game: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Check:
    """One melds-level question: ``check_meld``, ``check_contract`` or ``penalty``."""

    index: int
    op: Literal["check_meld", "check_contract", "penalty"]
    request: Mapping[str, Any]
    expect: Any
    line: int


@dataclass(frozen=True)
class Step:
    """One step of a turns/deals scenario and what must follow from it."""

    index: int
    kind: StepKind
    action: Mapping[str, Any] | None
    deck: DeckSpec | None
    expect: Any
    state: Any
    line: int


@dataclass(frozen=True)
class Disputed:
    """The ``disputed`` block: which DISPUTE the case is about and its options."""

    id: str
    question: str
    options: tuple[str, ...]
    profiles: Mapping[str, str]


@dataclass(frozen=True)
class Scenario:
    """A loaded, validated and expanded scenario. Mappings inside are read-only by contract."""

    id: str
    title: str
    rules: tuple[str, ...]
    source: str
    profiles: tuple[str, ...]
    level: Level
    tags: tuple[str, ...]
    review: str
    path: str
    line: int
    disputed: Disputed | None = None
    assumes: Mapping[str, str] = field(default_factory=dict)
    """Disputed points this case's expectations rely on without testing them: DISPUTE → option."""
    interface: Mapping[str, str] = field(default_factory=dict)
    """Interface declarations (``run_order``, ``run_ends``) the expectations rely on."""
    checks: tuple[Check, ...] = ()
    setup: Setup | None = None
    steps: tuple[Step, ...] = ()
    final: Any = None
    setups: Mapping[str, Setup] = field(default_factory=dict, repr=False, compare=False)
    """The setup expanded for each listed profile (its pack fills the stock and deck);
    ``setup`` is the first profile's."""
    canonical: str = field(default="", repr=False, compare=False)
    """The document as canonical JSON (:func:`canonical_json`), made once at load and
    cached with it: what :func:`corpus_digest` hashes, so a run does not encode every case
    again (the document itself is not kept: the cache stays small)."""

    def where(self) -> str:
        """``file:line`` of the scenario, for messages."""
        return f"{self.path}:{self.line}"

    def setup_for(self, profile: str) -> Setup | None:
        """The setup as played under ``profile`` (``setup`` when none was expanded for it)."""
        return self.setups.get(profile, self.setup)


@dataclass(frozen=True)
class LoadResult:
    """Scenarios that loaded cleanly and every error found, in corpus order."""

    scenarios: tuple[Scenario, ...]
    errors: tuple[ScenarioError, ...]
    files: tuple[str, ...] = ()
