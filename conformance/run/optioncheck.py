"""The library's run options checked where they are made, not where they would misbehave.

The command line's argument types refuse a bad number before anything starts; a library
caller building :class:`~conformance.run.runner.RunOptions` or
:class:`~conformance.jobs.RunRequest` by hand gets the same refusal, at construction, as
an :class:`InvalidOption` naming the field: a ``NaN`` timeout would disable every
deadline (a hang), a negative one or a negative memory limit means nothing, an unknown
profile would read as "no scenario matches", and an argv given as one string would be
run one character per argument.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Final

from conformance.errors import HarnessError

#: The longest time limit taken: a day (the command line's limit too).
MAX_SECONDS: Final = 86_400.0
#: Most workers a run takes (the command line's limit too).
MAX_WORKERS: Final = 256
#: Largest seed of the laws' deals: the seed sent to an engine stays exact in a double.
MAX_SEED: Final = 10**12 - 1
#: Most deals the laws play.
MAX_DEALS: Final = 1000


class InvalidOption(HarnessError, ValueError):
    """A run option or request field that cannot mean anything: names the field, the
    value and what it takes."""


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:59] + "…"


def seconds_field(name: str, value: Any) -> None:
    """Refuse ``value`` as the time limit ``name`` unless it is a number of seconds more
    than 0 and at most :data:`MAX_SECONDS` (``nan`` and ``inf`` are no limits)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidOption(f"{name}={_shown(value)}: a time limit is a number of seconds")
    if not (math.isfinite(value) and 0 < value <= MAX_SECONDS):
        raise InvalidOption(
            f"{name}={_shown(value)}: a time limit must be more than 0 and at most "
            f"{MAX_SECONDS:g} seconds"
        )


def integer_field(name: str, value: Any, low: int, high: int | None = None) -> None:
    """Refuse ``value`` as ``name`` unless it is a whole number from ``low`` to ``high``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidOption(f"{name}={_shown(value)}: must be a whole number")
    if value < low or (high is not None and value > high):
        upper = f" to {high:,}" if high is not None else " or more"
        raise InvalidOption(f"{name}={value}: must be from {low:,}{upper}")


def strings_field(name: str, value: Any) -> tuple[str, ...]:
    """``value`` as a tuple of strings; a single string (which would be taken one character
    per item) or anything holding a non-string is refused."""
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        raise InvalidOption(
            f"{name}={_shown(value)}: must be a list or tuple of strings, not "
            f"{type(value).__name__} (shlex.split a command line first)"
        )
    for item in value:
        if not isinstance(item, str):
            raise InvalidOption(f"{name}: item {_shown(item)} is not a string")
    return tuple(value)


def check_run_options(options: Any) -> None:
    """Refuse a :class:`~conformance.run.runner.RunOptions` whose fields cannot mean
    anything (called from its ``__post_init__``).

    :raises InvalidOption: naming the first bad field.
    """
    from conformance.knowledge.profiles import ProfileError, default_profiles

    if not isinstance(options.profile, str):
        raise InvalidOption(f"profile={_shown(options.profile)}: must be a profile's name")
    try:
        default_profiles()[options.profile]
    except ProfileError as exc:
        raise InvalidOption(f"profile: {exc}") from None
    for name in ("timeout", "case_timeout", "start_timeout"):
        seconds_field(name, getattr(options, name))
    integer_field("max_response_bytes", options.max_response_bytes, 1, 2**31)
    integer_field("max_consecutive_errors", options.max_consecutive_errors, 1)
    integer_field("workers", options.workers, 1, MAX_WORKERS)
    if options.memory_limit is not None:
        integer_field("memory_limit", options.memory_limit, 0)


def check_laws(laws: Any) -> None:
    """Refuse a ``RunRequest.laws`` that is not None or ``(seed, deals)`` in range."""
    if laws is None:
        return
    if not isinstance(laws, tuple | list) or len(laws) != 2:
        raise InvalidOption(f"laws={_shown(laws)}: must be None or (seed, deals)")
    integer_field("laws seed", laws[0], 0, MAX_SEED)
    integer_field("laws deals", laws[1], 1, MAX_DEALS)


__all__ = [
    "MAX_SECONDS",
    "InvalidOption",
    "check_laws",
    "check_run_options",
    "integer_field",
    "seconds_field",
    "strings_field",
]
