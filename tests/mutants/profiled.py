"""What the mutants of every later profile share (chilean, pagat, perla).

A profile's mutant changes one thing for that profile only, in one of two ways: a
*parameter* mutant serves a copy of the profile with one field changed (:meth:`swap`); an
*option* mutant plays another option of one disputed point the profile rules on while the
adapter still announces the profile's own options (:meth:`play_option`), so the harness grades
it against the profile: an engine that plays another house's rule without declaring it is wrong.

A *ported* mutant (:meth:`ProfileMutants.port`) makes one fault of an Argentine function mutant
(tests/mutants/mutants.py, strength.py, round3.py) in this profile only: each function the
Argentine mutant replaces is replaced by one that deviates only for this profile's states and
profile arguments and otherwise calls the original.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import fields, replace
from types import FunctionType, MappingProxyType
from typing import Any

import reference.adapter
import reference.profiles
from reference.game import GameState
from reference.profiles import Profile

from . import mutants as _mutants
from .mutants import MUTANTS, _replace_everywhere, mutant


class ProfileMutants:
    """The mutants of the profile ``name``: registered in ``MUTANTS`` and listed in ``names``,
    which ``tests/test_mutants.py`` and ``python -m tests.mutants.report`` run against that
    profile's slice of the corpus."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.names: set[str] = set()

    def mutant(self, name: str, rules: Sequence[str], description: str) -> Callable[[Any], Any]:
        """Register a mutant of this profile (:func:`~tests.mutants.mutants.mutant`)."""
        self.names.add(name)
        return mutant(name, rules, description)

    def plays(self) -> bool:
        """True once the reference has this profile to mutate."""
        return self.name in reference.profiles.PROFILES

    def profile(self) -> Profile:
        """The reference's profile, as served now.

        :raises RuntimeError: when the reference has no such profile.
        """
        if not self.plays():
            raise RuntimeError(f"the reference has no {self.name} profile to mutate")
        return reference.profiles.PROFILES[self.name]

    def swap(self, **changes: Any) -> None:
        """Serve a copy of the profile with some rule parameters changed."""
        old = self.profile()
        new = replace(old, **changes)
        mapping = MappingProxyType({**reference.profiles.PROFILES, self.name: new})
        _replace_everywhere(old, new)
        _replace_everywhere(reference.profiles.PROFILES, mapping)

    def play_option(self, point: str, option: str) -> None:
        """Play ``option`` on ``point`` for the profile, announcing the profile's own.

        :meth:`Profile.with_rulings` gives the profile playing the option, with the
        parameters that follow from it and the Argentine points it restates (DISPUTE-45
        sets DISPUTE-07 and -13...). That profile is served, while the handshake
        (``profile_rulings``, and the later points in ``rulings``) still reports the
        profile's own options.

        :raises RuntimeError: for an option the point lacks, or the profile's own.
        """
        base = self.profile()
        if option == base.ruling(point) or option not in reference.profiles.OPTIONS[point]:
            raise RuntimeError(f"{point} has no option {option!r} besides the profile's")
        derived = base.with_rulings({point: option})
        self.swap(**{f.name: getattr(derived, f.name) for f in fields(Profile)})
        announced = dict(base.rulings)
        name = self.name
        original_hello = reference.adapter.Adapter.hello

        def hello(self: reference.adapter.Adapter, request: dict[str, Any]) -> dict[str, Any]:
            answer = original_hello(self, request)
            if name in answer.get("profile_rulings", {}):
                answer["profile_rulings"][name] = dict(announced)
            rulings = answer.get("rulings", {})
            for asked in rulings:
                if asked in announced and asked not in reference.profiles.ARGENTINE.rulings:
                    rulings[asked] = announced[asked]
            return answer

        reference.adapter.Adapter.hello = hello  # type: ignore[method-assign]

    def port(self, base: str, name: str, rules: Sequence[str], description: str) -> None:
        """Register mutant ``name``: the Argentine function mutant ``base``'s fault, made in
        this profile only (see the module docstring)."""

        def patch() -> None:
            self.profile()
            _apply_gated(MUTANTS[base].patch, self.name)

        self.mutant(name, rules, description)(patch)


def _apply_gated(patch: Callable[[], None], profile: str) -> None:
    """Run ``patch`` with its replacements captured, then install each one gated on
    ``profile``.

    :raises RuntimeError: for a parameter mutant (it swaps a profile object, which has no
        meaning in another profile).
    """
    captured: list[tuple[object, object]] = []
    real = _mutants._replace_everywhere
    _mutants._replace_everywhere = lambda original, new: captured.append((original, new))
    try:
        patch()
    finally:
        _mutants._replace_everywhere = real
    if not captured:
        raise RuntimeError("the mutant replaced nothing")
    for original, new in captured:
        if not isinstance(original, FunctionType) or not callable(new):
            raise RuntimeError(f"cannot port a mutant that replaces {original!r}")
        real(original, _gated(original, new, profile))


def _profile_of(
    arguments: Sequence[object], keywords: Mapping[str, object], default: str | None
) -> str | None:
    for value in (*arguments, *keywords.values()):
        if isinstance(value, GameState):
            return value.profile.name
        if isinstance(value, Profile):
            return value.name
    return default


def _gated(original: FunctionType, new: Callable[..., Any], profile: str) -> Callable[..., Any]:
    """``new`` for calls about ``profile`` (a state or profile argument), else ``original``.

    A function that takes neither (``joker_index(run, card)``) cannot tell profiles apart:
    it is replaced outright, which is only ever run against the profile's own slice.
    """
    parameters = inspect.signature(original).parameters
    if "state" not in parameters and "profile" not in parameters:
        return new
    default = parameters["profile"].default if "profile" in parameters else None
    fallback = default.name if isinstance(default, Profile) else None

    @functools.wraps(original)
    def gated(*arguments: Any, **keywords: Any) -> Any:
        if _profile_of(arguments, keywords, fallback) == profile:
            return new(*arguments, **keywords)
        return original(*arguments, **keywords)

    return gated
