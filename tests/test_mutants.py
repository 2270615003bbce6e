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
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    # ``tests`` is not a package on pytest's path; the mutants live under it.
    sys.path.insert(0, str(ROOT))

from conformance.catalogue import load_catalogue  # noqa: E402
from tests.mutants import harness  # noqa: E402
from tests.mutants.chilean import CHILEAN, reference_plays_chilean  # noqa: E402
from tests.mutants.mutants import MUTANTS  # noqa: E402
from tests.mutants.pagat import PAGAT, reference_plays_pagat  # noqa: E402
from tests.mutants.perla import PERLA, reference_plays_perla  # noqa: E402

# The Argentine mutants run against the Argentine corpus; the Chilean (issue 15), Pagat and
# Perla (issue 16) ones against their profile's slice, at the end of this file.
ARGENTINE_MUTANTS = [name for name in MUTANTS if name not in CHILEAN | PAGAT | PERLA]

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
    assert len(MUTANTS) >= 25
    assert REQUIRED - set(MUTANTS) == set()
    known = set(load_catalogue().rules)
    for mutant in (MUTANTS[name] for name in ARGENTINE_MUTANTS):
        assert mutant.rules, mutant.name
        assert "\n" not in mutant.description and mutant.description, mutant.name
        assert set(mutant.rules) <= known, mutant.name


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


@pytest.mark.parametrize("name", ARGENTINE_MUTANTS)
def test_the_corpus_kills_the_mutant(name: str, corpus: harness.Corpus) -> None:
    result = harness.run(harness.mutant_argv(name), corpus)
    assert result.counts["total"] == len(corpus.scenarios)
    mutant = MUTANTS[name]
    killers = harness.killers(result)
    # Two distinct killers: with one, a single edited scenario would let the mutant survive.
    assert len(killers) >= 2, (
        f"mutant {name} ({', '.join(mutant.rules)}: {mutant.description}) is killed by "
        f"{killers or 'no scenario'}: add a scenario so that at least two catch it"
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


# --- Chilean mutants (issue 15): the Chilean slice of the corpus must kill each one ----------


def test_the_chilean_mutant_set_cites_chilean_rules() -> None:
    assert len(CHILEAN) >= 15
    rules = load_catalogue().rules
    if not any(rule.startswith("CHILE-") for rule in rules):
        pytest.skip("the catalogue has no Chilean rules yet (issue 15, part r)")
    for name in sorted(CHILEAN):
        mutant = MUTANTS[name]
        assert mutant.rules and set(mutant.rules) <= set(rules), name
        assert "\n" not in mutant.description and mutant.description, name


@pytest.fixture(scope="module")
def chilean_corpus() -> harness.Corpus:
    if not reference_plays_chilean():
        pytest.skip("the reference has no chilean profile yet (issue 15, part r)")
    loaded = harness.load(profile="chilean")
    if not loaded.scenarios:
        pytest.skip("the corpus has no chilean scenarios under scenarios/ yet")
    return loaded


def test_the_unmutated_reference_passes_every_chilean_case(
    chilean_corpus: harness.Corpus,
) -> None:
    result = harness.run(harness.reference_argv(), chilean_corpus, profile="chilean")
    bad = [
        (r.id, r.status, r.diff or r.error)
        for r in result.results
        if r.status not in ("pass", "unsupported")
    ]
    assert bad == []
    assert result.counts["pass"] > 0


@pytest.mark.parametrize("name", sorted(CHILEAN))
def test_the_chilean_slice_kills_the_chilean_mutant(
    name: str, chilean_corpus: harness.Corpus
) -> None:
    result = harness.run(harness.mutant_argv(name), chilean_corpus, profile="chilean")
    mutant = MUTANTS[name]
    killers = harness.killers(result)
    assert len(killers) >= 2, (
        f"mutant {name} ({', '.join(mutant.rules)}: {mutant.description}) is killed by "
        f"{killers or 'no scenario'}: add a Chilean scenario so that at least two catch it"
    )


# --- Perla mutants (issue 16): the Perla slice of the corpus must kill each one ---------------


def test_the_perla_mutant_set_cites_perla_rules() -> None:
    assert len(PERLA) >= 10
    rules = load_catalogue().rules
    if not any(rule.startswith("PERLA-") for rule in rules):
        pytest.skip("the catalogue has no Perla rules yet (issue 16, part qr)")
    for name in sorted(PERLA):
        mutant = MUTANTS[name]
        assert mutant.rules and set(mutant.rules) <= set(rules), name
        assert "\n" not in mutant.description and mutant.description, name


@pytest.fixture(scope="module")
def perla_corpus() -> harness.Corpus:
    if not reference_plays_perla():
        pytest.skip("the reference has no perla profile yet (issue 16, part qr)")
    loaded = harness.load(profile="perla")
    if not loaded.scenarios:
        pytest.skip("the corpus has no perla scenarios under scenarios/ yet")
    return loaded


def test_the_unmutated_reference_passes_every_perla_case(perla_corpus: harness.Corpus) -> None:
    result = harness.run(harness.reference_argv(), perla_corpus, profile="perla")
    bad = [
        (r.id, r.status, r.diff or r.error)
        for r in result.results
        if r.status not in ("pass", "unsupported")
    ]
    assert bad == []
    assert result.counts["pass"] > 0


@pytest.mark.parametrize("name", sorted(PERLA))
def test_the_perla_slice_kills_the_perla_mutant(name: str, perla_corpus: harness.Corpus) -> None:
    result = harness.run(harness.mutant_argv(name), perla_corpus, profile="perla")
    mutant = MUTANTS[name]
    killers = harness.killers(result)
    assert len(killers) >= 2, (
        f"mutant {name} ({', '.join(mutant.rules)}: {mutant.description}) is killed by "
        f"{killers or 'no scenario'}: add a Perla scenario so that at least two catch it"
    )


# --- Pagat mutants (issue 16): the Pagat slice of the corpus must kill each one --------------


def test_the_pagat_mutant_set_cites_pagat_rules() -> None:
    assert len(PAGAT) >= 10
    rules = load_catalogue().rules
    for name in sorted(PAGAT):
        mutant = MUTANTS[name]
        assert mutant.rules and set(mutant.rules) <= set(rules), name
        assert all("pagat" in rules[rule].profiles for rule in mutant.rules), name
        assert "\n" not in mutant.description and mutant.description, name


@pytest.fixture(scope="module")
def pagat_corpus() -> harness.Corpus:
    if not reference_plays_pagat():
        pytest.skip("the reference has no pagat profile yet (issue 16)")
    loaded = harness.load(profile="pagat")
    if not loaded.scenarios:
        pytest.skip("the corpus has no pagat scenarios under scenarios/ yet")
    return loaded


def test_the_unmutated_reference_passes_every_pagat_case(pagat_corpus: harness.Corpus) -> None:
    result = harness.run(harness.reference_argv(), pagat_corpus, profile="pagat")
    bad = [
        (r.id, r.status, r.diff or r.error)
        for r in result.results
        if r.status not in ("pass", "unsupported")
    ]
    assert bad == []
    assert result.counts["pass"] > 0


@pytest.mark.parametrize("name", sorted(PAGAT))
def test_the_pagat_slice_kills_the_pagat_mutant(name: str, pagat_corpus: harness.Corpus) -> None:
    result = harness.run(harness.mutant_argv(name), pagat_corpus, profile="pagat")
    mutant = MUTANTS[name]
    killers = harness.killers(result)
    assert len(killers) >= 2, (
        f"mutant {name} ({', '.join(mutant.rules)}: {mutant.description}) is killed by "
        f"{killers or 'no scenario'}: add a Pagat scenario so that at least two catch it"
    )
