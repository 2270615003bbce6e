"""The reference declares, for every disputed point, the option the catalogue gives the
Argentine profile: its handshake must grade it exactly as docs/rules.md rules."""

from __future__ import annotations

from conformance.catalogue import load_catalogue
from reference import ARGENTINE


def test_reference_rulings_are_the_catalogue_options_of_its_profile() -> None:
    catalogue = load_catalogue()
    expected = {d.id: d.profiles["argentine"] for d in catalogue.disputes.values()}
    assert dict(ARGENTINE.rulings) == expected


def test_reference_rulings_name_only_known_options() -> None:
    assert load_catalogue().ruling_problems(ARGENTINE.rulings) == ()
