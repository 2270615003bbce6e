"""``carioca-conformance audit``: what the command plays and prints (the CLI only parses).

- ``audit`` (as before): every case passes, or is unsupported because it names the point,
  under each single-option change of each profile asked for;
- ``audit --graded``: the measurement (:mod:`conformance.audit.measure`), with ``--rulings
  FILE`` rows for an author's declarations, ``--floor`` and ``--json FILE``;
- ``audit --both-ways``: also the assumptions a check or a case does not need
  (:mod:`conformance.audit.bothways`);
- ``--allowance FILE``: fail only on what the corpus is not allowed yet, and name the
  entries it no longer needs; ``--write-allowance FILE`` (:mod:`conformance.audit.allowance`).

Every run of every profile goes to one pool of workers, so ``--profile all`` keeps both
cores busy; a change's run and its run graded anyway share one adapter.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from conformance.audit.allowance import Allowance, allowance_text, share_floor
from conformance.audit.bothways import (
    Assumption,
    BothWays,
    Use,
    anyway_specs,
    both_ways,
    both_ways_json,
    both_ways_text,
    key_of,
    uses,
)
from conformance.audit.declared import RulingsFile, interface_of
from conformance.audit.findings import (
    AuditResult,
    Finding,
    audit_summary,
    changes_to_audit,
    judged,
)
from conformance.audit.measure import (
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
from conformance.knowledge.catalogue import Catalogue

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
    #: None: the default floor of a single-option change (0.97).
    floor: float | None = None
    #: The least share each ``rulings`` file must keep, with no check failing; None: the
    #: files are measured only (``audit --graded --rulings`` exits 0 on what it measures).
    min_share: float | None = None
    json_path: Path | None = None
    both_ways: bool = False
    #: What the corpus is allowed not to meet yet (conformance/audit/allowance.py).
    allowance: Allowance | None = None
    #: Write an allowance file for what this run found.
    write_allowance: Path | None = None
    #: The whole corpus was given (no file or folder picked out): floors can be judged.
    whole_corpus: bool = True
    #: Also play pairs of options of points touching the same rule section
    #: (conformance/audit/pairs.py).
    pairs: bool = False


@dataclass
class AuditOutput:
    """The text to print and the outcome."""

    text: str = ""
    outcome: Outcome = "ok"
    measures: list[ProfileMeasure] = field(default_factory=list)
    results: list[AuditResult] = field(default_factory=list)
    both_ways: BothWays | None = None
    #: ``--graded``: cases unsupported under a change they do not name.
    declined: list[Finding] = field(default_factory=list)


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
                floor=rulings.floor,
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
    out = AuditOutput()
    parts: list[str] = []
    broken_only = True
    paths = tuple(str(p) for p in request.paths)
    profiles = [p for p in request.profiles if profile_cases(paths, request.catalogue_path, p)[1]]
    for profile in request.profiles:
        if profile not in profiles:
            # Nothing graded is never a pass: a profile asked for alone fails; with
            # --profile all, one the selection holds no case of is only said.
            parts.append(f"{profile}: no case of the profile in the selection: nothing audited\n")
            if len(request.profiles) == 1:
                out.outcome = "findings"
                out.text = "".join(parts)
                return out
    request = replace(request, profiles=tuple(profiles))
    specs = [spec for profile in request.profiles for spec in specs_for(request, profile)]
    if request.both_ways:
        specs += [spec for profile in request.profiles for spec in anyway_for(request, profile)]
    records = execute(
        request.argv, request.paths, request.catalogue_path, specs, workers=request.workers
    )
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
            # A case nothing of which is graded under a change it does not name, for a
            # reason no failing check shows (the adapter declined an op, say).
            declined = [
                f
                for f in judged(changes, request.paths, request.catalogue_path, profile, 0).findings
                if f.status == "unsupported"
            ]
            if declined:
                parts += [f"{profile}: {f.line()}\n" for f in declined]
                out.declined += declined
                broken_only = False
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
            parts.append(_values_text(request, profile, result.findings))
            if not result.ok:
                broken_only = broken_only and not result.findings
    bad: list[object] = [m for m in out.measures if not m.ok] + list(out.declined)
    bad += [r for r in out.results if not r.ok]
    if request.both_ways:
        out.both_ways = _both_ways(request, records)
        parts.append(both_ways_text(out.both_ways, request.profiles))
        if not out.both_ways.ok:
            bad.append(out.both_ways)
            broken_only = False
    if request.pairs:
        parts += [_pairs_text(request, profile) for profile in request.profiles]
    if request.allowance is not None:
        parts.append(_stale_text(request, out))
    if request.write_allowance is not None:
        request.write_allowance.write_text(_allowance_of(out), encoding="utf-8")
        parts.append(f"allowance written: {request.write_allowance}\n")
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


def _pairs_text(request: AuditRequest, profile: str) -> str:
    """``--pairs``: the pairs of options of one profile that read otherwise together."""
    from conformance.audit.pairs import audit_pairs, pairs_text, pairs_to_play

    paths = tuple(str(p) for p in request.paths)
    scenarios = profile_cases(paths, request.catalogue_path, profile)[1]
    pairs = pairs_to_play(request.catalogue, profile, request.points)
    found = audit_pairs(request.argv, scenarios, request.catalogue, profile, points=request.points)
    return pairs_text(profile, found, len(pairs))


#: Flagged cases the audit replays under each option for the values to add (each replay
#: starts an adapter per option; beyond these, the findings' lines say enough).
VALUES_FOR_FINDINGS = 20


def _values_text(request: AuditRequest, profile: str, findings: Sequence[Finding]) -> str:
    """For each case flagged under a point it does not name, the values per option its
    checks should give (the reference plays the case under each option of the point)."""
    from conformance.authoring.options import values_to_add

    paths = tuple(str(p) for p in request.paths)
    by_id = {s.id: s for s in profile_cases(paths, request.catalogue_path, profile)[1]}
    done: set[tuple[str, str]] = set()
    lines: list[str] = []
    for finding in findings:
        if finding.point is None or (finding.case, finding.point) in done:
            continue
        if len(done) == VALUES_FOR_FINDINGS:
            lines.append(f"  ... values for the other flagged cases: audit --point {finding.point}")
            break
        done.add((finding.case, finding.point))
        found = values_to_add(request.argv, by_id[finding.case], finding.point, profile)
        if found:
            lines.append(
                f"{finding.case}: the value per option of {finding.point} to write "
                "(check each against the rules text):"
            )
            lines += [f"    {line}" for line in found]
    return "".join(f"{line}\n" for line in lines)


def _both_ways(request: AuditRequest, records: Sequence[RunRecord]) -> BothWays:
    paths = tuple(str(p) for p in request.paths)
    found: dict[Assumption, Use] = {}
    for profile in request.profiles:
        _, scenarios = profile_cases(paths, request.catalogue_path, profile)
        anyway = [r for r in records if r.spec.profile == profile and r.spec.kind == "anyway"]
        uses(scenarios, request.catalogue, profile, anyway, found, request.points)
    allowed = request.allowance.both_ways if request.allowance is not None else frozenset()
    return both_ways(found, allowed)


def _allowance_of(out: AuditOutput) -> str:
    """An allowance file listing everything the run found under the floors."""
    floors = {
        m.profile: {
            row.label: share_floor(row.share)
            for row in (m.baseline, *m.changes)
            if row.broken is None and row.share < row.target
        }
        for m in out.measures
    }
    failing = [
        (m.profile, row.label, f.case, f.check)
        for m in out.measures
        for row in (m.baseline, *m.changes)
        for f in (*row.failing, *row.known)
    ]
    found = out.both_ways
    both = [key_of(u) for u in (*found.unneeded, *found.too_wide, *found.known)] if found else []
    return allowance_text(floors, failing, both)


def _stale_text(request: AuditRequest, out: AuditOutput) -> str:
    """The allowance entries the corpus no longer needs: to remove, so the file shrinks.

    Only what this run could see: a failing check or an assumption of a case in the
    selection (and of a point audited), a floor only when the whole corpus was measured.
    """
    allowance = request.allowance
    assert allowance is not None
    paths = tuple(str(p) for p in request.paths)
    stale: list[str] = []
    for m in out.measures:
        _, scenarios = profile_cases(paths, request.catalogue_path, m.profile)
        seen = {s.id for s in scenarios}
        rows = {row.label: row for row in (m.baseline, *m.changes)}
        for label in allowance.floors.get(m.profile, {}) if request.whole_corpus else ():
            row = rows.get(label)
            if row is not None and row.broken is None and row.share >= row.target:
                stale.append(f"floors.{m.profile}.{label} (keeps {row.share:.1%})")
        known = {(m.profile, r.label, f.case, f.check) for r in rows.values() for f in r.known}
        stale += [
            f"failing {c} {k} under {r} in {p}"
            for p, r, c, k in sorted(allowance.failing)
            if p == m.profile and r in rows and c in seen and (p, r, c, k) not in known
        ]
    if out.both_ways is not None:
        seen = {
            s.id
            for p in request.profiles
            for s in profile_cases(paths, request.catalogue_path, p)[1]
        }
        known_bw = {key_of(u) for u in out.both_ways.known}
        stale += [
            f"both_ways {c} {w} {p}"
            for c, w, p in sorted(allowance.both_ways - known_bw)
            if c in seen and (not request.points or p in request.points)
        ]
    if not stale:
        return ""
    head = f"{len(stale)} allowance entry(ies) no longer needed: remove them from {allowance.path}"
    return (
        head
        + "\n"
        + "".join(f"  {s}\n" for s in stale[:40])
        + (f"  ... and {len(stale) - 40} more\n" if len(stale) > 40 else "")
    )


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
        rulings_floor=request.min_share,
        allowance=request.allowance,
    )
