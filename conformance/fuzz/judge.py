"""How an engine's answer is judged beside the reference's: fair reasons, the state
check built from the reference's state, and the rule a divergence is filed under.

Pure functions of the answers and the declarations: no adapter is spoken to here (the
pair, :mod:`conformance.fuzz.pair`, puts the requests and calls these)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from conformance.cards import JOKER
from conformance.catalogue import Catalogue
from conformance.compare import EXACT_KEYS, Mismatch, strip_private
from conformance.declarations import Declarations

from .melds import run_card, run_low
from .model import Divergence

#: Reasons that docs/reasons.md ("Fair reasons by family") makes interchangeable.
FAIR_FAMILIES: Final[tuple[frozenset[str], ...]] = (
    frozenset({"run_wraps", "beyond_ace"}),
    frozenset({"beyond_ace", "does_not_fit"}),
    frozenset({"run_suit", "too_many_jokers"}),
)
#: The rule a divergence on an op or action type is filed under when no reason names one.
OP_RULES: Final[Mapping[str, str]] = {
    "draw_stock": "TURN-2",
    "draw_discard": "TURN-2",
    "open": "CONTRACT-8",
    "lay_off": "LAYOFF-4",
    "swap_joker": "JOKER-4",
    "discard": "TURN-5",
    "next_deal": "DEAL-2",
    "redeal": "DEAL-6",
    "start_deal": "DEAL-3",
    "load_state": "CARDS-1",
    "check_meld": "MELD-RUN-1",
    "check_contract": "CONTRACT-8",
    "penalty": "SCORE-2",
}
#: The rule a state difference in one field is filed under (before the op's own rule).
FIELD_RULES: Final[Mapping[str, str]] = {
    "totals": "SCORE-4",
    "deal_scores": "SCORE-2",
    "closer": "END-1",
    "winners": "END-5",
    "dealer": "DEAL-2",
}


def fair_reasons(reason: str) -> list[str]:
    """``reason`` and every reason docs/reasons.md makes equally fair with it."""
    out = {reason}
    for family in FAIR_FAMILIES:
        if reason in family:
            out |= family
    return sorted(out)


def lay_off_fair_reasons(
    reason: str, action: Mapping[str, Any], state: Mapping[str, Any]
) -> list[str]:
    """The reasons fair with ``reason`` for ``action`` in ``state``, by the cards.

    docs/reasons.md splits a lay-off past an ace in two families: a joker, or the 2 above
    a high ace (the K below a low one), would continue the run round the corner
    (``beyond_ace``, ``run_wraps``); any other card is past the ace and fits nowhere
    either (``beyond_ace``, ``does_not_fit``). Elsewhere: :func:`fair_reasons`.
    """
    table = state.get("table") or []
    index = action.get("meld")
    if (
        action.get("type") != "lay_off"
        or reason not in ("beyond_ace", "does_not_fit", "run_wraps")
        or not isinstance(index, int)
        or not 0 <= index < len(table)
        or table[index].get("kind") != "run"
    ):
        return fair_reasons(reason)
    cards = list(table[index]["cards"])
    low = run_low(cards)
    naturals = [c for c in cards if c != JOKER]
    end = action.get("end")
    if low is None or not naturals:
        return fair_reasons(reason)
    high = low + len(cards) - 1
    if not ((end == "high" and high >= 14) or (end == "low" and low <= 1)):
        return fair_reasons(reason)
    suit = naturals[0][-1]
    wrap = run_card(2 if end == "high" else 13, suit)
    if action.get("card") in (JOKER, wrap):
        return ["beyond_ace", "run_wraps"]
    return ["beyond_ace", "does_not_fit"]


def same_fair_family(a: str | None, b: str | None) -> bool:
    """True when ``a`` and ``b`` are the same reason or in one fair family."""
    if a == b:
        return True
    if a is None or b is None:
        return False
    return b in fair_reasons(a)


def reference_rulings(decl: Declarations) -> tuple[dict[str, str], list[str]]:
    """The engine's declared rulings the reference can play (points and options the
    catalogue knows), and a warning for each it cannot (the profile's option is played)."""
    warnings = [f"{p}; the reference plays the profile's option there" for p in decl.problems]
    return dict(decl.declared), warnings


def answer_outcome(answer: Mapping[str, Any]) -> str:
    if answer.get("accepted"):
        return "accepted"
    reason = answer.get("reason")
    return f"rejected ({reason})" if reason else "rejected"


def field_of(what: str) -> str:
    """The top-level state field a compare_state mismatch is about."""
    head = what.split("[", 1)[0].split(".", 1)[0].split(" (", 1)[0]
    if head.startswith("number of "):
        head = head.removeprefix("number of ").removesuffix(" melds").removesuffix("s") + "s"
        head = {"tables": "table", "hands": "hands"}.get(head, head)
    return head


def expected_state(state: Mapping[str, Any], recycled: bool) -> dict[str, Any]:
    """The reference state as a state check, in the keys compare_state knows."""
    check: dict[str, Any] = {k: state[k] for k in EXACT_KEYS if k in state and k != "winners"}
    if isinstance(state.get("winners"), list) or "winners" in state:
        check["winners"] = state["winners"]
    check["hands"] = state["hands"]
    check["table"] = state["table"]
    check["discard"] = state["discard"]
    if recycled:
        # docs/protocol.md §6: a recycled stock's order is the engine's own.
        check["stock_cards"] = state["stock"]
    else:
        check["stock"] = state["stock"]
    return check


def new_game_check(state: Mapping[str, Any]) -> dict[str, Any]:
    """What a ``new_game`` state must show whatever the shuffle and the lot: the reference's
    counts, totals and phase, a dealer among the players and the next player to move."""
    players = int(state["players"])
    return {
        "players": players,
        "deal_number": state["deal_number"],
        "phase": state["phase"],
        "hand_sizes": [len(h) for h in state["hands"]],
        "stock_size": len(state["stock"]),
        "discard_size": len(state["discard"]),
        "opened": state["opened"],
        "table": state["table"],
        "totals": state["totals"],
        "dealer_in": list(range(players)),
        "turn_right_of_dealer": True,
    }


def canonical_state(state: Mapping[str, Any], runs_as_sets: bool) -> dict[str, Any]:
    out = strip_private(state)
    out.pop("profile", None)
    out["hands"] = [sorted(h) for h in out.get("hands", [])]
    out["table"] = [
        {**m, "cards": sorted(m["cards"])} if (m.get("kind") == "trio" or runs_as_sets) else m
        for m in out.get("table", [])
    ]
    return out


def same_reason(
    ref_reason: Any,
    eng_reason: Any,
    action: Mapping[str, Any] | None,
    before: Mapping[str, Any],
    *,
    by_cards: bool,
) -> bool:
    """Whether the engine's rejection reason is fair beside the reference's: by the
    cards for a lay-off at a named end (:func:`lay_off_fair_reasons`), else by family.
    An engine that picks ends itself may judge another end: families only."""
    if ref_reason == eng_reason:
        return True
    if not isinstance(ref_reason, str) or not isinstance(eng_reason, str):
        return False
    if action is not None and by_cards:
        return eng_reason in lay_off_fair_reasons(ref_reason, action, before)
    return same_fair_family(ref_reason, eng_reason)


def reason_rule(catalogue: Catalogue, reason: str | None, label: str) -> str:
    """The rule a divergence on ``label`` is filed under: its reason's rule, else the op's."""
    if reason and reason in catalogue.reasons:
        return catalogue.reasons[reason].rule
    return OP_RULES.get(label, "TURN-1")


def classify_state(
    label: str,
    found: list[Mismatch],
    ref_state: Mapping[str, Any],
    eng_state: Mapping[str, Any],
    *,
    kind: str,
    recycled: bool = False,
) -> Divergence:
    """The divergence of a state that differs in ``found``, filed under the rule of the
    field that differs, else of what happened (a cancel, a game end, a recycle), else the op's."""
    fields = sorted({field_of(m.what) for m in found})
    rule = next((FIELD_RULES[f] for f in fields if f in FIELD_RULES), None)
    if label == "new_game":
        # The pack (its size shows in the stock), the deal, the lot, the first turn.
        by_field = {"stock_size": "CARDS-1", "hand_sizes": "DEAL-3", "dealer": "DEAL-1"}
        rule = next((by_field[f] for f in fields if f in by_field), rule or "DEAL-5")
    if "phase" in fields and "game_over" in (ref_state.get("phase"), eng_state.get("phase")):
        rule = "END-4"  # whether the game ended comes before who won it (winners)
    if rule is None:
        if "phase" in fields and "cancelled" in (
            ref_state.get("phase"),
            eng_state.get("phase"),
        ):
            rule = "STOCK-2"
        elif "phase" in fields and "game_over" in (
            ref_state.get("phase"),
            eng_state.get("phase"),
        ):
            rule = "END-4"
        elif recycled:
            rule = "STOCK-1"
        elif label in ("start_deal", "next_deal", "redeal", "load_state") and fields == ["turn"]:
            rule = "DEAL-5"
        elif label == "discard" and "phase" in fields:
            rule = "END-1"
        elif "turn" in fields and len(fields) == 1:
            rule = "TURN-1"
        else:
            rule = OP_RULES.get(label, "TURN-1")
    return Divergence(
        rule, label, kind, "state differs in " + ", ".join(fields), [str(m) for m in found]
    )
