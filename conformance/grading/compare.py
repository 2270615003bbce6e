"""Comparing an engine's answers with what a scenario asserts, and showing the difference.

Only the keys a scenario names are compared (docs/scenario-format.md, "Expectations").
Hands, trios and recycled stocks are multisets; runs and piles are ordered.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from conformance.knowledge.cards import RANKS

_SUIT_GLYPHS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}

EXACT_KEYS = (
    "players",
    "deal_number",
    "dealer",
    "turn",
    "phase",
    "opened",
    "turn_opened",
    "totals",
    "deal_scores",
    "closer",
    "winners",
)


@dataclass(frozen=True)
class Mismatch:
    """One asserted value that the engine did not match."""

    what: str
    expected: str
    actual: str

    def __str__(self) -> str:
        return f"{self.what}: expected {self.expected}, got {self.actual}"


def glyph(card: Any) -> str:
    """Show a card code as people read it: ``10H`` → ``10♥``, ``JK`` stays ``JK``."""
    if not isinstance(card, str):
        return repr(card)
    if card == "JK":
        return "JK"
    suit = _SUIT_GLYPHS.get(card[-1:])
    if suit is None or card[:-1] not in RANKS:
        return repr(card)
    return card[:-1] + suit


def _sort_key(card: Any) -> tuple[int, int]:
    if not isinstance(card, str) or card == "JK":
        return (9, 0)
    suit = "SHDC".find(card[-1:])
    rank = RANKS.index(card[:-1]) if card[:-1] in RANKS else 99
    return (suit if suit >= 0 else 8, rank)


def show_cards(cards: Iterable[Any], *, ordered: bool = True) -> str:
    """Render a list of cards; multisets are sorted so two renderings line up."""
    items = list(cards)
    if not ordered:
        items.sort(key=_sort_key)
    return "[" + " ".join(glyph(c) for c in items) + "]"


def _multiset_diff(expected: Sequence[Any], actual: Sequence[Any]) -> str:
    exp, act = Counter(expected), Counter(actual)
    missing = sorted((exp - act).elements(), key=_sort_key)
    extra = sorted((act - exp).elements(), key=_sort_key)
    parts = []
    if missing:
        parts.append("missing " + show_cards(missing))
    if extra:
        parts.append("unexpected " + show_cards(extra))
    return "; ".join(parts)


def _show(value: Any) -> str:
    if isinstance(value, list) and all(isinstance(v, str) for v in value) and value:
        looks_like_cards = all(glyph(v) != repr(v) for v in value)
        if looks_like_cards:
            return show_cards(value)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    return repr(value)


def _as_list(value: Any) -> list[Any]:
    # Read only by the comparisons: a list is used as it is, without a copy.
    if isinstance(value, list):
        return value
    return list(value) if isinstance(value, tuple) else []


def _same_multiset(exp: list[Any], act: list[Any]) -> bool:
    """Whether two lists hold the same items as many times each (in any order)."""
    if len(exp) != len(act):
        return False
    try:
        # Card codes sort: two sorts and a comparison in C, cheaper than two Counters.
        return sorted(exp) == sorted(act)
    except TypeError:  # items that do not order with each other (a card and a number)
        return Counter(exp) == Counter(act)


def _compare_multiset(what: str, expected: Any, actual: Any, out: list[Mismatch]) -> None:
    exp, act = _as_list(expected), _as_list(actual)
    # Equal lists are equal multisets: the common case needs no counting.
    if exp != act and not _same_multiset(exp, act):
        detail = _multiset_diff(exp, act)
        out.append(
            Mismatch(
                what,
                show_cards(exp, ordered=False),
                f"{show_cards(act, ordered=False)} ({detail})",
            )
        )


def _compare_meld(
    what: str,
    expected: Mapping[str, Any],
    actual: Any,
    out: list[Mismatch],
    *,
    runs_as_sets: bool = False,
) -> None:
    if not isinstance(actual, Mapping):
        out.append(Mismatch(what, _show_meld(expected), "no such meld"))
        return
    for key in ("kind", "owner"):
        if key in expected and expected[key] != actual.get(key):
            out.append(Mismatch(f"{what}.{key}", _show(expected[key]), _show(actual.get(key))))
    if "cards" not in expected:
        return
    if expected.get("kind", actual.get("kind")) == "trio" or runs_as_sets:
        # A run arranged by the engine itself: which cards it holds, not where they stand.
        _compare_multiset(f"{what}.cards", expected["cards"], actual.get("cards"), out)
    elif list(expected["cards"]) != _as_list(actual.get("cards")):
        out.append(
            Mismatch(
                f"{what}.cards",
                show_cards(expected["cards"]),
                show_cards(_as_list(actual.get("cards"))),
            )
        )


def _show_meld(meld: Mapping[str, Any]) -> str:
    owner = f" of player {meld['owner']}" if "owner" in meld else ""
    return f"{meld.get('kind', 'meld')}{owner} {show_cards(_as_list(meld.get('cards')))}"


#: Phases in which no one is to move; ``turn`` is then not compared.
ENDED_PHASES = frozenset({"deal_over", "cancelled", "game_over"})


#: Check keys that read a state field: an engine that does not model the field skips them too.
DERIVED_KEYS: Mapping[str, str] = {"dealer_in": "dealer", "turn_right_of_dealer": "dealer"}


def compare_state(
    expected: Mapping[str, Any],
    actual: Mapping[str, Any],
    *,
    unmodelled: frozenset[str] = frozenset(),
    runs_as_sets: bool = False,
) -> list[Mismatch]:
    """Compare the keys of a state check (``state:`` / ``final:``) with an engine state.

    ``unmodelled``: state fields the engine declared it does not model (docs/protocol.md
    §2); checks of exactly those are skipped. ``runs_as_sets``: the engine arranges runs
    itself (``run_order``/``run_ends`` ``engine``), so table runs compare as multisets.
    """
    out: list[Mismatch] = []
    hands = _as_list(actual.get("hands"))
    stock = _as_list(actual.get("stock"))
    discard = _as_list(actual.get("discard"))
    for key, want in expected.items():
        if key in unmodelled or DERIVED_KEYS.get(key) in unmodelled:
            continue
        if key == "turn" and actual.get("phase") in ENDED_PHASES:
            # docs/protocol.md §5: once a deal has ended, whose turn it "is" means nothing.
            continue
        if key == "winners" and isinstance(want, list) and isinstance(actual.get(key), list):
            # A set of players: the order an engine lists them in carries no meaning.
            if sorted(want) != sorted(actual[key]):
                out.append(Mismatch(key, _show(sorted(want)), _show(sorted(actual[key]))))
        elif key in EXACT_KEYS:
            got = actual.get(key)
            if want != got:
                out.append(Mismatch(key, _show(want), _show(got)))
        elif key == "hands":
            selected = (
                {int(k): v for k, v in want.items()}
                if isinstance(want, Mapping)
                else dict(enumerate(want))
            )
            if not isinstance(want, Mapping) and len(want) != len(hands):
                out.append(Mismatch("number of hands", str(len(want)), str(len(hands))))
            for player, cards in sorted(selected.items()):
                got_hand = hands[player] if 0 <= player < len(hands) else None
                if got_hand is None:
                    out.append(Mismatch(f"hands[{player}]", show_cards(cards), "no such player"))
                else:
                    _compare_multiset(f"hands[{player}]", cards, got_hand, out)
        elif key == "hand_sizes":
            got_sizes = [len(h) for h in hands]
            if list(want) != got_sizes:
                out.append(Mismatch("hand_sizes", _show(list(want)), _show(got_sizes)))
        elif key == "table":
            table = _as_list(actual.get("table"))
            if len(want) != len(table):
                out.append(Mismatch("number of table melds", str(len(want)), str(len(table))))
            for i, meld in enumerate(want):
                got_meld = table[i] if i < len(table) else None
                _compare_meld(f"table[{i}]", meld, got_meld, out, runs_as_sets=runs_as_sets)
        elif key in ("stock", "discard"):
            got_pile = stock if key == "stock" else discard
            if list(want) != got_pile:
                out.append(Mismatch(key, show_cards(want), show_cards(got_pile)))
        elif key in ("stock_top", "discard_top"):
            pile = stock if key == "stock_top" else discard
            if key == "stock_top":
                prefix = pile[: len(want)]
                if list(want) != prefix:
                    out.append(Mismatch(key, show_cards(want), show_cards(prefix)))
            else:
                top = pile[0] if pile else None
                if want != top:
                    out.append(
                        Mismatch(
                            key,
                            glyph(want) if want else "empty pile",
                            glyph(top) if top else "empty pile",
                        )
                    )
        elif key in ("stock_size", "discard_size"):
            size = len(stock if key == "stock_size" else discard)
            if want != size:
                out.append(Mismatch(key, str(want), str(size)))
        elif key == "stock_cards":
            _compare_multiset("stock_cards", want, stock, out)
        elif key == "dealer_in":
            # For a dealer drawn by lot (new_game): any of these players will do.
            if actual.get("dealer") not in list(want):
                out.append(
                    Mismatch("dealer", f"one of {_show(list(want))}", _show(actual.get("dealer")))
                )
        elif key == "turn_right_of_dealer":
            # DEAL-5 when the dealer is not known in advance: the dealer's right-hand
            # neighbour (index + 1) moves first.
            dealer, players = actual.get("dealer"), actual.get("players")
            expected_turn = (
                (dealer + 1) % players
                if isinstance(dealer, int) and isinstance(players, int) and players
                else None
            )
            if bool(want) != (actual.get("turn") == expected_turn):
                out.append(
                    Mismatch(
                        "turn",
                        f"the dealer's right-hand neighbour ({_show(expected_turn)})",
                        _show(actual.get("turn")),
                    )
                )
        else:
            out.append(Mismatch(key, _show(want), "(the harness does not know this key)"))
    return out


def _reasons(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    return [str(v) for v in _as_list(value)]


def compare_outcome(expect: Any, response: Mapping[str, Any], *, reasons: bool) -> list[Mismatch]:
    """Compare a step's ``expect`` (accepted / rejected / {rejected: R}) with an answer.

    Reasons are compared only when the engine claims the ``reasons`` capability.
    """
    if expect is None:
        return []
    accepted = response.get("accepted")
    got = "accepted" if accepted else "rejected"
    reason = response.get("reason")
    if not accepted and reason:
        got = f"rejected ({reason})"
    message = engine_message(response)
    if not accepted and message:
        got += f", engine says: {message}"
    if expect == "accepted":
        return [] if accepted is True else [Mismatch("outcome", "accepted", got)]
    want_reasons: list[str] = []
    if isinstance(expect, Mapping):
        want_reasons = _reasons(expect.get("rejected"))
    shown = "rejected" + (f" ({' or '.join(want_reasons)})" if want_reasons else "")
    if accepted is not False:
        return [Mismatch("outcome", shown, got)]
    if reasons and want_reasons and reason not in want_reasons:
        shown_reason = str(reason) + (f", engine says: {message}" if message else "")
        return [Mismatch("reason", " or ".join(want_reasons), shown_reason)]
    return []


#: Longest engine message kept (characters); the rest is cut and marked with "…".
MAX_ENGINE_MESSAGE = 200


def engine_message(response: Mapping[str, Any]) -> str | None:
    """The engine's optional own words on a rejection (``message``), cut to a bounded length."""
    message = response.get("message")
    if not isinstance(message, str) or not message.strip():
        return None
    message = " ".join(message.split())
    if len(message) > MAX_ENGINE_MESSAGE:
        message = message[: MAX_ENGINE_MESSAGE - 1] + "…"
    return message


def compare_check(
    expect: Mapping[str, Any], response: Mapping[str, Any], *, reasons: bool
) -> list[Mismatch]:
    """Compare a melds-level ``expect`` ({valid, reason} or {points}) with an answer."""
    out: list[Mismatch] = []
    if "valid" in expect and response.get("valid") != expect["valid"]:
        out.append(Mismatch("valid", _show(expect["valid"]), _show(response.get("valid"))))
    if "points" in expect and response.get("points") != expect["points"]:
        out.append(Mismatch("points", _show(expect["points"]), _show(response.get("points"))))
    if (
        reasons
        and "reason" in expect
        and not out
        and response.get("valid") is False
        and response.get("reason") not in _reasons(expect["reason"])
    ):
        out.append(
            Mismatch("reason", " or ".join(_reasons(expect["reason"])), str(response.get("reason")))
        )
    message = engine_message(response)
    if out and message and response.get("valid") is False:
        out = [replace(m, actual=f"{m.actual}, engine says: {message}") for m in out]
    return out


def strip_private(state: Mapping[str, Any]) -> dict[str, Any]:
    """Drop the engine's own ``x`` field, which the harness ignores."""
    return {k: v for k, v in state.items() if k != "x"}


def compare_unchanged(
    before: Mapping[str, Any], after: Mapping[str, Any], *, unmodelled: frozenset[str] = frozenset()
) -> list[Mismatch]:
    """After a rejection the state must equal the state before it (docs/protocol.md §6).

    Fields in ``unmodelled`` (declared by the engine as not modelled) are not compared.
    """
    a, b = strip_private(before), strip_private(after)
    if a == b:
        return []  # the common case, whatever the engine models
    for field_name in unmodelled:
        a.pop(field_name, None)
        b.pop(field_name, None)
    # Hands are multisets: an engine may keep them in any order.
    for state in (a, b):
        if isinstance(state.get("hands"), list):
            state["hands"] = [sorted(h, key=_sort_key) for h in state["hands"]]
    out: list[Mismatch] = []
    for key in sorted(set(a) | set(b)):
        if a.get(key) != b.get(key):
            out.append(
                Mismatch(
                    f"{key} (a rejected action must leave the state unchanged)",
                    _show(a.get(key)),
                    _show(b.get(key)),
                )
            )
    return out


def format_mismatches(mismatches: Sequence[Mismatch], indent: str = "  ") -> str:
    """A readable, line-per-mismatch diff."""
    lines = []
    for m in mismatches:
        lines.append(f"{indent}{m.what}:")
        lines.append(f"{indent}  expected {m.expected}")
        lines.append(f"{indent}  actual   {m.actual}")
    return "\n".join(lines)


def dealt_from(state: Mapping[str, Any], deck: Any) -> int | None:
    """The seat ``state``'s hands were dealt from, one card at a time from the top of
    ``deck`` (docs/protocol.md §7): the player who got its first card; None when no seat
    gives these hands (or no deck is known)."""
    hands = state.get("hands")
    if not isinstance(hands, list) or not hands or not isinstance(deck, list):
        return None
    players = len(hands)
    sizes = {len(h) for h in hands if isinstance(h, list)}
    if len(sizes) != 1:
        return None
    (size,) = sizes
    dealt = [sorted(map(str, deck[i : players * size : players])) for i in range(players)]
    held = [sorted(map(str, h)) for h in hands]
    for seat in range(players):
        if all(held[(seat + i) % players] == dealt[i] for i in range(players)):
            return seat
    return None


def seated_for(
    state: Mapping[str, Any], first: int, source: int, totals_before: Any = None
) -> dict[str, Any] | None:
    """A freshly dealt ``state`` read as dealt from ``first``, who moves first: None when
    it already is.

    An engine that keeps no dealer starts a deal with a player of its own choosing, and may
    deal the first card to that player rather than to the dealer's right-hand neighbour
    (docs/protocol.md §2). ``source`` is the seat it dealt the first card to
    (:func:`dealt_from`): every hand moves back by the seats between ``source`` and
    ``first``, and what the deal itself changed in the totals (perla's perfect cut) moves
    with them from ``totals_before``; the totals themselves stay with their seats, and a
    fresh deal has no table and nobody opened. ``run`` and ``fuzz`` both read such an
    engine's deals through this one function.
    """
    hands = state.get("hands")
    if state.get("phase") != "draw" or not isinstance(hands, list) or not hands:
        return None
    players = len(hands)
    shift = (source - first) % players
    if shift == 0 and state.get("turn") == first:
        return None
    seated = {
        **state,
        "hands": [hands[(p + shift) % players] for p in range(players)],
        "turn": first,
    }
    after = state.get("totals")
    if shift and _seat_numbers(totals_before, players) and _seat_numbers(after, players):
        assert isinstance(totals_before, list) and isinstance(after, list)
        seated["totals"] = [
            totals_before[p] + after[(p + shift) % players] - totals_before[(p + shift) % players]
            for p in range(players)
        ]
    return seated


def _seat_numbers(value: Any, players: int) -> bool:
    """True when ``value`` is a list of one integer per seat."""
    return (
        isinstance(value, list)
        and len(value) == players
        and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    )
