"""`coverage` counts every case that leans on a point, not only those whose `disputed` block
names it (conformance/authoring/coverage.py)."""

from __future__ import annotations

from conformance.audit.findings import names_point
from conformance.authoring.coverage import coverage_text, leaning_options, profile_coverage
from conformance.knowledge.catalogue import load_catalogue
from conformance.run.selection import load_scenarios
from conformance.scenarios import load_corpus
from tests.paths import ROOT


def test_dispute_31_shows_every_argentine_case_leaning_on_it() -> None:
    catalogue = load_catalogue()
    corpus = load_scenarios(catalogue=catalogue).scenarios  # the corpus `coverage` reads
    argentine = [s for s in corpus if "argentine" in s.profiles]
    # The audit's own test of a case naming a point (its disputed block, an assumes, a
    # by_option keyed by it) is the oracle: coverage must list every such case.
    leaning = {s.id for s in argentine if names_point(s, "DISPUTE-31")}
    found = profile_coverage(corpus, catalogue, "argentine")
    assert set(found.table["leaning"]["DISPUTE-31"]["cases"]) == leaning
    # cc-0136 tests it in a disputed block; the contracts give a value per option
    # (scenarios/contracts/deal-1.yaml: cc-0102), more cases than the two that test it.
    assert {"cc-0136", "cc-0102"} <= leaning and len(leaning) > 10
    text = coverage_text(found, catalogue, "scenarios")
    line = next(line for line in text.splitlines() if "lean on it" in line and "cc-0102" in line)
    assert all(case in line for case in leaning)


def test_each_way_of_leaning_names_its_options() -> None:
    corpus = {s.id: s for s in load_corpus([ROOT / "scenarios" / "contracts"]).scenarios}
    # A by_option keyed by the point: every option it gives a value for.
    assert leaning_options(corpus["cc-0102"])["DISPUTE-31"] == {
        "exact",
        "at_least",
        "runs_at_least",
    }
    # A disputed block: its options.
    assert leaning_options(corpus["cc-0136"])["DISPUTE-31"] >= {"exact", "at_least"}
