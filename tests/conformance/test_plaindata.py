"""The plain-data codec of the load cache (conformance/io/plaindata.py): exact, and nothing else."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

import pytest

from conformance.io.plaindata import Codec


@dataclass(frozen=True)
class Leaf:
    name: str
    words: tuple[str, ...] = ()
    extra: Any = None


@dataclass(frozen=True)
class Root:
    leaves: tuple[Leaf, ...]
    maybe: tuple[int, ...] | None = None
    first: Leaf | None = None
    by_name: dict[str, Leaf] = field(default_factory=dict)


CODEC = Codec(Root, Leaf)


def _same(a: object, b: object) -> bool:
    """Equal, and of the same types all the way down (``==`` takes (1,) for [1])."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        assert isinstance(b, dict)
        return list(a) == list(b) and all(
            type(k) is type(j) and _same(a[k], b[j]) for k, j in zip(a, b, strict=True)
        )
    if isinstance(a, list | tuple):
        assert isinstance(b, list | tuple)
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, Leaf | Root):
        return all(_same(getattr(a, f), getattr(b, f)) for f in vars(a))
    return bool(a == b)


def test_values_come_back_with_their_exact_types() -> None:
    awkward: Any = {
        "hands": {1: ["3C", "4C"], 0: ["JK"]},  # int keys, as YAML gives them
        "\0t": ["a key shaped like a tag"],
        "lists": [[], [""], ["x"], ["two words", "b"], ["", "a"], ["8C", "8D", "8H"]],
        "scalars": [0, -1, 2**70, 1.5, -0.0, True, False, None, "", "ñ é ☃", "\0s"],
        "tuples": ((), (1,), ((1, 2), [3])),
    }
    leaf = Leaf("shared", ("a", "b"), awkward)
    value = Root(leaves=(leaf, Leaf("other")), maybe=None, first=leaf, by_name={"s": leaf})
    back = CODEC.decode(CODEC.encode(value))
    assert _same(back, value)
    # An object met twice is one object again, as the scenario's setup is one of its setups.
    assert back.first is back.leaves[0] is back.by_name["s"]


def test_a_list_of_roots_is_read_with_many() -> None:
    value = [Root(leaves=()), Root(leaves=(Leaf("x"),), maybe=(1, 2))]
    back = CODEC.decode(CODEC.encode(value), many=True)
    assert _same(back, value)


@pytest.mark.parametrize(
    "value",
    [
        Root(leaves=(Leaf("x", extra={1, 2}),)),  # a set
        Root(leaves=(Leaf("x", extra=math.nan),)),  # not JSON
        Root(leaves=(Leaf("x", extra=object()),)),  # an unknown class
        Root(leaves=(Leaf("x", extra="\ud800"),)),  # not UTF-8
        Root(leaves=[Leaf("x")]),  # type: ignore[arg-type]  # a list in a tuple field
    ],
)
def test_what_cannot_be_read_back_exactly_is_refused(value: Root) -> None:
    with pytest.raises((TypeError, ValueError)):
        CODEC.encode(value)


@pytest.mark.parametrize(
    "data",
    [
        b"42\n",
        b"[]\n",
        b'{"\\u0000Leaf": ["x", [], null]}\n',  # not the root class
        b'{"\\u0000os.system": ["echo hi"]}\n',  # no such tag: nothing is looked up by name
        b'{"\\u0000Root": [[], null]}\n',  # a field missing
        b'{"\\u0000Root": [[], null, null, {}, 5]}\n',  # a field too many
        b'{"\\u0000Root": [[], null, {"\\u0000r": 7}, {}]}\n',  # a reference to nothing
        b'{"\\u0000Root": [[], null, {"\\u0000x": 3}, {}]}\nonly one',  # a long string too few
        b'{"\\u0000Root": [5, null, null, {}]}\n',  # a tuple field that is not a list
        b"[" * 100_000 + b"]" * 100_000 + b"\n",  # deep nesting
        b'{"\\u0000Root": [[], null, null, {}]}',  # no newline after the JSON text
        b'{"\\u0000Root": [[], null, null, {}]}\n\xff',  # long strings not UTF-8
        b"\xff\xfe\n",
        b"",
    ],
)
def test_a_hostile_or_broken_document_is_a_value_error(data: bytes) -> None:
    with pytest.raises(ValueError):
        CODEC.decode(data)


def test_a_single_root_is_not_a_list_of_roots() -> None:
    with pytest.raises(ValueError):
        CODEC.decode(CODEC.encode(Root(leaves=())), many=True)


def test_the_encoding_is_plain_json_then_the_long_strings() -> None:
    long, with_nul = "é" * 600, "\0" * 600
    data = CODEC.encode(Root(leaves=(Leaf("x", ("a", "b"), {"k": long, "n": with_nul}),)))
    text, tail = data.split(b"\n", 1)
    assert json.loads(text) == {
        "\0Root": [
            [{"\0Leaf": ["x", ["a", "b"], {"k": {"\0x": 0}, "n": with_nul}]}],
            None,
            None,
            {},
        ]
    }
    assert tail == long.encode()
    assert CODEC.decode(data).leaves[0].extra == {"k": long, "n": with_nul}


def test_a_codec_refuses_classes_it_could_not_rebuild_faithfully() -> None:
    @dataclass(frozen=True)
    class Checked:
        n: int

        def __post_init__(self) -> None:
            pass

    with pytest.raises(TypeError):
        Codec(Checked)
    with pytest.raises(TypeError):
        Codec(dict)
