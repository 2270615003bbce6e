"""A setup state holding a table meld with more wild cards than the engine's rulings allow
cannot be loaded into it: the case is not graded (cause ``option``), not failed.

Under 2s wild (DISPUTE-25 ``wild``) with the joker limit kept (VARIANT-03 ``kept``: no table
meld ever holds more than one joker, docs/rules.md) a run with a joker beside a natural 2
holds two wild cards, so an honest engine ruling both refuses the state. cc-0313's run
JK 2H 3H 4H (scenarios/strength/joker-swap-limits.yaml) is such a run: a joker standing for
a low ace always lies beside the 2's place. The facts (conformance/data/option_facts.json)
are compared with the reference, which plays every option.
"""

from __future__ import annotations

import itertools
import sys

import pytest

from conformance.grading.results import CaseResult
from conformance.knowledge.catalogue import load_catalogue
from conformance.knowledge.optionfacts import meld_wild_limit, wild_ranks
from conformance.knowledge.profiles import default_profiles
from conformance.run.runner import RunOptions, run_scenarios
from conformance.scenarios import Scenario, load_corpus
from reference.cards import Rank
from reference.profiles import find_profile
from tests.paths import ROOT

#: An engine that answers is all these tests need: the reference answers in-process
#: (tests/adapters.py); the tests of what its process does run it as a process.
pytestmark = pytest.mark.usefixtures("reference_in_process")

CATALOGUE = load_catalogue()
POINTS = {
    "DISPUTE-25": ("natural", "wild"),
    "VARIANT-03": ("lifted", "kept"),
    "VARIANT-06": ("any", "one"),
}


@pytest.mark.parametrize("name", ["argentine", "pagat"])
def test_wild_ranks_and_meld_limits_agree_with_the_reference(name: str) -> None:
    facts = default_profiles()[name]
    for options in itertools.product(*POINTS.values()):
        rulings = dict(zip(POINTS, options, strict=True))
        ref = find_profile(name).with_rulings(rulings)
        assert ref.wild_ranks <= {Rank.TWO}
        assert wild_ranks(facts, rulings.get) == ({"2"} if ref.wild_ranks else set()), rulings
        assert meld_wild_limit(facts, "run", rulings.get) == ref.later_joker_limit, rulings
        trio = 1 if rulings["VARIANT-06"] == "one" else ref.later_joker_limit
        assert meld_wild_limit(facts, "trio", rulings.get) == trio, rulings


@pytest.fixture(scope="module")
def low_ace_joker() -> list[Scenario]:
    loaded = load_corpus(
        [ROOT / "scenarios" / "strength" / "joker-swap-limits.yaml"], catalogue=CATALOGUE
    )
    assert loaded.errors == ()
    return [s for s in loaded.scenarios if s.id == "cc-0313"]


def _run(low_ace_joker: list[Scenario], *rulings: str) -> CaseResult:
    argv = [sys.executable, "-m", "reference.adapter"]
    for ruling in rulings:
        argv += ["--ruling", ruling]
    result = run_scenarios(argv, low_ace_joker, RunOptions(), catalogue=CATALOGUE)
    (case,) = result.results
    return case


def test_a_run_with_two_wild_cards_is_not_graded_where_the_rulings_forbid_it(
    low_ace_joker: list[Scenario],
) -> None:
    case = _run(low_ace_joker, "DISPUTE-25=wild", "VARIANT-03=kept")
    assert case.status == "unsupported", case
    assert case.checks and {c.cause for c in case.checks} == {"option"}
    assert "2 wild cards" in str(case.checks[0].note)


@pytest.mark.parametrize("ruling", ["DISPUTE-25=wild", "VARIANT-03=kept"])
def test_either_ruling_alone_still_grades_it(
    low_ace_joker: list[Scenario],
    ruling: str,
) -> None:
    case = _run(low_ace_joker, ruling)
    assert case.status == "pass", case.diff
    assert all(c.status == "pass" for c in case.checks)
