"""Ctrl-C, SIGTERM and SIGHUP: stop the run, reap the adapters, keep what was graded.

CI runners and ``timeout`` send SIGTERM; a closed terminal sends SIGHUP. While
:func:`interruptible` is active each of them, the first time, refuses new adapters
(:func:`conformance.adapter.engine.refuse_new_sessions`) and raises in the main thread:
``KeyboardInterrupt`` for SIGINT, :class:`Terminated` (a ``KeyboardInterrupt``) for the
others, so one ``except KeyboardInterrupt`` handles all three. Later signals are
ignored while the harness cleans up: the cleanup is bounded (a few seconds) and
cutting it short would leave adapters running. Once the caller has called
:meth:`Signals.defer` (the reports are being written) a first signal is only
recorded, and the caller exits with its code after the files are safe.

Exit codes follow the shell's convention, 128 + the signal number: 130 (SIGINT),
143 (SIGTERM), 129 (SIGHUP).
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from types import FrameType
from typing import Any

from conformance.adapter.engine import refuse_new_sessions
from conformance.knowledge.catalogue import Catalogue
from conformance.run.runner import CaseResult, RunOptions, RunResult, count_statuses, not_run_result
from conformance.scenarios import Scenario, corpus_digest

#: The signals handled like Ctrl-C (those that exist on this platform).
SIGNALS: tuple[signal.Signals, ...] = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)


class Terminated(KeyboardInterrupt):
    """The harness received SIGTERM or SIGHUP."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def exit_code(exc: KeyboardInterrupt) -> int:
    """128 + the signal number: 130 for Ctrl-C, 143 for SIGTERM, 129 for SIGHUP."""
    return 128 + (exc.signum if isinstance(exc, Terminated) else signal.SIGINT)


def signal_name(exc: KeyboardInterrupt) -> str:
    """``SIGTERM``, ``SIGHUP`` or ``SIGINT`` (Ctrl-C)."""
    return signal.Signals(exc.signum).name if isinstance(exc, Terminated) else "SIGINT"


class Signals:
    """What :func:`interruptible` saw, and whether a signal should raise or wait."""

    def __init__(self) -> None:
        #: The first signal received (a number), None while none came.
        self.received: int | None = None
        self.deferred = False

    def defer(self) -> None:
        """From now on a signal is recorded, not raised: reports are being written.

        The caller ends with :meth:`exit_code` once its files are safe.
        """
        self.deferred = True

    def exit_code(self) -> int | None:
        """128 + the signal received, None when none came."""
        return None if self.received is None else 128 + self.received

    def name(self) -> str:
        """The name of the signal received (``SIGTERM``), or an empty string."""
        return signal.Signals(self.received).name if self.received is not None else ""


@contextmanager
def interruptible(on_signal: Callable[[], None] | None = None) -> Iterator[Signals]:
    """Handle SIGINT, SIGTERM and SIGHUP as described above, then restore the old handlers.

    ``on_signal`` runs in the handler first (it must take no lock the main thread may
    hold). Outside the main thread (where handlers cannot be set) it does nothing.
    """
    state = Signals()
    if threading.current_thread() is not threading.main_thread():
        yield state
        return

    def handler(signum: int, frame: FrameType | None) -> None:
        if state.received is not None:
            return
        state.received = signum
        refuse_new_sessions()
        if on_signal is not None:
            on_signal()
        if state.deferred:
            return
        if signum == signal.SIGINT:
            raise KeyboardInterrupt
        raise Terminated(signum)

    previous: dict[signal.Signals, Any] = {}
    for sig in SIGNALS:
        previous[sig] = signal.signal(sig, handler)
    try:
        yield state
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)
        refuse_new_sessions(False)


class Collector:
    """A progress callback that keeps every result graded before an interruption.

    Wraps the run's progress display. Once :meth:`freeze` is called (by the signal
    handler) later results are ignored: a case that met the interruption was not
    graded, whatever its worker reported when its adapter was killed.
    """

    def __init__(self, progress: Callable[[int, int, CaseResult], None] | None = None) -> None:
        self._progress = progress
        self._lock = threading.Lock()
        self._frozen = False
        self.results: dict[str, CaseResult] = {}

    def __call__(self, done: int, total: int, result: CaseResult) -> None:
        """Keep ``result`` (unless frozen) and pass it on to the progress display."""
        with self._lock:
            if self._frozen:
                return
            self.results[result.id] = result
        if self._progress is not None:
            self._progress(done, total, result)

    def freeze(self) -> None:
        """Ignore every result from now on.

        Called from the signal handler, so it takes no lock: the handler runs in the
        main thread, which may be inside :meth:`__call__` holding it. A plain assignment
        is atomic; a worker that read the flag just before only stores a result graded
        before the signal.
        """
        self._frozen = True

    def partial_run(
        self,
        argv: Sequence[str],
        scenarios: Sequence[Scenario],
        options: RunOptions,
        why: str,
        started: float,
        catalogue: Catalogue | None = None,
    ) -> RunResult:
        """The run as far as it got: graded cases, the rest ``not_run`` saying ``why``."""
        self.freeze()
        results = [
            self.results.get(s.id) or not_run_result(s, catalogue, f"not run: {why}")
            for s in scenarios
        ]
        graded = sum(s.id in self.results for s in scenarios)
        return RunResult(
            argv=tuple(argv),
            profile=options.profile,
            handshake=None,
            results=tuple(results),
            started=started,
            duration=time.time() - started,
            counts=count_statuses(results),
            corpus_digest=corpus_digest(scenarios),
            warnings=(f"{why}: {graded} of {len(scenarios)} case(s) graded",),
        )


__all__ = [
    "SIGNALS",
    "Collector",
    "Signals",
    "Terminated",
    "exit_code",
    "interruptible",
    "signal_name",
]
