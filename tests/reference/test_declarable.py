"""Behaviours real engines have that are declarable: DISPUTE-09 ``jokers`` and DISPUTE-31 /
DISPUTE-41 ``runs_at_least``. Expected values come from the options' texts in docs/rules.md."""

from __future__ import annotations

import pytest

from reference.cards import JOKER, Card, full_pack
from reference.game import start_deal
from reference.melds import check_meld
from reference.profiles import ARGENTINE, CHILEAN, PAGAT, Profile
from reference.reasons import Reason
from tests.reference.ref_helpers import cards, run, trio


def _deck_with_upcard(profile: Profile, upcard: Card, players: int = 2) -> tuple[Card, ...]:
    """A full deck whose card after two 11-card hands is ``upcard`` (deck[0] on top)."""
    pack = list(full_pack(*profile.pack(players)))
    pack.remove(upcard)
    return (*pack[:22], upcard, *pack[22:])


@pytest.mark.parametrize(
    ("option", "upcard", "buried"),
    [
        ("stays", JOKER, False),
        ("bury", JOKER, True),
        ("jokers", JOKER, True),
        ("stays", cards("2D")[0], False),
        ("bury", cards("2D")[0], True),
        ("jokers", cards("2D")[0], False),  # a natural 2 stays under jokers
    ],
)
def test_dispute_09_buries_what_its_option_names(option: str, upcard: Card, buried: bool) -> None:
    profile = ARGENTINE.with_rulings({"DISPUTE-09": option})
    deck = _deck_with_upcard(profile, upcard)
    state = start_deal(profile, 2, 1, 0, (0, 0), deck)
    assert (state.discard[0] != upcard) is buried
    if buried:
        assert state.stock[-1] == upcard  # to the bottom of the stock
        assert state.discard[0] == deck[23]  # the next card turned up instead


@pytest.mark.parametrize(
    ("profile", "point"),
    [(ARGENTINE, "DISPUTE-31"), (PAGAT, "DISPUTE-31"), (CHILEAN, "DISPUTE-41")],
    ids=["argentine", "pagat", "chilean"],
)
def test_runs_at_least_takes_longer_runs_but_trios_of_three_only(
    profile: Profile, point: str
) -> None:
    played = profile.with_rulings({point: "runs_at_least"})
    assert check_meld(run("4S 5S 6S 7S 8S"), initial=True, profile=played) is None
    assert check_meld(run("4S 5S 6S 7S"), initial=True, profile=played) is None
    assert check_meld(trio("8C 8D 8H"), initial=True, profile=played) is None
    four = trio("8C 8D 8H 8S")
    assert check_meld(four, initial=True, profile=played) is Reason.TRIO_SIZE
    # On the table a trio still grows past three (MELD-TRIO-4).
    assert check_meld(four, initial=False, profile=played) is None
    # exact still refuses the long run; at_least still takes the long trio.
    exact = profile.with_rulings({point: "exact"})
    assert check_meld(run("4S 5S 6S 7S 8S"), initial=True, profile=exact) is Reason.RUN_SIZE
    at_least = profile.with_rulings({point: "at_least"})
    assert check_meld(four, initial=True, profile=at_least) is None
