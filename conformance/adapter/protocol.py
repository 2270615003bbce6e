"""The adapter protocol, version 1 (docs/protocol.md), as data and schemas.

The JSON Schemas under ``conformance/schemas/protocol/`` (draft 2020-12) are
the machine-readable half of docs/protocol.md: one per request op
(``<op>.request.json``), one per result (``<op>.response.json``), one for error
answers (``error.response.json``) and shared definitions in ``defs.json``.
They are loaded through importlib.resources so they work from a wheel too.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from importlib import resources
from typing import Any, Final

import orjson

from conformance.errors import InvalidRequest, ProtocolError
from conformance.io.jsonsafe import JSONFileError, loads_bounded_numbers
from conformance.io.textsafe import json_text_is_safe, safe_json
from conformance.io.validation import SchemaValidator
from conformance.knowledge.catalogue import normalise_dispute_id

#: The only protocol version this harness speaks.
PROTOCOL_VERSION = 1

#: Every op of the protocol, in the order of docs/protocol.md §7.
OPS: tuple[str, ...] = (
    "hello",
    "bye",
    "check_meld",
    "check_contract",
    "penalty",
    "load_state",
    "act",
    "start_deal",
    "next_deal",
    "redeal",
    "new_game",
)

#: The ops each capability promises (docs/protocol.md §2). ``reasons`` adds no op.
CAPABILITY_OPS: Mapping[str, tuple[str, ...]] = {
    "melds": ("check_meld", "check_contract", "penalty"),
    "turns": ("load_state", "act"),
    "deals": ("start_deal", "next_deal", "redeal", "new_game"),
    "reasons": (),
}

#: Error kinds an engine may answer with (docs/protocol.md §1).
ERROR_KINDS: tuple[str, ...] = ("bad_request", "unsupported", "invalid_state", "internal")

_SCHEMA_PACKAGE = "conformance"
_SCHEMA_DIR = ("schemas", "protocol")
# Messages quote parts of what the engine sent; a hostile engine must not be
# able to blow up a report through them.
_MAX_DETAIL = 300


def _schema_files() -> dict[str, dict[str, Any]]:
    folder = resources.files(_SCHEMA_PACKAGE).joinpath(*_SCHEMA_DIR)
    loaded: dict[str, dict[str, Any]] = {}
    for entry in folder.iterdir():
        if entry.name.endswith(".json"):
            loaded[entry.name] = json.loads(entry.read_text(encoding="utf-8"))
    return loaded


def _inline_refs(node: Any, defs: dict[str, Any], seen: tuple[str, ...] = ()) -> Any:
    """Replace every ``$ref`` into defs.json by a copy of its target.

    The protocol schemas have no recursive definitions, so the result is finite; inlining
    spares jsonschema a registry lookup per ``$ref`` per message, which dominated a run's
    time (see benchmarks/run.py).
    """
    if isinstance(node, list):
        return [_inline_refs(item, defs, seen) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith(("defs.json#/", "#/$defs/")):
        if ref in seen:
            raise ValueError(f"recursive $ref {ref} in the protocol schemas")
        target: Any = defs
        for part in ref.split("#/", 1)[1].split("/"):
            target = target[part]
        rest = {k: v for k, v in node.items() if k != "$ref"}
        inlined = _inline_refs(target, defs, (*seen, ref))
        return {"allOf": [inlined, _inline_refs(rest, defs, seen)]} if rest else inlined
    return {k: _inline_refs(v, defs, seen) for k, v in node.items()}


@cache
def _validators() -> dict[str, SchemaValidator]:
    """Build one validator per schema file, with every ``$ref`` to defs.json inlined."""
    files = _schema_files()
    defs = files["defs.json"]
    return {
        name.removesuffix(".json"): SchemaValidator(_inline_refs(schema, defs))
        for name, schema in files.items()
        if name != "defs.json"
    }


def prepare_validators() -> None:
    """Build the validators now (once a process), not at the first message checked."""
    _validators()


def schema(name: str) -> dict[str, Any]:
    """Return the schema document ``name`` (e.g. ``"act.request"``, ``"defs"``)."""
    files = _schema_files()
    return files[f"{name}.json"]


def json_pointer(path: Any) -> str:
    """Render a jsonschema error path (a sequence of keys and indexes) as a JSON pointer."""
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in path)


def _shorten(text: str, limit: int = _MAX_DETAIL) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _check(
    validator_name: str,
    obj: object,
    what: str,
    error_type: type[ProtocolError] | type[InvalidRequest],
) -> None:
    validator = _validators().get(validator_name)
    if validator is None:
        raise error_type(f"{what}: unknown op", pointer="/op")
    if validator.is_valid(obj):
        return
    error = validator.best_error(obj)
    if error is None:
        return
    pointer = json_pointer(error.absolute_path)
    raise error_type(
        f"{what} breaks the schema at JSON pointer {pointer!r}: {_shorten(error.message)}",
        pointer=pointer,
    )


def validate_request(op: str, obj: object) -> None:
    """Check a complete request (with ``id`` and ``op``) against the schema of ``op``.

    Raises :class:`~conformance.errors.InvalidRequest` (the harness's fault, no
    ``ProtocolError``) naming the JSON pointer of the first problem.
    """
    _check(f"{op}.request", obj, f"{op} request", InvalidRequest)


def request_is_valid(op: str, obj: object) -> bool:
    """Whether a complete request satisfies the schema of ``op`` (False for an unknown op)."""
    validator = _validators().get(f"{op}.request")
    return validator is not None and validator.is_valid(obj)


def validate_response(op: str, obj: object) -> None:
    """Check one decoded response line to a request of ``op``.

    An error answer (``{"id", "error": {...}}``) is checked against the error
    schema; anything else against the result schema of ``op``. Raises
    :class:`~conformance.errors.ProtocolError` naming the JSON pointer of the
    first problem. The id is not compared here (the session knows which id it
    sent).
    """
    if isinstance(obj, dict) and "error" in obj:
        _check("error.response", obj, f"error answer to {op}", ProtocolError)
    else:
        _check(f"{op}.response", obj, f"{op} response", ProtocolError)


def encode_request(obj: Mapping[str, Any]) -> bytes:
    """Encode one request as a compact UTF-8 JSON line ending in ``\\n``.

    orjson writes it (a tenth of the standard library's time on the hot path); whatever
    orjson refuses or could write otherwise is written by the standard library, which
    defines the result: the same JSON values, and the same errors.
    """
    try:
        data = orjson.dumps(obj)
    except TypeError:
        # A key that is not a string, an integer past 64 bits, a lone surrogate, a type
        # orjson does not know: the standard library converts or raises as it always did.
        return _stdlib_encode(obj)
    # orjson writes NaN and infinities as null, where the standard library refuses them:
    # a null in the line is checked by reading it back (rare: setup states hold nulls).
    if b"null" in data and orjson.loads(data) != obj:
        return _stdlib_encode(obj)
    return data + b"\n"


def _stdlib_encode(obj: Mapping[str, Any]) -> bytes:
    # ensure_ascii=False keeps glyph-free card codes readable; UTF-8 is the framing.
    text = json.dumps(obj, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return text.encode("utf-8") + b"\n"


class CheckedRequest(tuple[str, Mapping[str, Any]]):
    """A request ``(op, fields)`` checked against its schema and encoded once, all but its
    id (:func:`checked_request`): a session writes it as it is, without checking or
    encoding it again. Its fields must not be changed after.

    Encoding a request per case costs the harness as much as the adapter takes to answer a
    small one; a case's planned requests are the same for every engine, so they are checked
    and encoded while the adapter starts (conformance.run.warmup).
    """

    #: The encoded request after ``{"id":N,``, newline included.
    after_id: bytes

    def line(self, request_id: int) -> bytes:
        """The request with id ``request_id``: what :func:`encode_request` writes for it."""
        return b'{"id":%d,%b' % (request_id, self.after_id)


#: What an encoded request with id 1 starts with (CheckedRequest.after_id follows it).
_ID_ONE: Final = b'{"id":1,'


def checked_request(op: str, fields: Mapping[str, Any]) -> tuple[str, Mapping[str, Any]]:
    """``(op, fields)`` checked against the schema and encoded now, as a
    :class:`CheckedRequest`; or the plain pair when it breaks the schema or cannot be
    encoded, which a session then refuses when it comes to send it, as it always did."""
    message = {"id": 1, "op": op, **fields}
    if not request_is_valid(op, message):
        return (op, fields)
    try:
        data = encode_request(message)
    except (ValueError, TypeError):
        return (op, fields)
    # The id is written first, by either encoder (a dict keeps its keys' order).
    assert data.startswith(_ID_ONE), data[:20]
    request = CheckedRequest((op, fields))
    request.after_id = data[len(_ID_ONE) :]
    return request


#: Digits to ``0``, ``-`` kept, every other byte to a space: a long run of digits is then a
#: plain substring search (a regular expression for it cost as much as decoding the line).
#: UTF-8 multi-byte sequences hold no ASCII digit, so the raw line can be searched.
_DIGIT_MAP: Final = bytes(
    0x30 if 0x30 <= b <= 0x39 else b if b == 0x2D else 0x20 for b in range(256)
)
#: Runs of digits orjson may read otherwise than Python does (past 64 bits it gives a
#: float, or refuses, where Python keeps an exact integer): a line holding one takes the
#: standard library's path. orjson reads every integer of 18 digits, and every one of 19
#: but a negative below -2**63 (the 64-bit signed range), exactly; an engine's 64-bit seed
#: (19 digits) is common, and kept on the fast path.
_LONG_DIGIT_RUNS: Final = (b"0" * 20, b"-" + b"0" * 19)


def decode_line(line: bytes) -> dict[str, Any]:
    """Decode one response line into a JSON object, or raise ProtocolError.

    ``line`` is the raw bytes without the trailing newline. This is where engine
    text enters the harness: every string of the result (keys too) is made safe
    here, once (:mod:`conformance.io.textsafe`: escaped, capped at 4 KiB).
    """
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ProtocolError(f"response line is not UTF-8: {exc}") from None
    text = text.removesuffix("\r")
    try:
        # The fast path: orjson reads every valid JSON line Python reads, to the same
        # values, but for long digit runs (kept off it) and what it refuses (NaN, 1e400,
        # lone surrogates, nesting past 1024), which the standard library then reads
        # exactly as before, with its own error messages.
        digits = line.translate(_DIGIT_MAP)
        if _LONG_DIGIT_RUNS[0] in digits or _LONG_DIGIT_RUNS[1] in digits:
            value = _stdlib_decode(text)
        else:
            value = orjson.loads(text)
    except orjson.JSONDecodeError:
        value = _stdlib_decode(text)
    if not isinstance(value, dict):
        raise ProtocolError(
            f"response line is JSON but not an object: {_shorten(text)!r}", pointer=""
        )
    if json_text_is_safe(text):
        return value
    safe: dict[str, Any] = safe_json(value)
    return safe


def _stdlib_decode(text: str) -> Any:
    """``text`` read by the standard library; ProtocolError when it is no JSON value, or
    holds a number the harness could not write into a report it reads back (an integer of
    more than 40 digits, ``1e400``, ``NaN``: conformance/io/jsonsafe.py). orjson's path never
    yields one: it reads no integer past 64 bits and refuses the rest."""
    try:
        return loads_bounded_numbers(text)
    except JSONFileError as exc:
        raise ProtocolError(
            f"response line holds a number the harness does not take: {exc} "
            f"(docs/protocol.md §1): {_shorten(text)!r}"
        ) from None
    except json.JSONDecodeError as exc:
        raise ProtocolError(
            f"response line is not JSON ({exc.msg} at column {exc.colno}): {_shorten(text)!r}"
        ) from None
    except (ValueError, RecursionError) as exc:
        # Valid JSON the decoder still refuses: nesting deeper than the interpreter's
        # recursion limit, or an integer of thousands of digits.
        raise ProtocolError(
            f"response line cannot be decoded ({type(exc).__name__}: {_shorten(str(exc))})"
        ) from None


__all__ = [
    "CAPABILITY_OPS",
    "ERROR_KINDS",
    "OPS",
    "PROTOCOL_VERSION",
    "CheckedRequest",
    "checked_request",
    "decode_line",
    "encode_request",
    "json_pointer",
    "normalise_dispute_id",
    "prepare_validators",
    "request_is_valid",
    "schema",
    "validate_request",
    "validate_response",
]
