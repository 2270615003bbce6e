"""The state an accepted action leads to, where the protocol and the step make it plain.

When an engine refuses an action the case says it must accept, grading goes on from the
state the case expects after that step (docs/scenario-format.md, "Grading goes on after a
failed check"). The case rarely writes that whole state, so it is built here from the state
before and the action, by moving cards as the protocol describes them (docs/protocol.md
§5, §6); what the move alone does not tell is taken from the values the step itself gives
in full (``given``), and the result must then agree with every check of the step and hold
the whole pack (conformance.grading.answers). Built this way:

- a draw, a discard, an opening or a lay-off at the end the action names;
- a discard or a meld that empties the hand (the deal closes), and a draw from an empty
  stock (the deal cancelled, or the round over under DISPUTE-75 ``round_ends``): the phase,
  the scores or the totals (the winners after the last deal) only as the step gives them;
- a ``pass`` on the top discard, and a steal (``draw_discard`` out of turn under DISPUTE-29
  ``steal``: the card and 2 points, PERLA-STEAL-2);
- a joker replacement, from the whole table the step gives, else where the meld holds
  one wild card, standing for the card played, and the runs lie as the protocol lists
  them (``run_order``/``run_ends`` and DISPUTE-30 as the protocol reads them).

What no state field can say (a steal still open, the discard just taken, the melds added to
this turn, the first draw, penalties owed) is lost by any reload; the walk follows it from
the case's steps (:class:`Unseen`) and grades no step it bears on. Anything that recycles
the stock, or reads what the engine picks (a joker's declared card, an end the engine
chooses, a recycled order), is not built: grading then stops there.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from conformance.adapter.declarations import Declarations
from conformance.grading.compare import ENDED_PHASES
from conformance.knowledge.cards import RANKS

#: What a steal adds to the stealer's total at once (DISPUTE-29 ``steal``, PERLA-STEAL-2).
STEAL_POINTS = 2
#: What a deal's close sets that the move alone does not tell: the step must give each.
CLOSE_FIELDS = ("phase", "deal_scores", "totals")


def steals(declared: Declarations) -> bool:
    """True when the engine's rulings may let a player take the discard out of turn after
    the others pass (DISPUTE-29 ``steal``, or in Perla DISPUTE-64 ``after_passes``); an
    unknown option counts as allowing it, so that nothing it hides is ever graded."""
    if declared.ruling("DISPUTE-29") in (None, "steal"):
        return True
    return declared.profile == "perla" and declared.ruling("DISPUTE-64") in (None, "after_passes")


def moved(
    before: Mapping[str, Any],
    action: Mapping[str, Any],
    declared: Declarations,
    given: Mapping[str, Any] | None = None,
) -> dict[str, Any] | None:
    """The state after ``action`` is accepted in ``before``, ``given`` holding the values
    the step gives in full (state key: whole value); None when the move is not built here
    (see the module's docstring)."""
    given = given or {}
    kind = action.get("type")
    player = action.get("player")
    hands = before.get("hands")
    if not isinstance(player, int) or not isinstance(hands, list):
        return None
    if not 0 <= player < len(hands) or before.get("phase") in ENDED_PHASES:
        return None
    state = {k: (list(v) if isinstance(v, list) else v) for k, v in before.items() if k != "x"}
    state["hands"] = [list(h) for h in hands]
    if before.get("turn") != player:
        return _out_of_turn(state, kind, player, declared, given)
    if before.get("phase") != ("draw" if str(kind).startswith("draw") else "play"):
        return None
    hand = state["hands"][player]
    stock = list(before.get("stock") or ())
    if kind == "draw_stock":
        if not stock:
            return _stock_ran_out(state, declared, given)
        if len(stock) == 1 and _recycles(declared, "a"):
            return None  # the last stock card: the discards are recycled at once
        hand.append(stock.pop(0))
        state.update(stock=stock, phase="play")
        return state
    if kind == "draw_discard":
        discard = list(before.get("discard") or ())
        if not discard:
            return None
        hand.append(discard.pop(0))
        state.update(discard=discard, phase="play")
        return state
    if kind == "discard":
        card = action.get("card")
        if not stock and _recycles(declared, "c"):
            return None  # the next turn starts with the stock empty: a recycle
        if not _take(hand, [card]):
            return None
        state.update(
            discard=[card, *(before.get("discard") or ())],
            turn=(player + 1) % len(hands),
            phase="draw",
            turn_opened=False,
        )
    elif kind == "open":
        laid = _opening(action, player)
        if laid is None or not _take(hand, [c for m in laid for c in m["cards"]]):
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
    elif kind == "lay_off":
        table = _laid_off(before.get("table"), action, declared, given.get("table"))
        if table is None or not _take(hand, [action.get("card")]):
            return None
        state["table"] = table
    elif kind == "swap_joker":
        if not _swapped(state, hand, action, declared, given):
            return None
    else:
        return None
    return state if hand else _closed(state, player, declared, given)


def _recycles(declared: Declarations, when: str) -> bool:
    """True when the engine may recycle the discards into an empty stock at that moment
    (DISPUTE-18 option ``when``; an unknown option counts as yes), unless an empty stock
    ends the round (DISPUTE-75 ``round_ends``)."""
    if declared.ruling("DISPUTE-75") == "round_ends":
        return False
    return declared.ruling("DISPUTE-18") in (None, when)


def _stock_ran_out(
    state: dict[str, Any], declared: Declarations, given: Mapping[str, Any]
) -> dict[str, Any] | None:
    """A draw from an empty stock, where the step says what came of it: the deal void
    (``cancelled``, nothing recycled: no field but the phase changes, STOCK-2), or the
    round over with nobody out (DISPUTE-75 ``round_ends``: the scores only as the step
    gives them). A recycle is never built: the new stock's order is the engine's."""
    phase = given.get("phase")
    if phase == "cancelled":
        state["phase"] = phase
        return state
    if phase not in ("deal_over", "game_over"):
        return None
    ended = _ended(state, declared, given)
    if ended is not None:
        ended["closer"] = None
    return ended


def _out_of_turn(
    state: dict[str, Any],
    kind: Any,
    player: int,
    declared: Declarations,
    given: Mapping[str, Any],
) -> dict[str, Any] | None:
    """A ``pass`` or a steal by a player whose turn it is not, once the player to move has
    drawn (DISPUTE-29 ``steal``): a pass changes no field; a steal moves the top discard to
    the stealer's hand and puts its points on their total (the step's ``totals`` where it
    gives them)."""
    if not steals(declared) or state.get("phase") != "play":
        return None
    if kind == "pass":
        return state
    discard = list(state.get("discard") or ())
    totals = _numbers(state.get("totals"))
    if kind != "draw_discard" or not discard:
        return None
    if not _given(state, "totals", declared, given):
        if totals is None or not 0 <= player < len(totals):
            return None
        state["totals"] = [t + STEAL_POINTS * (i == player) for i, t in enumerate(totals)]
    state["hands"][player].append(discard.pop(0))
    state["discard"] = discard
    return state


def _closed(
    state: dict[str, Any], player: int, declared: Declarations, given: Mapping[str, Any]
) -> dict[str, Any] | None:
    """The deal ``player`` closed by emptying the hand: who closed and who would move next
    are the protocol's (docs/protocol.md §5); the rest as :func:`_ended`."""
    ended = _ended(state, declared, given)
    if ended is not None:
        ended.update(closer=player, turn=(player + 1) % len(state["hands"]))
    return ended


def _ended(
    state: dict[str, Any], declared: Declarations, given: Mapping[str, Any]
) -> dict[str, Any] | None:
    """``state`` with the deal over: the phase, the scores and the totals (and the winners
    once the game is over) only as the step gives them; None when it gives one not."""
    given = _scored(state, declared, given)
    if not all(_given(state, key, declared, given) for key in CLOSE_FIELDS):
        return None
    phase = state.get("phase")
    if phase not in ("deal_over", "game_over"):
        return None
    if phase == "game_over":
        if not _given(state, "winners", declared, given):
            return None
    else:
        state["winners"] = None
    state["turn_opened"] = False
    return state


def _scored(
    state: Mapping[str, Any], declared: Declarations, given: Mapping[str, Any]
) -> Mapping[str, Any]:
    """``given`` with the totals or the deal's scores, when the step gives only the other:
    at a close the totals grow by exactly the deal's scores (docs/protocol.md §5). Not for
    an engine that does not model either (its totals before say nothing)."""
    if not (declared.models("totals") and declared.models("deal_scores")):
        return given
    before = _numbers(state.get("totals"))
    scores, totals = _numbers(given.get("deal_scores")), _numbers(given.get("totals"))
    if before is None or (scores is None) == (totals is None):
        return given
    if scores is not None and len(scores) == len(before):
        return {**given, "totals": [t + s for t, s in zip(before, scores, strict=True)]}
    if totals is not None and len(totals) == len(before):
        return {**given, "deal_scores": [t - b for t, b in zip(totals, before, strict=True)]}
    return given


def _numbers(value: Any) -> list[int] | None:
    """``value`` as a list of whole numbers, or None when it is not one."""
    if isinstance(value, list) and all(type(v) is int for v in value):
        return value
    return None


def _given(
    state: dict[str, Any], key: str, declared: Declarations, given: Mapping[str, Any]
) -> bool:
    """Put the step's whole value of ``key`` in ``state``; True when it gives one, or the
    engine does not model the field (its value then holds whatever the state had)."""
    if key in given:
        state[key] = given[key]
        return True
    return not declared.models(key)


def _swapped(
    state: dict[str, Any],
    hand: list[Any],
    action: Mapping[str, Any],
    declared: Declarations,
    given: Mapping[str, Any],
) -> bool:
    """A joker replacement: ``card`` leaves the hand and takes the wild card's place; the
    wild card joins the hand (``to: hand``) or the end of the run named (``to: low/high``).
    From the whole table the step gives, whatever left the table joins the hand. False
    when the runs are the engine's to arrange, the wild card's place is not plain (the meld
    holds another card that may be wild, or none named ``wild``, JK by default; a run's
    jokers read as declared under DISPUTE-30 ``declared``; another meld as destination) or
    the tables do not account for the card."""
    card = action.get("card")
    if declared.runs_as_sets or not _take(hand, [card]):
        return False
    table = given.get("table")
    if isinstance(table, list):
        before = Counter(c for m in state.get("table") or () for c in m.get("cards") or ())
        after = Counter(c for m in table for c in m.get("cards") or ())
        before[card] += 1
        if after - before:
            return False  # a card on the table after that was neither there nor played
        hand.extend(sorted((before - after).elements()))
        state["table"] = [dict(m) for m in table]
        return True
    melds = state.get("table")
    index, to, wild = action.get("meld"), action.get("to"), action.get("wild", "JK")
    if not isinstance(melds, list) or not isinstance(index, int) or not 0 <= index < len(melds):
        return False
    meld = melds[index]
    cards = list(meld.get("cards") or ()) if isinstance(meld, Mapping) else []
    wilds = [i for i, c in enumerate(cards) if _may_be_wild(c, declared)]
    if len(wilds) != 1 or cards[wilds[0]] != wild or "to_meld" in action:
        return False  # which wild card the natural one replaces is the rules' to say
    if not _stands_for(cards, wilds[0], card, meld.get("kind")):
        return False
    cards[wilds[0]] = card
    if not _listed(declared):
        return False  # the engine may list the run otherwise
    if to == "hand":
        hand.append(wild)
    elif meld.get("kind") != "run" or to not in ("low", "high"):
        return False
    else:
        cards = [wild, *cards] if to == "low" else [*cards, wild]
    changed = [dict(m) for m in melds]
    changed[index] = {**meld, "cards": cards}
    state["table"] = changed
    return True


def _stands_for(cards: list[Any], i: int, card: Any, kind: Any) -> bool:
    """True when the wild card at ``cards[i]`` stands for ``card`` as the meld lies, every
    other card natural: in a trio, the trio's rank; in a run listed low to high, the rank
    after the card before it (or before the card after it) in the run's suit."""
    if not isinstance(card, str) or card[:-1] not in RANKS:
        return False
    rank, suit = card[:-1], card[-1]
    if kind == "trio":
        return all(str(c)[:-1] == rank for j, c in enumerate(cards) if j != i)
    if kind != "run":
        return False
    if i > 0:
        before = str(cards[i - 1])
        after = RANKS[(RANKS.index(before[:-1]) + 1) % len(RANKS)]
        return before[-1] == suit and after == rank
    if i + 1 < len(cards):
        nxt = str(cards[i + 1])
        return nxt[-1] == suit and RANKS[RANKS.index(nxt[:-1]) - 1] == rank
    return False


def _may_be_wild(card: Any, declared: Declarations) -> bool:
    """True when ``card`` is, or may be, wild in the engine's profile and rulings: a joker,
    a card of a wild rank (DISPUTE-25 ``wild``, Chile's 2s, even in its own place), a
    Perla red ace."""
    if card == "JK":
        return True
    if not isinstance(card, str):
        return True
    facts = declared.facts
    if facts is None or card[:-1] in facts.wild_ranks:
        return True
    return declared.profile == "perla" and card in ("AH", "AD")


def _listed(declared: Declarations) -> bool:
    """True when a run lies on the table as the protocol lists it: the end a lay-off or a
    replaced joker names is honoured (``run_ends: requested``) and a joker stands for the
    card of its place (DISPUTE-30 ``position``)."""
    return declared.run_ends == "requested" and declared.ruling("DISPUTE-30") in (None, "position")


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
    table: Any, action: Mapping[str, Any], declared: Declarations, whole: Any = None
) -> list[dict[str, Any]] | None:
    """The table with a lay-off's card added: the whole table the step gives (the pack
    check then holds it to the card), else the card at the end the action names; None when
    that end is the engine's to pick (``run_ends: engine``), a run's jokers may stand for
    another card than their place says (DISPUTE-30 ``declared``: a refused lay-off is tried
    again with the run listed otherwise), or the meld is not there."""
    index = action.get("meld")
    if not isinstance(table, list) or not isinstance(index, int) or not 0 <= index < len(table):
        return None
    if isinstance(whole, list) and not declared.runs_as_sets:
        return [dict(m) for m in whole]
    meld = table[index]
    if not isinstance(meld, Mapping) or not isinstance(meld.get("cards"), list):
        return None
    cards = list(meld["cards"])
    card = action.get("card")
    if meld.get("kind") == "trio":
        cards.append(card)
    elif not _listed(declared) or action.get("end") not in ("low", "high"):
        return None
    else:
        cards = [card, *cards] if action["end"] == "low" else [*cards, card]
    changed = [dict(m) for m in table]
    changed[index] = {**meld, "cards": cards}
    return changed


# -- what no state field says -------------------------------------------------------------


@dataclass
class Unseen:
    """What the case's own line of play holds that no state field says, and so no reload
    carries (docs/protocol.md §5: the engine's ``x`` is never sent back).

    Followed step by step as the case expects them to go (:meth:`played`), each fact is
    lost when the engine is put on a state (:meth:`reloaded`); a step a lost fact bears on
    is not graded (:meth:`bears_on`), and a reload is refused outright while penalties are
    owed (their points are in every later close). The facts, each under the rulings that
    read it:

    - ``steal``: a chance to steal the top discard, from a stock draw to the next discard
      or steal (DISPUTE-29 ``steal``); bears on a ``pass`` and a ``draw_discard`` out of turn;
    - ``taken``: the player to move took the top discard this turn (DISPUTE-19: may it be
      thrown back; DISPUTE-06: may they open); bears on their discard and their opening;
    - ``added``: the melds added to this turn (DISPUTE-34 ``no``); bears on a lay-off and
      a joker replacement;
    - ``drawn``: someone has drawn in this deal (DEAL-6); bears on a ``redeal``;
    - ``owed``: penalties for refused actions, paid at the close (DISPUTE-35 ``penalty``).
    """

    declared: Declarations
    live: set[str] = field(default_factory=set)
    lost: set[str] = field(default_factory=set)

    def played(
        self, kind: str, action: Mapping[str, Any] | None, accepted: bool, turn: Any
    ) -> None:
        """Follow one step as the case expects it: ``kind`` (``action`` or a deal op),
        accepted or refused, ``turn`` being the player to move before it."""
        if kind != "action" or action is None:
            if accepted:  # a new deal: nothing of the last one carries over
                self._end({"steal", "taken", "added", "drawn", "owed"})
            return
        if not accepted:
            if self.declared.ruling("DISPUTE-35") not in (None, "no_change"):
                self.live.add("owed")
            return
        move = action.get("type")
        mine = action.get("player") == turn
        if move == "draw_stock":
            self.live.add("drawn")
            if steals(self.declared):
                self.live.add("steal")
        elif move == "draw_discard":
            self.live.add("drawn")
            self._end({"steal"})
            if mine:
                self.live.add("taken")
        elif move in ("lay_off", "swap_joker"):
            self.live.add("added")
        elif move == "discard":
            self._end({"steal", "taken", "added"})

    def reloaded(self) -> str | None:
        """The engine was put on a state: every live fact is lost. Why no reload can stand
        (penalties owed), or None."""
        self.lost |= self.live
        if "owed" in self.lost:
            return (
                "penalties owed for refused actions (DISPUTE-35 penalty) are in no state "
                "field, so no state to go on from holds them"
            )
        return None

    def bears_on(
        self, kind: str, action: Mapping[str, Any] | None, before: Mapping[str, Any]
    ) -> str | None:
        """Why a lost fact bears on this step, played from ``before`` (it is then not
        graded), or None. Once the deal is over none does: every action is refused."""
        turn = before.get("turn")
        if before.get("phase") in ENDED_PHASES:
            return None
        if kind == "redeal" and "drawn" in self.lost:
            return "whether anyone has drawn this deal (DEAL-6)"
        if kind != "action" or action is None or not self.lost:
            return None
        move = action.get("type")
        mine = action.get("player") == turn
        ruling = self.declared.ruling
        if "steal" in self.lost and (move == "pass" or (move == "draw_discard" and not mine)):
            return "who may still take the top discard (DISPUTE-29 steal)"
        if "taken" in self.lost and mine:
            if move == "discard" and ruling("DISPUTE-19") != "allowed":
                return "which card the player took from the discard pile (DISPUTE-19)"
            if move == "open" and ruling("DISPUTE-06") != "yes":
                return "that the player took the top discard this turn (DISPUTE-06)"
        added = "added" in self.lost and ruling("DISPUTE-34") != "yes"
        if added and move in ("lay_off", "swap_joker"):
            return "which melds were added to this turn (DISPUTE-34)"
        return None

    def _end(self, facts: set[str]) -> None:
        self.live -= facts
        self.lost -= facts
