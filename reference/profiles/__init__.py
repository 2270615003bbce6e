"""Rule profiles: every rule parameter as data.

The engine reads its numbers (hand sizes, contracts, meld sizes, joker limits, card values,
ace handling...) from a :class:`Profile`, so another seed's rules can be added as a new
profile plus small hooks. Four profiles exist: ``argentine`` (seed 000), ``chilean``
(seed 001, docs/rules.md's Chilean section), ``pagat`` (seed 002, its Pagat section) and
``perla`` (seed 003, its Perla section). A profile rules on every disputed point it plays; a
profile's point that restates an Argentine one (``DISPUTE-48`` for ``DISPUTE-25``,
``DISPUTE-58`` for ``DISPUTE-13``, ``DISPUTE-64`` for ``DISPUTE-29``...) sets the Argentine
point's option, so the rules code reads one ruling per fact.

The parts, from the bottom up:

- ``points``: the catalogue of disputed points and their options (:data:`OPTIONS`), and the
  check of a point and option a rules branch names (:func:`check_ruling`);
- ``profile``: the :class:`Profile` value, and the registry of each profile's derivation
  (the parameters that follow from its rulings, the points it plays one way);
- ``argentine``, ``chilean``, ``pagat``, ``perla``: one module per profile, each its
  profile and its derivation;
- this package: every profile by name (:data:`PROFILES`).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from reference.profiles.argentine import ARGENTINE
from reference.profiles.chilean import CHILEAN
from reference.profiles.pagat import PAGAT
from reference.profiles.perla import PERLA
from reference.profiles.points import OPTIONS, check_ruling, ruling_problems
from reference.profiles.profile import Profile, fixed_points

__all__ = [
    "ARGENTINE",
    "CHILEAN",
    "OPTIONS",
    "PAGAT",
    "PERLA",
    "PROFILES",
    "Profile",
    "check_ruling",
    "find_profile",
    "own_point",
    "ruling_problems",
]

PROFILES: Mapping[str, Profile] = MappingProxyType(
    {
        ARGENTINE.name: ARGENTINE,
        CHILEAN.name: CHILEAN,
        PAGAT.name: PAGAT,
        PERLA.name: PERLA,
    }
)


def find_profile(name: str) -> Profile:
    """The profile called ``name``.

    :raises ValueError: ``unsupported profile: <name>`` for an unknown name.
    """
    try:
        return PROFILES[name]
    except (KeyError, TypeError):
        raise ValueError(f"unsupported profile: {name!r}") from None


def own_point(profile: Profile, point: str) -> str | None:
    """The point under which ``profile`` plays Argentine ``point``: the point itself, the
    profile's own point that sets it (``DISPUTE-48`` for ``DISPUTE-25`` in ``chilean``), or
    None where the profile plays it only one way (``DISPUTE-27`` in ``chilean``)."""
    fixed = fixed_points(profile.name).get(point)
    if fixed is None:
        return point
    return fixed.removeprefix("set by ") if fixed.startswith("set by ") else None
