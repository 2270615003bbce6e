"""The reference declares, for every disputed point, the option the catalogue gives the
Argentine profile: its handshake must grade it exactly as docs/rules.md rules."""

from __future__ import annotations

from conformance.knowledge.catalogue import load_catalogue
from reference import ARGENTINE, Reason
from reference.profiles import CHILEAN, PAGAT


def test_reference_rulings_are_the_catalogue_options_of_its_profile() -> None:
    catalogue = load_catalogue()
    for profile in (ARGENTINE, CHILEAN, PAGAT):
        expected = {
            d.id: d.profiles[profile.name]
            for d in catalogue.disputes.values()
            if profile.name in d.profiles
        }
        assert dict(profile.rulings) == expected, profile.name


def test_reference_rulings_name_only_known_options() -> None:
    assert load_catalogue().ruling_problems(ARGENTINE.rulings) == ()


def test_reference_reasons_are_the_documented_vocabulary_with_its_rules() -> None:
    # One vocabulary: the reference's Reason enum is exactly docs/reasons.md (via the
    # catalogue), each reason citing the same rule, and every cited rule exists.
    catalogue = load_catalogue()
    assert {r.value: r.rule for r in Reason} == {
        code: reason.rule for code, reason in catalogue.reasons.items()
    }
    assert {r.rule for r in Reason} <= set(catalogue.rules)
