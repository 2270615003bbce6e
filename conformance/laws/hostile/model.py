"""What a hostile probe is made of: the answers the protocol requires (or allows), the
setting a probe is sent in, the states and requests it is built from, and its outcome.

The probes themselves are in :mod:`~conformance.laws.hostile.probes` (malformed requests) and
:mod:`~conformance.laws.hostile.impossible` (well-formed requests for what cannot be).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from conformance.adapter.declarations import Declarations
from conformance.knowledge.optionfacts import hand_size
from conformance.knowledge.profiles import ProfileData

#: One request: its op and its fields (the session adds the id).
Request = tuple[str, dict[str, Any]]


@dataclass(frozen=True)
class Refused:
    """The answer must be an error of this kind (docs/protocol.md §1)."""

    kind: str = "bad_request"

    def __str__(self) -> str:
        return f"an error of kind {self.kind}"


@dataclass(frozen=True)
class Rejected:
    """The answer must be an ``act`` result with ``accepted: false`` and, from an engine that
    claims ``reasons``, this reason (docs/reasons.md)."""

    reason: str

    def __str__(self) -> str:
        return f"accepted false with reason {self.reason}"


@dataclass(frozen=True)
class Ignored:
    """The answer must be the one the same request gets without the extra fields."""

    def __str__(self) -> str:
        return "the answer the request gets without its extra fields"


@dataclass(frozen=True)
class MayRefuse:
    """The protocol leaves the engine free: it may answer normally or refuse with an error of
    this kind (any other error, a crash or a protocol breach still fails). Which it did is
    reported as information, never graded."""

    kind: str = "invalid_state"

    def __str__(self) -> str:
        return f"either an answer or an error of kind {self.kind} (the engine's choice)"


Expectation = Refused | Rejected | Ignored | MayRefuse


@dataclass(frozen=True)
class Setting:
    """What a probe is built from: the profile's facts (packs under the engine's rulings),
    the player count it seats and the engine's declarations."""

    profile: ProfileData
    players: int
    declared: Declarations


@dataclass(frozen=True)
class Script:
    """The requests of one probe: ``setup`` (each must be answered normally), the hostile
    ``request``, and its well-formed ``twin``, sent after the setup again. For a refusal the
    twin shows the refusal is the malformation's (a twin refused too grades nothing); for
    ignored fields the two answers must be equal."""

    setup: tuple[Request, ...]
    request: Request
    twin: Request | None = None


@dataclass(frozen=True)
class HostileProbe:
    """One malformed or borderline request and the answer the protocol requires."""

    #: Stable name (``lay_off-without-end``): the case id in a run is ``hostile/<key>``.
    key: str
    #: What is sent, in words.
    title: str
    #: The protocol section that requires the answer (``§6``).
    section: str
    #: The capability whose ops it sends ("" for a request every engine must answer).
    capability: str
    expect: Expectation
    build: Callable[[Setting], Script]
    #: Why the probe is not sent to this engine: its cause (results.NOT_GRADED_CAUSES, or
    #: NOT_IN_PROFILE) and the reason in words; None: it is sent.
    skip_reason: Callable[[Setting], tuple[str, str] | None] = lambda setting: None
    #: Whether an ``unsupported`` answer leaves it not graded (the engine may lack what it
    #: sends); an op the protocol does not have is never the engine's to lack.
    may_be_unsupported: bool = True


#: ``info``: a probe whose answer the protocol leaves free (:class:`MayRefuse`), reported only.
Status = Literal["pass", "fail", "not_graded", "info"]


@dataclass(frozen=True)
class ProbeOutcome:
    """What one probe came to: ``pass``, ``fail`` or ``not_graded`` (``cause`` says why)."""

    probe: HostileProbe
    status: Status
    #: The hostile request as sent (without its id), "" when not sent.
    request: str = ""
    #: The engine's answer, shortly.
    answer: str = ""
    #: Why it failed or was not graded.
    detail: str = ""
    cause: str | None = None
    duration: float = 0.0

    def failure(self) -> str:
        """One line naming the request, the answer and the section (for a failed probe)."""
        return (
            f"{self.probe.title}: sent {self.request}, answered {self.answer}; "
            f"protocol {self.probe.section} requires {self.probe.expect}"
            + (f" ({self.detail})" if self.detail else "")
        )


# -- the settings probes are sent in ------------------------------------------------------


def deck_of(setting: Setting) -> list[str]:
    return list(setting.profile.pack(setting.players).canonical_order())


def draw_state(setting: Setting) -> dict[str, Any]:
    """Deal 1 dealt from the canonical deck, player 1 to draw (as smoke's probe state)."""
    deck, players = deck_of(setting), setting.players
    size = hand_size(setting.profile, 1, setting.declared.ruling)
    hands: list[list[str]] = [[] for _ in range(players)]
    for index in range(size * players):
        hands[(1 + index) % players].append(deck[index])
    return state_of(setting, 1, "draw", hands, [False] * players, [], deck[size * players :])


#: Deal 2's contract (a trio and a run in every profile) laid by player 1.
_TABLE: tuple[dict[str, Any], ...] = (
    {"owner": 1, "kind": "trio", "cards": ["9C", "9D", "9H"]},
    {"owner": 1, "kind": "run", "cards": ["4S", "5S", "6S", "7S"]},
)
#: Player 1's hand after drawing: the 8S fits the run's high end.
_HELD = ["8S", "KD", "QC", "3H", "10C"]


def table_state(setting: Setting) -> dict[str, Any]:
    """Deal 2, player 1 opened on an earlier turn (a trio and the run 4S-7S on the table),
    has drawn and holds the 8S: a lay-off on the run is legal once its end is named."""
    deck, players = deck_of(setting), setting.players
    for card in [*_TABLE[0]["cards"], *_TABLE[1]["cards"], *_HELD]:
        deck.remove(card)
    size = hand_size(setting.profile, 2, setting.declared.ruling)
    hands: list[list[str]] = []
    for player in range(players):
        if player == 1:
            hands.append(list(_HELD))
        else:
            hands.append(deck[:size])
            del deck[:size]
    opened = [player == 1 for player in range(players)]
    return state_of(setting, 2, "play", hands, opened, [dict(m) for m in _TABLE], deck)


def state_of(
    setting: Setting,
    deal_number: int,
    phase: str,
    hands: list[list[str]],
    opened: list[bool],
    table: list[dict[str, Any]],
    rest: list[str],
) -> dict[str, Any]:
    players = setting.players
    return {
        "profile": setting.profile.name,
        "players": players,
        "deal_number": deal_number,
        "dealer": 0,
        "turn": 1,
        "phase": phase,
        "hands": hands,
        "opened": opened,
        "turn_opened": False,
        "table": table,
        "stock": rest[1:],
        "discard": rest[:1],
        "totals": [0] * players,
        "deal_scores": None,
        "closer": None,
        "winners": None,
    }


def start_fields(setting: Setting, **changes: Any) -> dict[str, Any]:
    """A well-formed deal-1 ``start_deal``, with ``changes`` (a value None: left out)."""
    fields: dict[str, Any] = {
        "profile": setting.profile.name,
        "players": setting.players,
        "deal_number": 1,
        "dealer": 0,
        "totals": [0] * setting.players,
        "deck": deck_of(setting),
    }
    fields.update(changes)
    return {name: value for name, value in fields.items() if value is not None}


def perfect_cut(setting: Setting) -> int:
    """Players times deal 1's hand size, plus one: the cut that scores (PERLA-CUT-2)."""
    return setting.players * hand_size(setting.profile, 1, setting.declared.ruling) + 1


def new_game_fields(setting: Setting, **changes: Any) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "profile": setting.profile.name,
        "players": setting.players,
        "seed": 1,
    }
    fields.update(changes)
    return {name: value for name, value in fields.items() if value is not None}


#: The cause of a probe that has no meaning in the profile (a ``cut`` outside ``perla``): no
#: engine of that profile could be graded on it, so a run lists no case for it.
NOT_IN_PROFILE = "not_in_profile"
