"""Expectations written per option (``by_option``), per-check wrappers, and the reasons an
expectation names (docs/scenario-format.md, "Assumptions per check").

A ``by_option`` comes in two forms:

- keyed by the options of the case's own ``disputed`` point:
  ``{by_option: {allowed: accepted, forbidden: rejected}}``;
- keyed by one point, then its options, for any point the case's profiles rule on:
  ``{by_option: {VARIANT-01: {fifty: [87, 153, 0], thirty: [87, 133, 0]}}}``; a branch may
  hold another ``by_option`` (of another point) for a value that varies with two points.

An option with no branch has no value: the check is not graded for an engine playing it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from types import MappingProxyType
from typing import Any

#: A disputed point or house variant, as a ``by_option`` or ``assumes`` key names it.
POINT_ID = re.compile(r"^(DISPUTE|VARIANT)-[0-9]{2}$")

#: The interface readings an engine declares (docs/protocol.md §2), each with its readings,
#: the protocol's default first. A ``by_option`` may be keyed by one of them like a point,
#: for a value that depends on how the engine reads the protocol:
#: ``{by_option: {run_order: {listed: {valid: false}, engine: {valid: true}}}}``. A reader
#: that knows no engine (the profile's own options) takes the default reading.
INTERFACE_READINGS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {"run_order": ("listed", "engine"), "run_ends": ("requested", "engine")}
)

#: The keys of a per-check wrapper: ``totals: {expect: [...], rules: [SCORE-2]}``.
WRAPPER_KEYS = frozenset({"expect", "rules", "assumes"})

#: How the option an engine plays on a point is looked up (None: it plays none).
Ruling = Callable[[str], "str | None"]


#: The value of a state key under an option whose branch of a whole-state ``by_option`` does
#: not name it: the case asserts nothing there, so under that option the check does not exist
#: (it is neither graded nor counted as not graded).
NOT_ASSERTED = "\u2205 not asserted under this option"


class NoValue(Exception):
    """The expectation gives no value for the option the engine plays on ``point``."""

    def __init__(self, point: str | None, option: str | None) -> None:
        self.point = point
        self.option = option
        super().__init__(self.why())

    def why(self) -> str:
        """In words, for a check's note."""
        if self.point is None:
            return "the value is written per option, but the case names no disputed point"
        if self.point in INTERFACE_READINGS:
            return f"no value given for the {self.point} reading {self.option!r}"
        if self.option is None:
            return f"no value for {self.point}: the engine plays no option of it"
        return f"no value given for {self.point} option {self.option!r}"


def is_by_option(value: Any) -> bool:
    """True for ``{by_option: {...}}``."""
    return (
        isinstance(value, Mapping)
        and len(value) == 1
        and "by_option" in value
        and isinstance(value["by_option"], Mapping)
    )


def is_wrapper(value: Any) -> bool:
    """True for a per-check wrapper ``{expect: V, rules: [...], assumes: {...}}``."""
    return isinstance(value, Mapping) and "expect" in value and set(value) <= WRAPPER_KEYS


def branches_of(by_option: Mapping[Any, Any], disputed: str | None) -> tuple[str | None, Any]:
    """The point a ``by_option`` mapping is keyed by, and its branches by option.

    One key that names a point is the per-point form; anything else is keyed by the
    options of the case's ``disputed`` point (None when the case has none).
    """
    if len(by_option) == 1:
        ((key, inner),) = by_option.items()
        if isinstance(key, str) and (POINT_ID.match(key) or key in INTERFACE_READINGS):
            return key, inner if isinstance(inner, Mapping) else {}
    return disputed, by_option


#: Types that hold no ``by_option``: resolved to themselves at once.
_LEAVES: frozenset[type] = frozenset({str, int, bool, float, type(None)})


def resolve(value: Any, ruling: Ruling, disputed: str | None) -> Any:
    """``value`` with every ``by_option`` replaced by the branch of the engine's option.

    Unchanged parts are shared, not copied (expectations are only read); a mapping or list
    with a part resolved otherwise is copied once.

    :raises NoValue: when a ``by_option`` has no branch for the option ``ruling`` gives.
    """
    kind = type(value)
    if kind in _LEAVES:
        return value  # card codes and numbers: most of an expectation
    if kind is list:
        return _resolve_list(value, ruling, disputed)
    if kind is dict or isinstance(value, Mapping):
        if is_by_option(value):
            point, branches = branches_of(value["by_option"], disputed)
            option = ruling(point) if point is not None else None
            readings = INTERFACE_READINGS.get(point or "")
            if readings is not None and option not in readings:
                option = readings[0]  # a reader that knows no engine: the protocol's default
            if option is None or option not in branches:
                raise NoValue(point, option)
            return resolve(branches[option], ruling, disputed)
        changed: dict[Any, Any] | None = None
        for key, item in value.items():
            if type(item) in _LEAVES:
                continue
            new = resolve(item, ruling, disputed)
            if new is not item:
                if changed is None:
                    changed = dict(value)
                changed[key] = new
        return value if changed is None else changed
    if isinstance(value, list):
        return _resolve_list(value, ruling, disputed)
    return value


def _resolve_list(value: list[Any], ruling: Ruling, disputed: str | None) -> list[Any]:
    changed: list[Any] | None = None
    for index, item in enumerate(value):
        if type(item) in _LEAVES:
            continue
        new = resolve(item, ruling, disputed)
        if new is not item:
            if changed is None:
                changed = list(value)
            changed[index] = new
    return value if changed is None else changed


def varies(value: Any) -> bool:
    """True when ``value`` holds a ``by_option`` anywhere (it must be resolved)."""
    if isinstance(value, Mapping):
        return is_by_option(value) or any(varies(v) for v in value.values())
    if isinstance(value, list):
        return any(varies(v) for v in value)
    return False


def points_of(value: Any, disputed: str | None) -> tuple[str, ...]:
    """The points a value's ``by_option`` sites are keyed by, in order of appearance."""
    found: dict[str, None] = {}
    for _, point, _ in by_option_sites(value, (), disputed):
        if point is not None and point not in INTERFACE_READINGS:
            found[point] = None
    return tuple(found)


def by_option_sites(
    value: Any, path: tuple[Any, ...], disputed: str | None
) -> Iterator[tuple[tuple[Any, ...], str | None, Mapping[Any, Any]]]:
    """Every ``by_option`` inside ``value``: its path (to the ``by_option`` mapping's parent),
    the point it is keyed by and its branches by option."""
    if isinstance(value, Mapping):
        if is_by_option(value):
            point, branches = branches_of(value["by_option"], disputed)
            yield path, point, branches
            inner = (*path, "by_option") if point == disputed else (*path, "by_option", point)
            if isinstance(branches, Mapping):
                for key, branch in branches.items():
                    yield from by_option_sites(branch, (*inner, key), disputed)
            return
        for key, sub in value.items():
            # Scalars hold no site: skipped here, not walked (most of a case's values are
            # card codes, and ``check --strict`` walks every case).
            if key != "disputed" and type(sub) not in _SCALARS:
                yield from by_option_sites(sub, (*path, key), disputed)
    elif isinstance(value, list):
        for index, sub in enumerate(value):
            if type(sub) not in _SCALARS:
                yield from by_option_sites(sub, (*path, index), disputed)


#: Values that are neither a mapping nor a list, so hold no ``by_option``.
_SCALARS: frozenset[type] = frozenset({str, int, float, bool, type(None)})


def malformed_by_option(value: Any, path: tuple[Any, ...]) -> Iterator[tuple[Any, ...]]:
    """The paths of every mapping that holds a ``by_option`` key but is not the
    ``{by_option: {...}}`` form (another key beside it, or no mapping under it): a
    mis-indented block that would otherwise be read as a plain expected value."""
    if isinstance(value, Mapping):
        if "by_option" in value and not is_by_option(value):
            yield path
        for key, sub in value.items():
            if key != "disputed":
                yield from malformed_by_option(sub, (*path, key))
    elif isinstance(value, list):
        for index, sub in enumerate(value):
            yield from malformed_by_option(sub, (*path, index))


def resolve_option(value: Any, option: str) -> Any:
    """Replace every ``{by_option: {...}}`` inside ``value`` by the branch for ``option``
    (the case's own disputed point's form).

    :raises KeyError: when a ``by_option`` has no branch for ``option``.
    """
    try:
        return resolve(value, lambda _point: option, "")
    except NoValue:
        raise KeyError(option) from None


def _reason_sites(value: Any, path: tuple[Any, ...]) -> Iterator[tuple[tuple[Any, ...], str]]:
    """Yield every reason name used in an expectation (``rejected:`` or ``reason:``)."""
    if isinstance(value, Mapping):
        for key, sub in value.items():
            if key in ("rejected", "reason"):
                if isinstance(sub, str):
                    yield (*path, key), sub
                elif isinstance(sub, list):
                    for index, item in enumerate(sub):
                        if isinstance(item, str):
                            yield (*path, key, index), item
                elif isinstance(sub, Mapping):
                    yield from _reason_sites(sub, (*path, key))
            else:
                yield from _reason_sites(sub, (*path, key))
    elif isinstance(value, list):
        for index, sub in enumerate(value):
            yield from _reason_sites(sub, (*path, index))
