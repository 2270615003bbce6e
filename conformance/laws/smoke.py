"""Smoke test of an adapter: does it speak the protocol at all?

``carioca-conformance smoke --adapter CMD`` runs this before a real run to
tell a *broken adapter* (does not start, wrong handshake, malformed answers)
from an engine that merely disagrees with the rules. Each probe only checks
that the answer is well formed: whether it is *right* is the corpus's job.

The engine's declarations are read through conformance/adapter/declarations.py, as ``run``
reads them: the profile's rulings, player counts and unmodelled fields. The turns and
deals probes seat the smallest count the engine plays in the profile; a count it answers
``unsupported`` to is noted and the next is tried (an engine that declares no counts is
taken to play every count of its profiles, docs/protocol.md §2, and may still lack some),
and every other count is then dealt once, so that each count the engine plays is probed.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from conformance.adapter.declarations import Declarations, declarations
from conformance.adapter.engine import (
    DEFAULT_TIMEOUT,
    EngineSession,
    Handshake,
    Request,
    exchange_together,
)
from conformance.errors import EngineError, EngineReportedError, EngineStartError, HandshakeError
from conformance.knowledge.cards import CANONICAL_ORDER
from conformance.knowledge.catalogue import load_catalogue
from conformance.knowledge.optionfacts import with_packs
from conformance.knowledge.profiles import DEFAULT_PROFILE, ProfileData, default_profiles
from conformance.laws.hostile import hostile_checks, probe_engine

Verdict = Literal["broken_adapter", "engine_ok", "lax_adapter", "profile_unsupported"]


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
        failure is that the handshake lacks the profile asked for; ``lax_adapter`` when the
        only failures are hostile probes the engine answered otherwise than the protocol
        requires (it talks, but accepts malformed or impossible requests); else
        ``broken_adapter`` (it cannot talk: no start, no handshake, malformed answers)."""
        failed = [check.name for check in self.checks if not check.ok]
        if not failed:
            return "engine_ok"
        if all(name.startswith("profile ") for name in failed):
            return "profile_unsupported"
        probes = [name for name in failed if name.startswith("hostile ")]
        if probes and all(name == "hostile" or name in probes for name in failed):
            return "lax_adapter"
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


class Requester(Protocol):
    """What a probe sends requests through (an :class:`EngineSession`, or the recorder
    that remembers which op it sent last)."""

    def request(self, op: str, **fields: Any) -> dict[str, Any]:
        """Send one request; return the result object."""
        ...


#: One probe of one op: where to send, the player count and the profile to use; returns
#: what it saw.
OpProbe = Callable[[Requester, int, ProfileData], str]

#: The ops that seat players (a count the engine does not play is answered there).
SEATING_OPS = frozenset({"load_state", "start_deal", "new_game"})


class _Sent:
    """A session that remembers the op of the last request sent, so that a failure or an
    ``unsupported`` answer is shown against the op that got it (the redeal probe sends
    start_deal first)."""

    def __init__(self, session: EngineSession) -> None:
        self.session = session
        self.last = ""
        #: Every op sent since the last :meth:`clear`.
        self.ops: list[str] = []

    def clear(self) -> None:
        """Start a new probe."""
        self.last = ""
        self.ops = []

    def request(self, op: str, **fields: Any) -> dict[str, Any]:
        self.last = op
        self.ops.append(op)
        return self.session.request(op, **fields)


class _Seats:
    """The player counts the probes seat: the engine's counts in the profile, ascending.

    ``current`` is the count the probes use. Until some op has seated it (``proven``), an
    ``unsupported`` answer from a seating op moves on to the next count; once it has, such
    an answer is the op's own (``unsupported`` ops are allowed, docs/protocol.md §2).
    """

    def __init__(self, counts: Sequence[int]) -> None:
        self.counts = list(counts)
        self.index = 0
        self.proven = False
        self.played: list[int] = []
        self.unsupported: dict[int, str] = {}

    @property
    def current(self) -> int:
        return self.counts[self.index]

    def seated(self) -> None:
        """A seating op worked at the current count."""
        self.proven = True
        if self.current not in self.played:
            self.played.append(self.current)

    def refused(self, message: str) -> bool:
        """A seating op answered ``unsupported`` at the current count; True when another
        count is left to try (the probe is then tried again there)."""
        if self.proven:
            return False
        self.unsupported[self.current] = message
        if self.index + 1 >= len(self.counts):
            return False
        self.index += 1
        return True


def _probe_check_meld(session: Requester, players: int, profile: ProfileData) -> str:
    # K-A-2-3 is a run that turns the corner: whatever the engine says, it must
    # say it in the check_meld shape.
    meld = {"kind": "run", "cards": ["KS", "AS", "2S", "3S"]}
    answer = session.request("check_meld", profile=profile.name, meld=meld, initial=True)
    return f"check_meld valid={answer['valid']}"


def _probe_check_contract(session: Requester, players: int, profile: ProfileData) -> str:
    melds = [
        {"kind": "trio", "cards": ["8C", "8D", "8H"]},
        {"kind": "trio", "cards": ["KS", "KH", "KD"]},
    ]
    answer = session.request("check_contract", profile=profile.name, deal_number=1, melds=melds)
    return f"check_contract valid={answer['valid']}"


def _probe_penalty(session: Requester, players: int, profile: ProfileData) -> str:
    points = session.request("penalty", profile=profile.name, cards=["AS", "QD", "3C"])
    return f"penalty points={points['points']}"


def _probe_reasons(session: Requester, players: int, profile: ProfileData) -> str:
    meld = {"kind": "trio", "cards": ["8C", "9D", "10H"]}
    answer = session.request("check_meld", profile=profile.name, meld=meld, initial=True)
    if answer["valid"]:
        return "the mixed-rank trio was accepted, so no reason was given"
    if not answer.get("reason"):
        raise _ProbeFailed("claims 'reasons' but rejected a meld without a reason")
    return f"rejection reason {answer['reason']!r}"


def _probe_load_state(session: Requester, players: int, profile: ProfileData) -> str:
    loaded = session.request("load_state", state=probe_state(players, profile))
    return f"load_state phase={loaded['state']['phase']}"


def _probe_act(session: Requester, players: int, profile: ProfileData) -> str:
    # The state is loaded again so that this probe stands alone.
    session.request("load_state", state=probe_state(players, profile))
    acted = session.request("act", action={"type": "draw_stock", "player": 1})
    return f"act accepted={acted['accepted']}"


def _start(session: Requester, players: int, profile: ProfileData) -> dict[str, Any]:
    return session.request(
        "start_deal",
        profile=profile.name,
        players=players,
        deal_number=1,
        dealer=0,
        totals=[0] * players,
        deck=canonical_deck(profile, players),
    )


def _probe_start_deal(session: Requester, players: int, profile: ProfileData) -> str:
    return f"start_deal phase={_start(session, players, profile)['state']['phase']}"


def _probe_redeal(session: Requester, players: int, profile: ProfileData) -> str:
    _start(session, players, profile)
    answer = session.request("redeal", deck=canonical_deck(profile, players))
    return f"redeal accepted={answer['accepted']}"


def _probe_next_deal(session: Requester, players: int, profile: ProfileData) -> str:
    # During a deal next_deal is refused (deal_in_progress); only the shape matters here.
    _start(session, players, profile)
    answer = session.request("next_deal", deck=canonical_deck(profile, players))
    return f"next_deal accepted={answer['accepted']}"


def _probe_new_game(session: Requester, players: int, profile: ProfileData) -> str:
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
    argv: Sequence[str],
    *,
    timeout: float = DEFAULT_TIMEOUT,
    profile: str = DEFAULT_PROFILE,
    hostile: bool = False,
) -> SmokeResult:
    """Start the adapter, shake hands, probe every op of each claimed capability, close.
    With ``hostile``, then send the malformed requests of conformance/laws/hostile/.

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
        declared = declarations(handshake, profile, load_catalogue())
        checks.append(SmokeCheck("handshake", True, _handshake_line(handshake, declared)))
        checks.append(
            SmokeCheck(
                "rulings",
                not declared.problems,
                "; ".join(declared.problems)
                or f"{len(declared.declared)} ruling(s) in {profile}, all known points and options",
            )
        )
        # Decks and states from the pack the engine deals under its rulings, as run does.
        facts = with_packs(default_profiles()[profile], declared.ruling)
        if not declared.plays_profile:
            listed = ", ".join(declared.profiles) or "none"
            detail = (
                f"the engine does not support profile {profile!r}: its handshake lists "
                f"profiles {listed}"
            )
            checks.append(SmokeCheck(f"profile {profile}", False, detail))
            return _result(checks, handshake, session.stderr_tail(), started)
        capabilities = declared.capabilities
        if not capabilities & {"melds", "turns", "deals"}:
            checks.append(SmokeCheck("capabilities", False, "claims no capability with ops"))
        if "deals" in capabilities and "turns" not in capabilities:
            checks.append(SmokeCheck("capabilities", False, "'deals' needs 'turns' too"))
        shared = [n for n in declared.players if n in facts.players]
        if not shared:
            counts = ", ".join(map(str, facts.players))
            detail = f"the engine plays none of the {profile} player counts ({counts})"
            checks.append(SmokeCheck("players", False, detail))
            return _result(checks, handshake, session.stderr_tail(), started)
        # "This count works" is kept per capability: an engine that loads a 2-player
        # state may still deal only 3 or more, so its deal ops start again from the
        # smallest count and move on from each count they answer unsupported.
        seats = {capability: _Seats(shared) for capability in PROBES}
        for capability, probes in PROBES.items():
            if capability not in capabilities:
                continue
            if capability == "reasons" and "melds" not in capabilities:
                continue  # the reasons probe uses check_meld
            checks.extend(_probe_capability(session, capability, probes, seats[capability], facts))
        if "turns" in capabilities:
            checks.extend(_probe_players(session, seats, facts, checks))
        checks.extend(_probe_in_flight(session, capabilities, shared[0], facts))
        if hostile:
            outcomes = probe_engine(session, declared, facts, shared[0])
            checks.extend(SmokeCheck(*check) for check in hostile_checks(outcomes))
        return _result(checks, handshake, session.stderr_tail(), started)
    except EngineError as exc:
        # A restart between probes failed: the adapter cannot be relied on.
        checks.append(SmokeCheck("restart", False, _describe(exc)))
        return _result(checks, handshake, exc.stderr_tail, started)
    finally:
        session.close()


def _probe_in_flight(
    session: EngineSession, capabilities: frozenset[str], players: int, profile: ProfileData
) -> list[SmokeCheck]:
    """An engine whose handshake takes more than one request at a time (``max_in_flight``)
    is sent that many at once: each must be answered in its turn.

    They go in one write (:func:`conformance.adapter.engine.exchange_together`), so they reach the
    adapter in one read whatever the timing: an adapter that takes a read for one request
    fails here every time, not only when ``run`` happens to send two together."""
    limit = session.ahead_limit
    if limit < 2:
        return []
    request: Request
    if "melds" in capabilities:
        request = ("penalty", {"profile": profile.name, "cards": ["AS", "QD", "3C"]})
    elif "turns" in capabilities:
        request = ("load_state", {"state": probe_state(players, profile)})
    else:
        return []
    if not session.alive:
        session.restart()
    declared = session.handshake.max_in_flight if session.handshake else limit
    try:
        # An error answer is still an answer in its turn: exchange_together returns it.
        exchange_together(session, [request] * limit)
    except EngineError as exc:
        detail = (
            f"declares max_in_flight {declared}, but {limit} {request[0]} requests written "
            f"together were not answered in turn: {_describe(exc)}"
        )
        return [SmokeCheck("in flight", False, detail)]
    detail = f"{limit} {request[0]} requests written together were answered in turn"
    return [SmokeCheck("in flight", True, detail)]


def _handshake_line(handshake: Handshake, declared: Declarations) -> str:
    """What the engine says about itself, as graded in the profile smoke speaks."""
    caps = ", ".join(sorted(declared.capabilities)) or "none"
    # The counts of this profile only: an engine that declares none is taken to play every
    # count of the profiles it lists, but each profile seats only its own.
    counts = [n for n in declared.players if n in declared.profile_players]
    line = (
        f"{handshake.name} {handshake.version} ({handshake.language}), "
        f"profiles {', '.join(declared.profiles)}; capabilities {caps}; "
        f"players in {declared.profile} {', '.join(map(str, counts)) or 'none'}; "
        f"run_order {declared.run_order}, run_ends {declared.run_ends}"
    )
    if declared.unmodelled:
        line += f"; unmodelled {', '.join(sorted(declared.unmodelled))}"
    if handshake.max_in_flight > 1:
        line += f"; max_in_flight {handshake.max_in_flight}"
    return line


def _probe_capability(
    session: EngineSession,
    capability: str,
    probes: Sequence[tuple[str, OpProbe]],
    seats: _Seats,
    profile: ProfileData,
) -> list[SmokeCheck]:
    """Probe every op of one claimed capability; one check for it, one per unsupported op.

    An ``unsupported`` answer to one op is not a broken adapter: the engine lacks that
    op, and the run grades every check it does support (docs/protocol.md §2). It is listed
    so that nobody is surprised by unsupported cases later. Any other error answer, a
    malformed answer or a crash fails the capability. A capability all of whose ops are
    unsupported is not really claimed, and fails too. Each message names the op that was
    actually sent. A player count answered ``unsupported`` by a seating op moves the
    probes on to the next count (see :class:`_Seats`).
    """
    seen: list[str] = []
    lacking: list[SmokeCheck] = []
    sent = _Sent(session)
    for op, probe in probes:
        while True:
            if not session.alive:
                session.restart()
            sent.clear()
            try:
                seen.append(probe(sent, seats.current, profile))
                if SEATING_OPS.intersection(sent.ops):
                    seats.seated()
                break
            except EngineReportedError as exc:
                if exc.kind != "unsupported" or capability == "reasons":
                    failed = SmokeCheck(f"capability {capability}", False, _blame(op, sent, exc))
                    return [failed, *lacking]
                if sent.last in SEATING_OPS and seats.refused(exc.message):
                    continue  # the count, not the op: try the next count
                lacking.append(SmokeCheck(f"op {op}", True, _lacking(op, sent, exc)))
                break
            except (EngineError, _ProbeFailed) as exc:
                if isinstance(exc, EngineError):
                    session.restart()
                failed = SmokeCheck(f"capability {capability}", False, _blame(op, sent, exc))
                return [failed, *lacking]
    if not seen and not seats.proven and len(seats.unsupported) == len(seats.counts):
        detail = (
            f"answered unsupported at every {profile.name} player count it plays: "
            f"{_counts(seats.unsupported)}"
        )
        return [SmokeCheck(f"capability {capability}", False, detail), *lacking]
    if not seen:
        detail = "every op of it answered unsupported: do not claim it"
        return [SmokeCheck(f"capability {capability}", False, detail), *lacking]
    return [SmokeCheck(f"capability {capability}", True, ", ".join(seen)), *lacking]


def _blame(op: str, sent: _Sent, exc: BaseException) -> str:
    """A probe's failure, naming the op that got it when another op was sent first."""
    if sent.last and sent.last != op:
        return f"{sent.last} (sent to set up the {op} probe): {_describe(exc)}"
    return _describe(exc)


def _lacking(op: str, sent: _Sent, exc: EngineReportedError) -> str:
    if sent.last and sent.last != op:
        return (
            f"not probed: {sent.last}, sent to set it up, answered unsupported "
            f"({exc.message}); cases needing {op} are reported unsupported"
        )
    return (
        f"answered unsupported ({exc.message}): cases needing it are reported "
        "unsupported, every other check is still graded"
    )


def _probe_players(
    session: EngineSession,
    by_capability: Mapping[str, _Seats],
    profile: ProfileData,
    checks: Sequence[SmokeCheck],
) -> list[SmokeCheck]:
    """Seat every count the engine plays in the profile once (start_deal, or load_state
    for an engine without it), and say which counts it plays.

    A count answered ``unsupported`` is noted, not failed: cases seating it are reported
    unsupported (docs/protocol.md §2). Any other error answer, a malformed answer or a
    crash at a count the engine plays fails the check. Skipped when the capability that
    seats players already failed.
    """
    passed = {c.name for c in checks if c.ok}
    if "capability deals" in passed and "op start_deal" not in passed:
        op = "start_deal"
    elif "capability turns" in passed and "op load_state" not in passed:
        op = "load_state"
    else:
        return []  # nothing seats players (the capability failed or the op is unsupported)
    deals = op == "start_deal"
    seats = by_capability["deals" if deals else "turns"]
    sent = _Sent(session)
    problems: list[str] = []
    for count in seats.counts:
        if count in seats.played or count in seats.unsupported:
            continue
        if not session.alive:
            session.restart()
        try:
            if deals:
                _start(sent, count, profile)
            else:
                sent.request("load_state", state=probe_state(count, profile))
            seats.played.append(count)
        except EngineReportedError as exc:
            if exc.kind != "unsupported":
                problems.append(f"{op} with {count} players: {_describe(exc)}")
            else:
                seats.unsupported[count] = exc.message
        except EngineError as exc:
            session.restart()
            problems.append(f"{op} with {count} players: {_describe(exc)}")
    played = sorted(seats.played)
    if problems:
        return [SmokeCheck("players", False, "; ".join(problems))]
    if not played:
        detail = f"answered unsupported at every count ({_counts(seats.unsupported)})"
        return [SmokeCheck("players", False, detail)]
    detail = f"{profile.name}: {op} seats {', '.join(map(str, played))} players"
    if seats.unsupported:
        detail += (
            f"; answered unsupported at {_counts(seats.unsupported)}: cases seating "
            f"{'it' if len(seats.unsupported) == 1 else 'them'} are reported unsupported "
            f"(declare players {played} in hello to say so up front)"
        )
    return [SmokeCheck("players", True, detail)]


def _counts(unsupported: dict[int, str]) -> str:
    """``2 players (the engine's message)`` for each count answered unsupported."""
    return "; ".join(f"{n} players ({message})" for n, message in sorted(unsupported.items()))


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
