"""Expectations written per option (``by_option``) and the reasons an expectation names."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

# --------------------------------------------------------------------------- options


def resolve_option(value: Any, option: str) -> Any:
    """Replace every ``{by_option: {...}}`` inside ``value`` by the branch for ``option``.

    :raises KeyError: when a ``by_option`` has no branch for ``option``.
    """
    if isinstance(value, Mapping):
        if set(value) == {"by_option"} and isinstance(value["by_option"], Mapping):
            branches = value["by_option"]
            if option not in branches:
                raise KeyError(option)
            return resolve_option(branches[option], option)
        return {k: resolve_option(v, option) for k, v in value.items()}
    if isinstance(value, list):
        return [resolve_option(v, option) for v in value]
    return value


def _by_option_sites(value: Any, path: tuple[Any, ...]) -> Iterator[tuple[tuple[Any, ...], Any]]:
    if isinstance(value, Mapping):
        if set(value) == {"by_option"} and isinstance(value["by_option"], Mapping):
            yield path, value["by_option"]
            for key, branch in value["by_option"].items():
                yield from _by_option_sites(branch, (*path, "by_option", key))
            return
        for key, sub in value.items():
            if key != "disputed":
                yield from _by_option_sites(sub, (*path, key))
    elif isinstance(value, list):
        for index, sub in enumerate(value):
            yield from _by_option_sites(sub, (*path, index))


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
