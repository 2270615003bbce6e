"""Drafts (conformance/fuzz/drafts.py, shrink.py): fuzzing a rule mutant finds it and
drafts a scenario that the mutant fails and the reference passes.

The full sweep over every mutant of every profile is opt-in (``CARIOCA_FUZZ_ALL_MUTANTS=1``,
or ``python -m tests.mutants.fuzz_sweep``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from conformance import fuzz
from tests.conformance.fuzzkit import (
    CATALOGUE,
    REFERENCE,
    SWEEP_STEPS,
    draft_disagreements,
    grade,
    run_fuzz,
    write_drafts,
)
from tests.mutants import fuzz_sweep, harness

#: An engine that answers is all these tests need: the reference answers in-process
#: (tests/adapters.py); the tests of what its process does run it as a process.
pytestmark = pytest.mark.usefixtures("reference_in_process")

#: Mutants fuzzed in the normal suite, one or two per area of the rules (meld checks, the
#: deal, draws, melding, the stock, scoring, the game's end, lay-offs at a run's ends),
#: each with the game of seed 0 that first shows it (found by the sweep,
#: tests/mutants/fuzz_sweep.py; the campaign is seeded, so it always does). The last four
#: are found in the scenes after the main games (docs/fuzzing.md). The rest of the 61 run
#: in the opt-in sweep below.
SUBSET: dict[str, int] = {
    "opening_runs_of_3": 0,
    "twos_wild": 0,
    "trio_needs_distinct_suits": 0,
    "first_turn_dealer": 0,
    "stock_drawn_from_bottom": 0,
    "layoff_before_opening": 0,
    "draw_twice": 0,
    "recycle_whole_pile": 0,
    "cancelled_deal_passes": 0,
    "layoff_with_gap": 3,
    "closer_scores_hand": 7,
    "tie_first_player_wins": 4,
    "no_game_over_after_7": 4,
    "layoff_next_after_natural": 1,
    "past_ace_does_not_fit": 5,
}


@pytest.mark.parametrize("name", sorted(SUBSET))
def test_fuzzing_a_mutant_finds_it_and_drafts_a_killing_scenario(name: str, tmp_path: Path) -> None:
    argv = harness.mutant_argv(name)
    game = SUBSET[name]
    result = run_fuzz(argv, games=game + 1, only_games=(game,), max_steps=SWEEP_STEPS)
    assert result.findings, f"{name}: no divergence in game {game}"
    # A draft's notes, setup and example agree (they describe the shrunk game).
    for finding in fuzz.report_dict(result)["findings"]:
        assert draft_disagreements(finding) == [], finding
    drafts = write_drafts(result, tmp_path)
    assert drafts
    for path in drafts:
        document = yaml.safe_load(path.read_text())
        assert document["review"] == "draft" and document["id"].startswith("cc-8")
        if grade(argv, path) == "fail":
            assert grade(REFERENCE, path) == "pass", path.read_text()
            return
    pytest.fail(f"{name}: no draft fails the mutant")


@pytest.mark.skipif(
    not os.environ.get("CARIOCA_FUZZ_ALL_MUTANTS"), reason="set CARIOCA_FUZZ_ALL_MUTANTS=1"
)
@pytest.mark.parametrize("profile", fuzz_sweep.PROFILES)
def test_every_mutant_of_a_profile_is_found(
    profile: str, tmp_path: Path
) -> None:  # pragma: no cover - opt-in
    # 60 games of seed 0 each (docs/fuzzing.md gives the sweep's figures); no known misses.
    missed = []
    for name in fuzz_sweep.mutants_of(profile):
        outcome = fuzz_sweep.sweep_one(name, profile, out=tmp_path / name, catalogue=CATALOGUE)
        if not outcome.found:
            missed.append(name)
    assert missed == [], f"{profile}: not found in 60 games: {missed}"


# --------------------------------------------------------------------------- rulings


@pytest.mark.parametrize(
    ("point", "option", "rules"),
    [
        ("VARIANT-01", "thirty", {"SCORE-2"}),
        # TURN-9 too: an opening whose run is longer than 4 and that empties the hand is
        # refused for the run's size by an engine playing exact, and, the size being
        # allowed, for the empty hand by one playing at_least (a closing scene's meld).
        ("DISPUTE-31", "at_least", {"MELD-TRIO-1", "MELD-RUN-1", "CONTRACT-8", "TURN-9"}),
    ],
)
def test_one_ruling_against_another_finds_exactly_that_point(
    point: str, option: str, rules: set[str]
) -> None:
    # The engine plays the profile's option; the reference is told to play the other.
    result = run_fuzz(REFERENCE, games=3, reference_rulings=((point, option),))
    assert result.findings
    assert {f.divergence.rule for f in result.findings} <= rules
    for finding in result.findings:
        assert finding.scenario is not None
        assert finding.scenario["assumes"] == {point: option}
    # And the same games with the engine on that option too: nothing differs.
    games = tuple(sorted({g for f in result.findings for g in f.games}))
    agreed = run_fuzz(
        [*REFERENCE, "--ruling", f"{point}={option}"],
        games=3,
        only_games=games,
        reference_rulings=((point, option),),
    )
    assert agreed.findings == []


# --------------------------------------------------------------------------- other profiles

#: Mutants of the later profiles (tests/mutants/chilean.py, pagat.py, perla.py) fuzzed in the
#: normal suite, each with the game of seed 0 that first shows it (the sweep,
#: tests/mutants/fuzz_sweep.py): rounds, melds, going out, scoring, steals, the cut and a
#: new game. The rest run in the opt-in sweep.
CHILEAN_SUBSET: dict[str, int] = {
    "chilean_twos_natural": 0,
    "chilean_ace_worth_20": 1,
    "chilean_swap_laid_down_only": 0,
    "chilean_discard_to_go_out": 0,
    "chilean_four_short_escalas": 43,
    "chilean_round8_one_way_out": 9,
    "chilean_tie_breaks": 9,
    "chilean_seven_rounds": 2,
}
PAGAT_SUBSET: dict[str, int] = {
    "pagat_five_players_big_pack": 57,
    "pagat_fourteen_card_runs": 3,
    "pagat_meld_may_empty_hand": 12,
    "pagat_ace_worth_15": 0,
    "pagat_discard_out_of_turn": 3,
    "pagat_new_melds_after_opening": 4,
}
PERLA_SUBSET: dict[str, int] = {
    "perla_discard_to_go_out": 13,
    "perla_no_steals": 3,
    "perla_no_cut_bonus": 7,
    "perla_going_out_zero": 0,
    "perla_leg_suits_free": 3,
    "perla_wild_swaps": 18,
}
PROFILE_SUBSETS = {"chilean": CHILEAN_SUBSET, "pagat": PAGAT_SUBSET, "perla": PERLA_SUBSET}


@pytest.mark.parametrize("profile", ["chilean", "pagat", "perla"])
def test_each_profiles_reference_against_itself_finds_nothing(profile: str) -> None:
    result = run_fuzz(REFERENCE, games=6, max_steps=120, profile=profile)
    assert result.findings == []
    assert result.games_played == 6 and result.steps > 500
    # (The scenes' game ends in these profiles show in the subsets below: chilean_tie_breaks,
    # chilean_seven_rounds, perla_going_out_zero.)
    for event in ("open", "discard", "draw_discard", "close", "scene: closing"):
        assert result.events.get(event, 0) > 0, event
    # Every built state is one the profile allows (perla's trios of different suits...).
    assert not any("refuses the setup" in event for event in result.events), result.events
    assert "scene: refused" not in result.events


@pytest.mark.parametrize(
    ("profile", "name"),
    [(profile, name) for profile, subset in PROFILE_SUBSETS.items() for name in sorted(subset)],
)
def test_fuzzing_a_profiles_mutant_drafts_a_scenario_of_that_profile_that_kills_it(
    profile: str, name: str, tmp_path: Path
) -> None:
    argv = harness.mutant_argv(name)
    game = PROFILE_SUBSETS[profile][name]
    result = run_fuzz(
        argv, games=game + 1, only_games=(game,), profile=profile, max_steps=SWEEP_STEPS
    )
    assert result.findings, f"{name}: no divergence in game {game}"
    # Findings cite the rule IDs the profile states them under (CHILE-SCORE-2, not SCORE-2).
    held = {*CATALOGUE.rules_for(profile), *CATALOGUE.disputes_for(profile)}
    for finding in result.findings:
        assert finding.divergence.rule in held, finding.divergence
        assert set(finding.divergence.rules) <= held, finding.divergence
    for finding_doc in fuzz.report_dict(result)["findings"]:
        assert draft_disagreements(finding_doc) == [], finding_doc
    for path in write_drafts(result, tmp_path):
        document = yaml.safe_load(path.read_text())
        assert document["profiles"] == [profile]
        if grade(argv, path, profile) == "fail":
            assert grade(REFERENCE, path, profile) == "pass", path.read_text()
            return
    pytest.fail(f"{name}: no draft fails the mutant")


# --------------------------------------------------------------------------- attribution


@pytest.mark.parametrize(
    ("profile", "point", "option", "game", "rules"),
    [
        # A 14-card run that pagat refuses (PAGAT-RUN-4, DISPUTE-57), not MELD-RUN-1.
        ("pagat", "DISPUTE-57", "allowed", 3, ["PAGAT-RUN-4", "DISPUTE-57", "DISPUTE-12"]),
        # A joker upcard buried: the upcard rule and DISPUTE-09, not DEAL-3.
        ("argentine", "DISPUTE-09", "bury", 2, ["DEAL-4", "DISPUTE-09"]),
    ],
)
def test_findings_cite_the_rules_that_decide_them(
    profile: str, point: str, option: str, game: int, rules: list[str]
) -> None:
    # The engine plays the profile's option; the reference is told to play the other.
    result = run_fuzz(
        REFERENCE,
        games=game + 1,
        only_games=(game,),
        profile=profile,
        reference_rulings=((point, option),),
    )
    assert result.findings
    for finding in fuzz.report_dict(result)["findings"]:
        assert (finding["rule"], finding["rules"]) == (rules[0], rules), finding["key"]
        assert finding["scenario"]["rules"] == rules
        assert draft_disagreements(finding) == []


def test_a_findings_draft_describes_its_own_example() -> None:
    # first_turn_dealer shows in several games; the smallest example (two players, found
    # after a larger one) once carried the notes of the first (``turn: expected 0, got 3``
    # beside ``players: 2``). Notes, setup and example now all come from the example.
    result = run_fuzz(harness.mutant_argv("first_turn_dealer"), games=6, max_steps=SWEEP_STEPS)
    findings = fuzz.report_dict(result)["findings"]
    assert any(f["count"] > 1 and f["scenario"] for f in findings)
    for finding in findings:
        assert draft_disagreements(finding) == [], finding


def test_a_draft_ending_in_a_recycle_never_pins_the_card_drawn() -> None:
    # docs/protocol.md §6: the recycled order is the engine's, so is the card drawn from it.
    before = {
        "profile": "argentine", "players": 2, "deal_number": 1, "dealer": 1, "turn": 0,
        "phase": "draw", "hands": [["AS"] * 11, ["KD"] * 11], "opened": [False, False],
        "turn_opened": False, "table": [], "stock": [], "discard": ["2C", "3C", "4C", "5C"],
        "totals": [0, 0], "deal_scores": None, "closer": None, "winners": None,
    }  # fmt: skip
    after = {**before, "phase": "play", "hands": [["AS"] * 11 + ["4C"], ["KD"] * 11],
             "stock": ["3C", "5C"], "discard": ["2C"]}  # fmt: skip
    step = {"op": "act", "action": {"type": "draw_stock", "player": 0}}
    divergence = fuzz.Divergence(
        "STOCK-1", "draw_stock", "state", "state differs in discard, hands",
        ["discard: expected [2♣], got []", "hands[0] and stock (the recycled pool): ..."],
        rules=("STOCK-1",),
    )  # fmt: skip
    example = fuzz.Occurrence(
        0, divergence, fuzz.Trace({"op": "load_state", "state": before}, [step]), {"state": after}
    )
    info = {
        "profile": "argentine",
        "rulings": {},
        "seed": 0,
        "answers": [{"accepted": True, "state": after}],
        "befores": [before],
    }
    doc = fuzz.draft_scenario(fuzz.Finding(divergence, 1, [0], example), "cc-8000", info, CATALOGUE)
    pinned = doc["steps"][-1]["state"]
    assert pinned["discard"] == ["2C"]
    assert pinned["hands"] == {1: ["KD"] * 11} and pinned["hand_sizes"] == [12, 11]
    assert pinned["stock_size"] == 2 and "stock" not in pinned and "stock_cards" not in pinned


def test_a_draft_of_a_refused_setup_checks_the_state_the_reference_loaded() -> None:
    # The engine refused the load_state itself (a failing check, conformance/grading/walk.py):
    # a draft of the setup alone had no check of its own, so the reference, which loads it,
    # could not pass it (twos_wild, trio_needs_distinct_suits). It pins the loaded state.
    loaded = {
        "players": 2, "deal_number": 1, "dealer": 1, "turn": 0, "phase": "draw",
        "hands": [["3S", "4S"], ["KD"]], "opened": [True, False], "turn_opened": False,
        "table": [{"owner": 0, "kind": "trio", "cards": ["2C", "2D", "2H"]}],
        "stock": ["5C"], "discard": ["6C"], "totals": [0, 0],
        "deal_scores": None, "closer": None, "winners": None,
    }  # fmt: skip
    divergence = fuzz.Divergence(
        "CARDS-1", "load_state", "setup", "engine refuses a reachable state",
        ["engine reported invalid_state: table[0] is not a valid trio"], rules=("CARDS-1",),
    )  # fmt: skip
    setup = {"op": "load_state", "state": {**loaded, "profile": "argentine"}}
    example = fuzz.Occurrence(0, divergence, fuzz.Trace(setup, []), {"state": loaded})
    info = {"profile": "argentine", "rulings": {}, "seed": 0, "answers": [], "befores": []}
    doc = fuzz.draft_scenario(fuzz.Finding(divergence, 1, [0], example), "cc-8000", info, CATALOGUE)
    assert doc["steps"] == [] and doc["setup"] == {"state": loaded}
    assert doc["final"] == loaded


# --------------------------------------------------------------------------- declared options


def _declared_options() -> list[tuple[str, str, str]]:
    """Every (profile, point, option) whose facts differ from the profile's own
    (conformance/data/option_facts.json): what an engine may declare and be dealt by."""
    from conformance.knowledge.optionfacts import points

    found = []
    for profile, named in sorted(points().items()):
        for point in named:
            own = CATALOGUE.disputes[point].profiles.get(profile)
            for option in CATALOGUE.disputes[point].options:
                if option != own:
                    found.append((profile, point, option))
    return found


@pytest.mark.slow
@pytest.mark.parametrize(("profile", "point", "option"), _declared_options())
def test_setups_built_for_a_declared_option_are_checked_and_replayed_under_it(
    profile: str, point: str, option: str, tmp_path: Path
) -> None:
    """A draft's setup is a deck or a built state the fuzzer made for the engine's rulings,
    and its ``assumes`` names them: ``check`` accepts it and ``run`` replays it on the
    reference playing that option, for every option an engine may declare."""
    import random

    from conformance.fuzz.melds import shuffled_deck
    from conformance.fuzz.states import built_state
    from conformance.knowledge.optionfacts import meld_wild_limit, with_options
    from conformance.knowledge.profiles import find_profile
    from conformance.run.runner import RunOptions, run_scenarios
    from conformance.scenarios import load_corpus

    facts = with_options(find_profile(profile), {point: option}.get)
    rng = random.Random(f"declared:{profile}:{point}:{option}")
    players = min(facts.players)
    deal = facts.deal_count  # the last deal: where hand sizes and contracts change
    deck = shuffled_deck(rng, facts, players)
    limit = meld_wild_limit(find_profile(profile), "run", {point: option}.get)
    state = built_state(
        rng, players, deal, 0, [0] * players, profile, careful=True, facts=facts, wild_limit=limit
    )
    state = {k: v for k, v in state.items() if k not in ("deal_scores", "closer", "winners")}
    head = {
        "title": f"a setup under {point} {option}",
        "rules": [facts.rule_id("CARDS-1")],
        "source": "fuzz",
        "profiles": [profile],
        "review": "draft",
        "assumes": {point: option},
    }
    draw = [{"action": {"type": "draw_stock", "player": 1 % players}, "expect": "accepted"}]
    cases = {
        "cc-8000": {
            **head,
            "id": "cc-8000",
            "level": "deals",
            "setup": {"deal": {"players": players, "deal_number": deal, "dealer": 0, "deck": deck}},
            "steps": draw,
        },
        "cc-8001": {
            **head,
            "id": "cc-8001",
            "level": "turns",
            "built": "a state the fuzzer built",
            "setup": {"state": state},
            "steps": [
                {"action": {"type": "draw_stock", "player": state["turn"]}, "expect": "accepted"}
            ],
        },
    }
    paths = []
    for name, doc in cases.items():
        path = tmp_path / f"{name}.yaml"
        path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
        paths.append(path)
    loaded = load_corpus(paths, catalogue=CATALOGUE)
    assert loaded.errors == (), [str(e) for e in loaded.errors]
    argv = [*REFERENCE, "--ruling", f"{point}={option}"]
    run = run_scenarios(argv, loaded.scenarios, RunOptions(profile=profile), catalogue=CATALOGUE)
    assert [(r.id, r.status) for r in run.results] == [("cc-8000", "pass"), ("cc-8001", "pass")], [
        (r.id, r.status, r.note) for r in run.results
    ]
