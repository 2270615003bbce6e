"""Output files and the terminal: checked before a run, written so nothing is lost.

``run`` writes up to four files (``--json``, ``--junit``, ``--html``,
``--write-expectations``): :class:`RunFiles`. :func:`check_output_paths` refuses a bad path
before the first case runs, so a long run never ends in a traceback;
:func:`write_run_reports` (through :func:`write_all`) still writes every other file when
one write fails at the end, and says which failed and why. :func:`emit` prints text a
terminal or pipe cannot encode as escapes instead of dying on it.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING

from conformance.errors import HarnessError

if TYPE_CHECKING:
    from conformance.grading.results import RunResult
    from conformance.knowledge.catalogue import Catalogue
    from conformance.run.expectations import Expectations


class OutputPathError(HarnessError, ValueError):
    """An output path cannot be written: names the option, the path and why."""


def check_output_path(option: str, path: str) -> None:
    """Refuse ``path`` (given to ``option``) unless a file can be written there.

    The folder must exist, be a folder and be writable (tried with a real temp file,
    which also catches read-only file systems); the path must not name a folder. A
    character device or FIFO that exists (``/dev/null``, ``>(cat)``) is written through,
    never replaced (conformance/io/files.py): it must be writable; a block device or a
    socket is refused.

    :raises OutputPathError: saying which of these failed.
    """
    from conformance.io.files import file_kind, writes_through

    target = Path(path)
    if path.endswith(os.sep) or target.is_dir():
        raise OutputPathError(f"{option} {path}: names a folder, not a file")
    through = writes_through(target)
    if through is None:
        kind = file_kind(os.stat(target).st_mode)
        raise OutputPathError(f"{option} {path}: is {kind}, which no report can be written to")
    if through:
        if not os.access(target, os.W_OK):
            raise OutputPathError(f"{option} {path}: cannot be written (permission denied)")
        return
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.exists():
        raise OutputPathError(f"{option} {path}: folder {folder} does not exist")
    if not folder.is_dir():
        raise OutputPathError(f"{option} {path}: {folder} is not a folder")
    import tempfile  # here: check, which writes no file, starts without it (and random)

    try:
        fd, probe = tempfile.mkstemp(prefix=f".{target.name}.probe.", dir=folder)
    except OSError as exc:
        raise OutputPathError(
            f"{option} {path}: cannot write in folder {folder}: {exc.strerror or exc}"
        ) from None
    os.close(fd)
    with contextlib.suppress(OSError):
        os.unlink(probe)


def check_output_paths(
    options: Sequence[tuple[str, str | None]],
    inputs: Sequence[tuple[str, str | None]] = (),
    *,
    rewrites: Sequence[tuple[str, str]] = (),
) -> None:
    """Check every given (option, path) pair; two options may not name one file, and no
    output may name one of the command's ``inputs`` (option, path): a report written over
    the expectations file or the report it was read from would lose the user's file.
    ``rewrites``: the (output option, input option) pairs that may name one file on
    purpose (``--write-expectations E`` rewriting ``--expectations E``).

    :raises OutputPathError: for the first bad path.
    """
    from conformance.io.files import same_file, writes_through

    seen: dict[str, str] = {}
    for option, path in options:
        if path is None:
            continue
        check_output_path(option, path)
        key = os.path.realpath(path)
        if key in seen and not writes_through(path):
            raise OutputPathError(f"{seen[key]} and {option} both name {path}")
        seen[key] = option
        for source, given in inputs:
            if given is None or (option, source) in rewrites or writes_through(path):
                continue
            if same_file(path, given) or _inside_corpus(path, given):
                raise OutputPathError(
                    f"{option} {path}: is the {source} input {given}, which writing it would "
                    "overwrite: write the output elsewhere"
                )


def _inside_corpus(path: str, given: str) -> bool:
    """True when ``given`` is a folder of scenario files and ``path`` an existing YAML file
    under it (an output written there would replace a scenario)."""
    if not os.path.isdir(given) or not os.path.isfile(path):
        return False
    if not path.endswith((".yaml", ".yml")):
        return False
    folder = os.path.realpath(given)
    return os.path.realpath(path).startswith(folder.rstrip(os.sep) + os.sep)


def write_all(jobs: Sequence[tuple[str, str, Callable[[], object]]]) -> list[str]:
    """Run each (option, path, write) job; a failing write does not stop the others.

    Returns one message per failed write, naming the option, the path and the reason.
    """
    failures: list[str] = []
    for option, path, write in jobs:
        try:
            write()
        except (OSError, UnicodeError, ValueError) as exc:
            reason = getattr(exc, "strerror", None) or str(exc)
            failures.append(f"could not write {option} {path}: {reason}")
    return failures


@dataclass(frozen=True)
class RunFiles:
    """Where a run's reports go (None: not written), named by their ``run`` options."""

    json: str | None = None
    junit: str | None = None
    html: str | None = None
    write_expectations: str | None = None
    #: ``--by-cause``: the expectations file lists one entry per root cause.
    by_cause: bool = False

    def options(self) -> list[tuple[str, str | None]]:
        """(option, path) pairs, for :func:`check_output_paths`."""
        return [
            ("--json", self.json),
            ("--junit", self.junit),
            ("--write-expectations", self.write_expectations),
            ("--html", self.html),
        ]


@dataclass
class Written:
    """What :func:`write_run_reports` did."""

    #: One message per file that could not be written (option, path, reason).
    failures: list[str] = field(default_factory=list)
    #: How many expected failures ``write_expectations`` holds (None: not asked for).
    expected_failures: int | None = None
    #: Why the expectations file asked for was not written, when it was not.
    not_written: str | None = None


def write_run_reports(
    run: RunResult,
    catalogue: Catalogue | None,
    files: RunFiles,
    *,
    strict: bool = False,
    expectations: Expectations | None = None,
    interrupted: str | None = None,
) -> Written:
    """Write every report of ``files`` for ``run``; a failing write does not stop the others.

    ``strict`` marks an xpass as a failure in JUnit; ``expectations`` (the file the run
    read) keeps its reasons in a rewritten expectations file, written one entry per root
    cause when ``files.by_cause``. A run whose adapter never
    started has no expectations file written: it holds no failure to expect; nor has a run
    ``interrupted`` (the signal's name): a file written from part of a run would drop the
    entries of every case it did not reach (``Written.not_written`` says why).
    """
    from conformance.reports.causes import causes_of
    from conformance.reports.report import cause_names, write_json_report, write_junit_report
    from conformance.run.expectations import write_expectations

    written = Written()

    def expected(path: str) -> None:
        written.expected_failures = write_expectations(
            path,
            run.results,
            expectations,
            cause_names(run),
            by_cause=causes_of(run) if files.by_cause else None,
        )

    def html(path: str) -> None:
        # The page's module is imported only when a page is asked for.
        from conformance.reports.html_report import write_html_report

        write_html_report(path, run, catalogue)

    writers: list[tuple[str, str | None, Callable[[str], object]]] = [
        ("--json", files.json, lambda path: write_json_report(path, run, catalogue)),
        (
            "--junit",
            files.junit,
            lambda path: write_junit_report(path, run, catalogue, strict=strict),
        ),
        ("--html", files.html, html),
    ]
    if run.run_error is None and interrupted is None:
        writers.append(("--write-expectations", files.write_expectations, expected))
    elif interrupted is not None and files.write_expectations is not None:
        written.not_written = (
            f"not written: --write-expectations {files.write_expectations}: the run was "
            f"interrupted ({interrupted}), and a file written from part of a run would drop "
            "the entries of the cases it did not reach (the file is as it was)"
        )
    jobs = [
        (option, path, functools.partial(write, path))
        for option, path, write in writers
        if path is not None
    ]
    written.failures = write_all(jobs)
    return written


def emit(text: str, stream: IO[str] | None = None) -> None:
    """Write ``text`` to ``stream`` (stdout), escaping what its encoding cannot hold.

    A closed or broken stream (``| head``) is not an error worth losing a run over.
    """
    out = stream if stream is not None else sys.stdout
    try:
        out.write(text)
    except UnicodeEncodeError:
        encoding = getattr(out, "encoding", None) or "utf-8"
        with contextlib.suppress(OSError, ValueError):
            out.write(text.encode(encoding, "backslashreplace").decode(encoding))
    except (OSError, ValueError):
        return
    with contextlib.suppress(OSError, ValueError):
        out.flush()


__all__ = [
    "OutputPathError",
    "RunFiles",
    "Written",
    "check_output_path",
    "check_output_paths",
    "emit",
    "write_all",
    "write_run_reports",
]
