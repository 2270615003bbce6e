"""One answer of an engine against the checks of its step, and where grading goes on from.

After a step whose answer differs, grading goes on from the state the rules give
(docs/scenario-format.md, "Grading goes on after a failed check"):

- the acceptance matched and only state keys with a full expected value differ (the exact
  keys, ``hands`` given for every player, ``table`` melds given whole, ``stock``,
  ``discard``): the engine is put back on its own answer with those keys replaced by the
  expected values (if that state still holds the pack);
- the engine accepted an action that must be refused, or a refused action changed the
  state: it is put back on the state before the step;
- the engine refused an action that must be accepted: it is put on the state the case
  expects after the step, where that can be built (conformance.grading.after, with the
  values the step gives in full, agreeing with every check of the step);
- anything else (a refused action whose state cannot be built, a key with only a partial
  expectation such as ``hand_sizes``, a broken pack): the later checks are not graded, cause
  ``divergence``, with the reason.

Nothing is put back when every check held: the usual path costs nothing more.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from conformance.adapter.declarations import Declarations
from conformance.grading.after import moved
from conformance.grading.compare import (
    ENDED_PHASES,
    EXACT_KEYS,
    Mismatch,
    compare_check,
    compare_outcome,
    compare_state,
    compare_unchanged,
    engine_message,
)
from conformance.grading.expect import (
    UNSET,
    NotGraded,
    expected_value,
    reasons_of,
    rejects,
    resolved,
)
from conformance.grading.invariants import invariant_problems
from conformance.grading.ledger import Ledger
from conformance.grading.refusals import lead_check, refusal, refused_note
from conformance.grading.signature import signature
from conformance.knowledge.profiles import Pack, ProfileData
from conformance.scenarios.model import PlannedCheck
from conformance.scenarios.options import NOT_ASSERTED, NoValue


@dataclass
class StepOutcome:
    """Where grading goes on from after one step."""

    #: The engine's answer state (what ``final`` is compared with after the last step).
    after: Mapping[str, Any]
    #: The state to load before the next step, when the answer differed; else None.
    resync: Mapping[str, Any] | None = None
    #: Why the later checks cannot be graded; else None.
    diverged: str | None = None
    #: Their cause: ``divergence``, or ``option`` when the step has no expectation for the
    #: engine's option (nothing failed, the rest is simply not known).
    cause: str = "divergence"
    #: Whether ``final`` may be compared with ``after`` (not after an action accepted that
    #: must be refused).
    final_comparable: bool = True


@dataclass
class Judge:
    """Grades the answers of one case against one engine's declarations."""

    ledger: Ledger
    declared: Declarations
    disputed: str | None
    reasons: bool
    players: int | None
    pack: Pack | None
    #: The card values a score diagnosis may name (None when the engine's rulings change
    #: them: then no value is named).
    values: ProfileData | None = None
    runs_as_sets: bool = False
    #: Audit mode only: points whose assumptions are graded anyway (grading.expect.held).
    grade_assumed: frozenset[str] = frozenset()
    #: Each check's value resolved under the engine's options (grading.expect.resolved),
    #: by key; a check missing here is resolved when asked.
    resolved: Mapping[str, Any] = field(default_factory=dict)
    _expected: dict[str, tuple[Any, NotGraded | None]] = field(default_factory=dict)

    # -- expectations ---------------------------------------------------------------------------

    def expected(self, check: PlannedCheck) -> tuple[Any, NotGraded | None]:
        """What ``check`` expects of this engine, or why it is not graded (memoised)."""
        found = self._expected.get(check.key)
        if found is None:
            found = expected_value(
                check,
                self.declared,
                self.disputed,
                self.reasons,
                self.grade_assumed,
                self.resolved.get(check.key, UNSET),
            )
            self._expected[check.key] = found
        return found

    def option_value(self, check: PlannedCheck) -> Any:
        """``check``'s value under the engine's options whether or not it is graded (say for
        a field the engine does not model); None when the case gives none for them."""
        value = self.resolved.get(check.key, UNSET)
        if value is UNSET:
            value = resolved(check, self.declared, self.disputed)
        if isinstance(value, NoValue) or value == NOT_ASSERTED:
            return None
        return value

    def gradable(self, checks: Sequence[PlannedCheck]) -> bool:
        """True when at least one of ``checks`` can be graded against this engine."""
        return any(self.expected(c)[1] is None for c in checks)

    def skip_ungradable(self, checks: Sequence[PlannedCheck]) -> list[PlannedCheck]:
        """Record every check of ``checks`` that cannot be graded; return the others."""
        left = []
        for check in checks:
            why = self.expected(check)[1]
            if why is None:
                left.append(check)
            else:
                self.ledger.not_graded([check], why.cause, why.note)
        return left

    # -- melds ----------------------------------------------------------------------------------

    def melds(
        self, checks: Sequence[PlannedCheck], op: str, request: Mapping[str, Any], answer: Any
    ) -> None:
        """Grade a melds-level answer: ``check N`` and ``check N reason``."""
        message = engine_message(answer)
        answer_ok = True
        for check in self.skip_ungradable(checks):
            value = self.expected(check)[0]
            if check.what == "answer":
                found = compare_check(_without_reason(value), answer, reasons=False)
                answer_ok = not found
                cards = request.get("cards") if op == "penalty" else None
                self._verdict(
                    check,
                    found,
                    op,
                    message,
                    expected=value,
                    got=answer,
                    cards=cards,
                    what=op,
                    said=_validity(value, answer),
                )
            elif not answer_ok or answer.get("valid") is not False:
                self.ledger.not_graded(
                    [check], "divergence", "the answer itself differed: no reason to compare"
                )
            else:
                found = compare_check(
                    {"valid": False, "reason": reasons_of(value)}, answer, reasons=True
                )
                self._verdict(check, found, op, message)

    def melds_error(self, checks: Sequence[PlannedCheck], op: str, kind: str, message: str) -> None:
        """Grade a melds query the engine answered with an error of ``kind`` (its own bug,
        ``internal``): the answer check fails with the engine's message, a reason check is
        not graded."""
        got = f"error {kind}: {message}"
        for check in self.skip_ungradable(checks):
            if check.what != "answer":
                self.ledger.not_graded(
                    [check], "divergence", "the answer itself differed: no reason to compare"
                )
                continue
            value = self.expected(check)[0]
            found = [Mismatch(op, _shown(_without_reason(value)), got)]
            # One root cause, one signature, whatever each check expected.
            signature = f"{op}: the engine answered {kind}"
            self.ledger.failed(check, found, kind=op, signature=signature, message=message)

    def refused_state(
        self, checks: Sequence[PlannedCheck], op: str, kind: str, message: str, where: str
    ) -> bool:
        """Grade an engine that answered a state or deal the case sets up (``op`` at
        ``where``: ``the setup``, ``step 3``) with a protocol-correct refusal of ``kind``
        (``invalid_state``, ``bad_request``): the engine answers, so it is graded, not
        stopped. The first check of ``checks`` that can be graded fails with the refusal
        (one signature for every case so refused, whatever each expected); the others
        are not graded (cause ``divergence``: there is no state to grade them on).
        False when no check there can be graded (the caller then records them)."""
        left = self.skip_ungradable(checks)
        if not left:
            return False
        first = lead_check(left)
        rest = [c for c in left if c is not first]
        found, signature = refusal(op, where, kind, message)
        self.ledger.failed(first, [found], kind=op, signature=signature, message=message)
        self.ledger.not_graded(rest, "divergence", refused_note(op, where, kind))
        return True

    # -- setup, steps, final --------------------------------------------------------------------

    def invariants(self, check: PlannedCheck, state: Mapping[str, Any], kind: str) -> bool:
        """Grade one answered state's invariants; True when they hold."""
        if self.players is None or self.pack is None:
            self.ledger.not_graded([check], "profile", "the harness has no pack for this case")
            return True
        problems = invariant_problems(state, self.players, self.pack)
        found = [Mismatch("state", "one hand per player and the whole pack", p) for p in problems]
        self._verdict(check, found, kind, None)
        return not found

    def step(
        self,
        checks: Sequence[PlannedCheck],
        kind: str,
        action: Mapping[str, Any] | None,
        before: Mapping[str, Any],
        answer: Mapping[str, Any],
        later: bool,
    ) -> StepOutcome:
        """Grade one step's answer; ``later``: whether checks follow it (a resync matters)."""
        after: Mapping[str, Any] = answer.get("state") or {}
        message = engine_message(answer)
        by_what = {c.what: c for c in checks}
        accepted_check = by_what.get("accepted")
        outcome = StepOutcome(after)
        expect, why = self.expected(accepted_check) if accepted_check else ("accepted", None)
        if why is not None:
            assert accepted_check is not None
            self.ledger.not_graded([accepted_check], why.cause, why.note)
            self._invariants_of(by_what, after, kind)
            self.ledger.not_graded(checks, why.cause, why.note)
            outcome.diverged = f"step {accepted_check.step} has no expectation: {why.note}"
            outcome.cause = why.cause
            return outcome
        must_refuse = rejects(expect)
        accepted = answer.get("accepted") is True
        if accepted_check is not None:
            found = compare_outcome(expect, answer, reasons=False)
            self._verdict(accepted_check, found, kind, message, action=action)
        holds = self._invariants_of(by_what, after, kind)
        if must_refuse and accepted:
            self.ledger.not_graded(
                checks, "divergence", "the engine accepted an action that must be refused"
            )
            outcome.resync = before if later else None
            outcome.final_comparable = False
            return outcome
        if not must_refuse and not accepted:
            self.ledger.not_graded(
                checks, "divergence", "the engine refused an action that must be accepted"
            )
            expected = self._expected_after(checks, before, action) if later else None
            if expected is not None:
                outcome.resync = expected
            else:
                outcome.diverged = (
                    f"{kind} refused at step {checks[0].step}, which must be accepted"
                )
            return outcome
        failed = self._state_checks(checks, before, answer, kind, must_refuse)
        if must_refuse and (failed or not holds):
            # A refused action changes nothing: the state before is the state to go on from.
            outcome.resync = before
        elif failed or not holds:
            outcome.resync, outcome.diverged = self._replaced(failed, after, holds)
        if not later:
            outcome.resync = None
        return outcome

    def _expected_after(
        self,
        checks: Sequence[PlannedCheck],
        before: Mapping[str, Any],
        action: Mapping[str, Any] | None,
    ) -> dict[str, Any] | None:
        """The state the case expects after ``action``, which the engine refused: the move
        (conformance.grading.after) with every value the step gives in full put in; None
        when the move is not built, or the state disagrees with a check of the step or
        breaks the pack."""
        if action is None:
            return None
        keys = [
            (c, value)
            for c in checks
            if c.what not in ("accepted", "reason", "unchanged", "invariants")
            for value, why in (self.expected(c),)
            if why is None
        ]
        given: dict[str, Any] = {}
        for check, value in keys:
            whole = _full_value(check.what, value, before)
            if whole is not None:
                given[check.what] = whole
        state = moved(before, action, self.declared, given)
        if state is None:
            return None
        state.update(given)
        if any(self._compare_key(c.what, value, state) for c, value in keys):
            return None
        if self.players is None or self.pack is None:
            return None
        if invariant_problems(state, self.players, self.pack):
            return None
        return state

    def must_accept(self, checks: Sequence[PlannedCheck]) -> bool:
        """Whether the case expects this engine to accept the step of ``checks`` (a step
        without an acceptance check, or one not graded, counts as accepted)."""
        accepted = next((c for c in checks if c.what == "accepted"), None)
        if accepted is None:
            return True
        value, why = self.expected(accepted)
        return why is not None or not rejects(value)

    def final(self, checks: Sequence[PlannedCheck], state: Mapping[str, Any]) -> None:
        """Grade the ``final`` checks against the last state."""
        for check in self.skip_ungradable(checks):
            value = self.expected(check)[0]
            found = self._compare_key(check.what, value, state)
            self._verdict(check, found, "final", None, expected=value, got=state)

    # -- helpers --------------------------------------------------------------------------------

    def _invariants_of(
        self, by_what: Mapping[str, PlannedCheck], state: Mapping[str, Any], kind: str
    ) -> bool:
        check = by_what.get("invariants")
        return True if check is None else self.invariants(check, state, kind)

    def _state_checks(
        self,
        checks: Sequence[PlannedCheck],
        before: Mapping[str, Any],
        answer: Mapping[str, Any],
        kind: str,
        refused: bool,
    ) -> list[tuple[PlannedCheck, Any]]:
        """Grade the reason, unchanged and state-key checks; return the failed key checks
        with their expected values."""
        after: Mapping[str, Any] = answer.get("state") or {}
        message = engine_message(answer) if refused else None
        failed: list[tuple[PlannedCheck, Any]] = []
        for check in self.skip_ungradable(checks):
            if check.what in ("accepted", "invariants"):
                continue
            value = self.expected(check)[0]
            if check.what == "reason":
                found = compare_outcome(value, answer, reasons=True)
            elif check.what == "unchanged":
                found = compare_unchanged(before, after, unmodelled=self.declared.unmodelled)
            else:
                found = self._compare_key(check.what, value, after)
                if found:
                    failed.append((check, value))
            self._verdict(check, found, kind, message, expected=value, got=after)
        return failed

    def _compare_key(self, key: str, value: Any, state: Mapping[str, Any]) -> list[Mismatch]:
        return compare_state(
            {key: value},
            state,
            unmodelled=self.declared.unmodelled,
            runs_as_sets=self.runs_as_sets,
        )

    def _replaced(
        self, failed: Sequence[tuple[PlannedCheck, Any]], after: Mapping[str, Any], holds: bool
    ) -> tuple[Mapping[str, Any] | None, str | None]:
        """The engine's answer with every failed key replaced by its expected value, or why
        that cannot be built."""
        if not holds:
            return None, "the answered state breaks the pack or the seats"
        state = dict(after)
        for check, value in failed:
            replaced = _full_value(check.what, value, state)
            if replaced is None:
                return None, f"{check.key} differs and gives only part of the state"
            state[check.what] = replaced
        broken = (
            self.players is not None
            and self.pack is not None
            and invariant_problems(state, self.players, self.pack)
        )
        if broken:
            return None, "the state with the expected values put back breaks the pack"
        return state, None

    def _verdict(
        self,
        check: PlannedCheck,
        found: Sequence[Mismatch],
        kind: str,
        message: str | None,
        *,
        expected: Any = None,
        got: Any = None,
        cards: Any = None,
        action: Mapping[str, Any] | None = None,
        what: str | None = None,
        said: str | None = None,
    ) -> None:
        """Record ``check`` as passed, or failed with ``found`` and its signature (``what``
        names the comparison when it is not the check's own, as ``penalty``; ``said``: the
        signature itself, when the caller knows it better)."""
        if not found:
            self.ledger.passed(check)
            return
        if said is not None:
            self.ledger.failed(check, found, kind=kind, message=message, signature=said)
            return
        hands = None
        if cards is not None:
            hands = [cards]
        elif isinstance(got, Mapping) and got.get("phase") in ENDED_PHASES:
            hands = got.get("hands")
        self.ledger.failed(
            check,
            found,
            kind=kind,
            message=message,
            signature=signature(
                what or check.what,
                found,
                expected=_score(check.what, expected),
                got=_score(check.what, got),
                hands=hands,
                profile=self.values,
                action=action,
            ),
        )


def _score(what: str, value: Any) -> Any:
    """The compared number(s) of a score check: a state's field, or a penalty's points."""
    if isinstance(value, Mapping):
        if what == "answer":
            return value.get("points")
        return value.get(what)
    return value


def _shown(value: Any) -> str:
    """A melds check's expected answer in words: ``valid``, ``invalid``, or the points."""
    if isinstance(value, Mapping):
        if "points" in value:
            return f"{value['points']} points"
        if "valid" in value:
            return "valid" if value["valid"] else "invalid"
    return str(value)


def _validity(expected: Any, answer: Any) -> str | None:
    """The signature of a melds answer whose verdict differs, with the reasons on either
    side (``valid: expected false (run_wraps or beyond_ace), got true``, ``valid: expected
    true, got false (too_many_jokers)``), so one refusal or acceptance is one behaviour
    whatever the case; None for any other difference."""
    if not isinstance(expected, Mapping) or not isinstance(answer, Mapping):
        return None
    wanted, got = expected.get("valid"), answer.get("valid")
    if wanted is False and got is True:
        reasons = reasons_of(expected)
        why = f" ({' or '.join(reasons)})" if reasons else ""
        return f"valid: expected false{why}, got true"
    if wanted is True and got is False:
        reason = answer.get("reason")
        shown = isinstance(reason, str) and 0 < len(reason) <= 40 and reason.isidentifier()
        why = f" ({reason})" if shown else ""
        return f"valid: expected true, got false{why}"
    return None


def _without_reason(expect: Any) -> Any:
    if isinstance(expect, Mapping):
        return {k: v for k, v in expect.items() if k != "reason"}
    return expect


def _full_value(key: str, value: Any, state: Mapping[str, Any]) -> Any:
    """``value`` as the whole of state field ``key``, or None when it is only part of it."""
    if key in EXACT_KEYS:
        return value
    if key in ("stock", "discard") and isinstance(value, list):
        return list(value)
    if key == "hands":
        players = len(state.get("hands") or ())
        if isinstance(value, list):
            return [list(h) for h in value]
        if isinstance(value, Mapping) and {int(k) for k in value} == set(range(players)):
            return [list(value[k]) for k in sorted(value, key=int)]
        return None
    whole_melds = isinstance(value, list) and all(
        isinstance(m, Mapping) and {"owner", "kind", "cards"} <= set(m) for m in value
    )
    if key == "table" and whole_melds:
        return [dict(m) for m in value]
    return None
