"""DISPUTE-18's timings under Perla's empty stock (DISPUTE-75 ``round_ends``).

docs/rules.md gives DISPUTE-18 no effect in ``perla`` while the round ends at the empty
stock ("under DISPUTE-75 round_ends no stock is recycled"): an engine declaring another
recycling time with Perla's empty stock plays exactly as one declaring ``b``. Expected
values come from that text and PERLA-SCORE-2's table, never from running the engine.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from ref_helpers import cards, make_state

from reference import PERLA, Discard, DrawStock, GameState, Phase, apply
from reference.profiles import Profile


def perla(**rulings: str) -> Profile:
    return PERLA.with_rulings({k.replace("_", "-"): v for k, v in rulings.items()})


def last_stock_card(profile: Profile) -> GameState:
    # One card left in the stock; the discard pile has enough to recycle.
    state = make_state(["8C 9D", "KC KD"], deal_number=1, turn=0, stock="5C", discard="6H 5S 4S")
    return replace(state, profile=profile)


@pytest.mark.parametrize("timing", ["a", "b", "c"])
def test_dispute_18_recycles_nothing_while_the_round_ends_at_the_empty_stock(timing: str) -> None:
    profile = perla(DISPUTE_18=timing)
    drawn = apply(last_stock_card(profile), DrawStock(0))
    assert drawn.stock == () and drawn.discard == cards("6H 5S 4S")  # not even under a
    passed = apply(drawn, Discard(0, cards("5C")[0]))
    assert passed.stock == () and passed.discard == cards("5C 6H 5S 4S")  # nor under c
    ended = apply(passed, DrawStock(1))
    assert ended.phase is Phase.DEAL_OVER and ended.closer is None  # PERLA-STOCK-1
    assert ended.deal_scores == (17, 20)  # 8 + 9 and 10 + 10 (PERLA-SCORE-2)


def test_dispute_18_a_still_recycles_at_once_when_perla_recycles() -> None:
    profile = perla(DISPUTE_18="a", DISPUTE_75="recycle")
    drawn = apply(last_stock_card(profile), DrawStock(0))
    assert drawn.discard == cards("6H")  # STOCK-1: all but the top discard, at once
    assert sorted(c.code() for c in drawn.stock) == ["4S", "5S"]
