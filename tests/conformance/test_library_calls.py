"""What the command line does, called as a library (no argparse): selecting and sharding
cases (conformance/run/selection.py), the coverage table (conformance/authoring/coverage.py),
and running one profile or every profile an engine lists (conformance/jobs.py)."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from conformance.authoring.coverage import profile_coverage
from conformance.cli import main
from conformance.jobs import (
    RunRequest,
    engine_handshake,
    profiles_to_run,
    run_every_profile,
    run_profile,
    run_request,
)
from conformance.knowledge.catalogue import load_catalogue
from conformance.run.expectations import Expectations
from conformance.run.runner import RunOptions
from conformance.run.selection import (
    NoSelection,
    SelectionError,
    load_scenarios,
    parse_shard,
    select,
    shard_of,
)
from conformance.run.verdict import EXIT_FAILED, EXIT_OK, judge
from conformance.scenarios import Scenario
from tests.adapters import REFERENCE

#: An engine that answers is all these tests need: the reference answers in-process
#: (tests/adapters.py); the tests of what its process does run it as a process.
pytestmark = pytest.mark.usefixtures("reference_in_process")

DATA = Path(__file__).parent / "data"
CATALOGUE = load_catalogue(DATA / "catalogue.json")
FAKE = [sys.executable, str(DATA / "fake_engine.py")]


@pytest.fixture(scope="module")
def good() -> tuple[Scenario, ...]:
    loaded = load_scenarios([DATA / "good"], catalogue=CATALOGUE)
    assert not loaded.errors
    return loaded.scenarios


def ids(scenarios: list[Scenario]) -> list[str]:
    return [s.id for s in scenarios]


def test_select_by_rule_prefix_tag_id_and_profile(good: tuple[Scenario, ...]) -> None:
    assert ids(select(good, rules=["MELD-TRIO"])) == ["cc-0002"]
    assert ids(select(good, rules=["TURN"])) == ["cc-0005", "cc-0003", "cc-0004"]
    assert ids(select(good, tags=["discard"])) == ["cc-0005", "cc-0004"]
    assert ids(select(good, tags=["discard"], ids=["cc-0004"])) == ["cc-0004"]
    assert ids(select(good, rules=["TURN-1"])) == []  # TURN-1 is not a prefix of TURN-10
    assert select(good, profile="chilean") == []


def test_the_shards_grade_every_selected_case_once_in_corpus_order(
    good: tuple[Scenario, ...],
) -> None:
    shards = [ids(shard_of(good, f"{k}/3")) for k in (1, 2, 3)]
    assert sorted(i for shard in shards for i in shard) == sorted(s.id for s in good)
    everything = [s.id for s in good]
    for shard in shards:
        assert shard == [i for i in everything if i in shard]


@pytest.mark.parametrize(
    ("shard", "message"),
    [("2", "expected K/N"), ("a/b", "expected K/N"), ("0/2", "between 1 and N"),
     ("3/2", "between 1 and N"), ("9/9", "at most the number of cases")],
)  # fmt: skip
def test_a_bad_shard_is_named(good: tuple[Scenario, ...], shard: str, message: str) -> None:
    with pytest.raises(SelectionError, match=f"--shard {shard}: .*{message}"):
        shard_of(good, shard)
    assert parse_shard("2/4") == (2, 4)


def test_a_missing_corpus_path_is_named(tmp_path: Path) -> None:
    with pytest.raises(SelectionError, match="no-such-folder"):
        load_scenarios([tmp_path / "no-such-folder"], catalogue=CATALOGUE)


def test_coverage_counts_each_rule_and_point_and_says_what_is_uncovered(
    good: tuple[Scenario, ...],
) -> None:
    whole = profile_coverage(good, CATALOGUE, "argentine")
    assert whole.uncovered_rules == () and whole.uncovered_disputes == ()
    # Only cc-0005 loads a state and acts, and only its discard pile is set (two cards).
    assert whole.loaded["discard"] == ("cc-0005",)
    assert "turn_opened" in whole.unloaded_fields and not whole.complete
    # TURN-5 is cited by the DISPUTE-19 case only; DISPUTE-32 is not observable.
    assert whole.table["rules"]["TURN-5"]["scenarios"] == 1
    assert whole.table["disputes"] == {"DISPUTE-19": ["cc-0005"]}
    melds_only = [s for s in good if s.id in ("cc-0001", "cc-0002")]
    part = profile_coverage(melds_only, CATALOGUE, "argentine")
    assert part.uncovered_rules == ("TURN-2", "TURN-5", "TURN-10")
    assert part.uncovered_disputes == ("DISPUTE-19",)
    assert not part.complete and part.as_json()["profile"] == "argentine"
    assert part.as_json()["loaded"]["turn_opened"] == []


def test_coverage_counts_a_field_only_where_a_case_loads_it_set_and_then_acts() -> None:
    from conformance.run.selection import load_scenarios

    root = Path(__file__).resolve().parents[2]
    catalogue = load_catalogue()  # the real one: the corpus cites every rule
    loaded_corpus = load_scenarios([root / "scenarios"], catalogue=catalogue)
    assert loaded_corpus.errors == ()
    corpus = loaded_corpus.scenarios
    for profile in ("argentine", "chilean", "pagat", "perla"):
        found = profile_coverage(corpus, catalogue, profile)
        assert found.unloaded_fields == (), profile
    loaded = profile_coverage(corpus, catalogue, "argentine").loaded["turn_opened"]
    # cc-2900 loads turn_opened true and lays off; cc-0630 has it only in an expected state.
    assert "cc-2900" in loaded and "cc-0630" not in loaded


def test_run_profile_selects_shards_and_applies_expectations(good: tuple[Scenario, ...]) -> None:
    options = RunOptions(profile="argentine")
    run = run_profile(FAKE, good, options, catalogue=CATALOGUE, rules=["TURN"], shard="1/2")
    # By id, TURN's cases are cc-0003, cc-0004, cc-0005: shard 1/2 is the 1st and 3rd,
    # in corpus order.
    assert [r.id for r in run.results] == ["cc-0005", "cc-0003"]
    assert run.shard == "1/2" and judge(run, CATALOGUE).code == EXIT_OK
    wrong = [*FAKE, "--wrong-penalty"]
    failed = run_profile(wrong, good, options, catalogue=CATALOGUE, ids=["cc-0001"])
    assert failed.counts["fail"] == 1 and judge(failed, CATALOGUE).code == EXIT_FAILED
    known = Expectations(expected_failures={"cc-0001": "joker", "cc-9999": "retired"})
    expected = run_profile(
        wrong, good, options, catalogue=CATALOGUE, ids=["cc-0001"], expectations=known
    )
    assert expected.counts["xfail"] == 1 and judge(expected, CATALOGUE).code == EXIT_OK
    assert any("cc-9999" in warning for warning in expected.warnings)
    with pytest.raises(NoSelection):
        run_profile(FAKE, good, options, catalogue=CATALOGUE, rules=["NOPE"])


def test_an_adapter_that_cannot_start_is_a_run_with_its_error(
    good: tuple[Scenario, ...],
) -> None:
    dead = run_profile(["/nonexistent/engine"], good, RunOptions(), catalogue=CATALOGUE)
    assert dead.run_error is not None and dead.counts["not_run"] == len(dead.results) == 5
    assert judge(dead, CATALOGUE).code == 3


def test_every_profile_the_engine_lists_runs_in_the_harness_order() -> None:
    only = [*REFERENCE, "--profiles", "pagat,chilean"]
    handshake = engine_handshake(only, RunOptions())
    assert profiles_to_run(handshake) == (["chilean", "pagat"], ["argentine", "perla"])
    scenarios = load_scenarios(catalogue=load_catalogue()).scenarios
    runs = run_every_profile(only, scenarios, catalogue=load_catalogue(), rules=["CHILE-WILD"])
    # Only the chilean profile has cases of that section: pagat is left out, not failed.
    assert list(runs) == ["chilean"]
    assert all(r.status == "pass" for r in runs["chilean"].results)


def test_run_request_is_what_the_command_line_runs(
    good: tuple[Scenario, ...], tmp_path: Path
) -> None:
    # One run: the command line's report and the library's run of the same request agree,
    # case by case and cause by cause.
    wrong = [*FAKE, "--wrong-penalty"]
    report = tmp_path / "r.json"
    argv = ["--catalogue", str(DATA / "catalogue.json"), "run", str(DATA / "good")]
    code = main([*argv, "--adapter", shlex.join(wrong), "--no-explain", "--json", str(report)])
    request = RunRequest(tuple(wrong), RunOptions(profile="argentine"), explain=False)
    hooks: list[str] = []
    outcome = run_request(
        request,
        good,
        catalogue=CATALOGUE,
        graded=lambda: hooks.append("graded"),
        settled=lambda: hooks.append("settled"),
    )
    assert outcome.adapter_error is None and outcome.interrupted is None
    assert hooks == ["graded", "settled"]
    written = json.loads(report.read_text())
    assert [(r["id"], r["status"]) for r in written["cases"]] == [
        (r.id, r.status) for r in outcome.run.results
    ]
    assert len(written["causes"]) == len(outcome.run.causes) >= 1
    assert code == judge(outcome.run, CATALOGUE).code == EXIT_FAILED


def test_run_request_says_when_the_adapter_could_not_start(good: tuple[Scenario, ...]) -> None:
    request = RunRequest(("/nonexistent/engine",), RunOptions(), corpus_label="the corpus")
    outcome = run_request(request, good, catalogue=CATALOGUE)
    assert outcome.adapter_error is not None and outcome.run.run_error is not None
    assert outcome.run.counts["not_run"] == len(outcome.run.results) == 5
    assert outcome.run.corpus_path == "the corpus"
