"""The campaign's options and findings (conformance/fuzz/model.py): shards, traces."""

from __future__ import annotations

import pytest

from conformance import fuzz
from tests.conformance.fuzzkit import (
    options,
)


def test_shard_syntax() -> None:
    assert fuzz.parse_shard("2/4") == (2, 4)
    for bad in ("0/4", "5/4", "a/b", "3"):
        with pytest.raises(fuzz.FuzzError, match="--shard"):
            fuzz.parse_shard(bad)
    assert fuzz.game_indices(options(games=10, shard=(2, 3))) == [1, 4, 7]
