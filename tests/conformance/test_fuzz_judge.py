"""Judging an answer beside the reference's (conformance/fuzz/judge.py): fair reasons."""

from __future__ import annotations

import pytest

from conformance import fuzz


def test_fair_reason_families() -> None:
    assert fuzz.same_fair_family("run_wraps", "beyond_ace")
    assert fuzz.same_fair_family("beyond_ace", "does_not_fit")
    assert not fuzz.same_fair_family("run_wraps", "does_not_fit")
    assert not fuzz.same_fair_family("run_gap", "run_suit")


@pytest.mark.parametrize(
    ("run", "card", "end", "reason", "fair"),
    [
        # docs/reasons.md: the 2 above a high ace, the K below a low one, or a joker would
        # go round the corner; any other card past an ace fits nowhere either.
        (["JS", "QS", "KS", "AS"], "2S", "high", "beyond_ace", ["beyond_ace", "run_wraps"]),
        (["JH", "QH", "KH", "JK"], "2H", "high", "beyond_ace", ["beyond_ace", "run_wraps"]),
        (["AS", "2S", "3S", "4S"], "KS", "low", "beyond_ace", ["beyond_ace", "run_wraps"]),
        (["JK", "2S", "3S", "4S"], "JK", "low", "beyond_ace", ["beyond_ace", "run_wraps"]),
        (["JS", "QS", "KS", "AS"], "10S", "high", "beyond_ace", ["beyond_ace", "does_not_fit"]),
        (["AS", "2S", "3S", "4S"], "2H", "low", "beyond_ace", ["beyond_ace", "does_not_fit"]),
        # Not past an ace: the families of fair_reasons.
        (["5S", "6S", "7S", "JK"], "8S", "high", "does_not_fit", ["beyond_ace", "does_not_fit"]),
    ],
)
def test_a_lay_off_past_an_ace_is_judged_by_its_card(
    run: list[str], card: str, end: str, reason: str, fair: list[str]
) -> None:
    state = {"table": [{"owner": 0, "kind": "trio", "cards": ["9C", "9D", "9H"]},
                       {"owner": 0, "kind": "run", "cards": run}]}  # fmt: skip
    action = {"type": "lay_off", "player": 0, "card": card, "meld": 1, "end": end}
    assert fuzz.lay_off_fair_reasons(reason, action, state) == fair
    # A trio, or another action, keeps the families.
    trio = {**action, "meld": 0}
    assert fuzz.lay_off_fair_reasons("does_not_fit", trio, state) == ["beyond_ace", "does_not_fit"]
    swap = {"type": "swap_joker", "player": 0, "card": card, "meld": 1, "to": end}
    assert fuzz.lay_off_fair_reasons("beyond_ace", swap, state) == fuzz.fair_reasons("beyond_ace")
