"""Shard reports read within bounds and merged (conformance/fuzz/merge.py).

Hostile shard reports (deep nesting, huge integers, NaN, the wrong shapes) end in one
clear error naming the file, never a traceback; the same shard twice is refused; missing
shards are named; nothing the harness writes is non-standard JSON.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from conformance import fuzz
from conformance.fuzz import command
from tests.conformance.fuzzkit import REFERENCE, SCHEMA, cli

#: An engine that answers is all these tests need: the reference answers in-process
#: (tests/adapters.py); the tests of what its process does run it as a process.
pytestmark = pytest.mark.usefixtures("reference_in_process")


def shard(index: int, count: int, **totals: Any) -> dict[str, Any]:
    """A valid report of shard ``index/count`` of one small campaign (no adapter run)."""
    options = fuzz.FuzzOptions(games=8, shard=(index, count))
    report = fuzz.unstarted_report(REFERENCE, options, "unused")
    report["adapter_error"] = None
    report["engine"] = {
        "implementation": {"name": "e", "version": "1", "language": "py"},
        "capabilities": ["turns"],
        "rulings": {},
    }
    report["totals"].update({"games": 2, "steps": 40, "queries": 5, "compared": 45, **totals})
    jsonschema.validate(report, SCHEMA)
    return report


def write(path: Path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    return str(path)


def _hostile(tmp_path: Path) -> dict[str, str]:
    good = shard(1, 2)
    text = json.dumps(good)

    def changed(**fields: Any) -> str:
        return json.dumps({**good, **fields})

    engine_deep = dict(good, engine={**good["engine"], "x": "@"})
    return {
        "deep": "[" * 100_000 + "]" * 100_000,
        "deep-in-engine": json.dumps(engine_deep).replace('"@"', "[" * 5000 + "]" * 5000),
        "huge-int": text.replace('"steps": 40', '"steps": ' + "9" * 5000),
        "nan-seconds": text.replace('"seconds": 0', '"seconds": NaN'),
        "list-campaign": changed(campaign=[]),
        "string-findings": changed(findings=["a finding"]),
        "string-total": changed(totals={**good["totals"], "games": "2"}),
        "top-level-list": json.dumps([good]),
        "not-json": text[:-5],
    }


def test_hostile_shard_reports_are_one_clear_error_each(tmp_path: Path) -> None:
    other = write(tmp_path / "other.json", json.dumps(shard(2, 2)))
    for name, text in _hostile(tmp_path).items():
        path = write(tmp_path / f"{name}.json", text)
        with pytest.raises(fuzz.FuzzError) as caught:
            command.merge([path, other], tmp_path / f"out-{name}")
        message = str(caught.value)
        assert message.startswith(path) and "\n" not in message and len(message) < 600, name
        assert not (tmp_path / f"out-{name}").exists(), name


def test_the_command_line_refuses_a_hostile_shard_with_exit_2(tmp_path: Path) -> None:
    deep = write(tmp_path / "deep.json", "[" * 100_000 + "]" * 100_000)
    other = write(tmp_path / "other.json", json.dumps(shard(2, 2)))
    done = cli("--merge", deep, other, "--out", str(tmp_path / "out"))
    assert done.returncode == 2, done.stderr
    assert "deep.json" in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_the_same_shard_twice_is_refused() -> None:
    with pytest.raises(fuzz.FuzzError, match="shard 1/2 is given twice"):
        fuzz.merge_reports([shard(1, 2), shard(2, 2), shard(1, 2)])
    # Also when it hides inside a report merged before.
    halves = fuzz.merge_reports([shard(1, 2), shard(2, 2)])
    with pytest.raises(fuzz.FuzzError, match="given twice"):
        fuzz.merge_reports([halves, shard(2, 2)])


def test_missing_shards_are_named_and_an_impossible_count_stays_cheap() -> None:
    merged = fuzz.merge_reports([shard(1, 3), shard(3, 3)])
    assert merged["totals"]["games"] == 4
    assert "shard(s) 2/3 missing: this report covers part of the campaign" in merged["warnings"]
    complete = fuzz.merge_reports([shard(1, 2), shard(2, 2)])
    assert not any("missing" in w for w in complete["warnings"])
    # A count of a trillion names ten and counts the rest, without listing them all.
    huge = fuzz.merge_reports([shard(1, 10**12), shard(5, 10**12)])
    (note,) = [w for w in huge["warnings"] if "missing" in w]
    assert note.startswith("shard(s) 2/1000000000000, 3/1000000000000, 4/1000000000000, 6/")
    assert f"and {10**12 - 12} more missing" in note


def test_shards_of_different_splits_or_a_dead_adapter_are_refused() -> None:
    with pytest.raises(fuzz.FuzzError, match="different splits"):
        fuzz.merge_reports([shard(1, 2), shard(2, 3)])
    dead = fuzz.unstarted_report(REFERENCE, fuzz.FuzzOptions(games=8, shard=(2, 2)), "no hello")
    with pytest.raises(fuzz.FuzzError, match=r"adapter never started \(no hello\)"):
        fuzz.merge_reports([shard(1, 2), dead])


def test_nothing_written_is_ever_nan(tmp_path: Path) -> None:
    # A shard read by another reader (report merge --fuzz) may still hold a NaN: the merge
    # writes a finite number, and the writer refuses a non-finite one outright.
    merged = fuzz.merge_reports([shard(1, 2, seconds=math.nan), shard(2, 2, seconds=1.5)])
    assert merged["totals"]["seconds"] == 1.5
    text = fuzz.report_text(merged)
    assert "NaN" not in text and json.loads(text)["totals"]["seconds"] == 1.5
    with pytest.raises(ValueError):
        fuzz.report_text({**merged, "totals": {**merged["totals"], "seconds": math.inf}})
    outcome = command.merge(
        [write(tmp_path / "a.json", json.dumps(shard(1, 2))),
         write(tmp_path / "b.json", json.dumps(shard(2, 2)))],
        tmp_path / "out",
    )  # fmt: skip
    jsonschema.validate(json.loads(outcome.path.read_text()), SCHEMA)


def _as_shard(index: int, count: int) -> dict[str, Any]:
    report = shard(1, count)
    report["campaign"]["shards"] = [{"index": index, "count": count}]
    return report


def test_a_shard_no_split_has_is_refused_and_the_missing_ones_named(tmp_path: Path) -> None:
    """Shards 4/2 and 5/2 are two shards of a split in two, so nothing looked missing:
    they are refused, naming the shards a split in two has."""
    with pytest.raises(fuzz.FuzzError, match=r"there is no shard 4/2 \(a campaign split in 2 "
                                             r"has shards 1/2 to 2/2\)"):  # fmt: skip
        fuzz.merge_reports([_as_shard(4, 2), _as_shard(5, 2)])
    paths = [write(tmp_path / f"{i}.json", json.dumps(_as_shard(i, 2))) for i in (4, 5)]
    done = cli("--merge", *paths, "--out", str(tmp_path / "out"))
    assert done.returncode == 2 and "there is no shard 4/2" in done.stderr
    assert "Traceback" not in done.stderr
    # One real shard of the two: merged, and the other named as missing.
    alone = fuzz.merge_reports([shard(2, 2)])
    assert "shard(s) 1/2 missing: this report covers part of the campaign" in alone["warnings"]
