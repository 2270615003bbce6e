"""The state an accepted action leads to, where the protocol makes it plain.

When an engine refuses an action the case says it must accept, grading goes on from the
state the case expects after that step (docs/scenario-format.md, "Grading goes on after a
failed check"). The case rarely writes that whole state, so it is built here from the state
before and the action, by moving cards as the protocol describes them (docs/protocol.md
§5, §6), then every value the step asserts in full is put in, and the result must agree with
every check of the step and hold the whole pack. Only the plain moves are built: a draw, a
discard that leaves cards in hand, an opening or a lay-off that leave cards in hand. Anything
that scores, recycles, ends a deal or reads an option the move cannot see (a joker's
declared card, an end the engine picks, a steal) is not built: grading then stops there.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conformance.adapter.declarations import Declarations

#: Actions whose effect on the state is only cards moving and the turn passing.
PLAIN_ACTIONS = frozenset({"draw_stock", "draw_discard", "discard", "open", "lay_off"})


def moved(
    before: Mapping[str, Any], action: Mapping[str, Any], declared: Declarations
) -> dict[str, Any] | None:
    """The state after ``action`` is accepted in ``before``, for the plain actions; None
    when the action is not one, or is not plain here (see the module's docstring)."""
    kind = action.get("type")
    player = action.get("player")
    hands = before.get("hands")
    if kind not in PLAIN_ACTIONS or not isinstance(player, int) or not isinstance(hands, list):
        return None
    if not 0 <= player < len(hands) or before.get("turn") != player:
        return None
    if before.get("phase") != ("draw" if kind.startswith("draw") else "play"):
        return None
    if kind == "draw_stock" and (
        declared.ruling("DISPUTE-29") == "steal" or declared.profile == "perla"
    ):
        return None  # the others may take the discard before the turn goes on
    state = {k: (list(v) if isinstance(v, list) else v) for k, v in before.items() if k != "x"}
    hand = list(hands[player])
    state["hands"] = [list(h) for h in hands]
    if kind == "draw_stock":
        stock = list(before.get("stock") or ())
        if len(stock) < 2:
            return None  # the draw empties the stock: a recycle follows (DISPUTE-18)
        hand.append(stock.pop(0))
        state.update(stock=stock, phase="play")
    elif kind == "draw_discard":
        discard = list(before.get("discard") or ())
        if not discard:
            return None
        hand.append(discard.pop(0))
        state.update(discard=discard, phase="play")
    elif kind == "discard":
        card = action.get("card")
        if not _take(hand, [card]) or not hand:
            return None  # the last card closes the deal: scores follow
        state.update(
            discard=[card, *(before.get("discard") or ())],
            turn=(player + 1) % len(hands),
            phase="draw",
            turn_opened=False,
        )
    elif kind == "open":
        laid = _opening(action, player)
        if laid is None or not _take(hand, [c for m in laid for c in m["cards"]]) or not hand:
            return None
        opened = list(before.get("opened") or ())
        if len(opened) != len(hands):
            return None
        first = not opened[player]
        opened[player] = True
        state.update(
            table=[*(before.get("table") or ()), *laid],
            opened=opened,
            turn_opened=True if first else before.get("turn_opened"),
        )
    else:
        table = _laid_off(before.get("table"), action, declared)
        if table is None or not _take(hand, [action.get("card")]) or not hand:
            return None
        state["table"] = table
    state["hands"][player] = hand
    return state


def _take(hand: list[Any], cards: list[Any]) -> bool:
    """Remove ``cards`` from ``hand``; False (hand left part-changed) when one is missing."""
    for card in cards:
        if card not in hand:
            return False
        hand.remove(card)
    return True


def _opening(action: Mapping[str, Any], player: int) -> list[dict[str, Any]] | None:
    """The melds of an opening as they go on the table, or None when one declares what its
    jokers stand for (DISPUTE-30 ``declared``: where they go is the engine's reading)."""
    melds = action.get("melds")
    if not isinstance(melds, list) or not melds:
        return None
    laid = []
    for meld in melds:
        if not isinstance(meld, Mapping) or "declared" in meld:
            return None
        cards = meld.get("cards")
        if meld.get("kind") not in ("trio", "run") or not isinstance(cards, list):
            return None
        laid.append({"owner": player, "kind": meld["kind"], "cards": list(cards)})
    return laid


def _laid_off(
    table: Any, action: Mapping[str, Any], declared: Declarations
) -> list[dict[str, Any]] | None:
    """The table with a lay-off's card added at the end it names, or None when the end is
    the engine's to pick (``run_ends: engine``) or the meld is not there."""
    index = action.get("meld")
    if not isinstance(table, list) or not isinstance(index, int) or not 0 <= index < len(table):
        return None
    meld = table[index]
    if not isinstance(meld, Mapping) or not isinstance(meld.get("cards"), list):
        return None
    cards = list(meld["cards"])
    card = action.get("card")
    if meld.get("kind") == "trio":
        cards.append(card)
    elif declared.run_ends != "requested" or action.get("end") not in ("low", "high"):
        return None
    else:
        cards = [card, *cards] if action["end"] == "low" else [*cards, card]
    changed = [dict(m) for m in table]
    changed[index] = {**meld, "cards": cards}
    return changed
