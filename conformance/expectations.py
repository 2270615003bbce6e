"""An engine's expectations file: the failures it knows about and accepts for now.

Shape (YAML or JSON)::

    expected_failures:
      cc-0042: {reason: "we allow K-A-2 on purpose"}

A listed case that fails is reported ``xfail``; a listed case that passes is ``xpass``,
which fails the run under ``--strict`` so the stale entry gets removed.

An expected failure never covers an error: a crash, a hang or a protocol breach is the
adapter's fault, not a ruling, and stays ``error`` (failing the run) unless its entry says
so explicitly with ``status: error``. Likewise ``status: not_run``. ``--write-expectations``
lists failures only; an errored case is never written as an expected failure.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any

from conformance.report import atomic_write_text
from conformance.runner import CaseResult
from conformance.validation import SchemaValidator
from conformance.yamlsafe import FileProblem, load_yaml_limited, read_limited_text

SCHEMA_PATH = Path(__file__).resolve().parent / "schemas" / "expectations.schema.json"


class ExpectationsError(Exception):
    """The expectations file cannot be read or has the wrong shape."""


#: The statuses an entry may expect; ``fail`` when the entry does not say.
EXPECTABLE = ("fail", "error", "not_run")


@dataclass(frozen=True)
class Expectations:
    """Scenario id → the engine team's reason for accepting its failure.

    ``statuses`` maps ids to the status expected (``fail``, ``error`` or ``not_run``);
    ids it does not name expect ``fail``.
    """

    expected_failures: Mapping[str, str]
    statuses: Mapping[str, str] = field(default_factory=dict)

    def status_of(self, scenario_id: str) -> str:
        """The status the entry for ``scenario_id`` expects."""
        return self.statuses.get(scenario_id, "fail")


@cache
def _validator() -> SchemaValidator:
    return SchemaValidator(json.loads(SCHEMA_PATH.read_text(encoding="utf-8")))


def load_expectations(path: Path | str) -> Expectations:
    """Read an expectations file (``.json`` as JSON, anything else as YAML).

    The limits of scenario files apply (conformance/yamlsafe.py): size, UTF-8,
    nesting depth and alias expansion.

    :raises ExpectationsError: when it is unreadable, too large, not UTF-8, too
        deeply nested, or does not match the schema; the message names the file.
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
            data: Any = json.loads(text)
        else:
            loaded = load_yaml_limited(text)
            if isinstance(loaded, FileProblem):
                raise ExpectationsError(
                    f"expectations file {target}:{loaded.line}: {loaded.message}"
                )
            data = loaded
    except (json.JSONDecodeError, yaml.YAMLError) as exc:
        raise ExpectationsError(f"expectations file {target} does not parse: {exc}") from exc
    except RecursionError:
        raise ExpectationsError(
            f"expectations file {target}: nested too deeply to read (a hostile or broken file?)"
        ) from None
    if data is None:
        data = {"expected_failures": {}}
    failures = data.get("expected_failures") if isinstance(data, dict) else None
    if isinstance(failures, dict):
        # Name the bad key itself: the schema's own message would quote the whole mapping.
        for key in failures:
            if not isinstance(key, str) or not _SCENARIO_ID.match(key):
                line = _line_of_key(text, key)
                raise ExpectationsError(
                    f"expectations file {target}:{line}: {str(key)[:80]!r} under "
                    "expected_failures is not a scenario id (cc- and four digits)"
                )
    error = _validator().best_error(data)
    if error is not None:
        pointer = "/" + "/".join(str(p) for p in error.absolute_path)
        raise ExpectationsError(
            f"expectations file {target}: at {pointer}: {_shorten(error.message)}"
        )
    failures = data.get("expected_failures") or {}
    return Expectations(
        {k: str((v or {}).get("reason") or "") for k, v in failures.items()},
        {k: v["status"] for k, v in failures.items() if v and v.get("status")},
    )


_SCENARIO_ID = re.compile(r"^cc-[0-9]{4}$")


def _line_of_key(text: str, key: object) -> int:
    """1-based line where ``key`` is written as a mapping key (0 if it cannot be found)."""
    wanted = str(key)
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip().lstrip("{,").strip()
        for quote in ("", '"', "'"):
            if stripped.startswith(f"{quote}{wanted}{quote}:"):
                return number
    return 0


def _shorten(message: str, limit: int = 300) -> str:
    return message if len(message) <= limit else message[: limit - 1] + "…"


def apply_expectations(
    results: Sequence[CaseResult], expectations: Expectations
) -> list[CaseResult]:
    """Turn listed failures into ``xfail`` and listed passes into ``xpass``.

    A result becomes ``xfail`` only when its status is the one its entry expects: an
    expected failure does not cover an error (or a case not run), which keeps its status
    and says why in its note.
    """
    out: list[CaseResult] = []
    for result in results:
        reason = expectations.expected_failures.get(result.id)
        if reason is None:
            out.append(result)
            continue
        wanted = expectations.status_of(result.id)
        if result.status == wanted:
            label = "expected failure" if wanted == "fail" else f"expected {wanted}"
            out.append(replace(result, status="xfail", note=f"{label}: {reason}"))
        elif result.status in EXPECTABLE:
            note = (
                f"listed as expected {wanted} ({reason}), but the case ended {result.status}: "
                f"an expectation covers only the status it names (add status: "
                f"{result.status} to expect this one explicitly)"
            )
            if result.note:
                note = f"{result.note}; {note}"
            out.append(replace(result, note=note))
        elif result.status == "pass":
            note = f"listed as an expected failure ({reason}) but passed"
            out.append(replace(result, status="xpass", note=note))
        else:
            out.append(result)
    return out


def expectations_from_results(
    results: Sequence[CaseResult], previous: Expectations | None = None
) -> dict[str, Any]:
    """Build an expectations document from a run: its failures, reason to fill in.

    Failures (``fail``, and ``xfail`` entries still failing) are listed; errors and cases not
    run never are, so a rerun with the file cannot turn a crash green. An ``xfail`` that an
    explicit ``status: error``/``not_run`` entry of ``previous`` expected keeps that entry.
    """
    failures: dict[str, Any] = {}
    for r in results:
        if r.status == "fail":
            failures[r.id] = {"reason": ""}
        elif r.status == "xfail":
            entry: dict[str, Any] = {"reason": ""}
            if previous is not None:
                entry["reason"] = previous.expected_failures.get(r.id, "")
                if previous.status_of(r.id) != "fail":
                    entry["status"] = previous.status_of(r.id)
            failures[r.id] = entry
    return {"expected_failures": failures}


def write_expectations(
    path: Path | str, results: Sequence[CaseResult], previous: Expectations | None = None
) -> int:
    """Write an expectations file for the run's failures; return how many were listed."""
    document = expectations_from_results(results, previous)
    target = Path(path)
    if target.suffix == ".json":
        text = json.dumps(document, indent=2) + "\n"
    else:
        import yaml

        header = "# Known failures of this engine; fill in each reason.\n"
        text = header + yaml.safe_dump(document, sort_keys=True, default_flow_style=False)
    atomic_write_text(target, text)
    return len(document["expected_failures"])
