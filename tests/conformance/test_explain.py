"""Which option explains a failure (conformance/explain.py), proved on fake engines.

Each test runs the whole Argentine profile against an engine and lets the run ask the
reference (a subprocess, through the protocol) which option would explain its failing
checks: slow, so marked.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from conformance.cli import main
from conformance.run.budget import COST_VARIABLE
from tests.paths import ROOT

FAKES = ROOT / "tests" / "fake_adapters"
SCHEMA = json.loads((ROOT / "conformance" / "schemas" / "report.schema.json").read_text())
HOUSE = f"{sys.executable} {FAKES / 'house_engine.py'}"


def run(
    adapter: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> tuple[dict[str, Any], str]:
    report = tmp_path / "r.json"
    code = main(["run", "--profile", "argentine", "--adapter", adapter, "--json", str(report)])
    out = capsys.readouterr().out
    assert code == 1, out
    document = json.loads(report.read_text())
    jsonschema.validate(document, SCHEMA)
    return document, out


def failing(document: dict[str, Any]) -> int:
    return sum(1 for c in document["cases"] for k in c["checks"] if k["status"] == "fail")


def numbered_cause_lines(out: str) -> list[str]:
    block = out.split("Causes (most checks first):\n")[1].split("\n\n")[0]
    return [line for line in block.splitlines() if re.match(r"  \d+\. ", line)]


@pytest.fixture
def untimed_explanation(monkeypatch: pytest.MonkeyPatch) -> None:
    """What explains a failure, found whatever the machine's load: the explanation's time
    bound (twice the run's grading time, conformance/run/budget.py) is measured
    by benchmarks/causes_bench.py, never by a test."""
    monkeypatch.setenv(COST_VARIABLE, "10000")


@pytest.mark.slow
@pytest.mark.usefixtures("untimed_explanation")
def test_a_hidden_joker_worth_30_is_one_cause_explained_by_its_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document, out = run(f"{HOUSE} --ruling VARIANT-01=thirty --undeclared", tmp_path, capsys)
    causes = document["causes"]
    assert 1 <= len(causes) <= 2
    first = causes[0]
    assert first["explained_by"] == {"VARIANT-01": "thirty"}
    assert first["checks"] >= 0.9 * failing(document)
    assert "explained by VARIANT-01=thirty" in first["summary"]
    assert first["example"]["file"].endswith(".yaml") and first["example"]["line"] > 0
    lines = numbered_cause_lines(out)
    assert 1 <= len(lines) <= 6
    assert "explained by VARIANT-01=thirty" in lines[0]
    # The per-check detail is as it was: each failing check keeps its diff and signature.
    assert all(k["diff"] for c in document["cases"] for k in c["checks"] if k["status"] == "fail")


@pytest.mark.slow
@pytest.mark.usefixtures("untimed_explanation")
def test_two_hidden_options_are_causes_that_name_both(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    adapter = f"{HOUSE} --ruling VARIANT-01=thirty --ruling VARIANT-05=twelve --undeclared"
    document, _ = run(adapter, tmp_path, capsys)
    causes = document["causes"]
    assert len(causes) <= 4
    named = {p: o for c in causes for p, o in (c["explained_by"] or {}).items()}
    assert named == {"VARIANT-01": "thirty", "VARIANT-05": "twelve"}


@pytest.mark.slow
@pytest.mark.usefixtures("untimed_explanation")
def test_three_unrelated_bugs_are_three_causes_and_no_ruling(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document, out = run(f"{sys.executable} {FAKES / 'buggy_engine.py'}", tmp_path, capsys)
    causes = document["causes"]
    assert len(causes) == 3, [c["summary"] for c in causes]
    assert all(c["explained_by"] is None for c in causes)
    assert sum(c["checks"] for c in causes) == failing(document)
    summaries = " | ".join(c["summary"] for c in causes)
    assert "scores higher than the rules count" in summaries
    assert "refuses with trio_mixed_ranks what the rules accept or refuse otherwise" in summaries
    assert "expected trio_size, got trio_mixed_ranks" in summaries
    assert "refuses with empty_discard what the rules accept in draw_discard" in summaries
    assert "explained by" not in out


@pytest.mark.slow
def test_no_explain_groups_the_causes_and_asks_the_reference_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "r.json"
    adapter = f"{HOUSE} --ruling VARIANT-01=thirty --undeclared"
    argv = ["run", "--profile", "argentine", "--adapter", adapter, "--json", str(report)]
    assert main([*argv, "--scenario", "cc-0207", "--scenario", "cc-0208", "--no-explain"]) == 1
    out = capsys.readouterr().out
    causes = json.loads(report.read_text())["causes"]
    assert [c["explained_by"] for c in causes] == [None]
    assert causes[0]["summary"].startswith("JK counted 30 instead of 50 (e.g. ")
    assert "no declarable option" not in causes[0]["summary"]
    assert "explained by" not in out
