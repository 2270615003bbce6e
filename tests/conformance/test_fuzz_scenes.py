"""Games and scenes (conformance/fuzz/games.py, scenes.py): the reference against itself
reaches what the campaign aims at, in every profile, and finds nothing."""

from __future__ import annotations

import pytest

from tests.conformance.fuzzkit import (
    REFERENCE,
    run_fuzz,
)

#: An engine that answers is all these tests need: the reference answers in-process
#: (tests/adapters.py); the tests of what its process does run it as a process.
pytestmark = pytest.mark.usefixtures("reference_in_process")


def test_the_reference_against_itself_finds_nothing() -> None:
    result = run_fuzz(REFERENCE, games=12, max_steps=120)
    assert result.findings == []
    assert result.games_played == 12
    assert result.steps > 1000 and result.queries > 0
    # The mixed policies reach every part of a deal listed here (seeded: always so).
    events = ("open", "lay_off", "discard", "draw_discard", "close", "cancel", "recycle")
    for event in (*events, "next_deal"):
        assert result.events.get(event, 0) > 0, event
    # The scenes after the main games: closes in the last deal, ties for the lowest total,
    # runs probed at their ace and joker ends, a new game; and no built scene refused.
    scenes = ("scene: closing", "scene: run ends", "scene: new game")
    for event in (*scenes, "game_over", "tied game end", "probe: extra meld"):
        assert result.events.get(event, 0) > 0, event
    assert "probe: refused" not in result.events
    assert "scene: refused" not in result.events


@pytest.mark.parametrize("profile", ["chilean", "pagat", "perla"])
def test_each_profiles_reference_against_itself_finds_nothing(profile: str) -> None:
    result = run_fuzz(REFERENCE, games=6, max_steps=120, profile=profile)
    assert result.findings == []
    assert result.games_played == 6 and result.steps > 500
    # (The scenes' game ends in these profiles show in the subsets below: chilean_tie_breaks,
    # chilean_seven_rounds, perla_going_out_zero.)
    probes = ("probe: extra meld", "probe: natural 2") if profile == "chilean" else ()
    for event in ("open", "discard", "draw_discard", "close", "scene: closing", *probes):
        assert result.events.get(event, 0) > 0, event
    assert "probe: refused" not in result.events
    # Every built state is one the profile allows (perla's trios of different suits...).
    assert not any("refuses the setup" in event for event in result.events), result.events
    assert "scene: refused" not in result.events
