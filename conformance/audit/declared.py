"""An author's rulings file: the declarations an engine makes, for ``audit --graded --rulings``.

The file is YAML or JSON, one mapping, in either of two forms:

- flat, one point per line, as the reference's own ``--rulings FILE`` reads it::

      DISPUTE-25: wild
      VARIANT-01: thirty

- or the fields of an engine's ``hello`` answer (docs/protocol.md §2), any of them::

      rulings: {DISPUTE-25: wild, VARIANT-01: thirty}
      profile_rulings: {chilean: {DISPUTE-48: natural}}
      run_order: engine          # or listed (the default)
      run_ends: engine           # or requested (the default)
      unmodelled: [dealer, winners]
      players: [3, 4, 5]
      profile_players: {pagat: [2, 3]}
      capabilities: [melds, turns]   # what it claims (default: every capability)
      unsupported: [swap_joker]      # ops or action types it answers unsupported to

A whole ``hello`` answer saved as a file is such a file (its ``protocol``,
``implementation``, ``profiles`` and ``max_in_flight`` are read and not needed); only
``unsupported`` is the audit's own, for what ``smoke`` lists as answered unsupported.

The reference plays these declarations (``--ruling``, ``--interface``, ``--unmodelled``,
``--players``, ``--capabilities``, ``--unsupported``) and the measurement counts what it is
graded on, so that it predicts what a real run of the engine grades. An interface choice the file
does not make follows each case's own (the measurement is of the corpus, not of a reading
the file did not choose).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any

from conformance.errors import HarnessError
from conformance.io.resources import package_file
from conformance.io.yamlsafe import read_yaml_file
from conformance.knowledge.catalogue import Catalogue
from conformance.knowledge.profiles import default_profiles
from conformance.scenarios.options import POINT_ID

#: The keys of the hello form.
FIELDS = frozenset(
    {
        "rulings",
        "profile_rulings",
        "run_order",
        "run_ends",
        "unmodelled",
        "players",
        "profile_players",
        "capabilities",
        "unsupported",
    }
)
#: Fields of a ``hello`` answer the measurement does not need: read and left aside.
HELLO_ONLY = frozenset({"protocol", "implementation", "profiles", "max_in_flight"})
#: The least share of a profile's checks a rulings file measured with every engine reading
#: keeps: the cases written for the default readings (a run's listing order, the end asked
#: for) and the checks of the dealer and the winners are not graded for it, some 3 to 6% of
#: a profile's checks (the checks that alone differ by reading give a value per reading).
ENGINE_READINGS_FLOOR = 0.85
#: The capabilities an engine may claim (docs/protocol.md §2).
CAPABILITIES = ("melds", "turns", "deals", "reasons")

#: The values each interface choice may take (docs/protocol.md §2).
INTERFACE_VALUES: Mapping[str, tuple[str, ...]] = {
    "run_order": ("listed", "engine"),
    "run_ends": ("requested", "engine"),
}


class RulingsFileError(HarnessError, ValueError):
    """A rulings file that cannot be read: the message names the file and the field."""


@dataclass(frozen=True)
class RulingsFile:
    """The declarations of one rulings file."""

    path: str
    rulings: Mapping[str, str] = field(default_factory=dict)
    profile_rulings: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    interface: Mapping[str, str] = field(default_factory=dict)
    unmodelled: tuple[str, ...] = ()
    players: tuple[int, ...] | None = None
    profile_players: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    #: The capabilities claimed (None: every one).
    capabilities: tuple[str, ...] | None = None
    #: Ops and action types answered ``unsupported``.
    unsupported: tuple[str, ...] = ()
    #: Shown after the file's name (a variant of the file: ``engine readings``).
    variant: str = ""
    #: The least share its measurement must keep, when lower than the command's floor.
    floor: float = 1.0

    @property
    def name(self) -> str:
        """The file's name, the label of its row."""
        name = Path(self.path).name
        return f"{name} ({self.variant})" if self.variant else name

    def rulings_for(self, profile: str) -> dict[str, str]:
        """The points and options declared for ``profile``."""
        return dict(self.profile_rulings.get(profile, self.rulings))

    def differing(self, profile: str, catalogue: Catalogue) -> dict[str, str]:
        """The declared points of ``profile`` whose option is not the profile's."""
        found = {}
        for point, option in sorted(self.rulings_for(profile).items()):
            theirs = catalogue.disputes[point].profiles.get(profile)
            if theirs is not None and theirs != option:
                found[point] = option
        return found

    def flags(self, profile: str) -> tuple[str, ...]:
        """The reference's flags that play these declarations in ``profile`` (the interface
        flags are added per case group: conformance.audit.runs)."""
        flags: list[str] = []
        for point, option in sorted(self.rulings_for(profile).items()):
            flags += ["--ruling", f"{point}={option}"]
        if self.unmodelled:
            flags += ["--unmodelled", ",".join(self.unmodelled)]
        players = self.profile_players.get(profile, self.players)
        if players is not None:
            flags += ["--players", ",".join(map(str, players))]
        if self.capabilities is not None:
            flags += ["--capabilities", ",".join(self.capabilities)]
        for lacking in self.unsupported:
            flags += ["--unsupported", lacking]
        return tuple(flags)

    def with_engine_readings(self) -> RulingsFile:
        """The same declarations by an engine that arranges its runs, picks the ends itself
        and keeps no dealer or winners: every interface choice the protocol allows at once,
        which the values written per reading must hold under."""
        unmodelled = tuple(dict.fromkeys([*self.unmodelled, "dealer", "winners"]))
        return replace(
            self,
            interface={"run_order": "engine", "run_ends": "engine"},
            unmodelled=unmodelled,
            variant="engine readings, no dealer or winners",
            floor=ENGINE_READINGS_FLOOR,
        )

    def lacking(
        self, capabilities: tuple[str, ...] | None, unsupported: tuple[str, ...]
    ) -> RulingsFile:
        """These declarations with ``capabilities`` claimed instead (None: as the file says)
        and ``unsupported`` ops and action types added."""
        return replace(
            self,
            capabilities=self.capabilities if capabilities is None else capabilities,
            unsupported=tuple(dict.fromkeys([*self.unsupported, *unsupported])),
        )


def _rulings(value: Any, where: str, catalogue: Catalogue) -> dict[str, str]:
    if not isinstance(value, Mapping):
        raise RulingsFileError(f"{where}: expected a mapping of POINT: OPTION")
    found: dict[str, str] = {}
    for point, option in value.items():
        point = str(point)
        if not POINT_ID.match(point):
            raise RulingsFileError(f"{where}: {point!r} is not a point (DISPUTE-nn, VARIANT-nn)")
        known = catalogue.disputes.get(point)
        if known is None:
            raise RulingsFileError(f"{where}: {point} is not in the catalogue (docs/rules.md)")
        if not isinstance(option, str) or option not in known.options:
            raise RulingsFileError(
                f"{where}: {point}: {option!r} is not one of its options "
                f"({', '.join(known.options)})"
            )
        found[point] = option
    return found


@cache
def _hello_schema() -> tuple[tuple[str, ...], int, int]:
    """What a ``hello`` answer may declare (the protocol's own schema, one source of truth):
    the state fields ``unmodelled`` may name, and the least and most players."""
    folder = package_file("schemas", "protocol")
    hello = json.loads((folder / "hello.response.json").read_text(encoding="utf-8"))
    defs = json.loads((folder / "defs.json").read_text(encoding="utf-8"))
    fields = tuple(hello["properties"]["unmodelled"]["items"]["enum"])
    players = defs["$defs"]["players"]
    return fields, int(players["minimum"]), int(players["maximum"])


def _players(value: Any, where: str) -> tuple[int, ...]:
    _fields, least, most = _hello_schema()
    if not isinstance(value, list) or not all(
        isinstance(n, int) and not isinstance(n, bool) for n in value
    ):
        raise RulingsFileError(f"{where}: expected a list of player counts")
    if not value:
        raise RulingsFileError(f"{where}: expected at least one player count")
    for n in value:
        if not least <= n <= most:
            raise RulingsFileError(
                f"{where}: {n} is not a player count (the protocol takes {least} to {most})"
            )
    if len(set(value)) != len(value):
        raise RulingsFileError(f"{where}: a player count is listed twice")
    return tuple(value)


def _unmodelled(value: Any, where: str) -> tuple[str, ...]:
    fields, _least, _most = _hello_schema()
    if not isinstance(value, list) or not all(isinstance(f, str) for f in value):
        raise RulingsFileError(f"{where}: expected a list of state fields")
    for name in value:
        if name not in fields:
            raise RulingsFileError(
                f"{where}: {name[:80]!r} is not a state field an engine may leave unmodelled "
                f"({', '.join(fields)})"
            )
    if len(set(value)) != len(value):
        raise RulingsFileError(f"{where}: a field is listed twice")
    return tuple(value)


def _profiles(value: Any, where: str) -> Mapping[Any, Any]:
    """A per-profile mapping whose keys are all known profiles (a misspelt name would be
    ignored, and the audit would measure a declaration no one made)."""
    if not isinstance(value, Mapping):
        raise RulingsFileError(f"{where}: expected a mapping of profiles")
    known = default_profiles()
    for name in value:
        if not isinstance(name, str) or name not in known:
            raise RulingsFileError(
                f"{where}: {str(name)[:80]!r} is not a profile ({', '.join(sorted(known))})"
            )
    return value


def parse_rulings(data: Any, path: str, catalogue: Catalogue) -> RulingsFile:
    """The declarations of a rulings file's content ``data`` read from ``path``.

    :raises RulingsFileError: on anything that is not a known point, option or field.
    """
    if not isinstance(data, Mapping) or not data:
        raise RulingsFileError(f"{path}: expected a non-empty mapping (points, or hello fields)")
    if not set(map(str, data)) & FIELDS:
        return RulingsFile(path, rulings=_rulings(data, path, catalogue))
    data = {k: v for k, v in data.items() if str(k) not in HELLO_ONLY}
    unknown = sorted(set(map(str, data)) - FIELDS)
    if unknown:
        raise RulingsFileError(
            f"{path}: unknown field(s) {', '.join(unknown)} (known: {', '.join(sorted(FIELDS))})"
        )
    rulings = _rulings(data.get("rulings", {}), f"{path}: rulings", catalogue)
    per_profile = _profiles(data.get("profile_rulings", {}), f"{path}: profile_rulings")
    profile_rulings = {
        str(p): _rulings(r, f"{path}: profile_rulings.{p}", catalogue)
        for p, r in per_profile.items()
    }
    interface: dict[str, str] = {}
    for key, allowed in INTERFACE_VALUES.items():
        if key in data:
            if data[key] not in allowed:
                raise RulingsFileError(f"{path}: {key}: expected one of {', '.join(allowed)}")
            interface[key] = str(data[key])
    unmodelled = _unmodelled(data.get("unmodelled", []), f"{path}: unmodelled")
    players = _players(data["players"], f"{path}: players") if "players" in data else None
    given = _profiles(data.get("profile_players", {}), f"{path}: profile_players")
    profile_players = {
        str(p): _players(n, f"{path}: profile_players.{p}") for p, n in given.items()
    }
    capabilities = data.get("capabilities")
    if capabilities is not None:
        capabilities = tuple(_names(capabilities, f"{path}: capabilities", CAPABILITIES))
    unsupported = tuple(_names(data.get("unsupported", []), f"{path}: unsupported", None))
    return RulingsFile(
        path,
        rulings,
        profile_rulings,
        interface,
        unmodelled,
        players,
        profile_players,
        capabilities,
        unsupported,
    )


def _names(value: Any, where: str, known: tuple[str, ...] | None) -> list[str]:
    """A list of names (of ``known`` when given)."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise RulingsFileError(f"{where}: expected a list of names")
    strange = sorted(set(value) - set(known)) if known is not None else []
    if strange:
        raise RulingsFileError(
            f"{where}: unknown {', '.join(strange)} (known: {', '.join(known or ())})"
        )
    return list(value)


def read_rulings(path: Path, catalogue: Catalogue) -> RulingsFile:
    """Read and parse a rulings file (YAML or JSON, safely loaded).

    :raises RulingsFileError: when it cannot be read or parsed.
    """
    data = read_yaml_file(path, RulingsFileError, "YAML or JSON")
    return parse_rulings(data, str(path), catalogue)


def interface_of(rulings: RulingsFile) -> tuple[tuple[str, str], ...]:
    """The interface choices the file fixes, as a run's ``interface``."""
    return tuple(sorted(rulings.interface.items()))


__all__ = [
    "RulingsFile",
    "RulingsFileError",
    "parse_rulings",
    "read_rulings",
]
