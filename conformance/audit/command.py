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


def run_audit(request: AuditRequest) -> AuditOutput:
    """Play every run the request needs and put the reports together."""
    started = time.monotonic()
    specs = [spec for profile in request.profiles for spec in specs_for(request, profile)]
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
            parts.append(f"{profile}: " + audit_summary(result))
            if not result.ok:
                broken_only = broken_only and not result.findings
    bad = [m for m in out.measures if not m.ok] + [r for r in out.results if not r.ok]
    if bad:
        out.outcome = "broken" if broken_only else "findings"
    if request.graded and request.json_path is not None:
        request.json_path.write_text(
            json.dumps(measure_json(out.measures), indent=2) + "\n", encoding="utf-8"
        )
    out.text = "".join(parts)
    return out


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
