"""The one view of an engine's declarations that every judge reads."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.adapter.declarations import declarations
from conformance.adapter.engine import Handshake
from conformance.knowledge.catalogue import load_catalogue


def hello(**extra: Any) -> Handshake:
    return Handshake.from_hello(
        {
            "protocol": 1,
            "implementation": {"name": "t", "version": "1", "language": "x"},
            "profiles": ["argentine", "chilean", "pagat"],
            "capabilities": ["melds", "turns", "deals"],
            **extra,
        }
    )


CATALOGUE = load_catalogue()


def test_an_undeclared_point_is_played_at_the_profiles_option() -> None:
    view = declarations(hello(), "argentine", CATALOGUE)
    assert view.ruling("VARIANT-01") == "fifty"
    assert not view.differs("VARIANT-01")
    assert view.other_rulings == {}
    assert view.assumption_gap({"VARIANT-01": "fifty"}) is None


def test_a_declared_option_differs_and_breaks_only_the_assumptions_on_that_point() -> None:
    view = declarations(hello(rulings={"VARIANT-1": "thirty"}), "argentine", CATALOGUE)
    assert view.ruling("VARIANT-01") == "thirty"
    assert view.differs("VARIANT-01")
    assert view.other_rulings == {"VARIANT-01": "thirty"}
    gap = view.assumption_gap({"VARIANT-01": "fifty", "VARIANT-05": "eleven"})
    assert gap is not None and "VARIANT-01" in gap and "thirty" in gap
    assert view.assumption_gap({"VARIANT-05": "eleven"}) is None


def test_an_unknown_option_is_a_problem_and_the_profiles_option_is_graded() -> None:
    view = declarations(hello(rulings={"VARIANT-01": "forty"}), "argentine", CATALOGUE)
    assert view.ruling("VARIANT-01") == "fifty"
    assert view.problems and "forty" in view.problems[0]


def test_profile_rulings_and_players_replace_the_general_ones_in_their_profile() -> None:
    shake = hello(
        rulings={"VARIANT-01": "thirty"},
        players=[2, 3, 4],
        profile_rulings={"pagat": {}},
        profile_players={"pagat": [2, 3, 4, 5]},
    )
    argentine = declarations(shake, "argentine", CATALOGUE)
    pagat = declarations(shake, "pagat", CATALOGUE)
    assert argentine.differs("VARIANT-01") and not pagat.differs("VARIANT-01")
    assert argentine.players == (2, 3, 4) and pagat.players == (2, 3, 4, 5)
    assert pagat.missing_players == ()
    assert declarations(hello(players=[2, 3, 4]), "pagat", CATALOGUE).missing_players == (5,)
    assert argentine.players_gap(5) is not None and pagat.players_gap(5) is None


@pytest.mark.parametrize(
    ("declared", "interface", "gap"),
    [
        ({}, {"run_order": "listed"}, False),
        ({"run_order": "engine"}, {"run_order": "listed"}, True),
        ({"run_ends": "engine"}, {"run_order": "listed"}, False),
        ({"run_ends": "engine"}, {"run_ends": "engine"}, False),
        ({}, {"run_ends": "engine"}, True),
    ],
)
def test_interface_gaps(declared: dict[str, str], interface: dict[str, str], gap: bool) -> None:
    view = declarations(hello(**declared), "argentine", CATALOGUE)
    assert (view.interface_gap(interface) is not None) is gap
    assert view.runs_as_sets is bool(declared)


def test_an_unmodelled_dealer_takes_the_checks_that_read_it() -> None:
    view = declarations(hello(unmodelled=["dealer"]), "argentine", CATALOGUE)
    assert not view.models("dealer")
    assert not view.models("dealer_in")
    assert not view.models("turn_right_of_dealer")
    assert view.models("turn") and view.models("totals")


def test_capabilities_and_profiles() -> None:
    view = declarations(hello(capabilities=["melds"]), "perla", CATALOGUE)
    assert view.lacks({"turns", "deals"}) == ("deals", "turns")
    assert not view.plays_profile


def test_the_first_player_after_a_deal_op_is_the_engine_s_without_a_dealer() -> None:
    # One notion for every judge: fuzz compares no turn there, run grades on the case's seats.
    keeps = declarations(hello(), "argentine", CATALOGUE)
    keeps_none = declarations(hello(unmodelled=["dealer"]), "argentine", CATALOGUE)
    for op in ("start_deal", "next_deal", "redeal", "new_game"):
        assert not keeps.picks_first_player(op)
        assert keeps_none.picks_first_player(op)
        assert keeps_none.unmodelled_after(op) == {"dealer", "turn"}
    assert not keeps_none.picks_first_player("act")
    assert keeps_none.unmodelled_after("act") == {"dealer"}
