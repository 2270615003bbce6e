"""A setup state loaded into an engine whose rulings change the pack's jokers
(conformance.scenarios.packs.for_pack): refilled, never a false report."""

from __future__ import annotations

import sys
from pathlib import Path

from conformance.catalogue import load_catalogue
from conformance.runner import RunOptions, run_scenarios
from conformance.scenarios import load_corpus
from conformance.scenarios.packs import for_pack


def state(stock: list[str], discard: list[str], hand: list[str]) -> dict[str, object]:
    return {"players": 2, "hands": [hand, []], "table": [], "stock": stock, "discard": discard}


def test_surplus_jokers_leave_the_bottom_of_the_stock_first() -> None:
    # Five jokers (three at the stock's bottom), a pack of three: two leave the stock.
    got = for_pack(state(["5H", "JK", "JK", "JK"], ["JK"], ["JK"]), jokers=3)
    assert got is not None
    assert got["stock"] == ["5H", "JK"] and got["discard"] == ["JK"]


def test_then_the_bottom_of_the_discard_pile() -> None:
    # Three jokers, none in the pack: one from the stock, then two from the discard pile.
    got = for_pack(state(["5H", "JK"], ["2C", "JK", "JK"], []), jokers=0)
    assert got is not None
    assert got["stock"] == ["5H"] and got["discard"] == ["2C"]


def test_jokers_the_case_placed_elsewhere_cannot_be_taken() -> None:
    # Three jokers in hand, one pack of two: no honest state to load.
    assert for_pack(state(["5H"], ["2C"], ["JK", "JK", "JK"]), jokers=2) is None
    # A joker above a natural card is part of the case's stock, not of its filling.
    assert for_pack(state(["JK", "5H"], ["2C"], []), jokers=0) is None


def test_missing_jokers_join_the_bottom_of_the_stock() -> None:
    got = for_pack(state(["5H"], ["2C"], ["JK"]), jokers=4)
    assert got is not None and got["stock"] == ["5H", "JK", "JK", "JK"]


def test_a_perla_case_about_steals_is_graded_for_an_engine_with_two_jokers(
    tmp_path: Path,
) -> None:
    # A 4-player perla state filled to 108 cards (four jokers, all in the stock's filling):
    # an engine playing DISPUTE-61 `two_jokers` is dealt 106 and must be loaded with 106.
    case = tmp_path / "steal.yaml"
    case.write_text(
        """id: cc-0001
title: a steal after the players ahead pass
rules: [PERLA-STEAL-1]
source: "003 L34"
profiles: [perla]
level: turns
review: checked
assumes: {DISPUTE-64: after_passes}
setup:
  state:
    players: 4
    deal_number: 1
    dealer: 0
    turn: 1
    phase: draw
    hands:
      - [2C, 3C, 4C, 5C, 9D, 9H, JD, QH, KS, KD, 7H]
      - [8C, 8D, 8H, QS, QD, QC, 2H, 3H, KC, 10D, 5S]
      - [AS, AC, 5D, 6D, 10S, JC, JS, KH, 2S, 9S, 3D]
      - [4S, 4D, 6C, 6S, 7D, 7S, 8S, 10C, 10H, QC, KC]
    discard: [JH, 6H]
    stock_top: [7C]
steps:
  - action: {type: draw_stock, player: 1}
    expect: accepted
  - action: {type: pass, player: 2}
    expect: accepted
  - action: {type: draw_discard, player: 3}
    expect: accepted
final:
  # 108 cards (106 with two jokers) less 4 hands of 11 and 2 discards, less the draw.
  stock_size: {by_option: {DISPUTE-61: {four_jokers: 61, two_jokers: 59}}}
  hand_sizes: [11, 12, 11, 12]
""",
        encoding="utf-8",
    )
    catalogue = load_catalogue()
    loaded = load_corpus([case], catalogue=catalogue)
    assert loaded.errors == ()
    for jokers in ("two_jokers", "four_jokers"):
        argv = [sys.executable, "-m", "reference.adapter", "--ruling", f"DISPUTE-61={jokers}"]
        options = RunOptions(profile="perla")
        (case_result,) = run_scenarios(argv, loaded.scenarios, options, catalogue=catalogue).results
        assert case_result.status == "pass", case_result.diff or case_result.note
        assert all(c.status == "pass" for c in case_result.checks)
        assert "final stock_size" in {c.key for c in case_result.checks}
