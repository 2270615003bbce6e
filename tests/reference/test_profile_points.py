"""Rulings read through ``Profile.plays``: every point and option a rules branch names is a
catalogue one (reference/profiles, OPTIONS), checked when called and, for every literal in
the reference's source, by the scan below, so a misspelt option never reads as "another
option" on a branch no scenario reaches."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

import reference
from reference.errors import UnknownRulingError
from reference.profiles import ARGENTINE, CHILEAN, OPTIONS, PAGAT, PERLA
from reference.profiles.points import restate, restated

SOURCE = Path(reference.__file__).parent
POINT = re.compile(r"(?:DISPUTE|VARIANT)-\d\d")
#: The calls that name a ruling: the profile's methods, and the ``p = profile.plays`` alias
#: a derivation reads its rulings by.
RULING_CALLS = frozenset({"plays", "rules_on", "p", "check_ruling"})


def _name(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else None


def _text(node: ast.expr) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def problems(source: str, where: str) -> Iterator[str]:
    """Every literal point or option in ``source`` the catalogue lacks, and every ruling read
    by a bare comparison (``ruling("DISPUTE-18") == "a"``) instead of a checked call."""
    for node in ast.walk(ast.parse(source)):
        line = f"{where}:{getattr(node, 'lineno', '?')}"
        text = _text(node) if isinstance(node, ast.expr) else None
        if text is not None and POINT.fullmatch(text) and text not in OPTIONS:
            yield f"{line}: {text} is not a catalogue point"
        if isinstance(node, ast.Call) and _name(node) in RULING_CALLS and len(node.args) >= 2:
            point, option = _text(node.args[0]), _text(node.args[1])
            if point and option is not None and option not in OPTIONS.get(point, (option,)):
                yield f"{line}: {point} has no option {option!r}"
        if isinstance(node, ast.Compare):
            for side in (node.left, *node.comparators):
                if isinstance(side, ast.Call) and _name(side) == "ruling":
                    yield f"{line}: a bare comparison of a ruling (use plays)"
                rulings = isinstance(side, ast.Attribute) and side.attr == "rulings"
                if rulings and _text(node.left) is not None:
                    yield f"{line}: a bare test of a point (use rules_on)"


def _sources() -> list[Path]:
    return sorted(SOURCE.rglob("*.py"))


def test_every_point_and_option_the_reference_names_is_in_the_catalogue() -> None:
    found = [p for path in _sources() for p in problems(path.read_text(), path.name)]
    assert found == []


def test_the_scan_reads_the_rules_branches() -> None:
    # The scan above must meet the branches it guards: the checked calls with literal pairs.
    pairs = 0
    for path in _sources():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and _name(node) in RULING_CALLS:
                pairs += len(node.args) >= 2 and all(_text(a) for a in node.args[:2])
    assert pairs >= 80


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ('profile.plays("DISPUTE-18", "aa")', "DISPUTE-18 has no option 'aa'"),
        ('p("DISPUTE-55", "joker_25")', "DISPUTE-55 has no option 'joker_25'"),
        ('profile.rules_on("DISPUTE-39", "discard_only")', "DISPUTE-39 has no option"),
        ('profile.rules_on("DISPUTE-99")', "DISPUTE-99 is not a catalogue point"),
        ('profile.ruling("DISPUTE-18") == "a"', "a bare comparison of a ruling"),
        ('"DISPUTE-60" in profile.rulings', "a bare test of a point"),
    ],
)
def test_the_scan_catches_a_misspelt_ruling(source: str, expected: str) -> None:
    (found,) = problems(source, "snippet.py")
    assert expected in found and found.startswith("snippet.py:1: ")


def test_a_misspelt_option_is_refused_when_played() -> None:
    with pytest.raises(UnknownRulingError, match=r"DISPUTE-18: 'aa' is not one of its options"):
        ARGENTINE.plays("DISPUTE-18", "aa")
    with pytest.raises(UnknownRulingError, match=r"\(b, a, c\)"):
        ARGENTINE.rules_on("DISPUTE-18", "d")


def test_a_misspelt_point_is_refused_when_played() -> None:
    with pytest.raises(UnknownRulingError, match="'DISPUTE-18a' is not a disputed point"):
        ARGENTINE.plays("DISPUTE-18a", "a")
    with pytest.raises(UnknownRulingError, match="'DISPUTE-99'"):
        CHILEAN.rules_on("DISPUTE-99")


def test_a_misspelt_ruling_is_a_defect_not_bad_input() -> None:
    # The adapter answers a ValueError as a bad request; a misspelt branch is its own fault.
    assert not issubclass(UnknownRulingError, ValueError)


def test_plays_and_rules_on_read_the_profile() -> None:
    assert ARGENTINE.plays("DISPUTE-18", "b") and not ARGENTINE.plays("DISPUTE-18", "a")
    # A catalogue point the profile does not rule on: plays has nothing to read.
    with pytest.raises(KeyError):
        ARGENTINE.plays("DISPUTE-60", "all_cards")
    assert not ARGENTINE.rules_on("DISPUTE-60")
    assert not ARGENTINE.rules_on("DISPUTE-60", "all_cards")
    assert PAGAT.rules_on("DISPUTE-60") and PAGAT.rules_on("DISPUTE-60", "all_cards")
    assert PERLA.plays("DISPUTE-75", "round_ends") and CHILEAN.plays("DISPUTE-75", "recycle")


def test_a_restating_table_is_checked_when_its_profile_loads() -> None:
    # Each profile module builds its table of restated points with restated(): a misspelt
    # option there would otherwise surface only when that option is played.
    sets = {"DISPUTE-15": "share"}
    with pytest.raises(UnknownRulingError, match="DISPUTE-47: 'shared'"):
        restated({"DISPUTE-47": {"shared": sets, "tiebreak": {"DISPUTE-15": "tiebreak"}}})
    with pytest.raises(UnknownRulingError, match="DISPUTE-15: 'tie_break'"):
        restated({"DISPUTE-47": {"share": sets, "tiebreak": {"DISPUTE-15": "tie_break"}}})
    with pytest.raises(ValueError, match="DISPUTE-47 restates"):
        restated({"DISPUTE-47": {"share": sets}})
    table = restated({"DISPUTE-47": {"share": sets, "tiebreak": {"DISPUTE-15": "tiebreak"}}})
    assert restate({"DISPUTE-47": "tiebreak", "DISPUTE-15": "share"}, table) == {
        "DISPUTE-47": "tiebreak",
        "DISPUTE-15": "tiebreak",
    }
