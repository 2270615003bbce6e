"""What the engine did differently, in the rules' terms: the key one cause is grouped by.

A failing check shows a *behaviour*: the engine refused what the rules accept (with its
reason), accepted what the rules refuse (for the reasons the rules give), answered a state
field with other values (a phase, a seat, a number higher or lower, other cards), or
counted scores another way. Two checks of one behaviour are one cause whatever the cases'
rule lists, ops and numbers: a wrong acceptance is one behaviour across ``open``,
``lay_off`` and a ``check_meld`` query alike when the rules refuse them for the same
reason. :func:`behaviour` gives a failing check's; :func:`related` says when two
behaviours are one (acceptances whose refusal reasons overlap: the rules refuse a
K-A-2 run as ``run_wraps`` here and as ``run_wraps or beyond_ace`` there).
:func:`asked` says what a case asked, for the line a cause is printed as.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from conformance.grading.compare import glyph
from conformance.grading.results import CheckResult
from conformance.reports.symptoms import ORDER_ONLY, direction, is_score, symptom

_REJECTED = re.compile(r"^(?P<op>[a-z_]+): expected accepted, got rejected \((?P<r>[a-z_]+)\)")
_ACCEPTED = re.compile(r"^(?P<op>[a-z_]+): expected rejected(?: \((?P<r>[^)]*)\))?, got accepted")
_REASON = re.compile(r"^reason: expected (?P<e>.+), got (?P<g>[a-z_]+)$")
_VALID_NOT = re.compile(r"^valid: expected true, got false(?: \((?P<r>[a-z_]+)\))?$")
_VALID_YES = re.compile(r"^valid: expected false(?: \((?P<r>[^)]*)\))?, got true$")
_STATE_REFUSED = re.compile(r"^(?P<op>[a-z_]+): the engine refuses a state the case sets up")
_TRAILING_REASON = re.compile(r":\s*(?P<r>[a-z_]{3,40})\s*$")
_ENUM = re.compile(r"^(?P<f>[a-z_]+): expected (?P<e>[a-z_]+), got (?P<g>[a-z_]+)$")
#: State fields that name whose turn it is or who deals, and the reasons that say a player
#: may not act now: one behaviour, *whose turn it is*, whichever way round.
_SEATS = frozenset({"turn", "dealer", "turn_right_of_dealer"})
_SEAT_REASONS = frozenset({"not_your_turn", "buy_out_of_turn"})
#: State fields that say which cards are where, and the reason that says a card is not
#: held: one behaviour, *the cards dealt or drawn*, whichever field shows it.
_HOLDINGS = frozenset(
    {"hands", "hand_sizes", "stock", "stock_top", "stock_size", "discard", "discard_top"}
)
_HOLDING_REASONS = frozenset({"card_not_in_hand"})
#: The family keys.
SEATS: tuple[object, ...] = ("seats",)
HOLDINGS: tuple[object, ...] = ("holdings",)
_FAMILY_WORDS = {
    SEATS: "whose turn it is or who deals differs from the rules",
    HOLDINGS: "the cards dealt, drawn or held differ from the rules",
}


@dataclass(frozen=True)
class Behaviour:
    """What one failing check shows the engine doing, as a key and in words."""

    #: The grouping key: ``("refuses", reason)``, ``("accepts", reasons…)``,
    #: ``("field", field, change)``, ``("score", direction)``, …
    key: tuple[object, ...]
    #: What the engine did, in words (the cause's line, before its example).
    words: str
    #: The op or field the check looked at (``lay_off``, ``check_meld``, ``phase``).
    where: str
    #: Another behaviour the check shows as well: a refusal for another reason than the
    #: rules' is the engine seeing its reason where there is none, or missing the rules'.
    also: tuple[object, ...] | None = None


def _reasons(text: str | None) -> tuple[str, ...]:
    if not text:
        return ()
    return tuple(sorted({r.strip() for r in text.split(" or ") if r.strip()}))


def refused_op(check: CheckResult) -> str | None:
    """The op whose state or deal the engine refused, when ``check`` fails for that (the
    failure is the setup's, whichever check of the case carries it), else None."""
    found = _STATE_REFUSED.match(check.signature or "")
    return found["op"] if found is not None else None


def behaviour(check: CheckResult, op: str | None = None) -> Behaviour:
    """The behaviour a failing check shows (``op``: the case's op at that check, when the
    check's signature does not name it, as a melds query's): its own, or its family's
    (whose turn it is; the cards held), which one fault shows in many fields and
    refusals at once."""
    own = _behaviour(check, op)
    key = family(own.key)
    also = family(own.also) if own.also is not None else None
    words = _FAMILY_WORDS.get(key, own.words)
    return Behaviour(key, words, own.where, also if also != key else None)


def family(key: tuple[object, ...]) -> tuple[object, ...]:
    """The family of behaviour ``key`` (whose turn it is, the cards held), or itself."""
    if key[0] == "seat" or (key[0] in ("refuses", "accepts") and set(key[1:]) & _SEAT_REASONS):
        return SEATS
    if (key[0] in ("cards", "field") and len(key) > 1 and key[1] in _HOLDINGS) or (
        key[0] in ("refuses", "accepts") and set(key[1:]) & _HOLDING_REASONS
    ):
        return HOLDINGS
    return key


def _behaviour(check: CheckResult, op: str | None = None) -> Behaviour:
    sig = check.signature or check.what
    where = op or check.what
    if is_score(check) or op == "penalty":
        way = direction(sig) or "other"
        said = {"lower": "lower than the rules count", "higher": "higher than the rules count"}
        return Behaviour(("score", way), f"scores {said.get(way, 'differ')}", "scores")
    found = _STATE_REFUSED.match(sig)
    if found is not None:
        reason = _TRAILING_REASON.search(check.note or "")
        if reason is not None:
            r = reason["r"]
            words = f"refuses with {r} what the rules accept (a state the case sets up)"
            return Behaviour(("refuses", r), words, found["op"])
        words = "refuses a legal state the case sets up"
        return Behaviour(("refuses-state",), words, found["op"])
    found = _REJECTED.match(sig)
    if found is not None:
        r = found["r"]
        return Behaviour(("refuses", r), f"refuses with {r} what the rules accept", found["op"])
    found = _REASON.match(sig)
    if found is not None:
        r = found["g"]
        missed = _reasons(found["e"])
        return Behaviour(
            ("refuses", r),
            f"refuses with {r} what the rules accept or refuse otherwise",
            where,
            ("accepts", *missed) if missed else None,
        )
    found = _VALID_NOT.match(sig)
    if found is not None:
        r = found["r"]
        if r:
            return Behaviour(("refuses", r), f"refuses with {r} what the rules accept", where)
        return Behaviour(("refuses-op", where), "refuses what the rules accept", where)
    found = _ACCEPTED.match(sig) or _VALID_YES.match(sig)
    if found is not None:
        reasons = _reasons(found["r"])
        name = found.groupdict().get("op") or where
        why = " or ".join(reasons)
        words = "accepts what the rules refuse" + (f" ({why})" if why else "")
        return Behaviour(("accepts", *reasons) if reasons else ("accepts-op", name), words, name)
    if check.what in ("accepted", "reason"):
        return Behaviour(("verdict", sig), sig, where)
    if check.what == "invariants":
        # One breach of the pack's invariants is one behaviour whichever card it lost or
        # doubled: the card stays in the line's example, not in the key.
        kind = _invariant_kind(sig)
        return Behaviour(("invariants", kind), f"state: {kind}", where)
    field = sig.split(":", 1)[0].split("[", 1)[0].split(".", 1)[0].strip() or check.what
    if check.what in _SEATS or field in _SEATS:
        seat = "turn" if "turn" in field else field
        return Behaviour(("seat", seat), f"{seat}: another seat than the rules give", seat)
    found = _ENUM.match(sig)
    if found is not None:
        f, e, g = found["f"], found["e"], found["g"]
        return Behaviour(("field", f, e), f"{f}: {e} → {g}", f)
    key, words = symptom(check)
    if key[0] == "cards":
        change = str(key[2])
        if key == ORDER_ONLY:
            return Behaviour(key, words, str(key[1]))
        return Behaviour(("cards", key[1], change), words, str(key[1]))
    if key[0] == "field" and len(key) == 3:
        return Behaviour(key, words, str(key[1]))
    if key[0] == "unchanged":
        return Behaviour(key, words, str(key[1]))
    return Behaviour(("field", check.what, sig), sig, check.what)


#: What an invariants check's difference says, by the words that name the breach (the
#: sentences of conformance.grading.invariants, without their cards and counts).
_INVARIANT_KINDS = (
    ("of the pack missing", "cards of the pack missing"),
    ("copies of", "more copies of a card than the pack has"),
    ("hands for", "another number of hands than of players"),
    ("other than card codes", "something other than card codes"),
    ("no list of hands", "no list of hands"),
)


def _invariant_kind(sig: str) -> str:
    found = [kind for words, kind in _INVARIANT_KINDS if words in sig]
    return " and ".join(found) if found else re.sub(r"\d+|\([^)]*\)", "…", sig)


#: Reasons that name one thing two ways: a run past an ace turns the corner or goes beyond
#: it (the rules' own expectations accept either); a meld of the wrong size.
_SAME_REASONS = (frozenset({"run_wraps", "beyond_ace"}), frozenset({"run_size", "trio_size"}))
#: Reasons a lay-off or a joker replacement is refused for when the meld it would make is
#: no meld: the same fault as the meld's own reason, seen from the table.
_TABLE_REASONS = frozenset({"does_not_fit", "no_joker_position", "no_joker_for_card"})


def _same(reasons: frozenset[object]) -> frozenset[object]:
    found = set(reasons)
    for group in _SAME_REASONS:
        if found & group:
            found |= group
    return frozenset(found)


def related(one: tuple[object, ...], two: tuple[object, ...]) -> bool:
    """Whether two behaviours are one: the same key, or refusals (or acceptances) for
    reasons that overlap once the reasons that name one thing two ways are one."""
    if one == two:
        return True
    verdicts = ("accepts", "refuses")
    if one[0] in verdicts and two[0] in verdicts:
        # Both ways round too: a rule applied otherwise lets some melds through and stops
        # others (a run's size counted without its jokers).
        shared = _same(frozenset(one[1:])) & _same(frozenset(two[1:]))
        return bool(shared) and (one[0] == two[0] or not shared <= _TABLE_REASONS)
    return False


def weak(key: tuple[object, ...]) -> str | None:
    """``accepts`` or ``refuses`` when ``key`` is a verdict whose reason says little by
    itself (none the rules give, or a lay-off's ``does_not_fit``): it joins the largest
    group of that verdict, sharing its op when one does (conformance.reports.causes)."""
    if key[0] in ("accepts-op", "refuses-op"):
        return "accepts" if key[0] == "accepts-op" else "refuses"
    if key[0] in ("accepts", "refuses") and set(key[1:]) <= _TABLE_REASONS:
        return str(key[0])
    return None


def _cards(value: Any) -> str:
    if isinstance(value, list):
        return " ".join(glyph(c) for c in value[:8]) + (" …" if len(value) > 8 else "")
    return glyph(value) if isinstance(value, str) else ""


def asked(request: Mapping[str, Any] | None, op: str) -> str:
    """What a check asked, shortly: ``check_meld run J♦ Q♦ K♦ A♦ 2♦``, ``lay_off JK on
    meld 1``, ``discard 7♦``; just ``op`` when nothing more is known."""
    if not isinstance(request, Mapping):
        return op
    meld = request.get("meld")
    if isinstance(meld, Mapping):
        return f"{op} {meld.get('kind', '')} {_cards(meld.get('cards'))}".strip()
    melds = request.get("melds")
    if isinstance(melds, list) and melds:
        shown = "; ".join(
            f"{m.get('kind', '')} {_cards(m.get('cards'))}".strip()
            for m in melds[:3]
            if isinstance(m, Mapping)
        )
        return f"{op} {shown}" + (" …" if len(melds) > 3 else "")
    cards = request.get("cards")
    if isinstance(cards, list):
        return f"{op} {_cards(cards)}"
    card = request.get("card")
    if isinstance(card, str):
        target = request.get("meld")
        on = f" on meld {target}" if isinstance(target, int) else ""
        return f"{op} {glyph(card)}{on}"
    return op
