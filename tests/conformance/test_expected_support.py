"""conformance/run/expected_support.py: an op refused as ``unsupported`` inconsistently,
kept as known by an expectations file's ``expected_unsupported``, end to end with
tests/fake_adapters/refusing_proxy.py."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.run.expectations import ExpectationsError, load_expectations
from tests.paths import ROOT

REFUSING = shlex.join([sys.executable, str(ROOT / "tests" / "fake_adapters" / "refusing_proxy.py")])
END = str(ROOT / "scenarios" / "end")


def test_an_entry_keeps_an_inconsistent_op_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Discards refused where they close a deal, answered elsewhere: red until kept.
    kept = tmp_path / "expected.yaml"
    kept.write_text(
        "expected_unsupported:\n"
        "  act:discard: {reason: we cannot close a deal yet}\n"
        "  check_meld: {reason: stale}\n"
    )
    args = ["run", END, "--adapter", f"{REFUSING} --ending-deal", "-q", "--no-explain"]
    assert main(args) == 1
    capsys.readouterr()
    assert main([*args, "--expectations", str(kept)]) == 0
    out = capsys.readouterr().out
    assert "unsupported kept as expected: act:discard at 2 players refused in" in out
    assert "(we cannot close a deal yet)" in out
    assert "unsupported is inconsistent" not in out
    assert "expected_unsupported names check_meld, which was not refused inconsistently" in out


def test_an_entry_names_an_op_as_the_warnings_do(tmp_path: Path) -> None:
    bad = tmp_path / "expected.yaml"
    bad.write_text("expected_unsupported:\n  'discard now': {reason: x}\n")
    with pytest.raises(ExpectationsError, match="expected_unsupported"):
        load_expectations(bad)
    good = tmp_path / "good.yaml"
    good.write_text("expected_unsupported:\n  act:discard:\n  penalty: {reason: r}\n")
    assert load_expectations(good).expected_unsupported == {"act:discard": "", "penalty": "r"}
