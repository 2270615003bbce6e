"""One source of truth for disputed points and house variants: conformance/data/catalogue.json.

What else lists the points is generated from it (reference/profiles/catalogued.py, the
points table of docs/profiles.md: ``carioca-conformance points sync``) or checked equal to it
here (the schemas' id patterns; docs/rules.md via tests/test_catalogue.py), and each failure
says what to do. The reference may not import the harness (tests/test_layering.py), so a
generated module, not an import, keeps reference/profiles/ in step.
"""

from __future__ import annotations

import json
import re

from conformance.authoring.points import PROFILE_ORDER, stale_files
from conformance.knowledge.catalogue import load_catalogue
from reference.profiles import ARGENTINE, CHILEAN, OPTIONS, PAGAT, PERLA, chilean, pagat, perla
from reference.profiles.points import set_by
from reference.profiles.profile import fixed_points
from tests.paths import ROOT

SCHEMAS = ROOT / "conformance" / "schemas"


def test_the_files_generated_from_the_catalogue_are_fresh() -> None:
    # reference/profiles/catalogued.py and docs/profiles.md's points table follow from the
    # catalogue; an edit to it (a new point, an option, a ruling) regenerates them.
    assert stale_files(ROOT) == [], (
        "conformance/data/catalogue.json changed: run `carioca-conformance points sync`"
    )


def test_reference_options_are_the_catalogue_options_profile_option_first() -> None:
    catalogue = load_catalogue()
    for point in catalogue.disputes.values():
        # The first profile's option first (argentine, chilean, pagat, perla): a profile
        # ruling on the point by default plays the first option.
        first = next(point.profiles[p] for p in PROFILE_ORDER if p in point.profiles)
        assert OPTIONS[point.id][0] == first, point.id
        assert sorted(OPTIONS[point.id]) == sorted(point.options), point.id
    assert set(OPTIONS) == set(catalogue.disputes)


def test_every_point_a_profile_restates_is_fixed_there_in_the_catalogue() -> None:
    # A profile's point that sets an Argentine one (DISPUTE-48 sets DISPUTE-25) leaves the
    # Argentine point no option of its own there: the catalogue must say `set by` it.
    for name, table in (("chilean", chilean.RESTATED), ("pagat", pagat.RESTATED)):
        assert set_by(table).items() <= fixed_points(name).items(), name
    assert set_by(perla.RESTATED).items() <= fixed_points("perla").items()


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
