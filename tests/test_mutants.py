"""The corpus must kill every rule mutant of the reference, and pass the reference itself.

Each mutant (tests/mutants/mutants.py) is the reference engine with one deliberate rule
deviation, served through the protocol by ``python -m tests.mutants.adapter``. One test per
mutant, so ``pytest -n 2`` spreads them over workers. A surviving mutant is a gap in the
corpus: add a scenario that the rules text decides, never weaken the mutant.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from conformance.knowledge.catalogue import load_catalogue
from tests.mutants import harness
from tests.mutants.later import BY_PROFILE
from tests.mutants.mutants import MUTANTS
from tests.mutants.round5 import HOSTILE
from tests.paths import ROOT

# The Argentine mutants run against the Argentine corpus; the Chilean, Pagat and
# Perla ones against their profile's slice, at the end of this file.
ARGENTINE_MUTANTS = [
    name for name in MUTANTS if not any(name in of.names for of in BY_PROFILE.values())
]

# Mutants the brief requires, by the deviation they make (names as defined in mutants.py).
REQUIRED = {
    "k_a_2_allowed",
    "two_jokers_initial",
    "ace_worth_15",
    "twos_wild",
    "layoff_on_opening_turn",
    "layoff_before_opening",
    "new_meld_after_opening",
    "meld_may_empty_hand",
    "joker_to_hand",
    "recycle_whole_pile",
    "deal_7_dealt_11",
    "joker_worth_25",
    "opening_runs_of_3",
    "opening_trios_of_4",
    "runs_wrap_when_extended",
    "opening_extra_meld",
    "buy_out_of_turn",
    "deal_ends_on_meld",
    "next_dealer_left",
    "cancelled_deal_passes",
    "cancelled_deal_advances",
    "closer_scores_hand",
    "joker_swap_in_trio",
    "joker_to_other_meld",
    "joker_limit_per_opening",
    "layoff_with_gap",
    "draw_twice",
    "first_turn_dealer",
}


@pytest.fixture(scope="module")
def corpus() -> harness.Corpus:
    loaded = harness.load()
    assert loaded.broken == 0, "the corpus has broken scenarios; `carioca-conformance check`"
    assert loaded.scenarios, "no scenarios found"
    return loaded


def test_the_mutant_set_is_complete_and_cites_real_rules() -> None:
    # At least 40 faults per profile, so the corpus is measured on more than a handful.
    assert len(ARGENTINE_MUTANTS) >= 40
    assert REQUIRED - set(MUTANTS) == set()
    known = set(load_catalogue().rules)
    for mutant in (MUTANTS[name] for name in ARGENTINE_MUTANTS):
        assert mutant.rules, mutant.name
        assert "\n" not in mutant.description and mutant.description, mutant.name
        assert set(mutant.rules) <= known, mutant.name


# The sweep's control, slow with it: `tox -e corpus` runs the same reference over every
# profile's slice (`run --profile all`) in the quick loop.
@pytest.mark.slow
def test_the_unmutated_reference_passes_every_case(corpus: harness.Corpus) -> None:
    result = harness.run(harness.reference_argv(), corpus)
    # ``unsupported`` is allowed: a disputed case may lack an expectation for the ruling the
    # reference declares while rulings and the catalogue are being aligned.
    bad = [
        (r.id, r.status, r.diff or r.error)
        for r in result.results
        if r.status not in ("pass", "unsupported")
    ]
    assert bad == []
    assert result.counts["pass"] > 0


@pytest.mark.slow  # the mutant sweep: CI runs it in `tox -e slow`
@pytest.mark.parametrize("name", ARGENTINE_MUTANTS)
def test_the_corpus_kills_the_mutant(name: str, corpus: harness.Corpus) -> None:
    result = harness.run(harness.mutant_argv(name), corpus, hostile=name in HOSTILE)
    probes = sum(r.id.startswith("hostile/") for r in result.results)
    assert result.counts["total"] == len(corpus.scenarios) + probes
    assert (probes > 0) is (name in HOSTILE)
    mutant = MUTANTS[name]
    killers = harness.killers(result)
    # Two killers that differ in setup: with one, a single edited scenario would let the
    # mutant survive, and two near-copies pin one branch in one situation only.
    assert harness.distinct_setups(killers, corpus) >= 2, (
        f"mutant {name} ({', '.join(mutant.rules)}: {mutant.description}) is killed by "
        f"{killers or 'no scenario'}: add a scenario with another deal, seat, player count "
        "or meld kind so that at least two setups catch it"
    )


def test_a_mutant_adapter_speaks_the_protocol_and_deviates() -> None:
    # Direct probe, independent of the corpus: §07 values an ace at 20; the mutant says 15.
    requests = [
        {"id": 1, "op": "hello", "protocol": 1},
        {"id": 2, "op": "penalty", "profile": "argentine", "cards": ["AS", "QD", "3C"]},
        {"id": 3, "op": "bye"},
    ]
    stdin = "".join(json.dumps(r) + "\n" for r in requests)
    answers = {}
    for argv in (harness.reference_argv(), harness.mutant_argv("ace_worth_15")):
        done = subprocess.run(
            argv, input=stdin, capture_output=True, text=True, timeout=30, env=harness.child_env()
        )
        lines = [json.loads(line) for line in done.stdout.splitlines()]
        assert [line["id"] for line in lines] == [1, 2, 3]
        answers[argv[-1]] = lines[1]["points"]
    assert answers == {"reference.adapter": 20 + 10 + 3, "ace_worth_15": 15 + 10 + 3}


def test_applying_a_second_mutant_in_one_process_is_refused() -> None:
    # Stacked patches would no longer be one deviation; run in a child to keep this process clean.
    code = (
        "from tests.mutants.mutants import apply_mutant\n"
        "apply_mutant('draw_twice')\n"
        "try:\n    apply_mutant('ace_worth_15')\nexcept RuntimeError:\n    print('refused')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=30,
        env=harness.child_env(),
        cwd=ROOT,
    )
    assert done.stdout.strip() == "refused", done.stderr


# --- The later profiles' mutants: each profile's slice of the corpus must kill each one ------

#: The fewest mutants each profile brings.
LEAST_MUTANTS = {"chilean": 40, "pagat": 40, "perla": 40}


@pytest.mark.parametrize("profile", sorted(BY_PROFILE))
def test_a_profiles_mutants_cite_rules_that_hold_in_it(profile: str) -> None:
    names = BY_PROFILE[profile].names
    assert len(names) >= LEAST_MUTANTS[profile]
    rules = load_catalogue().rules
    for name in sorted(names):
        mutant = MUTANTS[name]
        assert mutant.rules and set(mutant.rules) <= set(rules), name
        assert all(profile in rules[rule].profiles for rule in mutant.rules), (name, profile)
        assert "\n" not in mutant.description and mutant.description, name


_SLICES: dict[str, harness.Corpus] = {}


def _slice(profile: str) -> harness.Corpus:
    """The profile's slice of the corpus, loaded once per test process."""
    if profile not in _SLICES:
        assert BY_PROFILE[profile].plays(), f"the reference has no {profile} profile"
        _SLICES[profile] = harness.load(profile=profile)
    assert _SLICES[profile].scenarios, f"the corpus has no {profile} scenarios"
    return _SLICES[profile]


@pytest.mark.slow  # the sweep's control, as above
@pytest.mark.parametrize("profile", sorted(BY_PROFILE))
def test_the_unmutated_reference_passes_every_case_of_a_profile(profile: str) -> None:
    result = harness.run(harness.reference_argv(), _slice(profile), profile=profile)
    bad = [
        (r.id, r.status, r.diff or r.error)
        for r in result.results
        if r.status not in ("pass", "unsupported")
    ]
    assert bad == []
    assert result.counts["pass"] > 0


@pytest.mark.slow  # the mutant sweep: CI runs it in `tox -e slow`
@pytest.mark.parametrize(
    ("profile", "name"),
    [(profile, name) for profile, of in sorted(BY_PROFILE.items()) for name in sorted(of.names)],
)
def test_a_profiles_slice_kills_its_mutant(profile: str, name: str) -> None:
    result = harness.run(
        harness.mutant_argv(name), _slice(profile), profile=profile, hostile=name in HOSTILE
    )
    mutant = MUTANTS[name]
    killers = harness.killers(result)
    assert harness.distinct_setups(killers, _slice(profile)) >= 2, (
        f"mutant {name} ({', '.join(mutant.rules)}: {mutant.description}) is killed by "
        f"{killers or 'no scenario'}: add a {profile} scenario with another deal, seat, player "
        "count or meld kind so that at least two setups catch it"
    )


# --- two killers that differ in setup; faults ported to one profile ---------------------------


def test_killers_in_one_setup_count_once(corpus: harness.Corpus) -> None:
    # cc-1415 and cc-1418: two players, deal 2, player 1 to move, a trio and a run on the
    # table; other hands only. cc-2131 is four players in deal 3.
    assert harness.distinct_setups(["cc-1415", "cc-1418"], corpus) == 1
    assert harness.distinct_setups(["cc-1415", "cc-1418", "cc-2131"], corpus) == 2
    # Melds questions differ by what they ask.
    assert harness.distinct_setups(["cc-2106", "cc-2107"], corpus) == 2
    assert harness.distinct_setups(["missing-id"], corpus) == 0
    # Each hostile probe is a request of its own.
    assert harness.distinct_setups(["hostile/a", "hostile/b", "hostile/a"], corpus) == 2
    # Two new five-player Pagat games differ by their seed (5 and 21).
    assert harness.distinct_setups(["cc-1802", "cc-1806"], _slice("pagat")) == 2


def _pagat_slice_state(scenario_id: str, profile: str) -> dict[str, Any]:
    scenario = next(s for s in harness.load(profile=profile).scenarios if s.id == scenario_id)
    assert scenario.setups[profile].state is not None
    return dict(scenario.setups[profile].state)


@pytest.mark.parametrize("profile", ["argentine", "pagat"])
def test_a_ported_mutant_deviates_in_its_own_profile_only(profile: str) -> None:
    # pagat_draw_twice is draw_twice made in the Pagat profile only: the same state (cc-2101,
    # player 3 to draw) takes a second draw under pagat and refuses it under argentine.
    requests = [
        {"id": 1, "op": "hello", "protocol": 1},
        {"id": 2, "op": "load_state", "state": _pagat_slice_state("cc-2101", profile)},
        {"id": 3, "op": "act", "action": {"type": "draw_stock", "player": 3}},
        {"id": 4, "op": "act", "action": {"type": "draw_stock", "player": 3}},
        {"id": 5, "op": "bye"},
    ]
    stdin = "".join(json.dumps(r) + "\n" for r in requests)
    done = subprocess.run(
        harness.mutant_argv("pagat_draw_twice"),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        env=harness.child_env(),
    )
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [a["id"] for a in answers] == [1, 2, 3, 4, 5], done.stderr
    assert answers[2]["accepted"] is True
    assert answers[3]["accepted"] is (profile == "pagat")


def test_every_ported_mutant_names_an_argentine_function_mutant() -> None:
    for of in BY_PROFILE.values():
        module = sys.modules[f"tests.mutants.{of.name}"]
        for base, rules, _description in getattr(module, "PORTED", ()):
            assert base in ARGENTINE_MUTANTS, (of.name, base)
            assert f"{of.name}_{base}" in of.names
            assert rules


def test_every_round4_mutant_is_registered_in_its_profile() -> None:
    # tests/mutants/round4_behaviours.py: the ports and Perla's own pass mutant, registered
    # by each profile's module through ``register``.
    from tests.mutants import round4_behaviours

    for profile, base, rules, _description in round4_behaviours.PORTED:
        assert base in ARGENTINE_MUTANTS, (profile, base)
        assert f"{profile}_{base}" in BY_PROFILE[profile].names
        assert rules
    for profile, name, _rules, _description in round4_behaviours.OWN:
        assert name in BY_PROFILE[profile].names and name not in ARGENTINE_MUTANTS


def test_every_round5_mutant_is_registered_in_its_profile() -> None:
    # tests/mutants/round5.py: each profile's own faults and the ports; the mutants graded
    # with the hostile probes are the ones whose fault is an impossible request taken.
    from tests.mutants import round5

    for profile, ported in round5.PORTED.items():
        for base, rules, _description in ported:
            assert base in ARGENTINE_MUTANTS, (profile, base)
            assert f"{profile}_{base}" in BY_PROFILE[profile].names
            assert rules
    for profile, own in round5.OWN.items():
        for name, _rules, _description, _patch, hostile in own:
            assert name in BY_PROFILE[profile].names and name not in ARGENTINE_MUTANTS
            assert (name in round5.HOSTILE) is hostile
    for profile in ("chilean", "pagat", "perla"):
        assert f"{profile}_turn_opened_dropped_on_load" in BY_PROFILE[profile].names
    assert {"deck_not_pack_dealt", "players_outside_unsupported", "impossible_state_loaded"} <= (
        round5.HOSTILE
    )
