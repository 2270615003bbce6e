"""The hostile probes' outcomes as a run's cases (``run --hostile``) and as smoke's checks
(``smoke --hostile``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from conformance.errors import EngineError
from conformance.grading.results import CaseResult, CheckResult
from conformance.laws.hostile.model import NOT_IN_PROFILE, MayRefuse, ProbeOutcome
from conformance.laws.hostile.probes import HOSTILE_PROBES
from conformance.laws.hostile.sending import probe_engine

if TYPE_CHECKING:
    from conformance.grading.results import RunResult
    from conformance.run.runner import RunOptions


# -- as a section of a run ----------------------------------------------------------------

#: The section of a run the probes' cases are listed under.
SECTION = "hostile"

#: The id of each probe's case in a run (an expectations file may name them): every probe
#: but those whose answer the protocol leaves to the engine, which grade nothing.
HOSTILE_IDS = tuple(
    f"{SECTION}/{probe.key}" for probe in HOSTILE_PROBES if not isinstance(probe.expect, MayRefuse)
)


def case_results(outcomes: Sequence[ProbeOutcome]) -> tuple[CaseResult, ...]:
    """One case per probe, one check each, graded like any case: a failed probe names the
    request, the answer and its protocol section; one not sent is not graded, with its
    cause (results.NOT_GRADED_CAUSES), but for one the profile has no place for. A probe
    whose answer the protocol leaves free (``info``) is no case."""
    results = []
    for outcome in outcomes:
        # A probe the profile has no place for, or whose answer the protocol leaves free
        # (reported by smoke as information), grades nothing.
        if outcome.cause == NOT_IN_PROFILE or isinstance(outcome.probe.expect, MayRefuse):
            continue
        probe = outcome.probe
        rules = (f"protocol {probe.section}",)
        failed = outcome.status == "fail"
        check = CheckResult(
            key="answer",
            what="answer",
            rules=rules,
            status=outcome.status,
            step=1,
            cause=outcome.cause,
            note=outcome.detail or None if outcome.status == "not_graded" else None,
            diff=outcome.failure() if failed else None,
            signature=f"{probe.key}: {outcome.answer}" if failed else None,
        )
        status = {"pass": "pass", "fail": "fail", "not_graded": "unsupported"}[outcome.status]
        results.append(
            CaseResult(
                id=f"{SECTION}/{probe.key}",
                title=f"{probe.title} (protocol {probe.section}: {probe.expect})",
                rules=rules,
                section=SECTION,
                status=status,
                duration=outcome.duration,
                diff=outcome.failure() if failed else None,
                failing_step="step 1" if failed else None,
                note=outcome.detail or None if outcome.status == "not_graded" else None,
                checks=(check,),
                failed_rules=rules if failed else (),
            )
        )
    return tuple(results)


def not_sent(cause: str, detail: str) -> list[ProbeOutcome]:
    """Every probe not graded for one reason (the engine plays no count, lacks the profile)."""
    return [
        ProbeOutcome(probe, "not_graded", detail=detail, cause=cause) for probe in HOSTILE_PROBES
    ]


def hostile_run(argv: Sequence[str], options: RunOptions) -> tuple[CaseResult, ...]:
    """Start a fresh adapter, send the probes in ``options.profile`` and grade them as cases
    (``run --hostile``). Never raises for engine trouble: an adapter that cannot start
    leaves every probe not graded (cause ``error``)."""
    from conformance.adapter.declarations import declarations
    from conformance.knowledge.catalogue import load_catalogue
    from conformance.knowledge.optionfacts import with_packs
    from conformance.knowledge.profiles import default_profiles
    from conformance.run.runner import start_session

    try:
        session = start_session(argv, options)
    except EngineError as exc:
        return case_results(not_sent("error", f"the adapter could not start: {exc}"))
    try:
        assert session.handshake is not None
        declared = declarations(session.handshake, options.profile, load_catalogue())
        if not declared.plays_profile:
            detail = f"the engine does not list profile {options.profile}"
            return case_results(not_sent("profile", detail))
        facts = with_packs(default_profiles()[options.profile], declared.ruling)
        counts = [n for n in declared.players if n in facts.players]
        if not counts:
            return case_results(not_sent("players", "the engine plays no count of the profile"))
        return case_results(probe_engine(session, declared, facts, counts[0]))
    finally:
        session.close()


def with_cases(run: RunResult, cases: Sequence[CaseResult]) -> RunResult:
    """``run`` with ``cases`` appended to its results and counted."""
    from dataclasses import replace

    from conformance.grading.results import count_statuses

    results = (*run.results, *cases)
    return replace(run, results=results, counts=count_statuses(results))


# -- as smoke checks ----------------------------------------------------------------------


def hostile_checks(outcomes: Sequence[ProbeOutcome]) -> list[tuple[str, bool, str]]:
    """Smoke's checks (name, ok, detail): one per failed probe, naming the request, the
    answer and the protocol section, then one that counts them. Passing needs at least one
    probe graded and none failed; probes not graded are listed with why (but for those the
    profile has no place for, which are not counted). A probe whose answer the protocol
    leaves free gets a passing line saying what the engine did, and is not counted."""
    checks = [
        (f"hostile {o.probe.key}", False, o.failure()) for o in outcomes if o.status == "fail"
    ]
    # What the engine did where the protocol leaves it free: shown, never failed.
    informed = [
        (f"hostile {o.probe.key} (information)", True, f"{o.probe.title}: {o.detail}")
        for o in outcomes
        if o.status == "info"
    ]
    counted = [o for o in outcomes if o.cause != NOT_IN_PROFILE and o.status != "info"]
    passed = sum(o.status == "pass" for o in counted)
    skipped = [o for o in counted if o.status == "not_graded"]
    detail = f"{passed} of {len(counted)} probes answered as the protocol requires"
    if checks:
        detail += f", {len(checks)} not"
    if skipped:
        # One entry per reason, not per probe: "9 the engine does not claim turns" reads as
        # the one cause it is.
        by_reason: dict[str, list[str]] = {}
        for o in skipped:
            by_reason.setdefault(o.detail, []).append(o.probe.key)
        listed = "; ".join(
            f"{', '.join(keys)}: {reason}" if len(keys) <= 3 else f"{len(keys)} probes: {reason}"
            for reason, keys in by_reason.items()
        )
        detail += f"; {len(skipped)} not graded ({listed})"
    ok = passed > 0 and not checks
    if not passed:
        detail += "; none graded, so nothing was shown"
    return [*checks, *informed, ("hostile", ok, detail)]
