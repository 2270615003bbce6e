"""Every number and text the harness writes stays readable by its own readers, and every
reader of input (expectations, rulings, recorded drafts, the load cache) is bounded: bad
input is one line naming the file and where, never a traceback (docs/robustness.md)."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from conformance import fuzz
from conformance.cli import main
from conformance.fuzz.merge import MAX_MERGED_COUNT
from conformance.jsonsafe import MAX_INT_DIGITS
from conformance.selection import MAX_SHARDS, SelectionError, parse_shard
from tests.conformance.test_fuzz_merge import shard

ROOT = Path(__file__).resolve().parents[2]
PROXY = shlex.join([sys.executable, str(ROOT / "tests" / "fake_adapters" / "declaring_proxy.py")])


def errors(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("error: ")]


# --- numbers the harness writes -----------------------------------------------------------


def test_a_handshake_declaring_a_huge_max_in_flight_is_refused_before_any_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hello = json.dumps({"max_in_flight": 10**100})
    adapter = f"{PROXY} --hello {shlex.quote(hello)}"
    report = tmp_path / "r.json"
    assert main(["run", "--adapter", adapter, "--rule", "MELD-RUN", "--json", str(report)]) == 3
    [line] = errors(capsys.readouterr().err)
    assert "/max_in_flight" in line and "maximum of 2147483647" in line
    # Whatever was written reads back: a refused handshake leaves no unreadable number.
    if report.exists():
        assert main(["report", str(report), "--markdown", str(tmp_path / "r.md")]) == 0


def test_a_shard_count_the_report_cannot_hold_is_refused() -> None:
    with pytest.raises(SelectionError, match=f"N must be at most {MAX_SHARDS}"):
        parse_shard("1/9999999999")
    for bad in ("1/²", "1/", "a/b", "1/2/3", "0/2", "3/2"):
        with pytest.raises(SelectionError):
            parse_shard(bad)
    with pytest.raises(fuzz.FuzzError, match="N must be at most"):
        fuzz.parse_shard("1/" + "9" * 12)
    assert parse_shard("01/4") == (1, 4)


def test_a_shard_is_written_as_report_merge_reads_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "r.json"
    assert main(["run", "--rule", "MELD-RUN", "-q", "--shard", "01/2", "--json", str(report)]) == 0
    assert json.loads(report.read_text())["header"]["shard"] == "1/2"
    assert main(["report", str(report), "--markdown", str(tmp_path / "r.md")]) == 0
    # More shards than cases is a split report merge refuses: run refuses it first.
    assert main(["run", "--rule", "MELD-RUN", "-q", "--shard", "1/999999"]) == 2
    [line] = errors(capsys.readouterr().err)
    assert "N must be at most the number of cases" in line


def test_a_merged_fuzz_count_never_outgrows_its_readers() -> None:
    big = MAX_MERGED_COUNT  # readable alone: MAX_INT_DIGITS digits
    assert len(str(big)) == MAX_INT_DIGITS
    with pytest.raises(fuzz.FuzzError, match=r"totals\.steps adds up to more than"):
        fuzz.merge_reports([shard(1, 2, steps=big), shard(2, 2, steps=1)])
    merged = fuzz.merge_reports([shard(1, 2, steps=big - 1), shard(2, 2, steps=1)])
    assert merged["totals"]["steps"] == big
