"""`record` drafts a scenario from what an engine does; the draft loads back cleanly."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import yaml

from conformance.authoring.record import RecordError, record_to_file
from conformance.cli import main
from conformance.scenarios import load_file

#: An engine that answers is all these tests need: the reference answers in-process
#: (tests/adapters.py); the tests of what its process does run it as a process.
pytestmark = pytest.mark.usefixtures("reference_in_process")

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


# --- a draft says what the engine was free to choose ---------------------------------------------

HOUSE = [sys.executable, str(Path(__file__).parents[1] / "fake_adapters" / "house_engine.py")]

#: Deal 2 (a trio and a run): player 1 draws, lays 8C 8D 8H and 4S-7S, discards KD.
RUN_SETUP = {
    "setup": {
        "state": {
            "players": 2,
            "deal_number": 2,
            "dealer": 0,
            "turn": 1,
            "phase": "draw",
            "hands": [
                ["2H", "3H", "9C", "10C", "JD", "QH", "KS", "AD", "5D", "6C", "7H"],
                ["8C", "8D", "8H", "4S", "5S", "6S", "7S", "KD", "2C", "9H", "QD"],
            ],
            "discard": ["6H"],
            "stock_top": ["2D"],
        }
    }
}
RUN_ACTIONS = [
    {"type": "draw_stock", "player": 1},
    {
        "type": "open",
        "player": 1,
        "melds": [
            {"kind": "trio", "cards": ["8C", "8D", "8H"]},
            {"kind": "run", "cards": ["4S", "5S", "6S", "7S"]},
        ],
    },
    {"type": "discard", "player": 1, "card": "KD"},
]


def write_draft(tmp_path: Path, argv: list[str]) -> dict:  # type: ignore[type-arg]
    setup, actions = tmp_path / "setup.yaml", tmp_path / "actions.yaml"
    setup.write_text(yaml.safe_dump(RUN_SETUP))
    actions.write_text(yaml.safe_dump(RUN_ACTIONS))
    out = tmp_path / "draft.yaml"
    document = record_to_file(
        argv,
        setup_path=setup,
        actions_path=actions,
        out=out,
        scenario_id="cc-2300",
        rules=["TURN-5"],
    )
    loaded = load_file(out)
    assert loaded.errors == (), loaded.errors
    return document


def test_a_draft_from_an_engine_playing_the_profile_asserts_every_field(tmp_path: Path) -> None:
    document = write_draft(tmp_path, HOUSE)
    assert [s["expect"] for s in document["steps"]] == ["accepted"] * 3
    assert document["final"]["totals"] == [0, 0]
    assert document["final"]["table"][1]["cards"] == ["4S", "5S", "6S", "7S"]
    assert not {"assumes", "interface", "notes"} & set(document)


def test_a_draft_leaves_to_the_engine_what_it_declares_its_own(tmp_path: Path) -> None:
    """Recorded from an engine that arranges runs, plays jokers at 30 and keeps no totals:
    the draft assumes the option, is written for the reading, and asserts no totals."""
    flags = ["--scramble-runs", "--ruling", "VARIANT-01=thirty", "--unmodelled", "totals"]
    document = write_draft(tmp_path, [*HOUSE, *flags])
    assert document["assumes"] == {"VARIANT-01": "thirty"}
    assert document["interface"] == {"run_order": "engine"}
    assert "totals" not in document["final"] and "table" in document["final"]
    assert "VARIANT-01 thirty" in document["notes"] and "does not model totals" in document["notes"]


def test_record_refuses_a_count_or_level_the_engine_does_not_play(tmp_path: Path) -> None:
    with pytest.raises(
        RecordError, match="the setup plays 2 players; the engine declares players 3, 4"
    ):
        write_draft(tmp_path, [*HOUSE, "--plays", "3,4", "--declare-players", "3,4"])
    melds_only = [sys.executable, "-m", "reference.adapter", "--capabilities", "melds"]
    with pytest.raises(RecordError, match="needs capability 'turns'"):
        write_draft(tmp_path, melds_only)
