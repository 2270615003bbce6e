"""grading.expect.applicable: one pass over a case's checks, the same as asking each check.

A run builds each case's plan with :func:`applicable`, which resolves only the checks
written per option. Over the whole corpus and under declarations that differ on the
points most cases vary with, its plan and values must be those of :func:`applies` and
:func:`resolved` asked check by check.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.catalogue import load_catalogue
from conformance.corpus import default_corpus_dir
from conformance.declarations import declarations
from conformance.engine import Handshake
from conformance.grading.expect import UNSET, applicable, applies, resolved
from conformance.scenarios import load_corpus
from conformance.scenarios.options import NoValue

CATALOGUE = load_catalogue()
CORPUS = load_corpus([default_corpus_dir()], catalogue=CATALOGUE).scenarios


def hello(rulings: dict[str, str]) -> Handshake:
    return Handshake.from_hello(
        {
            "protocol": 1,
            "implementation": {"name": "t", "version": "1", "language": "x"},
            "profiles": ["argentine", "chilean", "pagat", "perla"],
            "capabilities": ["melds", "turns", "deals", "reasons"],
            "rulings": rulings,
        }
    )


def same(a: Any, b: Any) -> bool:
    if isinstance(a, NoValue) or isinstance(b, NoValue):
        return type(a) is type(b) and str(a) == str(b)
    return bool(a == b)


@pytest.mark.parametrize(
    "rulings",
    [{}, {"VARIANT-01": "thirty", "VARIANT-05": "twelve"}, {"DISPUTE-25": "wild"}],
    ids=["profile", "joker-30-twelve-cards", "twos-wild"],
)
@pytest.mark.parametrize("profile", ["argentine", "chilean", "pagat", "perla"])
def test_the_plan_and_values_are_those_of_each_check_asked_alone(
    profile: str, rulings: dict[str, str]
) -> None:
    declared = declarations(hello(rulings), profile, CATALOGUE)
    varying = 0
    for scenario in CORPUS:
        disputed = scenario.disputed.id if scenario.disputed else None
        plan = scenario.plan_for(profile)
        kept, values = applicable(plan, declared, disputed)
        alone = {c.key: resolved(c, declared, disputed) for c in plan}
        assert kept == [c for c in plan if applies(c, declared, disputed, alone[c.key])]
        assert set(values) == {c.key for c in plan if c.varies}, scenario.id
        for key, value in values.items():
            assert same(value, alone[key]), (scenario.id, key)
        # A check used as written resolves to itself: the judge asks for it unresolved.
        for check in plan:
            if not check.varies:
                assert alone[check.key] is check.expected
                assert applies(check, declared, disputed, UNSET) == (check in kept)
        varying += len(values)
    assert varying > 0  # the corpus writes checks per option in every profile
