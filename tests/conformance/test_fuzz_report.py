"""The report, shards and merges (conformance/fuzz/report.py), and the fuzz command."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import jsonschema
import pytest

from conformance import fuzz
from tests.conformance.fuzzkit import (
    REFERENCE,
    SCHEMA,
    cli,
    run_fuzz,
)
from tests.mutants import harness

#: An engine that answers is all these tests need: the reference answers in-process
#: (tests/adapters.py); the tests of what its process does run it as a process.
pytestmark = pytest.mark.usefixtures("reference_in_process")


def test_shards_split_the_seed_space_and_merge_into_the_whole() -> None:
    argv = harness.mutant_argv("twos_wild")
    whole = fuzz.report_dict(run_fuzz(argv, games=2, shrink=False))
    parts = [fuzz.report_dict(run_fuzz(argv, games=2, shrink=False, shard=(i, 2))) for i in (1, 2)]
    assert [p["totals"]["games"] for p in parts] == [1, 1]
    merged = fuzz.merge_reports(parts)
    jsonschema.validate(merged, SCHEMA)
    assert merged["totals"]["games"] == 2
    assert merged["campaign"]["shards"] == [{"index": 1, "count": 2}, {"index": 2, "count": 2}]
    assert [(f["key"], f["count"]) for f in merged["findings"]] == [
        (f["key"], f["count"]) for f in whole["findings"]
    ]


def test_merging_reports_of_different_campaigns_is_refused() -> None:
    report = fuzz.report_dict(run_fuzz(REFERENCE, games=1))
    other = json.loads(json.dumps(report))
    other["campaign"]["seed"] = 99
    with pytest.raises(fuzz.FuzzError, match="seed"):
        fuzz.merge_reports([report, other])


def test_cli_fuzz_writes_report_and_drafts_then_merges(tmp_path: Path) -> None:
    mutant = f"{sys.executable} -m tests.mutants.adapter --mutant twos_wild"
    out = tmp_path / "s1"
    first = cli("--adapter", mutant, "--games", "2", "--shard", "1/2", "--out", str(out),
                 "--max-steps", "10")  # fmt: skip
    assert first.returncode == 1, first.stderr
    assert "finding(s)" in first.stdout and "smallest" in first.stdout
    report = json.loads((out / "fuzz-report.json").read_text())
    jsonschema.validate(report, SCHEMA)
    assert report["findings"]
    assert all(Path(f["scenario_file"]).exists() for f in report["findings"])
    # The other shard, faked as the same campaign's second half with nothing found.
    other = json.loads(json.dumps(report))
    other["campaign"]["shards"] = [{"index": 2, "count": 2}]
    other["findings"] = []
    (tmp_path / "s2.json").write_text(json.dumps(other))
    merged_dir = tmp_path / "merged"
    merged = cli("--merge", str(out / "fuzz-report.json"), str(tmp_path / "s2.json"),
                  "--out", str(merged_dir))  # fmt: skip
    assert merged.returncode == 1, merged.stderr
    data = json.loads((merged_dir / "fuzz-report.json").read_text())
    jsonschema.validate(data, SCHEMA)
    assert data["totals"]["games"] == 2 * report["totals"]["games"]
    assert len(list((merged_dir / "drafts").glob("cc-8*.yaml"))) == len(data["findings"])


def test_cli_fuzz_usage_errors(tmp_path: Path) -> None:
    bad = cli("--shard", "3/2", "--out", str(tmp_path / "bad"))
    assert bad.returncode == 2 and "--shard" in bad.stderr
    missing = cli("--merge", str(tmp_path / "nope.json"), "--out", str(tmp_path / "m"))
    assert missing.returncode == 2 and "nope.json" in missing.stderr


def test_fuzz_never_overwrites_a_draft_of_the_users_own(tmp_path: Path) -> None:
    """``fuzz --out`` deleted the user's own drafts/cc-8000.yaml without a word."""
    mutant = f"{sys.executable} -m tests.mutants.adapter --mutant twos_wild"
    out = tmp_path / "out"
    first = cli("--adapter", mutant, "--games", "2", "--out", str(out), "--max-steps", "10")
    assert first.returncode == 1, first.stderr
    drafts = sorted((out / "drafts").glob("cc-8*.yaml"))
    assert drafts and all(fuzz.is_own_draft(d) for d in drafts)
    # Its own unedited drafts are replaced by a second campaign.
    again = cli("--adapter", mutant, "--games", "2", "--out", str(out), "--max-steps", "10")
    assert again.returncode == 1, again.stderr
    # One edited (or the user's own file under that name) stops the next before any game.
    mine = drafts[0].read_text().replace("review: draft", "review: draft  # my notes")
    drafts[0].write_text(mine)
    refused = cli("--adapter", mutant, "--games", "2", "--out", str(out), "--max-steps", "10")
    assert refused.returncode == 2
    assert f"{drafts[0]} is not a draft fuzz wrote" in refused.stderr
    assert drafts[0].read_text() == mine
    merged = cli("--merge", str(out / "fuzz-report.json"), "--out", str(out))
    assert merged.returncode == 2 and drafts[0].read_text() == mine


def test_fuzz_merge_refuses_to_write_over_the_report_it_reads(tmp_path: Path) -> None:
    report = fuzz.report_dict(run_fuzz(REFERENCE, games=1))
    out = tmp_path / "shard"
    out.mkdir()
    (out / "fuzz-report.json").write_text(json.dumps(report))
    before = (out / "fuzz-report.json").read_text()
    merged = cli("--merge", str(out / "fuzz-report.json"), "--out", str(out))
    assert merged.returncode == 2 and "is the --merge input" in merged.stderr
    json_over = cli("--merge", str(out / "fuzz-report.json"), "--out", str(tmp_path / "m"),
                    "--json", str(out / "fuzz-report.json"))  # fmt: skip
    assert json_over.returncode == 2 and "--json" in json_over.stderr
    assert (out / "fuzz-report.json").read_text() == before


def test_a_padded_draft_is_not_serialised(tmp_path: Path) -> None:
    """A 42 MB shard whose draft held millions of empty lists under free keys took
    ``fuzz --merge`` past 5 GB in the YAML serialisation: such a draft is not written."""
    argv = harness.mutant_argv("twos_wild")
    report = fuzz.report_dict(run_fuzz(argv, games=2, max_steps=10))
    assert report["findings"] and report["findings"][0]["scenario"]
    report["findings"][0]["scenario"]["padding"] = [[] for _ in range(fuzz.MAX_DRAFT_VALUES)]
    shard = tmp_path / "shard.json"
    shard.write_text(json.dumps(report))
    merged = cli("--merge", str(shard), "--out", str(tmp_path / "m"))
    assert merged.returncode == 1, merged.stderr
    data = json.loads((tmp_path / "m" / "fuzz-report.json").read_text())
    assert data["findings"][0]["scenario_file"] is None
    assert any("values" in w and "not written" in w for w in data["warnings"])
