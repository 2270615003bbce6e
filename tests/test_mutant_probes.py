"""Every strength mutant answers differently from the reference on a direct probe.

The corpus kill matrix (tests/test_mutants.py) shows that scenarios catch a mutant; this
shows, independently of the corpus, that the mutant really changes behaviour, so no
equivalent mutant is counted. Each probe (tests/mutants/probes.py) goes through the
protocol to ``python -m tests.mutants.adapter`` and to the reference adapter.
"""

from __future__ import annotations

import json
import subprocess
from typing import Any

import pytest

from tests.mutants import harness, strength
from tests.mutants.mutants import MUTANTS
from tests.mutants.probes import probes

#: The mutants registered by tests/mutants/strength.py.
STRENGTH = sorted(n for n, m in MUTANTS.items() if m.patch.__module__ == strength.__name__)


def answers(argv: list[str], requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The adapter's answers to ``requests`` (hello first, bye last, ids stripped)."""
    lines = [{"op": "hello", "protocol": 1}, *requests, {"op": "bye"}]
    stdin = "".join(json.dumps({"id": i + 1, **r}) + "\n" for i, r in enumerate(lines))
    done = subprocess.run(
        argv, input=stdin, capture_output=True, text=True, timeout=60, env=harness.child_env()
    )
    got = [json.loads(line) for line in done.stdout.splitlines()]
    assert [a.get("id") for a in got] == list(range(1, len(lines) + 1)), done.stderr
    return [{k: v for k, v in a.items() if k != "id"} for a in got[1:-1]]


def test_there_are_at_least_20_strength_mutants_each_with_a_probe() -> None:
    assert len(STRENGTH) >= 20
    assert set(probes()) == set(STRENGTH)


@pytest.mark.slow  # one of the mutant sweeps: CI runs it in `tox -e slow`
@pytest.mark.parametrize("name", STRENGTH)
def test_the_mutant_answers_its_probe_differently(name: str) -> None:
    requests = probes()[name]
    reference = answers(harness.reference_argv(), requests)
    mutated = answers(harness.mutant_argv(name), requests)
    # The reference must accept the probe's setup (no error answers), so the difference is
    # the mutant's rule, not a broken probe.
    assert all("error" not in a for a in reference), reference
    assert mutated != reference, f"{name} answers its probe exactly as the reference does"
