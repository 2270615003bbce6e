"""Malformed and borderline requests, and the answer docs/protocol.md requires for each.

``smoke --hostile`` and ``run --hostile`` send these probes: a required field left out, a
field of the wrong type (a boolean or a float ``cut``), a deal number past every profile's
last, an unknown op, action type or card code, a ``pass`` by the player to move, and extra
fields an engine must ignore. Each probe names the protocol section that decides it.

:data:`HOSTILE_PROBES` is the one list both commands read. A probe is sent only where it
applies to the engine's declarations (capability, profile, interface, rulings, player
counts); one that does not apply, or whose setting the engine cannot take (an
``unsupported`` answer), is *not graded*, never counted as a pass.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from conformance.adapter.declarations import Declarations
from conformance.adapter.engine import EngineSession
from conformance.adapter.protocol import OPS
from conformance.errors import EngineError, EngineReportedError, ProtocolError
from conformance.grading.results import CaseResult, CheckResult
from conformance.knowledge.optionfacts import hand_size
from conformance.knowledge.profiles import ProfileData

if TYPE_CHECKING:
    from conformance.grading.results import RunResult
    from conformance.run.runner import RunOptions

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


# -- sending them -------------------------------------------------------------------------


class _NotGraded(Exception):
    """The probe's setting could not be set up, or its twin was refused too."""

    def __init__(self, cause: str, detail: str) -> None:
        super().__init__(detail)
        self.cause = cause
        self.detail = detail


def probe_engine(
    session: EngineSession, declared: Declarations, profile: ProfileData, players: int
) -> list[ProbeOutcome]:
    """Send every probe of :data:`HOSTILE_PROBES` that applies to the engine; one outcome
    each, in order. ``profile`` holds the packs the engine deals under its rulings
    (optionfacts.with_packs); ``players`` is the count the probes seat.

    Never raises for engine misbehaviour: a crash or a protocol breach on a hostile request
    fails that probe (the session is restarted for the next); on a setup request it leaves
    the probe not graded.
    """
    setting = Setting(profile, players, declared)
    outcomes: list[ProbeOutcome] = []
    checking = session.validate_requests
    session.validate_requests = False  # the requests are malformed on purpose
    try:
        for probe in HOSTILE_PROBES:
            outcomes.append(_probe(session, probe, setting))
    finally:
        session.validate_requests = checking
    return outcomes


def _probe(session: EngineSession, probe: HostileProbe, setting: Setting) -> ProbeOutcome:
    started = time.monotonic()
    if probe.capability and probe.capability not in setting.declared.capabilities:
        why = f"the engine does not claim {probe.capability}"
        return ProbeOutcome(probe, "not_graded", detail=why, cause="capability")
    skipped = probe.skip_reason(setting)
    if skipped is not None:
        return ProbeOutcome(probe, "not_graded", detail=skipped[1], cause=skipped[0])
    script = probe.build(setting)
    shown = _show(script.request)
    try:
        _setup(session, script.setup)
        answer = _send(session, script.request)
        if isinstance(answer, str):  # a crash or a protocol breach: failed
            return _outcome(probe, "fail", shown, answer, started)
        verdict = _grade(probe.expect, answer, setting, probe.may_be_unsupported)
        if verdict is not None:
            return _outcome(probe, "fail", shown, _answer_text(answer), started, verdict)
        if script.twin is not None:
            _setup(session, script.setup)
            twin = _send(session, script.twin)
            try:
                _twin_check(probe.expect, answer, twin)
            except _Differs as exc:
                detail = f"without them it answered {exc}"
                return _outcome(probe, "fail", shown, _answer_text(answer), started, detail)
        return _outcome(probe, "pass", shown, _answer_text(answer), started)
    except _NotGraded as exc:
        why = f"{probe.title}: {exc.detail}"
        return ProbeOutcome(
            probe,
            "not_graded",
            shown,
            detail=why,
            cause=exc.cause,
            duration=time.monotonic() - started,
        )


def _outcome(
    probe: HostileProbe, status: Status, request: str, answer: str, started: float, detail: str = ""
) -> ProbeOutcome:
    return ProbeOutcome(probe, status, request, answer, detail, duration=time.monotonic() - started)


#: An answer: the result object, an EngineReportedError, or (a string) what went wrong.
Answer = dict[str, Any] | EngineReportedError | str


def _send(session: EngineSession, request: Request) -> Answer:
    try:
        if not session.alive:
            session.restart()
        return session.request(request[0], **request[1])
    except EngineReportedError as exc:
        return exc
    except EngineError as exc:
        # The session is broken: restart it for the next probe (a failure to restart
        # leaves this one failed and the next not graded).
        with contextlib.suppress(EngineError):
            session.restart()
        if isinstance(exc, ProtocolError) and request[0] not in OPS and exc.pointer == "/op":
            # No schema reads a result to an op the protocol lacks (protocol.validate_response).
            return "a result, not an error"
        return f"{type(exc).__name__}: {exc}"


def _setup(session: EngineSession, setup: Sequence[Request]) -> None:
    for request in setup:
        answer = _send(session, request)
        if isinstance(answer, EngineReportedError):
            cause = "op" if answer.kind == "unsupported" else "error"
            raise _NotGraded(cause, f"setting it up, {request[0]} answered {_answer_text(answer)}")
        if isinstance(answer, str):
            raise _NotGraded("error", f"setting it up, {request[0]} failed: {answer}")
        if answer.get("accepted") is False:
            raise _NotGraded(
                "error", f"setting it up, {request[0]} was refused: {_answer_text(answer)}"
            )


def _grade(
    expect: Expectation, answer: dict[str, Any] | EngineReportedError, setting: Setting, lacks: bool
) -> str | None:
    """None when ``answer`` is what ``expect`` requires, else why not. An ``unsupported``
    answer is not graded (raises _NotGraded) when ``lacks``: the engine may lack the op,
    action, profile or count the probe sends."""
    if isinstance(answer, EngineReportedError) and answer.kind == "unsupported" and lacks:
        raise _NotGraded("op", f"answered unsupported ({answer.message})")
    match expect:
        case Refused(kind):
            if isinstance(answer, EngineReportedError) and answer.kind == kind:
                return None
            return ""
        case Rejected(reason):
            if isinstance(answer, EngineReportedError):
                return ""
            if answer.get("accepted") is not False:
                return "accepted"
            if "reasons" in setting.declared.capabilities and answer.get("reason") != reason:
                return f"reason {answer.get('reason')!r}, not {reason}"
            return None
        case Ignored():
            return "" if isinstance(answer, EngineReportedError) else None
    return None


def _twin_check(expect: Expectation, answer: Answer, twin: Answer) -> None:
    """Grade the well-formed twin: for a refusal it must not be refused too; for ignored
    fields it must be answered as the probe was.

    :raises _NotGraded: when the twin does not show what the probe needs.
    """
    if isinstance(twin, str):
        raise _NotGraded("error", f"the well-formed request failed: {twin}")
    if isinstance(twin, EngineReportedError):
        cause = "op" if twin.kind == "unsupported" else "error"
        detail = f"the well-formed request was refused too ({_answer_text(twin)})"
        raise _NotGraded(cause, detail)
    if isinstance(expect, Ignored) and isinstance(answer, dict) and _plain(answer) != _plain(twin):
        raise _Differs(_answer_text(twin))


class _Differs(Exception):
    """The answer with extra fields differs from the answer without them."""


def _plain(answer: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in answer.items() if key not in ("id", "message")}


def _show(request: Request) -> str:
    """The request as JSON, long card lists shortened (a deck is ``[108 cards]``)."""
    op, fields = request
    return _short(json.dumps({"op": op, **_elide(fields)}, separators=(",", ":")))


def _elide(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _elide(item) for key, item in value.items()}
    if isinstance(value, list):
        if len(value) > 16 and all(isinstance(item, str) for item in value):
            return f"[{len(value)} cards]"
        return [_elide(item) for item in value]
    return value


def _answer_text(answer: Answer) -> str:
    if isinstance(answer, str):
        return answer
    if isinstance(answer, EngineReportedError):
        return _short(f"error {answer.kind}: {answer.message}")
    shown = {key: ("{…}" if key == "state" else value) for key, value in answer.items()}
    shown.pop("id", None)
    return _short(json.dumps(shown, separators=(",", ":"), ensure_ascii=False))


def _short(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


# -- as a section of a run ----------------------------------------------------------------

#: The section of a run the probes' cases are listed under.
SECTION = "hostile"

#: The id of each probe's case in a run (an expectations file may name them).
HOSTILE_IDS = tuple(f"{SECTION}/{probe.key}" for probe in HOSTILE_PROBES)


def case_results(outcomes: Sequence[ProbeOutcome]) -> tuple[CaseResult, ...]:
    """One case per probe, one check each, graded like any case: a failed probe names the
    request, the answer and its protocol section; one not sent is not graded, with its
    cause (results.NOT_GRADED_CAUSES), but for one the profile has no place for."""
    results = []
    for outcome in outcomes:
        if outcome.cause == NOT_IN_PROFILE:
            continue
        probe = outcome.probe
        rules = (f"protocol {probe.section}",)
        failed = outcome.status == "fail"
        check = CheckResult(
            key="answer",
            what="answer",
            rules=rules,
            status=outcome.status,
            step=1,
            cause=outcome.cause,
            note=outcome.detail or None if outcome.status == "not_graded" else None,
            diff=outcome.failure() if failed else None,
            signature=f"{probe.key}: {outcome.answer}" if failed else None,
        )
        status = {"pass": "pass", "fail": "fail", "not_graded": "unsupported"}[outcome.status]
        results.append(
            CaseResult(
                id=f"{SECTION}/{probe.key}",
                title=f"{probe.title} (protocol {probe.section}: {probe.expect})",
                rules=rules,
                section=SECTION,
                status=status,
                duration=outcome.duration,
                diff=outcome.failure() if failed else None,
                failing_step="step 1" if failed else None,
                note=outcome.detail or None if outcome.status == "not_graded" else None,
                checks=(check,),
                failed_rules=rules if failed else (),
            )
        )
    return tuple(results)


def not_sent(cause: str, detail: str) -> list[ProbeOutcome]:
    """Every probe not graded for one reason (the engine plays no count, lacks the profile)."""
    return [
        ProbeOutcome(probe, "not_graded", detail=detail, cause=cause) for probe in HOSTILE_PROBES
    ]


def hostile_run(argv: Sequence[str], options: RunOptions) -> tuple[CaseResult, ...]:
    """Start a fresh adapter, send the probes in ``options.profile`` and grade them as cases
    (``run --hostile``). Never raises for engine trouble: an adapter that cannot start
    leaves every probe not graded (cause ``error``)."""
    from conformance.adapter.declarations import declarations
    from conformance.knowledge.catalogue import load_catalogue
    from conformance.knowledge.optionfacts import with_packs
    from conformance.knowledge.profiles import default_profiles
    from conformance.run.runner import start_session

    try:
        session = start_session(argv, options)
    except EngineError as exc:
        return case_results(not_sent("error", f"the adapter could not start: {exc}"))
    try:
        assert session.handshake is not None
        declared = declarations(session.handshake, options.profile, load_catalogue())
        if not declared.plays_profile:
            detail = f"the engine does not list profile {options.profile}"
            return case_results(not_sent("profile", detail))
        facts = with_packs(default_profiles()[options.profile], declared.ruling)
        counts = [n for n in declared.players if n in facts.players]
        if not counts:
            return case_results(not_sent("players", "the engine plays no count of the profile"))
        return case_results(probe_engine(session, declared, facts, counts[0]))
    finally:
        session.close()


def with_cases(run: RunResult, cases: Sequence[CaseResult]) -> RunResult:
    """``run`` with ``cases`` appended to its results and counted."""
    from dataclasses import replace

    from conformance.grading.results import count_statuses

    results = (*run.results, *cases)
    return replace(run, results=results, counts=count_statuses(results))


# -- as smoke checks ----------------------------------------------------------------------


def hostile_checks(outcomes: Sequence[ProbeOutcome]) -> list[tuple[str, bool, str]]:
    """Smoke's checks (name, ok, detail): one per failed probe, naming the request, the
    answer and the protocol section, then one that counts them. Passing needs at least one
    probe graded and none failed; probes not graded are listed with why (but for those the
    profile has no place for, which are not counted)."""
    checks = [
        (f"hostile {o.probe.key}", False, o.failure()) for o in outcomes if o.status == "fail"
    ]
    counted = [o for o in outcomes if o.cause != NOT_IN_PROFILE]
    passed = sum(o.status == "pass" for o in counted)
    skipped = [o for o in counted if o.status == "not_graded"]
    detail = f"{passed} of {len(counted)} probes answered as the protocol requires"
    if checks:
        detail += f", {len(checks)} not"
    if skipped:
        # One entry per reason, not per probe: "9 the engine does not claim turns" reads as
        # the one cause it is.
        by_reason: dict[str, list[str]] = {}
        for o in skipped:
            by_reason.setdefault(o.detail, []).append(o.probe.key)
        listed = "; ".join(
            f"{', '.join(keys)}: {reason}" if len(keys) <= 3 else f"{len(keys)} probes: {reason}"
            for reason, keys in by_reason.items()
        )
        detail += f"; {len(skipped)} not graded ({listed})"
    ok = passed > 0 and not checks
    if not passed:
        detail += "; none graded, so nothing was shown"
    return [*checks, ("hostile", ok, detail)]
