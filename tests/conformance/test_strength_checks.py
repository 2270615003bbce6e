"""The corpus's strength: nothing that asserts nothing, states play can reach, scores graded
as scores."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from conformance.adapter.protocol import validate_response
from conformance.knowledge.catalogue import load_catalogue
from conformance.knowledge.reachability import unreachable_problems
from conformance.scenarios import load_file
from tests.paths import ROOT

CATALOGUE = load_catalogue()

DOC = """id: cc-1990
title: test case
rules: [TURN-2]
source: "000 §05"
profiles: [argentine]
level: turns
review: checked
{extra}setup:
  state:
    players: 2
    deal_number: 1
    dealer: 0
    turn: 1
    phase: draw
    opened: {opened}
    hands:
      - [2C, 3C, 4C, 5C, 9D, 9H, JD, QH, KS, KD, 7H]
      - {hand}
    discard: [6H]
steps:
  - action: {{type: draw_stock, player: 1}}
{expect}"""

ELEVEN = "[8C, 8D, 8H, QS, QD, QC, 2H, 3H, KC, 10D, 5S]"


def load(tmp_path: Path, **fields: str) -> list[str]:
    values = {"extra": "", "opened": "[false, false]", "hand": ELEVEN, "expect": ""}
    values["expect"] = "    expect: accepted\n"
    values.update(fields)
    path = tmp_path / "case.yaml"
    path.write_text(DOC.format(**values), encoding="utf-8")
    return [e.message for e in load_file(path, catalogue=CATALOGUE).errors]


def test_a_reachable_state_with_an_expectation_loads(tmp_path: Path) -> None:
    assert load(tmp_path) == []


def test_a_step_without_expect_is_refused(tmp_path: Path) -> None:
    (message,) = load(tmp_path, expect="")
    assert "expect" in message


def test_twelve_cards_in_the_draw_phase_are_refused(tmp_path: Path) -> None:
    messages = load(tmp_path, hand="[8C, 8D, 8H, QS, QD, QC, 2H, 3H, KC, 10D, 5S, 6S]")
    assert any("player 1 has not opened and holds 12 cards" in m for m in messages), messages
    assert all("built:" in m for m in messages)


def test_opened_with_nothing_on_the_table_is_refused(tmp_path: Path) -> None:
    messages = load(tmp_path, opened="[false, true]", hand="[QS, QD, 2H, 3H, 5S]")
    assert any("player 1 is marked opened but owns no meld" in m for m in messages), messages


def test_built_says_why_and_lets_the_state_load(tmp_path: Path) -> None:
    built = 'built: "twelve cards on purpose"\n'
    hand = "[8C, 8D, 8H, QS, QD, QC, 2H, 3H, KC, 10D, 5S, 6S]"
    assert load(tmp_path, extra=built, hand=hand) == []


@pytest.mark.parametrize(
    ("sizes", "opened", "phase", "turn", "ok"),
    [
        ([11, 11], [False, False], "draw", 0, True),
        ([12, 11], [False, False], "play", 0, True),  # the player to move has drawn
        ([11, 12], [False, False], "play", 0, False),  # someone else holds 12
        ([11, 5], [False, True], "draw", 0, True),  # deal 1: 11 - 6 laid = 5, the line
        ([11, 6], [False, True], "draw", 0, False),  # one over the line
        ([11, 6], [False, True], "play", 1, True),  # the line plus the draw
    ],
)
def test_reachability_at_each_count(
    sizes: list[int], opened: list[bool], phase: str, turn: int, ok: bool
) -> None:
    state = {
        "players": 2,
        "deal_number": 1,
        "turn": turn,
        "phase": phase,
        "opened": opened,
        "turn_opened": False,
        "hands": [["2C"] * n for n in sizes],
        "table": [{"owner": 1, "kind": "trio", "cards": ["8C", "8D", "8H"]}] if opened[1] else [],
    }
    assert (unreachable_problems(state) == []) is ok, unreachable_problems(state)


def test_after_a_deal_nothing_is_judged() -> None:
    state = {"players": 2, "deal_number": 1, "phase": "deal_over", "hands": [[], ["2C"] * 30]}
    assert unreachable_problems(state) == []


def test_a_negative_penalty_is_valid_protocol() -> None:
    # Graded by the comparison (a SCORE failure with the diff), not refused by the schema.
    validate_response("penalty", {"id": 3, "points": -5})


def test_a_negative_deal_score_reads_as_a_score_failure_with_the_diff() -> None:
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from tests.mutants import harness

    corpus = harness.load([ROOT / "scenarios" / "strength2" / "close-boundaries.yaml"])
    chosen = harness.Corpus(
        tuple(s for s in corpus.scenarios if s.id == "cc-1422"), corpus.catalogue, 0
    )
    result = harness.run(harness.mutant_argv("closer_scores_minus_10"), chosen)
    (case,) = result.results
    assert case.status == "fail", (case.status, case.error)
    assert case.section == "SCORE"
    assert case.diff is not None and "-10" in case.diff
