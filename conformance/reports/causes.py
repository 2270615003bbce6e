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
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from conformance.grading.results import (
    ADVICE,
    UNEXPLAINED,
    CaseResult,
    Cause,
    CheckId,
    CheckResult,
    Example,
    RunResult,
)
from conformance.reports.behaviour import (
    Behaviour,
    asked,
    behaviour,
    refused_op,
    related,
    weak,
)
from conformance.reports.symptoms import (
    NOTHING,
    Choice,
    Explanation,
    Inference,
    card_table,
    explanation,
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
    "asked_of",
    "cause_from_record",
    "causes_of",
    "group_causes",
    "merged_causes",
    "report_causes",
    "with_causes",
]


def _explained_summary(words: str, why: Explanation) -> str:
    return f"{words}: explained by {why.label()}: {ADVICE}"


#: (op, what was asked) of a check, by (case id, check key): the lines' "e.g." part.
Asked = Mapping[CheckId, tuple[str, str]]


def group_causes(
    results: Sequence[CaseResult],
    inference: Inference = NOTHING,
    files: Mapping[str, str] | None = None,
    asked: Asked | None = None,
) -> tuple[Cause, ...]:
    """The causes of the failing checks of ``results``, most checks first (see the module
    docstring). ``files``: case id -> its scenario file, for the examples; ``asked``: what
    each check asked (:func:`asked_of`), for the lines."""
    asked = asked or {}
    leads: list[tuple[tuple[object, ...], Behaviour, CaseResult, CheckResult]] = []
    for result in results:
        lead: dict[int | None, tuple[tuple[object, ...], Behaviour]] = {}
        for check in result.checks:
            if check.status != "fail":
                continue
            if check.step not in lead:
                op = asked.get((result.id, check.key), ("", ""))[0] or None
                found = behaviour(check, op)
                lead[check.step] = (found.key, found)
            key, found = lead[check.step]
            leads.append((key, found, result, check))
    # Behaviours that are one (behaviour.related, or both shown by one check) share a
    # group, named by the first key seen.
    parent: dict[tuple[object, ...], tuple[object, ...]] = {}

    def root(key: tuple[object, ...]) -> tuple[object, ...]:
        while parent.setdefault(key, key) != key:
            key = parent[key]
        return key

    def join(one: tuple[object, ...], two: tuple[object, ...]) -> None:
        a, b = root(one), root(two)
        if a != b:
            parent[b] = a

    seen: list[tuple[object, ...]] = []
    for key, found, _, _ in leads:
        for node in (key, found.also):
            if node is None or node in parent:
                continue
            root(node)
            for other in seen:
                if related(other, node):
                    join(other, node)
            seen.append(node)
        if found.also is not None:
            join(key, found.also)
    _attach_weak(leads, root, join)
    groups: dict[tuple[object, ...], list[tuple[CaseResult, CheckResult]]] = {}
    words: dict[tuple[object, ...], list[Behaviour]] = {}
    for key, found, result, check in leads:
        groups.setdefault(root(key), []).append((result, check))
        words.setdefault(root(key), []).append(found)
    # Behaviours one proved option explains whole are one cause: that option.
    for _, matched in inference.proved:
        covered = [k for k, m in groups.items() if all((r.id, c.key) in matched for r, c in m)]
        for key in covered[1:]:
            groups[covered[0]].extend(groups.pop(key))
            words[covered[0]].extend(words.pop(key))
    causes = []
    for key, members in groups.items():
        ids = [(r.id, c.key) for r, c in members]
        why = _explaining(ids, inference)
        said = _words(key, words[key], [c for _, c in members])
        example = _smallest(members)
        shown = asked.get((example[0].id, example[1].key), ("", ""))[1]
        if shown:
            said = f"{said} (e.g. {shown}: {_got(example[1])})"
        if why is not None:
            summary = _explained_summary(said, why)
        elif inference.exhausted and all(i in inference.exhausted for i in ids):
            summary = f"{said}: {UNEXPLAINED}"
        else:
            summary = said
        causes.append(_cause(summary, members, why, files or {}))
    causes.sort(key=lambda c: (-c.checks, c.summary))
    return tuple(causes)


def _attach_weak(
    leads: Sequence[tuple[tuple[object, ...], Behaviour, CaseResult, CheckResult]],
    root: Callable[[tuple[object, ...]], tuple[object, ...]],
    join: Callable[[tuple[object, ...], tuple[object, ...]], None],
) -> None:
    """Join each group of a weak verdict (behaviour.weak: an acceptance with no reason of
    the rules', a lay-off refused as not fitting) to the largest group of the same verdict
    with a reason of its own, sharing its op when one does."""
    sizes: dict[tuple[object, ...], int] = {}
    ops: dict[tuple[object, ...], set[str]] = {}
    for key, found, _, _ in leads:
        top = root(key)
        sizes[top] = sizes.get(top, 0) + 1
        ops.setdefault(top, set()).add(found.where)
    strong = {
        top: str(top[0]) for top in sizes if top[0] in ("accepts", "refuses") and weak(top) is None
    }
    for top in list(sizes):
        verdict = weak(top)
        if verdict is None:
            continue
        same = [t for t, v in strong.items() if v == verdict and root(t) != root(top)]
        if not same:
            # No reason of its own anywhere: the weak groups of one verdict are one.
            same = [t for t in sizes if weak(t) == verdict and root(t) != root(top)]
        near = [t for t in same if ops[t] & ops[top]] or same
        if near:
            join(max(near, key=lambda t: (sizes[t], str(t))), top)


def _explaining(ids: Sequence[CheckId], inference: Inference) -> Explanation | None:
    """The explanation that reproduces every check of a cause, or None: the first proved
    option set covering them all, else one option every check is explained by."""
    for why, matched in inference.proved:
        if all(i in matched for i in ids):
            return why
    found = {inference.explained.get(i) for i in ids}
    if len(found) == 1:
        return found.pop()
    return None


def _words(
    key: tuple[object, ...], seen: Sequence[Behaviour], checks: Sequence[CheckResult]
) -> str:
    """The cause's words: its behaviour, the ops it shows in, a score's card value."""
    if key[0] == "score" and (table := card_table(list(checks))) is not None:
        rank, expected, got = table
        return f"{rank} counted {got} instead of {expected}"
    first = seen[0].words
    if key[0] == "field" and len(key) == 3 and " → " in first:
        shown = dict.fromkeys(b.words.split(" → ", 1)[1] for b in seen if " → " in b.words)
        first = f"{first.split(' → ', 1)[0]} → {' or '.join(shown)}"
    if key[0] == "accepts":
        reasons = sorted({str(r) for b in seen for r in b.key[1:] if b.key[0] == "accepts"})
        first = "accepts what the rules refuse" + (
            f" ({' or '.join(str(r) for r in reasons)})" if reasons else ""
        )
    ops = list(dict.fromkeys(b.where for b in seen if b.where))
    if key[0] in ("refuses", "accepts", "accepts-op", "refuses-op") and ops:
        first += f" in {', '.join(ops[:4])}" + (", …" if len(ops) > 4 else "")
    return first


def _got(check: CheckResult) -> str:
    """What came back, shortly: the signature's ``expected …, got …`` part, else the
    diff's ``actual`` (a refused state: ``got unsupported: no such pile``)."""
    sig = check.signature or check.what
    if ": expected" in sig:
        return sig.split(": ", 1)[1]
    actual = _ACTUAL.search(check.diff or "")
    return f"got {actual[1]}" if actual is not None else sig


#: The ``actual`` line of a difference (conformance.grading.compare.format_mismatches).
_ACTUAL = re.compile(r"^\s*actual\s+(.+)$", re.MULTILINE)


def _smallest(
    members: Sequence[tuple[CaseResult, CheckResult]],
) -> tuple[CaseResult, CheckResult]:
    return min(members, key=lambda m: len(m[0].checks))


def _cause(
    summary: str,
    members: Sequence[tuple[CaseResult, CheckResult]],
    why: Explanation | None,
    files: Mapping[str, str],
) -> Cause:
    cases = tuple(dict.fromkeys(r.id for r, _ in members))
    rules = tuple(dict.fromkeys(rule for _, c in members for rule in c.rules))
    smallest, check = _smallest(members)
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
    questions = asked_of(run.results, scenarios, run.profile)
    return replace(run, causes=group_causes(run.results, inference, files, questions))


def asked_of(
    results: Sequence[CaseResult], scenarios: Sequence[Scenario], profile: str
) -> dict[CheckId, tuple[str, str]]:
    """(op, what was asked) of each failing check of ``results``, from its scenario: a
    melds query's op and meld, a step's action, the setup's op."""
    by_id = {s.id: s for s in scenarios}
    found: dict[CheckId, tuple[str, str]] = {}
    for result in results:
        scenario = by_id.get(result.id)
        if scenario is None:
            continue
        for check in result.checks:
            if check.status != "fail":
                continue
            refused = refused_op(check)
            if refused is not None:
                found[(result.id, check.key)] = (refused, refused)
                continue
            if check.step is None:
                continue
            if scenario.level == "melds":
                if 0 < check.step <= len(scenario.checks):
                    query = scenario.checks[check.step - 1]
                    found[(result.id, check.key)] = (query.op, asked(query.request, query.op))
                continue
            if check.step == 0:
                setup = scenario.setup_for(profile)
                op = (
                    "new_game"
                    if setup is not None and setup.new_game is not None
                    else (
                        "load_state"
                        if setup is not None and setup.state is not None
                        else "start_deal"
                    )
                )
                found[(result.id, check.key)] = (op, op)
                continue
            if check.step <= len(scenario.steps):
                step = scenario.steps[check.step - 1]
                action = step.action if step.kind == "action" else None
                op = str((action or {}).get("type") or step.kind)
                found[(result.id, check.key)] = (op, asked(action, op))
    return found


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
