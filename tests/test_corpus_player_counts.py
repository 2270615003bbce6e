"""Every profile's slice plays its smallest and largest player count through dealing, turn
order, scoring and deal passing.

An engine that breaks only at five Pagat players, or only with two, must meet a case there: a
case at that count that deals a deal (level ``deals``), passes a turn (a discard followed by
another player's action), checks the deal's scores and deals the next deal.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from itertools import pairwise
from typing import Any

import pytest

from conformance.knowledge.catalogue import load_catalogue
from conformance.knowledge.profiles import default_profiles
from conformance.scenarios import Scenario, load_corpus
from tests.paths import ROOT


@pytest.fixture(scope="module")
def corpus() -> tuple[Scenario, ...]:
    loaded = load_corpus([ROOT / "scenarios"], catalogue=load_catalogue())
    assert not loaded.errors
    return loaded.scenarios


def _players(scenario: Scenario) -> int | None:
    setup = scenario.setup
    if setup is None or setup.deal is None:
        return None
    players = setup.deal.get("players")
    return players if isinstance(players, int) else None


def _checked_keys(expect: Any) -> Iterator[str]:
    """The state keys a ``state``/``final`` check names (through ``by_option`` too)."""
    if isinstance(expect, Mapping):
        if set(expect) == {"by_option"}:
            for key, branch in expect["by_option"].items():
                # {by_option: {POINT: {option: value}}} names the point, then its options.
                named = isinstance(branch, Mapping) and re.fullmatch(r"(DISPUTE|VARIANT)-\d+", key)
                for value in branch.values() if named else (branch,):
                    yield from _checked_keys(value)
        else:
            yield from (str(k) for k in expect)


def _plays_the_count_through(scenario: Scenario) -> bool:
    kinds = [step.kind for step in scenario.steps]
    actions = [step.action or {} for step in scenario.steps]
    # A discard followed by another player's action: the turn passed.
    passed = any(
        a.get("type") == "discard" and b.get("player") not in (None, a.get("player"))
        for a, b in pairwise(actions)
    )
    checked = {k for step in scenario.steps for k in _checked_keys(step.state)}
    checked |= set(_checked_keys(scenario.final))
    return passed and "next_deal" in kinds and "deal_scores" in checked


@pytest.mark.parametrize("profile", sorted(default_profiles()))
def test_each_end_of_the_player_range_is_played_through(
    profile: str, corpus: tuple[Scenario, ...]
) -> None:
    counts = default_profiles()[profile].players
    for players in (min(counts), max(counts)):
        through = [
            s.id
            for s in corpus
            if profile in s.profiles
            and s.level == "deals"
            and _players(s) == players
            and _plays_the_count_through(s)
        ]
        # Two, in different setups, so one edited case does not lose the count.
        assert len(through) >= 2, (profile, players, through)
