"""A campaign: the games of a seed (or a shard of them) played by the pool, the
occurrences grouped into findings, each shrunk and drafted, into a :class:`FuzzResult`."""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from conformance.errors import EngineError, InvalidRequest
from conformance.knowledge.catalogue import Catalogue
from conformance.knowledge.profiles import find_profile
from conformance.run.budget import explanation_budget, explanation_cost

from .drafts import draft_of, draft_problems
from .explain import explain_findings
from .judge import REASON_ORDER
from .model import (
    FIRST_DRAFT_ID,
    LAST_DRAFT_ID,
    OTHER_OCCURRENCES,
    Finding,
    FuzzOptions,
    Occurrence,
    Trace,
    game_indices,
)
from .pair import Pair
from .pool import PairStats, Played, play_in_processes, play_one
from .shrink import shrink


@dataclass
class FuzzResult:
    """A campaign's outcome, ready for the JSON report."""

    engine: dict[str, Any]
    engine_argv: list[str]
    reference_argv: list[str]
    rulings: dict[str, str]
    options: FuzzOptions
    games_played: int = 0
    steps: int = 0
    queries: int = 0
    compared: int = 0
    """Requests both adapters answered (so graded); 0: the campaign graded nothing."""
    divergences: int = 0
    findings: list[Finding] = field(default_factory=list)
    information: list[Finding] = field(default_factory=list)
    """Reason differences where both reasons are true of the state (``reason order``):
    reported, never a finding (docs/reasons.md leaves the choice to the engine)."""
    warnings: list[str] = field(default_factory=list)
    unsupported_ops: list[str] = field(default_factory=list)
    #: Ops answered in some games and refused as ``unsupported`` in others, at one player
    #: count (``act:discard at 2 players``): the campaign is then no pass.
    inconsistent_ops: list[str] = field(default_factory=list)
    events: dict[str, int] = field(default_factory=dict)
    interrupted: str | None = None
    """The signal that stopped the campaign early (``SIGINT``, ``SIGTERM``), else None."""
    seconds: float = 0.0


ProgressFn = Callable[[int, int, int, int], None]
"""Called as ``(games done, games total, steps so far, divergences so far)``."""


def fuzz(
    engine_argv: Sequence[str],
    options: FuzzOptions,
    catalogue: Catalogue,
    *,
    progress: ProgressFn | None = None,
    env: Mapping[str, str] | None = None,
    stop: threading.Event | None = None,
) -> FuzzResult:
    """Run a campaign (or one shard of it) and return its de-duplicated findings.

    Games are shared among ``options.workers`` pairs of adapters; the findings are merged
    in game order afterwards, so the same seed gives the same findings whatever the number
    of workers or the scheduling.

    Setting ``stop`` (or a KeyboardInterrupt) ends the campaign after the games under
    way; the result keeps the games finished before and says ``interrupted``.

    :raises EngineError: when the engine or the reference cannot start.
    :raises InvalidOption: when the explanation's cost variable is malformed (before any
        game is played, not after).
    """
    started = time.monotonic()
    cost = explanation_cost()
    games = game_indices(options)
    facts = find_profile(options.profile)
    workers = max(1, min(options.workers, len(games) or 1))
    stop = stop if stop is not None else threading.Event()
    # One pair here: it plays (beside the worker processes when there are several, each
    # with a pair of its own: play_in_processes), then shrinks and drafts the findings.
    # Starting it first reports an engine or reference that cannot start before any
    # worker is spawned.
    pairs: list[Pair] = []
    try:
        pairs.append(Pair(engine_argv, options, catalogue, env=env))
    except BaseException:
        for p in pairs:
            p.close()
        raise
    per_game: dict[int, list[Occurrence]] = {}
    interrupted: str | None = None
    #: Every pair's counters: the in-process pairs', then each worker process's.
    stats: list[PairStats] = []

    played = [0]
    #: The traces over which the engine and the reference agreed, by game (the kept games).
    agreed: dict[int, list[Trace]] = {}

    def record(game: int, outcome: Played) -> None:
        per_game[game] = outcome.found
        played[0] += outcome.steps
        if outcome.agreed:
            agreed[game] = outcome.agreed
        if progress is not None:
            found_so_far = sum(len(v) for v in per_game.values())
            progress(len(per_game), len(games), played[0], found_so_far)

    try:
        try:
            if workers == 1:
                for game in games:
                    if stop.is_set():
                        break
                    outcome = play_one(pairs[0], game, facts, stop)
                    if outcome is None:
                        break
                    record(game, outcome)
                    if not outcome.can_go_on:
                        stop.set()  # it cannot be restarted: keep what was played
            else:
                stats += play_in_processes(
                    pairs[0], engine_argv, options, catalogue, env, games, workers, stop, record
                )
        except KeyboardInterrupt as exc:
            # Ctrl-C, SIGTERM, SIGHUP (conformance/run/interrupt.py): stop the workers, keep
            # the games already played; nothing is shrunk or drafted.
            interrupted = str(exc) or "SIGINT"
            stop.set()
            for p in pairs:
                p.close()
        if interrupted is None and stop.is_set() and len(per_game) < len(games):
            interrupted = "stopped"  # the caller's stop event, or an adapter that died
        findings, information = split_information(
            group([o for g in sorted(per_game) for o in per_game[g]])
        )
        pair = pairs[0]
        try:
            _shrink_and_draft(pair, findings, options, catalogue, interrupted)
            if interrupted is None:
                explain_findings(
                    pair,
                    findings,
                    catalogue,
                    [t for g in sorted(agreed) for t in agreed[g]],
                    # Twice the campaign's own time so far: playing, shrinking, drafting.
                    budget=explanation_budget(time.monotonic() - started, cost),
                )
        except KeyboardInterrupt as exc:
            # A signal while shrinking: the findings keep what was drafted so far.
            interrupted = str(exc) or "SIGINT"
        every = [*stats, *(PairStats.of(p) for p in pairs)]
        result = FuzzResult(
            engine=pair.handshake.as_dict(),
            engine_argv=list(engine_argv),
            reference_argv=pair.reference_argv,
            rulings=dict(pair.rulings),
            options=options,
            games_played=len(per_game),
            steps=sum(s.steps for s in every),
            queries=sum(s.queries for s in every),
            compared=sum(s.compared for s in every),
            divergences=sum(len(v) for v in per_game.values()),
            findings=findings,
            information=information,
            interrupted=interrupted,
            warnings=sorted(set(w for s in every for w in s.warnings)),
            unsupported_ops=sorted(set(o for s in every for o in s.unsupported_ops)),
            inconsistent_ops=sorted(
                {o for s in every for o in s.answered_at} & {o for s in every for o in s.refused_at}
            ),
            events=dict(
                sorted(
                    (
                        sum((s.events for s in every), Counter())
                        + Counter(
                            {
                                f"ended early: {k}": v
                                for s in every
                                for k, v in s.ended_early.items()
                            }
                        )
                    ).items()
                )
            ),
        )
    finally:
        for p in pairs:
            p.close()
    result.seconds = time.monotonic() - started
    number_drafts(result.findings)
    return result


def _shrink_and_draft(
    pair: Pair,
    findings: Sequence[Finding],
    options: FuzzOptions,
    catalogue: Catalogue,
    interrupted: str | None,
) -> None:
    """Shrink each finding's example (unless told not to) and draft its scenario."""
    info = {
        "profile": options.profile,
        "rulings": pair.rulings,
        "seed": options.seed,
        "by_cards": pair.by_cards,
    }
    for finding in findings:
        if finding.divergence.op == "adapter" or interrupted is not None:
            continue  # a crash or hang, or an interrupted run: no answers to draft from
        as_found = finding.example
        if options.shrink:
            finding.example = shrink(pair, as_found)
            finding.shrunk = finding.example is not as_found
        try:
            finding.scenario = draft_of(pair, finding, info, catalogue)
            problems = draft_problems(finding.scenario, catalogue)
            if problems and finding.shrunk:
                # A shrunk state the harness's own check refuses (the check is not the
                # reference): draft the example as it was found instead.
                pair.warnings.append(
                    f"the shrunk draft for {finding.divergence.key} fails check "
                    f"({problems[0]}); the example as found is drafted"
                )
                finding.example, finding.shrunk = as_found, False
                finding.scenario = draft_of(pair, finding, info, catalogue)
        except (EngineError, InvalidRequest, KeyError) as exc:
            finding.scenario = None
            pair.warnings.append(f"no draft for {finding.divergence.key}: {exc}")


def group(occurrences: Iterable[Occurrence]) -> list[Finding]:
    """One finding per divergence key: a count, the games, and the smallest example."""
    by_key: dict[str, Finding] = {}
    seen: dict[str, list[Occurrence]] = {}
    for occ in occurrences:
        key = occ.divergence.key
        seen.setdefault(key, []).append(occ)
        finding = by_key.get(key)
        if finding is None:
            by_key[key] = Finding(occ.divergence, 1, [occ.game], occ)
            continue
        finding.count += 1
        finding.games.append(occ.game)
        if occ.trace.size() < finding.example.trace.size():
            finding.example = occ
    for key, finding in by_key.items():
        # The smallest first, as the example: the cheapest for a hint to replay.
        rest = sorted(
            (o for o in seen[key] if o is not finding.example), key=lambda o: o.trace.size()
        )
        finding.others = [o.trace for o in rest[:OTHER_OCCURRENCES]]
    return sorted(by_key.values(), key=lambda f: (f.divergence.rule, f.divergence.key))


def split_information(grouped: Sequence[Finding]) -> tuple[list[Finding], list[Finding]]:
    """The findings, and the differences that are information only: a ``reason order``,
    where the engine's reason is true of the state beside the reference's (docs/reasons.md
    leaves the choice to the engine), is never a finding."""
    findings = [f for f in grouped if f.divergence.kind != REASON_ORDER]
    return findings, [f for f in grouped if f.divergence.kind == REASON_ORDER]


def number_drafts(findings: Sequence[Finding]) -> None:
    """Give the drafts ids cc-8000, cc-8001, ... in finding order (docs/fuzzing.md)."""
    for i, finding in enumerate(findings):
        if finding.scenario is None:
            continue
        if FIRST_DRAFT_ID + i <= LAST_DRAFT_ID:
            finding.scenario["id"] = f"cc-{FIRST_DRAFT_ID + i:04d}"
        else:
            finding.scenario = None  # past the reserved range: the report keeps the trace
