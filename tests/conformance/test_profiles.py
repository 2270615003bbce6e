"""The harness's profile data: its loader, and every check and command that reads it.

Each test names the fact it routes through conformance/data/profiles.json; argentine cases
stay exactly as strict as before (a third copy of a card is still an error there).
"""

from __future__ import annotations

import json
import sys
import textwrap
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from conformance.cli import main
from conformance.knowledge.catalogue import load_catalogue
from conformance.knowledge.profiles import (
    DEFAULT_PROFILES,
    ProfileError,
    UnknownProfile,
    default_profiles,
    load_profiles,
)
from conformance.knowledge.reachability import unreachable_problems
from conformance.laws.greedy import find_opening
from conformance.laws.smoke import smoke
from conformance.scenarios import DeckSpec, load_file, table_meld_problem
from tests.paths import ROOT

#: An engine that answers is all these tests need: the reference answers in-process
#: (tests/adapters.py); the tests of what its process does run it as a process.
pytestmark = pytest.mark.usefixtures("reference_in_process")

FAKE = Path(__file__).resolve().parents[1] / "fake_adapters" / "fake_adapter.py"
ARG = default_profiles()["argentine"]
CHI = default_profiles()["chilean"]


# --------------------------------------------------------------------------- the data


def test_the_packaged_facts() -> None:
    assert ARG.pack(4).size == 108 and ARG.players == (2, 3, 4)
    assert CHI.pack(2).size == CHI.pack(4).size == 106
    assert CHI.pack(5).size == CHI.pack(6).size == 160
    assert Counter(CHI.pack(6).canonical_order())["7D"] == 3
    assert Counter(CHI.pack(6).canonical_order())["JK"] == 4
    assert [d.hand_size for d in ARG.deals] == [11] * 6 + [12]
    assert [d.hand_size for d in CHI.deals] == [11] * 7 + [13]
    assert [str(c) for c in CHI.deal(8).contracts] == ["4 trios", "4 runs"]
    assert CHI.contract_cards(8) == 12 and ARG.contract_cards(7) == 12
    assert CHI.is_wild("2S") and not ARG.is_wild("2S") and ARG.is_wild("JK")
    assert (ARG.card_value("AS"), CHI.card_value("AS"), CHI.card_value("2C")) == (20, 15, 25)
    assert (ARG.deal_score_min, CHI.deal_score_min) == (0, -10)


def test_unknown_profiles_deals_and_player_counts_are_typed_errors() -> None:
    with pytest.raises(UnknownProfile, match=r"unknown profile 'klingon' \(profiles known: "):
        default_profiles()["klingon"]
    assert "klingon" not in default_profiles()
    assert default_profiles().get("klingon") is None
    with pytest.raises(ProfileError, match="profile argentine plays 2, 3, 4 players, not 5"):
        ARG.pack(5)
    with pytest.raises(ProfileError, match="profile argentine has deals 1 to 7, not deal 8"):
        ARG.hand_size(8)


def _write(tmp_path: Path, change: Any) -> Path:
    data = json.loads(DEFAULT_PROFILES.read_text(encoding="utf-8"))
    change(data)
    path = tmp_path / "profiles.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["profiles"]["chilean"].pop("packs"), r"at /profiles/chilean: 'packs'"),
        (
            lambda d: d["profiles"]["argentine"]["card_values"].pop("JK"),
            r"at /profiles/argentine/card_values: 'JK'",
        ),
        (
            lambda d: d["profiles"]["chilean"]["packs"][1].update(players=[4, 5, 6]),
            r"profile chilean: the packs must cover each player count",
        ),
        (
            lambda d: d["profiles"]["argentine"]["deals"][2].update(number=9),
            r"profile argentine: deal 3 is numbered 9",
        ),
    ],
)
def test_malformed_profile_data_names_the_file_and_place(
    tmp_path: Path, change: Any, message: str
) -> None:
    with pytest.raises(ProfileError, match=message) as caught:
        load_profiles(_write(tmp_path, change))
    assert str(tmp_path / "profiles.json") in str(caught.value)


def test_missing_or_broken_profile_files(tmp_path: Path) -> None:
    with pytest.raises(ProfileError, match="cannot read profile data"):
        load_profiles(tmp_path / "none.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    with pytest.raises(ProfileError, match="is not JSON"):
        load_profiles(bad)


# --------------------------------------------------------------------------- scenario checks


def _case(tmp_path: Path, body: str, profiles: str = "[argentine]") -> tuple[Any, list[str]]:
    text = textwrap.dedent(
        f"""\
        id: cc-1700
        title: a profile case
        rules: [MELD-RUN-3]
        source: "test"
        profiles: {profiles}
        review: checked
        """
    ) + textwrap.dedent(body)
    path = tmp_path / "case.yaml"
    path.write_text(text, encoding="utf-8")
    result = load_file(path)  # no catalogue: only the profile facts are at stake here
    return result.scenarios, [e.message for e in result.errors]


def _deal_setup(players: int, deal_number: int, size: int, extra: str = "") -> str:
    pack = CHI.pack(players).canonical_order() if players > 4 else ARG.pack(2).canonical_order()
    hands = [list(pack[i * size : (i + 1) * size]) for i in range(players)]
    return f"""\
        level: deals
        setup:
          deal:
            players: {players}
            deal_number: {deal_number}
            dealer: 0
            hands: {json.dumps(hands)}
            upcard: JK
            {extra}
        steps: []
        final: {{phase: draw}}
        """


def test_a_third_copy_is_still_an_error_in_an_argentine_case(tmp_path: Path) -> None:
    _, errors = _case(tmp_path, _deal_setup(2, 1, 11, "stock_top: [AS, AS]"))
    assert any("3 copies of AS: the argentine pack has only 2 (a third copy)" in e for e in errors)


def test_six_chilean_players_deal_from_three_packs(tmp_path: Path) -> None:
    # 6 x 11 cards from a 160-card pack: the first 66 canonical cards hold three AS.
    scenarios, errors = _case(
        tmp_path, _deal_setup(6, 1, 11, "stock_top: [AS]"), profiles="[chilean]"
    )
    assert errors == []
    deck = scenarios[0].setup_for("chilean").deal["deck"]
    assert len(deck) == 160 and Counter(deck)["AS"] == 3 and Counter(deck)["JK"] == 4


def test_six_players_are_refused_for_argentine(tmp_path: Path) -> None:
    _, errors = _case(tmp_path, _deal_setup(6, 1, 11))
    assert "profile argentine plays 2, 3, 4 players, not 6" in errors


def test_deal_8_and_its_13_cards_are_chilean_only(tmp_path: Path) -> None:
    _, errors = _case(tmp_path, _deal_setup(2, 8, 13), profiles="[chilean]")
    assert errors == []
    _, errors = _case(tmp_path, _deal_setup(2, 8, 13))
    assert "profile argentine has deals 1 to 7, not deal 8" in errors
    _, errors = _case(tmp_path, _deal_setup(2, 8, 12), profiles="[chilean]")
    assert any("hand 0 has 12 cards; deal 8 deals 13 (chilean)" in e for e in errors)


def test_a_case_for_both_profiles_is_expanded_with_each_pack(tmp_path: Path) -> None:
    scenarios, errors = _case(tmp_path, _deal_setup(2, 1, 11), profiles="[argentine, chilean]")
    assert errors == []
    scenario = scenarios[0]
    assert len(scenario.setup_for("argentine").deal["deck"]) == 108
    assert len(scenario.setup_for("chilean").deal["deck"]) == 106
    assert scenario.setup is scenario.setup_for("argentine")


def _state_case(players: int, deal_scores: list[int], phase: str = "deal_over") -> str:
    hands = json.dumps([[f"{rank}H"] for rank in ("5", "6", "7", "8", "9", "10")[:players]])
    return f"""\
        level: turns
        setup:
          state:
            players: {players}
            deal_number: 1
            dealer: 0
            turn: 1
            phase: {phase}
            hands: {hands}
            discard: [7D]
            deal_scores: {json.dumps(deal_scores)}
            closer: 0
        steps: []
        final: {{phase: {phase}}}
        """


def test_the_deal_score_range_comes_from_the_profile(tmp_path: Path) -> None:
    _, errors = _case(tmp_path, _state_case(2, [-10, 5]), profiles="[chilean]")
    assert errors == []
    _, errors = _case(tmp_path, _state_case(2, [-10, 5]))
    assert any("deal score -10 is outside the argentine range 0.." in e for e in errors)


def test_a_state_is_filled_to_the_profiles_pack(tmp_path: Path) -> None:
    scenarios, errors = _case(tmp_path, _state_case(5, [0, 5, 5, 5, 5]), profiles="[chilean]")
    assert errors == []
    state = scenarios[0].setup_for("chilean").state
    cards = [c for h in state["hands"] for c in h] + state["stock"] + state["discard"]
    assert len(cards) == 160


def test_wild_twos_make_table_melds_valid_only_where_twos_are_wild() -> None:
    assert table_meld_problem("trio", ["8C", "8D", "2S"], CHI.wild_ranks) is None
    assert table_meld_problem("trio", ["8C", "8D", "2S"], ARG.wild_ranks) is not None
    assert table_meld_problem("run", ["5H", "2S", "7H", "8H"], CHI.wild_ranks) is None
    assert table_meld_problem("run", ["5H", "2S", "7H", "8H"], ARG.wild_ranks) is not None
    assert table_meld_problem("run", ["2S", "3S", "4S", "5S"], CHI.wild_ranks) is None


def test_reachability_reads_the_profiles_hand_sizes() -> None:
    state = {
        "phase": "draw",
        "deal_number": 8,
        "players": 2,
        "turn": 0,
        "hands": [["AS"] * 13, ["AH"] * 13],
        "opened": [False, False],
        "table": [],
    }
    assert unreachable_problems(state, CHI) == []
    state["hands"] = [["AS"] * 11, ["AH"] * 11]
    assert any("such a hand holds 13" in p for p in unreachable_problems(state, CHI))


def test_deck_specs_fill_from_the_pack_they_are_given() -> None:
    spec = DeckSpec(deck_top=("JK", "AS"))
    assert len(spec.compose(2, 0, 1)) == 108
    assert len(spec.compose(2, 0, 1, CHI.pack(2))) == 106
    assert len(spec.compose(6, 0, 1, CHI.pack(6))) == 160


# --------------------------------------------------------------------------- properties


def test_the_opening_search_plays_the_profiles_contracts_and_wilds() -> None:
    hand = ["8C", "8D", "2S", "KS", "KH", "KD", "9C", "9D", "9H", "QC", "QD", "QH", "4S"]
    # Deal 8 of chilean: four trios, one of them with a wild 2.
    melds = find_opening(hand, 8, CHI)
    assert melds is not None and len(melds) == 4
    assert all(m["kind"] == "trio" for m in melds)
    # Argentine has no deal 8, and a 2 is not wild there.
    with pytest.raises(ProfileError):
        find_opening(hand, 8, ARG)
    assert find_opening(["8C", "8D", "2S", "KS", "KH", "KD", "4H"], 1, ARG) is None
    assert find_opening(["8C", "8D", "2S", "KS", "KH", "KD", "4H"], 1, CHI) is not None


# --------------------------------------------------------------------------- commands


def _chilean_corpus(tmp_path: Path) -> tuple[Path, Path]:
    """A one-case corpus for both profiles, and a catalogue whose MELD-RUN-3 holds in both."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "case.yaml").write_text(
        textwrap.dedent(
            """\
            id: cc-1700
            title: K-A-2 never wraps, in either profile
            rules: [MELD-RUN-3]
            source: "000 §02; 001 L15"
            profiles: [argentine, chilean]
            level: melds
            review: checked
            checks:
              - check_meld: {kind: run, cards: [KS, AS, 3S, 4S]}
                expect: {valid: false}
            """
        ),
        encoding="utf-8",
    )
    data = json.loads((ROOT / "conformance" / "data" / "catalogue.json").read_text("utf-8"))
    for rule in data["rules"]:
        if rule["id"] == "MELD-RUN-3":
            rule["profiles"] = ["argentine", "chilean"]
    catalogue = tmp_path / "catalogue.json"
    catalogue.write_text(json.dumps(data), encoding="utf-8")
    return corpus, catalogue


def test_an_argentine_only_engine_is_told_it_lacks_the_profile(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus, catalogue = _chilean_corpus(tmp_path)
    report, junit = tmp_path / "r.json", tmp_path / "j.xml"
    # The reference plays chilean; served as argentine only it is an Argentine-only engine.
    argentine_only = f"{sys.executable} -m reference.adapter --profiles argentine"
    code = main(
        [
            "--catalogue",
            str(catalogue),
            "run",
            str(corpus),
            "--adapter",
            argentine_only,
            "--profile",
            "chilean",
            "--json",
            str(report),
            "--junit",
            str(junit),
        ]
    )
    captured = capsys.readouterr()
    assert code == 3
    assert "error: the engine does not support profile 'chilean': its handshake lists " in (
        captured.err
    )
    assert "profile chilean" in captured.out.splitlines()[0]
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["header"]["profile"] == "chilean"
    assert [c["status"] for c in data["cases"]] == ["unsupported"]
    assert '<property name="profile" value="chilean" />' in junit.read_text(encoding="utf-8")


def test_the_same_case_runs_for_argentine(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus, catalogue = _chilean_corpus(tmp_path)
    assert main(["--catalogue", str(catalogue), "run", str(corpus)]) == 0
    assert "1 pass" in capsys.readouterr().out


def test_check_refuses_a_rule_that_does_not_hold_in_a_listed_profile(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus, _ = _chilean_corpus(tmp_path)
    # A catalogue where MELD-RUN-3 holds in argentine only (a rule without profiles).
    data = json.loads((ROOT / "conformance" / "data" / "catalogue.json").read_text("utf-8"))
    for rule in data["rules"]:
        if rule["id"] == "MELD-RUN-3":
            rule.pop("profiles", None)
    argentine_run3 = tmp_path / "argentine-run3.json"
    argentine_run3.write_text(json.dumps(data), encoding="utf-8")
    cat = str(argentine_run3)
    assert main(["--catalogue", cat, "check", str(corpus)]) == 2
    assert "rule MELD-RUN-3 does not hold in profile(s) chilean" in capsys.readouterr().err


def test_check_counts_a_profiles_cases_and_refuses_unknown_profiles(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus, catalogue = _chilean_corpus(tmp_path)
    cat = ["--catalogue", str(catalogue)]
    assert main([*cat, "check", str(corpus), "--profile", "chilean"]) == 0
    assert "1 for profile chilean" in capsys.readouterr().out
    assert main([*cat, "check", str(corpus), "--profile", "klingon"]) == 2
    assert "unknown profile 'klingon'" in capsys.readouterr().err
    assert main([*cat, "run", str(corpus), "--profile", "klingon"]) == 2


def test_smoke_names_a_profile_the_engine_lacks() -> None:
    import sys

    result = smoke([sys.executable, str(FAKE)], timeout=5.0, profile="chilean")
    assert result.verdict == "profile_unsupported"
    assert [c.name for c in result.checks if not c.ok] == ["profile chilean"]


def test_chilean_coverage_counts_chilean_rules_and_points_set_by_others(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # Only rules that hold in chilean are counted; a point another point decides there
    # (DISPUTE-25 follows DISPUTE-48) is listed as such, not as uncovered.
    cat = load_catalogue(ROOT / "conformance" / "data" / "catalogue.json")
    out = tmp_path / "coverage.json"
    assert main(["coverage", "--profile", "chilean", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert f"{len(cat.rules_for('chilean'))}/{len(cat.rules_for('chilean'))} rules covered" in text
    assert "DISPUTE-25: set by DISPUTE-48 in chilean" in text
    table = json.loads(out.read_text())
    assert set(table["rules"]) == set(cat.rules_for("chilean"))
    assert table["fixed"]["DISPUTE-25"] == "set by DISPUTE-48"
    # The same point in argentine has an option of its own: it is covered by its cases.
    assert main(["coverage"]) == 0
    assert "DISPUTE-25: set by" not in capsys.readouterr().out


def test_a_profiles_own_rule_ids_are_in_the_catalogue_for_it() -> None:
    """The laws cite CHILE-CARDS-1 where chilean states CARDS-1 its own way."""
    assert CHI.rule_id("CARDS-1") == "CHILE-CARDS-1" and ARG.rule_id("CARDS-1") == "CARDS-1"
    cat = load_catalogue(ROOT / "conformance" / "data" / "catalogue.json")
    for facts in default_profiles().values():
        rules = cat.rules_for(facts.name)
        if not rules:
            continue  # the catalogue has no rule of this profile yet
        for argentine, own in facts.own_rules.items():
            assert argentine in cat.rules, argentine
            assert own in rules, f"{facts.name}: {own} is not in the catalogue for it"


def test_an_engine_that_declares_no_player_counts_plays_its_profiles_counts() -> None:
    from conformance.adapter.engine import default_players

    assert default_players(["argentine"]) == (2, 3, 4)
    assert default_players(["argentine", "chilean"]) == (2, 3, 4, 5, 6)
    assert default_players(["klingon"]) == (2, 3, 4)


# --------------------------------------------------------------------------- profile_rulings


def _hello(**extra: Any) -> dict[str, Any]:
    return {
        "protocol": 1,
        "implementation": {"name": "e", "version": "1", "language": "x"},
        "profiles": ["argentine", "chilean"],
        "capabilities": ["melds", "turns", "deals"],
        "rulings": {"DISPUTE-09": "stays"},
        **extra,
    }


def test_a_profiles_own_rulings_replace_the_general_ones_in_that_profile_only() -> None:
    from conformance.adapter.engine import Handshake, HandshakeError

    hs = Handshake.from_hello(_hello(profile_rulings={"chilean": {"dispute-9": "bury"}}))
    assert hs.for_profile("chilean").rulings == {"DISPUTE-09": "bury"}
    assert hs.for_profile("argentine").rulings == {"DISPUTE-09": "stays"}
    assert hs.rulings_for("pagat") == {"DISPUTE-09": "stays"}  # not named: the general map
    assert hs.as_dict()["profile_rulings"] == {"chilean": {"DISPUTE-09": "bury"}}
    assert "profile_rulings" not in Handshake.from_hello(_hello()).as_dict()
    twice = {"chilean": {"DISPUTE-9": "bury", "dispute-09": "stays"}}
    with pytest.raises(HandshakeError, match=r"profile_rulings\.chilean names DISPUTE-09 twice"):
        Handshake.from_hello(_hello(profile_rulings=twice))


def test_a_chilean_case_is_graded_by_the_engines_chilean_ruling(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The reference declares DISPUTE-09 `stays` in `rulings` (argentine) and `bury` in
    # profile_rulings.chilean. Graded by the general map, this case would expect the joker
    # upcard in the hand and fail; graded by the chilean map it passes.
    case = tmp_path / "upcard.yaml"
    case.write_text(
        textwrap.dedent(
            """\
            id: cc-0001
            title: A joker upcard in chilean, under either DISPUTE-09 option
            rules: [DEAL-4, TURN-2]
            source: "001 L37"
            profiles: [chilean]
            level: deals
            review: checked
            disputed:
              id: DISPUTE-09
              question: What happens when the upcard is a joker or a 2?
              options:
                stays: {says: "000 gives no exception.", held_by: ["000"]}
                bury: {says: "001 buries it.", held_by: ["001"]}
              profiles: {chilean: bury}
            setup:
              deal:
                players: 2
                deal_number: 1
                dealer: 0
                hands:
                  - [3C, 4C, 5C, 6C, 9D, 9H, JD, QH, KS, KD, 7H]
                  - [8C, 8D, 8H, QS, QD, QC, 3H, 4H, KC, 10D, 5S]
                upcard: JK
                stock_top: [4S]
            steps:
              - action: {type: draw_discard, player: 1}
                expect: accepted
            final:
              by_option:
                stays: {hands: {1: [8C, 8D, 8H, QS, QD, QC, 3H, 4H, KC, 10D, 5S, JK]}}
                bury: {hands: {1: [8C, 8D, 8H, QS, QD, QC, 3H, 4H, KC, 10D, 5S, 4S]}}
            """
        )
    )
    assert main(["check", str(case)]) == 0
    out = tmp_path / "report.json"
    assert main(["run", "--profile", "chilean", str(case), "--json", str(out)]) == 0
    result = json.loads(out.read_text())["cases"][0]
    assert (result["status"], result.get("option")) == ("pass", "bury")


# --------------------------------------------------------------------------- profile_players


def test_a_profiles_own_player_counts_replace_the_general_ones_in_that_profile_only() -> None:
    from conformance.adapter.engine import Handshake

    hs = Handshake.from_hello(
        _hello(players=[2, 3, 4, 5, 6], profile_players={"argentine": [4, 2, 3, 3]})
    )
    assert hs.for_profile("argentine").players == (2, 3, 4)
    assert hs.players_for("chilean") == (2, 3, 4, 5, 6)  # not named: the general list
    assert hs.for_profile("chilean").players == (2, 3, 4, 5, 6)
    assert hs.as_dict()["profile_players"] == {"argentine": [2, 3, 4]}
    assert "profile_players" not in Handshake.from_hello(_hello()).as_dict()


def test_a_case_for_a_count_the_engine_plays_elsewhere_is_unsupported_in_this_profile() -> None:
    # The engine plays 2 to 8 players overall, but 2 or 3 in argentine: an argentine
    # 4-player case is not a failure of its rules but a count it does not deal there.
    from conformance.run.runner import RunOptions, run_scenarios
    from conformance.scenarios import load_corpus

    root = Path(__file__).resolve().parents[2]
    proxy = root / "tests" / "fake_adapters" / "real_engine_proxy.py"
    argv = [sys.executable, str(proxy), "--profile-players", '{"argentine": [2, 3]}']
    catalogue = load_catalogue()
    scenarios = load_corpus([root / "scenarios" / "deal"], catalogue=catalogue).scenarios
    chosen = [s for s in scenarios if "argentine" in s.profiles]
    run = run_scenarios(argv, chosen, RunOptions(), catalogue=catalogue)
    statuses = Counter(r.status for r in run.results)
    set_aside = [
        r for r in run.results if r.status == "unsupported" and "plays 4 players" in (r.note or "")
    ]
    assert set_aside, [(r.id, r.status, r.note) for r in run.results]
    assert all("declares players 2, 3" in (r.note or "") for r in set_aside)
    assert statuses["fail"] == statuses["error"] == 0, run.results
