"""`audit --pairs` plays pairs of options touching the same rule section and lists those
answering otherwise than each option alone (conformance/audit/pairs.py)."""

from __future__ import annotations

import pytest

from conformance.audit.pairs import audit_pairs, first_surprise, pairs_to_play
from conformance.knowledge.catalogue import load_catalogue
from conformance.scenarios import load_corpus
from tests.adapters import REFERENCE
from tests.paths import ROOT

pytestmark = pytest.mark.usefixtures("reference_in_process")


def test_pairs_touch_one_section_and_leave_the_profiles_options_out() -> None:
    catalogue = load_catalogue()
    pairs = pairs_to_play(catalogue, "pagat", ["DISPUTE-59"])
    assert (("DISPUTE-21", "own"), ("DISPUTE-59", "anyone")) in pairs
    sections = {r.id: r.section for r in catalogue.rules.values()}
    for (p, o), (q, r) in pairs:
        assert "DISPUTE-59" in (p, q)
        first, second = catalogue.disputes[p], catalogue.disputes[q]
        assert {sections[x] for x in first.rules} & {sections[x] for x in second.rules}
        assert o != first.profiles["pagat"] and r != second.profiles["pagat"]


def test_a_player_who_has_not_opened_and_a_joker_of_their_own_read_perversely() -> None:
    # cc-1822: a player who has not laid down offers a card for a table joker. DISPUTE-59
    # anyone lets them; DISPUTE-21 own alone refuses as the profile does (not opened); the
    # two together refuse for another reason: a player with no melds owns no joker.
    (case,) = [
        s for s in load_corpus([ROOT / "scenarios" / "pagat"]).scenarios if s.id == "cc-1822"
    ]
    found = audit_pairs(REFERENCE, [case], load_catalogue(), "pagat", points=["DISPUTE-59"])
    lines = {(f.first, f.second): f for f in found}
    finding = lines[(("DISPUTE-21", "own"), ("DISPUTE-59", "anyone"))]
    assert finding.where == "step 1 expect"
    assert finding.alone_second == "accepted" and finding.together != "accepted"
    assert finding.profile == finding.alone_first


def test_only_what_one_option_alone_changes_is_compared() -> None:
    base = [{"expect": "accepted", "turn": 1}]
    moved = [{"expect": "rejected", "turn": 0}]
    # Neither changes it: the pair must answer as the profile's rulings.
    assert first_surprise(base, base, base, moved) is not None
    # One changes it: as that option alone.
    assert first_surprise(base, moved, base, moved) is None
    assert first_surprise(base, base, moved, base) is not None
    # Both change it: nothing to compare.
    assert first_surprise(base, moved, moved, base) is None
