"""What many tests share about adapters: the reference adapter's command, the fake
adapters' folder, and the reference served in-process.

``reference_in_process()`` (or the ``reference_in_process`` fixture of tests/conftest.py)
answers every session started with the reference adapter's command
(:data:`REFERENCE` and its options) from the reference engine in the test's own process
(conformance/adapter/inprocess.py): the same request and answer lines through the harness's
own encoding and checks, without a Python start-up and the engine's imports per session. A
test of what a process does (a crash, a hang, memory, pipes, signals, the command line run
as a program) keeps the real process: it does not ask for this.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from collections.abc import Iterator, Mapping, Sequence

from conformance.adapter.inprocess import LineEngine, serve_in_process
from reference.adapter import TRACE_ENV, answer_line
from reference.adapter_cli import adapter_from_args
from tests.paths import FAKE_ADAPTERS, ROOT

#: The reference adapter's command (options follow it).
REFERENCE = [sys.executable, "-m", "reference.adapter"]


def is_reference(argv: Sequence[str], env: Mapping[str, str] | None) -> bool:
    """Whether ``argv`` runs the reference adapter, untraced (a rule trace is kept in a
    module-level record, which sessions on several threads of one process would share)."""
    environ = os.environ if env is None else env
    return (
        list(argv[: len(REFERENCE)]) == REFERENCE
        and "--trace-rules" not in argv
        and not environ.get(TRACE_ENV)
    )


def reference_engine(
    argv: Sequence[str],
    env: Mapping[str, str] | None,
    cwd: str | None,
    stderr: io.StringIO,
) -> LineEngine:
    """The reference adapter ``argv`` asks for, answering lines as its process would.

    :raises SystemExit: (2) for options its command line refuses.
    """
    del env, cwd, stderr  # untraced (is_reference); it reads no file relative to cwd
    adapter = adapter_from_args(list(argv[len(REFERENCE) :]))
    done = False

    def engine(line: bytes) -> bytes:
        nonlocal done
        if done:
            raise SystemExit(0)  # after bye the process has exited
        text = line.decode("utf-8", errors="replace")
        if not text.strip():
            return b""
        answer, done = answer_line(adapter, text)
        return answer.encode("utf-8")

    return engine


@contextlib.contextmanager
def reference_in_process() -> Iterator[None]:
    """Serve the reference adapter's command in-process while in the ``with`` block."""
    with serve_in_process(is_reference, reference_engine):
        yield


__all__ = [
    "FAKE_ADAPTERS",
    "REFERENCE",
    "ROOT",
    "is_reference",
    "reference_engine",
    "reference_in_process",
]
