"""Writing a file so that a reader never sees half of it, whatever kills the writer.

Every report, expectations file and recorded scenario is written here: to a temp file in
the same folder, then renamed over the target. Temp files a killed writer left behind
are swept up by the next writer of the same file.
"""

from __future__ import annotations

import contextlib
import glob
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path


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
