"""Sending the hostile probes to an engine and grading each answer.

A probe is sent only where it applies to the engine's declarations; one whose setting the
engine cannot take (an ``unsupported`` answer), or whose well-formed twin is refused too, is
*not graded*, never counted as a pass. Engine misbehaviour never raises: it fails the probe.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Sequence
from typing import Any

from conformance.adapter.declarations import Declarations
from conformance.adapter.engine import EngineSession
from conformance.adapter.protocol import OPS
from conformance.errors import EngineError, EngineReportedError, ProtocolError
from conformance.knowledge.profiles import ProfileData
from conformance.laws.hostile.model import (
    Expectation,
    HostileProbe,
    Ignored,
    MayRefuse,
    ProbeOutcome,
    Refused,
    Rejected,
    Request,
    Setting,
    Status,
)
from conformance.laws.hostile.probes import HOSTILE_PROBES


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
        if _unsupported(answer) and script.twin is not None:
            # `unsupported` may be the bug itself (a count the profile has no place for),
            # but only from an engine that answers the well-formed twin.
            _setup(session, script.setup)
            _twin_check(probe.expect, answer, _send(session, script.twin))
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
        if isinstance(probe.expect, MayRefuse):
            done = "refused it" if isinstance(answer, EngineReportedError) else "accepted it"
            detail = f"{done}; protocol {probe.section} leaves that to the engine"
            return _outcome(probe, "info", shown, _answer_text(answer), started, detail)
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
        case MayRefuse(kind):
            if isinstance(answer, EngineReportedError) and answer.kind != kind:
                return f"if it refuses, the error is of kind {kind}"
            return None
    return None


def _unsupported(answer: Answer) -> bool:
    return isinstance(answer, EngineReportedError) and answer.kind == "unsupported"


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
