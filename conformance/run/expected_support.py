"""Keeping an inconsistent ``unsupported`` as known, as an expectations file keeps a failure.

An engine that answers an op in some cases and refuses it as ``unsupported`` in others
fails the run (conformance/run/verdict.py): refusing where it would fail hides a failure.
Its fix is the engine's (answer the op, or refuse the ``load_state`` of the states it
cannot play from); until then the team lists the op under ``expected_unsupported`` in its
expectations file, with the reason, and the run keeps it as known::

    expected_unsupported:
      act:discard: {reason: "we cannot discard from a state whose stock is empty yet"}

The op is named as the warnings name it (``check_meld``, an action as ``act:discard``). A
kept op is still said, as kept, in the run's warnings; an entry whose op was answered
consistently is named as stale.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from conformance.grading.results import RunResult
from conformance.grading.support import support_warnings


def unsupported_entries(data: Any, target: Path) -> dict[str, str]:
    """The ``expected_unsupported`` of a schema-valid expectations document: op -> reason."""
    del target  # a mapping cannot name an op twice; kept for the readers' common shape
    entries = (data or {}).get("expected_unsupported") or {}
    return {str(op): str((entry or {}).get("reason") or "") for op, entry in entries.items()}


def keep_unsupported(run: RunResult, kept: Mapping[str, str]) -> RunResult:
    """``run`` with the ops ``kept`` lists marked expected: no longer an inconsistency that
    fails the run, said as kept in its warnings; an entry for an op answered consistently
    is named as stale."""
    if not kept:
        return run
    said = set(support_warnings(run.ops, ()))
    ops = tuple(replace(o, expected=kept[o.op]) if o.op in kept else o for o in run.ops)
    warnings = [w for w in run.warnings if w not in said]
    warnings.extend(support_warnings(ops, ()))
    shown = {o.op for o in run.ops if o.op in kept} & {o.op for o in ops if o.kept_inconsistency}
    for op in sorted(set(kept) - shown):
        warnings.append(
            f"expected_unsupported names {op}, which was not refused inconsistently: "
            "the entry keeps nothing (remove it)"
        )
    return replace(run, ops=ops, warnings=tuple(warnings))


__all__ = ["keep_unsupported", "unsupported_entries"]
