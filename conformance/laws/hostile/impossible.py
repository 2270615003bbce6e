"""The impossible requests: well-formed JSON for what cannot be, and the answer
docs/protocol.md gives each.

A deal op (``start_deal``, ``next_deal``, ``redeal``) sent a deck that is not the pack (a
natural card one copy too many, a card missing, a joker more than the pack holds), a deal op
seating a player count the profile has no place for, and a ``load_state`` whose state has no
reading (an unknown phase, a turn or dealer that is no seat, ``turn_opened`` where it cannot
be, an ``opened`` list of the wrong length) must be refused: ``bad_request`` for the deal ops
(§1), ``invalid_state`` for ``load_state`` (§5). A state whose cards do not add up to the pack
*may* be refused (§7): what the engine did is reported, never graded.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from conformance.knowledge.profiles import default_profiles
from conformance.laws.hostile.model import (
    HostileProbe,
    MayRefuse,
    Refused,
    Script,
    Setting,
    deck_of,
    draw_state,
    new_game_fields,
    start_fields,
    table_state,
)

_BAD = Refused("bad_request")
_INVALID = Refused("invalid_state")

# -- decks that are not the pack ------------------------------------------------------------


def _third_copy(deck: list[str]) -> list[str]:
    """The deck with one 3C turned into a KD: a KD more than the pack holds, a 3C fewer."""
    changed = list(deck)
    changed[changed.index("3C")] = "KD"
    return changed


def _missing(deck: list[str]) -> list[str]:
    """The deck without its top card: one card short of the pack."""
    return deck[1:]


def _extra_joker(deck: list[str]) -> list[str]:
    """The deck with one 3C turned into a joker: a joker more than this pack holds (a pack
    of another size has it)."""
    changed = list(deck)
    changed[changed.index("3C")] = "JK"
    return changed


_DECKS: tuple[tuple[str, str, Callable[[list[str]], list[str]]], ...] = (
    ("deck-third-copy", "a KD more than the pack holds (in place of a 3C)", _third_copy),
    ("deck-missing-card", "its top card left out", _missing),
    ("deck-extra-joker", "a joker more than the pack holds (in place of a 3C)", _extra_joker),
)


def _cancelled(setting: Setting) -> dict[str, Any]:
    """Deal 1 cancelled (the stock spent, nothing to recycle): ``next_deal`` replays it."""
    deck, players = deck_of(setting), setting.players
    state = draw_state(setting)
    rest = deck[: len(deck) - 1]
    share = len(rest) // players
    hands = [rest[i * share : (i + 1) * share] for i in range(players)]
    hands[-1].extend(rest[players * share :])
    return {**state, "phase": "cancelled", "hands": hands, "stock": [], "discard": deck[-1:]}


def _start_with(bend: Callable[[list[str]], list[str]]) -> Callable[[Setting], Script]:
    return lambda s: Script(
        (),
        ("start_deal", start_fields(s, deck=bend(deck_of(s)))),
        ("start_deal", start_fields(s)),
    )


def _next_with(bend: Callable[[list[str]], list[str]]) -> Callable[[Setting], Script]:
    return lambda s: Script(
        (("load_state", {"state": _cancelled(s)}),),
        ("next_deal", {"deck": bend(deck_of(s))}),
        ("next_deal", {"deck": deck_of(s)}),
    )


def _redeal_with(bend: Callable[[list[str]], list[str]]) -> Callable[[Setting], Script]:
    return lambda s: Script(
        (("start_deal", start_fields(s)),),
        ("redeal", {"deck": bend(deck_of(s))}),
        ("redeal", {"deck": deck_of(s)}),
    )


_DECK_PROBES = tuple(
    HostileProbe(
        f"{op}-{key}",
        f"{op} with a deck of {what}",
        "§1",
        "deals",
        _BAD,
        build(bend),
    )
    for op, build in (
        ("start_deal", _start_with),
        ("next_deal", _next_with),
        ("redeal", _redeal_with),
    )
    for key, what, bend in _DECKS
)

# -- player counts the profile has no place for ------------------------------------------------


def _outside(setting: Setting, above: bool) -> int:
    """One count past the profile's largest (``above``), or one below its smallest."""
    counts = default_profiles()[setting.profile.name].players
    return max(counts) + 1 if above else min(counts) - 1


def _start_seating(above: bool) -> Callable[[Setting], Script]:
    def build(setting: Setting) -> Script:
        players = _outside(setting, above)
        # The deck of the nearest count the profile plays: only the count is wrong.
        nearest = max(setting.profile.players) if above else min(setting.profile.players)
        deck = list(setting.profile.pack(nearest).canonical_order())
        fields = start_fields(setting, players=players, totals=[0] * players, deck=deck)
        return Script((), ("start_deal", fields), ("start_deal", start_fields(setting)))

    return build


def _new_game_seating(above: bool) -> Callable[[Setting], Script]:
    return lambda s: Script(
        (),
        ("new_game", new_game_fields(s, players=_outside(s, above))),
        ("new_game", new_game_fields(s)),
    )


_SEATING_PROBES = tuple(
    HostileProbe(
        f"{op}-players-{side}",
        f"{op} with a player count {side} the profile's",
        "§1",
        "deals",
        _BAD,
        build(side == "above"),
        # `unsupported` says the engine lacks a count the profile has: here it is the bug.
        may_be_unsupported=False,
    )
    for op, build in (("start_deal", _start_seating), ("new_game", _new_game_seating))
    for side in ("below", "above")
)

# -- states that cannot be --------------------------------------------------------------------


def _loaded(change: Callable[[Setting], dict[str, Any]]) -> Callable[[Setting], Script]:
    """``load_state`` of a state changed by ``change``; its twin loads the state unchanged."""
    return lambda s: Script(
        (), ("load_state", {"state": change(s)}), ("load_state", {"state": draw_state(s)})
    )


def _modelled(name: str) -> Callable[[Setting], tuple[str, str] | None]:
    def skip(setting: Setting) -> tuple[str, str] | None:
        if name in setting.declared.unmodelled:
            return ("unmodelled", f"the engine declares {name} unmodelled")
        return None

    return skip


def _short_stock(setting: Setting) -> dict[str, Any]:
    state = draw_state(setting)
    return {**state, "stock": state["stock"][1:]}


def _third_in_stock(setting: Setting) -> dict[str, Any]:
    state = draw_state(setting)
    return {**state, "stock": _third_copy(state["stock"])}


_STATE_PROBES = (
    HostileProbe(
        "load_state-phase-unknown",
        'load_state with phase "bogus"',
        "§5",
        "turns",
        _INVALID,
        _loaded(lambda s: {**draw_state(s), "phase": "bogus"}),
    ),
    HostileProbe(
        "load_state-turn-past-players",
        "load_state with turn equal to players (no such seat)",
        "§5",
        "turns",
        _INVALID,
        _loaded(lambda s: {**draw_state(s), "turn": s.players}),
    ),
    HostileProbe(
        "load_state-dealer-past-players",
        "load_state with dealer equal to players (no such seat)",
        "§5",
        "turns",
        _INVALID,
        _loaded(lambda s: {**draw_state(s), "dealer": s.players}),
        _modelled("dealer"),
    ),
    HostileProbe(
        "load_state-turn-opened-in-draw",
        "load_state with turn_opened true in the draw phase, for a player who has opened",
        "§5",
        "turns",
        _INVALID,
        _loaded(lambda s: {**table_state(s), "phase": "draw", "turn_opened": True}),
        _modelled("turn_opened"),
    ),
    HostileProbe(
        "load_state-turn-opened-not-opened",
        "load_state with turn_opened true for a player to move who has not opened",
        "§5",
        "turns",
        _INVALID,
        _loaded(lambda s: {**draw_state(s), "phase": "play", "turn_opened": True}),
        _modelled("turn_opened"),
    ),
    HostileProbe(
        "load_state-opened-short",
        "load_state with an opened list one entry short",
        "§5",
        "turns",
        _INVALID,
        _loaded(lambda s: {**draw_state(s), "opened": [False] * (s.players - 1)}),
    ),
    HostileProbe(
        "load_state-opened-long",
        "load_state with an opened list one entry too long",
        "§5",
        "turns",
        _INVALID,
        _loaded(lambda s: {**draw_state(s), "opened": [False] * (s.players + 1)}),
    ),
    HostileProbe(
        "load_state-card-missing",
        "load_state with a card missing from the stock (the cards do not add up to the pack)",
        "§7",
        "turns",
        MayRefuse("invalid_state"),
        _loaded(_short_stock),
    ),
    HostileProbe(
        "load_state-third-copy",
        "load_state with a KD more than the pack holds in the stock (in place of a 3C)",
        "§7",
        "turns",
        MayRefuse("invalid_state"),
        _loaded(_third_in_stock),
    ),
)

#: Every impossible request, in the order sent (after the malformed ones).
IMPOSSIBLE_PROBES: tuple[HostileProbe, ...] = (*_DECK_PROBES, *_SEATING_PROBES, *_STATE_PROBES)
