"""A setup state loaded into an engine whose rulings change the pack's jokers, or its number
of packs (conformance.scenarios.packs.for_pack): refilled, never a false report."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from conformance.knowledge.catalogue import load_catalogue
from conformance.knowledge.profiles import Pack, default_profiles
from conformance.run.runner import RunOptions, run_scenarios
from conformance.scenarios import load_corpus
from conformance.scenarios.packs import conservation_problems, fill_after, for_pack

#: An engine that answers is all these tests need: the reference answers in-process
#: (tests/adapters.py); the tests of what its process does run it as a process.
pytestmark = pytest.mark.usefixtures("reference_in_process")


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


CHILEAN = default_profiles()["chilean"]
# 55 cards, none more than twice, and no 7C, QC or 10S (the tests place those).
FIVE_HANDS = [
    ["AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "JS", "QS"],
    ["KS", "AH", "2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "10H"],
    ["JH", "QH", "KH", "AD", "2D", "3D", "4D", "5D", "6D", "7D", "8D"],
    ["9D", "10D", "JD", "QD", "KD", "AC", "2C", "3C", "4C", "5C", "6C"],
    ["8C", "9C", "10C", "JC", "KC", "AS", "2S", "3S", "4S", "5S", "6S"],
]
TWO_PACKS = Pack(players=(5,), copies=2, jokers=4)


def five_players(hands: list[list[str]], stock_top: list[str]) -> dict[str, object]:
    """A 5-player Chilean state filled to its 160-card pack, as the loader fills it."""
    discard = ["10S"]
    placed = [c for hand in hands for c in hand] + discard
    stock = fill_after(stock_top, placed, CHILEAN.pack(5))
    return {"players": 5, "hands": hands, "table": [], "stock": stock, "discard": discard}


def test_a_pack_fewer_takes_the_last_packs_remainder_out_of_the_filling() -> None:
    state = five_players(FIVE_HANDS, ["7C", "QC"])
    assert len(state["stock"]) == 160 - 55 - 1  # type: ignore[arg-type]
    got = for_pack(state, jokers=4, copies=2)
    assert got is not None
    # 108 cards: 55 in hands, 1 discarded, 52 in the stock, the case's top first.
    assert got["stock"][:2] == ["7C", "QC"] and len(got["stock"]) == 52
    assert got["hands"] == FIVE_HANDS and got["discard"] == ["10S"]
    cards = [c for h in got["hands"] for c in h] + got["stock"] + got["discard"]
    assert conservation_problems(cards, exact=True, pack=TWO_PACKS) == []


def test_a_third_copy_the_case_placed_cannot_be_taken() -> None:
    # Two QC on the stock's top: the engine's two packs can hold that.
    assert for_pack(five_players(FIVE_HANDS, ["QC", "QC"]), jokers=4, copies=2) is not None
    # A third copy the case placed (on the stock's top, or AS twice in hands and on top).
    assert for_pack(five_players(FIVE_HANDS, ["QC", "7C", "QC", "QC"]), 4, 2) is None
    assert for_pack(five_players(FIVE_HANDS, ["AS"]), jokers=4, copies=2) is None
    # A stock given whole, not filled in canonical order: nothing tells the filling apart.
    state = five_players(FIVE_HANDS, [])
    state["stock"] = list(reversed(state["stock"]))  # type: ignore[call-overload]
    assert for_pack(state, jokers=4, copies=2) is None


def test_a_pack_fewer_is_graded_for_an_engine_playing_108_cards(tmp_path: Path) -> None:
    # A 5-player chilean state filled to 160 cards: an engine playing DISPUTE-78 always_108
    # is loaded with 108 and its stock counted as the rules give it.
    case = tmp_path / "five.yaml"
    case.write_text(
        """id: cc-0001
title: five players draw from the stock
rules: [CHILE-CARDS-2, TURN-2]
source: "001 L13"
profiles: [chilean]
level: turns
review: checked
setup:
  state:
    players: 5
    deal_number: 1
    dealer: 0
    turn: 4
    phase: draw
    hands:
      - [AS, 2S, 3S, 4S, 5S, 6S, 7S, 8S, 9S, JS, QS]
      - [KS, AH, 2H, 3H, 4H, 5H, 6H, 7H, 8H, 9H, 10H]
      - [JH, QH, KH, AD, 2D, 3D, 4D, 5D, 6D, 7D, 8D]
      - [9D, 10D, JD, QD, KD, AC, 2C, 3C, 4C, 5C, 6C]
      - [8C, 9C, 10C, JC, KC, AS, 2S, 3S, 4S, 5S, 6S]
    discard: [10S]
    stock_top: [7C]
steps:
  - action: {type: draw_stock, player: 4}
    expect: accepted
    state:
      hands: {4: [8C, 9C, 10C, JC, KC, AS, 2S, 3S, 4S, 5S, 6S, 7C]}
final:
  # 160 cards (108 always) less 5 hands of 11 and the discard, less the draw.
  stock_size: {by_option: {DISPUTE-78: {by_players: 103, always_108: 51}}}
""",
        encoding="utf-8",
    )
    _passes_under_each(case, "chilean", "DISPUTE-78", ("by_players", "always_108"))


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
    _passes_under_each(case, "perla", "DISPUTE-61", ("two_jokers", "four_jokers"))


def test_missing_jokers_join_the_bottom_of_the_discard_under_a_stock_given_whole() -> None:
    # The case chose every stock card (and an empty stock): the jokers the engine's pack has
    # more go under the discard pile, which no draw reaches before it is recycled.
    got = for_pack(state([], ["2C"], ["JK"]), jokers=3, stock_given=True)
    assert got is not None and got["stock"] == [] and got["discard"] == ["2C", "JK", "JK"]


def test_a_deal_whose_cards_cannot_make_the_engines_pack_is_not_graded(tmp_path: Path) -> None:
    # Five hands holding three AS (CHILE-CARDS-2: three packs for five players) cannot be
    # dealt from an engine's two packs (DISPUTE-78 always_108): not graded, never failed.
    hands = [list(hand) for hand in FIVE_HANDS]
    hands[1][0] = "AS"
    rows = "\n".join(f"      - [{', '.join(hand)}]" for hand in hands)
    case = tmp_path / "deal.yaml"
    case.write_text(
        f"""id: cc-0001
title: five players are dealt three aces of spades
rules: [CHILE-CARDS-2]
source: "001 L13"
profiles: [chilean]
level: deals
review: checked
setup:
  deal:
    players: 5
    deal_number: 1
    dealer: 4
    hands:
{rows}
    upcard: 10S
steps:
  - action: {{type: draw_stock, player: 0}}
    expect: accepted
final:
  hand_sizes: [12, 11, 11, 11, 11]
""",
        encoding="utf-8",
    )
    catalogue = load_catalogue()
    loaded = load_corpus([case], catalogue=catalogue)
    assert loaded.errors == ()
    statuses = {}
    for option in ("by_players", "always_108"):
        argv = [sys.executable, "-m", "reference.adapter", "--ruling", f"DISPUTE-78={option}"]
        options = RunOptions(profile="chilean")
        (case_result,) = run_scenarios(argv, loaded.scenarios, options, catalogue=catalogue).results
        statuses[option] = case_result.status
        if option == "always_108":
            assert "cannot be dealt" in (case_result.note or "")
    assert statuses == {"by_players": "pass", "always_108": "unsupported"}


def _passes_under_each(case: Path, profile: str, point: str, options: tuple[str, ...]) -> None:
    """``case`` passes, every check graded, with the reference playing each option of
    ``point`` in ``profile``; its final stock size among the checks."""
    catalogue = load_catalogue()
    loaded = load_corpus([case], catalogue=catalogue)
    assert loaded.errors == ()
    for option in options:
        argv = [sys.executable, "-m", "reference.adapter", "--ruling", f"{point}={option}"]
        run = run_scenarios(
            argv, loaded.scenarios, RunOptions(profile=profile), catalogue=catalogue
        )
        (case_result,) = run.results
        assert case_result.status == "pass", case_result.diff or case_result.note
        assert all(c.status == "pass" for c in case_result.checks)
        assert "final stock_size" in {c.key for c in case_result.checks}


def test_a_case_assuming_an_option_is_checked_and_run_with_that_options_pack(
    tmp_path: Path,
) -> None:
    """A fuzz draft against an engine ruling DISPUTE-78 always_108 deals a 108-card chilean
    deck and says so in ``assumes``: ``check`` accepts it and ``run`` replays it; without
    the assumption the same deck is one pack too many."""
    from conformance.knowledge.optionfacts import with_options
    from conformance.laws.greedy import full_deck

    facts = with_options(
        default_profiles()["chilean"], lambda p: "always_108" if p == "DISPUTE-78" else None
    )
    deck = full_deck(facts, 2)
    assert len(deck) == 108
    text = f"""id: cc-8000
title: a deal from the 108-card pack
rules: [CHILE-CARDS-1]
source: "fuzz seed 0 game 0"
profiles: [chilean]
level: deals
review: draft
assumes: {{DISPUTE-78: always_108}}
setup:
  deal:
    players: 2
    deal_number: 1
    dealer: 1
    deck: [{", ".join(deck)}]
steps:
  - action: {{type: draw_stock, player: 0}}
    expect: accepted
final:
  stock_size: {108 - 2 * facts.hand_size(1) - 2}
"""
    case = tmp_path / "cc-8000.yaml"
    case.write_text(text, encoding="utf-8")
    catalogue = load_catalogue()
    loaded = load_corpus([case], catalogue=catalogue)
    assert loaded.errors == (), [str(e) for e in loaded.errors]
    argv = [sys.executable, "-m", "reference.adapter", "--ruling", "DISPUTE-78=always_108"]
    run = run_scenarios(argv, loaded.scenarios, RunOptions(profile="chilean"), catalogue=catalogue)
    assert [r.status for r in run.results] == ["pass"], run.results
    case.write_text(text.replace("assumes: {DISPUTE-78: always_108}\n", ""), encoding="utf-8")
    refused = load_corpus([case], catalogue=catalogue)
    assert any("108 cards: the chilean pack has only 106" in str(e) for e in refused.errors)
