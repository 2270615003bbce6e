"""Making text that comes from an engine safe, once, where it enters the harness.

An engine can put anything valid JSON allows into a string: lone surrogates
(``"\\ud800"``, which no encoder accepts), U+FFFE/U+FFFF and C0 controls (which
XML 1.0 forbids), ESC/BEL/NUL and C1 controls (which a terminal obeys), and
megabytes of it. Every string the harness keeps from an engine passes through
:func:`safe_text` (decoded answers, in :func:`conformance.adapter.protocol.decode_line`)
or :func:`safe_tail` (the stderr tail, in :mod:`conformance.adapter.engine`), so every
output it can reach (terminal, JSON, JUnit, expectations) gets printable,
encodable, XML-valid text of bounded size. :func:`cap_total` bounds what one case
keeps in all.

Unsafe characters are replaced by a visible escape (``\\x1b``, ``\\ud800``,
``\\ufffe``), never dropped silently, so a reader sees what the engine sent.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Final, TypeVar

#: Longest string kept from an engine, in characters (after escaping).
MAX_STRING: Final = 4096
#: Most engine text one case keeps over all its report fields (stderr tail included).
MAX_CASE_TEXT: Final = 64 * 1024

#: Characters that show nothing yet change what is read: bidi overrides, embeddings,
#: isolates and marks (U+202E shows ``txt.exe`` as ``exe.txt``), zero-width spaces and
#: joiners, the byte order mark, and the line and paragraph separators (U+2028/U+2029:
#: a new line to some viewers, none to others). Escaped like the controls.
INVISIBLE: Final = "\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff"

# C0 controls but tab and newline (CR is escaped too: it lets a line overwrite
# itself on a terminal), DEL and C1 (0x9b is a one-byte CSI for some terminals),
# the invisible characters above, surrogates (not encodable) and U+FFFE/U+FFFF (not
# XML). Tab and newline are kept.
_UNSAFE: Final = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{INVISIBLE}\ud800-\udfff\ufffe\uffff]")


# JSON escapes that can decode to a character _UNSAFE matches (\\n and \\t cannot).
_RISKY_ESCAPE: Final = re.compile(r"\\[ubfr]")


def _escape_char(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def cut_marker(length: int) -> str:
    """The visible note put where text of ``length`` characters was cut."""
    return f"…[cut by the harness: {length} characters in all]"


def escape(text: str) -> str:
    """Replace every unsafe character by a visible escape; nothing else changes."""
    if not _UNSAFE.search(text):
        return text
    return _UNSAFE.sub(_escape_char, text.replace("\r\n", "\n"))


def safe_text(text: str, limit: int = MAX_STRING) -> str:
    """``text`` escaped and, past ``limit`` characters, cut with a visible marker."""
    if len(text) <= limit:
        cleaned = escape(text)
        if len(cleaned) <= limit:
            return cleaned
    # Escape only the part kept: a 4 MB string is not rewritten whole.
    return escape(text[:limit])[:limit] + cut_marker(len(text))


def safe_tail(text: str, limit: int) -> str:
    """The last ``limit`` characters of ``text``, escaped (a tail needs no marker)."""
    if limit <= 0:
        return ""
    return escape(text[-limit:])[-limit:]


def safe_json(value: Any, limit: int = MAX_STRING) -> Any:
    """A copy of a decoded JSON value with every string (keys too) made safe."""
    if isinstance(value, str):
        return safe_text(value, limit)
    if isinstance(value, dict):
        return {safe_text(k, limit): safe_json(v, limit) for k, v in value.items()}
    if isinstance(value, list):
        return [safe_json(item, limit) for item in value]
    return value


def json_text_is_safe(text: str, limit: int = MAX_STRING) -> bool:
    """True when no string decoded from the JSON line ``text`` can need :func:`safe_json`.

    A quick test on the raw line, so ordinary answers skip the walk. Raw C0 controls
    are invalid inside JSON strings, so an ASCII line is safe unless it has DEL or an
    escape that decodes to something unsafe (``\\u``, ``\\b``, ``\\f``, ``\\r``);
    a longer line also needs every string to fit the limit, which the raw text
    shows when no quote is escaped.
    """
    if _RISKY_ESCAPE.search(text):
        return False
    if text.isascii():
        if "\x7f" in text:
            return False
    elif _UNSAFE.search(text):
        return False
    if len(text) <= limit:
        return True
    return '\\"' not in text and max(map(len, text.split('"'))) <= limit


# What a terminal obeys in text the harness did not write itself: as _UNSAFE, but CR is
# left to terminal_text (a progress line is redrawn with a CR at its start or end).
_TERMINAL_UNSAFE: Final = re.compile(
    f"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f{INVISIBLE}\ud800-\udfff\ufffe\uffff]"
)


def terminal_text(text: str) -> str:
    """``text`` as it may reach a terminal: every control character escaped (tab and
    newline kept), and a carriage return kept only at the very start or end of ``text``
    (how a progress line redraws itself), so no string from a file or an engine can move
    the cursor, recolour, retitle or clear the terminal, or hide a line behind another."""
    if not _TERMINAL_UNSAFE.search(text) and "\r" not in text:
        return text
    head = "\r" if text.startswith("\r") else ""
    tail = "\r" if text.endswith("\r") and len(text) > len(head) else ""
    body = text[len(head) : len(text) - len(tail)]
    return head + _UNSAFE.sub(_escape_char, body) + tail


class TerminalStream:
    """A text stream that writes through :func:`terminal_text`: what the command line
    prints, from wherever it comes (a report read back, a scenario title, an engine's
    message), reaches the terminal with its control characters escaped. Everything but
    ``write`` is the wrapped stream's."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        """Write ``text`` escaped; returns the length of ``text`` (as ``print`` expects)."""
        self.stream.write(terminal_text(text))
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


_T = TypeVar("_T")


def cap_total(record: _T, fields: Sequence[str], total: int = MAX_CASE_TEXT) -> _T:
    """Bound the text a dataclass ``record`` keeps over ``fields`` to ``total`` characters.

    Fields are shortened in the order given (the first one most), each with a marker,
    until the sum fits; ``None`` and empty fields are left alone.
    """
    sizes = {name: len(getattr(record, name) or "") for name in fields}
    excess = sum(sizes.values()) - total
    if excess <= 0:
        return record
    changes: dict[str, str] = {}
    for name in fields:
        if excess <= 0:
            break
        value = getattr(record, name) or ""
        if not value:
            continue
        marker = cut_marker(len(value))
        keep = max(0, len(value) - excess - len(marker))
        shorter = value[:keep] + marker
        if len(shorter) < len(value):
            changes[name] = shorter
            excess -= len(value) - len(shorter)
    return replace(record, **changes)  # type: ignore[type-var]


__all__ = [
    "INVISIBLE",
    "MAX_CASE_TEXT",
    "MAX_STRING",
    "TerminalStream",
    "cap_total",
    "cut_marker",
    "escape",
    "json_text_is_safe",
    "safe_json",
    "safe_tail",
    "safe_text",
    "terminal_text",
]
