"""Shared helpers of the fuzzing tests (tests/conformance/test_fuzz_*.py): the adapters,
small seeded campaigns, the report schema, and grading one draft scenario.

Every campaign in those tests is seeded and small (a few games), so each test takes
seconds and gives the same findings on every run: nothing depends on timing.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema

from conformance import fuzz
from conformance.knowledge.catalogue import load_catalogue
from conformance.run.runner import RunOptions, run_scenarios
from conformance.scenarios import load_corpus
from tests.adapters import REFERENCE as REFERENCE  # for the fuzz tests that import it here
from tests.mutants import harness
from tests.paths import ROOT

SCHEMA = json.loads((ROOT / "conformance/schemas/fuzz-report.schema.json").read_text())
PROXY = [sys.executable, str(ROOT / "tests" / "fake_adapters" / "real_engine_proxy.py")]
CATALOGUE = load_catalogue()
#: The reference behind the choices the protocol leaves to an engine (recycled order, no
#: dealer, its own joker placement), tests/fake_adapters/house_engine_proxy.py.
HOUSE = [sys.executable, str(ROOT / "tests" / "fake_adapters" / "house_engine_proxy.py")]
#: Steps a game in the mutant subsets, as in the sweep.
SWEEP_STEPS = 120


def options(**kw: Any) -> fuzz.FuzzOptions:
    """A small campaign's options (3 games of 60 steps unless told)."""
    # Short games keep each test to seconds on a loaded 2-core machine.
    return fuzz.FuzzOptions(**{"games": 3, "seed": 0, "max_steps": 60, **kw})


def run_fuzz(argv: list[str], **kw: Any) -> fuzz.FuzzResult:
    """A small seeded campaign against ``argv``."""
    harness.make_root_importable()
    return fuzz.fuzz(argv, options(**kw), CATALOGUE)


def summary_of(result: fuzz.FuzzResult) -> list[tuple[str, int, list[int]]]:
    """The findings as (key, count, games): what must not depend on workers or timing."""
    return [(f.divergence.key, f.count, sorted(f.games)) for f in result.findings]


def write_drafts(result: fuzz.FuzzResult, out: Path) -> list[Path]:
    """Write the report (checked against its schema) and its drafts; the draft files."""
    report = fuzz.report_dict(result)
    jsonschema.validate(report, SCHEMA)
    fuzz.write_outputs(report, out)
    return sorted((out / "drafts").glob("*.yaml"))


def grade(argv: list[str], path: Path, profile: str = "argentine") -> str:
    """The status of the one scenario at ``path`` run against ``argv``."""
    loaded = load_corpus([path], catalogue=CATALOGUE)
    assert not loaded.errors, [str(e) for e in loaded.errors]
    (scenario,) = loaded.scenarios
    harness.make_root_importable()
    run = run_scenarios(argv, [scenario], RunOptions(profile=profile), catalogue=CATALOGUE)
    return run.results[0].status


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    """``carioca-conformance fuzz ARGS`` in a child process of this checkout."""
    env = harness.child_env()
    return subprocess.run(
        [sys.executable, "-m", "conformance", "fuzz", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=300,
    )


def draft_disagreements(finding: dict[str, Any]) -> list[str]:
    """Where a finding's draft and example disagree: the notes describe the
    example's own divergence, and name only seats of the draft's own game."""
    doc, example = finding.get("scenario"), finding["example"]
    if not doc:
        return []
    problems = []
    notes = "; ".join(example["mismatches"])[:500]
    if not doc["notes"].startswith(notes):
        problems.append(f"notes {doc['notes']!r} are not the example's {notes!r}")
    setup = doc.get("setup") or {}
    given = setup.get("state") or setup.get("deal") or setup.get("new_game") or {}
    players = given.get("players")
    if players is None:
        return problems
    if example["players"] not in (None, players):
        problems.append(f"the example says {example['players']} players, the draft {players}")
    seats = [int(n) for n in re.findall(r"(?:hands|opened|totals|deal_scores)\[(\d+)\]", notes)]
    for pair in re.findall(r"\bturn: expected (\d+), got (\d+)", notes):
        seats += [int(n) for n in pair]
    problems += [f"seat {n} in a {players}-player game" for n in seats if n >= players]
    if finding.get("rules") and doc["rules"] != finding["rules"]:
        problems.append(f"the draft cites {doc['rules']}, the finding {finding['rules']}")
    return problems
