"""grading.expect.applicable: one pass over a case's checks, the same as asking each check.

A run builds each case's plan with :func:`applicable`, which resolves only the checks
written per option. Over the whole corpus and under declarations that differ on the
points most cases vary with, its plan and values must be those of :func:`applies` and
:func:`resolved` asked check by check.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.adapter.declarations import INTERFACE_DEFAULTS, declarations
from conformance.adapter.engine import Handshake
from conformance.grading.expect import UNSET, Resolutions, applicable, applies, resolved
from conformance.knowledge.catalogue import load_catalogue
from conformance.scenarios import load_corpus
from conformance.scenarios.corpus import default_corpus_dir
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


RULINGS = [{}, {"VARIANT-01": "thirty", "VARIANT-05": "twelve"}, {"DISPUTE-25": "wild"}]


@pytest.mark.parametrize("profile", ["argentine", "chilean", "pagat", "perla"])
def test_resolutions_shared_by_engines_give_each_its_own_plan(profile: str) -> None:
    """One Resolutions, warmed with the profile's options (as a run warms it) and then
    asked for engines ruling otherwise, in turn and again: every answer is applicable's."""
    book = Resolutions()
    ruling = CATALOGUE.profile_options(profile).get
    for scenario in CORPUS:
        disputed = scenario.disputed.id if scenario.disputed else None
        book.warm(scenario.plan_for(profile), ruling, disputed)
    engines = [declarations(hello(r), profile, CATALOGUE) for r in RULINGS]
    for declared in [*engines, *reversed(engines)]:
        for scenario in CORPUS:
            disputed = scenario.disputed.id if scenario.disputed else None
            plan = scenario.plan_for(profile)
            answer = book.get(plan, declared, disputed)
            kept, values = answer.kept, answer.values
            want_kept, want_values = applicable(plan, declared, disputed)
            assert set(answer.passes) <= {c.key for c in kept}
            assert list(kept) == want_kept, (scenario.id, declared.declared)
            assert set(values) == set(want_values)
            for key, value in values.items():
                assert same(value, want_values[key]), (scenario.id, key)


def test_an_answer_is_shared_only_by_engines_playing_the_options_it_read() -> None:
    """The warmed answer serves an engine ruling otherwise on a point the case never reads,
    and not one ruling otherwise on the point its checks are written per."""
    profile = "argentine"
    # The guess a run warms for (conformance/run/warmup.py): the profile's options and the
    # protocol's default interface readings, which checks written per reading read.
    points = CATALOGUE.profile_options(profile)
    own = {**INTERFACE_DEFAULTS, **points}
    engine = declarations(hello({}), profile, CATALOGUE)
    found = 0
    for scenario in CORPUS:
        if scenario.disputed is not None:
            continue
        plan = scenario.plan_for(profile)
        book = Resolutions()
        book.warm(plan, own.get, None)
        warmed = book.get(plan, engine, None)
        # The points the answer read (a reading is no point to rule otherwise on, and a point
        # read only under another reading is not read here).
        read = {p for p, _ in warmed.read if p not in INTERFACE_DEFAULTS}
        if len(read) != 1:
            continue
        (point,) = read
        other = next(p for p in points if p != point)  # a point the case does not read
        assert set(warmed.passes) == {c.key for c in warmed.kept}  # made ahead too
        elsewhere = {other: next(o for o in CATALOGUE.disputes[other].options if o != own[other])}
        unread = declarations(hello(elsewhere), profile, CATALOGUE)
        assert book.get(plan, unread, None) is warmed
        for option in CATALOGUE.disputes[point].options:
            ruled = declarations(hello({point: option}), profile, CATALOGUE)
            answer = book.get(plan, ruled, None)
            values = answer.values
            # Its own answer, not the warmed one, unless it plays the profile's option.
            assert (answer is warmed) == (option == own.get(point)), (scenario.id, option)
            want = applicable(plan, ruled, None)[1]
            assert all(same(values[k], want[k]) for k in want), (scenario.id, option)
        found += 1
    assert found > 10
