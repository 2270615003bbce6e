"""The audit both ways: an assumption no check needs is as wrong as a lean no assumption names.

``audit`` catches a case that names too few points: a check fails under an option it does
not name. This catches the other way round, a case that names too many, which costs an
honest engine the checks it gates (a Chilean engine declaring one swap ruling once lost 13
cases that pass the same under either option):

- **an assumption no check needs**: every check it gates passes under every other option of
  its point. Remove it.
- **an assumption wider than its need**: a case's (or a step's) ``assumes`` gates checks
  that pass under every other option, and only some of its checks need it. It names which
  ones: move it down to them (a step's or a check's ``assumes``), or give them per-option
  values (docs/adding-scenarios.md).

To know, the reference plays each other option and the grading grades the gated checks anyway
(conformance.run.runner.RunOptions.grade_assumed, audit mode only). A gated check counts as
needing the assumption when it fails, or cannot be graded, under some other option; as not
needing it when it passes under every one (a check that does not exist under an option is
neither). With ``--profile all`` a case is judged over all its profiles together.

One limit, said where it matters: graded anyway, a failing check puts the engine back on the
expected state, so later checks are graded from there; after an assumption moves down to a
check, the engine goes on from its own state instead. Run ``audit`` again after moving one:
a later check that leaned on the state fails there, and is named.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from conformance.audit.runs import (
    BASELINE,
    CaseRecord,
    Change,
    RunRecord,
    RunSpec,
    change_flags,
    change_label,
)
from conformance.audit.static import assumptions_of
from conformance.knowledge.catalogue import Catalogue
from conformance.scenarios import Scenario
from conformance.scenarios.model import PlannedCheck

#: What ``where`` an assumption has: the whole case, a step, or one check.
CASE = "case"


@dataclass(frozen=True)
class Assumption:
    """One ``assumes`` entry of a case: where it is written, its point and option."""

    case: str
    #: ``case``, ``step N`` or a check's key (``step 3 totals``, ``check 2``).
    where: str
    point: str
    option: str


@dataclass
class Use:
    """What the checks an assumption gates did under the other options of its point."""

    assumption: Assumption
    #: The case's checks the assumption keeps from being graded (not the invariants).
    gated: dict[str, None] = field(default_factory=dict)
    #: Gated checks that fail or cannot be graded under some other option, with why.
    needed: dict[str, str] = field(default_factory=dict)
    #: Gated checks graded and passed under at least one other option.
    passed: dict[str, None] = field(default_factory=dict)
    #: The options tried, and the profiles they were tried in.
    options: dict[str, None] = field(default_factory=dict)
    profiles: dict[str, None] = field(default_factory=dict)

    @property
    def unneeded(self) -> bool:
        """True when no gated check needs it and some were graded without it."""
        return bool(self.options) and not self.needed and bool(self.passed)

    #: Where each gated check is: its step (None: final) and what it looks at.
    places: dict[str, tuple[int | None, str]] = field(default_factory=dict)

    @property
    def spare(self) -> list[str]:
        """The gated checks that pass under every other option."""
        return [k for k in self.passed if k not in self.needed]

    def narrowest(self) -> tuple[int | None, list[str]]:
        """Where the assumption is needed at the narrowest: the first step whose acceptance,
        reason or unchanged state needs it (a step's ``assumes``: it gates that step and every
        later one), and the other checks that need it (a check's ``assumes``)."""
        first = min(
            (
                step
                for key in self.needed
                for step, what in [self.places.get(key, (None, ""))]
                if step is not None and what in _STEP_CHECKS and key.startswith("step ")
            ),
            default=None,
        )
        checks = [
            key
            for key in self.needed
            if first is None
            or key.startswith("check ")
            or not _at_or_after(self.places.get(key, (None, "")), first)
        ]
        return first, checks

    def narrower(self) -> int:
        """How many gated checks the narrowest placement would leave graded (0: none)."""
        first, checks = self.narrowest()
        kept = [
            key
            for key in self.gated
            if key not in checks
            and not (
                first is not None
                and not key.startswith("check ")
                and _at_or_after(self.places.get(key, (None, "")), first)
            )
        ]
        return len(kept)

    @property
    def too_wide(self) -> bool:
        """True when the assumption gates checks that do not need it and a narrower
        placement would let them be graded."""
        return bool(self.needed) and self.narrower() > 0

    def advice(self) -> str:
        """Where to move it: ``step 4's assumes``, ``the assumes of final totals``, or both."""
        first, checks = self.narrowest()
        parts = []
        if first is not None:
            parts.append(f"step {first}'s assumes")
        if checks:
            parts.append("the assumes of " + ", ".join(checks))
        return " and ".join(parts)

    def line(self) -> str:
        """One line for the report."""
        a = self.assumption
        where = "the case" if a.where == CASE else a.where
        options = ", ".join(self.options)
        profiles = ", ".join(self.profiles)
        if self.unneeded:
            return (
                f"{a.case}: {where} assumes {a.point}={a.option}, but every check it gates "
                f"({len(self.passed)}) passes under {options} too (in {profiles}): remove it"
            )
        shown = [f"{k} ({why})" for k, why in self.needed.items() if "divergence" not in why]
        later = len(self.needed) - len(shown)
        needs = "; ".join(shown) + (
            f"; {later} later check(s) not graded after it" if later else ""
        )
        return (
            f"{a.case}: {where} assumes {a.point}={a.option}, but {self.narrower()} of the "
            f"{len(self.gated)} checks it gates pass under {options} too (in {profiles}); it is "
            f"needed by {needs}: move it down to {self.advice()}"
        )


#: The checks of a step that only a step's ``assumes`` can gate.
_STEP_CHECKS = frozenset({"accepted", "reason", "unchanged"})


def _at_or_after(place: tuple[int | None, str], step: int) -> bool:
    at, _ = place
    return at is None or at >= step


def _step_of(where: str) -> int | None:
    return int(where[5:]) if where.startswith("step ") and where[5:].isdigit() else None


def gated_checks(assumption: Assumption, plan: Sequence[PlannedCheck]) -> list[str]:
    """The keys of the checks ``assumption`` keeps from being graded when it does not hold:
    every check of the case, every check from its step on, or the one check."""
    own = [c for c in plan if c.what != "invariants"]
    if assumption.where == CASE:
        return [c.key for c in own]
    step = _step_of(assumption.where)
    if step is not None:
        return [c.key for c in own if c.step is None or (c.step is not None and c.step >= step)]
    return [c.key for c in own if c.key == assumption.where]


def profile_option(catalogue: Catalogue, point: str, profile: str) -> str | None:
    """The option ``profile`` plays on ``point`` (None: it does not rule on it)."""
    known = catalogue.disputes.get(point)
    return None if known is None else known.profiles.get(profile)


def anyway_specs(
    scenarios: Sequence[Scenario],
    catalogue: Catalogue,
    profile: str,
    changes: Iterable[Change],
) -> list[RunSpec]:
    """The runs that grade assumed checks anyway in ``profile``: at the profile's rulings
    the cases with an assumption the profile does not share, and under each change ``(P, o)``
    the cases with an assumption on P other than ``o``."""
    assumed = {s.id: list(assumptions_of(s)) for s in scenarios if profile in s.profiles}
    specs: list[RunSpec] = []
    for change in changes:
        point, option = change
        if point is None:
            cases = {
                case
                for case, found in assumed.items()
                for _, p, o in found
                if profile_option(catalogue, p, profile) not in (None, o)
            }
            points = frozenset(catalogue.disputes)
        else:
            cases = {case for case, found in assumed.items() for _, p, o in found if p == point}
            cases = {c for c in cases if any(p == point and o != option for _, p, o in assumed[c])}
            points = frozenset({point})
        if cases:
            specs.append(
                RunSpec(
                    profile,
                    change,
                    change_flags(change),
                    cases=frozenset(cases),
                    grade_assumed=points,
                    label=f"{change_label(change)}, graded anyway",
                    kind="anyway",
                )
            )
    return specs


def _outcome(record: CaseRecord | None, key: str) -> str | None:
    """None when the check passed or does not exist; else why it needs the assumption."""
    if record is None:
        return "the case was not run"
    diverged = False
    for check in record.checks:
        if check.key == key:
            if check.status in ("pass", "xpass"):
                if diverged and not key.startswith("check "):
                    # Graded on the state put back after an earlier check failed: an engine
                    # ruling the other option, with that earlier check not graded, is not
                    # put back, so this pass proves nothing (totals carry a score forward).
                    return "passes only after an earlier divergence"
                return None
            if check.status == "fail":
                return "fails"
            return f"not graded: {check.cause or 'not run'}"
        diverged = diverged or (check.status == "fail" and not check.key.startswith("check "))
    return None  # the check does not exist under that option


def uses(
    scenarios: Sequence[Scenario],
    catalogue: Catalogue,
    profile: str,
    anyway: Sequence[RunRecord],
    into: dict[Assumption, Use] | None = None,
    points: Sequence[str] = (),
) -> dict[Assumption, Use]:
    """What every assumption of the profile's cases gates and needs, from the runs graded
    anyway (``anyway_specs``); ``into``: uses from other profiles, to merge with;
    ``points``: only assumptions on these (``audit --point``)."""
    found: dict[Assumption, Use] = {} if into is None else into
    by_change = {r.spec.change: r for r in anyway}
    for scenario in scenarios:
        if profile not in scenario.profiles:
            continue
        plan = scenario.plan_for(profile)
        for where, point, option in assumptions_of(scenario):
            ruled = profile_option(catalogue, point, profile)
            if ruled is None or (points and point not in points):
                continue  # not held to it (a static finding), or not audited
            assumption = Assumption(scenario.id, where, point, option)
            use = found.setdefault(assumption, Use(assumption))
            keys = gated_checks(assumption, plan)
            use.gated.update(dict.fromkeys(keys))
            use.places.update((c.key, (c.step, c.what)) for c in plan if c.key in use.gated)
            use.profiles[profile] = None
            for other in catalogue.disputes[point].options:
                if other == option:
                    continue
                change = BASELINE if other == ruled else (point, other)
                record = by_change.get(change)
                if record is None:
                    continue  # that option was not audited (--point)
                use.options[other] = None
                case = record.by_id.get(scenario.id)
                for key in keys:
                    why = _outcome(case, key)
                    if why is None:
                        if case is not None and any(c.key == key for c in case.checks):
                            use.passed[key] = None
                    elif key not in use.needed:
                        use.needed[key] = f"{why} under {other}"
    return found


@dataclass(frozen=True)
class BothWays:
    """The dynamic findings of the audit both ways."""

    unneeded: tuple[Use, ...]
    too_wide: tuple[Use, ...]
    #: Assumptions looked at.
    assumptions: int
    #: Findings the allowance file lists (not findings while it does).
    known: tuple[Use, ...] = ()

    @property
    def ok(self) -> bool:
        """True when every assumption is needed by every check it gates."""
        return not self.unneeded and not self.too_wide


def both_ways(
    found: Mapping[Assumption, Use], allowed: frozenset[tuple[str, str, str]] = frozenset()
) -> BothWays:
    """The findings among ``found``, by case; ``allowed``: ``(case, where, point)`` of the
    findings the allowance file lists."""
    ordered = sorted(found.values(), key=lambda u: (u.assumption.case, u.assumption.where))
    findings = [u for u in ordered if u.unneeded or u.too_wide]
    known = tuple(u for u in findings if key_of(u) in allowed)
    new = [u for u in findings if key_of(u) not in allowed]
    return BothWays(
        tuple(u for u in new if u.unneeded),
        tuple(u for u in new if u.too_wide),
        len(found),
        known,
    )


def key_of(use: Use) -> tuple[str, str, str]:
    """``(case, where, point)``: how an allowance file names a finding."""
    a = use.assumption
    return a.case, a.where, a.point


def both_ways_text(result: BothWays, profiles: Sequence[str]) -> str:
    """The report: every finding, then one line of totals."""
    lines = [use.line() for use in (*result.unneeded, *result.too_wide)]
    scope = ", ".join(profiles)
    if result.known:
        lines.append(
            f"both ways: {len(result.known)} finding(s) allowed for now (the allowance file)"
        )
    if result.ok and result.known:
        lines.append(
            f"both ways OK ({scope}): of {result.assumptions} assumption(s), no finding the "
            f"allowance does not list ({len(result.known)} listed)"
        )
    elif result.ok:
        lines.append(
            f"both ways OK ({scope}): {result.assumptions} assumption(s), each needed by "
            "every check it gates"
        )
    else:
        lines.append(
            f"both ways FAILED ({scope}): {len(result.unneeded)} assumption(s) no check "
            f"needs, {len(result.too_wide)} wider than the checks that need them, of "
            f"{result.assumptions} (docs/adding-scenarios.md, 'The audit both ways')"
        )
    return "\n".join(lines) + "\n"


def both_ways_json(result: BothWays) -> list[dict[str, Any]]:
    """The findings as plain data (in ``audit --json FILE``)."""

    def one(use: Use, kind: str) -> dict[str, Any]:
        a = use.assumption
        return {
            "kind": kind,
            "case": a.case,
            "where": a.where,
            "point": a.point,
            "option": a.option,
            "gated": list(use.gated),
            "needed_by": dict(use.needed),
            "options": list(use.options),
            "profiles": list(use.profiles),
        }

    return [one(u, "unneeded") for u in result.unneeded] + [
        one(u, "too_wide") for u in result.too_wide
    ]
