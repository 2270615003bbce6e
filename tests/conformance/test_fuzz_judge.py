"""Judging an answer beside the reference's (conformance/fuzz/judge.py): fair reasons, recycles,
and the rules a divergence is filed under."""

from __future__ import annotations

import re
from typing import Any

import pytest

from conformance import fuzz
from conformance.fuzz.judge import (
    FAIR_FAMILIES,
    action_rule,
    canonical_state,
    classify_state,
    deciding_rules,
    expected_state,
    length_decides,
    pool_mismatches,
    recycle_drawer,
    recycled_in,
    repaired,
)
from conformance.grading.compare import compare_state
from conformance.knowledge.cards import RANKS
from conformance.knowledge.profiles import find_profile
from tests.conformance.fuzzkit import CATALOGUE
from tests.paths import ROOT


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


# --------------------------------------------------------------------------- recycles


def _state(hands: list[list[str]], stock: list[str], discard: list[str]) -> dict[str, Any]:
    return {
        "phase": "play",
        "turn": 0,
        "hands": hands,
        "table": [],
        "stock": stock,
        "discard": discard,
    }


def test_a_recycle_is_seen_by_the_stock_growing_within_a_turn() -> None:
    draw = {"type": "draw_stock", "player": 0}
    before = _state([["AS"], ["KD"]], [], ["2C", "3C", "4C"])
    after = _state([["AS", "3C"], ["KD"]], ["4C"], ["2C"])
    assert recycled_in(before, after, draw) and recycle_drawer(before, draw) == 0
    plain = _state([["AS"], ["KD"]], ["9H", "8H"], ["2C"])
    drawn = _state([["AS", "9H"], ["KD"]], ["8H"], ["2C"])
    assert not recycled_in(plain, drawn, draw)
    # Perla's empty stock ends the round (DISPUTE-75); a cancelled deal recycles nothing.
    for phase in ("deal_over", "cancelled"):
        assert not recycled_in(before, {**before, "phase": phase}, draw)


def test_after_a_recycle_the_card_drawn_is_the_engines_own_but_the_pool_is_not() -> None:
    before = _state([["AS"], ["KD"]], [], ["2C", "3C", "4C", "5C"])
    ref = _state([["AS", "3C"], ["KD"]], ["4C", "5C"], ["2C"])
    check = expected_state(ref, recycled=True, drawer=0)
    assert "stock" not in check and check["stock_size"] == 2
    assert check["hands"] == {1: ["KD"]} and check["hand_sizes"] == [2, 1]
    # Another order, another card drawn from the pool: fair.
    other = _state([["AS", "5C"], ["KD"]], ["3C", "4C"], ["2C"])
    assert compare_state(check, other) == [] and pool_mismatches(ref, other, before, 0) == []
    # A card that was not in the pool, or a card held before that is gone: not fair.
    wrong = _state([["AS", "2C"], ["KD"]], ["3C", "4C"], ["5C"])
    assert pool_mismatches(ref, wrong, before, 0)
    lost = _state([["3C", "4C"], ["KD"]], ["AS", "5C"], ["2C"])
    assert any("held before" in str(m) for m in pool_mismatches(ref, lost, before, 0))


# --------------------------------------------------------------------------- attribution


@pytest.mark.parametrize(
    ("profile", "rule", "expected"),
    [
        ("argentine", "DEAL-4", ("DEAL-4", "DISPUTE-09")),
        # Chile buries a wild upcard by its own rule, which DISPUTE-51 decides.
        ("chilean", "DEAL-4", ("CHILE-DEAL-7", "DEAL-4", "DISPUTE-09", "DISPUTE-51")),
        ("pagat", "MELD-RUN-4", ("PAGAT-RUN-4", "DISPUTE-57", "DISPUTE-12")),
        ("argentine", "MELD-RUN-4", ("MELD-RUN-4", "DISPUTE-12")),
    ],
)
def test_a_divergence_at_a_disputed_point_cites_the_rule_and_points_that_decide_it(
    profile: str, rule: str, expected: tuple[str, ...]
) -> None:
    assert deciding_rules(CATALOGUE, find_profile(profile), rule, True) == expected
    held = {*CATALOGUE.rules_for(profile), *CATALOGUE.disputes_for(profile)}
    assert set(expected) <= held
    # Elsewhere only the rule, as the profile states it.
    assert deciding_rules(CATALOGUE, find_profile("chilean"), "SCORE-2", False) == (
        "CHILE-SCORE-2",
    )


def test_the_length_of_a_fourteen_card_run_decides_only_when_the_answer_is_about_it() -> None:
    fourteen = {"kind": "run", "cards": ["AS", *[f"{r}S" for r in RANKS[1:]], "AS"]}
    query = {"meld": fourteen, "initial": False}
    assert length_decides("check_meld", query, {}, {"valid": False, "reason": "run_size"})
    assert length_decides("check_meld", query, {}, {"valid": True})
    assert not length_decides("check_meld", query, {}, {"valid": False, "reason": "run_suit"})
    shorter = {"meld": {"kind": "run", "cards": fourteen["cards"][:13]}, "initial": False}
    assert not length_decides("check_meld", shorter, {}, {"valid": True})
    # A lay-off onto a 13-card run makes the 14th card.
    table = {"table": [{"owner": 0, "kind": "run", "cards": fourteen["cards"][:13]}]}
    lay = {"type": "lay_off", "player": 0, "card": "AS", "meld": 0, "end": "high"}
    assert length_decides("lay_off", lay, table, {"accepted": False, "reason": "beyond_ace"})


def test_a_wild_upcard_after_a_deal_is_filed_under_the_upcard_rule() -> None:
    ref = {"phase": "draw", "discard": ["KS"], "stock": ["JK", "5D"]}
    eng = {"phase": "draw", "discard": ["JK"], "stock": ["KS", "5D"]}
    found = compare_state({"discard": ref["discard"], "stock": ref["stock"]}, eng)
    div = classify_state("start_deal", found, ref, eng, kind="setup")
    assert (div.rule, div.disputed) == ("DEAL-4", True)
    # The same piles with a natural upcard: the upcard rule, no disputed point.
    calm = classify_state(
        "start_deal", found, {**ref, "discard": ["KS"]}, {**eng, "discard": ["QS"]}, kind="setup"
    )
    assert (calm.rule, calm.disputed) == ("DEAL-4", False)


def test_what_carries_no_meaning_is_put_in_one_order() -> None:
    state = {
        "x": "private",
        "profile": "argentine",
        "hands": [["KD", "2S"]],
        "table": [
            {"owner": 0, "kind": "trio", "cards": ["9H", "9C", "9D"]},
            {"owner": 0, "kind": "run", "cards": ["JK", "5S", "6S", "7S"]},
        ],
    }
    listed = canonical_state(state, runs_as_sets=False)
    assert "x" not in listed and "profile" not in listed
    assert listed["hands"] == [["2S", "KD"]]
    assert listed["table"][0]["cards"] == ["9C", "9D", "9H"]  # a trio is a multiset
    assert listed["table"][1]["cards"] == ["JK", "5S", "6S", "7S"]  # a listed run is not
    moved = {
        **state,
        "table": [state["table"][0], {**state["table"][1], "cards": ["5S", "6S", "7S", "JK"]}],
    }
    assert canonical_state(moved, runs_as_sets=True) == canonical_state(state, runs_as_sets=True)
    assert canonical_state(moved, runs_as_sets=False) != listed


def _run_state(cards: list[str], *, stock: list[str] | None = None) -> dict[str, Any]:
    return {
        "players": 2,
        "turn": 0,
        "phase": "draw",
        "hands": [["2S", "KS", "9H", "JK"], ["3C"]],
        "opened": [True, True],
        "table": [{"owner": 0, "kind": "run", "cards": cards}],
        "stock": ["4D"] if stock is None else stock,
        "discard": ["9D"],
    }


def test_an_outcome_is_filed_under_the_rule_of_what_the_action_is() -> None:
    """An empty-stock draw is the recycle's rule (not TURN-2's), a lay-off round the K-A
    corner the no-wrap rule (not LAYOFF-4's), and a natural wild card the reference takes
    the wild-card rule (not the run's): docs/rules.md."""
    argentine, perla = find_profile("argentine"), find_profile("perla")
    draw = {"type": "draw_stock", "player": 0}
    empty = _run_state(["JS", "QS", "KS", "AS"], stock=[])
    assert action_rule("draw_stock", draw, empty, argentine, reference_took=True) == "STOCK-1"
    assert (
        action_rule("draw_stock", draw, _run_state(["JS"]), argentine, reference_took=False) is None
    )
    high = _run_state(["JS", "QS", "KS", "AS"])
    wrap = {"type": "lay_off", "player": 0, "card": "2S", "meld": 0, "end": "high"}
    assert action_rule("lay_off", wrap, high, argentine, reference_took=False) == "MELD-RUN-3"
    for card, end in (("9H", "high"), ("JK", "high"), ("10S", "low")):
        other = {**wrap, "card": card, "end": end}
        assert action_rule("lay_off", other, high, argentine, reference_took=False) is None
    low = _run_state(["AS", "2S", "3S", "4S"])
    below = {**wrap, "card": "KS", "end": "low"}
    assert action_rule("lay_off", below, low, argentine, reference_took=False) == "MELD-RUN-3"
    opening = {
        "type": "open",
        "player": 0,
        "melds": [{"kind": "run", "cards": ["5S", "6S", "AH", "8S"]}],
    }
    assert action_rule("open", opening, high, perla, reference_took=True) == "CARDS-2"
    assert action_rule("open", opening, high, perla, reference_took=False) is None
    assert action_rule("open", opening, high, argentine, reference_took=True) is None
    query = {"meld": {"kind": "run", "cards": ["5C", "2H", "7C", "8C"]}}
    chilean = find_profile("chilean")
    assert action_rule("check_meld", query, {}, chilean, reference_took=True) == "CARDS-2"
    # In the profiles' own IDs, with the points that decide them.
    assert deciding_rules(CATALOGUE, perla, "CARDS-2", False) == ("PERLA-WILD-1",)
    assert deciding_rules(CATALOGUE, chilean, "CARDS-2", False) == ("CHILE-WILD-1",)
    assert deciding_rules(CATALOGUE, perla, "STOCK-1", True)[0] == "PERLA-STOCK-1"
    assert "DISPUTE-75" in deciding_rules(CATALOGUE, perla, "STOCK-1", True)
    assert deciding_rules(CATALOGUE, argentine, "STOCK-1", True)[:2] == ("STOCK-1", "DISPUTE-18")


def test_a_fault_is_mended_so_that_the_reference_names_the_next_one() -> None:
    state = {**_run_state(["JS", "QS", "KS", "AS"]), "x": {"seed": 3, "passed": [1]}}
    out_of_turn = {"type": "discard", "player": 1, "card": "4D"}
    mended = repaired(state, "not_your_turn", out_of_turn)
    assert mended is not None and mended["turn"] == 1 and mended["x"] == {"seed": 3}
    drawn = repaired(mended, "draw_first", out_of_turn)
    assert drawn is not None and drawn["phase"] == "play"
    held = repaired(drawn, "card_not_in_hand", out_of_turn)
    assert held is not None and held["hands"][1] == ["3C", "4D"] and held["stock"] == []
    assert repaired(held, "card_not_in_hand", {**out_of_turn, "card": "5D"}) is None
    assert repaired(state, "does_not_fit", out_of_turn) is None  # a meld's fault stays
    assert repaired(state, "not_your_turn", {**out_of_turn, "player": 7}) is None


def test_every_fair_family_is_a_refusal_docs_reasons_md_gives_several_reasons() -> None:
    # The judge lets a reason of one family stand for another only where docs/reasons.md
    # lists the two as equally true ("Refusals with several reasons equally true").
    text = (ROOT / "docs" / "reasons.md").read_text(encoding="utf-8")
    several = text.split("### Refusals with several reasons equally true", 1)[1]
    cells = {
        frozenset(re.findall(r"`([a-z_]+)`", cell))
        for line in several.split("\n## ", 1)[0].splitlines()
        if line.startswith("| `")
        for cell in line.split(" | ")[2:]
    }
    for family in FAIR_FAMILIES:
        assert family in cells, f"{sorted(family)} is fair in the fuzzer, not in docs/reasons.md"


def test_a_findings_key_carries_the_values_that_differ() -> None:
    """An engine counting a joker 25 and one counting an ace 15 differ in the same field of
    the same op: their keys must differ, so an expectations file written for one never
    covers the other (docs/rules.md SCORE-2: a joker left in hand costs 50, an ace 20)."""
    from conformance.fuzz.expected import finding_key

    hands = [[], ["JK", "5D"], ["AS", "5C"]]
    ref = {"phase": "deal_over", "hands": hands, "deal_scores": [0, 55, 25]}
    joker = {**ref, "deal_scores": [0, 30, 25]}  # the joker counted 25
    ace = {**ref, "deal_scores": [0, 55, 20]}  # the ace counted 15
    keys = []
    for eng in (joker, ace):
        found = compare_state({"deal_scores": ref["deal_scores"]}, eng)
        div = classify_state("discard", found, ref, eng, kind="state")
        keys.append(
            finding_key({"rule": div.rule, "op": div.op, "kind": div.kind, "summary": div.summary})
        )
    assert keys[0] != keys[1]
    assert keys[0][3].endswith("(deal_scores: JK counted -25)")
    assert keys[1][3].endswith("(deal_scores: A counted -5)")
    # A phase carries both values.
    over = {**ref, "phase": "game_over"}
    found = compare_state({"phase": "game_over"}, ref)
    div = classify_state("discard", found, over, ref, kind="state")
    assert div.summary.endswith("(phase: game_over → deal_over)")
