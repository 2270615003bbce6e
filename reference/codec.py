"""The canonical JSON forms of docs/protocol.md: cards, melds, actions, states.

``x_to_json(x_from_json(j)) == j`` for every canonical ``j`` (hands and trios in canonical
card order); ``x_from_json(x_to_json(v)) == v`` for every value. Parse errors name the field
path, e.g. ``state.hands[2][5]: unknown card code '1S'``.
"""

from __future__ import annotations

from typing import Any

from reference.actions import (
    SWAP_DESTINATIONS,
    Action,
    Discard,
    DrawDiscard,
    DrawStock,
    End,
    LayOff,
    Open,
    Pass,
    SwapJoker,
)
from reference.cards import Card
from reference.errors import CardParseError, InvalidActionError, InvalidStateError
from reference.game import GameState, Phase
from reference.melds import Meld, Run, TableMeld, Trio
from reference.profiles import find_profile

Json = Any
"""A JSON value as produced by ``json.loads``."""


# --- reading helpers ------------------------------------------------------------------------


def _fail(path: str, message: str) -> InvalidActionError:
    return InvalidActionError(f"{path}: {message}")


def _object(value: Json, path: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _fail(path, f"expected an object, got {type(value).__name__}")
    return value


def _get(obj: dict[str, Any], key: str, path: str) -> Json:
    if key not in obj:
        raise _fail(f"{path}.{key}", "missing field")
    return obj[key]


def _int(value: Json, path: str) -> int:
    # JSON booleans decode as Python bools, which are ints: refuse them explicitly.
    if not isinstance(value, int) or isinstance(value, bool):
        raise _fail(path, f"expected an integer, got {value!r}")
    return value


def _bool(value: Json, path: str) -> bool:
    if not isinstance(value, bool):
        raise _fail(path, f"expected true or false, got {value!r}")
    return value


def _list(value: Json, path: str) -> list[Any]:
    if not isinstance(value, list):
        raise _fail(path, f"expected a list, got {type(value).__name__}")
    return value


def _optional_int_list(value: Json, path: str) -> tuple[int, ...] | None:
    if value is None:
        return None
    return tuple(_int(v, f"{path}[{i}]") for i, v in enumerate(_list(value, path)))


# --- cards and melds ------------------------------------------------------------------------


def card_to_json(card: Card) -> str:
    """A card's code, e.g. ``"10H"`` or ``"JK"``."""
    return card.code()


def card_from_json(value: Json, path: str = "card") -> Card:
    """Read one card code.

    :raises InvalidActionError: (a ``CardParseError``) naming ``path``.
    """
    if not isinstance(value, str):
        raise CardParseError(f"{path}: expected a card code string, got {value!r}")
    try:
        return Card.from_code(value)
    except CardParseError as exc:
        raise CardParseError(f"{path}: {exc}") from None


def cards_from_json(value: Json, path: str) -> tuple[Card, ...]:
    """Read a list of card codes, keeping their order."""
    codes = _list(value, path)
    try:
        return tuple(Card.from_code(code) for code in codes)
    except CardParseError:
        # Build each card's path only when one is wrong: this runs for every card of
        # every state the adapter loads.
        return tuple(card_from_json(v, f"{path}[{i}]") for i, v in enumerate(codes))


def meld_to_json(meld: Meld | TableMeld) -> dict[str, Any]:
    """``{"kind", "cards"}``; a table meld puts its ``owner`` first."""
    if isinstance(meld, TableMeld):
        return {"owner": meld.owner, **meld_to_json(meld.meld)}
    return {"kind": meld.kind, "cards": [c.code() for c in meld.cards]}


def meld_from_json(value: Json, path: str = "meld") -> Meld:
    """Read ``{"kind": "trio"|"run", "cards": [...]}`` (any ``owner`` key is ignored).

    :raises InvalidActionError: naming the field path.
    """
    obj = _object(value, path)
    kind = _get(obj, "kind", path)
    cards = cards_from_json(_get(obj, "cards", path), f"{path}.cards")
    if kind == "trio":
        return Trio(cards)
    if kind == "run":
        return Run(cards)
    raise _fail(f"{path}.kind", f"expected 'trio' or 'run', got {kind!r}")


def table_meld_from_json(value: Json, path: str) -> TableMeld:
    """Read a table meld: a meld with an ``owner``."""
    obj = _object(value, path)
    return TableMeld(_int(_get(obj, "owner", path), f"{path}.owner"), meld_from_json(obj, path))


# --- actions --------------------------------------------------------------------------------


def action_to_json(action: Action) -> dict[str, Any]:
    """The protocol form of an action (docs/protocol.md §6)."""
    match action:
        case DrawStock(player):
            return {"type": "draw_stock", "player": player}
        case DrawDiscard(player):
            return {"type": "draw_discard", "player": player}
        case Open(player, melds, declared):
            laid = [meld_to_json(m) for m in melds]
            for meld_json, cards in zip(laid, declared, strict=False):
                if cards is not None:
                    meld_json["declared"] = [c.code() for c in cards]
            return {"type": "open", "player": player, "melds": laid}
        case LayOff(player, card, meld, end):
            out: dict[str, Any] = {"type": "lay_off", "player": player, "card": card.code()}
            out["meld"] = meld
            if end is not None:
                out["end"] = end.value
            return out
        case SwapJoker(player, meld, card, to, to_meld, wild):
            out = {"type": "swap_joker", "player": player, "meld": meld, "card": card.code()}
            out["to"] = to
            if to_meld is not None:
                out["to_meld"] = to_meld
            if wild is not None:
                out["wild"] = wild.code()  # Chilean swaps only (docs/protocol.md §8)
            return out
        case Discard(player, card):
            return {"type": "discard", "player": player, "card": card.code()}
        case Pass(player):
            return {"type": "pass", "player": player}
    raise InvalidActionError(f"not an action: {action!r}")


def action_from_json(value: Json, path: str = "action") -> Action:
    """Read an action.

    :raises InvalidActionError: naming the field path (unknown type, missing field, bad card
        code, a meld index that is not an integer, an unknown end or destination).
    """
    obj = _object(value, path)
    kind = _get(obj, "type", path)
    player = _int(_get(obj, "player", path), f"{path}.player")
    if kind == "draw_stock":
        return DrawStock(player)
    if kind == "draw_discard":
        return DrawDiscard(player)
    if kind == "discard":
        return Discard(player, card_from_json(_get(obj, "card", path), f"{path}.card"))
    if kind == "pass":
        return Pass(player)
    if kind == "open":
        melds = _list(_get(obj, "melds", path), f"{path}.melds")
        read = tuple(meld_from_json(m, f"{path}.melds[{i}]") for i, m in enumerate(melds))
        declared = tuple(
            _declared_from_json(m, meld, f"{path}.melds[{i}]")
            for i, (m, meld) in enumerate(zip(melds, read, strict=True))
        )
        if all(d is None for d in declared):
            declared = ()
        return Open(player, read, declared)
    if kind in ("lay_off", "swap_joker"):
        card = card_from_json(_get(obj, "card", path), f"{path}.card")
        meld = _int(_get(obj, "meld", path), f"{path}.meld")
        if kind == "lay_off":
            end = obj.get("end")
            if end is not None and end not in ("low", "high"):
                raise _fail(f"{path}.end", f"expected 'low' or 'high', got {end!r}")
            return LayOff(player, card, meld, None if end is None else End(end))
        to = _get(obj, "to", path)
        if to not in SWAP_DESTINATIONS:
            raise _fail(f"{path}.to", f"expected 'low', 'high' or 'hand', got {to!r}")
        to_meld = obj.get("to_meld")
        wild = obj.get("wild")
        return SwapJoker(
            player,
            meld,
            card,
            to,
            None if to_meld is None else _int(to_meld, f"{path}.to_meld"),
            None if wild is None else card_from_json(wild, f"{path}.wild"),
        )
    raise _fail(f"{path}.type", f"unknown action type {kind!r}")


def _declared_from_json(value: Json, meld: Meld, path: str) -> tuple[Card, ...] | None:
    """The optional ``declared`` cards of an opening run: one natural card per joker, in
    listing order (DISPUTE-30 ``declared``)."""
    raw = value.get("declared") if isinstance(value, dict) else None
    if raw is None:
        return None
    cards = cards_from_json(raw, f"{path}.declared")
    if not isinstance(meld, Run):
        raise _fail(f"{path}.declared", "only a run's jokers are declared")
    jokers = sum(1 for c in meld.cards if c.is_joker)
    if len(cards) != jokers or any(c.is_joker for c in cards):
        raise _fail(
            f"{path}.declared", f"expected {jokers} natural card(s), one per joker, got {raw!r}"
        )
    return cards


# --- states ---------------------------------------------------------------------------------


def state_to_json(state: GameState) -> dict[str, Any]:
    """The protocol state (docs/protocol.md §5), with the recycle seed under ``x``."""
    return {
        "profile": state.profile.name,
        "players": state.players,
        "deal_number": state.deal_number,
        "dealer": state.dealer,
        "turn": state.turn,
        "phase": state.phase.value,
        "hands": [[c.code() for c in hand] for hand in state.hands],
        "opened": list(state.opened),
        "turn_opened": state.turn_opened,
        "table": [meld_to_json(tm) for tm in state.table],
        "stock": [c.code() for c in state.stock],
        "discard": [c.code() for c in state.discard],
        "totals": list(state.totals),
        "deal_scores": None if state.deal_scores is None else list(state.deal_scores),
        "closer": state.closer,
        "winners": None if state.winners is None else list(state.winners),
        "x": _extras(state),
    }


def _extras(state: GameState) -> dict[str, Any]:
    """The engine-private ``x``: the recycle seed and first-draw flag, plus this turn's taken
    discard (DISPUTE-06, DISPUTE-19) and melds added to (DISPUTE-34) when there are any."""
    x: dict[str, Any] = {"seed": state.seed, "drawn": state.drawn}
    if state.taken is not None:
        x["taken"] = state.taken.code()
    if state.added:
        x["added"] = list(state.added)
    if state.owed:
        x["owed"] = list(state.owed)
    if state.passed:
        x["passed"] = list(state.passed)
    return x


def state_from_json(value: Json, path: str = "state") -> GameState:
    """Read a protocol state. ``deal_scores``, ``closer``, ``winners`` and ``x`` may be absent.

    Only the form is checked here; :func:`reference.game.validate_state` judges whether the
    state can occur.

    :raises InvalidStateError: naming the field path of the first malformed field.
    """
    try:
        return _state_from_json(value, path)
    except InvalidActionError as exc:
        raise InvalidStateError((str(exc),)) from None


def _state_from_json(value: Json, path: str) -> GameState:
    obj = _object(value, path)
    name = _get(obj, "profile", path)
    try:
        profile = find_profile(name)
    except ValueError as exc:
        raise _fail(f"{path}.profile", str(exc)) from None
    phase_value = _get(obj, "phase", path)
    try:
        phase = Phase(phase_value)
    except ValueError:
        raise _fail(f"{path}.phase", f"unknown phase {phase_value!r}") from None
    hands = _list(_get(obj, "hands", path), f"{path}.hands")
    opened = _list(_get(obj, "opened", path), f"{path}.opened")
    table = _list(_get(obj, "table", path), f"{path}.table")
    totals = _list(_get(obj, "totals", path), f"{path}.totals")
    closer = obj.get("closer")
    x = obj.get("x") or {}
    seed = _int(_object(x, f"{path}.x").get("seed", 0), f"{path}.x.seed")
    drawn = _bool(x.get("drawn", False), f"{path}.x.drawn")
    taken = x.get("taken")
    added = _list(x.get("added", []), f"{path}.x.added")
    owed = _list(x.get("owed", []), f"{path}.x.owed")
    passed = _list(x.get("passed", []), f"{path}.x.passed")
    return GameState(
        profile=profile,
        players=_int(_get(obj, "players", path), f"{path}.players"),
        deal_number=_int(_get(obj, "deal_number", path), f"{path}.deal_number"),
        dealer=_int(_get(obj, "dealer", path), f"{path}.dealer"),
        turn=_int(_get(obj, "turn", path), f"{path}.turn"),
        phase=phase,
        hands=tuple(cards_from_json(h, f"{path}.hands[{i}]") for i, h in enumerate(hands)),
        opened=tuple(_bool(o, f"{path}.opened[{i}]") for i, o in enumerate(opened)),
        turn_opened=_bool(_get(obj, "turn_opened", path), f"{path}.turn_opened"),
        table=tuple(table_meld_from_json(m, f"{path}.table[{i}]") for i, m in enumerate(table)),
        stock=cards_from_json(_get(obj, "stock", path), f"{path}.stock"),
        discard=cards_from_json(_get(obj, "discard", path), f"{path}.discard"),
        totals=tuple(_int(t, f"{path}.totals[{i}]") for i, t in enumerate(totals)),
        deal_scores=_optional_int_list(obj.get("deal_scores"), f"{path}.deal_scores"),
        closer=None if closer is None else _int(closer, f"{path}.closer"),
        winners=_optional_int_list(obj.get("winners"), f"{path}.winners"),
        seed=seed,
        drawn=drawn,
        taken=None if taken is None else card_from_json(taken, f"{path}.x.taken"),
        added=tuple(_int(a, f"{path}.x.added[{i}]") for i, a in enumerate(added)),
        owed=tuple(_int(o, f"{path}.x.owed[{i}]") for i, o in enumerate(owed)),
        passed=tuple(_int(p, f"{path}.x.passed[{i}]") for i, p in enumerate(passed)),
    )
