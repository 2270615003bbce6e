"""Perla's hand sizes under DISPUTE-68 and DISPUTE-69 (conformance/data/option_facts.json).

docs/rules.md: DISPUTE-68 `thirteen_last` deals 11 and 13 in the last round, `eleven` 11 in
every round; DISPUTE-69 `round_7_only` and `round_8_only` play seven rounds, "the last dealt
13 cards". The harness composes decks with these sizes, so a deal-7 case is dealt to such an
engine as it deals.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from conformance.knowledge.optionfacts import hand_size
from conformance.knowledge.profiles import default_profiles

PERLA = default_profiles()["perla"]


def rulings(**given: str) -> Callable[[str], str | None]:
    chosen = {k.replace("_", "-"): v for k, v in given.items()}
    return chosen.get


def test_both_rounds_deal_thirteen_in_round_8_only() -> None:
    ruling = rulings(DISPUTE_68="thirteen_last", DISPUTE_69="both")
    assert [hand_size(PERLA, d, ruling) for d in range(1, 9)] == [11] * 7 + [13]


@pytest.mark.parametrize("last", ["round_7_only", "round_8_only"])
def test_seven_rounds_deal_thirteen_in_the_seventh(last: str) -> None:
    ruling = rulings(DISPUTE_68="thirteen_last", DISPUTE_69=last)
    assert [hand_size(PERLA, d, ruling) for d in range(1, 8)] == [11] * 6 + [13]


@pytest.mark.parametrize("last", ["both", "round_7_only", "round_8_only"])
def test_eleven_cards_in_every_round_whichever_rounds_are_played(last: str) -> None:
    ruling = rulings(DISPUTE_68="eleven", DISPUTE_69=last)
    assert {hand_size(PERLA, d, ruling) for d in range(1, 8)} == {11}
