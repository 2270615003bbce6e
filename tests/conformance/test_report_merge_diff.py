"""``report merge`` and ``report diff``, and the badge line of the JSON report.

The reports are real runs of the fake engine over tests/conformance/data/good; shards
are made by splitting one run's cases, as workers or CI shards would grade them.
"""

from __future__ import annotations

import copy
import json
import shlex
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from conformance import fuzz
from conformance.cli import main
from conformance.grading.results import CaseResult
from conformance.knowledge.catalogue import load_catalogue
from conformance.reports.report import SCHEMA_PATH, badges, build_report
from conformance.reports.report_tools import (
    LoadedReport,
    ReportError,
    count_cases,
    diff_reports,
    diff_text,
    load_report,
    merge_reports,
)
from conformance.run.budget import COST_VARIABLE
from conformance.run.runner import RunOptions, run_scenarios
from conformance.scenarios import load_corpus
from tests.conformance.test_report_checks import as_format_1
from tests.mutants import harness

DATA = Path(__file__).parent / "data"
FAKE = [sys.executable, str(DATA / "fake_engine.py")]
CATALOGUE = load_catalogue(DATA / "catalogue.json")
SCHEMA = json.loads(SCHEMA_PATH.read_text())


def _run(*flags: str) -> dict[str, Any]:
    scenarios = load_corpus([DATA / "good"], catalogue=CATALOGUE).scenarios
    run = run_scenarios([*FAKE, *flags], scenarios, RunOptions(timeout=5.0), catalogue=CATALOGUE)
    return build_report(run, CATALOGUE)


@pytest.fixture(scope="module")
def good() -> dict[str, Any]:
    return _run()


@pytest.fixture(scope="module")
def bad() -> dict[str, Any]:
    return _run("--wrong-penalty")


def shard(doc: dict[str, Any], ids: set[str]) -> dict[str, Any]:
    """The report a shard grading only ``ids`` would have written."""
    part = copy.deepcopy(doc)
    part["cases"] = [c for c in part["cases"] if c["id"] in ids]
    part["summary"] = count_cases(part["cases"])
    part["badges"] = badges(part["header"]["profile"], part["summary"])
    return part


def write(folder: Path, name: str, doc: dict[str, Any]) -> str:
    path = folder / name
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    return str(path)


def test_the_json_report_carries_a_badge_line_per_profile(bad: dict[str, Any]) -> None:
    jsonschema.validate(bad, SCHEMA)
    checks = [k for c in bad["cases"] for k in c["checks"]]
    graded = sum(k["status"] != "not_graded" for k in checks)
    assert checks and graded
    assert bad["badges"] == [
        {
            "profile": "argentine",
            "passed": 4,
            "graded": 5,
            "total": 5,
            "line": f"argentine 4/5, checks {graded}/{len(checks)} graded",
            "checks_graded": graded,
            "checks_total": len(checks),
            "not_graded": {},
        }
    ]


def test_unsupported_cases_are_not_graded_and_xpass_counts_as_passed() -> None:
    counts = {"pass": 7, "fail": 1, "unsupported": 2, "xpass": 1, "xfail": 1, "total": 12}
    (badge,) = badges("chilean", counts)
    assert badge["line"] == "chilean 8/10" and badge["total"] == 12


def test_reports_written_before_the_badge_field_still_load(
    bad: dict[str, Any], tmp_path: Path
) -> None:
    old = copy.deepcopy(bad)
    del old["badges"]
    (line,) = load_report(write(tmp_path, "old.json", old)).badge_lines
    assert line.startswith("argentine 4/5, checks ")


def test_shards_merge_into_the_whole_run(
    bad: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ids = [c["id"] for c in bad["cases"]]
    first = write(tmp_path, "a.json", shard(bad, set(ids[:2])))
    second = write(tmp_path, "b.json", shard(bad, set(ids[2:])))
    out = tmp_path / "merged.json"
    assert main(["report", "merge", first, second, "-o", str(out)]) == 0
    assert "argentine 4/5" in capsys.readouterr().out
    merged = json.loads(out.read_text())
    jsonschema.validate(merged, SCHEMA)
    assert sorted(c["id"] for c in merged["cases"]) == sorted(ids)
    assert merged["summary"] == bad["summary"] and merged["badges"] == bad["badges"]
    assert any("merged from 2 reports" in w for w in merged["header"]["warnings"])


def test_a_graded_case_replaces_the_same_case_not_run_elsewhere(bad: dict[str, Any]) -> None:
    interrupted = copy.deepcopy(bad)
    for case in interrupted["cases"]:
        case["status"] = "not_run"
    merged = merge_reports([LoadedReport("i.json", interrupted), LoadedReport("b.json", bad)])
    assert merged["summary"] == bad["summary"]


def test_merge_refuses_other_engines_digests_and_conflicting_results(
    good: dict[str, Any], bad: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = copy.deepcopy(good)
    other["header"]["engine"]["implementation"]["name"] = "other"
    with pytest.raises(ReportError, match=r"cannot merge g.json and o.json: engine fake .* other"):
        merge_reports([LoadedReport("g.json", good), LoadedReport("o.json", other)])
    moved = copy.deepcopy(good)
    moved["header"]["corpus_digest"] = "0000"
    with pytest.raises(ReportError, match=r"corpus digest \w+ against corpus digest 0000"):
        merge_reports([LoadedReport("g.json", good), LoadedReport("m.json", moved)])
    with pytest.raises(ReportError, match=r"cc-0001 is pass in g\.json but fail in b\.json"):
        merge_reports([LoadedReport("g.json", good), LoadedReport("b.json", bad)])
    ruled = _run("--ruling", "DISPUTE-19=forbidden")
    with pytest.raises(ReportError, match="different capabilities or rulings"):
        merge_reports([LoadedReport("g.json", good), LoadedReport("r.json", ruled)])
    # Through the CLI: exit 2, one line naming both files, nothing written.
    out = tmp_path / "m.json"
    paths = [write(tmp_path, "g.json", good), write(tmp_path, "o.json", other)]
    assert main(["report", "merge", *paths, "-o", str(out)]) == 2
    assert "cannot merge" in capsys.readouterr().err and not out.exists()


def test_fuzz_shards_merge_keeping_each_finding_once(tmp_path: Path) -> None:
    # Two shards of one campaign against a mutant, merged by `report merge --fuzz`, give
    # the findings of the whole campaign, each once with its count.
    harness.make_root_importable()
    argv = harness.mutant_argv("twos_wild")

    def campaign(shard: tuple[int, int]) -> dict[str, Any]:
        options = fuzz.FuzzOptions(games=2, seed=0, shard=shard, shrink=False, max_steps=40)
        return fuzz.report_dict(fuzz.fuzz(argv, options, load_catalogue()))

    whole = campaign((1, 1))
    assert whole["findings"], "the mutant must be found for the merge to mean anything"
    paths = [write(tmp_path, f"{i}.json", campaign((i, 2))) for i in (1, 2)]
    out = tmp_path / "fuzz.json"
    args = ["report", "merge", "--fuzz", paths[0], "--fuzz", paths[1], "-o", str(out)]
    assert main(args) == 0
    merged = json.loads(out.read_text())
    assert [(f["key"], f["count"]) for f in merged["findings"]] == [
        (f["key"], f["count"]) for f in whole["findings"]
    ]
    # Of two different campaigns: refused, naming why.
    other = json.loads(Path(paths[1]).read_text())
    other["campaign"]["seed"] = 99
    bad = write(tmp_path, "other.json", other)
    assert main(["report", "merge", "--fuzz", paths[0], "--fuzz", bad, "-o", str(out)]) == 2


def test_diff_lists_new_failures_and_exits_1(
    good: dict[str, Any], bad: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old, new = write(tmp_path, "old.json", good), write(tmp_path, "new.json", bad)
    assert main(["report", "diff", old, new]) == 1
    out = capsys.readouterr().out
    assert "newly failing (1):\n  cc-0001 pass → fail" in out and "expected 33" in out
    # The other way round: a fix, exit 0.
    assert main(["report", "diff", new, old]) == 0
    assert "newly passing (1):\n  cc-0001 fail → pass" in capsys.readouterr().out


def test_diff_sees_a_case_failing_differently_and_new_cases(
    good: dict[str, Any], bad: dict[str, Any]
) -> None:
    worse = copy.deepcopy(bad)
    case = next(c for c in worse["cases"] if c["id"] == "cc-0001")
    case["diff"] = case["diff"].replace("34", "35")
    added = copy.deepcopy(good)
    added["cases"].append({**added["cases"][0], "id": "cc-9999", "status": "error", "error": "x"})
    diff = diff_reports(LoadedReport("b", bad), LoadedReport("w", worse))
    assert [c.id for c in diff.changed_diffs] == ["cc-0001"] and not diff.regressed
    diff = diff_reports(LoadedReport("g", good), LoadedReport("a", added))
    assert [(c.id, c.old, c.new) for c in diff.newly_failing] == [("cc-9999", "absent", "error")]
    assert diff.regressed


def test_diff_counts_a_newly_broken_law_as_a_regression(good: dict[str, Any]) -> None:
    law = {"name": "cards conserved", "rules": ["CARDS-1"], "passed": True, "detail": "", "seed": 0}
    before, after = copy.deepcopy(good), copy.deepcopy(good)
    before["properties"] = [law]
    after["properties"] = [{**law, "passed": False, "detail": "107 cards"}]
    diff = diff_reports(LoadedReport("b", before), LoadedReport("a", after))
    assert diff.laws_broken == ["cards conserved"] and diff.regressed


def test_diff_wants_two_reports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", "diff", str(tmp_path / "only.json")]) == 2
    assert "exactly two reports" in capsys.readouterr().err
    assert main(["report", "diff", str(tmp_path / "a.json"), str(tmp_path / "b.json")]) == 2
    assert "a.json: cannot read the report" in capsys.readouterr().err


def test_run_shards_merge_into_the_whole_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``run --shard K/N`` grades every case once over the N shards, each report carrying
    the whole selection's digest, so that the shards merge into the unsharded run."""
    adapter = shlex.join([*FAKE, "--wrong-penalty"])
    common = ["--catalogue", str(DATA / "catalogue.json"), "run", str(DATA / "good")]
    paths = []
    for shard in ("1/2", "2/2", None):
        path = tmp_path / f"{shard or 'all'}.json".replace("/", "of")
        extra = ["--shard", shard] if shard else []
        # Exit 1 where the shard holds the wrongly scored case, 0 elsewhere.
        assert main([*common, "--adapter", adapter, "--json", str(path), "-q", *extra]) in (0, 1)
        paths.append(path)
    one, two, whole = (json.loads(p.read_text()) for p in paths)
    assert one["header"]["shard"] == "1/2" and "shard" not in whole["header"]
    assert len(one["cases"]) == 3 and len(two["cases"]) == 2
    assert not {c["id"] for c in one["cases"]} & {c["id"] for c in two["cases"]}
    digest = whole["header"]["corpus_digest"]
    assert one["header"]["corpus_digest"] == two["header"]["corpus_digest"] == digest
    out = tmp_path / "merged.json"
    assert main(["report", "merge", str(paths[0]), str(paths[1]), "-o", str(out)]) == 0
    merged = json.loads(out.read_text())
    jsonschema.validate(merged, SCHEMA)
    assert merged["summary"] == whole["summary"] and "shard" not in merged["header"]
    assert not any(w.startswith("shard") for w in merged["header"]["warnings"])
    # One shard alone merges, but says what is missing.
    assert main(["report", "merge", str(paths[0]), "-o", str(out)]) == 0
    assert "shard(s) 2/2 missing" in " ".join(json.loads(out.read_text())["header"]["warnings"])
    capsys.readouterr()
    assert main([*common, "--shard", "3/2"]) == 2
    assert "--shard 3/2: K must be between 1 and N" in capsys.readouterr().err


def test_a_file_that_is_not_a_report_is_named_in_one_short_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "list.json"
    path.write_text(json.dumps([{"case": i} for i in range(2000)]))
    out = str(tmp_path / "p.html")
    assert main(["report", str(path), "--html", out]) == 2
    err = capsys.readouterr().err
    assert "list.json: not a carioca-conformance run report (format 2 or older): at /:" in err
    assert len(err) < 500


def _ungraded(doc: dict[str, Any]) -> dict[str, Any]:
    """``doc`` as an engine answering unsupported to every request would have it."""
    fewer = copy.deepcopy(doc)
    for case in fewer["cases"]:
        case["status"] = "unsupported"
        for check in case["checks"]:
            check.update(status="not_graded", cause="op", note="unsupported")
            for key in ("diff", "signature"):
                check.pop(key, None)
        case.pop("diff", None)
    fewer["summary"] = count_cases(fewer["cases"])
    return fewer


def test_diff_can_fail_on_a_fall_in_graded_checks(
    good: dict[str, Any], bad: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No case fails in a run that grades nothing: a CI gate sees the fall (3,332 -> 179
    checks) only with --max-graded-drop; exit 4, or 1 when a failure is new as well."""
    old, none = write(tmp_path, "old.json", good), write(tmp_path, "none.json", _ungraded(good))
    jsonschema.validate(json.loads(Path(none).read_text()), SCHEMA)
    assert main(["report", "diff", old, none]) == 0
    capsys.readouterr()
    assert main(["report", "diff", old, none, "--max-graded-drop", "5%"]) == 4
    [line] = [x for x in capsys.readouterr().err.splitlines() if x.startswith("error: ")]
    assert line.startswith("error: graded checks fell from ")
    assert line.endswith("(100.0% fewer), more than --max-graded-drop 5% (exit 4)")
    assert main(["report", "diff", old, none, "--max-graded-drop", "1"]) == 0  # a fall allowed
    assert main(["report", "diff", none, old, "--max-graded-drop", "0"]) == 0  # a rise
    assert main(["report", "diff", old, old, "--max-graded-drop", "0"]) == 0
    new = write(tmp_path, "new.json", bad)
    assert main(["report", "diff", old, new, "--max-graded-drop", "0"]) == 1
    capsys.readouterr()
    assert main(["report", "diff", old, none, "--max-graded-drop", "much"]) == 2
    assert "error: --max-graded-drop much: expected a share" in capsys.readouterr().err
    assert main(["report", old, "--html", str(tmp_path / "p.html"), "--max-graded-drop", "0"]) == 2
    # A format-1 report has no checks: the gate counts graded cases then.
    older = write(tmp_path, "older.json", as_format_1(good))
    capsys.readouterr()
    assert main(["report", "diff", older, none, "--max-graded-drop", "0"]) == 4
    assert "error: graded cases fell from " in capsys.readouterr().err


def test_a_case_passed_with_a_failing_check_is_recounted_by_every_reader(
    good: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A report whose cases say pass while their checks fail (hand-edited, or a buggy
    writer) is not shown as all green: each reader recounts them from the checks and
    warns, naming the file and the cases."""
    lying = copy.deepcopy(good)
    case = next(c for c in lying["cases"] if c["status"] == "pass" and c["checks"])
    check = next(k for k in case["checks"] if k["status"] == "pass")
    check.update(status="fail", diff="points: expected 33, got 34")
    path = write(tmp_path, "lying.json", lying)
    loaded = load_report(path)
    assert loaded.recounted == ((case["id"], "pass", "fail"),)
    assert loaded.counts["fail"] == good["summary"]["fail"] + 1
    assert "1 case(s) whose status contradicts their checks" in (loaded.recount_note or "")
    html, md = tmp_path / "p.html", tmp_path / "p.md"
    assert main(["report", path, "--html", str(html), "--markdown", str(md)]) == 0
    [warning] = capsys.readouterr().err.splitlines()
    assert warning.startswith(f"warning: {path}: 1 case(s) whose status contradicts")
    assert f"{case['id']} pass → fail" in warning
    assert "contradicts their checks" in html.read_text()
    assert "contradicts their checks" in md.read_text()
    [row] = [x for x in md.read_text().splitlines() if x.startswith(f"| `{case['section']}` |")]
    assert "❌" in row  # the matrix shows the case's section failing
    # report diff sees the case fail now, and says why it reads otherwise than the file.
    assert main(["report", "diff", write(tmp_path, "good.json", good), path]) == 1
    out = capsys.readouterr().out
    assert f"{case['id']} pass → fail" in out and "contradicts their checks" in out
    # A report that does not contradict itself is read as it is.
    assert load_report(write(tmp_path, "same.json", good)).recounted == ()


# --- a merged report opens on causes --------------------------------------------------------


def joker_shard(explained: dict[str, bool], *extra: CaseResult) -> dict[str, Any]:
    """A shard's report: each case of ``explained`` a joker scored 30 (explained by
    VARIANT-01=thirty where True, as that shard's replay found), then ``extra`` cases."""
    from conformance.grading.results import CheckResult, RunResult, count_statuses
    from conformance.reports.causes import group_causes
    from conformance.reports.symptoms import Inference, explanation

    thirty = explanation([("VARIANT-01", "thirty")], load_catalogue())
    results = (
        tuple(
            CaseResult(
                cid,
                cid,
                ("SCORE-2",),
                "SCORE",
                "fail",
                checks=(
                    CheckResult(
                        "check 1",
                        "answer",
                        ("SCORE-2",),
                        "fail",
                        step=1,
                        line=5,
                        diff="penalty of JK: expected 50, got 30",
                        signature="penalty of JK: expected 50, got 30",
                    ),
                ),
            )
            for cid in explained
        )
        + extra
    )
    inference = Inference({(cid, "check 1"): thirty for cid, yes in explained.items() if yes})
    run = RunResult(
        argv=("engine",),
        profile="argentine",
        handshake=None,
        results=results,
        counts=count_statuses(results),
        causes=group_causes(results, inference),
    )
    return build_report(run, load_catalogue())


def turn_case() -> CaseResult:
    from conformance.grading.results import CheckResult

    wrong = CheckResult(
        "step 2 turn",
        "turn",
        ("TURN-1",),
        "fail",
        step=2,
        line=3,
        diff="turn: expected 1, got 2",
        signature="turn: expected 1, got 2",
    )
    return CaseResult("cc-0101", "t", ("TURN-1",), "TURN", "fail", checks=(wrong,))


def test_a_merged_report_keeps_its_causes_and_the_option_the_shards_found(
    tmp_path: Path,
) -> None:
    from conformance.reports.html_report import render_html
    from conformance.reports.markdown_report import render_markdown

    one = joker_shard({"cc-0204": True}, turn_case())
    two = joker_shard({"cc-0209": True, "cc-0210": True})
    merged = merge_reports(
        [LoadedReport("1.json", one), LoadedReport("2.json", two)], load_catalogue()
    )
    jsonschema.validate(merged, SCHEMA)
    joker, turn = merged["causes"]
    assert joker["explained_by"] == {"VARIANT-01": "thirty"}
    assert "explained by VARIANT-01=thirty (30 points)" in joker["summary"]
    assert (joker["checks"], joker["cases"]) == (3, ["cc-0204", "cc-0209", "cc-0210"])
    assert joker["members"] == {cid: ["check 1"] for cid in ("cc-0204", "cc-0209", "cc-0210")}
    assert turn["explained_by"] is None
    assert turn["summary"] == "whose turn it is or who deals differs from the rules"
    # The page and the digest of the merged file open on those causes.
    loaded = LoadedReport("m.json", merged)
    page = render_html([loaded], load_catalogue())
    assert page.index('id="causes"') < page.index('id="matrix-h"')
    assert "explained by VARIANT-01=thirty" in page
    digest = render_markdown([loaded], load_catalogue())
    assert "Causes:" in digest and "3 check\\(s\\) in 3 case\\(s\\)" in digest


def test_shards_that_disagree_or_say_nothing_explain_nothing_in_the_merge() -> None:
    # The same case graded in two reports (workers overlapping), explained in one only.
    one = joker_shard({"cc-0204": True, "cc-0209": True})
    two = joker_shard({"cc-0209": False})
    # One behaviour, explained for some of its checks only: a hint holds for every check
    # of its cause or is not given.
    (alone,) = merge_reports([LoadedReport("1", one), LoadedReport("2", two)])["causes"]
    assert alone["explained_by"] is None
    assert alone["summary"] == "JK counted 30 instead of 50"
    assert alone["cases"] == ["cc-0204", "cc-0209"]
    # A shard older than members: its checks are grouped again, with no option.
    older = joker_shard({"cc-0204": True})
    for cause in older["causes"]:
        del cause["members"]
    (only,) = merge_reports([LoadedReport("o", older), LoadedReport("2", two)])["causes"]
    assert only["explained_by"] is None and only["checks"] == 2


def test_diff_reads_the_newly_failing_checks_as_causes(tmp_path: Path) -> None:
    before = joker_shard({"cc-0204": True})
    after = joker_shard({"cc-0204": True, "cc-0209": True}, turn_case())
    old, new = LoadedReport("old.json", before), LoadedReport("new.json", after)
    text = diff_text(old, new, diff_reports(old, new))
    block = text.split("causes of the newly failing checks (2):\n")[1].split("\n\n")[0]
    first, second = block.splitlines()
    assert "explained by VARIANT-01=thirty" in first and first.endswith(": 1 newly failing")
    assert "whose turn it is" in second and second.endswith(": 1 newly failing")


@pytest.fixture
def untimed_explanation(monkeypatch: pytest.MonkeyPatch) -> None:
    """What explains a failure, found whatever the machine's load: the explanation's time
    bound (twice the run's grading time, conformance/run/budget.py) is measured
    by benchmarks/causes_bench.py, never by a test."""
    monkeypatch.setenv(COST_VARIABLE, "10000")


@pytest.mark.slow
@pytest.mark.usefixtures("untimed_explanation")
def test_the_shards_of_a_hidden_joker_30_merge_into_its_one_explained_cause(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The reference playing joker 30 and hiding it, run in two shards (each asking the
    reference about its own failures): the merged report says the one cause and its
    option, as the unsharded run does, and so does its page."""
    house = Path(__file__).parents[1] / "fake_adapters" / "house_engine.py"
    adapter = f"{sys.executable} {house} --ruling VARIANT-01=thirty --undeclared"
    picked = [
        a for cid in ("cc-0204", "cc-0209", "cc-0302", "cc-1000") for a in ("--scenario", cid)
    ]
    paths = []
    for k in ("1/2", "2/2"):
        path = tmp_path / f"{k.replace('/', 'of')}.json"
        argv = ["run", "--profile", "argentine", "--adapter", adapter, "--shard", k]
        assert main([*argv, *picked, "--json", str(path), "-q"]) == 1
        paths.append(str(path))
    shards = [json.loads(Path(p).read_text())["causes"] for p in paths]
    assert all(c["explained_by"] == {"VARIANT-01": "thirty"} for s in shards for c in s)
    out = tmp_path / "merged.json"
    assert main(["report", "merge", *paths, "-o", str(out)]) == 0
    merged = json.loads(out.read_text())
    jsonschema.validate(merged, SCHEMA)
    (cause,) = merged["causes"]
    failing = sum(1 for c in merged["cases"] for k in c["checks"] if k["status"] == "fail")
    assert cause["explained_by"] == {"VARIANT-01": "thirty"} and cause["checks"] == failing
    assert sorted(cause["cases"]) == ["cc-0204", "cc-0209", "cc-0302", "cc-1000"]
    page = tmp_path / "m.md"
    assert main(["report", str(out), "--markdown", str(page)]) == 0
    assert "explained by VARIANT-01=thirty" in page.read_text().split("Causes:")[1]
    capsys.readouterr()
