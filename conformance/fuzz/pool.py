"""The worker pool: one game played on a pair (an engine crash is one finding and a
restart), and the games of a campaign shared among worker processes, each with its own
pair of adapters, their counters summed afterwards."""

from __future__ import annotations

import multiprocessing
import queue as queue_module
import threading
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from conformance.catalogue import Catalogue
from conformance.errors import EngineError
from conformance.profiles import ProfileData, find_profile

from .games import play_main
from .judge import filed
from .model import Divergence, FuzzOptions, Occurrence, Trace
from .pair import Pair
from .scenes import play_scene


def play_game(pair: Pair, game: int) -> tuple[list[Occurrence], int]:
    """Play one seeded game: queries, the main game, then one end-of-game or run-end scene
    (:func:`play_scene`, from a stream of its own, so the main games of a seed stay the
    same); return its divergences and steps played."""
    steps_before = pair.steps
    occurrences = play_main(pair, game)
    if pair.can_load or pair.can_deal:
        occurrences += play_scene(pair, game)
    return occurrences, pair.steps - steps_before


@dataclass
class PairStats:
    """What one pair of adapters counted over its games (summed into the report)."""

    steps: int = 0
    queries: int = 0
    events: Counter[str] = field(default_factory=Counter)
    ended_early: Counter[str] = field(default_factory=Counter)
    warnings: list[str] = field(default_factory=list)
    unsupported_ops: set[str] = field(default_factory=set)

    @classmethod
    def of(cls, pair: Pair) -> PairStats:
        """A copy of ``pair``'s counters."""
        return cls(
            pair.steps,
            pair.queries,
            Counter(pair.events),
            Counter(pair.ended_early),
            list(pair.warnings),
            set(pair.unsupported_ops),
        )


def play_one(
    pair: Pair, game: int, facts: ProfileData, stop: Any
) -> tuple[list[Occurrence], int, bool] | None:
    """Play ``game``: its occurrences (citing the profile's own rule IDs), its steps, and
    whether the pair can go on. An engine that fails mid-game is one finding and is
    restarted; None when the failure came from a stop (the adapters were closed)."""
    try:
        found, played = play_game(pair, game)
        can_go_on = True
    except EngineError as exc:
        if stop.is_set():
            return None  # the adapters were stopped: this game is not counted
        div = Divergence(
            "TURN-1",
            "adapter",
            "error",
            f"the engine failed: {type(exc).__name__}",
            [str(exc)[:300]],
        )
        found, played = [Occurrence(game, div, Trace({"op": "none"}), {})], 0
        try:
            pair.restart_engine()
            can_go_on = True
        except EngineError:
            can_go_on = False
    # A profile that states a rule its own way cites its own ID (CHILE-CARDS-1).
    return [in_profile(occ, facts, pair.catalogue) for occ in found], played, can_go_on


def play_in_processes(
    engine_argv: Sequence[str],
    options: FuzzOptions,
    catalogue: Catalogue,
    env: Mapping[str, str] | None,
    games: Sequence[int],
    workers: int,
    stop: threading.Event,
    record: Callable[[int, list[Occurrence], int], None],
) -> list[PairStats]:
    """Play ``games`` in ``workers`` processes, each with its own pair of adapters.

    Processes, not threads: the harness's own work per step (JSON, validation, comparing
    two states) is about half of a step and would hold one interpreter's lock. Each game is
    seeded by its index, so which process plays it does not change its findings.
    ``record`` receives each game's occurrences and steps as they arrive; the processes'
    counters are returned.
    """
    context = multiprocessing.get_context("spawn")  # no fork of a process with threads
    todo = context.Queue()
    results = context.Queue()
    halt = context.Event()
    for game in games:
        todo.put(game)
    for _ in range(workers):
        todo.put(None)
    args = (list(engine_argv), options, catalogue, dict(env) if env is not None else None)
    procs = [
        context.Process(target=_worker_process, args=(*args, todo, results, halt), daemon=True)
        for _ in range(workers)
    ]
    for proc in procs:
        proc.start()
    stats: list[PairStats] = []
    failures: list[str] = []
    finished = 0
    gone = False
    try:
        while finished < workers:
            if stop.is_set():
                halt.set()
            try:
                message = results.get(timeout=0.5)
            except queue_module.Empty:
                if gone:
                    break  # every worker was gone and all they sent has been read
                # A worker that exited has flushed its messages to the queue first: read
                # once more after seeing them all gone, so that none is lost.
                gone = not any(proc.is_alive() for proc in procs)
                continue
            kind = message[0]
            if kind == "game":
                record(message[1], message[2], message[3])
            elif kind == "done":
                stats.append(message[1])
                finished += 1
            elif kind == "failed":
                failures.append(message[1])
                finished += 1
            elif kind == "gave_up":
                stop.set()  # the engine cannot be restarted: keep what was played
                halt.set()
    finally:
        halt.set()
        for proc in procs:
            proc.join(timeout=10)
            if proc.is_alive():
                proc.kill()
                proc.join()
    if failures and not stats:
        raise EngineError(failures[0])
    return stats


def _worker_process(
    engine_argv: list[str],
    options: FuzzOptions,
    catalogue: Catalogue,
    env: dict[str, str] | None,
    todo: Any,
    results: Any,
    halt: Any,
) -> None:
    """One worker process of :func:`play_in_processes`: a pair plays games from ``todo``
    until it reads None or ``halt`` is set, sending each game's occurrences to ``results``
    and, at the end, its counters."""
    facts = find_profile(options.profile)
    try:
        pair = Pair(engine_argv, options, catalogue, env=env)
    except EngineError as exc:
        results.put(("failed", str(exc)))
        return
    try:
        while not halt.is_set():
            game = todo.get()
            if game is None:
                break
            outcome = play_one(pair, game, facts, halt)
            if outcome is None:
                break
            found, steps, can_go_on = outcome
            results.put(("game", game, found, steps))
            if not can_go_on:
                results.put(("gave_up",))
                break
    finally:
        pair.close()
        results.put(("done", PairStats.of(pair)))


def in_profile(occ: Occurrence, facts: ProfileData, catalogue: Catalogue) -> Occurrence:
    """``occ`` citing the rules that decide it as ``facts``' profile states them."""
    return replace(occ, divergence=filed(occ.divergence, facts, catalogue))
