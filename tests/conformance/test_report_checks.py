"""Checks in the reports: every report carries the checks and counts them the same way.

The runs here are built from CaseResults with checks (the shape conformance/run/runner.py
gives them), so each report is tested on exactly the checks it was handed: the JSON report
and its schema, JUnit, ``report merge`` and ``report diff`` by check, the HTML page and the
Markdown digest, and reports of format 1 (no checks) read beside them.
"""

from __future__ import annotations

import copy
import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from conformance.adapter.declarations import declarations
from conformance.adapter.engine import Handshake
from conformance.cli import main
from conformance.grading.results import (
    CaseResult,
    CheckResult,
    RunResult,
    count_statuses,
    failing_rules,
    graded,
)
from conformance.knowledge.catalogue import load_catalogue
from conformance.reports.html_report import render_html
from conformance.reports.markdown_report import render_markdown
from conformance.reports.report import SCHEMA_PATH, build_report, junit_xml
from conformance.reports.report_tools import (
    LoadedReport,
    diff_reports,
    diff_text,
    load_report,
    merge_reports,
)

CATALOGUE = load_catalogue()
SCHEMA = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
JOKER = "joker left in hand: expected 50, got 30"
ENGINE = Handshake(
    1,
    "eng",
    "1.0",
    "python",
    ("argentine", "pagat"),
    frozenset({"melds", "turns", "deals"}),
    players=(2, 3, 4, 5),
)
#: Pagat's text is for two to five players; this engine plays two to four.
TWO_TO_FOUR = Handshake(
    1,
    "eng",
    "1.0",
    "python",
    ("argentine", "pagat"),
    frozenset({"melds", "turns", "deals"}),
    players=(2, 3, 4),
)


def check(key: str, status: str, rules: tuple[str, ...] = ("SCORE-2",), **kw: Any) -> CheckResult:
    step = int(key.split()[1]) if key.startswith(("step", "check")) else None
    return CheckResult(key, key.split()[-1], rules, status, step=step, line=10, **kw)


def case(cid: str, section: str, *checks: CheckResult, dispute: str | None = None) -> CaseResult:
    if any(c.status == "fail" for c in checks):
        status = "fail"
    elif any(c.status == "pass" for c in checks):
        status = "pass"
    else:
        status = "unsupported"
    failed = sorted({r for c in checks if c.status == "fail" for r in c.rules})
    first = next((c for c in checks if c.status == "fail"), None)
    return CaseResult(
        cid,
        f"title of {cid}",
        (f"{section}-1",),
        section,
        status,
        duration=0.01,
        diff=first.diff if first else None,
        failing_step=first.key if first else None,
        dispute=dispute,
        option="fifty" if dispute else None,
        checks=checks,
        failed_rules=tuple(failed),
    )


def results(totals: str = "fail") -> list[CaseResult]:
    """cc-0302 fails its scores on the joker (and, with ``totals="fail"``, its totals);
    its dealer and first turn after next_deal pass; its final turn leans on a point the
    engine rules otherwise."""
    joker = {"signature": JOKER, "diff": "deal_scores: expected [50, 0], got [30, 0]"}
    return [
        case(
            "cc-0302",
            "DEAL",
            check("step 3 deal_scores", "fail", **joker),
            check("step 3 totals", totals, **(joker if totals == "fail" else {})),
            check("step 4 dealer", "pass", ("DEAL-2",)),
            check("step 4 turn", "pass", ("DEAL-5",)),
            check("final turn", "not_graded", ("END-1",), cause="option", note="assumes x"),
        ),
        case(
            "cc-0303",
            "DEAL",
            check("step 2 deal_scores", "fail", **joker),
            check("step 3 dealer", "pass", ("DEAL-2",)),
        ),
        case("cc-0100", "SCORE", check("check 1", "pass", ("SCORE-1",)), dispute="VARIANT-01"),
        case(
            "cc-0200",
            "TURN",
            check("step 1 accepted", "not_graded", ("TURN-1",), cause="players", note="5 seats"),
            check("step 1 hands", "not_graded", ("TURN-1",), cause="players", note="5 seats"),
        ),
    ]


def run_of(
    cases: list[CaseResult], profile: str = "pagat", handshake: Handshake | None = TWO_TO_FOUR
) -> RunResult:
    return RunResult(
        argv=("eng",),
        profile=profile,
        handshake=handshake,
        results=tuple(cases),
        started=1_700_000_000.0,
        duration=1.5,
        counts=count_statuses(cases),
        corpus_digest="abc",
    )


@pytest.fixture(scope="module")
def doc() -> dict[str, Any]:
    return build_report(run_of(results()), CATALOGUE)


def write(folder: Path, name: str, document: Any) -> str:
    path = folder / name
    path.write_text(
        document if isinstance(document, str) else json.dumps(document), encoding="utf-8"
    )
    return str(path)


def as_format_1(document: dict[str, Any]) -> dict[str, Any]:
    """The same report as a harness before checks would have written it."""
    old = copy.deepcopy(document)
    old["format"] = 1
    for key in ("graded", "failing_rules", "divergences"):
        del old[key]
    for record in old["cases"]:
        del record["checks"], record["failed_rules"]
    old["badges"] = [
        {k: v for k, v in old["badges"][0].items() if k in ("profile", "passed", "graded", "total")}
    ]
    old["badges"][0]["line"] = "pagat 1/3"
    return old


# --------------------------------------------------------------------------- JSON and JUnit


def test_the_json_report_carries_each_cases_checks_and_counts_them(doc: dict[str, Any]) -> None:
    jsonschema.validate(doc, SCHEMA)
    assert doc["format"] == 2
    first = doc["cases"][0]
    assert first["failed_rules"] == ["SCORE-2"]
    assert first["checks"][0] == {
        "key": "step 3 deal_scores",
        "what": "deal_scores",
        "step": 3,
        "line": 10,
        "rules": ["SCORE-2"],
        "status": "fail",
        "diff": "deal_scores: expected [50, 0], got [30, 0]",
        "signature": JOKER,
    }
    assert first["checks"][4]["cause"] == "option" and first["checks"][4]["note"] == "assumes x"
    assert doc["graded"] == {
        "graded": 7,
        "total": 10,
        "passed": 4,
        "failed": 3,
        "xfailed": 0,
        "not_graded": {"players": 2, "option": 1},
        "missing_players": [5],
    }
    assert doc["failing_rules"] == {"SCORE-2": 3}
    assert doc["divergences"] == [
        {"signature": JOKER, "rules": ["SCORE-2"], "checks": 3, "cases": ["cc-0302", "cc-0303"]}
    ]
    (badge,) = doc["badges"]
    assert badge["line"] == "pagat 1/3, checks 7/10 graded, not played: 5 players"
    assert (badge["checks_graded"], badge["checks_total"]) == (7, 10)
    assert badge["not_graded"] == {"players": 2, "option": 1} and badge["missing_players"] == [5]


def test_an_engine_playing_every_player_count_has_nothing_missing() -> None:
    doc = build_report(run_of(results(), handshake=ENGINE), CATALOGUE)
    assert doc["graded"]["missing_players"] == []
    assert doc["badges"][0]["line"] == "pagat 1/3, checks 7/10 graded"


def test_junit_lists_failing_checks_and_what_was_not_graded() -> None:
    root = ET.fromstring(junit_xml(run_of(results()), CATALOGUE))
    props = {p.get("name"): p.get("value") for p in root.iter("property")}
    assert props["checks_graded"] == "7" and props["checks_total"] == "10"
    assert props["not_graded.players"] == "2" and props["players_not_played"] == "5"
    cases = {c.get("name", "").split()[0]: c for c in root.iter("testcase")}
    failure = cases["cc-0302"].find("failure")
    assert failure is not None
    message = failure.get("message", "")
    assert "step 3 deal_scores (SCORE-2)" in message and "step 3 totals (SCORE-2)" in message
    assert "dealer" not in message  # the checks that passed are not blamed
    assert "expected [50, 0], got [30, 0]" in (failure.text or "")
    out = cases["cc-0302"].findtext("system-out") or ""
    assert "checks: 4/5 graded, 2 passed, 2 failed" in out
    assert "final turn (END-1) line 10: not graded (option): assumes x" in out
    skipped = cases["cc-0200"]
    assert skipped.find("skipped") is not None
    assert "not graded (players): 5 seats" in (skipped.findtext("system-out") or "")


def test_never_writes_nan_or_infinity() -> None:
    # Before: a NaN duration was written as the bare word NaN, which no strict reader takes.
    broken = [
        CaseResult("cc-0001", "t", ("TURN-1",), "TURN", "pass", duration=float("inf")),
    ]
    run = RunResult(
        ("eng",),
        "pagat",
        ENGINE,
        tuple(broken),
        started=float("nan"),
        duration=float("nan"),
        counts=count_statuses(broken),
    )
    from conformance.reports.report import report_text

    text = report_text(build_report(run, CATALOGUE))

    def refuse(name: str) -> None:
        raise AssertionError(f"{name} written")

    parsed = json.loads(text, parse_constant=refuse)
    assert parsed["header"]["duration"] == 0 and parsed["cases"][0]["duration"] == 0
    assert 'time="0.000"' in junit_xml(run)


# --------------------------------------------------------------------------- reading, merge, diff


def test_a_report_without_checks_still_loads_merges_and_diffs(
    doc: dict[str, Any], tmp_path: Path
) -> None:
    old = as_format_1(doc)
    jsonschema.validate(old, SCHEMA)
    loaded_old = load_report(write(tmp_path, "old.json", old))
    assert loaded_old.format == 1 and loaded_old.checks.total == 0
    assert loaded_old.badge_lines == ["pagat 1/3, not played: 5 players"]
    new = load_report(write(tmp_path, "new.json", doc))
    # A case failing before as a whole: its failing checks now are not "new".
    change = diff_reports(loaded_old, new)
    assert not change.regressed and not change.newly_failing_checks
    merged = merge_reports(
        [
            load_report(write(tmp_path, "a.json", {**old, "cases": old["cases"][:2]})),
            load_report(write(tmp_path, "b.json", {**doc, "cases": doc["cases"][2:]})),
        ]
    )
    jsonschema.validate(merged, SCHEMA)
    assert merged["format"] == 2 and merged["summary"]["total"] == 4
    # Only the format-2 half had checks: 1 + 2 of them.
    assert merged["graded"]["total"] == 3
    both_old = merge_reports([loaded_old, load_report(write(tmp_path, "c.json", old))])
    jsonschema.validate(both_old, SCHEMA)
    assert both_old["format"] == 1 and "graded" not in both_old


def test_merge_keeps_the_checks_and_counts_them_again(doc: dict[str, Any], tmp_path: Path) -> None:
    halves = [
        {**copy.deepcopy(doc), "cases": doc["cases"][:1]},
        {**copy.deepcopy(doc), "cases": doc["cases"][1:]},
    ]
    for half in halves:  # each shard's own figures, which merge must not add up blindly
        half["graded"] = {**half["graded"], "total": 999}
    merged = merge_reports(
        [load_report(write(tmp_path, f"{i}.json", h)) for i, h in enumerate(halves)]
    )
    jsonschema.validate(merged, SCHEMA)
    assert merged["cases"] == doc["cases"]
    for key in ("graded", "failing_rules", "divergences", "badges", "summary"):
        assert merged[key] == doc[key], key


def test_a_check_newly_failing_in_a_failing_case_is_a_new_failure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = build_report(run_of(results(totals="pass")), CATALOGUE)
    after = build_report(run_of(results(totals="fail")), CATALOGUE)
    old = write(tmp_path, "old.json", before)
    new = write(tmp_path, "new.json", after)
    change = diff_reports(load_report(old), load_report(new))
    # The case failed before and fails now: case by case nothing regressed.
    assert not change.newly_failing
    assert [(c.case, c.key, c.old, c.new) for c in change.newly_failing_checks] == [
        ("cc-0302", "step 3 totals", "pass", "fail")
    ]
    assert change.regressed
    assert main(["report", "diff", old, new]) == 1
    out = capsys.readouterr().out
    assert "newly failing checks (1):\n  cc-0302 step 3 totals (SCORE-2): pass → fail" in out
    assert main(["report", "diff", new, old]) == 0
    assert "cc-0302 step 3 totals (SCORE-2): fail → pass" in capsys.readouterr().out


def test_report_diff_text_names_file_badges_recounted(doc: dict[str, Any], tmp_path: Path) -> None:
    tampered = copy.deepcopy(doc)
    tampered["summary"] = {**tampered["summary"], "pass": 4, "fail": 0}
    tampered["badges"][0]["line"] = "pagat 4/4"
    old = load_report(write(tmp_path, "t.json", tampered))
    text = diff_text(old, old, diff_reports(old, old))
    assert "pagat 4/4" not in text and "pagat 1/3, checks 7/10 graded" in text
    assert "its summary does not match its cases" in text


# --------------------------------------------------------------------------- HTML and Markdown


def test_the_page_shows_checks_graded_by_cause_and_each_cases_checks(doc: dict[str, Any]) -> None:
    page = render_html([LoadedReport("r.json", doc)], CATALOGUE)
    head = page[: page.index('<h2 id="matrix-h">')]
    assert "checks: 7/10 graded, 4 passed, 3 failed" in head
    assert "a player count of the profile the engine does not play (players)" in head
    assert "the engine does not play 5 players of the profile" in head
    deal = page[page.index('data-section="DEAL"') :]
    deal = deal[: deal.index("</td>")]
    assert "checks 6/7 graded" in deal
    assert "step 3 deal_scores (SCORE-2) line 10: fail" in deal
    assert "expected [50, 0], got [30, 0]" in deal
    assert "final turn (END-1) line 10: not graded (option): assumes x" in deal
    assert "passed: step 4 dealer, step 4 turn" in deal
    by_rule = page[page.index('id="by-rule"') :]
    assert "<code>SCORE-2</code></th><td>3</td>" in by_rule
    assert "— 3 checks in 2 cases" in by_rule


def test_the_page_recounts_from_the_cases_never_the_summary(
    doc: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Before: a report whose cases all fail but whose summary and badges claim 282/282
    # showed 282/282 in the header and the matrix.
    tampered = copy.deepcopy(doc)
    tampered["summary"] = {**tampered["summary"], "pass": 282, "fail": 0, "total": 282}
    tampered["badges"] = [
        {"profile": "pagat", "passed": 282, "graded": 282, "total": 282, "line": "pagat 282/282"}
    ]
    path = write(tmp_path, "t.json", tampered)
    page = tmp_path / "p.html"
    assert main(["report", path, "--html", str(page)]) == 0
    # The page names the report's file, whose folder pytest numbers (pytest-282 happens).
    text = page.read_text(encoding="utf-8").replace(str(tmp_path), "TMP")
    assert "282" not in text
    assert "pagat 1/3, checks 7/10 graded" in text
    assert "its summary does not match its cases" in text


def test_the_digest_escapes_markdown_not_html(doc: dict[str, Any]) -> None:
    hostile = copy.deepcopy(doc)
    hostile["header"]["engine"]["implementation"]["name"] = "![x](https://evil.example/i.png)"
    hostile["cases"][0]["title"] = "[click](https://evil.example) <img src=x> it's"
    hostile["cases"][0]["id"] = "cc-0302`|"
    text = render_markdown([LoadedReport("r.json", hostile)], CATALOGUE)
    # Before: image and link syntax went through, and ' became &#x27;.
    assert "![" not in text and "](" not in text and " <img" not in text
    assert "&#x27;" not in text and "it's" in text
    assert r"\!\[x\]\(https\://evil\.example/i\.png\)" in text
    assert "`` cc-0302`\\| ``" in text  # a code span fenced past the backtick it holds


def test_the_digest_lists_only_the_graded_profiles_points_that_differ(
    doc: dict[str, Any],
) -> None:
    # The reference declares options for every profile's points; in argentine only
    # argentine's points are "other than the profile's" (before: 38 of pagat and perla).
    pagat_only = next(
        p
        for p, d in CATALOGUE.disputes.items()
        if "pagat" in d.profiles and "argentine" not in d.profiles
    )
    option = next(iter(CATALOGUE.disputes[pagat_only].options))
    shake = Handshake(
        1,
        "eng",
        "1.0",
        "python",
        ("argentine", "pagat"),
        frozenset({"melds"}),
        rulings={"VARIANT-01": "thirty", pagat_only: option},
    )
    view = declarations(shake, "argentine", CATALOGUE)
    assert view.other_rulings == {"VARIANT-01": "thirty"}
    report = build_report(run_of(results(), profile="argentine", handshake=shake), CATALOGUE)
    text = render_markdown([LoadedReport("r.json", report)], CATALOGUE)
    line = next(x for x in text.splitlines() if x.startswith("Rulings other than"))
    assert line == "Rulings other than profile argentine's: VARIANT-01=thirty"


def test_expected_failures_are_graded_but_not_counted_as_failures() -> None:
    marked = [
        CaseResult(
            "cc-1",
            "t",
            ("DEAL-1",),
            "DEAL",
            "xfail",
            checks=(check("step 1 totals", "xfail"), check("step 2 dealer", "pass", ("DEAL-2",))),
        )
    ]
    tally = graded(marked)
    assert (tally.graded, tally.failed, tally.xfailed, tally.passed) == (2, 0, 1, 1)
    assert failing_rules(marked) == {}


def test_the_written_report_reads_back_whole_with_one_check_per_line(doc: dict[str, Any]) -> None:
    from conformance.reports.report import report_text

    text = report_text(doc)
    assert json.loads(text) == doc
    line = next(x for x in text.splitlines() if '"key": "step 3 totals"' in x)
    assert json.loads(line.strip().rstrip(","))["key"] == "step 3 totals"


def test_docs_list_every_cause_a_check_can_be_not_graded_for() -> None:
    from conformance.grading.results import NOT_GRADED_CAUSES

    docs = (Path(__file__).parents[2] / "docs" / "reports.md").read_text(encoding="utf-8")
    table = docs[docs.index("| cause | the check was not graded because of |") :]
    rows: list[str] = []
    for line in table.splitlines()[2:]:
        if not line.startswith("|"):
            break
        rows.append(line)
    causes = [row.split("`")[1] for row in rows]
    assert causes == list(NOT_GRADED_CAUSES)
