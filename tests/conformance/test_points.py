"""`carioca-conformance points`: a new point from the catalogue outwards, and the files that
follow from the catalogue (conformance/authoring/points.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conformance.authoring.points import (
    LATER_POINTS_HEADING,
    NewPoint,
    PointError,
    add_point,
    next_point_id,
    read_catalogue,
    stale_files,
)
from conformance.cli import main
from tests.paths import ROOT


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """The part of a checkout `points` reads and writes."""
    for part in ("conformance/data/catalogue.json", "docs/rules.md", "docs/profiles.md"):
        (tmp_path / part).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / part, tmp_path / part)
    shutil.copytree(
        ROOT / "reference", tmp_path / "reference", ignore=shutil.ignore_patterns("__pycache__")
    )
    return tmp_path


TOY = NewPoint(
    title="Going out on a joker",
    question="May a player go out by discarding a joker?",
    options={"allowed": "Yes.", "forbidden": "No."},
    rules=("TURN-5", "END-1"),
    profiles={"perla": "forbidden"},
)


def test_a_new_point_takes_the_next_number_after_the_highest() -> None:
    data = {"disputes": [{"id": "DISPUTE-01"}, {"id": "DISPUTE-78"}, {"id": "DISPUTE-57"}]}
    assert next_point_id(data) == "DISPUTE-79"
    assert next_point_id({"disputes": [{"id": "DISPUTE-99"}]}) == "DISPUTE-100"


def test_add_point_writes_the_entry_its_skeleton_and_the_generated_files(checkout: Path) -> None:
    before = read_catalogue(checkout)
    added = add_point(checkout, TOY)
    assert added.id == next_point_id(before)
    entry = read_catalogue(checkout)["disputes"][-1]
    # Every profile builds on argentine: each plays its option unless told otherwise.
    assert entry["profiles"] == {
        "argentine": "allowed",
        "chilean": "allowed",
        "pagat": "allowed",
        "perla": "forbidden",
    }
    rules = (checkout / "docs" / "rules.md").read_text(encoding="utf-8")
    heading = rules.index(LATER_POINTS_HEADING)
    at = rules.index(f"### {added.id} — Going out on a joker")
    assert heading < at < rules.index("\n# House variants")
    assert "- **Perla profile:** `forbidden` — TODO" in rules
    generated = (checkout / "reference" / "profiles" / "catalogued.py").read_text("utf-8")
    assert f'"{added.id}": ("allowed", "forbidden"),' in generated
    profiles = (checkout / "docs" / "profiles.md").read_text(encoding="utf-8")
    assert (
        f"| {added.id} | Going out on a joker | `allowed` | `allowed` | `allowed` | `forbidden` |"
        in profiles
    )
    assert stale_files(checkout) == []
    # The place for the branch: where the points of the same rules are read.
    assert any(h.startswith("reference/game.py:") and "DISPUTE-19" in h for h in added.branch_hints)
    # A second point goes after the first, under the same heading.
    second = add_point(checkout, TOY)
    rules = (checkout / "docs" / "rules.md").read_text(encoding="utf-8")
    assert rules.count(LATER_POINTS_HEADING) == 1
    assert rules.index(f"### {added.id} ") < rules.index(f"### {second.id} ")


def test_a_point_the_catalogue_cannot_take_is_refused_with_every_reason(checkout: Path) -> None:
    bad = NewPoint(
        title="x",
        question="y",
        options={"Yes": "a"},
        rules=("TURN-99",),
        profiles={"klingon": "Yes"},
    )
    with pytest.raises(PointError) as caught:
        add_point(checkout, bad)
    message = str(caught.value)
    for words in (
        "at least two options",
        "'Yes' is not lower case",
        "unknown rule TURN-99",
        "unknown profile klingon",
    ):
        assert words in message
    assert read_catalogue(checkout) == json.loads(
        (ROOT / "conformance/data/catalogue.json").read_text("utf-8")
    )


def test_the_command_adds_a_point_and_sync_check_names_a_stale_file(
    checkout: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = ["--root", str(checkout)]
    assert main(["points", "sync", "--check", *root]) == 0
    argv = ["points", "new", *root, "--title", "T", "--question", "Q?", "--rule", "TURN-5"]
    assert main([*argv, "--option", "a=A.", "--option", "b=B."]) == 0
    assert "added DISPUTE-" in capsys.readouterr().out
    assert main([*argv, "--option", "a"]) == 2  # not KEY=MEANING: a usage error
    catalogue = checkout / "conformance" / "data" / "catalogue.json"
    data = json.loads(catalogue.read_text(encoding="utf-8"))
    data["disputes"][-1]["profiles"]["chilean"] = "b"  # an edit by hand, not synced yet
    catalogue.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["points", "sync", "--check", *root]) == 1
    out = capsys.readouterr().out
    assert "stale: reference/profiles/catalogued.py" in out and "stale: docs/profiles.md" in out
    assert main(["points", "sync", *root]) == 0
    assert main(["points", "sync", "--check", *root]) == 0
