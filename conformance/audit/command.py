"""``carioca-conformance audit``: what the command plays and prints (the CLI only parses).

- ``audit`` (as before): every case passes, or is unsupported because it names the point,
  under each single-option change of each profile asked for;
- ``audit --graded``: the measurement (:mod:`conformance.audit.measure`), with ``--rulings
  FILE`` rows for an author's declarations, ``--floor`` and ``--json FILE``;
- ``audit --both-ways``: also the assumptions a check or a case does not need
  (:mod:`conformance.audit.bothways`).

Every run of every profile goes to one pool of workers, so ``--profile all`` keeps both
cores busy.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance.audit.bothways import (
    Assumption,
    BothWays,
    Use,
    anyway_specs,
    both_ways,
    both_ways_json,
    both_ways_text,
    uses,
)
from conformance.audit.declared import RulingsFile, interface_of
from conformance.audit.findings import AuditResult, audit_summary, changes_to_audit, judged
from conformance.audit.measure import (
    RULINGS_FLOOR,
    SINGLE_FLOOR,
    ProfileMeasure,
    measure,
    measure_json,
    measure_text,
)
from conformance.audit.runs import (
    BASELINE,
    RunRecord,
    RunSpec,
    change_flags,
    change_label,
    execute,
    forget_loaded,
    profile_cases,
)
from conformance.catalogue import Catalogue

#: What the command came to: ``ok``, ``findings`` (exit 1) or ``broken`` (an adapter did not
#: start and nothing else was found: exit 3).
Outcome = str


@dataclass(frozen=True)
class AuditRequest:
    """What to audit: the adapter, corpus, profiles and which parts."""

    argv: tuple[str, ...]
    paths: tuple[Path, ...]
    catalogue: Catalogue
    catalogue_path: str | None
    profiles: tuple[str, ...]
    points: tuple[str, ...] = ()
    workers: int = 0
    graded: bool = False
    rulings: tuple[RulingsFile, ...] = ()
    #: None: the default for what is measured (0.97 for changes, 0.90 with --rulings).
    floor: float | None = None
    json_path: Path | None = None
    both_ways: bool = False


@dataclass
class AuditOutput:
    """The text to print and the outcome."""

    text: str = ""
    outcome: Outcome = "ok"
    measures: list[ProfileMeasure] = field(default_factory=list)
    results: list[AuditResult] = field(default_factory=list)
    both_ways: BothWays | None = None


def specs_for(request: AuditRequest, profile: str) -> list[RunSpec]:
    """The runs of one profile: its rulings, each single-option change (unless rulings files
    are measured instead), and each rulings file."""
    if request.graded and request.rulings:
        specs = [RunSpec(profile, BASELINE, label=change_label(BASELINE))]
    else:
        specs = [
            RunSpec(profile, c, change_flags(c), label=change_label(c))
            for c in changes_to_audit(request.catalogue, profile, request.points)
        ]
    for rulings in request.rulings if request.graded else ():
        specs.append(
            RunSpec(
                profile,
                BASELINE,
                rulings.flags(profile),
                interface_of(rulings),
                label=f"{rulings.name} ({len(rulings.differing(profile, request.catalogue))} "
                "point(s) differ)",
                kind="file",
            )
        )
    return specs


def anyway_for(request: AuditRequest, profile: str) -> list[RunSpec]:
    """The runs of the audit both ways in one profile (grading assumed checks anyway)."""
    paths = tuple(str(p) for p in request.paths)
    _, scenarios = profile_cases(paths, request.catalogue_path, profile)
    changes = changes_to_audit(request.catalogue, profile, request.points)
    return anyway_specs(scenarios, request.catalogue, profile, changes)


def run_audit(request: AuditRequest) -> AuditOutput:
    """Play every run the request needs and put the reports together."""
    started = time.monotonic()
    forget_loaded()  # the files may have changed since an earlier audit in this process
    specs = [spec for profile in request.profiles for spec in specs_for(request, profile)]
    if request.both_ways:
        specs += [spec for profile in request.profiles for spec in anyway_for(request, profile)]
    records = execute(
        request.argv, request.paths, request.catalogue_path, specs, workers=request.workers
    )
    out = AuditOutput()
    parts: list[str] = []
    broken_only = True
    for profile in request.profiles:
        mine = [r for r in records if r.spec.profile == profile]
        changes = [r for r in mine if r.spec.kind == "change"]
        files = [r for r in mine if r.spec.kind == "file"]
        if request.graded:
            found = _measure(request, profile, changes, files)
            out.measures.append(found)
            parts.append(measure_text(found))
            if not found.ok:
                broken_only = broken_only and all(
                    row.broken is not None for row in found.rows if not row.ok
                )
        else:
            result = judged(
                changes,
                request.paths,
                request.catalogue_path,
                profile,
                time.monotonic() - started,
            )
            out.results.append(result)
            parts.append(f"{profile}:\n" + audit_summary(result))
            if not result.ok:
                broken_only = broken_only and not result.findings
    bad: list[object] = [m for m in out.measures if not m.ok]
    bad += [r for r in out.results if not r.ok]
    if request.both_ways:
        out.both_ways = _both_ways(request, records)
        parts.append(both_ways_text(out.both_ways, request.profiles))
        if not out.both_ways.ok:
            bad.append(out.both_ways)
            broken_only = False
    if bad:
        out.outcome = "broken" if broken_only else "findings"
    if request.json_path is not None:
        data: dict[str, Any] = measure_json(out.measures) if request.graded else {"ok": not bad}
        if out.both_ways is not None:
            data["ok"] = data["ok"] and out.both_ways.ok
            data["both_ways"] = both_ways_json(out.both_ways)
        request.json_path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    out.text = "".join(parts)
    return out


def _both_ways(request: AuditRequest, records: Sequence[RunRecord]) -> BothWays:
    paths = tuple(str(p) for p in request.paths)
    found: dict[Assumption, Use] = {}
    for profile in request.profiles:
        _, scenarios = profile_cases(paths, request.catalogue_path, profile)
        anyway = [r for r in records if r.spec.profile == profile and r.spec.kind == "anyway"]
        uses(scenarios, request.catalogue, profile, anyway, found)
    return both_ways(found)


def _measure(
    request: AuditRequest,
    profile: str,
    changes: Sequence[RunRecord],
    files: Sequence[RunRecord],
) -> ProfileMeasure:
    baseline = next(r for r in changes if r.spec.change == BASELINE)
    others = [r for r in changes if r.spec.change != BASELINE]
    return measure(
        profile,
        baseline,
        others,
        files,
        floor=request.floor if request.floor is not None else SINGLE_FLOOR,
        rulings_floor=request.floor if request.floor is not None else RULINGS_FLOOR,
    )
