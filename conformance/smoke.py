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
from .profiles import DEFAULT_PROFILE, ProfileData, default_profiles

Verdict = Literal["broken_adapter", "engine_ok", "profile_unsupported"]


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
        """``engine_ok`` when every check passed; ``profile_unsupported`` when the only
        failure is that the handshake lacks the profile asked for; else ``broken_adapter``."""
        failed = [check.name for check in self.checks if not check.ok]
        if not failed:
            return "engine_ok"
        if all(name.startswith("profile ") for name in failed):
            return "profile_unsupported"
        return "broken_adapter"


def canonical_deck(profile: ProfileData | None = None, players: int = 2) -> list[str]:
    """The pack ``profile`` deals to ``players`` players, in the canonical order of
    docs/scenario-format.md (default: the argentine 108 cards)."""
    if profile is None:
        return list(CANONICAL_ORDER)
    return list(profile.pack(players).canonical_order())


def probe_state(players: int = 2, profile: ProfileData | None = None) -> dict[str, Any]:
    """A legal ``players``-player state at the start of deal 1 (dealt from the canonical deck).

    Dealing follows docs/protocol.md §7: one card at a time from the dealer's
    right (player 1), the profile's deal-1 hand size each (11), the next card turned up,
    the rest stock.
    """
    facts = profile or default_profiles()[DEFAULT_PROFILE]
    deck = canonical_deck(facts, players)
    hands: list[list[str]] = [[] for _ in range(players)]
    dealt = facts.hand_size(1) * players
    for index in range(dealt):
        hands[(1 + index) % players].append(deck[index])
    return {
        "profile": facts.name,
        "players": players,
        "deal_number": 1,
        "dealer": 0,
        "turn": 1,
        "phase": "draw",
        "hands": hands,
        "opened": [False] * players,
        "turn_opened": False,
        "table": [],
        "stock": deck[dealt + 1 :],
        "discard": [deck[dealt]],
        "totals": [0] * players,
        "deal_scores": None,
        "closer": None,
        "winners": None,
    }


#: One probe of one op: the session, the player count and the profile to use; returns
#: what it saw.
OpProbe = Callable[[EngineSession, int, ProfileData], str]


def _probe_check_meld(session: EngineSession, players: int, profile: ProfileData) -> str:
    # K-A-2-3 is a run that turns the corner: whatever the engine says, it must
    # say it in the check_meld shape.
    meld = {"kind": "run", "cards": ["KS", "AS", "2S", "3S"]}
    answer = session.request("check_meld", profile=profile.name, meld=meld, initial=True)
    return f"check_meld valid={answer['valid']}"


def _probe_check_contract(session: EngineSession, players: int, profile: ProfileData) -> str:
    melds = [
        {"kind": "trio", "cards": ["8C", "8D", "8H"]},
        {"kind": "trio", "cards": ["KS", "KH", "KD"]},
    ]
    answer = session.request("check_contract", profile=profile.name, deal_number=1, melds=melds)
    return f"check_contract valid={answer['valid']}"


def _probe_penalty(session: EngineSession, players: int, profile: ProfileData) -> str:
    points = session.request("penalty", profile=profile.name, cards=["AS", "QD", "3C"])
    return f"penalty points={points['points']}"


def _probe_reasons(session: EngineSession, players: int, profile: ProfileData) -> str:
    meld = {"kind": "trio", "cards": ["8C", "9D", "10H"]}
    answer = session.request("check_meld", profile=profile.name, meld=meld, initial=True)
    if answer["valid"]:
        return "the mixed-rank trio was accepted, so no reason was given"
    if not answer.get("reason"):
        raise _ProbeFailed("claims 'reasons' but rejected a meld without a reason")
    return f"rejection reason {answer['reason']!r}"


def _probe_load_state(session: EngineSession, players: int, profile: ProfileData) -> str:
    loaded = session.request("load_state", state=probe_state(players, profile))
    return f"load_state phase={loaded['state']['phase']}"


def _probe_act(session: EngineSession, players: int, profile: ProfileData) -> str:
    # The state is loaded again so that this probe stands alone.
    session.request("load_state", state=probe_state(players, profile))
    acted = session.request("act", action={"type": "draw_stock", "player": 1})
    return f"act accepted={acted['accepted']}"


def _start(session: EngineSession, players: int, profile: ProfileData) -> dict[str, Any]:
    return session.request(
        "start_deal",
        profile=profile.name,
        players=players,
        deal_number=1,
        dealer=0,
        totals=[0] * players,
        deck=canonical_deck(profile, players),
    )


def _probe_start_deal(session: EngineSession, players: int, profile: ProfileData) -> str:
    return f"start_deal phase={_start(session, players, profile)['state']['phase']}"


def _probe_redeal(session: EngineSession, players: int, profile: ProfileData) -> str:
    _start(session, players, profile)
    answer = session.request("redeal", deck=canonical_deck(profile, players))
    return f"redeal accepted={answer['accepted']}"


def _probe_next_deal(session: EngineSession, players: int, profile: ProfileData) -> str:
    # During a deal next_deal is refused (deal_in_progress); only the shape matters here.
    _start(session, players, profile)
    answer = session.request("next_deal", deck=canonical_deck(profile, players))
    return f"next_deal accepted={answer['accepted']}"


def _probe_new_game(session: EngineSession, players: int, profile: ProfileData) -> str:
    answer = session.request("new_game", profile=profile.name, players=players, seed=1)
    return f"new_game phase={answer['state']['phase']}"


class _ProbeFailed(Exception):
    """A probe's answer was well formed but breaks a promise of the handshake."""


#: Every op of every capability, probed in this order when the capability is claimed
#: (docs/protocol.md §2). ``reasons`` has no op of its own: it is probed through check_meld.
PROBES: dict[str, tuple[tuple[str, OpProbe], ...]] = {
    "melds": (
        ("check_meld", _probe_check_meld),
        ("check_contract", _probe_check_contract),
        ("penalty", _probe_penalty),
    ),
    "reasons": (("check_meld", _probe_reasons),),
    "turns": (("load_state", _probe_load_state), ("act", _probe_act)),
    "deals": (
        ("start_deal", _probe_start_deal),
        ("redeal", _probe_redeal),
        ("next_deal", _probe_next_deal),
        ("new_game", _probe_new_game),
    ),
}


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def smoke(
    argv: Sequence[str], *, timeout: float = DEFAULT_TIMEOUT, profile: str = DEFAULT_PROFILE
) -> SmokeResult:
    """Start the adapter, shake hands, probe every op of each claimed capability, close.

    Every probe speaks ``profile``; an engine whose handshake does not list it fails the
    ``profile`` check and is not probed further. Turns and deals are probed with the
    fewest players both the engine and the profile allow.

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
                f"profiles {', '.join(handshake.profiles)}; capabilities {caps}; "
                f"players {', '.join(map(str, handshake.players))}; "
                f"run_order {handshake.run_order}, run_ends {handshake.run_ends}"
                + (
                    f"; unmodelled {', '.join(sorted(handshake.unmodelled))}"
                    if handshake.unmodelled
                    else ""
                ),
            )
        )
        rulings = handshake.rulings_for(profile)
        ruling_problems = load_catalogue().ruling_problems(rulings)
        checks.append(
            SmokeCheck(
                "rulings",
                not ruling_problems,
                "; ".join(ruling_problems)
                or f"{len(rulings)} ruling(s) in {profile}, all known points and options",
            )
        )
        facts = default_profiles()[profile]
        if profile not in handshake.profiles:
            listed = ", ".join(handshake.profiles) or "none"
            detail = (
                f"the engine does not support profile {profile!r}: its handshake lists "
                f"profiles {listed}"
            )
            checks.append(SmokeCheck(f"profile {profile}", False, detail))
            return _result(checks, handshake, session.stderr_tail(), started)
        if not handshake.capabilities & {"melds", "turns", "deals"}:
            checks.append(SmokeCheck("capabilities", False, "claims no capability with ops"))
        if "deals" in handshake.capabilities and "turns" not in handshake.capabilities:
            checks.append(SmokeCheck("capabilities", False, "'deals' needs 'turns' too"))
        shared = [n for n in handshake.players_for(profile) if n in facts.players]
        if not shared:
            counts = ", ".join(map(str, facts.players))
            detail = f"the engine plays none of the {profile} player counts ({counts})"
            checks.append(SmokeCheck("players", False, detail))
            return _result(checks, handshake, session.stderr_tail(), started)
        players = min(shared)
        for capability, probes in PROBES.items():
            if capability not in handshake.capabilities:
                continue
            if capability == "reasons" and "melds" not in handshake.capabilities:
                continue  # the reasons probe uses check_meld
            checks.extend(_probe_capability(session, capability, probes, players, facts))
        return _result(checks, handshake, session.stderr_tail(), started)
    except EngineError as exc:
        # A restart between probes failed: the adapter cannot be relied on.
        checks.append(SmokeCheck("restart", False, _describe(exc)))
        return _result(checks, handshake, exc.stderr_tail, started)
    finally:
        session.close()


def _probe_capability(
    session: EngineSession,
    capability: str,
    probes: Sequence[tuple[str, OpProbe]],
    players: int,
    profile: ProfileData,
) -> list[SmokeCheck]:
    """Probe every op of one claimed capability; one check for it, one per unsupported op.

    An ``unsupported`` answer to one op is not a broken adapter: the engine lacks that
    op, and the run grades every check it does support (docs/protocol.md §2). It is listed
    so that nobody is surprised by unsupported cases later. Any other error answer, a
    malformed answer or a crash fails the capability. A capability all of whose ops are
    unsupported is not really claimed, and fails too.
    """
    seen: list[str] = []
    lacking: list[SmokeCheck] = []
    for op, probe in probes:
        if not session.alive:
            session.restart()
        try:
            seen.append(probe(session, players, profile))
        except EngineReportedError as exc:
            if exc.kind != "unsupported" or capability == "reasons":
                return [SmokeCheck(f"capability {capability}", False, _describe(exc)), *lacking]
            lacking.append(
                SmokeCheck(
                    f"op {op}",
                    True,
                    f"answered unsupported ({exc.message}): cases needing it are reported "
                    "unsupported, every other check is still graded",
                )
            )
        except (EngineError, _ProbeFailed) as exc:
            if isinstance(exc, EngineError):
                session.restart()
            return [SmokeCheck(f"capability {capability}", False, _describe(exc)), *lacking]
    if not seen:
        detail = "every op of it answered unsupported: do not claim it"
        return [SmokeCheck(f"capability {capability}", False, detail), *lacking]
    return [SmokeCheck(f"capability {capability}", True, ", ".join(seen)), *lacking]


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
