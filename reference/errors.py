"""The reference engine's error hierarchy.

Every error is a ``ValueError`` subclass, split by cause:

- :class:`InvalidActionError`: the input is malformed (an unknown card code, a run lay-off
  without an end). Nothing about the game decides it; the request itself is wrong.
- :class:`CardParseError`: the malformed input is a card code.
- :class:`IllegalActionError`: the input is well formed but the rules forbid it in this
  state. It carries the rejection reason (``reference.reasons.Reason``) and its rule ID.
- :class:`InvalidStateError`: a game state that cannot occur (107 cards, a third 7♠...).
  It lists every problem found, not just the first.

One error is not a ``RulesError``: :class:`UnknownRulingError`, a rules branch naming a
disputed point or option the catalogue lacks, is a defect of the engine, never of its input.

This module sits at the far left of the import order, so it cannot import
``reference.reasons``; the reason is typed structurally (any string enum with a ``rule``).
"""

from __future__ import annotations

from typing import Protocol


class _CitesRule(Protocol):
    """What an error needs from a reason: its code (a ``str``) and the rule it cites."""

    @property
    def value(self) -> str: ...

    @property
    def rule(self) -> str: ...


class RulesError(ValueError):
    """Base class of every error the reference engine raises on purpose."""


class InvalidActionError(RulesError):
    """Malformed input: it cannot be read as an action, a meld or a card."""


class CardParseError(InvalidActionError):
    """A card code that is not one of the 53 codes of docs/protocol.md §3."""


class IllegalActionError(RulesError):
    """A well-formed action that the rules forbid in the current state.

    ``reason`` is a ``reference.reasons.Reason``; ``rule`` is the rule ID it cites.
    """

    def __init__(self, action: object, reason: _CitesRule, detail: str = "") -> None:
        self.action = action
        self.reason = reason
        self.rule: str = reason.rule
        message = f"illegal action {action!r}: {reason.value} (rule {reason.rule})"
        if detail:
            message += f": {detail}"
        super().__init__(message)


class UnknownRulingError(LookupError):
    """A rules branch asked about a point or option the catalogue does not have (a misspelt
    ``DISPUTE-nn``, an option of another point): a defect of the reference, not of its
    input, so the adapter answers it as ``internal`` and never as a bad request."""

    def __init__(self, point: str, option: str | None, known: tuple[str, ...]) -> None:
        self.point = point
        self.option = option
        if not known:
            message = f"{point!r} is not a disputed point or house variant of the catalogue"
        else:
            message = f"{point}: {option!r} is not one of its options ({', '.join(known)})"
        super().__init__(message)

    def __str__(self) -> str:
        # LookupError would quote a KeyError-like message; this one reads as written.
        return str(self.args[0])


class InvalidStateError(RulesError):
    """A state (or deck) that cannot occur; ``problems`` lists every problem found."""

    def __init__(self, problems: tuple[str, ...] | list[str]) -> None:
        self.problems: tuple[str, ...] = tuple(problems)
        super().__init__("invalid state: " + "; ".join(self.problems))
