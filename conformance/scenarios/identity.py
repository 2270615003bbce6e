"""Values worked out once per object, looked up by the object's identity.

Plans, steps, cases and catalogues are frozen but not hashable (they hold dicts), and
comparing them by value would cost what the cache saves. So a table is keyed by ``id``
and keeps the object beside its value: while the entry lives the object does too, and
its id cannot be reused by another.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

K = TypeVar("K")
V = TypeVar("V")


def kept(table: dict[int, tuple[K, V]], key: K, make: Callable[[K], V]) -> V:
    """``make(key)``, made once per ``key`` object and kept in ``table``."""
    known = table.get(id(key))
    if known is None or known[0] is not key:
        known = (key, make(key))
        table[id(key)] = known
    return known[1]


__all__ = ["kept"]
