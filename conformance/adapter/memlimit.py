"""The adapter's memory cap: resident memory of its whole process group, watched by the harness.

Why resident memory, measured from outside, rather than an rlimit set in the child:

- ``RLIMIT_AS`` (address space) breaks honest engines: a JVM reserves its maximum heap
  and class space up front, V8 (Node) reserves a multi-GB pointer cage, Go reserves arenas,
  all untouched; a 2 GiB address-space limit stops them starting. ``RLIMIT_DATA`` has the
  same problem in milder forms and is per process, as is every rlimit: an adapter that
  forks gets a fresh allowance per child.
- Setting any limit in the child needs ``preexec_fn``, which is unsafe with threads (the
  workers) and makes every spawn a slow fork.
- A breach the harness finds itself is certain: no guessing from an exit code or a
  ``MemoryError`` in the stderr tail whether the limit was the cause.

So :class:`MemoryWatch` sums the resident set (``/proc/<pid>/stat``) of the processes in
the adapter's process group and the session kills the group and reports
:class:`~conformance.errors.EngineMemoryExceeded` when the sum passes the limit. It looks at
most every :data:`CHECK_EVERY` seconds, while an answer is awaited and between requests;
the members are found by a scan of ``/proc`` at most every :data:`DISCOVER_EVERY` seconds
and otherwise read directly (a few microseconds each). A fast allocator can overshoot by
what it allocates in one interval before it is stopped. Where ``/proc`` does not exist the
watch does nothing.

``--workers N`` runs N adapters, each with its own cap: up to N times the limit in all.
"""

from __future__ import annotations

import os
import re
import time
from typing import Final

from conformance.adapter.reaper import proc_stat

#: Default cap on an adapter's resident memory (its whole process group), in bytes.
DEFAULT_MEMORY_LIMIT: Final = 2 * 2**30
#: Seconds between two looks at the adapter's memory (at most).
CHECK_EVERY: Final = 0.1
#: Seconds between two scans of /proc for the members of the adapter's group (at most).
DISCOVER_EVERY: Final = 2.0

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
_UNITS: Final = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}
_SIZE = re.compile(r"(\d+(?:\.\d+)?)\s*([KMGT]?)(?:I?B)?", re.IGNORECASE)


def parse_size(text: str) -> int | None:
    """A memory limit from the command line: ``2G``, ``512M``, ``1.5GiB``, ``1048576``
    (bytes); ``0``, ``none`` or ``off``: no limit (None).

    :raises ValueError: for anything else, naming the text.
    """
    given = text.strip()
    if given.lower() in ("0", "none", "off"):
        return None
    match = _SIZE.fullmatch(given)
    if match is None:
        raise ValueError(f"not a memory size: {text!r} (e.g. 2G, 512M, or 0 for no limit)")
    size = int(float(match.group(1)) * _UNITS[match.group(2).upper()])
    if size <= 0:
        return None
    return size


def format_size(size: int) -> str:
    """``size`` bytes for a message: ``2 GiB``, ``512 MiB``, ``1.5 GiB``."""
    for unit, factor in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if size >= factor:
            return f"{size / factor:.1f}".removesuffix(".0") + f" {unit}"
    return f"{size} B"


def _stat(pid: int | str) -> tuple[int, int] | None:
    """(process group, resident bytes) of ``pid``; None once it is gone or a zombie."""
    fields = proc_stat(pid)
    if len(fields) < 22 or fields[0] == b"Z":
        return None
    return int(fields[2]), int(fields[21]) * _PAGE


def group_members(pgid: int) -> list[int]:
    """The live processes of process group ``pgid`` (a scan of /proc)."""
    members = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            found = _stat(entry)
            if found is not None and found[0] == pgid:
                members.append(int(entry))
    return members


class MemoryWatch:
    """The resident memory of one adapter's process group, against its limit."""

    def __init__(self, pgid: int, limit: int) -> None:
        self.pgid = pgid
        self.limit = limit
        #: The most the group was seen using, in bytes.
        self.peak = 0
        self._members = [pgid]
        self._next_check = 0.0
        # The first scan waits: a new adapter is usually one process for a while.
        self._next_discovery = time.monotonic() + CHECK_EVERY
        self._enabled = os.path.isdir("/proc")

    def over(self, now: float) -> int | None:
        """The group's resident bytes when they exceed the limit, else None.

        Looks only when :data:`CHECK_EVERY` has passed since the last look (``now`` is
        ``time.monotonic()``), so it may be called on every request.
        """
        if now < self._next_check or not self._enabled:
            return None
        self._next_check = now + CHECK_EVERY
        if now >= self._next_discovery:
            self._next_discovery = now + DISCOVER_EVERY
            self._members = group_members(self.pgid) or [self.pgid]
        used = 0
        for pid in self._members:
            found = _stat(pid)
            # A member that left (or a pid reused by another group) counts for nothing.
            if found is not None and found[0] == self.pgid:
                used += found[1]
        self.peak = max(self.peak, used)
        return used if used > self.limit else None


__all__ = [
    "CHECK_EVERY",
    "DEFAULT_MEMORY_LIMIT",
    "DISCOVER_EVERY",
    "MemoryWatch",
    "format_size",
    "group_members",
    "parse_size",
]
