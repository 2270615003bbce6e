"""The laws deal each engine the pack its rulings give (conformance/knowledge/optionfacts.py), as
``run`` does: an honest engine playing another pack breaks no law and is never sent a deck
it must refuse (DISPUTE-61 ``two_jokers`` in perla, DISPUTE-78 ``always_108`` in chilean)."""

from __future__ import annotations

import pytest

from conformance.adapter.engine import EngineSession
from conformance.laws.properties import run_properties
from tests.adapters import REFERENCE
from tests.paths import ROOT

#: An engine that answers is all these tests need: the reference answers in-process
#: (tests/adapters.py); the tests of what its process does run it as a process.
pytestmark = pytest.mark.usefixtures("reference_in_process")


@pytest.mark.parametrize(
    ("profile", "ruling"),
    [("chilean", "DISPUTE-78=always_108"), ("perla", "DISPUTE-61=two_jokers")],
)
def test_every_law_holds_for_an_engine_playing_another_pack(profile: str, ruling: str) -> None:
    with EngineSession([*REFERENCE, "--ruling", ruling], cwd=str(ROOT), timeout=20) as session:
        results = run_properties(session, seed=5, deals=3, profile=profile)
    assert results, "the reference claims turns and deals"
    assert [(r.name, r.detail) for r in results if not r.passed] == []
    # Something was dealt and checked: conservation held on the engine's own pack.
    conservation = next(r for r in results if r.name == "conservation")
    assert conservation.passed and conservation.checked
