"""One source of truth for disputed points and house variants: conformance/data/catalogue.json.

Everything else that lists the points (the reference's options and rulings, the schemas'
id patterns, docs/rules.md via tests/test_catalogue.py) is checked equal to it here, and each
failure says which file to change. The reference may not import the harness
(tests/test_layering.py), so this test, not an import, keeps reference/profiles/ in step.
"""

from __future__ import annotations

import json
import re

from conformance.knowledge.catalogue import load_catalogue
from reference.profiles import ARGENTINE, CHILEAN, OPTIONS, PAGAT, PERLA
from tests.paths import ROOT

SCHEMAS = ROOT / "conformance" / "schemas"


def test_reference_options_are_the_catalogue_options_profile_option_first() -> None:
    catalogue = load_catalogue()
    expected = {}
    for point in catalogue.disputes.values():
        # The argentine option first; a Chilean point (DISPUTE-39..77) puts chilean's first,
        # a Pagat point (DISPUTE-57..60) pagat's, a Perla point (DISPUTE-61..73) perla's.
        first = point.profiles.get(
            "argentine",
            point.profiles.get("chilean", point.profiles.get("pagat", point.profiles.get("perla"))),
        )
        expected[point.id] = (first, *(o for o in point.options if o != first))
    assert dict(OPTIONS) == expected, (
        "reference/profiles/points.py OPTIONS must list every point and option of "
        "conformance/data/catalogue.json, the profile's option first: change OPTIONS"
    )


def test_reference_rulings_name_every_point_of_the_catalogue() -> None:
    for profile in (ARGENTINE, CHILEAN, PAGAT, PERLA):
        expected = {
            p.id: p.profiles[profile.name]
            for p in load_catalogue().disputes.values()
            if profile.name in p.profiles
        }
        assert dict(profile.rulings) == expected, (
            f"reference/profiles/{profile.name}.py {profile.name.upper()}.rulings must be the "
            f"catalogue's {profile.name} options"
        )


def test_every_option_builds_a_profile_that_reports_it() -> None:
    for point, options in OPTIONS.items():
        for option in options:
            built = []
            for profile in (ARGENTINE, CHILEAN, PAGAT, PERLA):
                try:
                    built.append(profile.with_rulings({point: option}))
                except ValueError:
                    continue  # not this profile's point, or set by another of its points
            assert built, f"no profile plays {point}={option}"
            assert all(p.ruling(point) == option for p in built)


def test_schema_id_patterns_accept_every_point_id() -> None:
    hello = json.loads((SCHEMAS / "protocol" / "hello.response.json").read_text("utf-8"))
    scenario = json.loads((SCHEMAS / "scenario.schema.json").read_text("utf-8"))
    patterns = [
        ("protocol/hello.response.json rulings", hello["properties"]["rulings"]["propertyNames"]),
        ("scenario.schema.json assumes", scenario["properties"]["assumes"]["propertyNames"]),
    ]
    for point in load_catalogue().disputes:
        for where, names in patterns:
            assert re.match(names["pattern"], point), f"change the id pattern of {where}"
