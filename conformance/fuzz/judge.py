"""How an engine's answer is judged beside the reference's: fair reasons, the state
check built from the reference's state, and the rule a divergence is filed under.

Pure functions of the answers and the declarations: no adapter is spoken to here (the
pair, :mod:`conformance.fuzz.pair`, puts the requests and calls these)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import replace
from typing import Any, Final

from conformance.adapter.declarations import DEAL_OPS, Declarations
from conformance.grading.compare import ENDED_PHASES, EXACT_KEYS, Mismatch, strip_private
from conformance.knowledge.cards import JOKER
from conformance.knowledge.catalogue import Catalogue
from conformance.knowledge.profiles import ProfileData

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
#: The piles of a fresh deal: a difference only there is the upcard's and the stock's
#: rule (DEAL-4), not the hands' (DEAL-3).
PILE_FIELDS: Final = frozenset({"stock", "stock_size", "stock_cards", "discard", "discard_size"})
#: The rule that turns the upcard (DEAL-4): a wild upcard is a disputed point (DISPUTE-09,
#: chilean DISPUTE-51 and CHILE-DEAL-7), which :func:`deciding_rules` adds.
UPCARD_RULE: Final = "DEAL-4"
#: The run-length rule: a run may reach 14 cards (MELD-RUN-4; pagat's PAGAT-RUN-4 stops
#: it at 13, DISPUTE-57). A 14-card run refused or accepted is filed under it.
RUN_LENGTH_RULE: Final = "MELD-RUN-4"
#: The disputed points that decide a divergence filed under these rules at a disputed
#: point (docs/rules.md): whether a joker or a 2 turned up stays, and how long a run gets.
DISPUTED_POINTS: Final[Mapping[str, tuple[str, ...]]] = {
    UPCARD_RULE: ("DISPUTE-09",),
    RUN_LENGTH_RULE: ("DISPUTE-57", "DISPUTE-77", "DISPUTE-12"),
    "STOCK-1": ("DISPUTE-18", "DISPUTE-75"),
}
#: A draw from an empty stock: what happens then is the recycle's rule (when, DISPUTE-18;
#: whether, DISPUTE-75: perla's PERLA-STOCK-1 ends the round), never the draw's (TURN-2).
EMPTY_STOCK_RULE: Final = "STOCK-1"
#: A lay-off of the natural card that would continue a run round the K-A corner (the 2
#: above a high ace, the K below a low one): the no-wrap rule, not the lay-off's fit.
WRAP_RULE: Final = "MELD-RUN-3"
#: Which cards are wild (CARDS-2; chilean CHILE-WILD-1 its 2s, perla PERLA-WILD-1 its red
#: aces): a natural wild card refused where the reference takes it is that rule's case.
WILD_RULE: Final = "CARDS-2"
#: Refusal reasons that, for a run of 14 cards, are the run-length rule at work.
LENGTH_REASONS: Final = frozenset({"run_size", "beyond_ace"})


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


def recycled_in(
    before: Mapping[str, Any], after: Mapping[str, Any], action: Mapping[str, Any] | None
) -> bool:
    """True when an accepted ``action`` turned the discard pile into a new stock.

    Only a recycle makes the stock grow within a turn (a draw from the stock takes one
    card), whenever a ruling of DISPUTE-18 makes it happen; a deal cancelled (STOCK-2) or
    ended by the empty stock (perla, DISPUTE-75) recycled nothing."""
    if action is None or after.get("phase") in ENDED_PHASES:
        return False
    drawn = 1 if action.get("type") == "draw_stock" else 0
    return len(after.get("stock") or ()) > len(before.get("stock") or ()) - drawn


def recycle_drawer(before: Mapping[str, Any], action: Mapping[str, Any] | None) -> int | None:
    """The player who drew from a stock recycled by ``action`` (None: nobody drew)."""
    if action is None or action.get("type") != "draw_stock" or before.get("stock"):
        return None  # a stock recycled after its last card was drawn: that card is known
    player = action.get("player")
    return player if isinstance(player, int) else None


def expected_state(
    state: Mapping[str, Any], *, recycled: bool = False, drawer: int | None = None
) -> dict[str, Any]:
    """The reference state as a state check, in the keys compare_state knows.

    After a recycle (docs/protocol.md §6) the new stock's order is the engine's own, so is
    the card ``drawer`` took from it: the stock is checked by its size, the drawer's hand
    by its size (:func:`pool_mismatches` checks which cards the two hold together), every
    other hand as it is.
    """
    check: dict[str, Any] = {k: state[k] for k in EXACT_KEYS if k in state and k != "winners"}
    if isinstance(state.get("winners"), list) or "winners" in state:
        check["winners"] = state["winners"]
    check["hands"] = state["hands"]
    check["table"] = state["table"]
    check["discard"] = state["discard"]
    if not recycled:
        check["stock"] = state["stock"]
        return check
    check["stock_size"] = len(state["stock"])
    if drawer is not None:
        check["hands"] = {p: h for p, h in enumerate(state["hands"]) if p != drawer}
        check["hand_sizes"] = [len(h) for h in state["hands"]]
    return check


def pool_mismatches(
    ref_after: Mapping[str, Any],
    eng_after: Mapping[str, Any],
    before: Mapping[str, Any],
    drawer: int,
) -> list[Mismatch]:
    """After a draw from a recycled stock: the drawer kept every card held before, and the
    drawer's hand and the stock together hold the reference's cards (the recycled pool)."""

    def pool(state: Mapping[str, Any]) -> Counter[str]:
        hands = state.get("hands") or []
        hand = hands[drawer] if 0 <= drawer < len(hands) else []
        return Counter([*hand, *(state.get("stock") or [])])

    out = []
    want, got = pool(ref_after), pool(eng_after)
    if want != got:
        missing = sorted((want - got).elements())
        extra = sorted((got - want).elements())
        out.append(
            Mismatch(
                f"hands[{drawer}] and stock (the recycled pool and the card drawn from it)",
                f"{sum(want.values())} cards",
                f"missing {missing}, unexpected {extra}",
            )
        )
    hands = eng_after.get("hands") or []
    held = Counter(hands[drawer] if 0 <= drawer < len(hands) else [])
    lost = Counter(before["hands"][drawer]) - held
    if lost:
        out.append(
            Mismatch(f"hands[{drawer}]", "the cards held before the draw", f"lost {sorted(lost)}")
        )
    return out


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
    """``state`` with what carries no meaning put in one order: hands and trios sorted, and
    runs too when the engine arranges them itself (``runs_as_sets``); no ``x``, no profile."""
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


def action_cards(request: Mapping[str, Any]) -> list[str]:
    """The cards an action or a melds query names (its melds', or its one card)."""
    melds = [request.get("meld"), *(request.get("melds") or [])]
    cards = [c for m in melds if isinstance(m, Mapping) for c in m.get("cards") or []]
    if isinstance(request.get("card"), str):
        cards.append(request["card"])
    if isinstance(request.get("cards"), list):
        cards += request["cards"]
    return [c for c in cards if isinstance(c, str)]


def wraps_corner(action: Mapping[str, Any], state: Mapping[str, Any]) -> bool:
    """True for a lay-off of the natural card that continues a run round the K-A corner:
    the 2 of its suit above a high ace, the K below a low one (a joker stands anywhere)."""
    table = state.get("table") or []
    index = action.get("meld")
    if action.get("type") != "lay_off" or not isinstance(index, int):
        return False
    if not 0 <= index < len(table) or table[index].get("kind") != "run":
        return False
    cards = list(table[index].get("cards") or [])
    low = run_low(cards)
    naturals = [c for c in cards if c != JOKER]
    if low is None or not naturals:
        return False
    suit = naturals[0][-1]
    if action.get("end") == "high" and low + len(cards) - 1 >= 14:
        return action.get("card") == run_card(2, suit)
    if action.get("end") == "low" and low <= 1:
        return action.get("card") == run_card(13, suit)
    return False


def action_rule(
    label: str,
    request: Mapping[str, Any],
    before: Mapping[str, Any],
    facts: ProfileData,
    *,
    reference_took: bool,
) -> str | None:
    """The rule an outcome divergence is filed under by what the action is, before any
    reason's rule: a draw from an empty stock (:data:`EMPTY_STOCK_RULE`), a lay-off round
    the K-A corner (:data:`WRAP_RULE`), and, where the reference took it
    (``reference_took``), an action or query holding a natural wild card (:data:`WILD_RULE`:
    a red ace in perla, a 2 in chilean); None for any other."""
    if label == "draw_stock" and before and not before.get("stock"):
        return EMPTY_STOCK_RULE
    if label == "lay_off" and wraps_corner(request, before):
        return WRAP_RULE
    if reference_took and any(c != JOKER and facts.is_wild(c) for c in action_cards(request)):
        return WILD_RULE
    return None


#: The kind of a reason divergence where both reasons are true of the state: which comes
#: first is not fixed by any rules text (docs/reasons.md, "several rules broken at once").
REASON_ORDER: Final = "reason order"


def repaired(
    state: Mapping[str, Any], reason: str, action: Mapping[str, Any]
) -> dict[str, Any] | None:
    """``state`` with the fault behind ``reason`` mended for ``action`` (its player to move,
    its draw made or not, its cards moved from the stock to the hand, its player opened or
    off the opening turn), so that the reference, asked again, names the next fault it
    finds; None for a fault this cannot mend. The reference's own ``x`` is kept, less what
    belonged to another player's turn."""
    out = dict(state)
    player = action.get("player")
    players = state.get("players")
    if not isinstance(player, int) or not isinstance(players, int) or not 0 <= player < players:
        return None
    if reason in ("not_your_turn", "buy_out_of_turn"):
        hidden = out.get("x")
        if isinstance(hidden, Mapping):
            out["x"] = {k: v for k, v in hidden.items() if k in ("seed", "drawn", "owed")}
        out.update(turn=player, turn_opened=False)
    elif reason == "draw_first" and state.get("phase") == "draw":
        out["phase"] = "play"
    elif reason == "already_drew" and state.get("phase") == "play":
        out["phase"] = "draw"
    elif reason == "opening_turn":
        out["turn_opened"] = False
    elif reason == "card_not_in_hand":
        hands = [list(h) for h in state.get("hands") or []]
        stock = list(state.get("stock") or [])
        need = Counter(action_cards(action)) - Counter(hands[player])
        for card in need.elements():
            if card not in stock:
                return None
            stock.remove(card)
            hands[player].append(card)
        out.update(hands=hands, stock=stock)
    else:
        return None
    return out


def reason_rule(catalogue: Catalogue, reason: str | None, label: str) -> str:
    """The rule a divergence on ``label`` is filed under: its reason's rule, else the op's."""
    if reason and reason in catalogue.reasons:
        return catalogue.reasons[reason].rule
    return OP_RULES.get(label, "TURN-1")


def deciding_rules(
    catalogue: Catalogue, facts: ProfileData, rule: str, disputed: bool
) -> tuple[str, ...]:
    """The rules that decide a divergence filed under ``rule`` (an Argentine ID), in the
    IDs ``facts``' profile states them under, the deciding rule first.

    ``disputed``: the divergence is at a disputed point (a wild upcard, a run's length), so
    the points of :data:`DISPUTED_POINTS` the profile rules on are named too, and a point
    another point decides there (``fixed: set by DISPUTE-51``) brings that point and its
    rule, which then comes first (a chilean wild upcard: CHILE-DEAL-7, DISPUTE-51).
    """
    own = facts.rule_id(rule)
    if not disputed:
        return (own,)
    first: list[str] = []
    rest: list[str] = [own]
    held = catalogue.rules_for(facts.name)
    ruled = catalogue.disputes_for(facts.name)
    for point_id in DISPUTED_POINTS.get(rule, ()):
        point = ruled.get(point_id)
        if point is None:
            continue
        rest.append(point.id)
        fixer = re.search(r"(?:DISPUTE|VARIANT)-[0-9]+", point.fixed.get(facts.name, ""))
        decider = catalogue.disputes.get(fixer.group(0)) if fixer else None
        if decider is not None:
            rest.append(decider.id)
            first += [r for r in decider.rules if r in held]
    return tuple(dict.fromkeys([*first, *rest]))


def filed(div: Divergence, facts: ProfileData, catalogue: Catalogue) -> Divergence:
    """``div`` citing the rules that decide it in ``facts``' profile, by the profile's own
    IDs (CHILE-SCORE-2, not SCORE-2), the deciding rule first (:func:`deciding_rules`)."""
    if div.rules:
        return div  # filed already
    rules = deciding_rules(catalogue, facts, div.rule, div.disputed)
    return replace(div, rule=rules[0], rules=rules)


def wild_upcard(state: Mapping[str, Any]) -> bool:
    """True when the pile's top card is a joker or a 2 (the upcard DISPUTE-09 is about)."""
    pile = state.get("discard") or []
    return bool(pile) and isinstance(pile[0], str) and (pile[0] == JOKER or pile[0][:-1] == "2")


def longest_run(op: str, request: Mapping[str, Any], before: Mapping[str, Any]) -> int:
    """The most cards a run laid, checked or extended by ``request`` would hold."""
    melds: list[Any] = []
    if op == "check_meld":
        melds = [request.get("meld")]
    elif op == "check_contract" or request.get("type") == "open":
        melds = list(request.get("melds") or [])
    elif request.get("type") == "lay_off":
        table = before.get("table") or []
        index = request.get("meld")
        if isinstance(index, int) and 0 <= index < len(table):
            meld = table[index]
            melds = [{"kind": meld.get("kind"), "cards": [*meld.get("cards", []), None]}]
    runs = [m for m in melds if isinstance(m, Mapping) and m.get("kind") == "run"]
    return max((len(m.get("cards") or []) for m in runs), default=0)


def length_decides(
    op: str, request: Mapping[str, Any], before: Mapping[str, Any], ref: Mapping[str, Any]
) -> bool:
    """True when the run-length rule decides the reference's answer: a run of exactly 14
    cards that it accepted, or refused for its size or for a card past an ace."""
    if longest_run(op, request, before) != 14:
        return False
    yes = ref.get("valid") if op in ("check_meld", "check_contract") else ref.get("accepted")
    return bool(yes) or ref.get("reason") in LENGTH_REASONS


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
    if rule is None and label in DEAL_OPS and set(fields) & PILE_FIELDS:
        if wild_upcard(ref_state) or wild_upcard(eng_state):
            # Whether a joker or a 2 turned up stays (DISPUTE-09): the upcard rule.
            summary = "state differs in " + ", ".join(fields)
            return Divergence(
                UPCARD_RULE, label, kind, summary, [str(m) for m in found], disputed=True
            )
        if set(fields) <= PILE_FIELDS:
            rule = UPCARD_RULE
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
    summary = "state differs in " + ", ".join(fields)
    shown = differing_values(fields, ref_state, eng_state)
    return Divergence(
        rule, label, kind, f"{summary} ({shown})" if shown else summary, [str(m) for m in found]
    )


#: Fields whose values name what an engine does (a phase, a seat), shown in a finding's
#: summary so that its key tells one behaviour from another.
_NAMED_VALUES = frozenset({"phase", "turn", "dealer", "deal_number", "closer", "winners"})


def differing_values(
    fields: list[str], ref_state: Mapping[str, Any], eng_state: Mapping[str, Any]
) -> str:
    """The values that differ, as a finding's key carries them: a deal's scores as the one
    rank whose count in each hand accounts for every difference (``deal_scores: JK
    counted -25``), else their direction; a phase or seat as both values. Empty when
    nothing more can be said than the field."""
    parts: list[str] = []
    for field in fields:
        want, got = ref_state.get(field), eng_state.get(field)
        if field == "deal_scores" and isinstance(want, list) and isinstance(got, list):
            parts.append(f"{field}: {_score_shift(want, got, ref_state.get('hands'))}")
        elif field in _NAMED_VALUES and want != got and not isinstance(want, (dict, list)):
            parts.append(f"{field}: {want} → {got}")
    return "; ".join(parts)


def _score_shift(want: list[Any], got: list[Any], hands: Any) -> str:
    if len(want) != len(got) or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in [*want, *got]
    ):
        return "other values"
    diffs: list[int] = [g - w for w, g in zip(want, got, strict=True)]
    if isinstance(hands, list) and len(hands) == len(diffs):
        counts = [Counter(JOKER if c == JOKER else str(c)[:-1] for c in h) for h in hands]
        fits = []
        for rank in sorted({r for c in counts for r in c}):
            steps = {d // c[rank] for d, c in zip(diffs, counts, strict=True) if c.get(rank)}
            if len(steps) != 1:
                continue
            step = steps.pop()
            if step and all(d == c.get(rank, 0) * step for d, c in zip(diffs, counts, strict=True)):
                fits.append(f"{rank} counted {step:+d}")
        if len(fits) == 1:
            return fits[0]
    signs = {(d > 0) - (d < 0) for d in diffs if d}
    if signs == {1}:
        return "higher"
    return "lower" if signs == {-1} else "other values"
