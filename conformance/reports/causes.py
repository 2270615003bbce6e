"""Causes, not symptoms: a run's failing checks grouped by what went wrong, one line each.

A joker counted 30 instead of 50 fails a penalty here, a deal's scores there and every
total after it, each with its own numbers: thirty lines of symptoms for one cause. Failing
checks are grouped so that one cause is one line:

1. checks an option explains (:mod:`conformance.explain`: the reference playing that option,
   graded as the engine declared, fails them the same way) are one cause per explanation;
2. the other failing checks of one step of a case (or of its ``final`` block) follow the
   first of them, the *lead*: what one action did wrong shows in several fields at once;
3. leads are one cause when they share the op or field, the rules, the direction of the
   difference and the engine's own words; for scores (``deal_scores``, ``totals``, a melds
   penalty) the family and direction, or the card value one rank is counted at when the
   difference is that (``JK counted 30 instead of 50``).

A cause says its one-line summary, how many checks and cases it holds, its rules, its
smallest example (the case with the fewest checks: case, check, file and line) and the
option(s) that explain it, if any (``explained_by``); most checks first. Expected failures
(``xfail``) are no cause. The JSON report writes them as ``causes`` (docs/reports.md), each
with its checks (``members``), so ``report merge`` groups the merged checks again keeping
what the shards found (:func:`merged_causes`) and an expectations file can list a cause as
one entry (conformance/run/expectations.py).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from conformance.grading.results import (
    CaseResult,
    Cause,
    CheckId,
    CheckResult,
    Example,
    RunResult,
)
from conformance.reports.symptoms import (
    NOTHING,
    Choice,
    Explanation,
    Inference,
    card_table,
    explanation,
    symptom,
)

if TYPE_CHECKING:
    from conformance.knowledge.catalogue import Catalogue
    from conformance.scenarios import Scenario

# A cause's value types live beside the results they group (grading.results), what a check
# shows and what explains it in reports.symptoms; the ones a caller needs are named here too.
__all__ = [
    "ADVICE",
    "NOTHING",
    "Cause",
    "Example",
    "Inference",
    "cause_from_record",
    "causes_of",
    "group_causes",
    "merged_causes",
    "report_causes",
    "with_causes",
]

#: What a cause's summary says an option-explained cause should do.
ADVICE = "declare it in the handshake if your engine plays it, or fix the engine"


def _explained_summary(fields: Sequence[str], why: Explanation) -> str:
    shown = ", ".join(fields[:4]) + (", …" if len(fields) > 4 else "")
    return f"{shown} differ: explained by {why.label()}: {ADVICE}"


def group_causes(
    results: Sequence[CaseResult],
    inference: Inference = NOTHING,
    files: Mapping[str, str] | None = None,
) -> tuple[Cause, ...]:
    """The causes of the failing checks of ``results``, most checks first (see the module
    docstring). ``files``: case id -> its scenario file, for the examples."""
    explained = inference.explained
    groups: dict[tuple[object, ...], list[tuple[CaseResult, CheckResult]]] = {}
    summaries: dict[tuple[object, ...], str] = {}
    ways: dict[tuple[object, ...], Explanation] = {}
    for result in results:
        lead: dict[int | None, tuple[tuple[object, ...], str]] = {}
        for check in result.checks:
            if check.status != "fail":
                continue
            why = explained.get((result.id, check.key))
            if why is not None:
                key: tuple[object, ...] = ("explained", why.choices)
                ways[key] = why
            else:
                if check.step not in lead:
                    lead[check.step] = symptom(check)
                key, summary = lead[check.step]
                summaries.setdefault(key, summary)
            groups.setdefault(key, []).append((result, check))
    _adopt(groups, ways, inference)
    causes = []
    for key, members in groups.items():
        why = ways.get(key)
        fields = list(dict.fromkeys(c.what for _, c in members))
        if why is not None:
            summary = _explained_summary(fields, why)
        elif key[0] == "score" and (table := card_table([c for _, c in members])) is not None:
            rank, expected, got = table
            summary = f"{rank} counted {got} instead of {expected}"
        else:
            summary = summaries[key]
        causes.append(_cause(summary, members, why, files or {}))
    causes.sort(key=lambda c: (-c.checks, c.summary))
    return tuple(causes)


def _adopt(
    groups: dict[tuple[object, ...], list[tuple[CaseResult, CheckResult]]],
    ways: dict[tuple[object, ...], Explanation],
    inference: Inference,
) -> None:
    """Checks of cases the inference did not replay join the explanation of their symptom's
    replayed checks, when every replayed check of that symptom has that one explanation."""
    if not inference.tried:
        return
    seen: dict[tuple[object, ...], set[tuple[object, ...]]] = {}
    for key, members in groups.items():
        for result, check in members:
            if result.id in inference.tried:
                seen.setdefault(symptom(check)[0], set()).add(key)
    for key in [k for k in groups if k not in ways]:
        members = groups[key]
        keep = []
        for result, check in members:
            home = seen.get(symptom(check)[0], set())
            target = next(iter(home)) if len(home) == 1 else None
            if result.id not in inference.tried and target is not None and target in ways:
                groups[target].append((result, check))
            else:
                keep.append((result, check))
        if keep:
            groups[key] = keep
        else:
            del groups[key]


def _cause(
    summary: str,
    members: Sequence[tuple[CaseResult, CheckResult]],
    why: Explanation | None,
    files: Mapping[str, str],
) -> Cause:
    cases = tuple(dict.fromkeys(r.id for r, _ in members))
    rules = tuple(dict.fromkeys(rule for _, c in members for rule in c.rules))
    smallest, check = min(members, key=lambda m: len(m[0].checks))
    example = Example(smallest.id, check.key, check.line, files.get(smallest.id, ""))
    return Cause(
        summary=summary,
        checks=len(members),
        cases=cases,
        rules=rules,
        example=example,
        explained_by=why.as_dict() if why is not None else None,
        members=tuple((r.id, c.key) for r, c in members),
    )


def cause_from_record(record: Mapping[str, object]) -> Cause:
    """A cause read back from a JSON report (``members`` empty when the report is older
    than them)."""
    example = record.get("example")
    written = record.get("members")
    members = (
        tuple(
            (str(case_id), str(key))
            for case_id, keys in written.items()
            if isinstance(keys, list)
            for key in keys
        )
        if isinstance(written, Mapping)
        else ()
    )
    ex = example if isinstance(example, Mapping) else {}
    explained = record.get("explained_by")
    return Cause(
        summary=str(record.get("summary", "")),
        checks=int(record.get("checks", 0) or 0),  # type: ignore[call-overload]
        cases=tuple(str(c) for c in record.get("cases", ()) or ()),  # type: ignore[attr-defined]
        rules=tuple(str(r) for r in record.get("rules", ()) or ()),  # type: ignore[attr-defined]
        example=Example(
            str(ex.get("case", "")),
            str(ex.get("check", "")),
            int(ex.get("line", 0) or 0),
            str(ex.get("file", "") or ""),
        ),
        explained_by=(
            {str(k): str(v) for k, v in explained.items()}
            if isinstance(explained, Mapping)
            else None
        ),
        members=members,
    )


def merged_causes(
    results: Sequence[CaseResult],
    shards: Sequence[Sequence[Cause]],
    catalogue: Catalogue | None = None,
) -> tuple[Cause, ...]:
    """The causes of a report merged from shards (``report merge``): grouped again from the
    merged cases' failing checks, each check keeping the option its shard found to explain
    it when every shard that failed it names the same one (shards replay only their own
    cases). ``shards``: each shard report's causes; a shard whose causes do not list their
    checks (a report older than ``members``) explains nothing. ``catalogue`` gives each
    option's words, as a run says them."""
    failing = {(r.id, c.key) for r in results for c in r.checks if c.status == "fail"}
    if not failing:
        return ()
    votes: dict[CheckId, set[tuple[Choice, ...] | None]] = {}
    files: dict[str, str] = {}
    for causes in shards:
        for cause in causes:
            if cause.example.file:
                files.setdefault(cause.example.case, cause.example.file)
        if not causes or not all(cause.members for cause in causes):
            continue
        for cause in causes:
            way = tuple(sorted(cause.explained_by.items())) if cause.explained_by else None
            for member in cause.members:
                if member in failing:
                    votes.setdefault(member, set()).add(way)
    ways: dict[tuple[Choice, ...], Explanation] = {}
    explained: dict[CheckId, Explanation] = {}
    for member, seen in votes.items():
        way = next(iter(seen)) if len(seen) == 1 else None
        if way is None:
            continue
        if way not in ways:
            ways[way] = _explanation(way, catalogue)
        explained[member] = ways[way]
    return group_causes(results, Inference(explained), files)


def _explanation(choices: tuple[Choice, ...], catalogue: Catalogue | None) -> Explanation:
    return Explanation(choices) if catalogue is None else explanation(choices, catalogue)


def with_causes(
    run: RunResult, scenarios: Sequence[Scenario], inference: Inference = NOTHING
) -> RunResult:
    """``run`` with its failing checks grouped into causes (``inference``: what explains
    them, from :func:`conformance.explain.infer`). A run with no failing check costs
    nothing here."""
    if not any(c.status == "fail" for r in run.results for c in r.checks):
        return run
    files = {s.id: _shown_path(s.path) for s in scenarios}
    return replace(run, causes=group_causes(run.results, inference, files))


def _shown_path(path: str) -> str:
    """A scenario file relative to the working directory when it lies below it."""
    here = os.getcwd()
    return os.path.relpath(path, here) if path.startswith(here + os.sep) else path


def causes_of(run: RunResult) -> tuple[Cause, ...]:
    """The run's causes: worked out with the run, else grouped now from its checks alone
    (no option inferred)."""
    return run.causes or group_causes(run.results)


def report_causes(doc: Mapping[str, object], results: Sequence[CaseResult]) -> tuple[Cause, ...]:
    """A report's causes: as its run wrote them (with the options inferred then), else, for
    a report older than them or merged from shards, grouped again from its checks."""
    written = doc.get("causes")
    if isinstance(written, list) and written:
        return tuple(cause_from_record(c) for c in written if isinstance(c, Mapping))
    return group_causes(results)
