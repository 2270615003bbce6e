"""Scenario loading: located errors, semantic checks and the expansion conveniences."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
import yaml

from conformance.knowledge.cards import CANONICAL_ORDER
from conformance.knowledge.catalogue import load_catalogue
from conformance.scenarios import (
    DeckSpec,
    fill_after,
    load_corpus,
    load_file,
    resolve_option,
    table_meld_problem,
)

DATA = Path(__file__).parent / "data"
CATALOGUE = load_catalogue(DATA / "catalogue.json")

HEAD = """id: {sid}
title: test case
rules: [TURN-2]
source: "000 §05"
profiles: [argentine]
level: turns
review: checked
"""

STATE = """setup:
  state:
    players: 2
    deal_number: 1
    dealer: 0
    turn: {turn}
    phase: draw
    hands:
      - [2C, 3C, 4C, 5C, 9D, 9H, JD, QH, KS, KD, 7H]
      - [8C, 8D, 8H, QS, QD, QC, 2H, 3H, KC, 10D, 5S]
    discard: [6H]
{extra}steps:
  - action: {{type: draw_stock, player: 1}}
    expect: accepted
"""


def write(tmp_path: Path, text: str, name: str = "case.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def turns_doc(sid: str = "cc-0500", turn: int = 1, extra: str = "") -> str:
    return HEAD.format(sid=sid) + STATE.format(turn=turn, extra=extra)


def test_good_corpus_loads_in_file_order() -> None:
    result = load_corpus([DATA / "good"], catalogue=CATALOGUE)
    assert result.errors == ()
    # disputed.yaml sorts before melds.yaml and turns.yaml
    assert [s.id for s in result.scenarios] == [
        "cc-0005",
        "cc-0001",
        "cc-0002",
        "cc-0003",
        "cc-0004",
    ]


def test_schema_error_names_file_line_column_id_and_pointer() -> None:
    result = load_file(DATA / "broken" / "bad-schema.yaml", catalogue=CATALOGUE)
    assert result.scenarios == ()
    messages = [str(e) for e in result.errors]
    assert any("bad-schema.yaml:9:5: [cc-0101]" in m and "/checks/0" in m for m in messages)
    assert any("expcet" in m for m in messages)
    assert all(e.scenario_id == "cc-0101" and e.line == 9 for e in result.errors)


def test_yaml_syntax_error_is_located(tmp_path: Path) -> None:
    path = write(tmp_path, "id: cc-0001\ntitle: [unclosed\n")
    result = load_file(path)
    assert len(result.errors) == 1
    err = result.errors[0]
    assert err.file == str(path) and err.line >= 2 and "YAML" in err.message


def test_third_copy_is_reported_with_location() -> None:
    result = load_file(DATA / "broken" / "third-copy.yaml", catalogue=CATALOGUE)
    assert result.scenarios == ()
    assert any("3 copies of 8C" in str(e) and "[cc-0102]" in str(e) for e in result.errors)


def test_fifth_joker(tmp_path: Path) -> None:
    extra = "    table: [{owner: 0, kind: trio, cards: [JK, JK, JK, JK, JK, 9S]}]\n"
    extra += "    opened: [true, false]\n"
    result = load_file(write(tmp_path, turns_doc(extra=extra)), catalogue=CATALOGUE)
    assert any("5 jokers" in e.message for e in result.errors)


def test_turn_out_of_range_points_at_turn_line(tmp_path: Path) -> None:
    result = load_file(write(tmp_path, turns_doc(turn=2)), catalogue=CATALOGUE)
    (err,) = result.errors
    assert "turn 2 is out of range" in err.message
    assert err.line == 13  # the `turn:` line of the document


def test_invalid_table_meld_and_bad_owner(tmp_path: Path) -> None:
    extra = (
        "    opened: [true, false]\n"
        "    table:\n"
        "      - {owner: 0, kind: run, cards: [4S, 5S, 7S, 8S]}\n"
        "      - {owner: 3, kind: trio, cards: [9S, 9C, 9D]}\n"
    )
    result = load_file(write(tmp_path, turns_doc(extra=extra)), catalogue=CATALOGUE)
    messages = " | ".join(e.message for e in result.errors)
    assert "table meld 0 is not a valid run" in messages
    assert "owner 3 is out of range" in messages


def test_unknown_rule_reason_and_option(tmp_path: Path) -> None:
    text = (DATA / "good" / "disputed.yaml").read_text()
    text = text.replace("rules: [TURN-5]", "rules: [TURN-99]")
    text = text.replace(
        "forbidden: rejected}", "forbidden: {rejected: no_such_reason}, maybe: rejected}"
    )
    result = load_file(write(tmp_path, text), catalogue=CATALOGUE)
    messages = " | ".join(e.message for e in result.errors)
    assert "unknown rule ID 'TURN-99'" in messages
    assert "unknown rejection reason 'no_such_reason'" in messages
    assert "unknown option key 'maybe'" in messages


def test_duplicate_ids_across_files(tmp_path: Path) -> None:
    write(tmp_path, turns_doc("cc-0777"), "a.yaml")
    write(tmp_path, turns_doc("cc-0777"), "b.yaml")
    result = load_corpus([tmp_path], catalogue=CATALOGUE)
    # The first copy is kept (so --skip-broken still runs the id); the later one is dropped.
    (kept,) = result.scenarios
    assert kept.path.endswith("a.yaml")
    (err,) = result.errors
    assert "duplicate id" in err.message and "a.yaml" in err.message and "b.yaml" in err.file
    assert "left out" in err.message


def test_deal_hand_sizes_follow_the_deal_number(tmp_path: Path) -> None:
    hands = "      - [AS, 2S, 3S, 4S, 5S, 6S, 7S, 8S, 9S, 10S, JS]\n" * 2
    doc = HEAD.format(sid="cc-0600").replace("level: turns", "level: deals") + (
        "setup:\n  deal:\n    players: 2\n    deal_number: 7\n    dealer: 0\n"
        f"    hands:\n{hands}    upcard: 5H\nsteps:\n"
        "  - action: {type: draw_stock, player: 1}\n    expect: accepted\n"
    )
    result = load_file(write(tmp_path, doc), catalogue=CATALOGUE)
    assert any("deal 7 deals 12" in e.message for e in result.errors)


def test_stock_fill_follows_canonical_order() -> None:
    (scenario,) = [
        s for s in load_corpus([DATA / "good"], catalogue=CATALOGUE).scenarios if s.id == "cc-0003"
    ]
    assert scenario.setup is not None and scenario.setup.state is not None
    state = scenario.setup.state
    assert state["stock"][:2] == ["4S", "7C"]
    # AS is in no hand, so it is the first filled card; 2C is in hand 0, so the first 2C
    # of the canonical order is skipped and only its second copy is in the stock.
    assert state["stock"][2] == "AS"
    assert state["stock"].count("2C") == 1
    everything = [c for h in state["hands"] for c in h] + state["stock"] + state["discard"]
    assert Counter(everything) == Counter(CANONICAL_ORDER)
    assert state["opened"] == [False, False] and state["totals"] == [0, 0]
    assert state["profile"] == "argentine" and state["table"] == []


def test_deck_composition_inverts_the_dealing_rule() -> None:
    hands = (
        tuple(f"{r}S" for r in ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J"]),
        tuple(f"{r}H" for r in ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J"]),
        tuple(f"{r}D" for r in ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J"]),
    )
    spec = DeckSpec(hands=hands, upcard="KC", stock_top=("QC",))
    deck = spec.compose(players=3, dealer=1, deal_number=1)
    assert len(deck) == 108 and Counter(deck) == Counter(CANONICAL_ORDER)
    # Dealt one at a time from the dealer's right: player 2, player 0, then the dealer 1.
    dealt: dict[int, list[str]] = {0: [], 1: [], 2: []}
    for i in range(33):
        dealt[(1 + 1 + i) % 3].append(deck[i])
    assert dealt == {p: list(hands[p]) for p in range(3)}
    assert deck[33] == "KC" and deck[34] == "QC"


def test_deck_top_is_filled() -> None:
    deck = DeckSpec(deck_top=("JK", "AS")).compose(2, 0, 1)
    # The first AS of the canonical order is used, so filling resumes at 2S.
    assert deck[:3] == ["JK", "AS", "2S"]
    assert len(deck) == 108 and deck.count("JK") == 4


def test_fill_after_skips_earliest_occurrence() -> None:
    filled = fill_after(["KC"], ["AS"])
    assert filled[0] == "KC" and filled[1] == "2S" and len(filled) == 108 - 1


@pytest.mark.parametrize(
    ("kind", "cards", "ok"),
    [
        ("trio", ["8C", "8C", "JK"], True),
        ("trio", ["8C", "9C", "8D"], False),
        ("trio", ["JK", "JK", "JK"], False),
        ("trio", ["8C", "8D", "8H", "8S", "JK", "JK"], True),
        ("run", ["JK", "5S", "6S", "7S"], True),
        ("run", ["QS", "KS", "AS", "2S"], False),
        ("run", ["JS", "QS", "KS", "AS"], True),
        ("run", ["AS", "2S", "3S", "4S"], True),
        ("run", ["KS", "AS", "JK", "JK"], False),
        ("run", ["4S", "5H", "6S", "7S"], False),
        ("run", ["AS", *[f"{r}S" for r in "23456789"], "10S", "JS", "QS", "KS", "AS"], True),
    ],
)
def test_table_meld_validity(kind: str, cards: list[str], ok: bool) -> None:
    assert (table_meld_problem(kind, cards) is None) is ok


RED_ACES = frozenset({"AH", "AD"})


@pytest.mark.parametrize(
    ("kind", "cards", "ok", "ok_without"),
    [
        # perla: a red ace stands anywhere, like a joker (003: jokers and red aces wild).
        ("run", ["AD", "7D", "8D", "JK", "10D", "JD"], True, False),
        ("run", ["6S", "AH", "8S", "9S"], True, False),
        ("run", ["AH", "2H", "3H", "4H"], True, True),  # or in its own place
        ("trio", ["9C", "9D", "AD"], True, False),
        ("run", ["6S", "AS", "8S", "9S"], False, False),  # a black ace is not wild
        ("trio", ["9C", "8D", "AD"], False, False),
    ],
)
def test_a_wild_card_stands_anywhere_in_a_table_meld(
    kind: str, cards: list[str], ok: bool, ok_without: bool
) -> None:
    assert (table_meld_problem(kind, cards, wild_cards=RED_ACES) is None) is ok
    # Without the profile's wild cards the same cards are judged as naturals.
    assert (table_meld_problem(kind, cards) is None) is ok_without


def test_resolve_option_replaces_nested_branches() -> None:
    value = {"a": {"by_option": {"x": 1, "y": 2}}, "b": [{"by_option": {"x": "p", "y": "q"}}]}
    assert resolve_option(value, "y") == {"a": 2, "b": ["q"]}
    with pytest.raises(KeyError):
        resolve_option(value, "z")


def test_project_corpus_loads_cleanly() -> None:
    root = Path(__file__).resolve().parents[2]
    result = load_corpus([root / "scenarios"], catalogue=load_catalogue())
    assert [str(e) for e in result.errors] == []


def test_object_tags_are_refused_not_run(tmp_path: Path) -> None:
    # Safe loading only: a tag that would call os.system is an error, and nothing runs.
    marker = tmp_path / "ran"
    text = f'id: cc-0001\ntitle: !!python/object/apply:os.system ["touch {marker}"]\n'
    result = load_file(write(tmp_path, text))
    assert result.scenarios == ()
    assert any("YAML" in e.message and e.line == 2 for e in result.errors)
    assert not marker.exists()


def test_a_retired_id_is_never_reused(tmp_path: Path) -> None:
    write(tmp_path, turns_doc("cc-0777"), "a.yaml")
    (tmp_path / "retired-ids.txt").write_text(
        "# retired\ncc-0777 merged into cc-0778\n", encoding="utf-8"
    )
    result = load_corpus([tmp_path], catalogue=CATALOGUE)
    assert result.scenarios == ()
    (err,) = result.errors
    assert "cc-0777 was retired (merged into cc-0778)" in err.message and err.file.endswith(
        "a.yaml"
    )


def test_corpus_digest_ignores_order_and_sees_an_edited_expectation(tmp_path: Path) -> None:
    from conformance.scenarios import corpus_digest

    loaded = list(load_corpus([DATA / "good"], catalogue=CATALOGUE).scenarios)
    assert corpus_digest(loaded) == corpus_digest(list(reversed(loaded)))
    text = (DATA / "good" / "melds.yaml").read_text(encoding="utf-8")
    edited = text.replace("points: 33", "points: 34", 1)
    assert edited != text
    changed = load_corpus([write(tmp_path, edited)], catalogue=CATALOGUE).scenarios
    original = load_corpus([DATA / "good" / "melds.yaml"], catalogue=CATALOGUE).scenarios
    assert corpus_digest(changed) != corpus_digest(original)
    # The JSON made once at load is what a fresh encoding of each document gives.
    documents = {
        d["id"]: d
        for f in sorted((DATA / "good").glob("*.yaml"))
        for d in yaml.safe_load_all(f.read_text(encoding="utf-8"))
        if d
    }
    for scenario in loaded:
        assert scenario.canonical == json.dumps(documents[scenario.id], sort_keys=True, default=str)


def test_a_fuzz_draft_id_is_refused_unless_the_case_is_a_draft(tmp_path: Path) -> None:
    # docs/fuzzing.md: cc-8000..cc-8999 are the drafts' ids; a reviewed case takes a corpus
    # id, so a draft copied into the corpus and marked checked cannot keep its number.
    checked = load_file(write(tmp_path, turns_doc("cc-8012")), catalogue=CATALOGUE)
    assert [e.scenario_id for e in checked.errors] == ["cc-8012"]
    assert "reserved for fuzz drafts" in str(checked.errors[0])
    assert ":1:" in str(checked.errors[0])  # the line of the id
    draft = turns_doc("cc-8012").replace("review: checked", "review: draft")
    assert load_file(write(tmp_path, draft, "draft.yaml"), catalogue=CATALOGUE).errors == ()
    assert (
        load_file(write(tmp_path, turns_doc("cc-7999"), "c.yaml"), catalogue=CATALOGUE).errors == ()
    )


DEAL_CASE = """id: cc-0501
title: a dealt case
rules: [TURN-2]
source: "000 §03"
profiles: [{profile}]
level: deals
review: checked
setup:
  deal:
    players: 2
    deal_number: 1
    dealer: 0
    deck_top: [KD]
{setup_cut}steps:
  - action: {{type: draw_stock, player: 1}}
    expect: accepted
  - {kind}: {{deck_top: [KD]{step_cut}}}
    expect: rejected
"""


@pytest.mark.parametrize(
    ("profile", "kind", "setup_cut", "step_cut", "refused"),
    [
        ("perla", "next_deal", "    cut: 23\n", ", cut: 23", []),
        ("argentine", "next_deal", "    cut: 23\n", "", ["    cut: 23"]),
        ("argentine", "next_deal", "", ", cut: 23", ["  - next_deal"]),
        ("perla", "redeal", "", ", cut: 23", ["  - redeal"]),
    ],
)
def test_a_cut_is_taken_only_by_a_profile_that_cuts_and_only_where_a_deal_is_new(
    tmp_path: Path, profile: str, kind: str, setup_cut: str, step_cut: str, refused: list[str]
) -> None:
    text = DEAL_CASE.format(profile=profile, kind=kind, setup_cut=setup_cut, step_cut=step_cut)
    errors = load_file(write(tmp_path, text), catalogue=load_catalogue()).errors
    lines = text.splitlines()
    # Each refusal names the case and the line of the cut it refuses.
    wanted = [next(n for n, line in enumerate(lines, 1) if line.startswith(s)) for s in refused]
    assert [e.line for e in errors] == wanted, [str(e) for e in errors]
    for error in errors:
        assert error.scenario_id == "cc-0501"
        assert "cut" in error.message


NEW_GAME_CASE = """id: cc-0501
title: a new game
rules: [DEAL-5]
source: "003 L27"
profiles: [{profile}]
level: deals
review: checked
setup:
  new_game: {{players: {players}, seed: 1, lot: [{lot}]}}
steps: []
final:
  turn_right_of_dealer: true
"""


@pytest.mark.parametrize(
    ("profile", "players", "lot", "refused"),
    [
        ("perla", 4, "9H, KD, 5C, QS", None),
        ("argentine", 4, "9H, KD, 5C, QS", "draws no card"),
        ("perla", 3, "9H, KD, 5C, QS", "4 cards for 3 players"),
        ("perla", 4, "9H, JK, 5C, QS", "joker"),
        ("perla", 4, "9H, 5D, 5C, QS", "lowest rank"),
    ],
)
def test_a_lot_is_one_readable_card_per_player_in_a_profile_that_draws_for_the_dealer(
    tmp_path: Path, profile: str, players: int, lot: str, refused: str | None
) -> None:
    text = NEW_GAME_CASE.format(profile=profile, players=players, lot=lot)
    errors = load_file(write(tmp_path, text), catalogue=load_catalogue()).errors
    if refused is None:
        assert errors == (), [str(e) for e in errors]
        return
    assert len(errors) == 1 and refused in errors[0].message, [str(e) for e in errors]
    assert errors[0].scenario_id == "cc-0501" and errors[0].line == 9


def test_a_value_per_interface_reading_needs_every_reading(tmp_path: Path) -> None:
    per_reading = "{by_option: {run_ends: {requested: accepted, engine: rejected}}}"
    text = turns_doc("cc-0501").replace("expect: accepted", f"expect: {per_reading}")
    assert not load_file(write(tmp_path, text), catalogue=CATALOGUE).errors
    lacking = text.replace(", engine: rejected", "")
    errors = load_file(write(tmp_path, lacking, "b.yaml"), catalogue=CATALOGUE).errors
    assert any("needs exactly the readings requested, engine" in e.message for e in errors)
