"""conformance/run/warmup.py: what a run prepares while its adapter starts changes nothing it does.

The warm-up fills caches a case would otherwise fill itself (requests checked and encoded,
checks resolved under the profile's options). Whether it ran whole before the handshake,
in part, or not at all, the adapter must see the same bytes and the report the same results;
and an engine ruling otherwise than the profile must be graded on its own options, not on
the ones warmed for.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from conformance.adapter.declarations import INTERFACE_DEFAULTS, declarations
from conformance.adapter.engine import EngineSession, Handshake
from conformance.adapter.protocol import CheckedRequest
from conformance.grading.expect import Resolutions
from conformance.grading.requests import RequestBook, setup_request
from conformance.grading.results import RunResult
from conformance.grading.walk import why_ungradable
from conformance.knowledge.catalogue import load_catalogue
from conformance.run.runner import RunOptions, run_scenarios
from conformance.run.warmup import WarmUp
from conformance.scenarios import Scenario, corpus_digest, load_corpus
from conformance.scenarios.corpus import default_corpus_dir
from tests.adapters import REFERENCE
from tests.paths import ROOT

#: An engine that answers is all these tests need: the reference answers in-process
#: (tests/adapters.py); the tests of what its process does run it as a process.
pytestmark = pytest.mark.usefixtures("reference_in_process")

TEE = ROOT / "benchmarks" / "tee_adapter.py"
CATALOGUE = load_catalogue()
CORPUS = load_corpus([default_corpus_dir()], catalogue=CATALOGUE).scenarios


def hello(
    rulings: dict[str, str], profiles: tuple[str, ...] = ("argentine", "chilean", "pagat", "perla")
) -> Handshake:
    return Handshake.from_hello(
        {
            "protocol": 1,
            "implementation": {"name": "t", "version": "1", "language": "x"},
            "profiles": list(profiles),
            "capabilities": ["melds", "turns", "deals", "reasons"],
            "rulings": rulings,
        }
    )


def sample(profile: str) -> list[Scenario]:
    """Cases of every level of ``profile``: melds checks, turns, deals and disputes."""
    chosen: list[Scenario] = []
    for level in ("melds", "turns", "deals"):
        cases = [s for s in CORPUS if profile in s.profiles and s.level == level]
        chosen += cases[:12]
    disputed = [s for s in CORPUS if profile in s.profiles and s.disputed and s not in chosen]
    return chosen + disputed[:6]


def recorded_run(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    warm_up: Callable[[WarmUp, EngineSession], None],
    scenarios: list[Scenario],
    engine: list[str],
    profile: str,
) -> tuple[RunResult, bytes]:
    """A run whose warm-up does ``warm_up`` instead of its own, and the bytes it sent."""
    monkeypatch.setattr(WarmUp, "during_start", warm_up)
    record = tmp_path / f"{name}.jsonl"
    argv = [sys.executable, str(TEE), str(record), "--", *engine]
    run = run_scenarios(argv, scenarios, RunOptions(profile=profile), catalogue=CATALOGUE)
    return run, record.read_bytes()


def none(warm: WarmUp, session: EngineSession) -> None:
    """No warm-up: every case makes its requests and plans when it needs them."""


def whole(warm: WarmUp, session: EngineSession) -> None:
    """All of it, before the adapter is even started."""
    for piece in warm.pieces():
        piece()


def outcome(run: RunResult) -> list[tuple[str, str, list[tuple[str, str]]]]:
    return [(r.id, r.status, [(c.key, c.status) for c in r.checks]) for r in run.results]


ENGINES = {
    "the profile's options": [],
    # Another joker value and hand size: setups dealt again, values written per option.
    "joker 30, twelve cards": ["--ruling", "VARIANT-01=thirty", "--ruling", "VARIANT-05=twelve"],
    # Wild 2s: other packs' states are refilled for the engine.
    "wild twos": ["--ruling", "DISPUTE-25=wild"],
}


@pytest.mark.parametrize("rulings", list(ENGINES.values()), ids=list(ENGINES))
def test_the_adapter_sees_the_same_bytes_and_the_report_the_same_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rulings: list[str]
) -> None:
    scenarios = sample("argentine")
    engine = [*REFERENCE, *rulings]
    runs = {
        name: recorded_run(tmp_path, monkeypatch, name, how, scenarios, engine, "argentine")
        for name, how in [("cold", none), ("warmed", whole), ("as run", WarmUp.during_start)]
    }
    cold_run, cold_bytes = runs["cold"]
    assert cold_run.counts.get("pass", 0) > 0
    for name in ("warmed", "as run"):
        run, sent = runs[name]
        assert sent == cold_bytes, name
        assert outcome(run) == outcome(cold_run), name
        assert run.corpus_digest == cold_run.corpus_digest == corpus_digest(scenarios)


def test_the_warm_up_fills_what_every_case_asks_for() -> None:
    """After the warm-up, a case played as its profile deals it finds each of its requests
    ready, checked and encoded: the setup, the steps and the melds checks."""
    scenarios = sample("chilean")
    resolutions, book = Resolutions(), RequestBook("chilean")
    warm = WarmUp(scenarios, "chilean", CATALOGUE, resolutions, book)
    for piece in warm.pieces():
        piece()
    steps = checks = 0
    for scenario in scenarios:
        if scenario.level == "melds":
            for check in scenario.checks:
                assert type(book.check(check)) is CheckedRequest
                assert book.check(check) is book.check(check)
                checks += 1
            continue
        setup = book.setup(scenario, declarations(hello({}), "chilean", CATALOGUE))
        assert type(setup) is CheckedRequest
        assert setup == setup_request(scenario, "chilean", None)
        for step in scenario.steps:
            request = book.step(step)
            if step.kind == "action":
                assert type(request) is CheckedRequest
                assert request is book.step(step)
                steps += 1
            else:
                assert request is None  # a deal step's deck comes from the state before
    assert steps and checks


@pytest.mark.parametrize("profile", ["argentine", "chilean", "pagat", "perla"])
def test_a_setup_from_the_book_is_the_one_made_for_the_engine(profile: str) -> None:
    """The book hands out the setup as written only where the engine's rulings deal it as
    the profile does; elsewhere the one refilled or dealt again for the engine."""

    book = RequestBook(profile)
    written = otherwise = 0
    for rulings in [{}, {"VARIANT-01": "thirty", "VARIANT-05": "twelve"}, {"DISPUTE-25": "wild"}]:
        declared = declarations(hello(rulings), profile, CATALOGUE)
        for scenario in CORPUS:
            if profile not in scenario.profiles or scenario.level == "melds":
                continue
            if why_ungradable(scenario, declared, "", None) is not None:
                continue  # its setup is never sent
            got = book.setup(scenario, declared)
            assert got == setup_request(scenario, profile, declared), scenario.id
            if type(got) is CheckedRequest:
                written += 1
            else:
                otherwise += 1
    assert written
    if profile == "argentine":  # twelve cards a deal and wild 2s deal it otherwise
        assert otherwise


def test_the_warm_up_serves_checks_written_per_reading_to_an_engine_of_the_default_readings() -> (
    None
):
    """A case whose checks give a value per interface reading is warmed for the protocol's
    default readings, so an engine declaring none is served the warmed answer."""
    scenarios = [s for s in CORPUS if "argentine" in s.profiles]
    resolutions = Resolutions()
    warm = WarmUp(scenarios, "argentine", CATALOGUE, resolutions, RequestBook("argentine"))
    for piece in warm.pieces():
        piece()
    engine = declarations(hello({}), "argentine", CATALOGUE)
    served = 0
    for scenario in scenarios:
        disputed = scenario.disputed.id if scenario.disputed else None
        answer = resolutions.get(scenario.plan_for("argentine"), engine, disputed)
        if not {point for point, _ in answer.read} & set(INTERFACE_DEFAULTS):
            continue
        assert set(answer.passes) == {c.key for c in answer.kept}, scenario.id  # made ahead
        served += 1
    assert served
