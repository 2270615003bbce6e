"""The mutants of the later profiles, by profile: each runs against its profile's slice."""

from __future__ import annotations

from . import chilean, pagat, perla
from .profiled import ProfileMutants

BY_PROFILE: dict[str, ProfileMutants] = {
    of.name: of for of in (chilean.MUTANTS_OF, pagat.MUTANTS_OF, perla.MUTANTS_OF)
}
