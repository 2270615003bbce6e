"""What an engine declares, read once per profile: the one view every judge reads.

An engine says in its ``hello`` answer (docs/protocol.md §2) which options it plays on the
disputed points and house variants, how it reads the interface (``run_order``,
``run_ends``), which player counts it plays and which state fields it does not model.
Cases (``run``), laws (``run --properties``), ``fuzz``, ``smoke``, ``record`` and ``audit``
must all read those declarations the same way, or one judge reports as a failure what
another accepts as declared. So none of them reads the handshake's raw fields for grading:
each asks a :class:`Declarations` for the profile it judges.

Everything here is a pure function of the handshake, the profile and the catalogue.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import TYPE_CHECKING

from conformance.knowledge.optionfacts import EngineFacts
from conformance.knowledge.profiles import default_profiles
from conformance.scenarios.options import INTERFACE_READINGS

if TYPE_CHECKING:
    from conformance.adapter.engine import Handshake
    from conformance.knowledge.catalogue import Catalogue

#: The interface declarations and their defaults (docs/protocol.md §2).
INTERFACE_DEFAULTS: Mapping[str, str] = MappingProxyType(
    {name: readings[0] for name, readings in INTERFACE_READINGS.items()}
)

#: State fields whose checks read another field: a check of the key is skipped with the
#: field it reads (``dealer_in`` reads ``dealer``).
READS: Mapping[str, str] = MappingProxyType(
    {"dealer_in": "dealer", "turn_right_of_dealer": "dealer"}
)

#: The ops that start a deal. Who moves first in the deal they start reads the dealer
#: (DEAL-5): an engine that keeps no dealer picks that player itself.
DEAL_OPS: frozenset[str] = frozenset({"start_deal", "next_deal", "redeal", "new_game"})


@dataclass(frozen=True)
class Declarations:
    """An engine's declarations as graded in one profile.

    ``rulings`` holds the option the engine plays on every point the profile rules on (its
    declaration, else the profile's option) plus any other known point it declared;
    ``declared`` only what it declared with a known point and option; ``problems`` the
    declared rulings the catalogue does not know, which are graded by the profile's option.
    """

    profile: str
    capabilities: frozenset[str]
    profiles: tuple[str, ...]
    rulings: Mapping[str, str]
    declared: Mapping[str, str]
    profile_options: Mapping[str, str]
    problems: tuple[str, ...] = ()
    run_order: str = "listed"
    run_ends: str = "requested"
    #: The player counts the engine plays in this profile.
    players: tuple[int, ...] = (2, 3, 4)
    #: The player counts the profile's text allows (conformance/data/profiles.json).
    profile_players: tuple[int, ...] = ()
    unmodelled: frozenset[str] = field(default_factory=frozenset)

    # -- rulings ------------------------------------------------------------------------

    def ruling(self, point: str) -> str | None:
        """The option the engine plays on ``point`` (None: the profile does not rule on it
        and the engine declared nothing); for an interface field (``run_order``,
        ``run_ends``), the engine's reading, as a value written per reading reads it."""
        if point in INTERFACE_READINGS:
            return self.interface[point]
        return self.rulings.get(point)

    @cached_property
    def facts(self) -> EngineFacts | None:
        """The profile's facts under these rulings (packs, hand sizes, wild cards), worked
        out once per engine; None for a profile the harness does not know."""
        profile = default_profiles().get(self.profile)
        return None if profile is None else EngineFacts(profile, self.ruling)

    def differs(self, point: str) -> bool:
        """True when the engine plays another option on ``point`` than its profile does."""
        mine = self.rulings.get(point)
        return mine is not None and mine != self.profile_options.get(point)

    @property
    def other_rulings(self) -> Mapping[str, str]:
        """The points of this profile on which the engine's option is not the profile's,
        sorted. A declared point the profile does not rule on is left out: no case of the
        profile grades it (an engine that plays several profiles declares their points too).
        Without a catalogue the profile's points are unknown and every declared ruling is in.
        """
        known = self.profile_options
        return {
            p: o
            for p, o in sorted(self.rulings.items())
            if self.differs(p) and (not known or p in known)
        }

    def assumption_gap(self, assumes: Mapping[str, str]) -> str | None:
        """Why assumptions ``{point: option}`` do not hold for this engine; None if they do.

        A point the engine plays no option of (not of this profile, not declared) does not
        stop grading: the assumption is the profile's reading, which the engine follows.
        """
        for point, assumed in sorted(assumes.items()):
            ruling = self.rulings.get(point)
            if ruling is not None and ruling != assumed:
                return f"assumes {point} option {assumed!r}; the engine rules {ruling!r}"
        return None

    # -- interface ------------------------------------------------------------------------

    @property
    def interface(self) -> Mapping[str, str]:
        """The engine's interface readings: ``run_order`` and ``run_ends``."""
        return {"run_order": self.run_order, "run_ends": self.run_ends}

    @property
    def runs_as_sets(self) -> bool:
        """True when a run's order on the table is the engine's own (docs/protocol.md §2)."""
        return self.run_order == "engine" or self.run_ends == "engine"

    def interface_gap(self, interface: Mapping[str, str]) -> str | None:
        """Why an expectation written for interface readings ``interface`` cannot grade
        this engine; None when the engine reads the protocol that way."""
        declared = self.interface
        for key, wanted in sorted(interface.items()):
            if declared.get(key, wanted) != wanted:
                return (
                    f"written for engines with {key} {wanted!r}; "
                    f"the engine declares {key} {declared[key]!r}"
                )
        return None

    # -- fields and players -------------------------------------------------------------------

    def models(self, key: str) -> bool:
        """True when a check of state key ``key`` can be graded (the engine models the field
        it reads)."""
        return key not in self.unmodelled and READS.get(key, key) not in self.unmodelled

    def picks_first_player(self, op: str) -> bool:
        """True when who moves first after ``op`` is the engine's own choice: ``op`` starts a
        deal and the engine keeps no dealer (``unmodelled: [dealer]``, docs/protocol.md §2).
        Every judge reads this one answer: ``run`` grades the steps after with the engine's
        seats, ``fuzz`` compares no ``turn`` there."""
        return op in DEAL_OPS and not self.models("dealer")

    def unmodelled_after(self, op: str) -> frozenset[str]:
        """The state fields compared for nothing in the answer to ``op``: the unmodelled
        ones, and ``turn`` after a deal op whose first player is the engine's own."""
        if self.picks_first_player(op):
            return self.unmodelled | {"turn"}
        return self.unmodelled

    def plays(self, players: int) -> bool:
        """True when the engine plays ``players`` players in this profile."""
        return players in self.players

    def players_gap(self, players: int) -> str | None:
        """Why a case seating ``players`` cannot grade this engine; None if it can."""
        if self.plays(players):
            return None
        return (
            f"plays {players} players; the engine declares players "
            f"{', '.join(map(str, self.players))}"
        )

    @property
    def missing_players(self) -> tuple[int, ...]:
        """The profile's player counts the engine does not play (shown as not graded)."""
        return tuple(n for n in self.profile_players if n not in self.players)

    @property
    def plays_profile(self) -> bool:
        """True when the handshake lists this profile."""
        return self.profile in self.profiles

    def lacks(self, capabilities: Iterable[str]) -> tuple[str, ...]:
        """The capabilities of ``capabilities`` the engine does not claim, sorted."""
        return tuple(sorted(set(capabilities) - self.capabilities))


def declarations(
    handshake: Handshake, profile: str, catalogue: Catalogue | None = None
) -> Declarations:
    """The engine's declarations in ``profile`` (its ``profile_rulings`` and
    ``profile_players`` for that profile where it gives them, docs/protocol.md §2).

    Without a catalogue the declared rulings are taken as given and the profile's options
    are unknown (every declared ruling then counts as differing).
    """
    given = handshake.rulings_for(profile)
    declared: dict[str, str] = {}
    profile_options: dict[str, str] = {}
    problems: tuple[str, ...] = ()
    if catalogue is None:
        declared = dict(given)
    else:
        problems = catalogue.ruling_problems(given)
        for point, option in given.items():
            known = catalogue.disputes.get(point)
            if known is not None and option in known.options:
                declared[point] = option
        profile_options = catalogue.profile_options(profile)
    facts = default_profiles().get(profile)
    return Declarations(
        profile=profile,
        capabilities=handshake.capabilities,
        profiles=handshake.profiles,
        rulings=MappingProxyType({**profile_options, **declared}),
        declared=MappingProxyType(dict(sorted(declared.items()))),
        profile_options=MappingProxyType(profile_options),
        problems=problems,
        run_order=handshake.run_order,
        run_ends=handshake.run_ends,
        players=handshake.players_for(profile),
        profile_players=tuple(facts.players) if facts is not None else (),
        unmodelled=handshake.unmodelled,
    )
