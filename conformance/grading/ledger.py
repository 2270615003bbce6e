"""The checks of one case as they are graded, and the case's outcome summed up from them.

Every planned check ends with exactly one CheckResult. A case is:

``fail``         when any check failed;
``pass``         when every graded check passed and at least one of the case's own checks
                 (not only the harness's invariants) was graded;
``unsupported``  when none of its own checks could be graded;
``error``        when the engine misbehaved: the checks graded before keep their status,
                 the rest are not graded (cause ``error``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from conformance.grading.compare import Mismatch, format_mismatches
from conformance.grading.results import CheckResult
from conformance.scenarios.model import PlannedCheck


class Ledger:
    """The results of one case's checks, in plan order."""

    def __init__(
        self,
        plan: Sequence[PlannedCheck],
        where: str,
        passes: dict[str, CheckResult] | None = None,
    ) -> None:
        #: ``file`` of the scenario, to place a failure as ``file:line``.
        self.where = where
        self.plan = tuple(plan)
        #: Each check's result when it passes, by key: made once, kept for every case of
        #: this plan (given, and maybe made ahead: :func:`pass_results`) and shared.
        self._passes = {} if passes is None else passes
        self._by_step: dict[int | None, list[PlannedCheck]] = {}
        for check in self.plan:
            self._by_step.setdefault(check.step, []).append(check)
        self._results: dict[str, CheckResult] = {}
        #: The first failure's engine message (the case's ``engine_message``).
        self.engine_message: str | None = None
        #: The place of each check's step, e.g. ``action`` or ``penalty``, for failing_step.
        self._kinds: dict[str, str] = {}

    # -- recording ----------------------------------------------------------------------------

    def of_step(self, step: int | None) -> list[PlannedCheck]:
        """The planned checks of step (or melds check) ``step``; None: the final checks."""
        return self._by_step.get(step, [])

    def passed(self, check: PlannedCheck) -> None:
        """Record ``check`` as graded and held."""
        result = self._passes.get(check.key)
        if result is None:
            result = self._passes[check.key] = _result(check, "pass")
        self._results[check.key] = result

    def failed(
        self,
        check: PlannedCheck,
        mismatches: Sequence[Mismatch],
        *,
        kind: str,
        signature: str,
        message: str | None = None,
    ) -> None:
        """Record ``check`` as graded and broken, with what differed."""
        self._kinds[check.key] = kind
        if message is not None and self.engine_message is None:
            self.engine_message = message
        self._results[check.key] = _result(
            check,
            "fail",
            note=message,
            diff=format_mismatches(mismatches),
            signature=signature,
        )

    def not_graded(self, checks: Iterable[PlannedCheck], cause: str, note: str) -> None:
        """Record each of ``checks`` not graded yet as not graded, for ``cause``."""
        for check in checks:
            if check.key not in self._results:
                self._results[check.key] = _result(check, "not_graded", cause=cause, note=note)

    def rest(self, after: int | None) -> list[PlannedCheck]:
        """Every check of a later step than ``after``, and the final checks (all of them
        when ``after`` is None); those already recorded are left out."""
        later = [
            c
            for c in self.plan
            if c.key not in self._results and (after is None or c.step is None or c.step > after)
        ]
        return later

    def rest_not_graded(self, cause: str, note: str) -> None:
        """Every check not recorded yet: not graded for ``cause``."""
        self.not_graded(self.plan, cause, note)

    # -- the outcome --------------------------------------------------------------------------

    @property
    def results(self) -> tuple[CheckResult, ...]:
        """Every check's result in plan order (checks never recorded: not graded, not run)."""
        return tuple(
            self._results.get(c.key) or _result(c, "not_graded", cause="not_run", note="not run")
            for c in self.plan
        )

    def outcome(self) -> dict[str, Any]:
        """The CaseResult fields the checks decide: status, diff, failing_step, failed_rules,
        checks, engine_message, and a note when nothing could be graded."""
        results = self._uncounted_invariants(self.results)
        failed = [r for r in results if r.status == "fail"]
        fields: dict[str, Any] = {"checks": results}
        if failed:
            fields["status"] = "fail"
            fields["failing_step"] = self.place(failed[0])
            fields["diff"] = "\n".join(f"{self.place(r)}\n{r.diff}" for r in failed)
            fields["failed_rules"] = tuple(sorted({rule for r in failed for rule in r.rules}))
            fields["engine_message"] = self.engine_message
        elif any(r.status == "pass" and r.what != "invariants" for r in results):
            fields["status"] = "pass"
        else:
            fields["status"] = "unsupported"
            fields["note"] = self.why_nothing_graded(results)
        return fields

    def _uncounted_invariants(self, results: tuple[CheckResult, ...]) -> tuple[CheckResult, ...]:
        """``results``, with the invariants that held not graded when none of the case's own
        checks was graded: the harness built the state (an engine that only echoes
        ``load_state`` holds every invariant), so alone they show none of the rules. Their
        cause is the one that kept the case's own checks from being graded. An invariant
        that broke still fails: the engine's answer lost or made up cards."""
        own = [r for r in results if r.what != "invariants"]
        if any(r.status in _GRADED for r in own):
            return results
        held = [r for r in results if r.what == "invariants" and r.status == "pass"]
        if not held:
            return results
        causes = Counter(r.cause or "not_run" for r in own if r.status == "not_graded")
        cause = causes.most_common(1)[0][0] if causes else "op"
        # The engine's own words on why (say the op it answered unsupported), then ours.
        why = next((r.note for r in own if r.cause == cause and r.note), None)
        note = f"{why} ({_UNCOUNTED_INVARIANTS})" if why else _UNCOUNTED_INVARIANTS
        planned = {c.key: c for c in self.plan}
        for r in held:
            self._results[r.key] = _result(planned[r.key], "not_graded", cause=cause, note=note)
        return self.results

    def place(self, result: CheckResult) -> str:
        """Where a check is: ``step 3 totals (action, scenarios/x.yaml:43)``."""
        kind = self._kinds.get(result.key, "final" if result.step is None else "step")
        return f"{result.key} ({kind}, {self.where}:{result.line})"

    @staticmethod
    def why_nothing_graded(results: Sequence[CheckResult]) -> str:
        """One line: why no check of the case was graded, most frequent cause first."""
        own = [r for r in results if r.what != "invariants"] or list(results)
        causes = Counter(r.cause or "not_run" for r in own if r.status == "not_graded")
        notes: dict[str, str] = {}
        for r in own:
            if r.cause and r.note and r.cause not in notes:
                notes[r.cause] = r.note
        if not causes:
            return "the case makes no check this engine can be graded on"
        parts = [
            f"{count} {cause}" + (f" ({notes[cause]})" if cause in notes else "")
            for cause, count in causes.most_common()
        ]
        return f"no check could be graded: {'; '.join(parts)}"


def pass_results(plan: Iterable[PlannedCheck]) -> dict[str, CheckResult]:
    """Each check's result when it passes, by key: the same for every engine and every case
    that passes it, so made once (a run makes one per check it grades, on the path between
    an answer and the next request) and shared; a result is never changed."""
    return {check.key: _result(check, "pass") for check in plan}


def _result(check: PlannedCheck, status: str, **extra: Any) -> CheckResult:
    """``CheckResult(key=check.key, ..., status=status, **extra)``, built without the frozen
    dataclass's ``__init__``: it sets each of the ten fields through ``object.__setattr__``,
    and a run builds one result per check (3,500 for the default profile), on the path
    between an answer and the next request. tests/conformance/test_ledger.py proves the two
    equal."""
    result = object.__new__(CheckResult)
    result.__dict__.update(
        key=check.key,
        what=check.what,
        rules=check.rules,
        status=status,
        step=check.step,
        line=check.line,
        cause=extra.get("cause"),
        note=extra.get("note"),
        diff=extra.get("diff"),
        signature=extra.get("signature"),
    )
    if extra and not _OPTIONAL.issuperset(extra):
        raise TypeError(f"CheckResult has no field {sorted(set(extra) - _OPTIONAL)}")
    return result


#: Check statuses that say a check was graded.
_GRADED = frozenset({"pass", "fail", "xfail", "xpass"})
#: Why an invariant that held is not counted in a case none of whose own checks was graded.
_UNCOUNTED_INVARIANTS = (
    "its invariants are not counted alone: none of the case's own checks was graded, and "
    "the harness built the state"
)

#: The optional fields of a CheckResult (their default: None).
_OPTIONAL = frozenset({"cause", "note", "diff", "signature"})
