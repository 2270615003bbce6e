"""The worker pool: one game played on a pair (an engine crash is one finding and a
restart), and the games of a campaign shared among worker processes, each with its own
pair of adapters, their counters summed afterwards."""

from __future__ import annotations

import contextlib
import multiprocessing
import signal
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from types import FrameType
from typing import Any, Final, cast

from conformance.errors import EngineError, InvalidRequest
from conformance.knowledge.catalogue import Catalogue
from conformance.knowledge.profiles import ProfileData, find_profile

from .games import play_main
from .judge import filed
from .model import Divergence, FuzzOptions, Occurrence, Trace, game_indices
from .pair import Pair
from .probes import play_probes
from .scenes import play_scene


def play_game(pair: Pair, game: int) -> tuple[list[Occurrence], int]:
    """Play one seeded game: queries, the main game, then one end-of-game or run-end scene
    (:func:`play_scene`) and the contract probes (:func:`play_probes`), each from a stream
    of its own, so the main games of a seed stay the same; return its divergences and
    steps played."""
    steps_before = pair.steps
    occurrences = play_main(pair, game)
    if pair.can_load or pair.can_deal:
        occurrences += play_scene(pair, game)
    occurrences += play_probes(pair, game)
    return occurrences, pair.steps - steps_before


@dataclass
class PairStats:
    """What one pair of adapters counted over its games (summed into the report)."""

    steps: int = 0
    queries: int = 0
    compared: int = 0
    events: Counter[str] = field(default_factory=Counter)
    ended_early: Counter[str] = field(default_factory=Counter)
    warnings: list[str] = field(default_factory=list)
    unsupported_ops: set[str] = field(default_factory=set)
    answered_at: set[str] = field(default_factory=set)
    refused_at: set[str] = field(default_factory=set)

    @classmethod
    def of(cls, pair: Pair) -> PairStats:
        """A copy of ``pair``'s counters."""
        return cls(
            pair.steps,
            pair.queries,
            pair.compared,
            Counter(pair.events),
            Counter(pair.ended_early),
            list(pair.warnings),
            set(pair.unsupported_ops),
            set(pair.answered_at),
            set(pair.refused_at),
        )


#: The first this many games of a campaign (in game order) keep the traces over which the
#: engine and the reference agreed: what a hint is proved not to break
#: (conformance/fuzz/explain.py). A game's traces are its queries, its main game, scene and
#: probes (at most a few hundred steps), so the memory kept is bounded.
AGREED_GAMES: Final = 8


def kept_games(options: FuzzOptions) -> frozenset[int]:
    """The games whose agreed traces are kept (:data:`AGREED_GAMES`): the same whoever
    plays them, so the explanations do not depend on the number of workers."""
    if options.only_games:
        return frozenset(game_indices(options)[:AGREED_GAMES])
    # The shard's share without listing it: asked once a game, of campaigns of any size.
    i, n = options.shard
    return frozenset(range(i - 1, options.games, n)[:AGREED_GAMES])


@dataclass
class Played:
    """One game's outcome on a pair: :func:`play_one`."""

    found: list[Occurrence]
    steps: int
    can_go_on: bool
    #: The traces over which the engine and the reference agreed (a kept game only).
    agreed: list[Trace] = field(default_factory=list)


def play_one(pair: Pair, game: int, facts: ProfileData, stop: Any) -> Played | None:
    """Play ``game``: its occurrences (citing the profile's own rule IDs), its steps,
    whether the pair can go on, and its agreed traces if it is one of :func:`kept_games`.
    An engine that fails mid-game is one finding and is restarted; None when the failure
    came from a stop (the adapters were closed)."""
    pair.agreed = [] if game in kept_games(pair.options) else None
    try:
        found, played = play_game(pair, game)
        can_go_on = True
    except InvalidRequest as exc:
        # The harness's own mistake, not the engine's: said, and the game not counted.
        pair.warnings.append(
            f"game {game}: the harness built a request outside the protocol: {exc}"
        )
        pair.agreed = None
        return Played([], 0, True)
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
    agreed, pair.agreed = pair.agreed or [], None
    # A profile that states a rule its own way cites its own ID (CHILE-CARDS-1).
    found = [in_profile(occ, facts, pair.catalogue) for occ in found]
    return Played(found, played, can_go_on, agreed)


#: Seconds the workers get, once a campaign is stopped, to finish the game under way
#: before they are told to end (SIGTERM): their adapters are then closed at once.
STOP_GRACE: Final = 2.0
#: Seconds a worker told to end gets to close its adapters before it is killed.
END_GRACE: Final = 5.0
#: Games handed to a worker ahead of its results, so it never waits for the next one
#: while the main process is playing a game of its own.
AHEAD: Final = 2


def play_in_processes(
    pair: Pair,
    engine_argv: Sequence[str],
    options: FuzzOptions,
    catalogue: Catalogue,
    env: Mapping[str, str] | None,
    games: Sequence[int],
    workers: int,
    stop: threading.Event,
    record: Callable[[int, Played], None],
) -> list[PairStats]:
    """Play ``games`` with ``workers`` pairs of adapters: ``pair`` in this process and one
    in each of ``workers - 1`` worker processes.

    Processes, not threads: the harness's own work per step (JSON, validation, comparing
    two states) is about half of a step and would hold one interpreter's lock. This
    process plays too, so a campaign starts playing at once and starts one process fewer.
    Each game is seeded by its index, so who plays it does not change its findings.
    ``record`` receives each game's outcome (:class:`Played`) as it arrives; the worker
    processes' counters are returned (``pair`` keeps its own).

    Each worker has a pipe of its own and is handed :data:`AHEAD` games ahead: no queue,
    lock or semaphore is shared, so nothing needs multiprocessing's resource tracker, and a
    worker that dies leaves no lock held. Once ``stop`` is set (or a signal interrupts the
    main thread) no game is handed out; the workers get :data:`STOP_GRACE` seconds to
    finish the games they hold, then SIGTERM, which closes their adapters (a hung adapter
    included), and :data:`END_GRACE` seconds more before they are killed.
    """
    facts = find_profile(options.profile)
    context = multiprocessing.get_context("spawn")  # no fork of a process with threads
    todo = list(reversed(games))
    args = (list(engine_argv), options, catalogue, dict(env) if env is not None else None)
    links: dict[Connection, BaseProcess] = {}
    for _ in range(workers - 1):
        mine, theirs = context.Pipe()
        proc = context.Process(target=worker_process, args=(*args, theirs), daemon=True)
        _start_deaf_to_ctrl_c(proc)
        theirs.close()  # the worker's end lives in the worker only: EOF when it is gone
        links[mine] = proc
    stats: list[PairStats] = []
    failures: list[str] = []
    died: list[Connection] = []
    open_links = dict(links)
    held: dict[Connection, int] = dict.fromkeys(links, 0)
    told_to_end: set[Connection] = set()

    def hand_out(link: Connection) -> None:
        """Keep ``link``'s worker :data:`AHEAD` games ahead; None once there is no more."""
        try:
            while held[link] < AHEAD and todo and not stop.is_set():
                link.send(todo.pop())
                held[link] += 1
            if held[link] == 0 and link not in told_to_end and (not todo or stop.is_set()):
                link.send(None)
                told_to_end.add(link)
        except OSError:
            open_links.pop(link, None)  # the worker is gone; its EOF is read below

    def read(timeout: float) -> None:
        """Handle what the workers sent (waiting up to ``timeout`` for the first)."""
        for ready in wait(list(open_links), timeout=timeout):
            link = cast(Connection, ready)
            try:
                message = link.recv()
            except (EOFError, OSError):
                # It died (killed, out of memory): the games it held are lost.
                open_links.pop(link, None)
                died.append(link)
                continue
            kind = message[0]
            if kind == "game":
                held[link] -= 1
                record(message[1], message[2])
                hand_out(link)
            elif kind == "done":
                stats.append(message[1])
                open_links.pop(link, None)
            elif kind == "failed":
                failures.append(message[1])
                open_links.pop(link, None)
            elif kind == "gave_up":
                stop.set()  # the engine cannot be restarted: keep what was played

    try:
        for link in list(open_links):
            hand_out(link)
        while todo and not stop.is_set():
            read(0.0)
            if not todo or stop.is_set():
                break
            game = todo.pop()
            outcome = play_one(pair, game, facts, stop)
            if outcome is None:
                break
            record(game, outcome)
            if not outcome.can_go_on:
                stop.set()  # it cannot be restarted: keep what was played
        stopped_at: float | None = None
        for link in list(open_links):
            hand_out(link)  # None to the idle ones: there is no more
        while open_links:
            if stop.is_set() and stopped_at is None:
                stopped_at = time.monotonic()
                for link in list(open_links):
                    hand_out(link)
            if stopped_at is not None and time.monotonic() - stopped_at > STOP_GRACE:
                break  # the workers still playing are ended below
            read(0.5)
    finally:
        _end_workers(links)
    if failures and not stats and links:
        raise EngineError(failures[0])
    if died and not stop.is_set():
        codes = ", ".join(str(links[link].exitcode) for link in died)
        note = f"{len(died)} worker process(es) ended early (exit {codes}): games were lost"
        stats.append(PairStats(warnings=[note]))
    return stats


def _deaf(signum: int, frame: FrameType | None) -> None:
    """A worker's SIGINT: nothing (the main process decides when the workers end)."""


def _start_deaf_to_ctrl_c(proc: BaseProcess) -> None:
    """Start ``proc`` ignoring SIGINT, which it inherits through exec: a terminal's Ctrl-C
    reaches the whole process group, and a worker still importing its modules would
    otherwise die of it with a traceback. (A Ctrl-C in the few milliseconds of the start
    itself is ignored by this process too; handlers can only be set in the main thread.)"""
    if threading.current_thread() is not threading.main_thread():
        proc.start()
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        proc.start()
    finally:
        signal.signal(signal.SIGINT, previous)


def _end_workers(links: Mapping[Connection, BaseProcess]) -> None:
    """Tell every worker still running to end (SIGTERM: it closes its adapters), wait a
    bounded time, then kill what is left; close the pipes."""
    for link in links:
        with contextlib.suppress(OSError):
            link.send(None)
    deadline = time.monotonic() + 1.0
    for proc in links.values():
        proc.join(timeout=max(0.0, deadline - time.monotonic()))
    for proc in links.values():
        if proc.is_alive():
            proc.terminate()
    deadline = time.monotonic() + END_GRACE
    for proc in links.values():
        proc.join(timeout=max(0.0, deadline - time.monotonic()))
        if proc.is_alive():
            proc.kill()
            proc.join()
    for link in links:
        link.close()


def worker_process(
    engine_argv: list[str],
    options: FuzzOptions,
    catalogue: Catalogue,
    env: dict[str, str] | None,
    link: Connection,
) -> None:
    """One worker process of :func:`play_in_processes`: a pair plays the games it is
    handed on ``link`` until it is handed None, sending each game's occurrences back and,
    at the end, its counters.

    Ctrl-C reaches the whole foreground process group, workers included: they ignore it
    and let the main process decide (it sends None, then SIGTERM). SIGTERM ends the game
    under way at once and closes the pair's adapters, however they hang.
    """

    def ended(signum: int, frame: FrameType | None) -> None:
        raise SystemExit(128 + signum)

    # A handler that does nothing, not SIG_IGN (ignored since the worker was started): the
    # adapters this worker starts get the default back at exec.
    signal.signal(signal.SIGINT, _deaf)
    signal.signal(signal.SIGTERM, ended)
    facts = find_profile(options.profile)
    never = threading.Event()
    pair: Pair | None = None
    try:
        try:
            pair = Pair(engine_argv, options, catalogue, env=env)
        except EngineError as exc:
            link.send(("failed", str(exc)))
            return
        while True:
            game = link.recv()
            if game is None:
                break
            outcome = play_one(pair, game, facts, never)
            if outcome is None:
                break
            link.send(("game", game, outcome))
            if not outcome.can_go_on:
                link.send(("gave_up",))
                break
        link.send(("done", PairStats.of(pair)))
    except (EOFError, OSError):
        pass  # the main process has gone: nothing to report to
    finally:
        if pair is not None:
            pair.close()
        link.close()


def in_profile(occ: Occurrence, facts: ProfileData, catalogue: Catalogue) -> Occurrence:
    """``occ`` citing the rules that decide it as ``facts``' profile states them."""
    return replace(occ, divergence=filed(occ.divergence, facts, catalogue))
