"""What grading produces: one result per check, per case and per run.

The unit of grading is the **check**: one assertion a case makes (an action's acceptance,
its rejection reason, a state field after a step, a ``final`` field, a query's answer),
with its own rule IDs. A case's status sums its checks up (docs/reports.md):

``pass``         every check that could be graded held, and at least one was graded
``fail``         some check did not hold (each failing check names its own rules)
``error``        the engine misbehaved (crash, timeout, protocol breach, error answer)
``unsupported``  no check of the case could be graded against this engine
``not_run``      skipped after too many consecutive errors, or the run ended first
``xfail``/``xpass``  a failure the engine's expectations file lists / a listed case that passed

These types are shared by the runner, the reports and the expectations; they hold no logic
beyond counting. A run's failing checks grouped by root cause are :class:`Cause` values,
defined here beside the results they group (conformance.reports.causes groups them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from conformance.adapter.engine import Handshake

#: A failing check: (case id, check key).
CheckId = tuple[str, str]


@dataclass(frozen=True)
class PropertyResult:
    """The outcome of one law over a whole run.

    ``detail`` explains the first violation (or what was checked when all held); ``seed``
    replays the run with :func:`run_properties`. A law that could check nothing (every
    deal answered ``unsupported``, no deal closed, an engine without ``deals``) has
    ``checked`` False and ``passed`` False: it is not shown to hold, so it is no pass, and
    its detail starts with "not checked".
    """

    name: str
    rules: tuple[str, ...]
    passed: bool
    detail: str
    seed: int
    checked: bool = True
    applies: bool = True
    """False when the engine lacks the capabilities the laws need (``turns`` and
    ``deals``): the law is not checked, which is no pass, and does not fail the run (it
    says what it needs; the cases grade what the engine claims)."""

    @property
    def verdict(self) -> str:
        """``pass``, ``FAIL`` or ``not checked``, as the reports show it."""
        if not self.checked:
            return "not checked"
        return "pass" if self.passed else "FAIL"


STATUSES = ("pass", "fail", "error", "unsupported", "not_run", "xfail", "xpass")

#: What a single check can come to. ``xfail``/``xpass``: a check the engine's expectations
#: file lists (or whose whole case it lists) that failed / passed (conformance/run/expectations.py).
CHECK_STATUSES = ("pass", "fail", "not_graded", "xfail", "xpass")

#: Why a check was not graded, shown grouped by cause so that a green says what it covers.
NOT_GRADED_CAUSES: Mapping[str, str] = {
    "capability": "a capability level the engine does not claim",
    "profile": "a profile the engine does not list",
    "op": "an op or action the engine answered unsupported",
    "option": (
        "a disputed point or variant the engine rules otherwise, with no value for its option"
    ),
    "interface": (
        "an interface reading (run_order, run_ends) the engine declares otherwise, or the "
        "first player of a deal an engine without a dealer picks itself"
    ),
    "players": "a player count of the profile the engine does not play",
    "unmodelled": "a state field the engine declares it does not model",
    "divergence": (
        "an earlier check failed and the engine could not be put back on the expected state"
    ),
    "error": "the engine misbehaved earlier in the case",
    "not_run": "the case was not run",
}


@dataclass(frozen=True)
class CheckResult:
    """One assertion of a case, graded (or not) against one engine."""

    #: Stable within its case, used by expectations files and report diffs:
    #: ``check 2``, ``step 3 accepted``, ``step 3 reason``, ``step 3 unchanged``,
    #: ``step 3 totals``, ``final turn``.
    key: str
    #: What the check looks at: ``answer`` (a melds query), ``accepted``, ``reason``,
    #: ``unchanged`` (a refused action left the state alone) or a state key (``totals``).
    what: str
    #: The rule IDs a failure of this check is attributed to.
    rules: tuple[str, ...]
    #: ``pass``, ``fail`` or ``not_graded``; ``xfail``/``xpass`` after expectations
    #: (CHECK_STATUSES).
    status: str
    #: The 1-based step (or melds check) the check belongs to; None for ``final``.
    step: int | None = None
    #: The scenario line of the assertion (0 when unknown).
    line: int = 0
    #: Not graded: one of NOT_GRADED_CAUSES.
    cause: str | None = None
    #: Not graded: why, in words. Failed: the engine's own words on a rejection, if any.
    note: str | None = None
    #: Failed: expected against got, cards as glyphs.
    diff: str | None = None
    #: Failed: a short form of what differed, the same across cases for one root cause
    #: (for grouping a recurring divergence once in the summary).
    signature: str | None = None


@dataclass(frozen=True)
class CaseResult:
    """The outcome of one scenario against one engine."""

    id: str
    title: str
    rules: tuple[str, ...]
    section: str
    status: str
    duration: float = 0.0
    diff: str | None = None
    error: str | None = None
    stderr_tail: str = ""
    failing_step: str | None = None
    dispute: str | None = None
    option: str | None = None
    note: str | None = None
    #: The engine's own words on the failing rejection (bounded; docs/protocol.md §6).
    engine_message: str | None = None
    #: Every check of the case, in the order the case makes them.
    checks: tuple[CheckResult, ...] = ()
    #: The rules of the failing checks (not the case's topic ``rules``), sorted.
    failed_rules: tuple[str, ...] = ()


#: The CaseResult fields that can hold engine text, cut in this order when a case
#: keeps more than conformance.io.textsafe.MAX_CASE_TEXT characters in all.
CASE_TEXT_FIELDS = ("stderr_tail", "diff", "note", "error")


@dataclass(frozen=True)
class OpSupport:
    """How the engine answered one op at one player count over a run.

    ``unsupported`` says the engine lacks the op, the profile, the player count or the
    action (docs/protocol.md §1): the same op at the same count is then answered in every
    case or refused in every case. One answered in some cases and refused in others is
    :attr:`inconsistent`: refusing where it would fail hides a failure.
    """

    #: ``check_meld``, ``load_state``, ``next_deal``; an ``act`` by its action type
    #: (``act:discard``).
    op: str
    #: The player count the case seats; None for a melds-level request.
    players: int | None
    #: Requests answered (anything but ``unsupported``), and refused as ``unsupported``.
    answered: int = 0
    refused: int = 0
    #: The first cases by id it was answered in, and refused in (OP_EXAMPLES at most).
    answered_in: tuple[str, ...] = ()
    refused_in: tuple[str, ...] = ()
    #: How many cases it was answered in, and refused in.
    answered_cases: int = 0
    refused_cases: int = 0

    #: The reason an expectations file keeps this op's inconsistency as known
    #: (``expected_unsupported``, conformance/run/expected_support.py); empty: not kept.
    expected: str = ""

    @property
    def inconsistent(self) -> bool:
        """True when the op was answered in some cases and refused in others."""
        return self.answered > 0 and self.refused > 0

    @property
    def kept_inconsistency(self) -> bool:
        """True when the op was refused inconsistently and the expectations keep it."""
        return bool(self.expected) and self.refused > 0


#: How many cases an OpSupport names on each side.
OP_EXAMPLES = 3


@dataclass(frozen=True)
class Example:
    """A cause's smallest example: one check of its case with the fewest checks."""

    case: str
    check: str
    line: int = 0
    #: The scenario file (empty when the report does not know it).
    file: str = ""

    def where(self) -> str:
        """``cc-0204 check 1 (scenarios/score.yaml:115)``."""
        place = f"{self.file}:{self.line}" if self.file else f"line {self.line}"
        return f"{self.case} {self.check} ({place})"


#: What a cause's (or a fuzz finding's) summary says an option-explained one should do.
ADVICE = "declare it in the handshake if your engine plays it, or fix the engine"

#: What a cause (or a fuzz finding) says when every option that could explain it was
#: tried, and none did.
UNEXPLAINED = (
    "no declarable option explains it: a bug to fix, or an entry for the expectations file"
)


@dataclass(frozen=True)
class Cause:
    """One root cause of failing checks, however many checks and cases show it."""

    summary: str
    checks: int
    #: The cases it shows in, in run order.
    cases: tuple[str, ...]
    rules: tuple[str, ...]
    example: Example
    #: Point (or interface key) -> option that explains it; None when none does.
    explained_by: Mapping[str, str] | None = None
    #: Its checks: (case id, check key), in run order.
    members: tuple[CheckId, ...] = ()

    def as_record(self) -> dict[str, object]:
        """The JSON report's object (report schema ``causes``)."""
        return {
            "summary": self.summary,
            "checks": self.checks,
            "cases": list(self.cases),
            "rules": list(self.rules),
            "example": {
                "case": self.example.case,
                "check": self.example.check,
                "file": self.example.file,
                "line": self.example.line,
            },
            "explained_by": dict(self.explained_by) if self.explained_by is not None else None,
            "members": self.members_by_case(),
        }

    def members_by_case(self) -> dict[str, list[str]]:
        """Its checks as {case id: [check key, …]}, in run order (the report's ``members``,
        the checks an expectations file's cause entry lists)."""
        found: dict[str, list[str]] = {}
        for case_id, key in self.members:
            found.setdefault(case_id, []).append(key)
        return found

    def line(self) -> str:
        """The cause in one line: summary, counts, rules."""
        return (
            f"{self.summary} — {self.checks} check(s) in {len(self.cases)} case(s) "
            f"[{', '.join(self.rules)}]"
        )


@dataclass(frozen=True)
class RunResult:
    """Everything a report needs: the engine's handshake and one result per case."""

    argv: tuple[str, ...]
    profile: str
    handshake: Handshake | None
    results: tuple[CaseResult, ...]
    started: float = 0.0
    duration: float = 0.0
    counts: Mapping[str, int] = field(default_factory=dict)
    #: Problems with the engine's handshake worth a reader's attention (unknown rulings).
    warnings: tuple[str, ...] = ()
    #: Why no case could run at all (the adapter did not start or failed its handshake).
    run_error: str | None = None
    #: The adapter's stderr tail for ``run_error``.
    run_error_stderr: str = ""
    #: Laws checked over seeded deals (``run --properties``), in the order checked.
    properties: tuple[PropertyResult, ...] = ()
    #: :func:`conformance.scenarios.corpus_digest` of the scenarios selected for the run.
    corpus_digest: str = ""
    #: Where the scenarios were read from (a checkout's ``scenarios/`` or the installed copy).
    corpus_path: str = ""
    #: ``K/N`` when the run graded shard K of N of the selection (``run --shard``); the
    #: digest is then the whole selection's, so that the shards' reports merge.
    shard: str = ""
    #: The failing checks grouped by root cause, most checks first (conformance.reports.causes);
    #: empty until worked out (conformance.reports.causes.with_causes).
    causes: tuple[Cause, ...] = ()
    #: How the engine answered each op at each player count (sorted by op, then players).
    ops: tuple[OpSupport, ...] = ()


def count_statuses(results: Sequence[CaseResult]) -> dict[str, int]:
    """Number of cases per status (every status present, zeros included)."""
    counts = dict.fromkeys(STATUSES, 0)
    for result in results:
        counts[result.status] = counts.get(result.status, 0) + 1
    counts["total"] = len(results)
    return counts


@dataclass(frozen=True)
class Graded:
    """How much of a run was graded, by checks: what a green is made of."""

    #: Checks graded (passed, failed or expected to fail), and in all (graded or not).
    graded: int
    total: int
    #: ``pass`` and ``xpass`` checks.
    passed: int
    #: ``fail`` checks (an expected failure is counted apart, in ``xfailed``).
    failed: int
    #: Checks not graded, by cause (NOT_GRADED_CAUSES), largest first.
    not_graded: Mapping[str, int]
    #: ``xfail`` checks: failures the engine's expectations file lists.
    xfailed: int = 0

    @property
    def share(self) -> float:
        """Graded checks as a share of all checks (0.0 when there are none)."""
        return self.graded / self.total if self.total else 0.0


def graded(results: Sequence[CaseResult]) -> Graded:
    """Count the checks of ``results``: graded against total, and the rest by cause."""
    passed = failed = xfailed = total = 0
    causes: dict[str, int] = {}
    for result in results:
        for check in result.checks:
            total += 1
            if check.status in ("pass", "xpass"):
                passed += 1
            elif check.status == "fail":
                failed += 1
            elif check.status == "xfail":
                xfailed += 1
            else:
                cause = check.cause or "not_run"
                causes[cause] = causes.get(cause, 0) + 1
    ordered = dict(sorted(causes.items(), key=lambda item: (-item[1], item[0])))
    return Graded(passed + failed + xfailed, total, passed, failed, ordered, xfailed)


@dataclass(frozen=True)
class Divergence:
    """One way an engine differs, however many checks and cases show it."""

    #: What differs, the same text in every check that shows it (CheckResult.signature).
    signature: str
    #: The rules those checks are attributed to.
    rules: tuple[str, ...]
    checks: int
    #: The cases it shows in, in run order.
    cases: tuple[str, ...]


def divergences(results: Sequence[CaseResult]) -> list[Divergence]:
    """Failing checks grouped by what differs, most checks first: one root cause that
    recurs across cases is one line ("joker left in hand: expected 50, got 30 — 14 checks
    in 9 cases"). A failing check without a signature is grouped by its key and rules;
    an expected failure (``xfail``) is not counted."""
    groups: dict[tuple[str, tuple[str, ...]], list[str]] = {}
    for result in results:
        for check in result.checks:
            if check.status != "fail":
                continue
            signature = check.signature or check.what
            groups.setdefault((signature, check.rules), []).append(result.id)
    found = [
        Divergence(signature, rules, len(ids), tuple(dict.fromkeys(ids)))
        for (signature, rules), ids in groups.items()
    ]
    found.sort(key=lambda d: (-d.checks, d.signature, d.rules))
    return found


def failing_rules(results: Sequence[CaseResult]) -> dict[str, int]:
    """Failing checks per rule ID (a check counts once for each rule it names), most first;
    an expected failure (``xfail``) is not counted."""
    counts: dict[str, int] = {}
    for result in results:
        for check in result.checks:
            if check.status == "fail":
                for rule in check.rules:
                    counts[rule] = counts.get(rule, 0) + 1
    return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))
