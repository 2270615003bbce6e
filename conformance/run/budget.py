"""How long asking the reference to explain failures may take: a run's causes
(conformance.explain) and a fuzz campaign's findings (conformance.fuzz.explain) share it.

The explanation takes at most :data:`COST` times the time it explains (a run's grading, a
campaign's playing, shrinking and drafting), counted from at least :data:`FLOOR` seconds.
A machine under heavy load slows the explanation's trials and the graded time alike, but
not always evenly: an author whose CI is so loaded that a hint is left unproved may give
it more with the environment variable :data:`COST_VARIABLE` (a positive number of times).
"""

from __future__ import annotations

import math
import os
from typing import Final

from .optioncheck import InvalidOption

#: The explanation takes at most this many times the time it explains ...
COST: Final = 2.0
#: ... counted from at least this many seconds (a run of a few cases takes next to none).
FLOOR: Final = 1.0
#: The environment variable that sets another number of times than :data:`COST`.
COST_VARIABLE: Final = "CARIOCA_EXPLAIN_COST"
#: The most it may be set to (a day's worth of a one-second run).
MOST: Final = 86_400.0


def explanation_cost() -> float:
    """How many times the explained time the explanation may take: :data:`COST_VARIABLE`
    when set, else :data:`COST`.

    :raises InvalidOption: when the variable is set to anything but a positive number up to
        :data:`MOST`, naming the variable and its value.
    """
    raw = os.environ.get(COST_VARIABLE, "").strip()
    if not raw:
        return COST
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not (0 < value <= MOST):
        raise InvalidOption(
            f"{COST_VARIABLE}={raw[:40]!r}: must be a positive number of times the graded "
            f"time, at most {MOST:g} (unset: {COST:g})"
        )
    return value


def explanation_budget(explained_seconds: float, cost: float | None = None) -> float:
    """The seconds the explanation of ``explained_seconds`` of work may take: ``cost``
    (default: :func:`explanation_cost`) times it, counted from at least :data:`FLOOR`."""
    return (cost if cost is not None else explanation_cost()) * max(explained_seconds, FLOOR)
