"""The shards a merge lacks (conformance/run/shards.py), named within a bound."""

from __future__ import annotations

from conformance.run.shards import MISSING_SHARDS_NAMED, missing_shards


def test_no_shard_missing_is_said_as_nothing() -> None:
    assert missing_shards({1, 2, 3}, 3) == ""
    assert missing_shards({1}, 1) == ""


def test_the_missing_shards_are_named_in_order() -> None:
    assert missing_shards({2}, 3) == "1/3, 3/3"
    assert missing_shards({1, 3}, 4) == "2/4, 4/4"


def test_past_the_bound_the_rest_are_counted_not_named() -> None:
    listing = missing_shards({1}, 1_000_000_000)
    named = [f"{k}/1000000000" for k in range(2, 2 + MISSING_SHARDS_NAMED)]
    assert listing == ", ".join(named) + f" and {1_000_000_000 - 1 - MISSING_SHARDS_NAMED} more"
