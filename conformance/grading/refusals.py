"""A state the case sets up, refused by the engine: graded as one failing check.

An engine that answers a ``load_state`` (or a deal) the case sets up with a protocol-correct
refusal (``invalid_state``, ``bad_request``) answers, so it is graded, not stopped: the
first check that can be graded fails with the refusal, the rest are not graded (cause
``divergence``). An ``unsupported`` answer to one ``load_state`` says the engine cannot
hold that state (docs/protocol.md §1). Where the engine loads the other states of that
player count, that is a refusal of a legal state too, not something it lacks: the run
knows it only once every case has been asked (conformance.grading.support), so such a
case, first recorded ``unsupported``, is graded again here as :func:`as_refused_state`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol, TypeVar

from conformance.grading.compare import Mismatch, format_mismatches
from conformance.grading.results import CaseResult, CheckResult


class _Check(Protocol):
    @property
    def what(self) -> str: ...


C = TypeVar("C", bound=_Check)


def refusal(op: str, where: str, kind: str, message: str) -> tuple[Mismatch, str]:
    """The difference a refused state shows, and its signature: one for every case so
    refused, whatever each expected."""
    found = Mismatch(f"{op} at {where}", "the case's state loaded", f"{kind}: {message}")
    return found, f"{op}: the engine refuses a state the case sets up, answering {kind}"


def refused_note(op: str, where: str, kind: str) -> str:
    """Why the checks after a refused state are not graded."""
    return f"the engine refused the state {op} sets up at {where} ({kind})"


def lead_check(checks: Sequence[C]) -> C:
    """The check a refused state fails: the first of the case's own (its rules are what
    the case could not be played for), else the first (the harness's invariants)."""
    return next((c for c in checks if c.what != "invariants"), checks[0])


#: The note the runner gives the checks of a case whose setup was answered unsupported.
ENGINE_SAYS = "engine: "


def as_refused_state(result: CaseResult, file: str) -> CaseResult:
    """``result``, a case whose setup ``load_state`` was answered ``unsupported``, graded as
    a refusal of its state: its first check kept from grading by that answer (cause
    ``op``) fails, the others so kept are not graded after a divergence. The checks not
    graded for another cause (an option, a reading the engine declares) stay as they were,
    and a case with no such check is returned unchanged. ``file``: the case's scenario,
    to place the failure."""
    kept = [c for c in result.checks if c.status == "not_graded" and c.cause == "op"]
    if result.status != "unsupported" or not kept:
        return result
    first = lead_check(kept)
    message = (first.note or "").removeprefix(ENGINE_SAYS)
    found, signature = refusal("load_state", "the setup", "unsupported", message)
    failed = replace(
        first,
        status="fail",
        cause=None,
        note=message,
        diff=format_mismatches([found]),
        signature=signature,
    )
    note = refused_note("load_state", "the setup", "unsupported")
    checks: list[CheckResult] = []
    for check in result.checks:
        if check is first:
            checks.append(failed)
        elif check.status == "not_graded" and check.cause == "op":
            checks.append(replace(check, cause="divergence", note=note))
        else:
            checks.append(check)
    place = f"{failed.key} (load_state, {file}:{failed.line})"
    return replace(
        result,
        status="fail",
        checks=tuple(checks),
        failing_step=place,
        diff=f"{place}\n{failed.diff}",
        failed_rules=tuple(sorted(set(failed.rules))),
        engine_message=message,
        note=None,
    )
