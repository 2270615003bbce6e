"""The hostile probes: each malformed or borderline request, the setting it is sent in, and
the answer docs/protocol.md requires for it.

:data:`HOSTILE_PROBES` is the one list ``smoke --hostile`` and ``run --hostile`` read
(:mod:`~conformance.laws.hostile.sending` sends them).
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


Expectation = Refused | Rejected | Ignored


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


Status = Literal["pass", "fail", "not_graded"]


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


def _deck(setting: Setting) -> list[str]:
    return list(setting.profile.pack(setting.players).canonical_order())


def _draw_state(setting: Setting) -> dict[str, Any]:
    """Deal 1 dealt from the canonical deck, player 1 to draw (as smoke's probe state)."""
    deck, players = _deck(setting), setting.players
    size = hand_size(setting.profile, 1, setting.declared.ruling)
    hands: list[list[str]] = [[] for _ in range(players)]
    for index in range(size * players):
        hands[(1 + index) % players].append(deck[index])
    return _state(setting, 1, "draw", hands, [False] * players, [], deck[size * players :])


#: Deal 2's contract (a trio and a run in every profile) laid by player 1.
_TABLE: tuple[dict[str, Any], ...] = (
    {"owner": 1, "kind": "trio", "cards": ["9C", "9D", "9H"]},
    {"owner": 1, "kind": "run", "cards": ["4S", "5S", "6S", "7S"]},
)
#: Player 1's hand after drawing: the 8S fits the run's high end.
_HELD = ["8S", "KD", "QC", "3H", "10C"]


def _table_state(setting: Setting) -> dict[str, Any]:
    """Deal 2, player 1 opened on an earlier turn (a trio and the run 4S-7S on the table),
    has drawn and holds the 8S: a lay-off on the run is legal once its end is named."""
    deck, players = _deck(setting), setting.players
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
    return _state(setting, 2, "play", hands, opened, [dict(m) for m in _TABLE], deck)


def _state(
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


def _start_fields(setting: Setting, **changes: Any) -> dict[str, Any]:
    """A well-formed deal-1 ``start_deal``, with ``changes`` (a value None: left out)."""
    fields: dict[str, Any] = {
        "profile": setting.profile.name,
        "players": setting.players,
        "deal_number": 1,
        "dealer": 0,
        "totals": [0] * setting.players,
        "deck": _deck(setting),
    }
    fields.update(changes)
    return {name: value for name, value in fields.items() if value is not None}


def _perfect_cut(setting: Setting) -> int:
    """Players times deal 1's hand size, plus one: the cut that scores (PERLA-CUT-2)."""
    return setting.players * hand_size(setting.profile, 1, setting.declared.ruling) + 1


# -- when a probe is sent -------------------------------------------------------------------

#: The cause of a probe that has no meaning in the profile (a ``cut`` outside ``perla``): no
#: engine of that profile could be graded on it, so a run lists no case for it.
NOT_IN_PROFILE = "not_in_profile"


def _requested_ends(setting: Setting) -> tuple[str, str] | None:
    if setting.declared.run_ends != "requested":
        return ("interface", "the engine declares run_ends engine: it picks the end itself")
    return None


def _cuts(setting: Setting) -> tuple[str, str] | None:
    if not setting.profile.cut:
        return (NOT_IN_PROFILE, f"{setting.profile.name} has no cut (docs/protocol.md §10)")
    return None


def _steals(setting: Setting) -> tuple[str, str] | None:
    declared = setting.declared
    # DISPUTE-64 counts only in a profile that rules on it (perla): an engine may declare
    # it in `rulings` for every profile (docs/protocol.md §8).
    perla = "DISPUTE-64" in declared.profile_options
    if declared.ruling("DISPUTE-29") == "steal" or (
        perla and declared.ruling("DISPUTE-64") == "after_passes"
    ):
        return None
    return ("option", "pass serves steals only (DISPUTE-29 steal, DISPUTE-64 after_passes)")


# -- the probes ---------------------------------------------------------------------------


def _meld_fields(setting: Setting, **changes: Any) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "profile": setting.profile.name,
        "meld": {"kind": "trio", "cards": ["8C", "8D", "8H"]},
        "initial": True,
    }
    fields.update(changes)
    return {name: value for name, value in fields.items() if value is not None}


def _contract_fields(setting: Setting, **changes: Any) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "profile": setting.profile.name,
        "deal_number": 1,
        "melds": [
            {"kind": "trio", "cards": ["8C", "8D", "8H"]},
            {"kind": "trio", "cards": ["KS", "KH", "KD"]},
        ],
    }
    fields.update(changes)
    return {name: value for name, value in fields.items() if value is not None}


def _penalty_fields(setting: Setting, **changes: Any) -> dict[str, Any]:
    fields: dict[str, Any] = {"profile": setting.profile.name, "cards": ["AS", "QD", "3C"]}
    fields.update(changes)
    return {name: value for name, value in fields.items() if value is not None}


def _query(
    op: str, make: Callable[..., dict[str, Any]], **changes: Any
) -> Callable[[Setting], Script]:
    """A melds query with ``changes``; its twin is the well-formed query."""
    return lambda s: Script((), (op, make(s, **changes)), (op, make(s)))


def _act(
    state: Callable[[Setting], dict[str, Any]],
    action: dict[str, Any],
    twin: dict[str, Any] | None,
    **extra: Any,
) -> Callable[[Setting], Script]:
    """``act`` with ``action`` (and top-level ``extra`` fields) on a loaded ``state``."""

    def build(setting: Setting) -> Script:
        setup = (("load_state", {"state": state(setting)}),)
        return Script(
            setup,
            ("act", {"action": action, **extra}),
            None if twin is None else ("act", {"action": twin}),
        )

    return build


def _after_draw(setting: Setting) -> Script:
    setup = (
        ("load_state", {"state": _draw_state(setting)}),
        ("act", {"action": {"type": "draw_stock", "player": 1}}),
    )
    return Script(setup, ("act", {"action": {"type": "pass", "player": 1}}))


def _start(**changes: Any) -> Callable[[Setting], Script]:
    return lambda s: Script(
        (), ("start_deal", _start_fields(s, **changes)), ("start_deal", _start_fields(s))
    )


def _bad_cut(value: Callable[[Setting], Any]) -> Callable[[Setting], Script]:
    def build(setting: Setting) -> Script:
        good = _start_fields(setting, cut=_perfect_cut(setting))
        return Script((), ("start_deal", {**good, "cut": value(setting)}), ("start_deal", good))

    return build


def _new_game(setting: Setting, **changes: Any) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "profile": setting.profile.name,
        "players": setting.players,
        "seed": 1,
    }
    fields.update(changes)
    return {name: value for name, value in fields.items() if value is not None}


_BAD = Refused("bad_request")
_LAY_OFF = {"type": "lay_off", "player": 1, "card": "8S", "meld": 1}
_EXTRA = {"x_note": "an extra field: ignore it", "x": {"seed": 42}}

#: Every hostile probe, in the order sent (the one source smoke and run read).
HOSTILE_PROBES: tuple[HostileProbe, ...] = (
    HostileProbe(
        "unknown-op",
        "an op the protocol does not have",
        "§1",
        "",
        _BAD,
        lambda s: Script((), ("shuffle_table", {"profile": s.profile.name})),
        may_be_unsupported=False,
    ),
    # melds
    HostileProbe(
        "check_meld-without-meld",
        "check_meld without meld",
        "§7",
        "melds",
        _BAD,
        _query("check_meld", _meld_fields, meld=None),
    ),
    HostileProbe(
        "check_meld-unknown-card",
        "check_meld with the card code 1S",
        "§3",
        "melds",
        _BAD,
        _query("check_meld", _meld_fields, meld={"kind": "trio", "cards": ["8C", "8D", "1S"]}),
    ),
    HostileProbe(
        "check_meld-without-initial",
        "check_meld without initial",
        "§7",
        "melds",
        _BAD,
        _query("check_meld", _meld_fields, initial=None),
    ),
    HostileProbe(
        "check_meld-initial-string",
        'check_meld with initial "yes"',
        "§7",
        "melds",
        _BAD,
        _query("check_meld", _meld_fields, initial="yes"),
    ),
    HostileProbe(
        "check_meld-extra-fields",
        "check_meld with extra fields",
        "§1",
        "melds",
        Ignored(),
        _query("check_meld", _meld_fields, **_EXTRA),
    ),
    HostileProbe(
        "check_contract-without-melds",
        "check_contract without melds",
        "§7",
        "melds",
        _BAD,
        _query("check_contract", _contract_fields, melds=None),
    ),
    HostileProbe(
        "check_contract-deal-9",
        "check_contract with deal_number 9",
        "§5",
        "melds",
        _BAD,
        _query("check_contract", _contract_fields, deal_number=9),
    ),
    HostileProbe(
        "penalty-without-cards",
        "penalty without cards",
        "§7",
        "melds",
        _BAD,
        _query("penalty", _penalty_fields, cards=None),
    ),
    HostileProbe(
        "penalty-unknown-card",
        "penalty with the card code 11H",
        "§3",
        "melds",
        _BAD,
        _query("penalty", _penalty_fields, cards=["AS", "11H"]),
    ),
    HostileProbe(
        "penalty-extra-fields",
        "penalty with extra fields",
        "§1",
        "melds",
        Ignored(),
        _query("penalty", _penalty_fields, **_EXTRA),
    ),
    # turns
    HostileProbe(
        "load_state-without-state",
        "load_state without state",
        "§7",
        "turns",
        _BAD,
        lambda s: Script((), ("load_state", {})),
    ),
    HostileProbe(
        "act-without-action",
        "act without action",
        "§7",
        "turns",
        _BAD,
        lambda s: Script((("load_state", {"state": _draw_state(s)}),), ("act", {})),
    ),
    HostileProbe(
        "lay_off-without-end",
        "a lay-off on a run without end",
        "§6",
        "turns",
        _BAD,
        _act(_table_state, _LAY_OFF, {**_LAY_OFF, "end": "high"}),
        _requested_ends,
    ),
    HostileProbe(
        "act-unknown-card",
        "a discard of the card code 1S",
        "§3",
        "turns",
        _BAD,
        _act(
            _table_state,
            {"type": "discard", "player": 1, "card": "1S"},
            {"type": "discard", "player": 1, "card": "KD"},
        ),
    ),
    HostileProbe(
        "act-unknown-type",
        "an action of type sort_hand",
        "§6",
        "turns",
        _BAD,
        _act(
            _table_state,
            {"type": "sort_hand", "player": 1},
            {"type": "discard", "player": 1, "card": "KD"},
        ),
    ),
    HostileProbe(
        "act-player-string",
        'a discard by player "1"',
        "§6",
        "turns",
        _BAD,
        _act(
            _table_state,
            {"type": "discard", "player": "1", "card": "KD"},
            {"type": "discard", "player": 1, "card": "KD"},
        ),
    ),
    HostileProbe(
        "act-extra-fields",
        "act with extra fields",
        "§1",
        "turns",
        Ignored(),
        _act(
            _table_state,
            {"type": "discard", "player": 1, "card": "KD"},
            {"type": "discard", "player": 1, "card": "KD"},
            **_EXTRA,
        ),
    ),
    HostileProbe(
        "pass-before-drawing",
        "pass by the player to move, before drawing",
        "§6",
        "turns",
        Rejected("draw_first"),
        _act(_draw_state, {"type": "pass", "player": 1}, None),
        _steals,
    ),
    HostileProbe(
        "pass-after-drawing",
        "pass by the player to move, after drawing",
        "§6",
        "turns",
        Rejected("already_drew"),
        _after_draw,
        _steals,
    ),
    # deals
    HostileProbe(
        "start_deal-without-deck", "start_deal without deck", "§7", "deals", _BAD, _start(deck=None)
    ),
    HostileProbe(
        "start_deal-deal-9",
        "start_deal with deal_number 9",
        "§5",
        "deals",
        _BAD,
        _start(deal_number=9),
    ),
    HostileProbe(
        "redeal-without-deck",
        "redeal without deck, before the first draw",
        "§7",
        "deals",
        _BAD,
        lambda s: Script(
            (("start_deal", _start_fields(s)),),
            ("redeal", {}),
            ("redeal", {"deck": _deck(s)}),
        ),
    ),
    HostileProbe(
        "start_deal-unknown-card",
        "start_deal with the card code ZZ in deck",
        "§3",
        "deals",
        _BAD,
        lambda s: Script(
            (),
            ("start_deal", _start_fields(s, deck=["ZZ", *_deck(s)[1:]])),
            ("start_deal", _start_fields(s)),
        ),
    ),
    HostileProbe(
        "start_deal-cut-boolean",
        "start_deal with cut true",
        "§10",
        "deals",
        _BAD,
        _bad_cut(lambda s: True),
        _cuts,
    ),
    HostileProbe(
        "start_deal-cut-float",
        "start_deal with the perfect cut as a float (23.0 for 2 players)",
        "§10",
        "deals",
        _BAD,
        _bad_cut(lambda s: float(_perfect_cut(s))),
        _cuts,
    ),
    HostileProbe(
        "start_deal-extra-fields",
        "start_deal with extra fields",
        "§1",
        "deals",
        Ignored(),
        _start(**_EXTRA),
    ),
    HostileProbe(
        "new_game-without-seed",
        "new_game without seed",
        "§7",
        "deals",
        _BAD,
        lambda s: Script((), ("new_game", _new_game(s, seed=None)), ("new_game", _new_game(s))),
    ),
    HostileProbe(
        "new_game-seed-string",
        'new_game with seed "1"',
        "§7",
        "deals",
        _BAD,
        lambda s: Script((), ("new_game", _new_game(s, seed="1")), ("new_game", _new_game(s))),
    ),
)
