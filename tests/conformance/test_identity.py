"""conformance/scenarios/identity.py: a value per object, never per equal object or reused id."""

from __future__ import annotations

from conformance.scenarios.identity import kept


def test_a_value_is_made_once_per_object_and_not_shared_by_an_equal_one() -> None:
    table: dict[int, tuple[list[int], str]] = {}
    made: list[list[int]] = []

    def make(key: list[int]) -> str:
        made.append(key)
        return f"value {len(made)}"

    first, equal = [1, 2], [1, 2]
    assert kept(table, first, make) == "value 1"
    assert kept(table, first, make) == "value 1"
    assert kept(table, equal, make) == "value 2"  # equal, but another object
    assert made == [first, equal] and made[0] is first
    # The object is kept with its value: its id cannot be reused while the entry lives.
    assert table[id(first)][0] is first
