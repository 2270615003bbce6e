"""`record` drafts a scenario from what an engine does; the draft loads back cleanly."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import yaml

from conformance.cli import main
from conformance.record import RecordError, record_to_file
from conformance.scenarios import load_file

DATA = Path(__file__).parent / "data"
FAKE = [sys.executable, str(DATA / "fake_engine.py")]


def test_record_writes_a_loadable_draft(tmp_path: Path) -> None:
    out = tmp_path / "draft.yaml"
    record_to_file(
        FAKE,
        setup_path=DATA / "record-setup.yaml",
        actions_path=DATA / "record-actions.yaml",
        out=out,
        scenario_id="cc-0999",
        rules=["TURN-10"],
    )
    document = yaml.safe_load(out.read_text())
    assert document["review"] == "draft"
    assert [s["expect"] for s in document["steps"]] == [
        "accepted",
        {"rejected": "card_not_in_hand"},
        "accepted",
    ]
    assert document["final"]["discard_top"] == "4S" and document["final"]["turn"] == 0
    result = load_file(out)
    assert result.errors == () and result.scenarios[0].review == "draft"


def test_bad_actions_are_a_record_error(tmp_path: Path) -> None:
    bad = tmp_path / "a.yaml"
    bad.write_text("just: a mapping\n")
    with pytest.raises(RecordError):
        record_to_file(
            FAKE, setup_path=DATA / "record-setup.yaml", actions_path=bad, out=tmp_path / "o.yaml"
        )


def test_record_cli(tmp_path: Path) -> None:
    out = tmp_path / "d.yaml"
    code = main(
        [
            "record",
            "--setup",
            str(DATA / "record-setup.yaml"),
            "--actions",
            str(DATA / "record-actions.yaml"),
            "-o",
            str(out),
            "--adapter",
            " ".join(FAKE),
            "--rule",
            "TURN-2",
        ]
    )
    assert code == 0 and out.exists()
    assert (
        main(
            [
                "record",
                "--setup",
                str(tmp_path / "missing.yaml"),
                "--actions",
                str(DATA / "record-actions.yaml"),
                "-o",
                str(out),
            ]
        )
        == 2
    )
