"""EngineFacts, the per-engine memo of conformance/knowledge/optionfacts.py, answers as the
functions do.

A run asks each of these once per engine instead of once per case; a memo that answered
for another option, or kept a value a later question must not see, would deal an engine
cards of another pack. So every answer is compared with the function's, under every option
of every point a fact depends on, for every player count and deal the profile has and for
some it has not.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import product

import pytest

from conformance.adapter.declarations import declarations
from conformance.adapter.engine import Handshake
from conformance.knowledge.catalogue import load_catalogue
from conformance.knowledge.optionfacts import (
    EngineFacts,
    hand_size,
    meld_wild_limit,
    pack,
    points,
    wild_ranks,
)
from conformance.knowledge.profiles import ProfileError, default_profiles

CATALOGUE = load_catalogue()
PROFILES = default_profiles()


def every_ruling(profile: str) -> list[Callable[[str], str | None]]:
    """One ruling per combination of options of the points the profile's facts read."""
    named = points().get(profile, ())
    options = [CATALOGUE.disputes[p].options for p in named]
    return [dict(zip(named, chosen, strict=True)).get for chosen in product(*options)]


def answer(ask: Callable[..., object], *args: object) -> object:
    try:
        return ask(*args)
    except ProfileError as exc:
        return ("ProfileError", str(exc))


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_every_answer_is_the_functions_under_every_option(name: str) -> None:
    profile = PROFILES[name]
    counts = [*profile.players, 1, max(profile.players) + 1]
    deals = [*range(1, profile.deal_count + 1), profile.deal_count + 1]
    for ruling in every_ruling(name):
        facts = EngineFacts(profile, ruling)
        for _ in range(2):  # the second time from the memo
            for n in counts:
                assert answer(facts.pack, n) == answer(pack, profile, n, ruling)
                if n in profile.players:
                    theirs, own = pack(profile, n, ruling), profile.pack(n)
                    assert facts.other_pack(n) == (None if theirs == own else theirs)
                else:
                    assert facts.other_pack(n) is None
            for d in deals:
                assert answer(facts.hand_size, d) == answer(hand_size, profile, d, ruling)
            assert facts.wild_ranks == wild_ranks(profile, ruling)
            for kind in ("trio", "run", "escala", "other"):
                assert facts.meld_wild_limit(kind) == meld_wild_limit(profile, kind, ruling)


def test_an_engines_declarations_keep_the_facts_of_its_own_rulings() -> None:
    hello = Handshake.from_hello(
        {
            "protocol": 1,
            "implementation": {"name": "t", "version": "1", "language": "x"},
            "profiles": ["chilean"],
            "capabilities": ["melds", "turns", "deals"],
            "rulings": {"DISPUTE-43": "one_fifty_nine"},
        }
    )
    view = declarations(hello, "chilean", CATALOGUE)
    facts = view.facts
    assert facts is not None and facts is view.facts  # worked out once
    chilean = PROFILES["chilean"]
    for players in chilean.players:
        assert facts.pack(players) == pack(chilean, players, view.ruling)
    # DISPUTE-43 one_fifty_nine: the 160-card pack loses a joker, so it is another pack.
    big = max(chilean.players)
    assert facts.other_pack(big) is not None
    assert facts.other_pack(big) == pack(chilean, big, view.ruling)
    assert facts.pack(big).jokers == chilean.pack(big).jokers - 1
