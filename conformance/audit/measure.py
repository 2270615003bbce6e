"""The measurement: how much of a profile is graded under each honest declaration.

An engine that declares another option on one point should lose only the checks about that
point. For each profile this counts the **checks** (conformance.grading.results.graded()) the
reference grades when it plays

- the profile's own rulings (the baseline),
- every single-option change (each other option of each point the profile rules on), and
- any rulings file an author passes (``audit --graded --rulings FILE``).

The share is always of the profile's checks as counted under the profile's own rulings: a
check that does not exist under a change (a key asserted only under other options) counts
as not graded there, so a change cannot look better by dropping checks. A row is under its
floor when its share is, and every check that *fails* under a run is a finding of its own
(the case leans on a point it does not name, or gives a wrong value for that option).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from conformance.audit.allowance import Allowance
from conformance.audit.runs import BASELINE, GRADED, Change, RunRecord

#: The default floors: a single-option change, and an author's rulings file.
SINGLE_FLOOR = 0.97
RULINGS_FLOOR = 0.90

#: How many of the cases losing most checks a row names.
LOSING_MOST = 5


@dataclass(frozen=True)
class FailingCheck:
    """A check that fails (or a case that errs) while the reference plays a run's rulings."""

    case: str
    #: The check's key (``step 3 totals``), or ``case`` for a case that erred.
    check: str
    rules: tuple[str, ...]
    detail: str


@dataclass(frozen=True)
class Row:
    """One run's graded share of a profile's checks."""

    label: str
    #: The single-option change, or None for a rulings file.
    change: Change | None
    graded: int
    total: int
    #: Checks graded under the profile's rulings and not under this run.
    lost: int
    floor: float
    failing: tuple[FailingCheck, ...] = ()
    #: ``(case, checks lost)``, most first.
    losing_most: tuple[tuple[str, int], ...] = ()
    broken: str | None = None
    #: The floor the row is meant to keep (``floor`` is lower while an allowance file lets
    #: it keep what it keeps today: conformance/audit/allowance.py).
    target: float = 0.0
    #: Failing checks the allowance file lists (not findings while it does).
    known: tuple[FailingCheck, ...] = ()
    #: Measured only (an author's declarations with no ``--min``): its share and failing
    #: checks are reported, and fail nothing.
    measured: bool = False

    @property
    def share(self) -> float:
        """Graded checks as a share of the profile's (0.0 when it has none)."""
        return self.graded / self.total if self.total else 0.0

    @property
    def under_floor(self) -> bool:
        """True when the run keeps less than its floor (or could not run)."""
        return self.broken is not None or self.share < self.floor

    @property
    def ok(self) -> bool:
        """True when the run keeps its floor and no check fails (measured only: it ran)."""
        if self.measured:
            return self.broken is None
        return not self.under_floor and not self.failing


@dataclass(frozen=True)
class ProfileMeasure:
    """The measurement of one profile."""

    profile: str
    cases: int
    #: The profile's checks, as counted under its own rulings.
    total: int
    baseline: Row
    #: Single-option changes, worst first.
    changes: tuple[Row, ...] = ()
    #: One row per rulings file, in the order given.
    declared: tuple[Row, ...] = ()

    @property
    def rows(self) -> tuple[Row, ...]:
        """Every row: the baseline, the rulings files, then the changes."""
        return (self.baseline, *self.declared, *self.changes)

    @property
    def ok(self) -> bool:
        """True when every row keeps its floor and no check fails anywhere."""
        return all(row.ok for row in self.rows)


def _checks(record: RunRecord) -> dict[tuple[str, str], str]:
    return {(case.id, check.key): check.status for case in record.cases for check in case.checks}


def _failing(record: RunRecord) -> tuple[FailingCheck, ...]:
    found: list[FailingCheck] = []
    for case in record.cases:
        if case.status == "error":
            found.append(FailingCheck(case.id, "case", (), f"error: {case.detail}"))
        for check in case.checks:
            if check.status == "fail":
                diff = " | ".join(line.strip() for line in check.diff.splitlines())
                found.append(FailingCheck(case.id, check.key, check.rules, diff[:300]))
    return tuple(found)


def row_of(
    record: RunRecord,
    plan: Mapping[tuple[str, str], str],
    floor: float,
    label: str,
    change: Change | None,
    allowance: Allowance | None = None,
) -> Row:
    """The row of one run against the baseline's checks ``plan`` (key -> baseline status);
    ``allowance``: what the corpus is allowed not to meet yet (change rows only)."""
    total = len(plan)
    profile = record.spec.profile
    kept = floor if allowance is None else allowance.floor(profile, label, floor)
    if record.broken is not None:
        return Row(label, change, 0, total, 0, kept, broken=record.broken, target=floor)
    statuses = _checks(record)
    graded = sum(1 for key in plan if statuses.get(key) in GRADED)
    lost_keys = [k for k, s in plan.items() if s in GRADED and statuses.get(k) not in GRADED]
    per_case = Counter(case for case, _ in lost_keys)
    failing = _failing(record)
    allowed = allowance.failing if allowance is not None else frozenset()
    known = tuple(f for f in failing if (profile, label, f.case, f.check) in allowed)
    return Row(
        label,
        change,
        graded,
        total,
        len(lost_keys),
        kept,
        tuple(f for f in failing if f not in known),
        tuple(per_case.most_common(LOSING_MOST)),
        target=floor,
        known=known,
    )


def measure(
    profile: str,
    baseline: RunRecord,
    changes: Sequence[RunRecord] = (),
    declared: Sequence[RunRecord] = (),
    *,
    floor: float = SINGLE_FLOOR,
    rulings_floor: float | None = RULINGS_FLOOR,
    allowance: Allowance | None = None,
) -> ProfileMeasure:
    """The measurement of ``profile`` from its runs: the baseline (the profile's rulings),
    single-option changes and rulings files; ``allowance`` applies to the first two.
    ``rulings_floor`` None: the rulings files are measured only (their rows fail nothing)."""
    plan = _checks(baseline)
    base = row_of(baseline, plan, floor, "the profile's rulings", BASELINE, allowance)
    rows = [row_of(r, plan, floor, r.spec.label, r.spec.change, allowance) for r in changes]
    rows.sort(key=lambda row: (row.broken is None, row.share, -len(row.failing), row.label))
    if rulings_floor is None:
        files = [replace(row_of(r, plan, 0.0, r.spec.label, None), measured=True) for r in declared]
    else:
        files = [
            row_of(r, plan, min(rulings_floor, r.spec.floor), r.spec.label, None) for r in declared
        ]
    return ProfileMeasure(profile, len(baseline.cases), len(plan), base, tuple(rows), tuple(files))


# -- output ---------------------------------------------------------------------------------


def _pct(share: float) -> str:
    return f"{100 * share:5.1f}%"


def _row_line(row: Row) -> str:
    if row.broken is not None:
        return f"  {'--':>6} {'--':>6} {'--':>7}  {row.label}: run broke: {row.broken}"
    mark = "<" if row.under_floor and not row.measured else " "
    most = ", ".join(f"{case} ({n})" for case, n in row.losing_most)
    return (
        f"{mark} {_pct(row.share)} {row.lost:6d} {len(row.failing):7d}  {row.label:<34} {most}"
    ).rstrip()


def measure_text(measure: ProfileMeasure, *, failing_limit: int = 40) -> str:
    """The human table of one profile: the baseline and files, then changes worst first,
    then every failing check."""
    lines = [
        f"{measure.profile}: {measure.cases} cases, {measure.total} checks under the "
        "profile's rulings; share of them graded under each ruling ('<': under its floor)",
        f"  {'share':>6} {'lost':>6} {'failing':>7}  {'rulings':<34} cases losing most",
    ]
    lines += [_row_line(row) for row in measure.rows]
    failing = [(row, f) for row in measure.rows for f in row.failing]
    if failing:
        lines.append(f"{measure.profile}: {len(failing)} failing check(s) (a finding each):")
        for row, found in failing[:failing_limit]:
            rules = f" [{', '.join(found.rules)}]" if found.rules else ""
            lines.append(f"  {found.case} {found.check}{rules} under {row.label}: {found.detail}")
        if len(failing) > failing_limit:
            lines.append(f"  ... and {len(failing) - failing_limit} more (--json FILE has all)")
    known = sum(len(row.known) for row in measure.rows)
    allowed = [row for row in measure.rows if row.floor < row.target and row.share < row.target]
    if known or allowed:
        lines.append(
            f"{measure.profile}: allowed for now (the allowance file): {len(allowed)} ruling(s) "
            f"under {_pct(measure.baseline.target).strip()} kept at today's share, "
            f"{known} failing check(s)"
        )
    under = [row for row in measure.rows if row.under_floor]
    measured = [row for row in measure.rows if row.measured]
    if measured:
        lines.append(
            f"{measure.profile}: the declarations are measured, not judged: "
            f"{sum(len(r.failing) for r in measured)} failing check(s) under them; "
            "--min SHARE fails a declaration keeping less, or failing a check"
        )
    if measure.ok:
        worst = min(measure.rows, key=lambda row: row.share)
        floors = "its floor" if not (known or allowed) else "its floor or its share allowed"
        fails = "no check fails" if not known else "no check fails that the allowance does not list"
        lines.append(
            f"{measure.profile}: OK: {len(measure.rows)} ruling(s) each keep {floors}, the "
            f"worst {_pct(worst.share).strip()} ({worst.label}); {fails}"
        )
    else:
        lines.append(
            f"{measure.profile}: FAILED: {len(under)} ruling(s) under the floor, "
            f"{len(failing)} failing check(s)"
        )
    return "\n".join(lines) + "\n"


def measure_json(measures: Sequence[ProfileMeasure]) -> dict[str, Any]:
    """The measurement as plain data (``audit --graded --json FILE``; docs/adding-scenarios.md,
    "The measurement")."""

    def row(r: Row) -> dict[str, Any]:
        return {
            "label": r.label,
            "point": r.change[0] if r.change is not None else None,
            "option": r.change[1] if r.change is not None else None,
            "graded": r.graded,
            "total": r.total,
            "share": round(r.share, 6),
            "lost": r.lost,
            "floor": r.floor,
            "ok": r.ok,
            "broken": r.broken,
            "target": r.target,
            "known": [{"case": f.case, "check": f.check} for f in r.known],
            "losing_most": [{"case": c, "lost": n} for c, n in r.losing_most],
            "failing": [
                {"case": f.case, "check": f.check, "rules": list(f.rules), "detail": f.detail}
                for f in r.failing
            ],
        }

    return {
        "ok": all(m.ok for m in measures),
        "profiles": {
            m.profile: {
                "cases": m.cases,
                "checks": m.total,
                "ok": m.ok,
                "baseline": row(m.baseline),
                "rulings_files": [row(r) for r in m.declared],
                "changes": [row(r) for r in m.changes],
            }
            for m in measures
        },
    }
