"""The adapter command: from the ``--adapter`` string to the argv the harness starts.

No shell ever runs an adapter (so nothing in the string is executed by one); the string is
split as a POSIX shell would split words. A pipeline or a redirection written in it would
reach the adapter as plain arguments, so :func:`adapter_argv` says so in a warning, with the
``sh -c`` form that would do what was meant. Used by every command that starts an adapter,
and callable by a library user without argparse.
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Sequence

from conformance.errors import HarnessError


def reference_argv() -> list[str]:
    """The default adapter: the reference engine, run with this interpreter."""
    return [sys.executable, "-m", "reference.adapter"]


class AdapterCommandError(HarnessError, ValueError):
    """An adapter command that cannot be split into an argv; the message says why."""


def adapter_argv(command: str | None) -> tuple[list[str], str | None]:
    """Split an adapter command like a POSIX shell would, without running a shell.

    Returns the argv (the reference's for None) and a warning when the command holds
    shell operators that no shell will act on (None otherwise).

    :raises AdapterCommandError: when the command cannot be split or is empty.
    """
    if command is None:
        return reference_argv(), None
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise AdapterCommandError(f"cannot parse --adapter {command!r}: {exc}") from None
    if not argv:
        raise AdapterCommandError("--adapter is empty")
    operators = shell_operators(command)
    return argv, shell_warning(command, operators) if operators else None


#: Tokens a shell would act on but an argv passes on verbatim as arguments.
SHELL_OPERATORS = frozenset({"|", "||", "&", "&&", ";", ";;", ">", ">>", "<", "<<", ">&", "<&"})


def shell_operators(command: str) -> list[str]:
    """The shell operators (``|``, ``>``, ``&&``, ``;``…) written unquoted in ``command``.

    ``--adapter`` is never run through a shell, so ``node adapter.js | tee log`` would
    start ``node`` with the arguments ``adapter.js``, ``|``, ``tee`` and ``log``.
    """
    # Non-POSIX mode keeps quotes on quoted words, so a quoted "|" is not taken for a pipe.
    lexer = shlex.shlex(command, posix=False, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError:
        return []
    found: list[str] = []
    for token in tokens:
        # "2>" and "&>" arrive as a word then an operator; the operator alone is enough.
        if token in SHELL_OPERATORS and token not in found:
            found.append(token)
    return found


def shell_warning(command: str, operators: Sequence[str]) -> str:
    """How to say that ``command`` holds shell operators and how to wrap a pipeline."""
    shown = " ".join(f"'{op}'" for op in operators)
    if "'" in command or '"' in command:
        wrapped = shlex.quote("sh -c " + shlex.quote(command))
    else:
        wrapped = f"\"sh -c '{command}'\""  # the readable form, when no quote is in the way
    return (
        f"--adapter contains the shell operator(s) {shown}, but no shell runs the adapter: "
        "they are passed to it as plain arguments. To run a pipeline or a redirection, "
        f"wrap it in a shell: --adapter {wrapped}"
    )


__all__ = [
    "SHELL_OPERATORS",
    "AdapterCommandError",
    "adapter_argv",
    "reference_argv",
    "shell_operators",
    "shell_warning",
]
