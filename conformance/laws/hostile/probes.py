"""The hostile probes: each malformed or borderline request, the setting it is sent in, and
the answer docs/protocol.md requires for it.

:data:`HOSTILE_PROBES` is the one list ``smoke --hostile`` and ``run --hostile`` read
(:mod:`~conformance.laws.hostile.sending` sends them): the malformed requests of this module,
then the impossible ones of :mod:`~conformance.laws.hostile.impossible`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from conformance.laws.hostile.impossible import IMPOSSIBLE_PROBES
from conformance.laws.hostile.model import (
    NOT_IN_PROFILE,
    HostileProbe,
    Ignored,
    Refused,
    Rejected,
    Script,
    Setting,
    deck_of,
    draw_state,
    new_game_fields,
    perfect_cut,
    start_fields,
    table_state,
)

__all__ = ["HOSTILE_PROBES"]


# -- when a probe is sent -------------------------------------------------------------------


def _requested_ends(setting: Setting) -> tuple[str, str] | None:
    if setting.declared.run_ends != "requested":
        return ("interface", "the engine declares run_ends engine: it picks the end itself")
    return None


def _cuts(setting: Setting) -> tuple[str, str] | None:
    if not setting.profile.cut:
        return (NOT_IN_PROFILE, f"{setting.profile.name} has no cut (docs/protocol.md §10)")
    return None


def _steals(setting: Setting) -> tuple[str, str] | None:
    declared = setting.declared
    # DISPUTE-64 counts only in a profile that rules on it (perla): an engine may declare
    # it in `rulings` for every profile (docs/protocol.md §8).
    perla = "DISPUTE-64" in declared.profile_options
    if declared.ruling("DISPUTE-29") == "steal" or (
        perla and declared.ruling("DISPUTE-64") == "after_passes"
    ):
        return None
    return ("option", "pass serves steals only (DISPUTE-29 steal, DISPUTE-64 after_passes)")


# -- the probes ---------------------------------------------------------------------------


def _meld_fields(setting: Setting, **changes: Any) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "profile": setting.profile.name,
        "meld": {"kind": "trio", "cards": ["8C", "8D", "8H"]},
        "initial": True,
    }
    fields.update(changes)
    return {name: value for name, value in fields.items() if value is not None}


def _contract_fields(setting: Setting, **changes: Any) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "profile": setting.profile.name,
        "deal_number": 1,
        "melds": [
            {"kind": "trio", "cards": ["8C", "8D", "8H"]},
            {"kind": "trio", "cards": ["KS", "KH", "KD"]},
        ],
    }
    fields.update(changes)
    return {name: value for name, value in fields.items() if value is not None}


def _penalty_fields(setting: Setting, **changes: Any) -> dict[str, Any]:
    fields: dict[str, Any] = {"profile": setting.profile.name, "cards": ["AS", "QD", "3C"]}
    fields.update(changes)
    return {name: value for name, value in fields.items() if value is not None}


def _query(
    op: str, make: Callable[..., dict[str, Any]], **changes: Any
) -> Callable[[Setting], Script]:
    """A melds query with ``changes``; its twin is the well-formed query."""
    return lambda s: Script((), (op, make(s, **changes)), (op, make(s)))


def _act(
    state: Callable[[Setting], dict[str, Any]],
    action: dict[str, Any],
    twin: dict[str, Any] | None,
    **extra: Any,
) -> Callable[[Setting], Script]:
    """``act`` with ``action`` (and top-level ``extra`` fields) on a loaded ``state``."""

    def build(setting: Setting) -> Script:
        setup = (("load_state", {"state": state(setting)}),)
        return Script(
            setup,
            ("act", {"action": action, **extra}),
            None if twin is None else ("act", {"action": twin}),
        )

    return build


def _after_draw(setting: Setting) -> Script:
    setup = (
        ("load_state", {"state": draw_state(setting)}),
        ("act", {"action": {"type": "draw_stock", "player": 1}}),
    )
    return Script(setup, ("act", {"action": {"type": "pass", "player": 1}}))


def _start(**changes: Any) -> Callable[[Setting], Script]:
    return lambda s: Script(
        (), ("start_deal", start_fields(s, **changes)), ("start_deal", start_fields(s))
    )


def _bad_cut(value: Callable[[Setting], Any]) -> Callable[[Setting], Script]:
    def build(setting: Setting) -> Script:
        good = start_fields(setting, cut=perfect_cut(setting))
        return Script((), ("start_deal", {**good, "cut": value(setting)}), ("start_deal", good))

    return build


_BAD = Refused("bad_request")
_LAY_OFF = {"type": "lay_off", "player": 1, "card": "8S", "meld": 1}
_EXTRA = {"x_note": "an extra field: ignore it", "x": {"seed": 42}}

#: The malformed requests, in the order sent.
_MALFORMED: tuple[HostileProbe, ...] = (
    HostileProbe(
        "unknown-op",
        "an op the protocol does not have",
        "§1",
        "",
        _BAD,
        lambda s: Script((), ("shuffle_table", {"profile": s.profile.name})),
        may_be_unsupported=False,
    ),
    # melds
    HostileProbe(
        "check_meld-without-meld",
        "check_meld without meld",
        "§7",
        "melds",
        _BAD,
        _query("check_meld", _meld_fields, meld=None),
    ),
    HostileProbe(
        "check_meld-unknown-card",
        "check_meld with the card code 1S",
        "§3",
        "melds",
        _BAD,
        _query("check_meld", _meld_fields, meld={"kind": "trio", "cards": ["8C", "8D", "1S"]}),
    ),
    HostileProbe(
        "check_meld-without-initial",
        "check_meld without initial",
        "§7",
        "melds",
        _BAD,
        _query("check_meld", _meld_fields, initial=None),
    ),
    HostileProbe(
        "check_meld-initial-string",
        'check_meld with initial "yes"',
        "§7",
        "melds",
        _BAD,
        _query("check_meld", _meld_fields, initial="yes"),
    ),
    HostileProbe(
        "check_meld-extra-fields",
        "check_meld with extra fields",
        "§1",
        "melds",
        Ignored(),
        _query("check_meld", _meld_fields, **_EXTRA),
    ),
    HostileProbe(
        "check_contract-without-melds",
        "check_contract without melds",
        "§7",
        "melds",
        _BAD,
        _query("check_contract", _contract_fields, melds=None),
    ),
    HostileProbe(
        "check_contract-deal-9",
        "check_contract with deal_number 9",
        "§5",
        "melds",
        _BAD,
        _query("check_contract", _contract_fields, deal_number=9),
    ),
    HostileProbe(
        "penalty-without-cards",
        "penalty without cards",
        "§7",
        "melds",
        _BAD,
        _query("penalty", _penalty_fields, cards=None),
    ),
    HostileProbe(
        "penalty-unknown-card",
        "penalty with the card code 11H",
        "§3",
        "melds",
        _BAD,
        _query("penalty", _penalty_fields, cards=["AS", "11H"]),
    ),
    HostileProbe(
        "penalty-extra-fields",
        "penalty with extra fields",
        "§1",
        "melds",
        Ignored(),
        _query("penalty", _penalty_fields, **_EXTRA),
    ),
    # turns
    HostileProbe(
        "load_state-without-state",
        "load_state without state",
        "§7",
        "turns",
        _BAD,
        lambda s: Script((), ("load_state", {})),
    ),
    HostileProbe(
        "act-without-action",
        "act without action",
        "§7",
        "turns",
        _BAD,
        lambda s: Script((("load_state", {"state": draw_state(s)}),), ("act", {})),
    ),
    HostileProbe(
        "lay_off-without-end",
        "a lay-off on a run without end",
        "§6",
        "turns",
        _BAD,
        _act(table_state, _LAY_OFF, {**_LAY_OFF, "end": "high"}),
        _requested_ends,
    ),
    HostileProbe(
        "act-unknown-card",
        "a discard of the card code 1S",
        "§3",
        "turns",
        _BAD,
        _act(
            table_state,
            {"type": "discard", "player": 1, "card": "1S"},
            {"type": "discard", "player": 1, "card": "KD"},
        ),
    ),
    HostileProbe(
        "act-unknown-type",
        "an action of type sort_hand",
        "§6",
        "turns",
        _BAD,
        _act(
            table_state,
            {"type": "sort_hand", "player": 1},
            {"type": "discard", "player": 1, "card": "KD"},
        ),
    ),
    HostileProbe(
        "act-player-string",
        'a discard by player "1"',
        "§6",
        "turns",
        _BAD,
        _act(
            table_state,
            {"type": "discard", "player": "1", "card": "KD"},
            {"type": "discard", "player": 1, "card": "KD"},
        ),
    ),
    HostileProbe(
        "act-extra-fields",
        "act with extra fields",
        "§1",
        "turns",
        Ignored(),
        _act(
            table_state,
            {"type": "discard", "player": 1, "card": "KD"},
            {"type": "discard", "player": 1, "card": "KD"},
            **_EXTRA,
        ),
    ),
    HostileProbe(
        "pass-before-drawing",
        "pass by the player to move, before drawing",
        "§6",
        "turns",
        Rejected("draw_first"),
        _act(draw_state, {"type": "pass", "player": 1}, None),
        _steals,
    ),
    HostileProbe(
        "pass-after-drawing",
        "pass by the player to move, after drawing",
        "§6",
        "turns",
        Rejected("already_drew"),
        _after_draw,
        _steals,
    ),
    # deals
    HostileProbe(
        "start_deal-without-deck", "start_deal without deck", "§7", "deals", _BAD, _start(deck=None)
    ),
    HostileProbe(
        "start_deal-deal-9",
        "start_deal with deal_number 9",
        "§5",
        "deals",
        _BAD,
        _start(deal_number=9),
    ),
    HostileProbe(
        "redeal-without-deck",
        "redeal without deck, before the first draw",
        "§7",
        "deals",
        _BAD,
        lambda s: Script(
            (("start_deal", start_fields(s)),),
            ("redeal", {}),
            ("redeal", {"deck": deck_of(s)}),
        ),
    ),
    HostileProbe(
        "start_deal-unknown-card",
        "start_deal with the card code ZZ in deck",
        "§3",
        "deals",
        _BAD,
        lambda s: Script(
            (),
            ("start_deal", start_fields(s, deck=["ZZ", *deck_of(s)[1:]])),
            ("start_deal", start_fields(s)),
        ),
    ),
    HostileProbe(
        "start_deal-cut-boolean",
        "start_deal with cut true",
        "§10",
        "deals",
        _BAD,
        _bad_cut(lambda s: True),
        _cuts,
    ),
    HostileProbe(
        "start_deal-cut-float",
        "start_deal with the perfect cut as a float (23.0 for 2 players)",
        "§10",
        "deals",
        _BAD,
        _bad_cut(lambda s: float(perfect_cut(s))),
        _cuts,
    ),
    HostileProbe(
        "start_deal-extra-fields",
        "start_deal with extra fields",
        "§1",
        "deals",
        Ignored(),
        _start(**_EXTRA),
    ),
    HostileProbe(
        "new_game-without-seed",
        "new_game without seed",
        "§7",
        "deals",
        _BAD,
        lambda s: Script(
            (), ("new_game", new_game_fields(s, seed=None)), ("new_game", new_game_fields(s))
        ),
    ),
    HostileProbe(
        "new_game-seed-string",
        'new_game with seed "1"',
        "§7",
        "deals",
        _BAD,
        lambda s: Script(
            (), ("new_game", new_game_fields(s, seed="1")), ("new_game", new_game_fields(s))
        ),
    ),
)

#: Every hostile probe, in the order sent (the one source smoke and run read).
HOSTILE_PROBES: tuple[HostileProbe, ...] = (*_MALFORMED, *IMPOSSIBLE_PROBES)
