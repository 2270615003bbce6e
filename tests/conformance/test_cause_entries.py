"""A cause entry covers its own behaviour only (conformance/run/cause_entries.py).

Two single-fault engines (tests/mutants/, docs/mutants.md) fail the same checks of the
scoring cases for different reasons: one counts a joker left in hand 25 (the rules: 50,
SCORE-2), the other an ace 15 (the rules: 20). A by-cause expectations file written for
the first keeps the first green and leaves the second failing, each check it lists but
that fails otherwise named as not matching.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.knowledge.catalogue import load_catalogue
from conformance.reports.causes import with_causes
from conformance.run.expectations import (
    apply_expectations,
    load_expectations,
    write_expectations,
)
from conformance.run.runner import RunOptions, RunResult, run_scenarios
from conformance.scenarios import Scenario, load_corpus
from tests.mutants import harness
from tests.paths import ROOT

CATALOGUE = load_catalogue()
#: Cases both faults fail (docs/mutants.md: killed by joker_worth_25 and ace_worth_15).
BOTH = ("cc-0147", "cc-0148", "cc-0207", "cc-0208", "cc-0209", "cc-0210")


@pytest.fixture(scope="module")
def cases() -> list[Scenario]:
    loaded = load_corpus([ROOT / "scenarios"], catalogue=CATALOGUE)
    return [s for s in loaded.scenarios if s.id in BOTH]


def mutant_run(name: str, cases: list[Scenario]) -> RunResult:
    harness.make_root_importable()
    run = run_scenarios(harness.mutant_argv(name), cases, RunOptions(), catalogue=CATALOGUE)
    return with_causes(run, cases)


@pytest.mark.slow
def test_a_file_written_for_one_fault_leaves_another_failing(
    cases: list[Scenario], tmp_path: Path
) -> None:
    joker = mutant_run("joker_worth_25", cases)
    ace = mutant_run("ace_worth_15", cases)
    assert joker.causes and ace.causes
    target = tmp_path / "expected.yaml"
    write_expectations(target, joker.results, by_cause=joker.causes)
    assert "shows:" in target.read_text()
    expectations = load_expectations(target)
    # The engine it was written for: every failing check expected, the run green.
    kept = apply_expectations(joker.results, expectations)
    assert not [c for r in kept for c in r.checks if c.status == "fail"]
    # The other fault fails checks the file lists, showing other values: still failing.
    listed = {m for cause in expectations.causes for m in cause.checks}
    other = apply_expectations(ace.results, expectations)
    still = [(r.id, c) for r in other for c in r.checks if c.status == "fail"]
    assert still
    assert any((rid, c.key) in listed for rid, c in still)
    assert all(
        "not matching the entry" in (c.note or "") for rid, c in still if (rid, c.key) in listed
    )
    assert not [r.id for r in other if r.status == "xfail"]
