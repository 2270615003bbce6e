"""Fuzz findings name the option that explains them (conformance/fuzz/explain.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import jsonschema
import pytest

from conformance.cli import main
from tests.paths import ROOT

HOUSE = f"{sys.executable} {ROOT / 'tests' / 'fake_adapters' / 'house_engine.py'}"
BUGGY = f"{sys.executable} {ROOT / 'tests' / 'fake_adapters' / 'buggy_engine.py'}"
SCHEMA = json.loads((ROOT / "conformance" / "schemas" / "fuzz-report.schema.json").read_text())


def findings(adapter: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> list[dict]:  # type: ignore[type-arg]
    out = tmp_path / "out"
    main(
        ["fuzz", "--adapter", adapter, "--games", "6", "--out", str(out), "--profile", "argentine"]
    )
    capsys.readouterr()
    report = json.loads((out / "fuzz-report.json").read_text())
    jsonschema.validate(report, SCHEMA)
    return report["findings"]  # type: ignore[no-any-return]


@pytest.mark.slow
def test_a_hidden_joker_worth_30_is_named_on_every_finding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    found = findings(f"{HOUSE} --ruling VARIANT-01=thirty --undeclared", tmp_path, capsys)
    assert found
    assert all(f["explained_by"] == {"VARIANT-01": "thirty"} for f in found)


@pytest.mark.slow
def test_a_bug_is_explained_by_no_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    found = findings(BUGGY, tmp_path, capsys)
    assert found
    assert all(f["explained_by"] is None for f in found)
