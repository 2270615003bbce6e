"""Known fuzz findings (conformance/fuzz/expected.py): ``fuzz --expectations FILE`` and
``--write-expectations FILE``, in the file format ``run`` reads."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from conformance.fuzz import command
from conformance.fuzz.expected import apply_expectations, write_expectations
from conformance.run.expectations import ExpectationsError, load_expectations
from tests.conformance.fuzzkit import CATALOGUE, SCHEMA, cli, options
from tests.mutants import harness


def _finding(rule: str, op: str, kind: str, summary: str) -> dict[str, Any]:
    return {"rule": rule, "op": op, "kind": kind, "summary": summary}


def _report(*findings: dict[str, Any]) -> dict[str, Any]:
    return {
        "findings": [dict(f) for f in findings],
        "totals": {"steps": 10, "queries": 0, "compared": 10},
    }


DRAW = _finding(
    "TURN-2", "draw_stock", "outcome", "reference rejected (already_drew), engine accepted"
)
LAY = _finding(
    "LAYOFF-1", "lay_off", "outcome", "reference accepted, engine rejected (does_not_fit)"
)


def test_a_written_file_is_read_back_and_run_accepts_it_too(tmp_path: Path) -> None:
    path = tmp_path / "known.yaml"
    assert write_expectations(path, _report(DRAW, LAY)) == 2
    known = load_expectations(path)  # the loader ``run`` uses: the same format
    assert set(known.expected_findings) == {
        tuple(f[k] for k in ("rule", "op", "kind", "summary")) for f in (DRAW, LAY)
    }
    assert known.expected_failures == {}
    # JSON too, and a kept reason survives a rewrite.
    text = path.read_text().replace("reason: ''", "reason: filed upstream", 1)
    path.write_text(text)
    again = tmp_path / "known.json"
    write_expectations(again, _report(DRAW), load_expectations(path))
    assert list(load_expectations(again).expected_findings.values()) == ["filed upstream"]


def test_only_new_findings_fail_and_strict_fails_on_findings_gone(tmp_path: Path) -> None:
    path = tmp_path / "known.yaml"
    write_expectations(path, _report(DRAW, LAY))
    known = load_expectations(path)
    # Every finding expected: exit 0, each marked with its entry's reason.
    report = _report(DRAW, LAY)
    apply_expectations(report, known, file=str(path), strict=False)
    assert [f["expected"] for f in report["findings"]] == ["", ""]
    assert command.verdict(report) == (command.EXIT_OK, None)
    # A new finding: exit 1, whatever else is expected.
    other = _finding("TURN-2", "draw_stock", "outcome", "reference accepted, engine rejected")
    report = _report(DRAW, other)
    apply_expectations(report, known, file=str(path), strict=False)
    assert report["expectations"]["unexpected"] == 1
    assert command.verdict(report)[0] == command.EXIT_FAILED
    # A listed finding that did not show: fine, unless --strict.
    report = _report(DRAW)
    apply_expectations(report, known, file=str(path), strict=False)
    assert command.verdict(report) == (command.EXIT_OK, None)
    assert report["expectations"]["stale"] == [{**LAY, "reason": ""}]
    report = _report(DRAW)
    apply_expectations(report, known, file=str(path), strict=True)
    code, problem = command.verdict(report)
    assert code == command.EXIT_FAILED and problem and "did not show" in problem
    # Expected findings never make a campaign that graded nothing green.
    report = _report(DRAW)
    report["totals"] = {"steps": 0, "queries": 0, "compared": 0}
    apply_expectations(report, known, file=str(path), strict=False)
    assert command.verdict(report)[0] == command.EXIT_UNGRADED


def test_a_finding_listed_twice_or_missing_its_key_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "known.yaml"
    path.write_text(
        "expected_findings:\n"
        "- {rule: TURN-2, op: draw_stock, kind: outcome, summary: s}\n"
        "- {rule: TURN-2, op: draw_stock, kind: outcome, summary: s, reason: again}\n"
    )
    with pytest.raises(ExpectationsError, match="entry 2 names TURN-2 draw_stock"):
        load_expectations(path)
    path.write_text("expected_findings:\n- {rule: TURN-2, op: draw_stock, kind: outcome}\n")
    with pytest.raises(ExpectationsError, match="summary"):
        load_expectations(path)


def _campaign(mutant: str, out: Path, known: command.Known | None = None) -> command.Outcome:
    harness.make_root_importable()
    opts = options(games=1, only_games=(0,), max_steps=40, shrink=False)
    return command.campaign(
        harness.mutant_argv(mutant), opts, CATALOGUE, out, handle_signals=False, known=known
    )


@pytest.mark.slow
def test_a_rerun_with_the_file_it_wrote_passes_and_another_fault_still_fails(
    tmp_path: Path,
) -> None:
    path = tmp_path / "known.yaml"
    first = _campaign("draw_twice", tmp_path / "a", command.Known(write_to=path))
    assert first.exit_code == command.EXIT_FAILED and first.report["findings"]
    known = load_expectations(path)
    again = _campaign("draw_twice", tmp_path / "b", command.Known(known, str(path), strict=True))
    assert again.exit_code == command.EXIT_OK, again.text
    jsonschema.validate(again.report, SCHEMA)
    assert all(f["expected"] == "" for f in again.report["findings"])
    other = _campaign("layoff_before_opening", tmp_path / "c", command.Known(known, str(path)))
    assert other.exit_code == command.EXIT_FAILED
    assert other.report["expectations"]["unexpected"] >= 1
    jsonschema.validate(copy.deepcopy(other.report), SCHEMA)


def test_the_command_line_refuses_strict_without_a_file() -> None:
    done = cli("--strict", "--games", "0")
    assert done.returncode == 2 and "--strict needs --expectations" in done.stderr
