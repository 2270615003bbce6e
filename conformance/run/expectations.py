"""An engine's expectations file: the failures it knows about and accepts for now.

Shape (YAML or JSON), an entry per case, naming the whole case or some of its checks::

    expected_failures:
      cc-0042: {reason: "we allow K-A-2 on purpose"}
      cc-0302:
        checks:
          step 3 deal_scores: {reason: "our joker counts 30"}
          step 3 totals: {reason: "our joker counts 30"}

or the same as a list, each entry naming its case ``id`` and, for a check, its ``check``
key (``- {id: cc-0302, check: step 3 totals, reason: …}``). Check keys are those of the
reports (``step 3 totals``, ``final turn``, ``check 2``: docs/reports.md).

Beside them, ``expected_causes`` lists root causes (``run --write-expectations FILE
--by-cause``), one entry each: the run's ``summary``, ``rules`` and ``explained_by`` of the
cause, a ``reason``, and its ``checks`` by case (``cc-0302: [step 3 deal_scores, step 3
totals]``). Each listed check is expected exactly as a check entry is (its reason, or the
summary when the reason is empty), so an author keeps or deletes a cause as one unit and a
new fault in the same case still fails.

A listed case that fails is reported ``xfail`` (its failing checks too); a listed case
that passes is ``xpass``, which fails the run under ``--strict`` so the stale entry gets
removed. A listed check that fails is ``xfail``; one that passes is ``xpass``. A case whose
listed checks are its only failures is ``xfail``; any other failing check keeps it
``fail``; a listed check that passed makes it ``xpass`` (unless another check fails).

An expected failure never covers an error: a crash, a hang or a protocol breach is the
adapter's fault, not a ruling, and stays ``error`` (failing the run) unless its entry says
so explicitly with ``status: error`` (whole-case entries only). Likewise ``status:
not_run``. ``--write-expectations`` lists failures only (the failing checks of each failing
case, or the case when it has no checks); an errored case is never written, but the entry
the file read has for a case that errored, did not run or was not selected is kept as it
was (rewriting the file in place never loses it).
``expected_unsupported`` keeps ops refused inconsistently (run/expected_support.py).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from conformance.errors import HarnessError
from conformance.grading.results import CaseResult, CheckResult
from conformance.io.files import atomic_write_text
from conformance.io.jsonsafe import JSONFileError, dumps
from conformance.io.jsonsafe import loads as json_loads
from conformance.io.resources import package_file
from conformance.io.textsafe import escape
from conformance.io.validation import SchemaValidator
from conformance.io.yamlsafe import (
    MAX_FILE_BYTES,
    FileProblem,
    load_yaml_limited,
    read_limited_text,
)
from conformance.run.cause_entries import cause_shows, cause_yaml, signatures_of, unmatched
from conformance.run.expected_support import unsupported_entries
from conformance.run.expectlines import duplicate_keys, line_of_key, node_line

if TYPE_CHECKING:
    from conformance.grading.results import Cause

SCHEMA_PATH = package_file("schemas", "expectations.schema.json")


class ExpectationsError(HarnessError):
    """The expectations file cannot be read or has the wrong shape."""


#: The statuses an entry may expect; ``fail`` when the entry does not say.
EXPECTABLE = ("fail", "error", "not_run")


@dataclass(frozen=True)
class ExpectedCause:
    """One cause an expectations file expects (``expected_causes``): the checks a run
    grouped as one root cause, kept or deleted as one unit."""

    #: The run's one-line summary of the cause.
    summary: str
    #: The engine team's reason (empty: the summary stands for it).
    reason: str
    rules: tuple[str, ...]
    #: Point -> option the run found to explain it, or None.
    explained_by: Mapping[str, str] | None
    #: (case id, check key), in file order.
    checks: tuple[tuple[str, str], ...]
    #: What its checks showed when it was written (their signatures: the values that
    #: differed); a listed check failing otherwise is another behaviour, never covered.
    #: Empty: any failure of a listed check matches (a file older than the field).
    shows: frozenset[str] = frozenset()

    @property
    def note(self) -> str:
        """What each of its checks says when it fails as expected."""
        return self.reason or self.summary


@dataclass(frozen=True)
class Expectations:
    """What an engine's expectations file lists.

    ``expected_failures`` maps the ids of whole-case entries to the engine team's reason;
    ``statuses`` maps ids to the status expected (``fail``, ``error`` or ``not_run``; ids
    it does not name expect ``fail``); ``expected_checks`` maps the ids of check entries to
    {check key: reason}.
    """

    expected_failures: Mapping[str, str]
    statuses: Mapping[str, str] = field(default_factory=dict)
    expected_checks: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    expected_findings: Mapping[tuple[str, str, str, str], str] = field(default_factory=dict)
    """Known fuzz findings (``fuzz --expectations``): (rule, op, kind, summary) -> reason."""
    causes: tuple[ExpectedCause, ...] = ()
    """The ``expected_causes`` entries; their checks are in ``expected_checks`` too."""
    #: Ops refused inconsistently, kept as known: op -> reason.
    expected_unsupported: Mapping[str, str] = field(default_factory=dict)

    def status_of(self, scenario_id: str) -> str:
        """The status the entry for ``scenario_id`` expects."""
        return self.statuses.get(scenario_id, "fail")

    @property
    def ids(self) -> frozenset[str]:
        """Every case id the file names, whole or by check (for naming stale entries)."""
        return frozenset(self.expected_failures) | frozenset(self.expected_checks)


@cache
def _validator() -> SchemaValidator:
    return SchemaValidator(json.loads(SCHEMA_PATH.read_text(encoding="utf-8")))


def load_expectations(path: Path | str) -> Expectations:
    """Read an expectations file (``.json`` as JSON, anything else as YAML).

    The limits of scenario files apply (conformance/io/yamlsafe.py): size, UTF-8,
    nesting depth and alias expansion; a JSON file is read as report files are
    (conformance/io/jsonsafe.py: no huge integer, no NaN).

    :raises ExpectationsError: when it is unreadable, too large, not UTF-8, too
        deeply nested, does not match the schema, or names a case or check twice.
    """
    target = Path(path)
    try:
        text = read_limited_text(target)
    except OSError as exc:
        raise ExpectationsError(f"cannot read expectations file {target}: {exc.strerror}") from exc
    if isinstance(text, FileProblem):
        raise ExpectationsError(f"expectations file {target}:{text.line}: {text.message}")
    import yaml  # here: a run without an expectations file never needs YAML

    try:
        if target.suffix == ".json":
            data: Any = json_loads(text)
            twice = duplicate_keys(text)  # JSON's decoder keeps the last too
            if twice is not None:
                raise ExpectationsError(f"expectations file {target}:{twice.line}: {twice.message}")
        else:
            loaded = load_yaml_limited(text, unique_keys=True)
            if isinstance(loaded, FileProblem):
                raise ExpectationsError(
                    f"expectations file {target}:{loaded.line}: {loaded.message}"
                )
            data = loaded
    except (json.JSONDecodeError, yaml.YAMLError) as exc:
        raise ExpectationsError(f"expectations file {target} does not parse: {exc}") from exc
    except JSONFileError as exc:
        raise ExpectationsError(f"expectations file {target}: {exc}") from None
    except RecursionError:
        raise ExpectationsError(
            f"expectations file {target}: nested too deeply to read (a hostile or broken file?)"
        ) from None
    data = {"expected_failures": {}} if data is None else data
    failures = data.get("expected_failures") if isinstance(data, dict) else None
    total = _refuse_unsafe_entries(failures, text, target)
    causes = data.get("expected_causes") if isinstance(data, dict) else None
    _refuse_unsafe_causes(causes, text, target, total)
    if isinstance(failures, dict):
        # Name the bad key itself: the schema's own message would quote the whole mapping.
        for key in failures:
            if not isinstance(key, str) or not _SCENARIO_ID.match(key):
                line = node_line(text, [key]) or line_of_key(text, key)
                raise ExpectationsError(
                    f"expectations file {target}:{line}: {str(key)[:80]!r} under "
                    "expected_failures is not a case id (cc- and four digits, or hostile/ "
                    "and a probe's name)"
                )
    error = _validator().best_error(data)
    if error is not None:
        pointer = "/" + "/".join(str(p) for p in error.absolute_path)
        raise ExpectationsError(
            f"expectations file {target}: at {pointer}: {_shorten(error.message)}"
        )
    failures = data.get("expected_failures") or {}
    entries = _entries(failures)
    whole: dict[str, str] = {}
    statuses: dict[str, str] = {}
    checks: dict[str, dict[str, str]] = {}
    for where, case_id, check, reason, status in entries:
        if check is None:
            if case_id in whole or case_id in checks:
                raise ExpectationsError(
                    f"expectations file {target}: {where} names {case_id} a second time"
                )
            whole[case_id] = reason
            if status:
                statuses[case_id] = status
            continue
        _list_check(checks, whole, (case_id, check), reason, f"{target}: {where}")
    expected_causes = _cause_entries(data.get("expected_causes") or [])
    for index, cause in enumerate(expected_causes, 1):
        where = f"{target}: expected_causes entry {index}"
        for named in cause.checks:
            _list_check(checks, whole, named, cause.note, where, ": a check belongs to one entry")
    findings, kept = finding_entries(data, target), unsupported_entries(data, target)
    return Expectations(whole, statuses, checks, findings, tuple(expected_causes), kept)


def _list_check(
    checks: dict[str, dict[str, str]],
    whole: Mapping[str, str],
    named: tuple[str, str],
    reason: str,
    where: str,
    again: str = "",
) -> None:
    """Record that check ``named`` (case id, check key) is expected to fail for ``reason``,
    refusing one whose case is listed whole or that an earlier entry named (``where``: the
    file and entry, for the message; ``again``: what is added to a repeat's message)."""
    case_id, check = named
    if case_id in whole:
        raise ExpectationsError(
            f"expectations file {where} names check {check!r} of {case_id}, "
            "which is also listed as a whole case: list the case or its checks"
        )
    listed = checks.setdefault(case_id, {})
    if check in listed:
        raise ExpectationsError(
            f"expectations file {where} names check {check!r} of {case_id} a second time{again}"
        )
    listed[check] = reason


def _cause_entries(entries: Sequence[Any]) -> list[ExpectedCause]:
    """The ``expected_causes`` of a schema-valid document, in file order."""
    found = []
    for entry in entries:
        explained = entry.get("explained_by")
        found.append(
            ExpectedCause(
                summary=escape(str(entry.get("summary") or "")),
                reason=escape(str(entry.get("reason") or "")),
                rules=tuple(escape(str(rule)) for rule in entry.get("rules") or ()),
                explained_by=(
                    {escape(str(k)): escape(str(v)) for k, v in explained.items()}
                    if explained
                    else None
                ),
                checks=tuple(
                    (case_id, key) for case_id, keys in entry["checks"].items() for key in keys
                ),
                shows=frozenset(escape(str(s)) for s in entry.get("shows") or ()),
            )
        )
    return found


def _entries(failures: Any) -> list[tuple[str, str, str | None, str, str | None]]:
    """(where, case id, check key or None, reason, status) per entry, in file order,
    from the mapping form or the list form (both schema-valid here)."""
    found: list[tuple[str, str, str | None, str, str | None]] = []
    if isinstance(failures, list):
        for index, entry in enumerate(failures):
            found.append(
                (
                    f"entry {index + 1}",
                    entry["id"],
                    entry.get("check"),
                    escape(str(entry.get("reason") or "")),
                    entry.get("status"),
                )
            )
        return found
    for case_id, entry in failures.items():
        entry = entry or {}
        reason = escape(str(entry.get("reason") or ""))
        if "checks" not in entry:
            found.append((f"entry {case_id}", case_id, None, reason, entry.get("status")))
            continue
        for key, sub in entry["checks"].items():
            own = escape(str((sub or {}).get("reason") or "")) or reason
            found.append((f"entry {case_id}", case_id, key, own, None))
    return found


#: A scenario's id, or a hostile probe's case in a run (conformance/laws/hostile/).
_SCENARIO_ID = re.compile(r"^(cc-[0-9]{4}|hostile/[a-z0-9_-]{1,60})$")

#: Longest reason one entry may give, in characters: a sentence or two. Reasons are copied
#: into the notes of every check they cover and into files --write-expectations writes.
MAX_REASON_CHARS: Final = 500
#: Most reason text a file may hold once YAML aliases are expanded (one reason shared by
#: alias counts once per use): the report and the rewritten file stay near the file limit.
MAX_REASONS_TOTAL: Final = 256 * 1024


def _refuse_unsafe_entries(failures: Any, text: str, target: Path) -> int:
    """Refuse, before the schema and before any run, what the schema cannot see or bound:
    a check key that is not a string (an int, bool, float or ``null`` key in YAML), a check
    key holding control characters (ESC would reach the terminal raw), a reason longer than
    :data:`MAX_REASON_CHARS`, and reasons adding up past :data:`MAX_REASONS_TOTAL`.

    Returns how many characters of reasons it counted.

    :raises ExpectationsError: naming the file and the line.
    """
    if isinstance(failures, dict):
        entries = [(case_id, entry) for case_id, entry in failures.items()]
    elif isinstance(failures, list):
        entries = [
            (entry.get("id") if isinstance(entry, dict) else None, entry) for entry in failures
        ]
    else:
        return 0
    total = 0
    for index, (case_id, entry) in enumerate(entries):
        if not isinstance(entry, dict):
            continue
        where = f"entry {case_id}" if isinstance(case_id, str) else f"entry {index + 1}"
        path: list[object] = [case_id] if isinstance(failures, dict) else [index]
        checks = entry.get("checks")
        reasons = [(entry.get("reason"), [*path, "reason"])]
        keys = [entry.get("check")] if "check" in entry else []
        if isinstance(checks, dict):
            keys += list(checks)
            reasons += [
                (sub.get("reason"), [*path, "checks", key, "reason"])
                for key, sub in checks.items()
                if isinstance(sub, dict)
            ]
        for key in keys:
            problem = _check_key_problem(key)
            if problem is not None:
                line = node_line(
                    text, [*path, "checks", key] if "check" not in entry else [*path, "check"]
                )
                raise ExpectationsError(f"expectations file {target}:{line}: {where}: {problem}")
        for reason, at in reasons:
            total = _count_reason(reason, at, total, text, target, where)
    return total


def _count_reason(
    reason: object,
    at: Sequence[object],
    total: int,
    text: str,
    target: Path,
    where: str,
    section: str = "expected_failures",
) -> int:
    """``total`` with ``reason`` counted in.

    :raises ExpectationsError: when it is longer than :data:`MAX_REASON_CHARS` or brings
        the total past :data:`MAX_REASONS_TOTAL` (file and line).
    """
    if not isinstance(reason, str):
        return total
    total += len(reason)
    if len(reason) > MAX_REASON_CHARS:
        raise ExpectationsError(
            f"expectations file {target}:{node_line(text, at, section)}: {where}: a reason of "
            f"{len(reason)} characters (at most {MAX_REASON_CHARS}: a sentence or two)"
        )
    if total > MAX_REASONS_TOTAL:
        raise ExpectationsError(
            f"expectations file {target}:{node_line(text, at, section)}: {where}: the reasons "
            f"add up to more than {MAX_REASONS_TOTAL} characters (YAML aliases count "
            "once per use)"
        )
    return total


def _refuse_unsafe_causes(causes: Any, text: str, target: Path, total: int) -> None:
    """What :func:`_refuse_unsafe_entries` refuses, for the ``expected_causes`` entries: a
    case id that is not a string naming a case, a check key that is not a string or holds
    control characters, and a summary or reason past the caps (a summary stands in for an
    empty reason, so it is capped and counted the same).

    :raises ExpectationsError: naming the file, the entry and the line.
    """
    if not isinstance(causes, list):
        return
    section = "expected_causes"
    for index, entry in enumerate(causes):
        if not isinstance(entry, dict):
            continue
        where = f"expected_causes entry {index + 1}"
        checks = entry.get("checks")
        if isinstance(checks, dict):
            for case_id, keys in checks.items():
                if not isinstance(case_id, str) or not _SCENARIO_ID.match(case_id):
                    line = node_line(text, [index, "checks", case_id], section)
                    raise ExpectationsError(
                        f"expectations file {target}:{line}: {where}: {str(case_id)[:80]!r} "
                        "is not a case id (cc- and four digits, or hostile/ and a probe's name)"
                    )
                for key in keys if isinstance(keys, list) else ():
                    problem = _check_key_problem(key)
                    if problem is not None:
                        line = node_line(text, [index, "checks", case_id], section)
                        raise ExpectationsError(
                            f"expectations file {target}:{line}: {where}: {problem}"
                        )
        for name in ("summary", "reason"):
            total = _count_reason(
                entry.get(name), [index, name], total, text, target, where, section
            )


def _check_key_problem(key: object) -> str | None:
    """Why ``key`` cannot name a check, or None when it can."""
    if not isinstance(key, str):
        shown = "null" if key is None else f"{type(key).__name__} {str(key)[:40]}"
        return f"a check key must be a string, not {shown} (quote it)"
    if escape(key) != key:
        return f"the check key {escape(key)[:80]!r} holds control characters"
    return None


def _shorten(message: str, limit: int = 300) -> str:
    return message if len(message) <= limit else message[: limit - 1] + "…"


def _join_note(*parts: str | None) -> str | None:
    kept = [part for part in parts if part]
    return "; ".join(kept) if kept else None


def _mark_failing(checks: Sequence[CheckResult], reason: str) -> tuple[CheckResult, ...]:
    """The checks with every failing one marked ``xfail`` (its case is expected to fail)."""
    return tuple(
        replace(c, status="xfail", note=_join_note(c.note, f"expected failure: {reason}"))
        if c.status == "fail"
        else c
        for c in checks
    )


def _apply_whole(result: CaseResult, reason: str, wanted: str) -> CaseResult:
    """A whole-case entry: the case's status decides."""
    if result.status == wanted:
        label = "expected failure" if wanted == "fail" else f"expected {wanted}"
        return replace(
            result,
            status="xfail",
            note=f"{label}: {reason}",
            checks=_mark_failing(result.checks, reason),
        )
    if result.status in EXPECTABLE:
        note = (
            f"listed as expected {wanted} ({reason}), but the case ended {result.status}: "
            f"an expectation covers only the status it names (add status: "
            f"{result.status} to expect this one explicitly)"
        )
        return replace(result, note=_join_note(result.note, note))
    if result.status == "pass":
        note = f"listed as an expected failure ({reason}) but passed"
        return replace(result, status="xpass", note=note)
    return result


def _apply_checks(result: CaseResult, listed: Mapping[str, str]) -> CaseResult:
    """Check entries: each listed check that failed is ``xfail``, each that passed
    ``xpass``; the case is ``fail`` while any other check fails, else ``xpass`` when a
    listed check passed, else ``xfail`` when a listed check failed."""
    if result.status not in ("fail", "pass"):
        if result.status in ("error", "not_run"):
            note = (
                f"the expectations file lists check(s) of this case, but it ended "
                f"{result.status}: a listed check covers only that check failing"
            )
            return replace(result, note=_join_note(result.note, note))
        return result
    checks: list[CheckResult] = []
    unexpected: list[str] = []
    expected: list[str] = []
    passed: list[str] = []
    seen: set[str] = set()
    for check in result.checks:
        reason = listed.get(check.key)
        if reason is None:
            if check.status == "fail":
                unexpected.append(check.key)
            checks.append(check)
            continue
        seen.add(check.key)
        if check.status == "fail":
            expected.append(check.key)
            joined = _join_note(check.note, f"expected failure: {reason}")
            checks.append(replace(check, status="xfail", note=joined))
        elif check.status == "pass":
            passed.append(check.key)
            stale = f"listed as an expected failure ({reason}) but passed"
            checks.append(replace(check, status="xpass", note=stale))
        else:
            checks.append(check)
    notes: list[str] = []
    if expected:
        notes.append(f"expected failure of check(s) {', '.join(expected)}")
    if passed:
        notes.append(f"listed check(s) {', '.join(passed)} passed: remove them from the file")
    absent = [key for key in listed if key not in seen]
    if absent:
        notes.append(
            f"the expectations file lists check(s) the case did not make: {', '.join(absent)}"
        )
    status = result.status
    if unexpected or (result.status == "fail" and not expected and not passed):
        # Another check fails, or the case failed with no failing check to match (results
        # without checks): an entry for some checks never hides that.
        pass
    elif passed:
        status = "xpass"
    elif expected:
        status = "xfail"
    return replace(
        result, status=status, checks=tuple(checks), note=_join_note(result.note, *notes)
    )


def apply_expectations(
    results: Sequence[CaseResult], expectations: Expectations
) -> list[CaseResult]:
    """Turn listed failures into ``xfail`` and listed passes into ``xpass``, for whole cases
    and for single checks.

    A result becomes ``xfail`` only when its status is the one its entry expects: an
    expected failure does not cover an error (or a case not run), which keeps its status
    and says why in its note. A case whose entry lists checks is ``xfail`` only when those
    are its only failing checks.
    """
    out: list[CaseResult] = []
    shown = cause_shows(expectations.causes)
    for result in results:
        reason = expectations.expected_failures.get(result.id)
        listed = expectations.expected_checks.get(result.id)
        if reason is not None:
            out.append(_apply_whole(result, reason, expectations.status_of(result.id)))
        elif listed:
            result, other = unmatched(result, shown)
            kept = {k: v for k, v in listed.items() if k not in other}
            out.append(_apply_checks(result, kept) if kept else result)
        else:
            out.append(result)
    return out


def expectations_from_results(
    results: Sequence[CaseResult],
    previous: Expectations | None = None,
    causes: Mapping[tuple[str, str], str] | None = None,
) -> dict[str, Any]:
    """Build an expectations document from a run: its failures, reason to fill in.

    A failing case with failing checks is listed by those checks (and those still
    expected to fail); a failing case without checks is listed whole. Errors and cases
    not run never are, so a rerun with the file cannot turn a crash green. An ``xfail``
    case that ``previous`` listed whole stays listed whole (with an explicit ``status:
    error``/``not_run`` kept); reasons from ``previous`` are kept. A new check's reason
    starts as its root cause (``causes``: (case id, check key) -> ``cause N of M: …``), so
    the checks of one cause read as one entry to fill in once.
    """
    failures: dict[str, Any] = {}
    for r in results:
        if r.status not in ("fail", "xfail", "xpass"):
            continue
        old_reason = previous.expected_failures.get(r.id) if previous is not None else None
        if r.status == "xfail" and old_reason is not None:
            assert previous is not None
            entry: dict[str, Any] = {"reason": old_reason}
            if previous.status_of(r.id) != "fail":
                entry["status"] = previous.status_of(r.id)
            failures[r.id] = entry
            continue
        old_checks = previous.expected_checks.get(r.id, {}) if previous is not None else {}
        failing = [c.key for c in r.checks if c.status in ("fail", "xfail")]
        if failing:
            failures[r.id] = {
                "checks": {
                    key: {"reason": old_checks.get(key) or (causes or {}).get((r.id, key), "")}
                    for key in failing
                }
            }
        elif r.status != "xpass":
            failures[r.id] = {"reason": old_reason or ""}
    for case_id in sorted(carried_ids(results, previous)):
        assert previous is not None
        failures[case_id] = _old_entry(previous, case_id)
    return {"expected_failures": failures}


def carried_ids(results: Sequence[CaseResult], previous: Expectations | None) -> set[str]:
    """The cases ``previous`` lists whose entries a rewrite keeps as they were: those that
    errored or did not run (nothing graded says the entry is stale) and those the run did
    not select."""
    if previous is None:
        return set()
    graded = {r.id for r in results if r.status not in ("error", "not_run")}
    return set(previous.ids) - graded


def _old_entry(previous: Expectations, case_id: str) -> dict[str, Any]:
    """The entry ``previous`` has for ``case_id``, as a rewritten file lists it."""
    if case_id in previous.expected_failures:
        entry: dict[str, Any] = {"reason": previous.expected_failures[case_id]}
        if previous.status_of(case_id) != "fail":
            entry["status"] = previous.status_of(case_id)
        return entry
    listed = previous.expected_checks.get(case_id, {})
    return {"checks": {key: {"reason": reason} for key, reason in listed.items()}}


def expectations_by_cause(
    results: Sequence[CaseResult],
    causes: Sequence[Cause],
    previous: Expectations | None = None,
) -> dict[str, Any]:
    """Build an expectations document with one entry per root cause (``expected_causes``).

    Each of ``causes`` (the run's, :mod:`conformance.reports.causes`: failing checks only) is one
    entry: its summary, rules and ``explained_by``, an empty reason to fill in (the summary
    stands in for it), and exactly its checks by case, so a rerun expects those checks
    and no other check of those cases. A cause entry of ``previous`` keeps its words and
    the checks of it still failing as expected (``xfail``); what else the run lists (a
    failing case without checks, entries of ``previous`` kept by case or by check) is
    written under ``expected_failures`` as :func:`expectations_from_results` writes it.
    """
    status = {(r.id, c.key): c.status for r in results for c in r.checks}
    entries: list[dict[str, Any]] = []
    covered: set[tuple[str, str]] = set()
    carried = carried_ids(results, previous)
    for old in previous.causes if previous is not None else ():
        kept = [
            member for member in old.checks if status.get(member) == "xfail" or member[0] in carried
        ]
        if kept:
            covered.update(kept)
            entries.append(
                _cause_entry(old.summary, old.reason, old.rules, old.explained_by, kept, old.shows)
            )
    for cause in causes:
        fresh = [member for member in cause.members if status.get(member) == "fail"]
        if fresh:
            covered.update(fresh)
            shows = signatures_of(results, fresh)
            entries.append(
                _cause_entry(cause.summary, "", cause.rules, cause.explained_by, fresh, shows)
            )
    rest = expectations_from_results(results, previous)["expected_failures"]
    failures: dict[str, Any] = {}
    for case_id in sorted(rest):
        entry = rest[case_id]
        if "checks" in entry:
            left = {k: v for k, v in entry["checks"].items() if (case_id, k) not in covered}
            if not left:
                continue
            entry = {"checks": dict(sorted(left.items()))}
        failures[case_id] = entry
    return {"expected_causes": entries, "expected_failures": failures}


def _cause_entry(
    summary: str,
    reason: str,
    rules: Sequence[str],
    explained_by: Mapping[str, str] | None,
    members: Sequence[tuple[str, str]],
    shows: Iterable[str] = (),
) -> dict[str, Any]:
    """One ``expected_causes`` entry; a summary longer than a reason may be is cut."""
    if len(summary) > MAX_REASON_CHARS:
        summary = summary[: MAX_REASON_CHARS - 1] + "…"
    checks: dict[str, list[str]] = {}
    for case_id, key in members:
        checks.setdefault(case_id, []).append(key)
    return {
        "summary": summary,
        "rules": list(rules),
        "explained_by": dict(explained_by) if explained_by else None,
        "reason": reason,
        "checks": checks,
        "shows": sorted(shows),
    }


def count_entries(document: Mapping[str, Any]) -> int:
    """How many failures an expectations document lists: whole cases plus single checks
    (a cause entry's checks each count)."""
    entries = document.get("expected_failures") or {}
    listed = sum(len(entry.get("checks", {})) or 1 for entry in entries.values())
    for cause in document.get("expected_causes") or ():
        listed += sum(len(keys) for keys in cause["checks"].values())
    return listed


def write_expectations(
    path: Path | str,
    results: Sequence[CaseResult],
    previous: Expectations | None = None,
    causes: Mapping[tuple[str, str], str] | None = None,
    *,
    by_cause: Sequence[Cause] | None = None,
) -> int:
    """Write an expectations file for the run's failures; return how many were listed
    (whole cases plus single checks). ``causes``: each failing check's root cause, the
    reason a new entry starts with. ``by_cause``: the run's causes, to write one entry per
    cause instead (:func:`expectations_by_cause`)."""
    if by_cause is not None:
        document = expectations_by_cause(results, by_cause, previous)
    else:
        document = expectations_from_results(results, previous, causes)
    target = Path(path)
    if target.suffix == ".json":
        text = dumps(document) + "\n"
    elif by_cause is not None:
        text = cause_yaml(document)
    else:
        import yaml

        header = "# Known failures of this engine; fill in each reason.\n"
        text = header + yaml.safe_dump(document, sort_keys=True, default_flow_style=False)
    _refuse_unreadable(text)
    atomic_write_text(target, text)
    return count_entries(document)


def finding_entries(data: Any, target: Path) -> dict[tuple[str, str, str, str], str]:
    """The ``expected_findings`` of a schema-valid expectations document: each fuzz
    finding's key (rule, op, kind, summary) and its reason.

    :raises ExpectationsError: when a finding is listed twice.
    """
    found: dict[tuple[str, str, str, str], str] = {}
    for index, entry in enumerate((data or {}).get("expected_findings") or [], 1):
        key = (entry["rule"], entry["op"], entry["kind"], entry["summary"])
        if key in found:
            raise ExpectationsError(
                f"expectations file {target}: expected_findings entry {index} names "
                f"{entry['rule']} {entry['op']} ({entry['kind']}) a second time"
            )
        found[key] = str(entry.get("reason") or "")
    return found


def _refuse_unreadable(text: str) -> None:
    """Refuse to write an expectations file the next run would refuse as too large.

    :raises ValueError: saying how large it would be (the run names the option and path).
    """
    size = len(text.encode("utf-8"))
    if size > MAX_FILE_BYTES:
        raise ValueError(
            f"the file would be {size} bytes, more than the {MAX_FILE_BYTES} bytes a run "
            "reads back; nothing written"
        )
