"""JSON report against its schema, JUnit well-formedness, atomic writes, text summary."""

from __future__ import annotations

import json
import os
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest

from conformance.knowledge.catalogue import load_catalogue
from conformance.reports.report import (
    SCHEMA_PATH,
    atomic_write_text,
    build_report,
    junit_xml,
    write_json_report,
)
from conformance.run.runner import RunOptions, RunResult, run_scenarios
from conformance.scenarios import load_corpus

DATA = Path(__file__).parent / "data"
FAKE = [sys.executable, str(DATA / "fake_engine.py")]
CATALOGUE = load_catalogue(DATA / "catalogue.json")


@pytest.fixture(scope="module")
def run() -> RunResult:
    scenarios = load_corpus([DATA / "good"], catalogue=CATALOGUE).scenarios
    return run_scenarios(
        [*FAKE, "--wrong-penalty", "--ruling", "DISPUTE-19=forbidden"],
        scenarios,
        RunOptions(timeout=5.0),
        catalogue=CATALOGUE,
    )


def test_json_report_matches_schema(run: RunResult, tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    write_json_report(target, run, CATALOGUE)
    document = json.loads(target.read_text())
    jsonschema.validate(document, json.loads(SCHEMA_PATH.read_text()))
    assert document["header"]["engine"]["implementation"]["name"] == "fake"
    assert document["header"]["profile"] == "argentine"
    assert document["summary"]["fail"] == 2 and document["summary"]["total"] == 5
    failed = {c["id"]: c for c in document["cases"] if c["status"] == "fail"}
    assert set(failed) == {"cc-0001", "cc-0005"} and "diff" in failed["cc-0001"]
    (dispute,) = document["disputes"]
    assert dispute == {
        "id": "DISPUTE-19",
        "engine": "forbidden",
        "reference": "allowed",
        "graded": "forbidden",
    }


def test_junit_is_well_formed(run: RunResult) -> None:
    root = ET.fromstring(junit_xml(run, CATALOGUE))
    cases = root.findall("testcase")
    assert len(cases) == 5 and root.get("failures") == "2"
    by_name = {c.get("name", "").split()[0]: c for c in cases}
    assert by_name["cc-0001"].get("classname") == "SCORE"
    assert by_name["cc-0001"].find("failure") is not None
    assert by_name["cc-0002"].find("failure") is None


def test_every_report_names_the_harness_and_corpus_versions(run: RunResult) -> None:
    from conformance import CORPUS_VERSION, __version__
    from conformance.reports.html_report import render_html
    from conformance.reports.markdown_report import render_markdown
    from conformance.reports.report_tools import LoadedReport

    document = build_report(run, CATALOGUE)
    assert document["header"]["harness_version"] == __version__
    assert document["header"]["corpus_version"] == CORPUS_VERSION
    junit = ET.fromstring(junit_xml(run, CATALOGUE))
    props = {p.get("name"): p.get("value") for p in junit.iter("property")}
    assert (props["harness_version"], props["corpus_version"]) == (__version__, CORPUS_VERSION)
    loaded = [LoadedReport("/x/r.json", document)]
    page = render_html(loaded, CATALOGUE)
    row = f'<th scope="row">corpus version</th><td>{CORPUS_VERSION}</td>'
    assert row in page.replace("\n", "")
    assert f"carioca-conformance {__version__}" in page
    digest = render_markdown(loaded, CATALOGUE)
    assert f"harness {__version__.replace('.', chr(92) + '.')}" in digest
    assert f"corpus {CORPUS_VERSION} digest" in digest


def test_atomic_write_leaves_old_file_on_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "r.json"
    atomic_write_text(target, "old")

    def broken_replace(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError):
        atomic_write_text(target, "new")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]  # no stray temp file


def test_report_header_versions(run: RunResult) -> None:
    header = build_report(run, CATALOGUE)["header"]
    assert header["protocol_version"] == 1 and header["harness_version"]
