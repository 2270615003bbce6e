"""The disputed points and house variants every profile rules on, with their options.

:data:`OPTIONS`, :data:`CATALOGUE_RULINGS` and :data:`CATALOGUE_FIXED` are the catalogue the
reference reads: reference/profiles/catalogued.py, generated from the harness's catalogue
(``carioca-conformance points sync``; the reference may not import the harness).
:func:`check_ruling` checks a point and option named at a rules branch against it, and
:func:`restated` one profile's table of points that restate Argentine ones.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from reference.errors import UnknownRulingError
from reference.profiles.catalogued import POINT_OPTIONS, PROFILE_FIXED, PROFILE_RULINGS

#: Every option of every disputed point and house variant, the profile's option first: the
#: catalogue's (reference/profiles/catalogued.py, generated from conformance/data/catalogue.json).
OPTIONS: Mapping[str, tuple[str, ...]] = MappingProxyType(POINT_OPTIONS)

#: Each profile's option on every point it rules on, by profile name (the catalogue's).
CATALOGUE_RULINGS: Mapping[str, Mapping[str, str]] = MappingProxyType(
    {name: MappingProxyType(rulings) for name, rulings in PROFILE_RULINGS.items()}
)

#: The points each profile plays only one way, with what decides them (the catalogue's
#: ``fixed``: ``set by DISPUTE-50``, or ``fixed`` where the profile is that choice).
CATALOGUE_FIXED: Mapping[str, Mapping[str, str]] = MappingProxyType(
    {name: MappingProxyType(fixed) for name, fixed in PROFILE_FIXED.items()}
)

#: Every ``(point, option)`` pair of :data:`OPTIONS`, and every point with no option, so that
#: one set lookup checks a pair named at a rules branch.
_KNOWN: frozenset[tuple[str, str | None]] = frozenset(
    {(point, option) for point, options in OPTIONS.items() for option in options}
    | {(point, None) for point in OPTIONS}
)


def check_ruling(point: str, option: str | None = None) -> None:
    """Check that ``point`` (and ``option``, when given) are in the catalogue (:data:`OPTIONS`).

    :raises UnknownRulingError: naming the point, the option and the options it has.
    """
    if (point, option) not in _KNOWN:
        raise UnknownRulingError(point, option, OPTIONS.get(point, ()))


def ruling_problems(rulings: Mapping[str, str]) -> tuple[str, ...]:
    """What is wrong with a set of rulings: points or options that :data:`OPTIONS` lacks."""
    problems = []
    for point, option in rulings.items():
        if point not in OPTIONS:
            problems.append(f"{point} is not a disputed point or house variant")
        elif option not in OPTIONS[point]:
            known = ", ".join(OPTIONS[point])
            problems.append(f"{point}: {option!r} is not one of its options ({known})")
    return tuple(problems)


#: A profile's points that restate an Argentine point (or house variant): for each of the
#: profile's points, each option with the Argentine points' options it sets.
Restated = Mapping[str, Mapping[str, Mapping[str, str]]]


def restated(table: Mapping[str, Mapping[str, Mapping[str, str]]]) -> Restated:
    """``table`` checked against the catalogue and frozen: every point of the profile lists
    each of its options once, and every point and option it sets is a catalogue one.

    :raises UnknownRulingError: for a point or option the catalogue lacks.
    :raises ValueError: for a point whose options the table does not list exactly.
    """
    for point, by_option in table.items():
        for option, sets in by_option.items():
            check_ruling(point, option)
            for other, its in sets.items():
                check_ruling(other, its)
        if sorted(by_option) != sorted(OPTIONS[point]):
            raise ValueError(f"{point} restates {sorted(by_option)}, not its options")
    return MappingProxyType({p: MappingProxyType(dict(b)) for p, b in table.items()})


def restate(rulings: Mapping[str, str], table: Restated) -> dict[str, str]:
    """``rulings`` with each Argentine point a restating point sets (``DISPUTE-48 natural``
    sets ``DISPUTE-25 natural``), so the rules code reads one ruling per fact."""
    found = dict(rulings)
    for point, by_option in table.items():
        found.update(by_option[rulings[point]])
    return found


def set_by(table: Restated) -> dict[str, str]:
    """The Argentine points ``table`` sets, each with the point that sets it (for a
    profile's fixed points)."""
    return {old: f"set by {new}" for new, by in table.items() for old in next(iter(by.values()))}
