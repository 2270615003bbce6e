"""Reading and writing JSON files the harness did not necessarily write itself.

Run reports and fuzz reports come back to the harness as input (``report``, ``report
merge``, ``report diff``, ``fuzz --merge``), from CI artifacts anyone could have edited.
Python's ``json`` module reads far more than the harness can then use: nesting deep
enough to exhaust the interpreter's recursion (a traceback in the decoder, the schema
validator or the writer), integers of thousands of digits (a traceback as soon as one is
turned into a float), ``NaN`` and ``Infinity`` (not JSON; a strict reader refuses the file
the harness would write back), and files of any size. :func:`read_json_file` reads one
file within limits and says in one :class:`JSONFileError` which file is wrong and why:

- at most :data:`MAX_JSON_BYTES` bytes, UTF-8;
- at most :data:`MAX_JSON_DEPTH` levels of arrays and objects (a report nests about 6);
- integers of at most :data:`MAX_INT_DIGITS` digits, floats finite, no ``NaN`` or
  ``Infinity``.

:func:`dumps` and :func:`pieces` are the writing half, and every report, merged report,
fuzz report and expectations file the harness writes goes through them: before a byte is
encoded, :func:`check_readable` walks the document and refuses any number its readers
would refuse (an integer of more than :data:`MAX_INT_DIGITS` digits, a float that is not
finite) with an :class:`UnreadableNumber` naming its JSON pointer. So nothing the harness
writes is a file it cannot read back, wherever the number came from; the sources (an
engine's answer, the command line, a merge's sums) are bounded where they enter, and this
is the one check behind them all.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, BinaryIO, Final

from conformance.errors import HarnessError
from conformance.io.textsafe import escape, json_text_is_safe

#: Largest JSON report read, in bytes. A run report keeps at most 64 KiB of engine text
#: per case (conformance/io/textsafe.py), so a corpus of 2,000 cases stays below it.
MAX_JSON_BYTES = 128 * 1024 * 1024
#: Deepest nesting of arrays and objects accepted (reports nest about 6 deep, fuzz
#: findings about 9).
MAX_JSON_DEPTH: Final = 64
#: Longest integer accepted, in digits (seeds are 64-bit: 20 digits).
MAX_INT_DIGITS: Final = 40


class JSONFileError(HarnessError, ValueError):
    """A JSON file that cannot be read within the limits: the message names the file."""


class _Refused(ValueError):
    """Raised from inside the decoder's hooks; turned into a JSONFileError."""


def _parse_int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise _Refused(f"an integer of {digits} digits (at most {MAX_INT_DIGITS} are accepted)")
    return int(text)


def _parse_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Refused(f"the number {text[:40]} is too large to be a finite float")
    return value


def _parse_constant(name: str) -> Any:
    raise _Refused(f"{name} is not JSON (no NaN or Infinity is accepted)")


def loads_bounded_numbers(text: str) -> Any:
    """``json.loads`` refusing what the harness's readers refuse in numbers (an integer of
    more than :data:`MAX_INT_DIGITS` digits, a float too large to be finite, ``NaN`` and
    ``Infinity``), whatever the nesting: for lines whose nesting is bounded elsewhere.

    :raises JSONFileError: naming the number refused.
    :raises json.JSONDecodeError: when ``text`` is not JSON.
    """
    try:
        return json.loads(
            text,
            parse_int=_parse_int,
            parse_float=_parse_float,
            parse_constant=_parse_constant,
        )
    except _Refused as exc:
        raise JSONFileError(str(exc)) from None


def depth_exceeds(value: Any, max_depth: int = MAX_JSON_DEPTH) -> bool:
    """True when ``value`` nests arrays and objects more than ``max_depth`` deep.

    Iterative, so a hostile document cannot exhaust the stack; stops at the first
    container found too deep. It holds one iterator per level, never an entry per item: a
    list of millions of items costs it nothing more than a short one.
    """
    if not isinstance(value, dict | list):
        return False
    stack = [iter(value.values() if isinstance(value, dict) else value)]
    while stack:
        for child in stack[-1]:
            kind = type(child)
            if kind is dict or kind is list:
                if len(stack) >= max_depth:
                    return True
                stack.append(iter(child.values() if kind is dict else child))
                break
        else:
            stack.pop()
    return False


def _too_deep(max_depth: int) -> str:
    return f"nested too deeply: more than {max_depth} levels (a hostile or broken file?)"


#: Most distinct strings :func:`loads` shares (a report has a few thousand: card codes,
#: rule ids, statuses, check keys, case ids).
_SHARED_MOST: Final = 200_000
#: Strings up to this long are shared by :func:`loads` with ``share_strings``.
_SHARED_LENGTH: Final = 40


def _sharing_hook() -> Any:
    """An ``object_hook`` that makes equal short strings one object: the values of an
    object, and the items of lists (and of lists in lists) among them. A report holds the
    same card codes, rule ids and statuses hundreds of thousands of times; each is a
    separate 50-byte object as ``json`` decodes it, most of a report's memory. Keys are
    shared by the decoder itself. Everything is changed in place: no list or mapping is
    built a second time (an ``object_pairs_hook`` held every pair of a mapping as a tuple
    first, and a copy of every list: four times the memory of a report padded with them)."""
    table: dict[str, str] = {}

    def share(text: str, _same: str) -> str:
        # Past _SHARED_MOST distinct strings the table stops growing: a file of millions
        # of distinct short strings would otherwise cost a table entry each on top.
        found = table.get(text)
        if found is not None:
            return found
        if len(table) < _SHARED_MOST:
            table[text] = text
        return text

    def items(values: list[Any]) -> None:
        for index, item in enumerate(values):
            kind = type(item)
            if kind is str:
                if len(item) <= _SHARED_LENGTH:
                    values[index] = share(item, item)
            elif kind is list:
                for inner, value in enumerate(item):
                    if type(value) is str and len(value) <= _SHARED_LENGTH:
                        item[inner] = share(value, value)

    def hook(mapping: dict[str, Any]) -> dict[str, Any]:
        for key, value in mapping.items():
            kind = type(value)
            if kind is str:
                if len(value) <= _SHARED_LENGTH:
                    mapping[key] = share(value, value)
            elif kind is list and value:
                items(value)
        return mapping

    return hook


def _counting(parse: Any, budget: list[int], size: int) -> Any:
    """``parse`` (a number hook), refusing once ``budget[0]`` numbers have been decoded."""

    def counted(text: str) -> Any:
        budget[0] -= 1
        if budget[0] < 0:
            most = f"more than {size // BYTES_PER_NUMBER:,}"
            raise _Refused(_dense(most, "numbers", size, BYTES_PER_NUMBER))
        return parse(text)

    return counted


def loads(
    text: str,
    *,
    max_depth: int = MAX_JSON_DEPTH,
    share_strings: bool = False,
    size: int | None = None,
) -> Any:
    """Decode ``text`` within the limits above; with ``share_strings``, equal short
    strings become one object (a large report then takes a fraction of the memory).
    ``size``: the file's size in bytes, when it is one: from a megabyte on, it may hold at
    most one number per :data:`BYTES_PER_NUMBER` bytes (refused as they are decoded).

    :raises JSONFileError: with the reason (no file name: the caller adds it).
    :raises json.JSONDecodeError: when ``text`` is not JSON at all (the caller words it
        with its line and column).
    """
    parse_int, parse_float = _parse_int, _parse_float
    if size is not None and size >= _DENSE_FROM:
        budget = [size // BYTES_PER_NUMBER]  # one count for both hooks
        parse_int = _counting(_parse_int, budget, size)
        parse_float = _counting(_parse_float, budget, size)
    try:
        value = json.loads(
            text,
            parse_int=parse_int,
            parse_float=parse_float,
            parse_constant=_parse_constant,
            object_hook=_sharing_hook() if share_strings else None,
        )
    except _Refused as exc:
        raise JSONFileError(str(exc)) from None
    except RecursionError:
        raise JSONFileError(_too_deep(max_depth)) from None
    except json.JSONDecodeError:
        raise
    except ValueError as exc:  # what the decoder refuses besides syntax
        raise JSONFileError(f"cannot be decoded: {str(exc)[:200]}") from None
    if depth_exceeds(value, max_depth):
        raise JSONFileError(_too_deep(max_depth))
    return value


#: Fewest bytes per array, object and key a file read may hold on average, and per
#: number: about a third of the densest the harness writes (a compact run report has one
#: ``[`` per 110 bytes, one ``{`` per 130, one key per 20; numbers are rarer still). Each
#: decoded costs tens of bytes (an empty list 80, a one-key object 200, a short distinct
#: key 150, a number 40), so a file padded with them under keys no schema names (``"pad":
#: [[], [], …]``) took 48 times its size; within these it takes at most about 11
#: (docs/robustness.md). Strings are not counted: equal short ones are shared.
DENSITY: Final = (("[", 32, "arrays"), ("{", 48, "objects"), (":", 14, "keys"))
#: Fewest bytes per number (counted as they are decoded).
BYTES_PER_NUMBER: Final = 8
#: Files smaller than this are not measured: at 50 times their size they cost 50 MB.
_DENSE_FROM: Final = 1 << 20

#: A JSON string, escapes included: what :func:`density_problem` leaves out of its count.
_JSON_STRING: Final = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')


def _dense(count: int | str, what: str, size: int, per: int) -> str:
    shown = count if isinstance(count, str) else f"{count:,}"
    return (
        f"holds {shown} {what} in {size:,} bytes, more than one per {per} bytes: no "
        "report is that dense (one padded with empty values?); refused before decoding "
        "it all, which would take many times its size in memory"
    )


def density_problem(text: str, size: int) -> str | None:
    """Why ``text`` (``size`` bytes) holds more arrays, objects or keys for its size than
    :data:`DENSITY` allows, or None. Counted over the whole text first (a few
    milliseconds a megabyte); only a text over a limit then has its strings left out and
    is counted again, so a bracket or colon inside a string never refuses a report."""
    if size < _DENSE_FROM:
        return None
    if all(text.count(mark) * per <= size for mark, per, _what in DENSITY):
        return None
    outside = _JSON_STRING.sub('""', text)
    for mark, per, what in DENSITY:
        count = outside.count(mark)
        if count * per > size:
            return _dense(count, what, size, per)
    return None


def read_json_file(
    path: Path | str,
    what: str,
    *,
    max_bytes: int | None = None,
    max_depth: int = MAX_JSON_DEPTH,
    share_strings: bool = False,
    escape_text: bool = False,
) -> Any:
    """Read and decode the JSON file ``path`` (described as ``what`` in messages), at most
    ``max_bytes`` long (default :data:`MAX_JSON_BYTES`, read when called).

    ``escape_text``: every string (keys too) comes back with its control and invisible
    characters escaped (:func:`conformance.io.textsafe.escape`), as engine text is where
    it enters: a report read back may have been edited by anyone, and every output of its
    readers (terminal, page, digest, merged report) then sees only visible text. A file
    whose text holds none of them (the harness's own reports) is not walked.

    :raises JSONFileError: naming the file: unreadable, too large, not UTF-8, not JSON
        (with line and column), too deep, a huge integer, a non-finite number.
    """
    if max_bytes is None:
        max_bytes = MAX_JSON_BYTES
    try:
        with Path(path).open("rb") as handle:
            data = _read_at_most(handle, max_bytes + 1)
    except OSError as exc:
        raise JSONFileError(f"{path}: cannot read {what}: {exc.strerror or exc}") from None
    if len(data) > max_bytes:
        raise JSONFileError(f"{path}: {what} is larger than the limit of {max_bytes} bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise JSONFileError(f"{path}: {what} is not UTF-8 text: {exc.reason}") from None
    size = len(data)
    del data  # the text is what is decoded: the bytes need not wait for the result
    dense = density_problem(text, size)
    if dense is not None:
        raise JSONFileError(f"{path}: {what} {dense}")
    walk = escape_text and not json_text_is_safe(text, len(text) + 1)
    try:
        value = loads(text, max_depth=max_depth, share_strings=share_strings, size=size)
        return escape_strings(value) if walk else value
    except json.JSONDecodeError as exc:
        raise JSONFileError(
            f"{path}: {what} is not JSON: line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from None
    except JSONFileError as exc:
        raise JSONFileError(f"{path}: {what}: {exc}") from None


def escape_strings(value: Any) -> Any:
    """``value`` with every string in it (keys too) escaped by
    :func:`conformance.io.textsafe.escape`, changed in place where it can be (a large
    report is not copied); returns the value (a new one only for a string, or a mapping
    whose keys changed)."""
    if isinstance(value, str):
        return escape(value)
    root = _rekeyed(value)
    stack = [root]
    while stack:
        node = stack.pop()
        slots = node.items() if isinstance(node, dict) else enumerate(node)
        for slot, item in list(slots):
            kind = type(item)
            if kind is str:
                safe = escape(item)
                if safe is not item:
                    node[slot] = safe
            elif kind is dict or kind is list:
                own = _rekeyed(item)
                if own is not item:
                    node[slot] = own
                stack.append(own)
    return root


def _rekeyed(node: Any) -> Any:
    """``node``, or for a mapping with a key :func:`escape` changes, a copy with escaped
    keys."""
    if type(node) is dict and any(escape(key) is not key for key in node):
        return {escape(key): item for key, item in node.items()}
    return node


def _read_at_most(handle: BinaryIO, limit: int) -> bytearray:
    """At most ``limit`` bytes of ``handle``, read in pieces: ``read(limit)`` allocates
    ``limit`` bytes whatever the file holds (128 MB for every report read)."""
    data = bytearray()
    while len(data) < limit:
        piece = handle.read(min(_PIECE, limit - len(data)))
        if not piece:
            break
        data += piece
    return data


_PIECE: Final = 1 << 20


class UnreadableNumber(HarnessError, ValueError):
    """A document about to be written holds a number its readers refuse: the message
    names the JSON pointer and the number's size (a bug, or a source left unbounded)."""


#: Largest integer written and read back: MAX_INT_DIGITS nines.
_LARGEST: Final = 10**MAX_INT_DIGITS - 1


def _pointer_part(key: object) -> str:
    return str(key).replace("~", "~0").replace("/", "~1")[:80]


def check_readable(value: Any) -> None:
    """Refuse ``value`` when it holds a number the harness's readers would refuse.

    One iterative pass over the containers, comparing numbers as they are met (a run
    report of thousands of checks costs milliseconds); where the number is, is worked
    out only once one is found.

    :raises UnreadableNumber: naming where the first such number is.
    """
    stack = [value]
    push, pop = stack.append, stack.pop
    while stack:
        node = pop()
        kind = type(node)
        if kind is dict:
            node = node.values()
        elif kind is not list and kind is not tuple:
            if not _readable(node):
                raise UnreadableNumber(f"at {_where(value)}: {_unreadable(node)}")
            continue
        for item in node:
            kind = type(item)
            if kind is str or kind is bool or item is None:
                continue
            if kind is int:
                if -_LARGEST <= item <= _LARGEST:
                    continue
            elif kind is float and item - item == 0.0:  # finite: inf - inf and nan - nan are nan
                continue
            push(item)


def _readable(node: Any) -> bool:
    """False for a number the readers refuse (bool is no number here)."""
    if isinstance(node, bool):
        return True
    if isinstance(node, float):
        return math.isfinite(node)
    if isinstance(node, int):
        return -_LARGEST <= node <= _LARGEST
    return True


def _where(value: Any) -> str:
    """The JSON pointer of the first number in ``value`` its readers refuse."""
    stack: list[tuple[Any, tuple[object, ...]]] = [(value, ())]
    while stack:
        node, path = stack.pop()
        if isinstance(node, dict):
            stack.extend((v, (*path, k)) for k, v in reversed(node.items()))
        elif isinstance(node, list | tuple):
            stack.extend((v, (*path, i)) for i, v in reversed(list(enumerate(node))))
        elif not _readable(node):
            return "/" + "/".join(_pointer_part(part) for part in path)
    return "/"


def _unreadable(number: float) -> str:
    if isinstance(number, float):
        return f"the number {number} is not finite (no reader takes NaN or Infinity)"
    digits = len(str(abs(number))) if abs(number) < 10**4000 else 4000
    return (
        f"an integer of {digits}{'+' if digits == 4000 else ''} digits "
        f"(the harness's readers take at most {MAX_INT_DIGITS})"
    )


#: One compact encoder, reused: building one per call costs more than encoding a check.
_COMPACT: Final = json.JSONEncoder(ensure_ascii=False, allow_nan=False)


def dumps(value: Any, *, indent: int | None = 2, checked: bool = False) -> str:
    """Standard JSON text for ``value``, readable back by the harness's own readers:
    never ``NaN``, ``Infinity`` or an integer longer than they take; non-ASCII kept;
    ``indent=None`` for one line.

    ``checked``: the caller has passed the whole document to :func:`check_readable` (a
    writer encoding it part by part, whose parts are then not walked again).

    :raises UnreadableNumber: when ``value`` holds such a number (:func:`check_readable`).
    """
    if not checked:
        check_readable(value)
    if indent is None:
        return _COMPACT.encode(value)
    return json.dumps(value, indent=indent, ensure_ascii=False, allow_nan=False)


def pieces(value: Any, *, indent: int = 1) -> Iterator[str]:
    """:func:`dumps` in pieces, for writing a large document without holding its text (nor
    the list of pieces ``json.dumps`` joins); checked whole before the first piece.

    :raises UnreadableNumber: as :func:`dumps`, before anything is yielded.
    """
    check_readable(value)
    encoder = json.JSONEncoder(indent=indent, ensure_ascii=False, allow_nan=False)
    return encoder.iterencode(value)


def compact_pieces(value: Any) -> Iterator[str]:
    """:func:`pieces` without a byte to spare (no indentation, no space after ``,`` or
    ``:``), then a newline: the layout a merge falls back to when its readable one would
    be larger than its readers read (one report merged is then never refused for the
    layout alone). Checked whole before the first piece.

    :raises UnreadableNumber: as :func:`dumps`, before anything is yielded.
    """
    check_readable(value)
    encoder = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return itertools.chain(encoder.iterencode(value), ["\n"])


class TooLargeToRead(HarnessError, ValueError):
    """A document that would be written larger than its readers read."""


def within_read_limit(text: Iterable[str], what: str) -> Iterator[str]:
    """The pieces of ``text``, refused (mid-write: the caller's atomic write then leaves
    nothing behind) once they add up to more than :data:`MAX_JSON_BYTES` in UTF-8, the
    most the harness's readers read: a merge never writes a file it refuses to read.

    :raises TooLargeToRead: naming ``what`` and the limit.
    """
    limit, written = MAX_JSON_BYTES, 0
    for piece in text:
        # Characters are at most 4 bytes: count exactly only near the limit.
        written += len(piece) if piece.isascii() else len(piece.encode("utf-8", "replace"))
        if written > limit:
            raise TooLargeToRead(
                f"{what} would be larger than {limit} bytes, the most a report is read "
                "at: keep the parts as they are (report and report diff take several)"
            )
        yield piece


def finite(value: float, default: float = 0.0) -> float:
    """``value`` when it is a finite number, else ``default`` (for durations and timings)."""
    return value if isinstance(value, int | float) and math.isfinite(value) else default


__all__ = [
    "BYTES_PER_NUMBER",
    "DENSITY",
    "MAX_INT_DIGITS",
    "MAX_JSON_BYTES",
    "MAX_JSON_DEPTH",
    "JSONFileError",
    "TooLargeToRead",
    "UnreadableNumber",
    "check_readable",
    "compact_pieces",
    "density_problem",
    "depth_exceeds",
    "dumps",
    "escape_strings",
    "finite",
    "loads",
    "loads_bounded_numbers",
    "pieces",
    "read_json_file",
    "within_read_limit",
]
