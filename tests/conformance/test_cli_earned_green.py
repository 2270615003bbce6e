"""A green is earned, end to end: an engine graded on nothing
exits 4 with one line saying why, the CI gates (--min-graded, --all-players) hold, and the
detail a brief run prints appears where something differs. Engines are fake adapters."""

from __future__ import annotations

import json
import re
import shlex
import sys
from pathlib import Path

import pytest

from conformance.cli import main
from tests.paths import ROOT

#: An engine that answers is all these tests need: the reference answers in-process
#: (tests/adapters.py); the tests of what its process does run it as a process.
pytestmark = pytest.mark.usefixtures("reference_in_process")

PROXY = shlex.join([sys.executable, str(ROOT / "tests" / "fake_adapters" / "declaring_proxy.py")])
#: Claims every profile and capability, then answers `unsupported` to every request.
NOTHING = f"{PROXY} --unsupported-all"
#: The reference, declaring that it plays Pagat with 2 to 4 players (the text has 2 to 5).
PAGAT_2_4 = PROXY + " --hello " + shlex.quote(json.dumps({"profile_players": {"pagat": [2, 3, 4]}}))
DATA = Path(__file__).parent / "data"
FAKE = shlex.join([sys.executable, str(DATA / "fake_engine.py")])
CAT = ["--catalogue", str(DATA / "catalogue.json")]


def errors(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("error: ")]


def test_an_engine_answering_unsupported_to_everything_is_not_green(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "r.json"
    assert main(["run", "--adapter", NOTHING, "--rule", "MELD-RUN", "--json", str(report)]) == 4
    captured = capsys.readouterr()
    # Counted in checks once cases carry them, in cases before: either way none graded.
    [line] = errors(captured.err)
    assert re.fullmatch(
        r"error: profile argentine: nothing was graded: 0 of \d+ (checks|cases) \(.+\) \(exit 4\)",
        line,
    ), line
    assert re.search(r"graded 0/\d+ (checks|cases) \(not graded: ", captured.out)
    summary = json.loads(report.read_text())["summary"]
    assert summary["unsupported"] == summary["total"] > 0  # every case still reported


def test_every_profile_graded_on_nothing_fails_profile_all(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["run", "--profile", "all", "-q", "--adapter", NOTHING, "--rule", "JOKER"]) == 4
    captured = capsys.readouterr()
    last = captured.out.rstrip().splitlines()[-1]
    assert last.startswith("profiles: argentine exit 4, ")
    assert "ok" not in last
    assert all("nothing was graded" in line for line in errors(captured.err))


def test_a_pagat_engine_for_two_to_four_shows_the_fifth_player_and_fails_all_players(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["run", "--profile", "pagat", "--adapter", PAGAT_2_4, "--rule", "MELD-RUN", "-q"]
    assert main(args) == 0
    summary = capsys.readouterr().out.rstrip().splitlines()[-1]
    assert summary.endswith("; players 5 not played, the engine plays 2-4)")
    assert main([*args, "--all-players"]) == 4
    assert errors(capsys.readouterr().err) == [
        "error: profile pagat: the engine does not play 5 players; the profile's text has 2-5 "
        "(--all-players) (exit 4)"
    ]
    # The reference plays every count of the text: the gate holds.
    assert main(["run", "--profile", "pagat", "--rule", "MELD-RUN", "-q", "--all-players"]) == 0


def test_min_graded_gate(capsys: pytest.CaptureFixture[str]) -> None:
    # The reference arranges no run itself: its MELD-RUN cases for engines that do are not
    # graded, so a share of the selection stays ungraded.
    args = ["run", "--rule", "MELD-RUN", "-q"]
    assert main([*args, "--min-graded", "0.5"]) == 0
    assert main([*args, "--min-graded", "100%"]) == 4
    assert "under --min-graded 100%" in capsys.readouterr().err
    assert main([*args, "--min-graded", "lots"]) == 2
    assert "error: --min-graded lots: expected a share" in capsys.readouterr().err


def test_quiet_and_verbose_are_exclusive(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "-q", "-v", "--rule", "MELD-RUN"]) == 2
    assert "cannot be given together" in capsys.readouterr().err


def test_the_laws_held_in_one_line_under_quiet(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["run", "--scenario", "cc-0200", "--properties", "--deals", "2", "-q"]
    assert main(args) == 0
    out = capsys.readouterr().out.rstrip().splitlines()
    assert len(out) == 3, out  # the header, the laws, the summary
    assert out[1].startswith("Laws over seeded deals (seed 0): all ") and out[1].endswith(" held")


def test_rulings_rows_appear_where_the_engine_plays_otherwise(
    capsys: pytest.CaptureFixture[str],
) -> None:
    adapter = f"{shlex.quote(sys.executable)} -m reference.adapter --ruling VARIANT-01=thirty"
    assert main(["run", "--adapter", adapter, "--scenario", "cc-1000"]) == 0
    out = capsys.readouterr().out
    block = out.split("Rulings the engine plays otherwise (engine / profile argentine):\n")[1]
    assert block.splitlines()[0].split()[:3] == ["*VARIANT-01", "thirty", "fifty"]
    assert "DISPUTE-39" not in out  # another profile's point, which the reference declares
    assert main(["run", "--scenario", "cc-1000"]) == 0
    assert "Rulings" not in capsys.readouterr().out
    assert main(["run", "--scenario", "cc-1000", "-v"]) == 0
    assert "Rulings (engine declared / profile argentine; * where they differ):" in (
        capsys.readouterr().out
    )


def test_detail_appears_where_something_fails(capsys: pytest.CaptureFixture[str]) -> None:
    good = str(DATA / "good")
    assert main([*CAT, "run", good, "--adapter", FAKE + " --wrong-penalty", "-q"]) == 1
    out = capsys.readouterr().out
    assert "  FAIL        cc-0001 " in out and "PASS" not in out
    assert (
        "Failures and errors by rule (cases citing it):" in out or "Failing checks by rule:" in out
    )


def test_the_summary_counts_checks_once_the_runner_grades_them(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Passes once the runner fills CaseResult.checks (the "grade" branch): the summary
    # counts checks, and an engine graded on nothing shows the op it lacks as the cause.
    assert main(["run", "--scenario", "cc-0302", "-q"]) == 0
    assert re.search(r"; graded [1-9]\d*/\d+ checks", capsys.readouterr().out)
    assert main(["run", "--adapter", NOTHING, "--scenario", "cc-0302", "-q"]) == 4
    assert re.search(
        r"graded 0/\d+ checks \(not graded: \d+ op unsupported\)", capsys.readouterr().out
    )


@pytest.mark.slow
def test_a_melds_only_engines_laws_say_what_they_need_and_leave_its_run_green(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The laws play whole deals: an engine claiming only ``melds`` cannot have them, so
    they are not checked (no pass) and say why, and its graded cases decide the run."""
    melds = shlex.join([sys.executable, "-m", "reference.adapter", "--capabilities", "melds"])
    report = tmp_path / "r.json"
    argv = ["run", "-q", "--adapter", melds, "--rule", "MELD-RUN", "--properties"]
    assert main([*argv, "--json", str(report)]) == 0
    out = capsys.readouterr().out
    assert "Laws over seeded deals (seed 0): not checked: needs the turns and deals" in out
    assert "held" not in out
    laws = json.loads(report.read_text())["properties"]
    assert laws and all(law["applies"] is False and not law["passed"] for law in laws)


#: No rules at all: echoes load_state, answers unsupported to everything else.
ECHO = shlex.join([sys.executable, str(ROOT / "tests" / "fake_adapters" / "echo_engine.py")])


def test_an_engine_that_only_echoes_load_state_is_not_green(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Every state it answers holds the pack (the harness built it): those invariants alone
    are not graded, so run, every profile and the --min-graded gate say nothing was."""
    assert main(["run", "--adapter", ECHO, "-q", "--min-graded", "0.05"]) == 4
    captured = capsys.readouterr()
    assert re.search(r"graded 0/\d+ checks \(not graded: \d+ op unsupported", captured.out)
    [line] = errors(captured.err)
    assert "nothing was graded" in line
    assert main(["run", "--profile", "all", "-q", "--adapter", ECHO, "--rule", "JOKER"]) == 4
    last = capsys.readouterr().out.rstrip().splitlines()[-1]
    assert last.startswith("profiles: ") and "ok" not in last
