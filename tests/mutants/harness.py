"""Running the scenario corpus against mutants, through the protocol like any other engine.

Shared by ``tests/test_mutants.py`` and ``python -m tests.mutants.report``. The mutant adapter
is started as ``python -m tests.mutants.adapter``, so the repository root must be importable
in the child: :func:`child_env` puts it on ``PYTHONPATH``.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conformance.knowledge.catalogue import Catalogue, load_catalogue
from conformance.run.runner import CaseResult, RunOptions, RunResult, run_scenarios
from conformance.scenarios import Scenario, load_corpus

ROOT = Path(__file__).resolve().parents[2]
PROFILE = "argentine"


@dataclass(frozen=True)
class Corpus:
    """The loaded corpus: the scenarios of the profile, and the catalogue they cite."""

    scenarios: tuple[Scenario, ...]
    catalogue: Catalogue
    broken: int
    """Scenario documents that failed to load (skipped, as ``run --skip-broken`` does)."""


def load(paths: Sequence[Path] | None = None, profile: str = PROFILE) -> Corpus:
    """Load the corpus (default: the repository's ``scenarios/``), keeping ``profile``'s cases."""
    catalogue = load_catalogue()
    loaded = load_corpus(list(paths or [ROOT / "scenarios"]), catalogue=catalogue)
    chosen = tuple(s for s in loaded.scenarios if profile in s.profiles)
    return Corpus(chosen, catalogue, len(loaded.errors))


def reference_argv() -> list[str]:
    """The unmutated reference adapter."""
    return [sys.executable, "-m", "reference.adapter"]


def mutant_argv(name: str) -> list[str]:
    """The reference adapter with mutant ``name`` applied."""
    return [sys.executable, "-m", "tests.mutants.adapter", "--mutant", name]


def child_env(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """``base`` (default: this process's environment) with the repository root importable."""
    env = dict(os.environ if base is None else base)
    parts = [str(ROOT), *[p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]]
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(parts))
    return env


def make_root_importable() -> None:
    """Put the repository root on this process's ``PYTHONPATH`` (idempotent).

    The runner starts adapters with this process's environment, and ``-m tests.mutants.adapter``
    must resolve whatever the current directory is. Set once and never restored, so that
    runs in parallel threads never see it missing.
    """
    os.environ["PYTHONPATH"] = child_env()["PYTHONPATH"]


def run(
    argv: Sequence[str],
    corpus: Corpus,
    workers: int = 1,
    profile: str = PROFILE,
    *,
    hostile: bool = False,
) -> RunResult:
    """Run the whole corpus against the adapter ``argv`` under ``profile``, every case to the end.

    Consecutive errors never stop the run: a mutant may make ``load_state`` refuse many
    setups in a row, and the cases after them must still be graded. With ``hostile`` the
    hostile probes are graded too, as ``run --hostile`` does (cases ``hostile/<probe>``): a
    mutant that only mishandles impossible requests is killed there.
    """
    make_root_importable()
    options = RunOptions(
        profile=profile,
        workers=workers,
        timeout=20.0,
        case_timeout=60.0,
        max_consecutive_errors=10**6,
    )
    result = run_scenarios(argv, corpus.scenarios, options, catalogue=corpus.catalogue)
    if not hostile:
        return result
    from conformance.laws.hostile import hostile_run, with_cases

    return with_cases(result, hostile_run(argv, options))


def with_status(results: Sequence[CaseResult], status: str) -> list[str]:
    """The ids of the cases that ended with ``status``, in corpus order."""
    return [r.id for r in results if r.status == status]


def killers(result: RunResult) -> list[str]:
    """The scenarios that kill a mutant: those that *fail* under it.

    Errors do not count: a mutant is killed by a wrong answer, not by a crash.
    """
    return with_status(result.results, "fail")


def setup_key(scenario: Scenario) -> tuple[Any, ...]:
    """What tells one case's setup from another's (a mutant needs two killers that differ in
    setup: another deal, seat, player count or meld kind).

    A melds question is its own setup (the questions it asks); a played case is told by its
    level, player count, deal number, the seat to move (or the dealer) and the meld kinds
    its table and openings hold (a new game: its seed for the deal). Two cases on other
    hands but the same of these count as one.
    """
    if scenario.level == "melds":
        asked = sorted(
            json.dumps({"op": c.op, **c.request}, sort_keys=True) for c in scenario.checks
        )
        return ("melds", tuple(asked))
    setup = scenario.setup
    source: Mapping[str, Any] = {}
    if setup is not None:
        source = setup.state or setup.deal or setup.new_game or {}
    players = source.get("players")
    if players is None and isinstance(source.get("hands"), list):
        players = len(source["hands"])
    kinds = {str(m.get("kind")) for m in source.get("table", ()) if isinstance(m, Mapping)}
    for step in scenario.steps:
        melds = (step.action or {}).get("melds") or ()
        kinds |= {str(m.get("kind")) for m in melds if isinstance(m, Mapping)}
    seat = source.get("turn", source.get("dealer"))
    # A new game's seed is its deal: another seed deals other hands to another dealer.
    deal = source.get("deal_number", source.get("seed"))
    return (scenario.level, players, deal, seat, tuple(sorted(kinds)))


def distinct_setups(ids: Iterable[str], corpus: Corpus) -> int:
    """How many different setups (:func:`setup_key`) the cases ``ids`` of ``corpus`` have.

    A hostile probe's case (``hostile/<probe>``) is its own setup, as a melds question is:
    each sends another request."""
    by_id = {s.id: s for s in corpus.scenarios}
    keys: set[tuple[Any, ...]] = {setup_key(by_id[i]) for i in ids if i in by_id}
    keys |= {("hostile", i) for i in ids if i.startswith("hostile/")}
    return len(keys)
