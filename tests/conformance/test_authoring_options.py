"""`record --point` writes one draft with a value per option where the answers differ
(conformance/authoring/options.py), and the draft loads back cleanly."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from conformance.authoring.options import option_tree
from conformance.authoring.record import RecordError
from conformance.cli import main
from conformance.scenarios import load_file
from tests.adapters import REFERENCE

pytestmark = pytest.mark.usefixtures("reference_in_process")

# DISPUTE-19 (docs/adding-scenarios.md's example): player 1 takes the top discard, QS, and
# throws it back.
SETUP = {
    "setup": {
        "state": {
            "players": 2,
            "deal_number": 1,
            "dealer": 0,
            "turn": 1,
            "phase": "draw",
            "hands": [
                ["2C", "3C", "4C", "9D", "9H", "JD", "QH", "KS", "KD", "7H", "5D"],
                ["AH", "AD", "5S", "6D", "10C", "10S", "JC", "QC", "KC", "2S", "9S"],
            ],
            "discard": ["QS"],
        }
    }
}
ACTIONS = [
    {"type": "draw_discard", "player": 1},
    {"type": "discard", "player": 1, "card": "QS"},
]


def _record(tmp_path: Path, *points: str) -> dict:  # type: ignore[type-arg]
    setup, actions, out = tmp_path / "s.yaml", tmp_path / "a.yaml", tmp_path / "draft.yaml"
    setup.write_text(yaml.safe_dump(SETUP))
    actions.write_text(yaml.safe_dump(ACTIONS))
    flags = [flag for point in points for flag in ("--point", point)]
    argv = ["record", "--setup", str(setup), "--actions", str(actions), "-o", str(out)]
    assert main([*argv, *flags, "--id", "cc-0999", "--rule", "TURN-5"]) == 0
    loaded = load_file(out)
    assert loaded.errors == (), loaded.errors
    return yaml.safe_load(out.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def test_one_command_writes_a_two_option_draft(tmp_path: Path) -> None:
    draft = _record(tmp_path, "DISPUTE-19")
    taken, thrown = draft["steps"]
    # Where the options agree, one value and no state; where they differ, one per option.
    assert taken == {"action": ACTIONS[0], "expect": "accepted"}
    # The forbidden branch refuses what the profile accepts: a plain rejected (docs/rules.md).
    assert thrown["expect"] == {
        "by_option": {"DISPUTE-19": {"allowed": "accepted", "forbidden": "rejected"}}
    }
    assert thrown["state"]["turn"] == {"by_option": {"DISPUTE-19": {"allowed": 0, "forbidden": 1}}}
    assert thrown["state"]["discard_size"] == {
        "by_option": {"DISPUTE-19": {"allowed": 1, "forbidden": 0}}
    }
    # Only the keys that matter: nothing the options agree on and the steps left alone.
    assert set(thrown["state"]) == {"phase", "turn", "hand_sizes", "discard_size"}
    assert set(draft["final"]) == {"hands"}  # the rest is asserted by the last step already
    assert draft["disputed"]["id"] == "DISPUTE-19"
    assert draft["disputed"]["profiles"] == {"argentine": "allowed"}
    assert draft["review"] == "draft"


def test_a_point_that_changes_nothing_here_gives_plain_values(tmp_path: Path) -> None:
    draft = _record(tmp_path, "VARIANT-01")  # the joker's penalty: no joker, no close
    assert [s["expect"] for s in draft["steps"]] == ["accepted", "accepted"]
    assert all("state" not in s for s in draft["steps"])
    assert "by_option" not in yaml.safe_dump(draft["final"])


def test_a_point_the_profile_does_not_rule_freely_is_refused(tmp_path: Path) -> None:
    from conformance.authoring.record import record

    with pytest.raises(RecordError, match="DISPUTE-31 is set by DISPUTE-41 in the chilean"):
        record(REFERENCE, SETUP, ACTIONS, profile="chilean", points=["DISPUTE-31"])
    with pytest.raises(RecordError, match="DISPUTE-99 is not a disputed point"):
        record(REFERENCE, SETUP, ACTIONS, points=["DISPUTE-99"])


def test_option_tree_nests_only_the_points_that_change_a_value() -> None:
    options = {"A": ["x", "y"], "B": ["p", "q"]}
    assert option_tree(["A", "B"], options, lambda c: 1) == 1
    assert option_tree(["A", "B"], options, lambda c: c["B"]) == {
        "by_option": {"B": {"p": "p", "q": "q"}}
    }
    both = option_tree(["A", "B"], options, lambda c: c["A"] + c["B"] if c["A"] == "y" else "x")
    assert both == {
        "by_option": {"A": {"x": "x", "y": {"by_option": {"B": {"p": "yp", "q": "yq"}}}}}
    }


LEANING = Path(__file__).parent / "data" / "leaning" / "throw-back-unnamed.yaml"


def test_the_audit_prints_the_values_per_option_of_a_flagged_case(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["audit", "--point", "DISPUTE-19", "--workers", "1", str(LEANING)]) == 1
    text = capsys.readouterr().out
    assert "cc-0998 under DISPUTE-19=forbidden: fail: the case does not name DISPUTE-19" in text
    values = text.split("the value per option of DISPUTE-19 to write")[1].splitlines()[1:]
    assert [line.strip() for line in values if line.strip()] == [
        'step 2 expect: {"by_option": {"DISPUTE-19": {"allowed": "accepted", "forbidden": '
        '"rejected"}}}',
        'step 2 turn: {"by_option": {"DISPUTE-19": {"allowed": 0, "forbidden": 1}}}',
        'step 2 discard_size: {"by_option": {"DISPUTE-19": {"allowed": 1, "forbidden": 0}}}',
    ]
