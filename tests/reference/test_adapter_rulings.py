"""The reference adapter plays the rulings it is started with (--ruling, --rulings) and
reports them in its handshake (reading them from the command line: test_adapter_cli.py)."""

from __future__ import annotations

import json

import pytest

from conformance.knowledge.catalogue import load_catalogue
from reference.adapter import Adapter
from reference.profiles import ARGENTINE, CHILEAN, OPTIONS, PAGAT, PERLA


def _ask(adapter: Adapter, **request: object) -> dict[str, object]:
    answer, _ = adapter.handle(json.dumps({"id": 1, **request}))
    return answer


def test_the_handshake_reports_every_point_with_the_rulings_in_force() -> None:
    hello = _ask(Adapter(rulings={"DISPUTE-31": "at_least"}), op="hello", protocol=1)
    assert {p: hello["rulings"][p] for p in ARGENTINE.rulings} == {  # type: ignore[index]
        **ARGENTINE.rulings,
        "DISPUTE-31": "at_least",
    }
    # The Argentine profile rules on every point but the later seeds' own (those of the
    # catalogue it plays no option of); the other profiles on every Argentine point and on
    # some of their own, in profile_rulings.
    later_points = {
        p for p, d in load_catalogue().disputes.items() if "argentine" not in d.profiles
    }
    others = (CHILEAN, PAGAT, PERLA)
    assert set(OPTIONS) - set(ARGENTINE.rulings) == later_points
    for profile in others:
        assert set(ARGENTINE.rulings) <= set(profile.rulings), profile.name
    assert set().union(*(p.rulings for p in others)) == set(OPTIONS)
    plain = _ask(Adapter(), op="hello", protocol=1)
    # A later point every profile that rules on it plays alike is in `rulings` too; one the
    # profiles play differently (DISPUTE-75: recycle, or round_ends in perla) is not.
    options = {
        point: {p.rulings[point] for p in others if point in p.rulings} for point in later_points
    }
    alike = {point: next(iter(o)) for point, o in options.items() if len(o) == 1}
    assert len(options["DISPUTE-75"]) > 1
    assert plain["rulings"] == {**ARGENTINE.rulings, **alike}
    assert plain["profile_rulings"] == {
        "chilean": dict(CHILEAN.rulings),
        "pagat": dict(PAGAT.rulings),
        "perla": dict(PERLA.rulings),
    }


def test_an_option_is_played_by_every_op() -> None:
    run5 = {"kind": "run", "cards": ["4S", "5S", "6S", "7S", "8S"]}
    exact, at_least = Adapter(), Adapter(rulings={"DISPUTE-31": "at_least"})
    request = {"op": "check_meld", "profile": "argentine", "meld": run5, "initial": True}
    assert _ask(exact, **request) == {"id": 1, "valid": False, "reason": "run_size"}
    assert _ask(at_least, **request) == {"id": 1, "valid": True}
    joker = {"op": "penalty", "profile": "argentine", "cards": ["JK"]}
    assert _ask(Adapter(rulings={"VARIANT-01": "thirty"}), **joker)["points"] == 30
    assert _ask(Adapter(), **joker)["points"] == 50


@pytest.mark.parametrize(("point", "options"), sorted(OPTIONS.items()))
def test_every_option_of_every_point_starts_an_adapter(
    point: str, options: tuple[str, ...]
) -> None:
    for option in options:
        hello = _ask(Adapter(rulings={point: option}), op="hello", protocol=1)
        played = [hello["rulings"], *hello["profile_rulings"].values()]  # type: ignore[attr-defined]
        # Every profile that takes the point plays the option (at least one does).
        assert any(rulings.get(point) == option for rulings in played)
