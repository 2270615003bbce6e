"""Hostile reports: hostile JSON reports end in one clear error and exit 2, never a
traceback, a hang or unbounded work; a report whose adapter never started does not merge
into another engine's.

Each input is small and written here; each test failed before the bounded reader
(conformance/io/jsonsafe.py) and the merge checks, and passes now.
"""

from __future__ import annotations

import copy
import json
import time
from pathlib import Path
from typing import Any

import pytest

from conformance.cli import main
from conformance.grading.results import CaseResult, RunResult, count_statuses
from conformance.io import jsonsafe
from conformance.knowledge.catalogue import load_catalogue
from conformance.reports.report import build_report
from conformance.reports.report_tools import ReportError, load_report, merge_reports
from tests.conformance.test_report_checks import ENGINE, results, run_of

CATALOGUE = load_catalogue()


@pytest.fixture(scope="module")
def doc() -> dict[str, Any]:
    return build_report(run_of(results(), handshake=ENGINE), CATALOGUE)


def write(folder: Path, name: str, text: str) -> str:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def with_engine_field(doc: dict[str, Any], raw: str) -> str:
    """``doc`` as JSON text with ``raw`` (JSON text) as an extra field of header.engine:
    the schema lets a handshake carry fields it does not know."""
    text = json.dumps(doc)
    return text.replace('"engine": {', f'"engine": {{"extra": {raw}, ', 1)


def hostile(doc: dict[str, Any]) -> dict[str, str]:
    duration = copy.deepcopy(doc)
    duration["header"]["duration"] = 0
    huge_duration = json.dumps(duration).replace(
        '"duration": 0,', '"duration": ' + "9" * 4300 + ",", 1
    )
    return {
        "deep.json": "[" * 100_000 + "]" * 100_000,
        "deep-engine.json": with_engine_field(doc, "[" * 5000 + "]" * 5000),
        "digits.json": with_engine_field(doc, "1" * 5000),
        "duration.json": huge_duration,
        "nan.json": json.dumps(doc).replace('"duration": 1.5', '"duration": NaN', 1),
        "inf.json": json.dumps(doc).replace('"duration": 1.5', '"duration": 1e999', 1),
    }


WHY = {
    "deep.json": "nested too deeply: more than 64 levels",
    "deep-engine.json": "nested too deeply: more than 64 levels",
    "digits.json": "an integer of 5000 digits",
    "duration.json": "an integer of 4300 digits",
    "nan.json": "NaN is not JSON",
    "inf.json": "the number 1e999 is too large to be a finite float",
}


@pytest.mark.parametrize("name", sorted(WHY))
@pytest.mark.parametrize("command", ["page", "merge", "diff"])
def test_a_hostile_report_is_one_clear_error_and_exit_2(
    doc: dict[str, Any],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    command: str,
) -> None:
    bad = write(tmp_path, name, hostile(doc)[name])
    good = write(tmp_path, "good.json", json.dumps(doc))
    argv = {
        "page": ["report", bad, "--html", str(tmp_path / "p.html")],
        "merge": ["report", "merge", good, bad, "-o", str(tmp_path / "m.json")],
        "diff": ["report", "diff", good, bad],
    }[command]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: ") and "Traceback" not in err
    assert f"{name}: the report: {WHY[name]}" in err
    assert not (tmp_path / "p.html").exists() and not (tmp_path / "m.json").exists()


def test_a_duration_within_the_digit_limit_but_absurd_is_refused_by_the_schema(
    doc: dict[str, Any], tmp_path: Path
) -> None:
    text = json.dumps(doc).replace('"duration": 1.5', '"duration": ' + "9" * 39, 1)
    with pytest.raises(ReportError, match=r"at /header/duration: .* is greater than"):
        load_report(write(tmp_path, "d.json", text))


def test_a_fuzz_report_is_read_within_the_same_bounds(tmp_path: Path) -> None:
    path = write(tmp_path, "f.json", '{"findings": ' + "[" * 5000 + "]" * 5000 + "}")
    assert main(["report", "merge", "--fuzz", path, "-o", str(tmp_path / "o.json")]) == 2


def test_a_report_larger_than_the_limit_is_refused_before_parsing(
    doc: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(jsonsafe, "MAX_JSON_BYTES", 1000)
    path = write(tmp_path, "big.json", json.dumps(doc))
    with pytest.raises(
        ReportError, match=r"big\.json: the report is larger than the limit of 1000"
    ):
        load_report(path)


# --------------------------------------------------------------------------- shards


def sharded(doc: dict[str, Any], shard: str, cases: slice, note: str | None = None) -> str:
    part = copy.deepcopy(doc)
    part["header"]["shard"] = shard
    part["cases"] = part["cases"][cases]
    if note is not None:
        part["header"]["warnings"] = [note]
    return json.dumps(part)


def test_an_impossible_shard_count_is_refused(
    doc: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Before: header.shard "1/999999999999" made merge walk every shard number (2 GB+).
    a = write(tmp_path, "a.json", sharded(doc, "1/999999999999", slice(0, 2)))
    b = write(tmp_path, "b.json", sharded(doc, "2/999999999999", slice(2, 4)))
    started = time.monotonic()
    assert main(["report", "merge", a, b, "-o", str(tmp_path / "o.json")]) == 2
    assert "at /header/shard" in capsys.readouterr().err
    assert time.monotonic() - started < 30  # a safety net, not the assertion that matters
    c = write(tmp_path, "c.json", sharded(doc, "3/2", slice(0, 2)))
    with pytest.raises(ReportError, match=r"shard 3/2 is impossible: 3 is more than 2"):
        merge_reports([load_report(c)])
    note = "shard 1/9: 2 of 4 selected case(s)"
    d = write(tmp_path, "d.json", sharded(doc, "1/9", slice(0, 2), note))
    with pytest.raises(ReportError, match=r"its selection had 4 case\(s\), fewer than 9 shards"):
        merge_reports([load_report(d)])


def test_missing_shards_are_counted_not_enumerated(doc: dict[str, Any], tmp_path: Path) -> None:
    a = load_report(write(tmp_path, "a.json", sharded(doc, "1/99999999", slice(0, 2))))
    b = load_report(write(tmp_path, "b.json", sharded(doc, "3/99999999", slice(2, 4))))
    merged = merge_reports([a, b])
    (warning,) = [w for w in merged["header"]["warnings"] if w.startswith("shard(s)")]
    assert warning.startswith("shard(s) 2/99999999, 4/99999999, ")
    assert "and 99999987 more missing" in warning


# --------------------------------------------------------------------------- no engine


def test_a_report_whose_adapter_never_started_does_not_merge_into_an_engines(
    doc: dict[str, Any], tmp_path: Path
) -> None:
    cases = [CaseResult("cc-0100", "t", ("SCORE-1",), "SCORE", "not_run")]
    dead = RunResult(
        ("eng",),
        "pagat",
        None,
        tuple(cases),
        counts=count_statuses(cases),
        run_error="the adapter exited",
        corpus_digest="abc",
    )
    none = write(tmp_path, "none.json", json.dumps(build_report(dead, CATALOGUE)))
    live = write(tmp_path, "live.json", json.dumps(doc))
    # Before: merged silently, as if the engine's.
    for pair in ([none, live], [live, none]):
        with pytest.raises(ReportError) as caught:
            merge_reports([load_report(p) for p in pair])
        message = str(caught.value)
        assert f"the adapter of {none} never started" in message and live in message
        assert "eng 1.0" in message
    other = copy.deepcopy(build_report(dead, CATALOGUE))
    other["header"]["adapter"] = ["another"]
    again = write(tmp_path, "none2.json", json.dumps(build_report(dead, CATALOGUE)))
    assert merge_reports([load_report(none), load_report(again)])["header"]["engine"] is None
    with pytest.raises(ReportError, match="ran different adapter commands"):
        merge_reports(
            [load_report(none), load_report(write(tmp_path, "o.json", json.dumps(other)))]
        )


@pytest.mark.parametrize(
    "extra",
    [
        {"players": 5},
        {"players": [[2]]},
        {"profile_rulings": {"pagat": "x"}},
        {"players": "ab"},
        {"unmodelled": 3},
    ],
)
def test_a_handshake_of_the_wrong_shape_is_refused_not_a_traceback(
    doc: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: dict[str, Any]
) -> None:
    # Before: "players": 5 in header.engine passed the schema and broke the page.
    odd = copy.deepcopy(doc)
    odd["header"]["engine"].update(extra)
    path = write(tmp_path, "odd.json", json.dumps(odd))
    page = tmp_path / "p.html"
    assert main(["report", path, "--html", str(page)]) == 2
    assert "odd.json: not a carioca-conformance run report" in capsys.readouterr().err
    assert not page.exists()


def test_a_handshake_read_back_wrong_shows_the_report_without_declarations(
    doc: dict[str, Any],
) -> None:
    from conformance.reports.report_tools import LoadedReport, engine_declarations

    odd = copy.deepcopy(doc)
    odd["header"]["engine"]["profile_rulings"] = {"pagat": {"DISPUTE-1": "a", "dispute-01": "b"}}
    assert engine_declarations(odd["header"]["engine"], "pagat") is None
    assert LoadedReport("odd.json", odd).badge_lines == ["pagat 1/3, checks 7/10 graded"]
