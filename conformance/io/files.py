"""Writing a file so that a reader never sees half of it, whatever kills the writer.

Every report, expectations file and recorded scenario is written here: to a temp file in
the same folder, then renamed over the target. Temp files a killed writer left behind
are swept up by the next writer of the same file.

A target that exists and is not a regular file is never renamed over: a character device
(``/dev/null``, ``/dev/stdout``, ``/dev/full``) or a FIFO (``>(cat)``) is written through,
anything else (a folder, a block device, a socket) is refused with
:class:`NotARegularFile`. :func:`same_file` says when an output names one of a command's
inputs, which every command refuses before it reads anything.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import glob
import os
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path

from conformance.errors import HarnessError


class NotARegularFile(HarnessError, ValueError):
    """An output that exists and can be neither written through (a character device, a
    FIFO being read) nor replaced: a folder, a block device, a socket, a FIFO nothing
    reads. The message names the path and what it is."""


def file_kind(mode: int) -> str:
    """What a ``st_mode`` names, in words (``a FIFO``, ``a character device``…)."""
    for test, name in (
        (stat.S_ISREG, "a regular file"),
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def writes_through(path: Path | str) -> bool | None:
    """How :func:`atomic_write_text` treats ``path``: False for a regular file or nothing
    (temp file and rename), True for a character device or FIFO (written through), None
    for what it refuses (a folder, a block device, a socket)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    if stat.S_ISREG(mode):
        return False
    if stat.S_ISCHR(mode) or stat.S_ISFIFO(mode):
        return True
    return None


def same_file(one: Path | str, other: Path | str) -> bool:
    """True when the paths name one file: the same inode when both exist (a hard link, a
    symlink, ``./a`` and ``a``), else the same resolved path."""
    with contextlib.suppress(OSError):
        return os.path.samefile(one, other)
    return os.path.realpath(one) == os.path.realpath(other)


def _umask() -> int:
    """The process's umask, read without changing it where the platform allows."""
    with contextlib.suppress(OSError, ValueError), open("/proc/self/status") as status:
        for line in status:
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_stale_temp_files(target: Path) -> list[Path]:
    """Delete temp files an earlier writer of ``target`` left behind (killed with -9).

    Temp files are named ``.<name>.<pid>.<random>.tmp``; one whose writer process is
    gone is stale. A live writer's file (another run writing the same report) is left.
    Returns what was removed.
    """
    directory = target.parent if str(target.parent) else Path(".")
    removed: list[Path] = []
    with contextlib.suppress(OSError):
        for candidate in directory.glob(f".{glob.escape(target.name)}.*.tmp"):
            parts = candidate.name[len(target.name) + 2 :].split(".")
            if len(parts) == 3 and parts[0].isdigit() and not _pid_alive(int(parts[0])):
                with contextlib.suppress(OSError):
                    candidate.unlink()
                    removed.append(candidate)
    return removed


def atomic_write_text(path: Path | str, text: str | Iterable[str]) -> None:
    """Write ``text`` (a string, or its pieces in order: a large report is then never held
    whole) to ``path`` atomically: temp file in the same directory + os.replace.

    The file gets the mode the user's umask gives any new file (not mkstemp's 0600).
    Characters UTF-8 cannot encode (a lone surrogate that reached here from a scenario
    file) are written as backslash escapes rather than losing the report.
    """
    target = Path(path)
    through = writes_through(target)
    if through is None:
        kind = file_kind(os.stat(target).st_mode)
        raise NotARegularFile(f"{target} is {kind}, not a file: nothing written")
    if through:
        _write_through(target, text)
        return
    directory = target.parent if str(target.parent) else Path(".")
    remove_stale_temp_files(target)
    fd, tmp = tempfile.mkstemp(
        prefix=f".{target.name}.{os.getpid()}.", suffix=".tmp", dir=directory
    )
    try:
        with os.fdopen(
            fd, "w", encoding="utf-8", errors="backslashreplace", newline="\n"
        ) as handle:
            if isinstance(text, str):
                handle.write(text)
            else:
                handle.writelines(text)
            handle.flush()
            os.fchmod(handle.fileno(), 0o666 & ~_umask())
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        # Leave no stray temp file behind, whatever went wrong.
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _write_through(target: Path, text: str | Iterable[str]) -> None:
    """Write ``text`` into the character device or FIFO ``target`` (never renamed over:
    as root, a rename would replace ``/dev/full`` by a regular file). A FIFO is opened
    without waiting: one that nothing reads is refused, not a run that hangs at its end.
    A device that refuses the bytes (``/dev/full``) is an ``OSError`` of the write."""
    is_fifo = stat.S_ISFIFO(os.stat(target).st_mode)
    flags = os.O_WRONLY | os.O_NOCTTY | (os.O_NONBLOCK if is_fifo else 0)
    try:
        fd = os.open(target, flags)
    except OSError as exc:
        if exc.errno == errno.ENXIO:
            raise NotARegularFile(
                f"{target} is a FIFO that nothing reads: nothing written"
            ) from None
        raise
    if is_fifo:
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
    with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace", newline="\n") as out:
        if isinstance(text, str):
            out.write(text)
        else:
            out.writelines(text)
