"""What a loaded scenario is: plain, read-only data (docs/scenario-format.md).

Everything here is built by the loader (:mod:`conformance.scenarios.checker`) from a
document that passed its checks; nothing here reads YAML or the catalogue.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from conformance.errors import HarnessError
from conformance.knowledge.profiles import Pack
from conformance.scenarios.packs import fill_after

Level = Literal["melds", "turns", "deals"]
StepKind = Literal["action", "next_deal", "redeal"]


class ScenarioError(HarnessError):
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
        self,
        players: int,
        dealer: int,
        deal_number: int,
        pack: Pack | None = None,
        hand_size: int | None = None,
    ) -> list[str]:
        """Return the whole deck (top first) this spec stands for, filled from ``pack``
        (default: the argentine 108-card pack).

        With hands + upcard the deck is the inverse of the dealing rule of
        docs/protocol.md §7: card ``r*players + k`` goes to player ``dealer+1+k``.
        ``hand_size``: the cards the engine deals each player (under its rulings); hands
        given with fewer are completed first (:meth:`completed_hands`).

        :raises ValueError: when the cards cannot make the pack, or the hands hold more
            cards than ``hand_size``.
        """
        if self.deck is not None:
            return list(self.deck)
        if self.deck_top is not None:
            return fill_after(list(self.deck_top), [], pack)
        assert self.hands is not None and self.upcard is not None
        if len(self.hands) != players:
            raise ValueError(f"{len(self.hands)} hands given for {players} players")
        hands = self.completed_hands(hand_size, pack)
        # The hands say how many cards were dealt; the semantic check compares that with
        # the deal's hand size where one exists (there is none after deal 7).
        size = len(hands[0])
        if any(len(hand) != size for hand in hands):
            raise ValueError("hands of different sizes cannot come from one deal")
        top: list[str] = []
        for round_no in range(size):
            for k in range(1, players + 1):
                top.append(hands[(dealer + k) % players][round_no])
        top.append(self.upcard)
        top.extend(self.stock_top)
        return fill_after(top, [], pack)

    def completed_hands(
        self, hand_size: int | None, pack: Pack | None = None
    ) -> tuple[tuple[str, ...], ...]:
        """The hands as dealt when each player gets ``hand_size`` cards.

        A case written for 11-card hands still deals under a ruling of 12 (VARIANT-05
        ``twelve``): each short hand is completed, player 0's first, with the first cards of
        the rest of the pack in canonical order (the pack without the cards this spec
        places), docs/scenario-format.md "Hand sizes under other rulings".

        :raises ValueError: when a hand holds more than ``hand_size`` cards.
        """
        assert self.hands is not None
        if hand_size is None or all(len(hand) == hand_size for hand in self.hands):
            return self.hands
        if any(len(hand) > hand_size for hand in self.hands):
            raise ValueError(f"the hands hold more than the {hand_size} cards dealt")
        placed = [c for hand in self.hands for c in hand] + [self.upcard or "", *self.stock_top]
        rest = iter(fill_after([], [c for c in placed if c], pack))
        return tuple(
            (*hand, *(next(rest) for _ in range(hand_size - len(hand)))) for hand in self.hands
        )


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
    #: The deck of ``deal`` as the case gives it, to deal again under another hand size.
    deck_spec: DeckSpec | None = None
    #: True when the case gave ``state``'s stock whole (``stock``), not filled from
    #: ``stock_top``: a pack with more jokers then adds them under the discard pile.
    stock_given: bool = False


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
    #: Points the step's action leans on (``assumes:`` on the step): point -> option.
    assumes: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class PlannedCheck:
    """One assertion a scenario makes, known from the scenario alone (docs/scenario-format.md,
    "Checks"): graded against an engine by :mod:`conformance.grading`."""

    #: Stable within the case: ``check 2``, ``step 3 accepted``, ``step 3 totals``, ...
    key: str
    #: ``answer``, ``accepted``, ``reason``, ``unchanged``, ``invariants`` or a state key.
    what: str
    #: 1-based step or melds check; 0 for the setup's answer; None for ``final``.
    step: int | None
    #: The scenario line of the assertion.
    line: int
    #: The rules a failure is attributed to, in the profile's own IDs.
    rules: tuple[str, ...]
    #: The expected value as written (it may hold ``by_option``; None for invariants).
    expected: Any = None
    #: Whether ``expected`` holds a ``by_option`` (resolved per engine) or is used as is.
    varies: bool = False
    #: Points the check leans on at one option: its own ``assumes`` and its step's.
    assumes: Mapping[str, str] = field(default_factory=dict)
    #: Every point the check leans on: its assumptions and its ``by_option`` points.
    leans: tuple[str, ...] = ()


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
    plans: Mapping[str, tuple[PlannedCheck, ...]] = field(
        default_factory=dict, repr=False, compare=False
    )
    """Every check of the case, per listed profile (rules in that profile's IDs)."""
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

    def plan_for(self, profile: str) -> tuple[PlannedCheck, ...]:
        """The case's checks as graded under ``profile`` (its first profile's when the case
        does not list it)."""
        plan = self.plans.get(profile)
        if plan is None and self.plans:
            plan = next(iter(self.plans.values()))
        return plan or ()

    def file_line(self, line: int) -> str:
        """``file:line`` of one of the case's lines, for messages."""
        return f"{self.path}:{line}"


@dataclass(frozen=True)
class LoadResult:
    """Scenarios that loaded cleanly and every error found, in corpus order."""

    scenarios: tuple[Scenario, ...]
    errors: tuple[ScenarioError, ...]
    files: tuple[str, ...] = ()


@dataclass(frozen=True)
class CaseEntry:
    """What ``check`` needs of a loaded case, without the case whole (:func:`load_index`)."""

    id: str
    path: str
    line: int
    review: str
    profiles: tuple[str, ...]

    @classmethod
    def of(cls, scenario: Scenario) -> CaseEntry:
        """The entry of a loaded ``scenario``."""
        return cls(scenario.id, scenario.path, scenario.line, scenario.review, scenario.profiles)

    def where(self) -> str:
        """``file:line`` of the case, for messages (as :meth:`Scenario.where`)."""
        return f"{self.path}:{self.line}"


@dataclass(frozen=True)
class IndexResult:
    """The entries of the cases that loaded cleanly and every error found, in corpus order:
    what :class:`LoadResult` says of a corpus, each case reduced to its :class:`CaseEntry`."""

    entries: tuple[CaseEntry, ...]
    errors: tuple[ScenarioError, ...]
    files: tuple[str, ...] = ()
