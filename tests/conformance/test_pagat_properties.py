"""The property laws hold for the pagat profile against the reference, as
``run --profile pagat --properties`` plays them: 108 cards for 2 to 5 players, the same
laws the Argentine profile keeps."""

from __future__ import annotations

import pytest

from conformance.adapter.engine import EngineSession
from conformance.knowledge.profiles import default_profiles
from conformance.laws.properties import run_properties
from tests.adapters import REFERENCE
from tests.paths import ROOT

#: An engine that answers is all these tests need: the reference answers in-process
#: (tests/adapters.py); the tests of what its process does run it as a process.
pytestmark = pytest.mark.usefixtures("reference_in_process")


@pytest.mark.parametrize("seed", [3, 11])
def test_every_law_holds_for_pagat(seed: int) -> None:
    with EngineSession(REFERENCE, cwd=str(ROOT), timeout=20) as session:
        results = run_properties(session, seed=seed, deals=3, profile="pagat")
    assert results, "the reference claims turns and deals"
    failed = [(r.name, r.detail) for r in results if not r.passed]
    assert failed == []
    # PAGAT-PLAYERS-1: the laws deal to every player count the profile allows, five included.
    assert default_profiles()["pagat"].players == (2, 3, 4, 5)
