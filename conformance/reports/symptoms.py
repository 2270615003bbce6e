"""What a failing check shows, and what explains it: the words causes are grouped in.

A check's *symptom* (:func:`symptom`) is its grouping key and summary: the field or op, the
direction of a numeric difference, the card value one rank is counted at
(:func:`card_table`), the engine's refusal and its words. An :class:`Explanation` is the
option(s) the reference plays to fail a check the same way; an :class:`Inference` maps the
failing checks to theirs. :mod:`conformance.reports.causes` groups checks by these;
:mod:`conformance.explain` asks the reference for the explanations.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from conformance.grading.results import CheckId, CheckResult

if TYPE_CHECKING:
    from conformance.knowledge.catalogue import Catalogue

#: One option: (point or interface key, option).
Choice = tuple[str, str]


@dataclass(frozen=True)
class Explanation:
    """What explains some failing checks: the options, and what each means."""

    #: Point (or interface key) -> option, sorted by point.
    choices: tuple[Choice, ...]
    #: Point -> the option's meaning in the catalogue's words (empty when unknown).
    meanings: tuple[tuple[str, str], ...] = ()

    def as_dict(self) -> dict[str, str]:
        """``{"VARIANT-01": "thirty"}``."""
        return dict(self.choices)

    def label(self) -> str:
        """``VARIANT-01=thirty (30 points)`` (options joined by ``and``)."""
        meaning = dict(self.meanings)
        parts = []
        for point, option in self.choices:
            words = meaning.get(point, "")
            parts.append(f"{point}={option}" + (f" ({words})" if words else ""))
        return " and ".join(parts)


@dataclass(frozen=True)
class Inference:
    """What the reference's options explain of a run's failing checks."""

    #: Failing check -> what explains it (a check absent is explained by nothing tried).
    explained: Mapping[CheckId, Explanation]
    #: The failing cases replayed (a failing check of another case was not tried).
    tried: frozenset[str] = frozenset()
    #: Option sets proved (conformance.explain), best first, each with the failing
    #: checks the reference playing them fails as the engine did while agreeing with every
    #: check the engine passed: a cause is explained by the first covering all its checks.
    proved: tuple[tuple[Explanation, frozenset[CheckId]], ...] = ()
    #: Failing checks for which every candidate option was tried (none left untried when
    #: the time allowed ran out): a cause of these alone that none explains says so.
    exhausted: frozenset[CheckId] = frozenset()


#: Nothing tried.
NOTHING = Inference({})

#: The symptom of a table whose runs hold the expected cards in another order.
ORDER_ONLY = ("cards", "table", "the same cards in another order")

#: Score fields, compared as a family: their difference has a direction and a card value.
SCORE_FIELDS = frozenset({"deal_scores", "totals"})

_CARD = re.compile(
    r"^(?:penalty of (?P<card>[^\[\s:]+)|(?P<rank>\w+) left in hand): "
    r"expected (?P<e>-?\d+), got (?P<g>-?\d+)$"
)
_PENALTY = re.compile(r"^penalty of .*: expected (?P<e>-?\d+), got (?P<g>-?\d+)$")
_LISTS = re.compile(r"expected \[(?P<e>[-\d, ]*)\], got \[(?P<g>[-\d, ]*)\]")
_MIXED = re.compile(r"^penalty of \[(?P<cards>[^\]]*)\]: expected (?P<e>-?\d+), got (?P<g>-?\d+)$")
_REFUSED = re.compile(r"got (?:rejected \()?(?P<reason>[a-z_]+)\)?$")
_INDEX = re.compile(r"\[\d+\]")
#: A card, as a glyph (``10♠``) or a code (``'10S'``), or a joker.
_CARD_TOKEN = re.compile(r"(?<![\w])(?:JK|(?:10|[2-9AJQK])[♠♥♦♣SHDC])(?![\w])")
_NUMBERS = re.compile(r": expected (?P<e>-?\d+), got (?P<g>-?\d+)$")
_SHAPE = re.compile(r"\d+")

#: Card names in a summary (signatures name a rank in words).
_SHORT = {"joker": "JK", "ace": "A", "king": "K", "queen": "Q", "jack": "J"}


def _numbers(text: str) -> list[int]:
    return [int(v) for v in text.replace(" ", "").split(",") if v]


def direction(signature: str) -> str | None:
    """``lower`` or ``higher`` when the got numbers of a signature differ one way from the
    expected ones; None when they are no numbers or differ both ways."""
    found = _LISTS.search(signature)
    pairs: list[tuple[int, int]] = []
    if found:
        expected, got = _numbers(found["e"]), _numbers(found["g"])
        if len(expected) != len(got):
            return None
        pairs = list(zip(expected, got, strict=True))
    else:
        one = _NUMBERS.search(signature)
        if one is None:
            return None
        pairs = [(int(one["e"]), int(one["g"]))]
    signs = {(g > e) - (g < e) for e, g in pairs} - {0}
    if len(signs) != 1:
        return None
    return "higher" if signs.pop() > 0 else "lower"


def _card(signature: str) -> tuple[str, int, int] | None:
    found = _CARD.match(signature)
    if found is None:
        return None
    name = found["card"] or found["rank"]
    name = _SHORT.get(name, name)
    if name != "JK" and name[-1:] in "♠♥♦♣":
        name = name[:-1]
    return name, int(found["e"]), int(found["g"])


def _words(note: str | None) -> str:
    """The engine's words with numbers and cards blurred, so one message is one key."""
    return _SHAPE.sub("#", (note or "").strip().lower())[:80]


def symptom(check: CheckResult) -> tuple[tuple[object, ...], str]:
    """What one failing check shows, as a grouping key and a summary."""
    sig = check.signature or check.what
    if is_score(check):
        way = direction(sig) or "other"
        said = {"lower": "lower than expected", "higher": "higher than expected"}
        return ("score", way), f"scores {said.get(way, 'differ from expected')}"
    refused = _REFUSED.search(sig) if check.what in ("accepted", "reason") else None
    if refused is not None and check.note:
        # One refusal of the engine's, whatever the case expected: its reason and its words.
        reason, words = refused["reason"], check.note.strip()
        return (
            ("refused", reason, _words(words)),
            f'the engine refuses with {reason} (engine says "{words[:60]}")',
        )
    if check.what == "accepted":
        return ("accepted", sig, check.rules), sig
    shift = direction(sig)
    if shift is not None:
        return ("field", check.what, shift), f"{check.what}: {shift} than expected"
    field = _field(sig, check.what)
    wanted, got = _cards_of(sig)
    if wanted and got:
        if sorted(wanted) == sorted(got):
            change = ORDER_ONLY[2]
        elif len(got) != len(wanted):
            change = "more cards" if len(got) > len(wanted) else "fewer cards"
            change += " than expected"
        else:
            change = "other cards than expected"
        return ("cards", field, change), f"{field}: {change}"
    if check.what == "unchanged":
        return ("unchanged", field), f"{field}: a refused action changed it"
    return ("field", check.what, check.rules, sig), sig


def _field(signature: str, what: str) -> str:
    """The state field a signature names: its first part, without an index or a
    parenthesis (``table`` for ``table[3].cards``)."""
    head = signature.split(": expected", 1)[0] if ": expected" in signature else what
    head = head.split(" (", 1)[0].split(".", 1)[0]
    return _INDEX.sub("", head).strip() or what


def _cards_of(signature: str) -> tuple[list[str], list[str]]:
    """The cards a signature shows expected and got (as glyphs or codes), or empty lists."""
    if ", got " not in signature:
        return [], []
    wanted, got = signature.split(", got ", 1)
    got = got.split(" (missing", 1)[0].split(" (unexpected", 1)[0]
    return _CARD_TOKEN.findall(wanted.split("expected", 1)[-1]), _CARD_TOKEN.findall(got)


def is_score(check: CheckResult) -> bool:
    """A score field, or a melds query's penalty."""
    sig = check.signature or ""
    return check.what in SCORE_FIELDS or (check.what == "answer" and bool(_PENALTY.match(sig)))


def card_table(checks: Sequence[CheckResult]) -> tuple[str, int, int] | None:
    """``(rank, expected, got)`` when one card counted at another value accounts for every
    score check of ``checks`` whose cards are known (and some are); None otherwise. A
    check whose cards the report does not give (a deal's scores) only has to agree in
    direction, which its grouping already ensures."""
    found: set[tuple[str, int, int]] = set()
    mixed: list[tuple[list[str], int]] = []
    for check in checks:
        sig = check.signature or ""
        card = _card(sig)
        if card is not None:
            found.add(card)
            continue
        listed = _MIXED.match(sig)
        if listed is not None:
            cards = [c if c == "JK" else c[:-1] for c in listed["cards"].split()]
            mixed.append((cards, int(listed["g"]) - int(listed["e"])))
    if len(found) != 1:
        return None
    rank, expected, got = found.pop()
    return (
        (rank, expected, got)
        if all(cards.count(rank) * (got - expected) == diff for cards, diff in mixed)
        else None
    )


def _meaning(catalogue: Catalogue, point: str, option: str) -> str:
    dispute = catalogue.disputes.get(point)
    if dispute is None:
        return {
            "run_order": "the engine arranges a run's cards",
            "run_ends": "the engine picks a run's end",
        }.get(point, "")
    words = dispute.options.get(option, "").strip()
    return words[:-1] if words.endswith(".") else words


def explanation(choices: Iterable[Choice], catalogue: Catalogue) -> Explanation:
    """The :class:`Explanation` of ``choices`` with the catalogue's words for each."""
    ordered = tuple(sorted(choices))
    return Explanation(ordered, tuple((p, _meaning(catalogue, p, o)) for p, o in ordered))
