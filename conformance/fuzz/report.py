"""The JSON report (conformance/schemas/fuzz-report.schema.json), the drafts written
beside it, the merge of shard reports, and the end-of-run summary."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

import yaml

from conformance.catalogue import Catalogue

from .campaign import FuzzResult
from .model import FIRST_DRAFT_ID, LAST_DRAFT_ID, Finding, FuzzError

#: Version of the JSON report's layout (conformance/schemas/fuzz-report.schema.json).
REPORT_VERSION: Final = 1


def finding_dict(finding: Finding) -> dict[str, Any]:
    """A finding as the JSON report holds it."""
    occ = finding.example
    return {
        "key": finding.divergence.key,
        "rule": finding.divergence.rule,
        "rules": list(finding.divergence.rules or (finding.divergence.rule,)),
        "op": finding.divergence.op,
        "kind": finding.divergence.kind,
        "summary": finding.divergence.summary,
        "count": finding.count,
        "games": sorted(finding.games)[:100],
        "example": {
            "game": occ.game,
            "steps": len(occ.trace.steps),
            "players": occ.trace.size()[1] or None,
            "shrunk": finding.shrunk,
            # The example's own: a shrunk example's mismatches are the shrunk game's.
            "mismatches": occ.divergence.mismatches,
            "trace": occ.trace.as_dict(),
        },
        "scenario": finding.scenario,
        "scenario_file": finding.scenario_file,
    }


def report_dict(result: FuzzResult) -> dict[str, Any]:
    """The JSON report (conformance/schemas/fuzz-report.schema.json)."""
    opts = result.options
    return {
        "report": "carioca-conformance fuzz",
        "version": REPORT_VERSION,
        "engine": result.engine,
        "engine_argv": result.engine_argv,
        "reference_argv": result.reference_argv,
        "rulings": result.rulings,
        "campaign": {
            "seed": opts.seed,
            "games": opts.games,
            "max_steps": opts.max_steps,
            "profile": opts.profile,
            "shards": [{"index": opts.shard[0], "count": opts.shard[1]}],
            "only_games": list(opts.only_games),
        },
        "totals": {
            "games": result.games_played,
            "steps": result.steps,
            "queries": result.queries,
            "divergences": result.divergences,
            "findings": len(result.findings),
            "seconds": round(result.seconds, 3),
        },
        "events": result.events,
        "findings": [finding_dict(f) for f in result.findings],
        "interrupted": result.interrupted,
        "unsupported_ops": result.unsupported_ops,
        "warnings": result.warnings,
    }


def write_outputs(report: dict[str, Any], out: Path) -> Path:
    """Write ``fuzz-report.json`` and one draft YAML per finding under ``out``; return its path.

    Drafts go to ``out/drafts/cc-8NNN.yaml`` and the report records each file's path.
    """
    from conformance.report import atomic_write_text

    drafts = out / "drafts"
    drafts.mkdir(parents=True, exist_ok=True)
    for old in drafts.glob("cc-8*.yaml"):
        old.unlink()
    for finding in report["findings"]:
        doc = finding.get("scenario")
        if not doc:
            finding["scenario_file"] = None
            continue
        path = drafts / f"{doc['id']}.yaml"
        header = (
            "# Draft written by `carioca-conformance fuzz` from the reference's answers:\n"
            "# check every expectation against the rules text, then give it a corpus id.\n"
        )
        text = header + yaml.safe_dump(doc, sort_keys=False, default_flow_style=None, width=100)
        atomic_write_text(path, text)
        finding["scenario_file"] = str(path)
    target = out / "fuzz-report.json"
    atomic_write_text(target, json.dumps(report, indent=1, ensure_ascii=False) + "\n")
    return target


def merge_reports(reports: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Merge shard reports of one campaign: totals add up, findings merge by key.

    A finding seen in several shards keeps the sum of the counts and the smallest example
    (fewest steps, then fewest players, then the lowest game index).

    :raises FuzzError: when the reports are of different campaigns or engines.
    """
    if not reports:
        raise FuzzError("--merge needs at least one report")
    first = reports[0]
    for other in reports[1:]:
        for what in ("seed", "games", "profile", "max_steps"):
            if other["campaign"][what] != first["campaign"][what]:
                raise FuzzError(
                    f"cannot merge: campaign {what} differs "
                    f"({first['campaign'][what]!r} vs {other['campaign'][what]!r})"
                )
        if other["engine"]["implementation"] != first["engine"]["implementation"]:
            raise FuzzError("cannot merge reports of different engines")
    totals = {k: 0 for k in first["totals"]}
    by_key: dict[str, dict[str, Any]] = {}
    shards = []
    warnings: set[str] = set()
    unsupported: set[str] = set()
    events: Counter[str] = Counter()
    for rep in reports:
        for k, v in rep["totals"].items():
            totals[k] = totals.get(k, 0) + v
        events.update(rep.get("events", {}))
        shards += rep["campaign"]["shards"]
        warnings |= set(rep.get("warnings", []))
        unsupported |= set(rep.get("unsupported_ops", []))
        for f in rep["findings"]:
            have = by_key.get(f["key"])
            if have is None:
                by_key[f["key"]] = json.loads(json.dumps(f))
                continue
            have["count"] += f["count"]
            have["games"] = sorted(set(have["games"]) | set(f["games"]))[:100]

            def size(x: Mapping[str, Any]) -> tuple[int, int, int]:
                ex = x["example"]
                return (ex["steps"], ex["players"] or 0, ex["game"])

            if size(f) < size(have):
                keep = {"count": have["count"], "games": have["games"]}
                by_key[f["key"]] = {**json.loads(json.dumps(f)), **keep}
    findings = sorted(by_key.values(), key=lambda f: (f["rule"], f["key"]))
    totals["findings"] = len(findings)
    for i, f in enumerate(findings):
        if f.get("scenario") and FIRST_DRAFT_ID + i <= LAST_DRAFT_ID:
            f["scenario"]["id"] = f"cc-{FIRST_DRAFT_ID + i:04d}"
        elif f.get("scenario"):
            f["scenario"] = None
        f["scenario_file"] = None
    return {
        **{
            k: first[k]
            for k in ("report", "version", "engine", "engine_argv", "reference_argv", "rulings")
        },
        "campaign": {
            **first["campaign"],
            "shards": sorted(shards, key=lambda s: (s["count"], s["index"])),
        },
        "totals": totals,
        "events": dict(sorted(events.items())),
        "findings": findings,
        "interrupted": next((r["interrupted"] for r in reports if r.get("interrupted")), None),
        "unsupported_ops": sorted(unsupported),
        "warnings": sorted(warnings),
    }


def summary(report: Mapping[str, Any], catalogue: Catalogue | None = None) -> str:
    """The end-of-run summary: totals, then findings grouped by rule ID."""
    t = report["totals"]
    camp = report["campaign"]
    shards = ", ".join(f"{s['index']}/{s['count']}" for s in camp["shards"])
    lines = [
        f"fuzz: seed {camp['seed']}, shard(s) {shards}: {t['games']} games, {t['steps']} steps, "
        f"{t['queries']} queries in {t['seconds']:.1f} s",
        f"{t['divergences']} divergence(s), {t['findings']} finding(s)",
    ]
    if report.get("events"):
        lines.insert(1, "accepted: " + ", ".join(f"{k} {v}" for k, v in report["events"].items()))
    by_rule: dict[str, list[Mapping[str, Any]]] = {}
    for f in report["findings"]:
        by_rule.setdefault(f["rule"], []).append(f)
    for rule, findings in sorted(by_rule.items()):
        lines.append(f"  {rule}:")
        for f in findings:
            ex = f["example"]
            where = f", draft {f['scenario_file']}" if f.get("scenario_file") else ""
            lines.append(
                f"    {f['op']} ({f['kind']}): {f['summary']} — {f['count']}x; smallest: game "
                f"{ex['game']}, {ex['steps']} step(s){where}"
            )
    if report.get("interrupted"):
        lines.append(f"interrupted by {report['interrupted']}: the games played so far")
    for w in report.get("warnings", []):
        lines.append(f"warning: {w}")
    if report.get("unsupported_ops"):
        lines.append("engine answered unsupported to: " + ", ".join(report["unsupported_ops"]))
    return "\n".join(lines) + "\n"
