"""A law's broken states told briefly (conformance/laws/diffs.py)."""

from __future__ import annotations

from conformance.grading.compare import compare_unchanged
from conformance.laws.diffs import change, told

PACK = [f"{rank}{suit}" for suit in "SHDC" for rank in ("A", "2", "3", "4", "5", "6", "7")]


def test_a_card_come_back_is_named_not_the_whole_pile() -> None:
    before = {"stock": PACK[:-1], "discard": ["3H"], "turn": 1}
    after = {"stock": PACK, "discard": ["3H"], "turn": 1}
    text = told(compare_unchanged(before, after), before, after)
    assert text == "  stock: 27 → 28 cards: [7♣] more"


def test_a_pile_dealt_otherwise_says_where_it_starts_to_differ() -> None:
    other = PACK[:5] + list(reversed(PACK[5:]))
    assert change(PACK, other).startswith("28 → 28 cards, the same cards in another order")
    assert change(PACK, other).endswith("position 5")
    replaced = [*PACK[:3], "KS", "KH", "KD", "KC", "QS", "QH", *PACK[9:]]
    assert change(PACK, replaced) == "28 → 28 cards, other cards from position 3"
    assert change(PACK, PACK[:20]) == "28 → 20 cards, other cards from position 20"
    assert change(PACK, PACK[:-2]) == "28 → 26 cards: [6♣ 7♣] fewer"


def test_short_values_stay_whole() -> None:
    before = {"discard": ["3H"], "turn": 1, "stock": PACK}
    after = {"discard": ["4H"], "turn": 0, "stock": PACK}
    text = told(compare_unchanged(before, after), before, after)
    assert "discard:\n    expected [3♥]\n    actual   [4♥]" in text
    assert "turn:\n    expected 1\n    actual   0" in text
    assert "stock" not in text and "rejected action" not in text
