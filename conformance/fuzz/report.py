"""The JSON report (conformance/schemas/fuzz-report.schema.json), the drafts written
beside it, the merge of shard reports, and the end-of-run summary."""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

import yaml

from conformance.grading.results import ADVICE, UNEXPLAINED
from conformance.io.jsonsafe import (
    TooLargeToRead,
    compact_pieces,
    dumps,
    pieces,
    within_read_limit,
)
from conformance.io.textsafe import safe_text
from conformance.knowledge.catalogue import Catalogue

from .campaign import FuzzResult
from .model import Finding, FuzzError, FuzzOptions, finite

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
        "explained_by": finding.explained_by,
        "all_options_tried": finding.all_options_tried,
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
            "compared": result.compared,
            "divergences": result.divergences,
            "findings": len(result.findings),
            "information": len(result.information),
            "seconds": round(finite(result.seconds), 3),
        },
        "events": result.events,
        "findings": [finding_dict(f) for f in result.findings],
        "information": [finding_dict(f) for f in result.information],
        "interrupted": result.interrupted,
        "adapter_error": None,
        "unsupported_ops": result.unsupported_ops,
        "inconsistent_ops": result.inconsistent_ops,
        "warnings": result.warnings,
    }


def unstarted_report(
    engine_argv: Sequence[str], options: FuzzOptions, error: str, stderr_tail: str = ""
) -> dict[str, Any]:
    """The report of a campaign whose adapter (the engine's or the reference's) never got
    through its handshake: no game, ``engine`` null, ``adapter_error`` saying why, as
    ``run`` writes complete reports for a dead adapter (CI reads them either way)."""
    why = error if not stderr_tail else f"{error}\n{stderr_tail.rstrip()}"
    return {
        "report": "carioca-conformance fuzz",
        "version": REPORT_VERSION,
        "engine": None,
        "engine_argv": list(engine_argv),
        "reference_argv": list(options.reference_argv),
        "rulings": {},
        "campaign": {
            "seed": options.seed,
            "games": options.games,
            "max_steps": options.max_steps,
            "profile": options.profile,
            "shards": [{"index": options.shard[0], "count": options.shard[1]}],
            "only_games": list(options.only_games),
        },
        "totals": dict.fromkeys(
            (
                "games",
                "steps",
                "queries",
                "compared",
                "divergences",
                "findings",
                "information",
                "seconds",
            ),
            0,
        ),
        "events": {},
        "findings": [],
        "information": [],
        "interrupted": None,
        "adapter_error": safe_text(why),
        "unsupported_ops": [],
        "warnings": [],
    }


def report_text(report: Mapping[str, Any]) -> str:
    """The report as the file holds it: standard JSON that its readers take back (never
    NaN, Infinity or an integer longer than they read: conformance/io/jsonsafe.py).

    :raises UnreadableNumber: naming where such a number is.
    """
    return dumps(report, indent=1) + "\n"


#: The first line of every draft ``fuzz`` writes; the second holds a digest of the rest,
#: so a draft edited since (or a file of the user's own) is never deleted or overwritten.
DRAFT_HEADER: Final = (
    "# Draft written by `carioca-conformance fuzz` from the reference's answers:\n"
    "# check every expectation against the rules text, then give it a corpus id.\n"
)
_DIGEST_LINE: Final = "# fuzz draft digest: "
#: Most values (mappings, lists and scalars) a draft may hold: a real draft holds a few
#: hundred. A shard report padded under a draft's free keys would otherwise cost gigabytes
#: of YAML serialisation for nothing a corpus takes.
MAX_DRAFT_VALUES: Final = 50_000


def _draft_text(doc: Mapping[str, Any]) -> str:
    body = yaml.safe_dump(dict(doc), sort_keys=False, default_flow_style=None, width=100)
    return DRAFT_HEADER + _DIGEST_LINE + hashlib.sha256(body.encode()).hexdigest() + "\n" + body


def is_own_draft(path: Path) -> bool:
    """True when ``path`` is a draft ``fuzz`` wrote and nobody has edited since."""
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_DRAFT_BYTES + 1)
        text = data.decode("utf-8")
    except (OSError, UnicodeError):
        return False
    if not text.startswith(DRAFT_HEADER + _DIGEST_LINE):
        return False
    digest, _, body = text[len(DRAFT_HEADER) + len(_DIGEST_LINE) :].partition("\n")
    return hashlib.sha256(body.encode()).hexdigest() == digest


#: Largest file read to tell whether it is a draft of ours.
MAX_DRAFT_BYTES: Final = 4 * 1024 * 1024


def check_drafts_folder(out: Path) -> None:
    """Refuse an ``--out`` folder whose ``drafts/`` holds a ``cc-8NNN.yaml`` that ``fuzz``
    did not write or that was edited since: the campaign would replace it. Called before
    the first game.

    :raises FuzzError: naming the file.
    """
    drafts = out / "drafts"
    if not drafts.is_dir():
        return
    for old in sorted(drafts.glob("cc-8*.yaml")):
        if not is_own_draft(old):
            raise FuzzError(
                f"--out {out}: {old} is not a draft fuzz wrote (or was edited since), and this "
                "campaign would replace it: move it, or give another --out"
            )


def _too_many_values(value: Any, limit: int) -> bool:
    """True when ``value`` holds more than ``limit`` values in all (iterative, stops early)."""
    stack, seen = [value], 0
    while stack:
        node = stack.pop()
        seen += 1
        if seen > limit:
            return True
        if isinstance(node, dict):
            stack.extend(node.values())
            seen += len(node)
        elif isinstance(node, list):
            stack.extend(node)
    return False


def write_outputs(report: dict[str, Any], out: Path, *, bounded: bool = False) -> Path:
    """Write ``fuzz-report.json`` and one draft YAML per finding under ``out``; return its path.

    Drafts go to ``out/drafts/cc-8NNN.yaml`` and the report records each file's path. Old
    drafts are replaced only when ``fuzz`` wrote them and nobody edited them since; a file
    of the user's is left alone and that draft is not written (a warning says so). A draft
    of more than :data:`MAX_DRAFT_VALUES` values (a padded shard's) is not written either.
    ``bounded``: refuse a report larger than its readers read (a merge's).
    """
    from conformance.io.files import atomic_write_text

    drafts = out / "drafts"
    drafts.mkdir(parents=True, exist_ok=True)
    kept: set[Path] = set()
    for old in drafts.glob("cc-8*.yaml"):
        if is_own_draft(old):
            old.unlink()
        else:
            kept.add(old)
    warnings = report.setdefault("warnings", [])
    for finding in report["findings"]:
        doc = finding.get("scenario")
        finding["scenario_file"] = None
        if not doc:
            continue
        path = drafts / f"{doc['id']}.yaml"
        if path in kept:
            warnings.append(f"draft {path} not written: a file of that name was not ours")
            continue
        if _too_many_values(doc, MAX_DRAFT_VALUES):
            warnings.append(
                f"draft {doc['id']} not written: it holds more than {MAX_DRAFT_VALUES} values"
            )
            continue
        atomic_write_text(path, _draft_text(doc))
        finding["scenario_file"] = str(path)
    target = out / "fuzz-report.json"
    written = report_pieces(report)
    if not bounded:
        atomic_write_text(target, written)
        return target
    try:
        atomic_write_text(target, within_read_limit(written, "the merged report"))
    except TooLargeToRead:  # near the limit: the compact layout, not a refusal
        atomic_write_text(target, within_read_limit(compact_pieces(report), "the merged report"))
    return target


def report_pieces(report: Mapping[str, Any]) -> Iterator[str]:
    """:func:`report_text` in pieces, for writing: the whole text of a large merged report
    (and the list of its millions of pieces ``json.dumps`` builds first) is never held.
    Checked whole before the first piece.

    :raises UnreadableNumber: as :func:`report_text`, at the call.
    """
    return itertools.chain(pieces(report, indent=1), ["\n"])


def summary(report: Mapping[str, Any], catalogue: Catalogue | None = None) -> str:
    """The end-of-run summary: totals, then findings grouped by rule ID."""
    t = report["totals"]
    camp = report["campaign"]
    shards = ", ".join(f"{s['index']}/{s['count']}" for s in camp["shards"])
    if report.get("adapter_error"):
        first = str(report["adapter_error"]).splitlines()[0]
        return f"fuzz: shard(s) {shards}: no game played: an adapter could not start: {first}\n"
    lines = [
        f"fuzz: seed {camp['seed']}, shard(s) {shards}: {t['games']} games, {t['steps']} steps, "
        f"{t['queries']} queries in {finite(t['seconds']):.1f} s",
        f"{t['divergences']} divergence(s), {t['findings']} finding(s)",
    ]
    if report.get("events"):
        lines.insert(1, "accepted: " + ", ".join(f"{k} {v}" for k, v in report["events"].items()))
    information = report.get("information") or []
    if information:
        lines.append(
            f"{len(information)} reason difference(s) where both reasons are true of the state: "
            "information, not findings (docs/reasons.md)"
        )
        for f in information:
            lines.append(
                f"  {'/'.join(f['rules'])} {f['op']}: {f['summary']} — {f['count']}x; "
                f"game {f['example']['game']}"
            )
    by_rule: dict[str, list[Mapping[str, Any]]] = {}
    for f in report["findings"]:
        by_rule.setdefault(f["rule"], []).append(f)
    for rule, findings in sorted(by_rule.items()):
        lines.append(f"  {rule}:")
        for f in findings:
            ex = f["example"]
            where = f", draft {f['scenario_file']}" if f.get("scenario_file") else ""
            if f.get("expected") is not None:
                where += ", expected"
            lines.append(
                f"    {f['op']} ({f['kind']}): {f['summary']} — {f['count']}x; smallest: game "
                f"{ex['game']}, {ex['steps']} step(s){where}"
            )
            if f.get("explained_by"):
                # As a run's cause names its options (reports.symptoms, Explanation.label).
                named = " and ".join(f"{p}={o}" for p, o in sorted(f["explained_by"].items()))
                lines.append(f"      explained by {named}: {ADVICE}")
            elif f.get("all_options_tried"):
                lines.append(f"      {UNEXPLAINED}")
    known = report.get("expectations")
    if known:
        lines.append(
            f"expectations {known['file']}: {known['expected']} finding(s) expected, "
            f"{known['unexpected']} new, {len(known['stale'])} listed that did not show"
            + (" (--strict: they fail the campaign)" if known["strict"] and known["stale"] else "")
        )
        for entry in known["stale"]:
            lines.append(
                f"  not seen: {entry['rule']} {entry['op']} ({entry['kind']}): {entry['summary']}"
            )
    if report.get("interrupted"):
        lines.append(f"interrupted by {report['interrupted']}: the games played so far")
    for w in report.get("warnings", []):
        lines.append(f"warning: {w}")
    if report.get("unsupported_ops"):
        lines.append("engine answered unsupported to: " + ", ".join(report["unsupported_ops"]))
    return "\n".join(lines) + "\n"
