"""What one planned check expects of one engine, or why it cannot be graded.

An engine's options are read only through :class:`conformance.adapter.declarations.Declarations`:
an assumption it does not share, a ``by_option`` with no value for its option, a field it
does not model, or a reason check without the ``reasons`` capability each leave the check
``not_graded`` with its cause (conformance.grading.results.NOT_GRADED_CAUSES).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from conformance.adapter.declarations import Declarations
from conformance.grading.ledger import pass_results
from conformance.grading.results import CheckResult
from conformance.scenarios.identity import kept
from conformance.scenarios.model import PlannedCheck
from conformance.scenarios.options import NOT_ASSERTED, NoValue, Ruling, resolve


@dataclass(frozen=True)
class NotGraded:
    """Why a check is not graded: a cause of NOT_GRADED_CAUSES and words for its note."""

    cause: str
    note: str


#: No value given: the callee resolves the check itself.
UNSET: Any = object()

#: The value of a gradable check, or why it is not graded.
Expected = tuple[Any, NotGraded | None]


def resolved(check: PlannedCheck, declared: Declarations, disputed: str | None) -> Any:
    """``check``'s expected value under the engine's options, or the :class:`NoValue`
    the case gives none with (returned, not raised: both :func:`applies` and
    :func:`expected_value` read it, so a run resolves each check once)."""
    return _resolved(check, declared.ruling, disputed)


def _resolved(check: PlannedCheck, ruling: Ruling, disputed: str | None) -> Any:
    if not check.varies:
        return check.expected
    try:
        return resolve(check.expected, ruling, disputed)
    except NoValue as exc:
        return exc


def expected_value(
    check: PlannedCheck,
    declared: Declarations,
    disputed: str | None,
    reasons: bool,
    grade_assumed: frozenset[str] = frozenset(),
    value: Any = UNSET,
) -> Expected:
    """The value ``check`` expects of the engine ``declared`` describes, or why none.

    ``reasons``: the engine claims the ``reasons`` capability (reason checks need it).
    ``grade_assumed``: audit mode only (:func:`held`). ``value``: :func:`resolved`'s
    answer when the caller has it (else resolved here).
    """
    if check.assumes:
        gap = declared.assumption_gap(held(check.assumes, grade_assumed))
        if gap is not None:
            return None, NotGraded("option", f"the check {gap}")
    if check.what == "reason" and not reasons:
        return None, NotGraded("capability", "the engine does not claim `reasons`")
    if check.what not in _NOT_FIELDS and not declared.models(check.what):
        return None, NotGraded("unmodelled", f"the engine does not model {check.what}")
    if value is UNSET:
        value = resolved(check, declared, disputed)
    if isinstance(value, NoValue):
        return None, NotGraded("option", value.why())
    if check.what == "reason" and not _reasons(value):
        return None, NotGraded("option", "no reason is asserted under the engine's option")
    if check.what == "unchanged" and not rejects(value):
        return None, NotGraded("option", "the action is accepted under the engine's option")
    return value, None


def held(assumes: Mapping[str, str], grade_assumed: frozenset[str]) -> Mapping[str, str]:
    """The assumptions an engine is held to: all of ``assumes`` but those on the points of
    ``grade_assumed``, which are graded anyway. Audit mode only (``audit --both-ways``,
    conformance/audit): a check graded under an option it assumes away shows whether it
    needs the assumption at all. A run for an engine author never sets it.
    """
    if not grade_assumed:
        return assumes
    return {p: o for p, o in assumes.items() if p not in grade_assumed}


def applies(
    check: PlannedCheck, declared: Declarations, disputed: str | None, value: Any = UNSET
) -> bool:
    """False when ``check`` does not exist under the engine's options, so that it is neither
    graded nor counted as not graded: a reason or unchanged-state check of a step the engine's
    option accepts, or a state key a whole-state ``by_option`` asserts only under other options.
    ``value``: :func:`resolved`'s answer when the caller has it (else resolved here).
    """
    if value is UNSET:
        value = resolved(check, declared, disputed)
    return _applies(check, value)


def _applies(check: PlannedCheck, value: Any) -> bool:
    if isinstance(value, NoValue):
        return True  # a value the case does not give: not graded, and shown
    if value == NOT_ASSERTED:
        return False
    if check.what == "reason":
        return bool(_reasons(value))
    if check.what == "unchanged":
        return rejects(value)
    return True


def applicable(
    plan: Sequence[PlannedCheck], declared: Declarations, disputed: str | None
) -> tuple[list[PlannedCheck], dict[str, Any]]:
    """The checks of ``plan`` that exist under the engine's options (:func:`applies`), and
    the value of each check written per option under them (:func:`resolved`), by key.

    A check used as written needs no resolving: only those that vary are in the values.
    """
    return _applicable(plan, declared.ruling, disputed)


def _applicable(
    plan: Sequence[PlannedCheck], ruling: Ruling, disputed: str | None
) -> tuple[list[PlannedCheck], dict[str, Any]]:
    values: dict[str, Any] = {}
    kept: list[PlannedCheck] = []
    for check in plan:
        if check.varies:
            value = values[check.key] = _resolved(check, ruling, disputed)
        else:
            value = check.expected
        if _applies(check, value):
            kept.append(check)
    return kept, values


@dataclass(frozen=True)
class Resolution:
    """A plan resolved for the engines playing the options it read (:class:`Resolutions`)."""

    #: The case's disputed point (by_option branches keyed by its options read it).
    disputed: str | None
    #: Every ``(point, option)`` the resolving asked for.
    read: tuple[tuple[str, str | None], ...]
    #: :func:`applicable`'s checks and values.
    kept: tuple[PlannedCheck, ...]
    values: Mapping[str, Any]
    #: Each kept check's result when it passes, by key, made when it first passes or ahead
    #: (conformance.grading.ledger.pass_results): the case's ledgers share it.
    passes: dict[str, CheckResult]


class Resolutions:
    """:func:`applicable`'s answers for a run (and each kept check's result when it passes),
    each kept with the options it read, so that an engine playing the same options on
    those points gets it without resolving again.

    What an answer depends on is recorded as it is worked out (every option the resolving
    asked for), not declared beside it: a case whose ``by_option`` names a point no list
    anticipated is still looked up correctly. The runner fills it while the adapter starts,
    with the profile's own options (:meth:`warm`), and reads it per case (:meth:`get`).
    Answers are shared: callers only read them, but for the pass results a ledger adds the
    first time a check passes.
    """

    def __init__(self) -> None:
        # Each plan's answers (conformance.scenarios.identity).
        self._known: dict[int, tuple[Sequence[PlannedCheck], list[Resolution]]] = {}

    def get(
        self, plan: Sequence[PlannedCheck], declared: Declarations, disputed: str | None
    ) -> Resolution:
        """:func:`applicable` (``plan``, ``declared``, ``disputed``), worked out once."""
        return self._answer(plan, declared.ruling, disputed)

    def warm(self, plan: Sequence[PlannedCheck], ruling: Ruling, disputed: str | None) -> None:
        """Work out ``plan``'s answer for an engine whose options ``ruling`` gives (say the
        profile's own), with its checks' pass results, ahead of the case."""
        answer = self._answer(plan, ruling, disputed)
        answer.passes.update(pass_results(c for c in answer.kept if c.key not in answer.passes))

    def _answer(
        self, plan: Sequence[PlannedCheck], ruling: Ruling, disputed: str | None
    ) -> Resolution:
        answers = kept(self._known, plan, lambda _: [])
        for known in answers:
            if known.disputed == disputed and all(ruling(p) == o for p, o in known.read):
                return known
        read: dict[str, str | None] = {}

        def recording(point: str) -> str | None:
            read[point] = option = ruling(point)
            return option

        checks, values = _applicable(plan, recording, disputed)
        answer = Resolution(disputed, tuple(read.items()), tuple(checks), values, {})
        answers.append(answer)
        return answer


#: Check kinds that are not state fields (``models`` does not apply to them).
_NOT_FIELDS = frozenset({"answer", "accepted", "reason", "unchanged", "invariants"})


def rejects(expect: Any) -> bool:
    """True when a resolved step ``expect`` is a refusal."""
    return expect == "rejected" or (isinstance(expect, Mapping) and "rejected" in expect)


def _reasons(expect: Any) -> list[str]:
    if not isinstance(expect, Mapping):
        return []
    value = expect.get("rejected", expect.get("reason"))
    if isinstance(value, str):
        return [value]
    return [str(v) for v in value] if isinstance(value, list) else []


def reasons_of(expect: Any) -> list[str]:
    """The acceptable reasons a resolved ``expect`` (step or melds check) names."""
    return _reasons(expect)
