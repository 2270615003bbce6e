"""What a campaign is asked to play, and what it finds: the options (with shards), a
divergence, the trace that reaches it, an occurrence in one game, and a de-duplicated
finding. Plain data shared by every other part of :mod:`conformance.fuzz`."""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from conformance.adapter.limits import DEFAULT_TIMEOUT
from conformance.errors import EngineReportedError, HarnessError
from conformance.scenarios import DRAFT_IDS

#: Draft scenario ids: cc-8000 .. cc-8999 are reserved for fuzz drafts and never given to
#: corpus cases (docs/fuzzing.md), so a draft copied into ``scenarios/`` is renumbered.
FIRST_DRAFT_ID: Final = DRAFT_IDS[0]
LAST_DRAFT_ID: Final = DRAFT_IDS[1]
#: Steps (actions and deal ops) after which a game stops.
DEFAULT_MAX_STEPS: Final = 120


#: The other occurrences of a finding a hint must explain besides its example.
OTHER_OCCURRENCES: Final = 4

#: The most steps before a divergence that the shrinker replays from a loaded state (when
#: the state just before it does not show the divergence, docs/fuzzing.md).
SHRINK_TAIL: Final = 4


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


class FuzzError(HarnessError):
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
    timeout: float = DEFAULT_TIMEOUT
    shrink: bool = True
    reference_argv: tuple[str, ...] = (sys.executable, "-m", "reference.adapter")
    reasons: str = "exact"
    """``exact``: a rejection reason is compared (with its fair families); ``outcome``:
    only whether the action was accepted or refused (``fuzz --reasons outcome``)."""
    reference_rulings: tuple[tuple[str, str], ...] = ()
    """Options the reference plays over what the engine declares: a campaign then shows
    exactly where that option changes play (the tests fuzz one ruling against another)."""


def finite(value: Any, default: float = 0.0) -> float:
    """``value`` when it is a finite number, else ``default``: what the harness writes is
    standard JSON, whatever a shard's report held (no NaN or Infinity)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return default
    try:
        number = float(value)
    except OverflowError:  # an integer of hundreds of digits
        return default
    return number if math.isfinite(number) else default


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
    disputed: bool = False
    """True when a disputed point decides it (a wild upcard, a run's length): its rules
    then name the points that govern ``rule`` (:func:`~conformance.fuzz.judge.deciding_rules`)."""
    rules: tuple[str, ...] = ()
    """Every rule that decides it, ``rule`` first, in the profile's own IDs (set when the
    occurrence is filed under its profile; empty before)."""
    also_fair: tuple[str, ...] = ()
    """Reasons a draft lists beside the reference's at the divergent step: the engine's,
    for a ``reason order`` divergence (both are true of the state)."""

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
    #: The option(s) under which the reference agrees with the engine over the example
    #: (conformance/fuzz/explain.py): one option, or a pair played together; None when
    #: none tried does.
    explained_by: dict[str, str] | None = None
    #: True when every candidate option (and pair of the nearest) was tried and none
    #: explains it; False when one does, or when the explanation stopped first.
    all_options_tried: bool = False
    #: The traces of its other occurrences, the smallest first (at most
    #: :data:`OTHER_OCCURRENCES`): an option explains the finding only if it explains
    #: them too, as one divergence key may hold two faults (a joker's value and an ace's,
    #: both ``points differ``). Not in the report.
    others: list[Trace] = field(default_factory=list)
