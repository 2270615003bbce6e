"""What a run comes to: its exit code, and whether its green was earned.

A run is green only when nothing failed **and** something was graded. This module counts
what was graded (checks, graded against all, the rest by cause, plus the profile's player
counts the engine does not play) and turns a finished
:class:`~conformance.grading.results.RunResult` into a :class:`Verdict`: the exit code
``run`` returns and one line per reason the run is not green. The gates a CI job may add
(``--min-graded``, ``--all-players``) are :class:`Gates`. Nothing here prints or reads
argv, so the pytest plugin, a notebook or a CI script judges a run exactly as the command
line does.

Exit codes: conformance.run.exitcodes (the command line's ``--help`` lists them too).

Until every case carries its checks (an older runner, a report without them), the unit is
the case: a case that passed or failed was graded, one that was unsupported, errored or did
not run was not.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from conformance.adapter.declarations import Declarations, declarations
from conformance.grading.results import CaseResult, Graded, RunResult, graded
from conformance.grading.support import (
    broken_claims,
    claim_text,
    inconsistent,
    refused_at_one_count,
    refused_players,
)
from conformance.knowledge.catalogue import Catalogue
from conformance.run.exitcodes import EXIT_ADAPTER, EXIT_FAILED, EXIT_OK, EXIT_UNGRADED, EXIT_USAGE

#: Which exit code wins when several profiles of one command end differently: the one
#: that says most about what to fix first (a usage error, then a dead adapter, then
#: failures, then too little graded).
SEVERITY: tuple[int, ...] = (EXIT_USAGE, EXIT_ADAPTER, EXIT_FAILED, EXIT_UNGRADED, EXIT_OK)

#: How the summary names each cause of a check not graded, briefly (the full text is
#: conformance.grading.results.NOT_GRADED_CAUSES; docs/reports.md explains each).
CAUSE_LABELS: Mapping[str, str] = {
    "capability": "capability not claimed",
    "profile": "profile not listed",
    "op": "op unsupported",
    "option": "option declared",
    "interface": "interface reading",
    "players": "player count",
    "unmodelled": "field not modelled",
    "divergence": "after a divergence",
    "error": "after an error",
    "not_run": "not run",
    # Case-level fallback (results without checks): the case's own status.
    "unsupported": "unsupported",
}

#: Case statuses that mean the case was graded, when results carry no checks.
_GRADED_CASE = {"pass": "pass", "xpass": "pass", "fail": "fail", "xfail": "fail"}


@dataclass(frozen=True)
class Tally:
    """How much of one profile's run was graded."""

    #: ``checks`` (results carry their checks) or ``cases`` (the fallback).
    unit: str
    counts: Graded
    #: The profile's player counts the engine does not play (they cannot be graded).
    missing_players: tuple[int, ...] = ()
    #: The player counts the engine plays in the profile, and those the profile's text has.
    players: tuple[int, ...] = ()
    profile_players: tuple[int, ...] = ()
    #: Of ``missing_players``, those the engine declares but refused as ``unsupported``
    #: (grading/support.py ``refused_players``): the gate reads what was answered too.
    refused_players: tuple[int, ...] = ()

    @property
    def nothing_graded(self) -> bool:
        """True when not one check (or case) was graded."""
        return self.counts.graded == 0

    def not_graded_text(self) -> str:
        """What was not graded, by cause, largest first: ``60 interface reading, 12 option
        declared; players 5 not played, the engine plays 2-4``; empty when all was graded."""
        parts = [
            f"{n} {CAUSE_LABELS.get(cause, cause)}" for cause, n in self.counts.not_graded.items()
        ]
        text = ", ".join(parts)
        if self.missing_players:
            missing = f"players {_counts(self.missing_players)} not played"
            if self.refused_players:
                missing += f" ({_counts(self.refused_players)} declared, refused as unsupported)"
            if self.players:
                missing += f", the engine plays {_counts(self.players)}"
            text = f"{text}; {missing}" if text else missing
        return text

    def line(self) -> str:
        """``graded 1500/1600 checks (not graded: …)``: what a green is made of."""
        counts = self.counts
        text = f"graded {counts.graded}/{counts.total} {self.unit}"
        rest = self.not_graded_text()
        return f"{text} (not graded: {rest})" if rest else text


#: The causes of a check not graded that the engine's own handshake or answers chose: a
#: capability not claimed, an op refused, an option, an interface reading, a field not
#: modelled, a player count not played.
#: What the engine's declarations and refusals keep ungraded, for the notes on hidden
#: sections. A capability not claimed is left out: the summary line already counts it, and
#: an engine that claims only melds would otherwise read a note on every other section.
DECLARED_CAUSES: frozenset[str] = frozenset({"op", "option", "interface", "unmodelled", "players"})


def hidden_sections(results: Sequence[CaseResult]) -> list[tuple[str, int, int, str]]:
    """The rule sections more than half of whose checks the engine's declarations and
    refusals kept from being graded: (section, checks not graded so, checks in all, the
    causes), in the order first met. Graded around them, a green would say little of
    them: the summary says so."""
    by_section: dict[str, list[CaseResult]] = {}
    for result in results:
        by_section.setdefault(result.section, []).append(result)
    found = []
    for section, members in by_section.items():
        counted = graded(members)
        hidden = {c: n for c, n in counted.not_graded.items() if c in DECLARED_CAUSES}
        kept = sum(hidden.values())
        if counted.total and kept * 2 > counted.total:
            why = ", ".join(f"{n} {CAUSE_LABELS.get(c, c)}" for c, n in hidden.items())
            found.append((section, kept, counted.total, why))
    return found


def _counts(numbers: Sequence[int]) -> str:
    """``2-4`` for a contiguous range, else ``2, 4, 6``."""
    ordered = sorted(numbers)
    if len(ordered) > 2 and ordered == list(range(ordered[0], ordered[-1] + 1)):
        return f"{ordered[0]}-{ordered[-1]}"
    return ", ".join(map(str, ordered))


def has_checks(results: Sequence[CaseResult]) -> bool:
    """True when the results carry their checks (a runner that grades check by check)."""
    return any(result.checks for result in results)


def case_tally(results: Sequence[CaseResult]) -> Graded:
    """The fallback count, by case: passed and failed cases are graded, the rest not, by
    their status (``unsupported``, ``error``, ``not_run``)."""
    passed = failed = 0
    causes: dict[str, int] = {}
    for result in results:
        kind = _GRADED_CASE.get(result.status)
        if kind == "pass":
            passed += 1
        elif kind == "fail":
            failed += 1
        else:
            causes[result.status] = causes.get(result.status, 0) + 1
    ordered = dict(sorted(causes.items(), key=lambda item: (-item[1], item[0])))
    return Graded(passed + failed, len(results), passed, failed, ordered)


def run_declarations(run: RunResult, catalogue: Catalogue | None) -> Declarations | None:
    """The engine's declarations in the run's profile (None when it never shook hands)."""
    if run.handshake is None:
        return None
    return declarations(run.handshake, run.profile, catalogue)


def tally(run: RunResult, catalogue: Catalogue | None = None) -> Tally:
    """Count what ``run`` graded: its checks (or its cases, when it carries no checks) and
    the player counts of the profile the engine does not play."""
    if has_checks(run.results):
        unit, counts = "checks", graded(run.results)
    else:
        unit, counts = "cases", case_tally(run.results)
    declared = run_declarations(run, catalogue)
    if declared is None:
        return Tally(unit, counts)
    refused = refused_players(run.ops, declared.players)
    return Tally(
        unit,
        counts,
        missing_players=tuple(sorted({*declared.missing_players, *refused})),
        players=tuple(n for n in declared.players if n not in refused),
        profile_players=declared.profile_players,
        refused_players=refused,
    )


@dataclass(frozen=True)
class Gates:
    """What a CI job may demand beyond "nothing failed and something was graded"."""

    #: The least share (0 to 1) of checks that must be graded; None: no such gate.
    min_graded: float | None = None
    #: Every player count of the profile's text must be one the engine plays.
    all_players: bool = False
    #: How the reasons name the ``min_graded`` gate (the pytest plugin has its own flag).
    option: str = "--min-graded"


def parse_share(text: str, option: str = "--min-graded") -> float:
    """``--min-graded`` (or ``option``): a share ``0.9`` or a percentage ``90%``, between 0
    and 1.

    :raises ValueError: naming the option and the value when it is neither, or out of range.
    """
    raw = text.strip()
    try:
        share = float(raw[:-1]) / 100 if raw.endswith("%") else float(raw)
    except ValueError:
        raise ValueError(f"{option} {text}: expected a share like 0.9 or 90%") from None
    if not 0.0 <= share <= 1.0:  # also refuses NaN
        raise ValueError(f"{option} {text}: must be between 0 and 1 (0% and 100%)")
    return share


def graded_drop(old: Graded, new: Graded, most: float, unit: str = "checks") -> str | None:
    """Why ``new`` fails the ``report diff --max-graded-drop`` gate against ``old``: its
    graded count fell by more than the share ``most`` of the old one (0: by any); None
    when it did not."""
    fall = old.graded - new.graded
    if fall <= 0 or fall <= most * old.graded:
        return None
    return (
        f"graded {unit} fell from {old.graded}/{old.total} to {new.graded}/{new.total} "
        f"({fall / old.graded:.1%} fewer), more than --max-graded-drop {most * 100:g}%"
    )


@dataclass(frozen=True)
class Verdict:
    """What a run comes to: the exit code and one line per reason it is not green."""

    code: int
    #: Why the run is not green, beyond the failures the summary lists: one line each.
    reasons: tuple[str, ...] = ()
    tally: Tally | None = None
    #: Cases (and laws) that fail the run: failures, errors, cases not run, xpass if strict.
    bad: int = 0
    details: Mapping[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """True for a green run."""
        return self.code == EXIT_OK


def profile_missing(run: RunResult) -> str | None:
    """Why the engine cannot be graded on the run's profile at all; None when it lists it."""
    hs = run.handshake
    if hs is None or run.profile in hs.profiles:
        return None
    listed = ", ".join(hs.profiles) or "none"
    return (
        f"the engine does not support profile {run.profile!r}: its handshake lists profiles "
        f"{listed} (docs/protocol.md §2)"
    )


def judge(
    run: RunResult,
    catalogue: Catalogue | None = None,
    *,
    strict: bool = False,
    gates: Gates = Gates(),
) -> Verdict:
    """The exit code of ``run`` and why it is not green.

    In order: an adapter that never started or a profile the engine does not list (3);
    failures, errors, cases not run, broken laws, an xpass under ``strict``, an op answered
    in some cases and refused as ``unsupported`` in others (or at one player count only),
    a capability claimed whose every request was refused (1); nothing graded, or a gate
    not met (4). Every reason that applies is given, whichever code wins.
    """
    counts = run.counts
    if run.run_error is not None:
        return Verdict(EXIT_ADAPTER, (f"the adapter could not start: {run.run_error}",))
    missing = profile_missing(run)
    if missing is not None:
        return Verdict(EXIT_ADAPTER, (f"{missing}; no case was graded",))
    details = {
        "fail": counts.get("fail", 0),
        "error": counts.get("error", 0),
        "not_run": counts.get("not_run", 0),
        # A law the engine's capabilities leave out (no turns, no deals) is not checked, and
        # says so; the cases grade what the engine claims.
        "laws": sum(not law.passed and law.applies for law in run.properties),
        "xpass": counts.get("xpass", 0) if strict else 0,
        # Refusing where it would fail hides a failure (the run's warnings name each op).
        "inconsistent": len(inconsistent(run.ops)),
        "one_count": len(refused_at_one_count(run.ops)),
    }
    counted = tally(run, catalogue)
    # A capability claimed and never played: the rest of the run looks green, and the
    # claim is broken (a failure). A run that graded nothing is not green already (4).
    claims = broken_claims(run.ops, run.handshake.capabilities if run.handshake else ())
    details["claims"] = 0 if counted.nothing_graded else len(claims)
    bad = sum(details.values())
    reasons: list[str] = []
    if details["inconsistent"]:
        reasons.append(
            f"profile {run.profile}: {details['inconsistent']} op(s) answered in some cases "
            "and refused as unsupported in others at the same player count (the warnings "
            "name them)"
        )
    if details["claims"]:
        reasons.extend(f"profile {run.profile}: {claim_text(c, run.ops)}" for c in claims)
    if details["one_count"]:
        reasons.append(
            f"profile {run.profile}: {details['one_count']} op(s) refused as unsupported at "
            "one player count and answered at another, where other ops were played (the "
            "warnings name them)"
        )
    if counted.nothing_graded:
        why = counted.not_graded_text() or "none to grade"
        reasons.append(
            f"profile {run.profile}: nothing was graded: 0 of {counted.counts.total} "
            f"{counted.unit} ({why})"
        )
    elif gates.min_graded is not None and counted.counts.share < gates.min_graded:
        reasons.append(
            f"profile {run.profile}: {counted.counts.graded}/{counted.counts.total} "
            f"{counted.unit} graded ({counted.counts.share:.1%}), under {gates.option} "
            f"{gates.min_graded * 100:g}%"
        )
    if gates.all_players and counted.missing_players:
        refused = counted.refused_players
        said = (
            f"; it declares {_counts(refused)} but refused those games as unsupported"
            if refused
            else ""
        )
        reasons.append(
            f"profile {run.profile}: the engine does not play {_counts(counted.missing_players)} "
            f"players; the profile's text has {_counts(counted.profile_players)}{said} "
            "(--all-players)"
        )
    if bad:
        code = EXIT_FAILED
    elif reasons:
        code = EXIT_UNGRADED
    else:
        code = EXIT_OK
    return Verdict(code, tuple(reasons), counted, bad, details)


def worst(codes: Sequence[int]) -> int:
    """The exit code of several runs (``run --profile all``): the most severe of ``codes``
    (SEVERITY); an unknown code (a signal's) wins over all."""
    for code in codes:
        if code not in SEVERITY:
            return code
    for code in SEVERITY:
        if code in codes:
            return code
    return EXIT_OK


__all__ = [
    "CAUSE_LABELS",
    "EXIT_ADAPTER",
    "EXIT_FAILED",
    "EXIT_OK",
    "EXIT_UNGRADED",
    "EXIT_USAGE",
    "Gates",
    "Tally",
    "Verdict",
    "case_tally",
    "graded_drop",
    "has_checks",
    "hidden_sections",
    "judge",
    "parse_share",
    "profile_missing",
    "run_declarations",
    "tally",
    "worst",
]
