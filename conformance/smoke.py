"""Smoke test of an adapter: does it speak the protocol at all?

``carioca-conformance smoke --adapter CMD`` runs this before a real run to
tell a *broken adapter* (does not start, wrong handshake, malformed answers)
from an engine that merely disagrees with the rules. Each probe only checks
that the answer is well formed: whether it is *right* is the corpus's job.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from .cards import CANONICAL_ORDER
from .catalogue import load_catalogue
from .engine import DEFAULT_TIMEOUT, EngineSession, Handshake
from .errors import EngineError, EngineReportedError, EngineStartError, HandshakeError

Verdict = Literal["broken_adapter", "engine_ok"]


@dataclass(frozen=True)
class SmokeCheck:
    """One named check and its outcome; ``detail`` says what went wrong (or what was seen)."""

    name: str
    ok: bool
    detail: str = ""


@dataclass(frozen=True)
class SmokeResult:
    """All checks of one smoke run, the engine's handshake (if any) and the verdict."""

    checks: tuple[SmokeCheck, ...]
    handshake: Handshake | None = None
    stderr_tail: str = ""
    elapsed: float = 0.0
    failed: tuple[str, ...] = field(default=())

    @property
    def verdict(self) -> Verdict:
        """``engine_ok`` when every check passed, else ``broken_adapter``."""
        return "engine_ok" if all(check.ok for check in self.checks) else "broken_adapter"


def canonical_deck() -> list[str]:
    """The 108 cards in the canonical order of docs/scenario-format.md."""
    return list(CANONICAL_ORDER)


def probe_state() -> dict[str, Any]:
    """A legal 2-player state at the start of deal 1 (dealt from the canonical deck).

    Dealing follows docs/protocol.md §7: one card at a time from the dealer's
    right (player 1), 11 cards each, the next card turned up, the rest stock.
    """
    deck = canonical_deck()
    hands: list[list[str]] = [[], []]
    for index in range(22):
        hands[(1 + index) % 2].append(deck[index])
    return {
        "profile": "argentine",
        "players": 2,
        "deal_number": 1,
        "dealer": 0,
        "turn": 1,
        "phase": "draw",
        "hands": hands,
        "opened": [False, False],
        "turn_opened": False,
        "table": [],
        "stock": deck[23:],
        "discard": [deck[22]],
        "totals": [0, 0],
        "deal_scores": None,
        "closer": None,
        "winners": None,
    }


Probe = Callable[[EngineSession], str]


def _probe_melds(session: EngineSession) -> str:
    # K-A-2-3 is a run that turns the corner: whatever the engine says, it must
    # say it in the check_meld shape.
    meld = {"kind": "run", "cards": ["KS", "AS", "2S", "3S"]}
    answer = session.request("check_meld", profile="argentine", meld=meld, initial=True)
    points = session.request("penalty", profile="argentine", cards=["AS", "QD", "3C"])
    return f"check_meld valid={answer['valid']}, penalty points={points['points']}"


def _probe_reasons(session: EngineSession) -> str:
    meld = {"kind": "trio", "cards": ["8C", "9D", "10H"]}
    answer = session.request("check_meld", profile="argentine", meld=meld, initial=True)
    if answer["valid"]:
        return "the mixed-rank trio was accepted, so no reason was given"
    if not answer.get("reason"):
        raise _ProbeFailed("claims 'reasons' but rejected a meld without a reason")
    return f"rejection reason {answer['reason']!r}"


def _probe_turns(session: EngineSession) -> str:
    loaded = session.request("load_state", state=probe_state())
    acted = session.request("act", action={"type": "draw_stock", "player": 1})
    return f"load_state phase={loaded['state']['phase']}, act accepted={acted['accepted']}"


def _probe_deals(session: EngineSession) -> str:
    answer = session.request(
        "start_deal",
        profile="argentine",
        players=2,
        deal_number=1,
        dealer=0,
        totals=[0, 0],
        deck=canonical_deck(),
    )
    return f"start_deal phase={answer['state']['phase']}"


class _ProbeFailed(Exception):
    """A probe's answer was well formed but breaks a promise of the handshake."""


#: One probe per capability, run in this order when claimed.
PROBES: dict[str, Probe] = {
    "melds": _probe_melds,
    "reasons": _probe_reasons,
    "turns": _probe_turns,
    "deals": _probe_deals,
}


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def smoke(argv: Sequence[str], *, timeout: float = DEFAULT_TIMEOUT) -> SmokeResult:
    """Start the adapter, shake hands, probe each claimed capability once, close.

    Never raises for engine misbehaviour: every problem becomes a failed check.
    """
    started = time.monotonic()
    checks: list[SmokeCheck] = []
    session = EngineSession(argv, timeout=timeout, start_timeout=timeout)
    handshake: Handshake | None = None
    try:
        try:
            handshake = session.start()
        except EngineStartError as exc:
            checks.append(SmokeCheck("started", False, _describe(exc)))
            return _result(checks, None, exc.stderr_tail, started)
        except HandshakeError as exc:
            checks.append(SmokeCheck("started", True, f"argv {list(argv)!r}"))
            checks.append(SmokeCheck("handshake", False, _describe(exc)))
            return _result(checks, None, exc.stderr_tail, started)
        checks.append(SmokeCheck("started", True, f"argv {list(argv)!r}"))
        caps = ", ".join(sorted(handshake.capabilities)) or "none"
        checks.append(
            SmokeCheck(
                "handshake",
                True,
                f"{handshake.name} {handshake.version} ({handshake.language}), "
                f"profiles {', '.join(handshake.profiles)}; capabilities {caps}",
            )
        )
        ruling_problems = load_catalogue().ruling_problems(handshake.rulings)
        checks.append(
            SmokeCheck(
                "rulings",
                not ruling_problems,
                "; ".join(ruling_problems)
                or f"{len(handshake.rulings)} ruling(s), all known points and options",
            )
        )
        if "argentine" not in handshake.profiles:
            checks.append(SmokeCheck("profile argentine", False, "not among the engine's profiles"))
        if not handshake.capabilities & {"melds", "turns", "deals"}:
            checks.append(SmokeCheck("capabilities", False, "claims no capability with ops"))
        if "deals" in handshake.capabilities and "turns" not in handshake.capabilities:
            checks.append(SmokeCheck("capabilities", False, "'deals' needs 'turns' too"))
        for capability, probe in PROBES.items():
            if capability not in handshake.capabilities:
                continue
            if capability == "reasons" and "melds" not in handshake.capabilities:
                continue  # the reasons probe uses check_meld
            if not session.alive:
                session.restart()
            try:
                checks.append(SmokeCheck(f"capability {capability}", True, probe(session)))
            except (EngineError, _ProbeFailed) as exc:
                # EngineReportedError counts too: a claimed op must not answer
                # "unsupported" or "internal" to a legal request.
                checks.append(SmokeCheck(f"capability {capability}", False, _describe(exc)))
                if not isinstance(exc, EngineReportedError | _ProbeFailed):
                    session.restart()
        return _result(checks, handshake, session.stderr_tail(), started)
    except EngineError as exc:
        # A restart between probes failed: the adapter cannot be relied on.
        checks.append(SmokeCheck("restart", False, _describe(exc)))
        return _result(checks, handshake, exc.stderr_tail, started)
    finally:
        session.close()


def _result(
    checks: list[SmokeCheck], handshake: Handshake | None, tail: str, started: float
) -> SmokeResult:
    return SmokeResult(
        checks=tuple(checks),
        handshake=handshake,
        stderr_tail=tail,
        elapsed=time.monotonic() - started,
        failed=tuple(check.name for check in checks if not check.ok),
    )


__all__ = ["PROBES", "SmokeCheck", "SmokeResult", "canonical_deck", "probe_state", "smoke"]
