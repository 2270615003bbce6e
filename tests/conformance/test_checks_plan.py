"""Checks, not cases (docs/scenario-format.md#checks): the plan of a case's checks, its rules,
and what `check` refuses in the new per-check forms. Fast: no engine runs here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conformance.knowledge.catalogue import load_catalogue
from conformance.knowledge.profiles import default_profiles
from conformance.scenarios import load_corpus, load_file
from conformance.scenarios.plan import check_rules
from tests.paths import ROOT

CATALOGUE = load_catalogue()
ROTATION = ROOT / "scenarios" / "strength" / "dealer-rotation.yaml"


def test_every_rule_of_the_field_map_exists_in_the_catalogue_for_every_profile() -> None:
    data = check_rules()
    ids = {rule for rules in data["checks"].values() for rule in rules}
    ids |= {rule for scope in data["fields"].values() for rules in scope.values() for rule in rules}
    assert ids
    for profile in default_profiles().values():
        for rule in sorted(ids):
            own = profile.rule_id(rule)
            if own in CATALOGUE.disputes:
                assert profile.name in CATALOGUE.disputes[own].profiles, (own, profile.name)
            else:
                assert own in CATALOGUE.rules, f"{rule} ({own}) is not in the catalogue"
                assert profile.name in CATALOGUE.rules[own].profiles, (own, profile.name)


def test_the_plan_of_cc_0302_is_known_from_the_scenario_alone() -> None:
    (case, _) = load_corpus([ROTATION], catalogue=CATALOGUE).scenarios
    plan = case.plan_for("argentine")
    assert [c.key for c in plan] == [
        "setup invariants",
        "step 1 accepted",
        "step 1 invariants",
        "step 2 accepted",
        "step 2 invariants",
        "step 3 accepted",
        "step 3 phase",
        "step 3 closer",
        "step 3 deal_scores",
        "step 3 totals",
        "step 3 invariants",
        "step 4 accepted",
        "step 4 deal_number",
        "step 4 dealer",
        "step 4 turn",
        "step 4 phase",
        "step 4 totals",
        "step 4 opened",
        "step 4 table",
        "step 4 hands",
        "step 4 discard",
        "step 4 stock_size",
        "step 4 invariants",
        "final turn",
        "final dealer",
    ]
    checks = {c.key: c for c in plan}
    # Rules: the step's own, the field map's by step kind, else the case's topic.
    assert checks["step 2 accepted"].rules == ("LAYOFF-1",)
    assert checks["step 3 closer"].rules == ("END-1",)
    assert checks["step 4 dealer"].rules == ("DEAL-2",)
    assert checks["final turn"].rules == ("DEAL-5",)
    assert checks["step 4 opened"].rules == case.rules
    # What each check leans on.
    assert checks["step 2 accepted"].leans == ("DISPUTE-03",)
    assert set(checks["step 3 deal_scores"].leans) == {"DISPUTE-25", "DISPUTE-26", "VARIANT-01"}
    assert checks["step 4 hands"].leans == ("VARIANT-05",)
    assert checks["step 4 dealer"].leans == ()


def test_rules_are_read_through_each_profiles_own_ids(tmp_path: Path) -> None:
    doc = tmp_path / "case.yaml"
    doc.write_text(
        "id: cc-2200\ntitle: t\nrules: [DEAL-2]\nsource: '000 §04'\n"
        "profiles: [argentine, chilean]\nlevel: turns\nreview: checked\n"
        "setup:\n  state:\n    players: 2\n    deal_number: 1\n    dealer: 0\n    turn: 1\n"
        "    phase: draw\n    hands:\n"
        "      - [2C, 3C, 4C, 5C, 9D, 9H, JD, QH, KS, KD, 7H]\n"
        "      - [8C, 8D, 8H, QS, QD, QC, 3H, 3S, KC, 10D, 5S]\n"
        "    discard: [6H]\n"
        "steps:\n  - action: {type: draw_stock, player: 1}\n    expect: accepted\n",
        encoding="utf-8",
    )
    loaded = load_file(doc, catalogue=CATALOGUE)
    assert loaded.errors == ()
    (case,) = loaded.scenarios
    assert case.plan_for("argentine")[0].rules == ("CARDS-1", "PLAYERS-1")
    assert case.plan_for("chilean")[0].rules == ("CHILE-CARDS-1", "CHILE-PLAYERS-1")


MELDS = """id: cc-2201
title: t
rules: [SCORE-2]
source: "000 §07"
profiles: [argentine]
level: melds
review: checked
checks:
{checks}"""


def melds(tmp_path: Path, checks: str) -> list[str]:
    doc = tmp_path / "melds.yaml"
    doc.write_text(MELDS.format(checks=checks), encoding="utf-8")
    return [str(e) for e in load_file(doc, catalogue=CATALOGUE).errors]


def test_a_by_option_keyed_by_any_point_is_valid(tmp_path: Path) -> None:
    checks = (
        "  - penalty: [JK]\n"
        "    expect: {points: {by_option: {VARIANT-01: {fifty: 50, thirty: 30}}}}\n"
        "    rules: [JOKER-7]\n"
        "  - penalty: [JK, AS]\n"
        "    expect: {points: 70}\n"
        "    assumes: {VARIANT-01: fifty}\n"
    )
    assert melds(tmp_path, checks) == []


@pytest.mark.parametrize(
    ("checks", "message"),
    [
        (
            "  - penalty: [JK]\n    expect: {points: {by_option: {VARIANT-99: {a: 1, b: 2}}}}\n",
            "unknown disputed point 'VARIANT-99'",
        ),
        (
            "  - penalty: [JK]\n    expect: {points: {by_option: {VARIANT-01: {fifty: 50, "
            "forty: 40}}}}\n",
            "unknown option 'forty' of VARIANT-01",
        ),
        (
            "  - penalty: [JK]\n    expect: {points: {by_option: {VARIANT-01: {thirty: 30}}}}\n",
            "has no branch for 'fifty', the argentine profile's option",
        ),
        (
            "  - penalty: [JK]\n    expect: {points: {by_option: {DISPUTE-42: {eleven: 50, "
            "twelve: 50}}}}\n",
            "which none of the case's profiles (argentine) rules on",
        ),
        (
            "  - penalty: [JK]\n    expect: {points: 50}\n    assumes: {VARIANT-01: forty}\n",
            "unknown option 'forty' of VARIANT-01",
        ),
        (
            "  - penalty: [JK]\n    expect: {points: 50}\n    rules: [SCORE-99]\n",
            "unknown rule ID 'SCORE-99'",
        ),
    ],
)
def test_check_refuses_a_wrong_per_check_form_with_file_line_and_id(
    tmp_path: Path, checks: str, message: str
) -> None:
    errors = melds(tmp_path, checks)
    assert any(message in e for e in errors), errors
    located = next(e for e in errors if message in e)
    # file:line of the offending name (the line that holds it), and the case's id.
    token = re.search(r"'([^']+)'", message)
    name = token.group(1) if token else "by_option"
    text = (tmp_path / "melds.yaml").read_text(encoding="utf-8").splitlines()
    lines = {i for i, line in enumerate(text, 1) if name in line or "by_option" in line}
    assert any(located.startswith(f"{tmp_path / 'melds.yaml'}:{n}:") for n in lines), located
    assert "[cc-2201]" in located


TURNS = (
    "id: cc-2203\ntitle: t\nrules: [TURN-2]\nsource: '000 §05'\n"
    "profiles: [argentine]\nlevel: turns\nreview: checked\n"
    "setup:\n  state:\n    players: 2\n    deal_number: 1\n    dealer: 0\n    turn: 1\n"
    "    phase: draw\n    hands:\n"
    "      - [2C, 3C, 4C, 5C, 9D, 9H, JD, QH, KS, KD, 7H]\n"
    "      - [8C, 8D, 8H, QS, QD, QC, 3H, 3S, KC, 10D, 5S]\n"
    "    discard: [6H]\n"
    "steps:\n  - action: {{type: draw_stock, player: 1}}\n    expect: accepted\n"
    "    state:\n{state}"
)


def test_a_key_may_name_its_rules_and_assumptions(tmp_path: Path) -> None:
    doc = tmp_path / "turns.yaml"
    state = (
        "      phase: {expect: play, rules: [TURN-2]}\n"
        "      hand_sizes: {expect: [11, 12], assumes: {VARIANT-05: eleven}}\n"
    )
    doc.write_text(TURNS.format(state=state), encoding="utf-8")
    loaded = load_file(doc, catalogue=CATALOGUE)
    assert loaded.errors == ()
    checks = {c.key: c for c in loaded.scenarios[0].plan_for("argentine")}
    assert checks["step 1 phase"].rules == ("TURN-2",)
    assert checks["step 1 phase"].expected == "play"
    assert checks["step 1 hand_sizes"].assumes == {"VARIANT-05": "eleven"}
    text = doc.read_text(encoding="utf-8").splitlines()
    assert checks["step 1 hand_sizes"].line == 1 + next(
        i for i, line in enumerate(text) if "hand_sizes" in line
    )


def test_a_wrapper_inside_a_state_written_whole_per_option_is_refused(tmp_path: Path) -> None:
    doc = tmp_path / "turns.yaml"
    state = (
        "      by_option:\n        VARIANT-05:\n"
        "          eleven: {phase: {expect: play}}\n          twelve: {phase: play}\n"
    )
    doc.write_text(TURNS.format(state=state), encoding="utf-8")
    errors = [str(e) for e in load_file(doc, catalogue=CATALOGUE).errors]
    assert any("cannot stand inside a state written whole per option" in e for e in errors)


def test_check_refuses_a_by_option_beside_its_point_in_a_final_state(tmp_path: Path) -> None:
    # Indented level with its point, a by_option reads as a null beside a DISPUTE key: the
    # state schema lets any mapping through, so the checker must name it, or the field
    # would be compared as that mapping and never as the options it means.
    text = ROTATION.read_text(encoding="utf-8")
    text = text.replace(
        "final: {turn: 2, dealer: 1}\n",
        "final:\n  turn: 2\n  dealer:\n    by_option:\n    VARIANT-05: {eleven: 1, twelve: 1}\n",
        1,
    )
    doc = tmp_path / "rotation.yaml"
    doc.write_text(text, encoding="utf-8")
    errors = [str(e) for e in load_file(doc, catalogue=CATALOGUE).errors]
    assert len(errors) == 1, errors
    assert "by_option must be the only key of its mapping" in errors[0]
    # file:line of the by_option key itself (final: is line 89 of cc-0302's file).
    line = text.splitlines().index("    by_option:") + 1
    assert f"rotation.yaml:{line}:" in errors[0] and "[cc-0302]" in errors[0]
