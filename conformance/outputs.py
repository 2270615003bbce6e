"""Output files and the terminal: checked before a run, written so nothing is lost.

``run`` writes up to three files (``--json``, ``--junit``, ``--write-expectations``).
:func:`check_output_paths` refuses a bad path before the first case runs, so a long
run never ends in a traceback; :func:`write_all` still writes every other file when
one write fails at the end, and says which failed and why. :func:`emit` prints text a
terminal or pipe cannot encode as escapes instead of dying on it.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO


class OutputPathError(ValueError):
    """An output path cannot be written: names the option, the path and why."""


def check_output_path(option: str, path: str) -> None:
    """Refuse ``path`` (given to ``option``) unless a file can be written there.

    The folder must exist, be a folder and be writable (tried with a real temp file,
    which also catches read-only file systems); the path must not name a folder.

    :raises OutputPathError: saying which of these failed.
    """
    target = Path(path)
    if path.endswith(os.sep) or target.is_dir():
        raise OutputPathError(f"{option} {path}: names a folder, not a file")
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.exists():
        raise OutputPathError(f"{option} {path}: folder {folder} does not exist")
    if not folder.is_dir():
        raise OutputPathError(f"{option} {path}: {folder} is not a folder")
    try:
        fd, probe = tempfile.mkstemp(prefix=f".{target.name}.probe.", dir=folder)
    except OSError as exc:
        raise OutputPathError(
            f"{option} {path}: cannot write in folder {folder}: {exc.strerror or exc}"
        ) from None
    os.close(fd)
    with contextlib.suppress(OSError):
        os.unlink(probe)


def check_output_paths(options: Sequence[tuple[str, str | None]]) -> None:
    """Check every given (option, path) pair; two options may not name one file.

    :raises OutputPathError: for the first bad path.
    """
    seen: dict[str, str] = {}
    for option, path in options:
        if path is None:
            continue
        check_output_path(option, path)
        key = os.path.realpath(path)
        if key in seen:
            raise OutputPathError(f"{seen[key]} and {option} both name {path}")
        seen[key] = option


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


__all__ = ["OutputPathError", "check_output_path", "check_output_paths", "emit", "write_all"]
