"""Profile facts under an engine's rulings: the hand size of a deal, the pack, the wild
ranks and how many wild cards a table meld may hold.

conformance/data/profiles.json holds each profile's facts at its own options. A few facts
change with an option an engine may declare (VARIANT-05 ``twelve`` deals 12 cards in every
deal; DISPUTE-43 ``one_fifty_nine`` takes a joker out of the Chilean 160-card pack;
DISPUTE-78 ``always_108`` deals every Chilean game from two packs and four jokers); those
are data in conformance/data/option_facts.json, applied in order over the profile's facts.
The harness composes decks (``start_deal``, ``next_deal``, ``redeal``) and checks the pack
of every answered state with them, so an engine is dealt and judged by its own rulings.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import replace
from functools import cache
from typing import Any

from conformance.io.resources import package_file
from conformance.knowledge.profiles import Pack, ProfileData, ProfileError

OPTION_FACTS = package_file("data", "option_facts.json")

#: The option an engine plays on a point (None: none), e.g. ``Declarations.ruling``.
Ruling = Callable[[str], "str | None"]


@cache
def _facts() -> Mapping[str, Any]:
    data: Mapping[str, Any] = json.loads(OPTION_FACTS.read_text(encoding="utf-8"))
    profiles: Mapping[str, Any] = data["profiles"]
    return profiles


def _applies(entry: Mapping[str, Any], ruling: Ruling) -> bool:
    return all(ruling(point) == option for point, option in entry["when"].items())


def hand_size(profile: ProfileData, deal_number: int, ruling: Ruling) -> int:
    """Cards dealt to each player in deal ``deal_number`` of ``profile`` under ``ruling``.

    :raises ProfileError: for a deal number the profile does not have.
    """
    size = profile.hand_size(deal_number)
    for entry in _facts().get(profile.name, {}).get("hand_sizes", ()):
        deals = entry["deals"]
        if _applies(entry, ruling) and (deals == "all" or deal_number in deals):
            size = int(entry["hand_size"])
    return size


def pack(profile: ProfileData, players: int, ruling: Ruling) -> Pack:
    """The pack dealt to ``players`` players of ``profile`` under ``ruling``.

    :raises ProfileError: for a player count the profile does not play.
    """
    found = profile.pack(players)
    for entry in _facts().get(profile.name, {}).get("packs", ()):
        if _applies(entry, ruling) and players in entry["players"]:
            # An entry gives the jokers, and the copies of each natural card when they
            # change too (DISPUTE-78 ``always_108``: two packs for 5 and 6 players).
            copies = int(entry.get("copies", found.copies))
            found = replace(found, copies=copies, jokers=int(entry["jokers"]))
    return found


def with_packs(profile: ProfileData, ruling: Ruling) -> ProfileData:
    """``profile``'s facts with the packs an engine deals under ``ruling``, one per player
    count: what a judge that composes decks from ``profile.pack`` (smoke) deals it."""
    packs = tuple(replace(pack(profile, n, ruling), players=(n,)) for n in profile.players)
    return replace(profile, packs=packs)


def with_options(profile: ProfileData, ruling: Ruling) -> ProfileData:
    """``profile``'s facts as played under ``ruling``: its packs (:func:`with_packs`), the
    deals it plays (``played_deals``: perla's DISPUTE-69 plays one of rounds 7 and 8), the
    cards dealt in each (:func:`hand_size`) and its wild ranks (:func:`wild_ranks`).
    What a scenario that ``assumes`` those options, or a fuzzer dealing to an engine that
    declares them, is built and checked against."""
    played = [d.number for d in profile.deals]
    for entry in _facts().get(profile.name, {}).get("played_deals", ()):
        if _applies(entry, ruling):
            played = [int(n) for n in entry["deals"]]  # DISPUTE-69: one of rounds 7 and 8
    deals = tuple(
        replace(profile.deal(n), number=i, hand_size=hand_size(profile, i, ruling))
        for i, n in enumerate(played, 1)
    )
    return replace(with_packs(profile, ruling), deals=deals, wild_ranks=wild_ranks(profile, ruling))


def wild_ranks(profile: ProfileData, ruling: Ruling) -> frozenset[str]:
    """Natural ranks that are wild in ``profile`` under ``ruling`` beside the profile's own
    (DISPUTE-25 ``wild``: 2s in argentine and pagat)."""
    found = set(profile.wild_ranks)
    for entry in _facts().get(profile.name, {}).get("wild_ranks", ()):
        if _applies(entry, ruling):
            found.update(entry["ranks"])
    return frozenset(found)


def meld_wild_limit(profile: ProfileData, kind: str, ruling: Ruling) -> int | None:
    """The most wild cards a table meld of ``kind`` may hold in ``profile`` under ``ruling``
    (VARIANT-03 ``kept``: one in any meld; VARIANT-06 ``one``: one in a trio), or None: no
    limit. A setup state over it is one such an engine cannot load."""
    most: int | None = None
    for entry in _facts().get(profile.name, {}).get("meld_wild_limits", ()):
        if _applies(entry, ruling) and kind in entry["kinds"]:
            limit = int(entry["most"])
            most = limit if most is None else min(most, limit)
    return most


class EngineFacts:
    """One profile's facts under one engine's rulings, each worked out at its first use.

    A run asks the same questions for every case (the pack for four players, the wild
    ranks, a trio's wild-card limit); :class:`conformance.adapter.declarations.Declarations` keeps
    one of these, so each is answered once per engine instead of once per case.
    """

    def __init__(self, profile: ProfileData, ruling: Ruling) -> None:
        self.profile = profile
        self._ruling = ruling
        self._packs: dict[int, Pack] = {}
        self._other: dict[int, Pack | None] = {}
        self._sizes: dict[int, int] = {}
        self._limits: dict[str, int | None] = {}
        self._wild: frozenset[str] | None = None

    def pack(self, players: int) -> Pack:
        """:func:`pack` for ``players``. :raises ProfileError: as it does."""
        found = self._packs.get(players)
        if found is None:
            found = self._packs[players] = pack(self.profile, players, self._ruling)
        return found

    def other_pack(self, players: int) -> Pack | None:
        """The engine's pack for ``players`` when it is not the profile's own; None when it
        is, or when the profile has no such player count."""
        if players not in self._other:
            try:
                theirs = self.pack(players)
                other = None if theirs == self.profile.pack(players) else theirs
            except ProfileError:
                other = None
            self._other[players] = other
        return self._other[players]

    def hand_size(self, deal_number: int) -> int:
        """:func:`hand_size` for deal ``deal_number``. :raises ProfileError: as it does."""
        found = self._sizes.get(deal_number)
        if found is None:
            found = self._sizes[deal_number] = hand_size(self.profile, deal_number, self._ruling)
        return found

    @property
    def wild_ranks(self) -> frozenset[str]:
        """:func:`wild_ranks` under the engine's rulings."""
        if self._wild is None:
            self._wild = wild_ranks(self.profile, self._ruling)
        return self._wild

    def meld_wild_limit(self, kind: str) -> int | None:
        """:func:`meld_wild_limit` for a meld of ``kind``."""
        if kind not in self._limits:
            self._limits[kind] = meld_wild_limit(self.profile, kind, self._ruling)
        return self._limits[kind]


def points() -> dict[str, tuple[str, ...]]:
    """Every point (and its options) some fact here depends on, by profile: what a test
    compares with the reference."""
    found: dict[str, tuple[str, ...]] = {}
    for name, facts in _facts().items():
        named = [p for entries in facts.values() for e in entries for p in e["when"]]
        found[name] = tuple(dict.fromkeys(named))
    return found
