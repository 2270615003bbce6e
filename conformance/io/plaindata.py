"""A JSON encoding of trees of frozen dataclasses that reading can never turn into code.

The load cache (:mod:`conformance.scenarios.loadcache`) stores loaded scenarios with it instead of
pickle: decoding builds only ``dict``, ``list``, ``tuple``, ``str``, ``int``, ``float``,
``bool``, ``None`` and instances of the dataclasses the :class:`Codec` was built with,
filled field by field; a file can name nothing else.

The encoding is JSON with a few tags, each a one-key object whose key starts with NUL
(a plain mapping holding such a key is written as pairs, so a tag is never ambiguous):

- ``{"\\0t": [...]}`` a tuple; ``{"\\0m": [[k, v], ...]}`` a dict whose keys are not all
  plain strings (YAML gives ``{1: [...]}``);
- ``{"\\0s": "3C 4C 5C"}`` a list of two or more non-empty strings without spaces (card
  codes: one JSON string instead of a hundred, which halves the decoding time);
- ``{"\\0<Class>": [field, ...]}`` a dataclass, its fields in order; a field annotated
  ``tuple[...]`` (or ``... | None``) holds its tuple as a plain list;
- ``{"\\0r": n}`` the n-th dataclass decoded so far, for an object met again (a
  scenario's ``setup`` is one of its ``setups``): shared objects stay shared;
- ``{"\\0x": n}`` the n-th long string (:data:`LONG` characters or more, no NUL). The
  long strings follow the JSON text, after a newline, UTF-8, separated by NUL: a
  scenario's canonical JSON (half of a corpus entry) is then read without unescaping
  its every quote.

Anything else (a set, a float NaN, an unregistered class) cannot be encoded:
:meth:`Codec.encode` raises :class:`TypeError` or :class:`ValueError`, and the caller
does not store that value.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import gc
import json
import types
import typing
from collections.abc import Callable
from typing import Any

_TUPLE = "\0t"
_PAIRS = "\0m"
_WORDS = "\0s"
_REF = "\0r"
_LONG = "\0x"
#: Strings of at least this many characters (without NUL) go after the JSON text.
LONG = 512


class Codec:
    """Encode and decode trees whose objects are of ``classes`` (frozen dataclasses).

    ``classes[0]`` is the root type: :meth:`decode` refuses a document whose top is
    anything but an instance of it (or, with ``many``, a list of them).
    """

    def __init__(self, *classes: type) -> None:
        if not classes:
            raise TypeError("a codec needs at least its root class")
        self.root = classes[0]
        self._fields: dict[type, tuple[str, ...]] = {}
        # Fields whose value is a tuple (or None): stored as lists, no tag to decode.
        self._tuple_fields: dict[type, frozenset[int]] = {}
        for cls in classes:
            if not dataclasses.is_dataclass(cls) or "__post_init__" in vars(cls):
                raise TypeError(f"{cls.__name__}: only dataclasses without __post_init__")
            fields = dataclasses.fields(cls)
            if any(not f.init for f in fields) or "__slots__" in vars(cls):
                raise TypeError(f"{cls.__name__}: every field must be an __init__ field")
            self._fields[cls] = tuple(f.name for f in fields)
            hints = typing.get_type_hints(cls)
            self._tuple_fields[cls] = frozenset(
                i for i, f in enumerate(fields) if _is_tuple_hint(hints[f.name])
            )
        # What each field may hold, by its type hint: a document that decodes into the
        # wrong types (a list of ints where a tuple of rule ids belongs) is refused here,
        # not met later as a TypeError deep in whatever reads it.
        self._checks: dict[type, tuple[tuple[int, str, _Check], ...]] = {}
        for cls in classes:
            hints = typing.get_type_hints(cls)
            found = []
            for i, f in enumerate(dataclasses.fields(cls)):
                check = _checker(hints[f.name], classes)
                if check is not None:
                    found.append((i, f.name, check))
            self._checks[cls] = tuple(found)
        self._tags = {cls: "\0" + cls.__name__ for cls in classes}
        own = {_TUPLE, _PAIRS, _WORDS, _REF, _LONG}
        if len(set(self._tags.values())) != len(classes) or own & set(self._tags.values()):
            raise TypeError("classes need distinct names, unlike the codec's own tags")

    # -- encoding -----------------------------------------------------------------

    def encode(self, value: object) -> bytes:
        """``value`` as UTF-8 JSON.

        :raises TypeError: for an object of a type the codec does not know.
        :raises ValueError: for a float that JSON cannot hold (NaN, infinity) or a string
            that UTF-8 cannot (a lone surrogate).
        """
        memo: dict[int, tuple[int, object]] = {}
        long: list[str] = []
        document = self._encode(value, memo, long)
        text = json.dumps(document, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
        # JSON text holds no raw newline: the first one ends it.
        return text.encode() + b"\n" + "\0".join(long).encode()

    def _encode(self, value: Any, memo: dict[int, tuple[int, object]], long: list[str]) -> Any:
        kind = type(value)
        if kind is str:
            if len(value) < LONG or "\0" in value:
                return value
            long.append(value)
            return {_LONG: len(long) - 1}
        if kind is int or kind is bool or kind is float or value is None:
            return value
        if kind is list:
            if len(value) > 1 and all(type(i) is str and i and " " not in i for i in value):
                return {_WORDS: " ".join(value)}
            return [self._encode(i, memo, long) for i in value]
        if kind is tuple:
            return {_TUPLE: [self._encode(i, memo, long) for i in value]}
        if kind is dict:
            if all(type(k) is str and k[:1] != "\0" for k in value):
                return {k: self._encode(v, memo, long) for k, v in value.items()}
            return {
                _PAIRS: [
                    [self._encode(k, memo, long), self._encode(v, memo, long)]
                    for k, v in value.items()
                ]
            }
        tag = self._tags.get(kind)
        if tag is None:
            raise TypeError(f"cannot encode a {kind.__name__}")
        seen = memo.get(id(value))
        if seen is not None:
            return {_REF: seen[0]}
        fields: list[Any] = []
        tuples = self._tuple_fields[kind]
        for index, name in enumerate(self._fields[kind]):
            item = getattr(value, name)
            if index not in tuples:
                fields.append(self._encode(item, memo, long))
            elif type(item) is tuple:
                fields.append([self._encode(i, memo, long) for i in item])
            elif item is None:
                fields.append(None)
            else:
                raise TypeError(f"{kind.__name__}.{name} holds a {type(item).__name__}")
        out = {tag: fields}
        # Numbered once its fields are done, as the decoder numbers it (objects close
        # in that order); the object is kept so its id cannot be reused meanwhile.
        memo[id(value)] = (len(memo), value)
        return out

    # -- decoding -----------------------------------------------------------------

    def decode(self, data: bytes, *, many: bool = False) -> Any:
        """The value ``data`` encodes, checked to be the root type (a list of it with ``many``).

        :raises ValueError: for anything else: bad JSON, an unknown tag, a dataclass with
            the wrong number of fields, a dangling reference, the wrong root type.
        """
        head, newline, tail = data.partition(b"\n")
        if not newline:
            raise ValueError("no end to the JSON text")
        try:
            long = tail.decode().split("\0") if tail else []
        except UnicodeDecodeError as exc:
            raise ValueError(f"the long strings are not UTF-8: {exc}") from None
        objects: list[object] = []
        decoders = self._decoders(objects, long)

        def hook(obj: dict[str, Any]) -> Any:
            if len(obj) == 1:
                for key, value in obj.items():
                    if key[:1] == "\0":
                        decoder = decoders.get(key)
                        if decoder is None:
                            raise ValueError(f"unknown tag {key[1:]!r}")
                        return decoder(value)
            return obj

        # Decoding allocates many containers and no cycles: a collection pass meanwhile
        # is pure cost (a third of the decoding time).
        enabled = gc.isenabled()
        gc.disable()
        try:
            value = json.loads(head, object_hook=hook)
        except (TypeError, KeyError, IndexError, AttributeError, RecursionError) as exc:
            raise ValueError(f"malformed document: {exc!r}") from None
        finally:
            if enabled:
                gc.enable()
        values = value if many else [value]
        if type(values) is not list or not all(type(v) is self.root for v in values):
            raise ValueError(f"the document is not a {self.root.__name__}")
        return value

    def _decoders(self, objects: list[object], long: list[str]) -> dict[str, Callable[[Any], Any]]:
        def pairs(items: list[list[Any]]) -> dict[Any, Any]:
            return {key: value for key, value in items}

        def words(text: str) -> list[str]:
            # Not interned: sys.intern on every card code cost a seventh of the decoding,
            # for about 3 MB saved on the whole corpus.
            return text.split(" ")

        decoders: dict[str, Callable[[Any], Any]] = {
            _TUPLE: tuple,
            _PAIRS: pairs,
            _WORDS: words,
            _REF: objects.__getitem__,
            _LONG: long.__getitem__,
        }
        for cls, names in self._fields.items():
            decoders[self._tags[cls]] = self._builder(cls, names, objects)
        return decoders

    def _builder(
        self, cls: type, names: tuple[str, ...], objects: list[object]
    ) -> Callable[[list[Any]], object]:
        new = object.__new__
        count = len(names)
        tuples = sorted(self._tuple_fields[cls])
        checks = self._checks[cls]

        def build(values: list[Any]) -> object:
            if type(values) is not list or len(values) != count:
                raise ValueError(f"{cls.__name__} needs {count} fields")
            for index in tuples:
                if values[index] is not None:
                    if type(values[index]) is not list:
                        raise ValueError(f"{cls.__name__}.{names[index]}: not a list")
                    values[index] = tuple(values[index])
            for index, name, check in checks:
                if not check(values[index]):
                    raise ValueError(f"{cls.__name__}.{name}: a value of the wrong type")
            # Frozen: filled through __dict__ (what dataclasses' own __init__ does with
            # object.__setattr__, field by field and slower).
            obj: Any = new(cls)
            obj.__dict__.update(zip(names, values, strict=True))  # lengths checked above
            objects.append(obj)
            return obj

        return build


#: Whether a decoded value is of a field's type.
_Check = Callable[[Any], bool]


def _checker(hint: Any, classes: tuple[type, ...]) -> _Check | None:
    """A check that a value is of type ``hint``, or None when anything goes (``Any``, or a
    hint this does not read): containers are checked item by item, dataclasses by class
    (their own fields were checked when they were built)."""
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if hint is Any:
        return None
    if hint in classes:
        return lambda v: type(v) is hint
    if hint is str or hint is bool:
        return lambda v: type(v) is hint
    if hint is int:
        return lambda v: type(v) is int
    if hint is float:
        return lambda v: type(v) is float or type(v) is int
    if origin is typing.Literal:
        allowed = frozenset(args)
        return lambda v: type(v) is str and v in allowed
    if origin in (typing.Union, types.UnionType):
        parts = [_checker(a, classes) for a in args if a is not type(None)]
        if any(part is None for part in parts):
            return None
        checks = [part for part in parts if part is not None]
        return lambda v: v is None or any(check(v) for check in checks)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            item = _checker(args[0], classes)
            if item is None:
                return lambda v: type(v) is tuple
            return lambda v: type(v) is tuple and all(map(item, v))
        return lambda v: type(v) is tuple
    if origin in (dict, collections.abc.Mapping):
        key = _checker(args[0], classes) if args else None
        value = _checker(args[1], classes) if args else None
        return lambda v: (
            type(v) is dict
            and (key is None or all(map(key, v)))
            and (value is None or all(map(value, v.values())))
        )
    if origin is list:
        return lambda v: type(v) is list
    return None


def _is_tuple_hint(hint: Any) -> bool:
    """True for ``tuple[...]`` and ``tuple[...] | None``."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        others = [a for a in typing.get_args(hint) if a is not type(None)]
        return len(others) == 1 and _is_tuple_hint(others[0])
    return hint is tuple or typing.get_origin(hint) is tuple


__all__ = ["Codec"]
