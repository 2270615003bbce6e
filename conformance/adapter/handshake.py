"""What an engine says about itself: the ``hello`` answer as a :class:`Handshake`.

docs/protocol.md §2. The session (:mod:`conformance.adapter.engine`) checks the answer against the
schema and the protocol version; this module turns a valid answer into the handshake every
judge reads (through :mod:`conformance.adapter.declarations`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from conformance.adapter.protocol import PROTOCOL_VERSION, normalise_dispute_id
from conformance.errors import (
    EngineCrashed,
    EngineError,
    EngineReportedError,
    HandshakeError,
    VersionMismatch,
)


@dataclass(frozen=True)
class Handshake:
    """What an engine said about itself in its ``hello`` answer (docs/protocol.md §2).

    ``rulings`` maps normalised dispute ids (``DISPUTE-01``) to option keys.
    """

    protocol: int
    name: str
    version: str
    language: str
    profiles: tuple[str, ...]
    capabilities: frozenset[str]
    # A read-only view: the dataclass is frozen, its mapping should be too.
    rulings: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}), hash=False)
    # Optional interface declarations (docs/protocol.md §2, "Interface declarations"); a
    # protocol-1 engine that leaves them out gets the defaults, which are today's behaviour.
    #: ``listed``: a run's listing order carries meaning; ``engine``: the engine arranges it.
    run_order: str = "listed"
    #: ``requested``: ``end``/``to`` of lay-offs and joker swaps are honoured; ``engine``: chosen.
    run_ends: str = "requested"
    #: How many requests the adapter takes written before it answered the first (1: one
    #: at a time, as protocol 1 began; docs/protocol.md §1).
    max_in_flight: int = 1
    #: Player counts the engine can deal and play.
    players: tuple[int, ...] = (2, 3, 4)
    #: State fields the engine does not model; comparisons skip exactly these.
    unmodelled: frozenset[str] = frozenset()
    #: Profile name -> its own rulings map, replacing ``rulings`` in that profile.
    profile_rulings: Mapping[str, Mapping[str, str]] = field(
        default_factory=lambda: MappingProxyType({}), hash=False
    )
    #: Profile name -> the player counts the engine plays there, replacing ``players``.
    profile_players: Mapping[str, tuple[int, ...]] = field(
        default_factory=lambda: MappingProxyType({}), hash=False
    )
    _views: dict[str, Handshake] = field(
        default_factory=dict, init=False, repr=False, compare=False, hash=False
    )

    def rulings_for(self, profile: str) -> Mapping[str, str]:
        """The rulings the engine plays in ``profile``: its ``profile_rulings`` map for that
        profile when it gives one, else ``rulings`` (docs/protocol.md §2)."""
        return self.profile_rulings.get(profile, self.rulings)

    def players_for(self, profile: str) -> tuple[int, ...]:
        """The player counts the engine plays in ``profile``: its ``profile_players`` list
        for that profile when it gives one, else ``players`` (docs/protocol.md §2)."""
        return self.profile_players.get(profile, self.players)

    def for_profile(self, profile: str) -> Handshake:
        """This handshake as graded in ``profile``: ``rulings`` and ``players`` are that
        profile's."""
        view = self._views.get(profile)
        if view is None:
            rulings, players = self.rulings_for(profile), self.players_for(profile)
            unchanged = rulings is self.rulings and players is self.players
            # Made once per profile: the runner asks for it at every case.
            view = self if unchanged else replace(self, rulings=rulings, players=players)
            self._views[profile] = view
        return view

    def as_dict(self) -> dict[str, Any]:
        """Return a JSON-ready description (for report headers)."""
        return {
            "protocol": self.protocol,
            "implementation": {
                "name": self.name,
                "version": self.version,
                "language": self.language,
            },
            "profiles": list(self.profiles),
            "capabilities": sorted(self.capabilities),
            "rulings": dict(sorted(self.rulings.items())),
            "run_order": self.run_order,
            "run_ends": self.run_ends,
            "max_in_flight": self.max_in_flight,
            "players": list(self.players),
            "unmodelled": sorted(self.unmodelled),
            **(
                {
                    "profile_rulings": {
                        name: dict(sorted(m.items()))
                        for name, m in sorted(self.profile_rulings.items())
                    }
                }
                if self.profile_rulings
                else {}
            ),
            **(
                {
                    "profile_players": {
                        name: list(counts) for name, counts in sorted(self.profile_players.items())
                    }
                }
                if self.profile_players
                else {}
            ),
        }

    @classmethod
    def from_hello(cls, answer: Mapping[str, Any]) -> Handshake:
        """Build a handshake from a schema-valid ``hello`` answer.

        Raises HandshakeError when two ruling keys normalise to the same id
        with different options.
        """
        rulings = _normalised_rulings(answer.get("rulings", {}), "rulings")
        profile_rulings = {
            name: _normalised_rulings(given, f"profile_rulings.{name}")
            for name, given in answer.get("profile_rulings", {}).items()
        }
        impl = answer["implementation"]
        _check_profile_players(answer.get("profile_players", {}))
        return cls(
            protocol=answer["protocol"],
            name=impl["name"],
            version=impl["version"],
            language=impl["language"],
            profiles=tuple(answer["profiles"]),
            capabilities=frozenset(answer["capabilities"]),
            rulings=rulings,
            run_order=answer.get("run_order", "listed"),
            run_ends=answer.get("run_ends", "requested"),
            max_in_flight=answer.get("max_in_flight", 1),
            players=tuple(sorted(set(answer.get("players", default_players(answer["profiles"]))))),
            unmodelled=frozenset(answer.get("unmodelled", ())),
            profile_rulings=MappingProxyType(profile_rulings),
            profile_players=MappingProxyType(
                {
                    name: tuple(sorted(set(counts)))
                    for name, counts in answer.get("profile_players", {}).items()
                }
            ),
        )


def _check_profile_players(given: Mapping[str, Sequence[int]]) -> None:
    """Refuse ``profile_players`` naming a count its profile's rules do not seat: it would
    reach the reference, which refuses it for that profile (docs/protocol.md §2). The
    message names the profiles that do seat it. Profiles the harness does not know are
    left alone (a later harness may).

    :raises HandshakeError: naming the profile, the count and the profiles seating it.
    """
    from conformance.knowledge.profiles import default_profiles

    known = default_profiles()
    for name, counts in given.items():
        if name not in known:
            continue
        allowed = tuple(known[name].players)
        for count in sorted(set(counts)):
            if count in allowed:
                continue
            seating = [other for other in known if count in known[other].players]
            named = ", ".join(seating[:-1]) + " and " + seating[-1] if seating[1:] else ""
            hint = (
                f"{named or seating[0]} seat{'' if seating[1:] else 's'} {count}"
                if seating
                else f"no profile seats {count}"
            )
            raise HandshakeError(
                f"malformed hello answer: profile_players gives {name} {count} players, "
                f"which its rules do not seat ({name} plays {allowed[0]} to {allowed[-1]}; "
                f"{hint}): list only the counts of {name} the engine plays"
            )


def _normalised_rulings(given: Mapping[str, str], where: str) -> Mapping[str, str]:
    """A rulings map keyed by normalised dispute ids (``dispute-1`` -> ``DISPUTE-01``).

    :raises HandshakeError: when two keys normalise to one id with different options.
    """
    rulings: dict[str, str] = {}
    for key, option in given.items():
        norm = normalise_dispute_id(key)
        if rulings.get(norm, option) != option:
            raise HandshakeError(f"{where} names {norm} twice with different options")
        rulings[norm] = option
    return MappingProxyType(rulings)


def default_players(profiles: Sequence[str]) -> tuple[int, ...]:
    """The player counts of an engine that declares none: every count its listed profiles
    play (conformance/data/profiles.json), or 2, 3 and 4 when it lists no known profile."""
    from conformance.knowledge.profiles import default_profiles

    known = default_profiles()
    counts = {n for name in profiles if name in known for n in known[name].players}
    return tuple(sorted(counts)) or (2, 3, 4)


def check_version(answer: Mapping[str, Any]) -> None:
    """Refuse a ``hello`` answer that names another protocol version.

    Only another integer version (not a bool) is a mismatch; a missing or odd value is a
    malformed handshake, left to the schema check that follows.

    :raises VersionMismatch: naming both versions.
    """
    version = answer.get("protocol")
    if isinstance(version, int) and not isinstance(version, bool) and version != PROTOCOL_VERSION:
        raise VersionMismatch(
            f"version mismatch: the engine speaks protocol {version!r}, "
            f"this harness speaks protocol {PROTOCOL_VERSION} only",
            engine_protocol=version,
        )


def as_handshake_error(exc: EngineError, tail: str) -> HandshakeError:
    """What went wrong during ``hello`` as the HandshakeError that ends the run, with the
    adapter's stderr ``tail`` (and its exit code when it exited)."""
    if isinstance(exc, HandshakeError):
        exc.stderr_tail = tail
        return exc
    exit_code = exc.exit_code if isinstance(exc, EngineCrashed) else None
    if isinstance(exc, EngineReportedError):
        message = f"handshake failed: the engine answered hello with {exc.kind}: {exc.message}"
    else:
        message = f"handshake failed: {exc.message}"
    return HandshakeError(message, stderr_tail=tail, exit_code=exit_code)


__all__ = ["Handshake", "as_handshake_error", "check_version", "default_players"]
