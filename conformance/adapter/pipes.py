"""The adapter's two output pipes: stdout split into bounded lines, stderr drained to a tail.

- stdout is read on the calling thread, non-blocking, one bounded line at a time and only
  while an answer is awaited (no reader thread: handing each line from a thread to the
  caller cost a tenth of a run); a line longer than the limit is reported as soon as the
  limit is crossed and never held in memory;
- stderr is drained by another thread into a bounded ring buffer, so an engine that floods
  it neither blocks on a full pipe nor eats memory, and its tail is attached to errors.
"""

from __future__ import annotations

import collections
import math
import os
import select
import threading
import time
from dataclasses import dataclass
from typing import Final, Protocol

from conformance.io.textsafe import safe_tail

#: Bytes of stderr kept (the tail); older output is dropped.
STDERR_KEEP: Final = 64 * 1024
#: Most bytes of stderr read on the spot before a tail is taken (see StderrDrain.catch_up).
STDERR_CATCH_UP: Final = 1024 * 1024
#: Bytes read from a pipe at a time.
READ_CHUNK: Final = 64 * 1024


# Items the stdout reader hands out besides complete lines.
@dataclass(frozen=True)
class Oversized:
    seen: int  # bytes of the line read when the limit was crossed


@dataclass(frozen=True)
class Unterminated:
    data: bytes


class EOF:
    pass


Item = bytes | Oversized | Unterminated | EOF


class StdoutLines:
    """Split the adapter's stdout into bounded lines, read on the caller's thread.

    The fd is non-blocking and read only when the caller asks for a line, so nothing
    is read ahead beyond one chunk: an adapter flooding stdout fills its pipe and
    blocks. End-of-file is sticky.
    """

    def __init__(self, fd: int, max_line_bytes: int) -> None:
        os.set_blocking(fd, False)
        self._fd = fd
        self._max = max_line_bytes
        self._buf = bytearray()
        self._dropping = False  # inside an oversized line: drop bytes up to its newline
        self._pending: collections.deque[Item] = collections.deque()
        self._eof = False
        #: The last read emptied the pipe (see quiet); set per call of next.
        self._drained = False
        # poll, not select: the fd may be numbered above 1023.
        self._poller = select.poll()
        self._poller.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)

    @property
    def held_bytes(self) -> int:
        """Bytes read but not yet handed out (bounded by one chunk plus one line)."""
        return len(self._buf) + sum(len(i) for i in self._pending if isinstance(i, bytes))

    def next(self, timeout: float) -> Item | None:
        """The next item, waiting at most ``timeout`` seconds; None when none came."""
        deadline = time.monotonic() + timeout
        self._drained = False
        while not self._pending:
            if self._eof:
                return EOF()
            # Wait first, then read: an answer is rarely there the instant after the
            # request, and a read that would block is a wasted system call.
            remaining = max(0.0, deadline - time.monotonic())
            if self._poller.poll(math.ceil(remaining * 1000)) and self._fill():
                continue
            if time.monotonic() >= deadline:
                return None
        return self._pending.popleft()

    def ready(self) -> bool:
        """True when :meth:`next` would hand out an item at once (a whole line, end-of-file or
        a line past the limit), found without waiting; whatever is read stays queued."""
        while not self._pending and not self._eof and self._poller.poll(0) and self._fill():
            pass  # a part of a line: read on while the pipe holds more (or its end)
        return bool(self._pending) or self._eof

    def quiet(self) -> bool:
        """True when no further line or end-of-file is waiting: what the read that brought
        the last line showed, if it emptied the pipe, else a poll that never blocks.

        Whatever is found stays queued for :meth:`next`.
        """
        if self._pending or self._eof:
            return False
        if self._drained:
            # The read that brought the line just handed out emptied the pipe: nothing more
            # had been said then, a few microseconds ago. (No poll on the path from an answer
            # to the next request, where the adapter waits.)
            self._drained = False
            return True
        if self._poller.poll(0):
            self._fill()
        return not self._pending and not self._eof

    def _fill(self) -> bool:
        """Read what is available; False when nothing was (the read would block)."""
        try:
            chunk = os.read(self._fd, READ_CHUNK)
        except BlockingIOError:
            return False
        except OSError:
            chunk = b""
        # A pipe's read returns all it holds, up to the size asked: a shorter read emptied it.
        self._drained = len(chunk) < READ_CHUNK
        if not chunk:
            if self._buf and not self._dropping:
                self._pending.append(Unterminated(bytes(self._buf)))
            self._buf.clear()
            self._pending.append(EOF())
            self._eof = True
            return True
        if (
            not self._buf
            and not self._dropping
            and chunk.find(b"\n") == len(chunk) - 1
            and len(chunk) <= self._max
        ):
            # The usual read: exactly one whole answer line. (A line of the limit's length
            # plus its newline takes the general path below, which reports it.)
            self._pending.append(chunk[:-1])
            return True
        start = 0
        while start < len(chunk):
            newline = chunk.find(b"\n", start)
            end = len(chunk) if newline == -1 else newline
            if not self._dropping:
                if len(self._buf) + (end - start) > self._max:
                    # Report now rather than at the newline: a many-MB line
                    # should fail the request at once, not after it is read.
                    self._pending.append(Oversized(len(self._buf) + end - start))
                    self._buf.clear()
                    self._dropping = True
                else:
                    self._buf += chunk[start:end]
            if newline == -1:
                break
            if self._dropping:
                self._dropping = False
            else:
                self._pending.append(bytes(self._buf))
                self._buf.clear()
            start = newline + 1
        return True


class StderrDrain(threading.Thread):
    """Read stderr continuously, keeping only the last ``keep`` bytes.

    The thread waits in ``select`` and reads under a lock from a non-blocking fd, so
    :meth:`catch_up` can take, under the same lock, whatever the adapter has already
    written but the thread has not read yet. Taking a tail after the answer line has
    been read is then deterministic: the adapter's ``write`` to stderr before its
    answer put the bytes in the pipe, and catch_up reads them, however late the
    thread is scheduled on a loaded machine.
    """

    def __init__(self, fd: int, keep: int = STDERR_KEEP) -> None:
        super().__init__(name=f"adapter-stderr-{fd}", daemon=True)
        self._fd = fd
        self._keep = keep
        self._buf = bytearray()
        self._lock = threading.Lock()
        self._eof = False
        self.total = 0
        os.set_blocking(fd, False)
        self._poller = select.poll()
        self._poller.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)

    def _read_available(self, budget: int) -> bool:
        """Read what the pipe holds now, up to ``budget`` bytes; False at end of file.

        The caller holds the lock.
        """
        while budget > 0 and not self._eof:
            try:
                chunk = os.read(self._fd, min(READ_CHUNK, budget))
            except BlockingIOError:
                return True
            except OSError:
                self._eof = True
                break
            if not chunk:
                self._eof = True
                break
            budget -= len(chunk)
            self.total += len(chunk)
            self._buf += chunk
            if len(self._buf) > self._keep:
                del self._buf[: len(self._buf) - self._keep]
        return not self._eof

    def run(self) -> None:
        while True:
            try:
                select.select([self._fd], [], [])
            except (OSError, ValueError):
                # Never read this fd again: once closed, its number may be reused.
                with self._lock:
                    self._eof = True
                break
            with self._lock:
                if not self._read_available(READ_CHUNK):
                    break

    def catch_up(self, budget: int = STDERR_CATCH_UP) -> None:
        """Take what the adapter wrote to stderr and the thread has not read yet.

        Bounded by ``budget`` bytes, so an adapter flooding stderr cannot hold the
        caller here; never waits for data that is not there.
        """
        with self._lock:
            # A look first: a read finding nothing raises, which costs four times as much,
            # and an answer's way to the next request passes here once a case.
            if not self._eof and self._poller.poll(0):
                self._read_available(budget)

    def tail(self, limit: int, since: int = 0, until: int | None = None) -> str:
        """The last ``limit`` characters, of what was written after byte ``since`` only
        (and, given ``until``, before byte ``until``).

        Engine text: escaped by :func:`conformance.io.textsafe.safe_tail`.
        """
        with self._lock:
            data = bytes(self._buf)
            kept_from = self.total - len(data)
        if until is not None:
            data = data[: max(0, until - kept_from)]
        if since > kept_from:
            data = data[since - kept_from :]
        return safe_tail(data.decode("utf-8", errors="replace"), limit)


class StderrLog(Protocol):
    """What :class:`StderrSections` reads: a :class:`StderrDrain`, or an in-process
    engine's log (conformance/adapter/inprocess.py)."""

    @property
    def total(self) -> int:
        """Bytes (characters) written so far."""

    def catch_up(self) -> None:
        """Take what was written and not read yet."""

    def tail(self, limit: int, since: int = 0, until: int | None = None) -> str:
        """The last ``limit`` characters written after ``since`` (and before ``until``)."""


class StderrSections:
    """The adapter's stderr cut into sections, one per case: a tail shows the case's own.

    A case's section starts at :meth:`open_section`; or, when the case's first request
    was sent ahead with the previous case's last answer, where that request was sent
    (:meth:`mark_ahead`), so that the previous case's log stays out of it and the next
    case's stays out of the previous case's tail.
    """

    def __init__(self, drain: StderrLog | None = None) -> None:
        self._drain = drain
        self._mark = 0
        # Where the section of the case whose first request went ahead begins.
        self._ahead: int | None = None

    def open_section(self) -> None:
        """Start the next case's section (at the request sent ahead, if one was)."""
        if self._ahead is not None:
            self._mark, self._ahead = self._ahead, None
        elif self._drain is not None:
            # What the previous case made the adapter write belongs before the mark.
            self._drain.catch_up()
            self._mark = self._drain.total

    def mark_ahead(self) -> None:
        """The next case's first request is being sent ahead: its section starts here."""
        if self._drain is not None:
            # Everything the adapter wrote before the answer in hand is in the pipe by now.
            self._drain.catch_up()
            self._ahead = self._drain.total

    def drop_ahead(self) -> None:
        """The request sent ahead will open no section (discarded, or the adapter ended)."""
        self._ahead = None

    def tail(self, limit: int) -> str:
        """The last ``limit`` characters of the current section (of everything, when the
        section is empty), never what the request sent ahead made the adapter write."""
        if self._drain is None:
            return ""
        self._drain.catch_up()
        section = self._drain.tail(limit, since=self._mark, until=self._ahead)
        return section or self._drain.tail(limit, until=self._ahead)


__all__ = [
    "EOF",
    "READ_CHUNK",
    "STDERR_CATCH_UP",
    "STDERR_KEEP",
    "Item",
    "Oversized",
    "StderrDrain",
    "StderrLog",
    "StderrSections",
    "StdoutLines",
    "Unterminated",
]
