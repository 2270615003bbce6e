"""One short text per root cause, the same in every check that shows it (CheckResult.signature),
so that the summary groups a divergence that recurs across cases once.

- a melds penalty of cards of one rank: ``penalty of JK: expected 50, got 30`` (per card);
- a score field (``deal_scores``, ``totals``, a penalty of mixed cards) whose difference is,
  for every player, the count of one rank in that player's hand times one constant:
  ``joker left in hand: expected 50, got 30``;
- anything else: ``<what>: expected X, got Y``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from conformance.grading.compare import Mismatch, glyph, show_cards
from conformance.knowledge.profiles import ProfileData

#: How a rank is named in a signature.
RANK_NAMES = {"JK": "joker", "A": "ace", "K": "king", "Q": "queen", "J": "jack"}

#: The score fields a card-value diagnosis applies to.
SCORE_FIELDS = frozenset({"deal_scores", "totals"})


def _rank(card: Any) -> str | None:
    if not isinstance(card, str) or not card:
        return None
    return "JK" if card == "JK" else card[:-1]


def _rank_name(rank: str) -> str:
    return RANK_NAMES.get(rank, f"a {rank}")


def card_value_diagnosis(
    differences: Sequence[int], hands: Sequence[Sequence[Any]], profile: ProfileData | None
) -> str | None:
    """``<rank> left in hand: expected V, got V+k`` when every difference is the count of one
    rank in the matching hand times one constant ``k`` (and exactly one rank fits); None
    otherwise. ``V`` is the profile's value of the rank (None without a profile)."""
    if profile is None or len(differences) != len(hands) or not any(differences):
        return None
    counts = [Counter(r for r in map(_rank, hand) if r is not None) for hand in hands]
    fits: list[tuple[str, int, int]] = []
    for rank in sorted({r for c in counts for r in c}):
        held = [c.get(rank, 0) for c in counts]
        step = _constant(differences, held)
        value = profile.card_values.get(rank)
        # A card worth less than nothing is no diagnosis (a queen "worth -10").
        if step is not None and value is not None and value + step >= 0:
            fits.append((rank, value, step))
    if len(fits) != 1:
        return None
    rank, value, step = fits[0]
    return f"{_rank_name(rank)} left in hand: expected {value}, got {value + step}"


def _constant(differences: Sequence[int], held: Sequence[int]) -> int | None:
    """The ``k`` with ``differences[i] == held[i] * k`` for every i (k != 0), else None."""
    step: int | None = None
    for diff, count in zip(differences, held, strict=True):
        if count == 0:
            if diff != 0:
                return None
            continue
        if diff % count:
            return None
        if step is None:
            step = diff // count
        elif step != diff // count:
            return None
    return step if step else None


def signature(
    what: str,
    mismatches: Sequence[Mismatch],
    *,
    expected: Any = None,
    got: Any = None,
    hands: Sequence[Sequence[Any]] | None = None,
    profile: ProfileData | None = None,
    action: Mapping[str, Any] | None = None,
) -> str:
    """The signature of one failed check (see the module docstring).

    ``expected``/``got``: the compared values when they are numbers or lists of numbers
    (scores, penalties); ``hands``: the hands those scores were counted from; ``profile``:
    the card values the engine was expected to use (None when its rulings change them);
    ``action``: the step's action, whose type names an acceptance signature.
    """
    first = mismatches[0] if mismatches else Mismatch(what, "?", "?")
    if what in SCORE_FIELDS and hands is not None:
        differences = _differences(expected, got)
        if differences is not None:
            found = card_value_diagnosis(differences, hands, profile)
            if found is not None:
                return found
    if what == "penalty" and isinstance(expected, int) and isinstance(got, int) and hands:
        cards = list(hands[0])
        ranks = {_rank(c) for c in cards}
        if len(ranks) == 1 and cards:
            shown = glyph(cards[0]) if len(cards) == 1 else _rank_name(str(ranks.pop()))
            count = len(cards)
            if expected % count == 0 and got % count == 0:
                return f"penalty of {shown}: expected {expected // count}, got {got // count}"
        found = card_value_diagnosis([got - expected], [cards], profile)
        if found is not None:
            return found
        return f"penalty of {show_cards(cards, ordered=False)}: expected {expected}, got {got}"
    if what == "accepted" and action is not None:
        actual = first.actual.split(", engine says:")[0]
        return f"{action.get('type', 'action')}: expected {first.expected}, got {actual}"
    actual = first.actual.split(", engine says:")[0]
    return f"{first.what}: expected {first.expected}, got {actual}"


def _differences(expected: Any, got: Any) -> list[int] | None:
    if not isinstance(expected, list) or not isinstance(got, list) or len(expected) != len(got):
        return None
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in [*expected, *got]):
        return None
    return [g - e for e, g in zip(expected, got, strict=True)]
