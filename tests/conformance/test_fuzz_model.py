"""The campaign's options and findings (conformance/fuzz/model.py): shards, traces."""

from __future__ import annotations

from conformance import fuzz
from tests.conformance.fuzzkit import (
    options,
)


def test_a_shard_plays_its_share_of_the_games() -> None:
    assert fuzz.game_indices(options(games=10, shard=(2, 3))) == [1, 4, 7]
