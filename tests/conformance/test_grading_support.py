"""conformance/grading/support.py: which ops an engine answered and which it refused as
``unsupported``, per player count, and what the verdict reads from that; end to end with
tests/fake_adapters/refusing_proxy.py, which refuses request by request."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.grading.results import OpSupport
from conformance.grading.support import (
    OpBook,
    inconsistent,
    merged,
    op_label,
    refused_at_one_count,
    refused_players,
    support_warnings,
)
from tests.paths import ROOT

REFUSING = shlex.join([sys.executable, str(ROOT / "tests" / "fake_adapters" / "refusing_proxy.py")])


def test_an_action_is_counted_by_its_type() -> None:
    assert op_label("act", {"action": {"type": "discard", "card": "QD"}}) == "act:discard"
    assert op_label("penalty", {"cards": []}) == "penalty"


def test_the_workers_books_merge_into_one_count_per_op_and_player_count() -> None:
    one, two = OpBook(), OpBook()
    one.answered("act:discard", 2, "cc-2")
    one.answered("act:discard", 2, "cc-2")
    two.answered("act:discard", 2, "cc-1")
    two.refused("act:discard", 2, "cc-9")
    two.refused("penalty", None, "cc-5")
    for case in ("cc-8", "cc-7", "cc-6", "cc-5"):
        one.answered("act:discard", 3, case)
    ops = merged([one, two])
    assert [(o.op, o.players, o.answered, o.refused) for o in ops] == [
        ("act:discard", 2, 3, 1),
        ("act:discard", 3, 4, 0),
        ("penalty", None, 0, 1),
    ]
    # The first cases by id, whichever worker ran them; and how many cases in all.
    assert ops[0].answered_in == ("cc-1", "cc-2") and ops[0].answered_cases == 2
    assert ops[1].answered_in == ("cc-5", "cc-6", "cc-7") and ops[1].answered_cases == 4
    assert inconsistent(ops) == [ops[0]]
    [line] = support_warnings(ops, (2, 3, 4))
    assert line.startswith(
        "unsupported is inconsistent: the engine answered act:discard at 2 players in 2 "
        "case(s) (cc-1, cc-2) and refused it as unsupported in 1 case(s) (cc-9)"
    )


def entry(op: str, players: int | None, answered: int = 0, refused: int = 0) -> OpSupport:
    return OpSupport(op, players, answered, refused)


@pytest.mark.parametrize(
    ("ops", "refused"),
    [
        # Answered at 4, refused at 5: the count is refused.
        ([entry("act:draw_stock", 4, answered=3), entry("act:draw_stock", 5, refused=2)], (5,)),
        # Every request at 5 refused, others answered (a melds query, or another count's).
        ([entry("load_state", 5, refused=2), entry("check_meld", None, answered=1)], (5,)),
        # Every request refused everywhere: the engine lacks everything, not a count.
        ([entry("load_state", 5, refused=2), entry("check_meld", None, refused=1)], ()),
        # Only its load_state was answered at 5: echoing a state plays nothing.
        (
            [
                entry("load_state", 5, answered=2),
                entry("act:discard", 4, answered=1),
                entry("act:discard", 5, refused=1),
            ],
            (5,),
        ),
        # An op lacked at every count (swap_joker), beside others answered: not a count.
        (
            [
                entry("load_state", 3, answered=2),
                entry("act:swap_joker", 3, refused=2),
                entry("load_state", 4, answered=2),
                entry("act:swap_joker", 4, refused=2),
            ],
            (),
        ),
        # A count the engine does not declare is never sent: not counted here.
        ([entry("load_state", 4, answered=1), entry("load_state", 6, refused=1)], ()),
    ],
)
def test_a_player_count_is_refused_by_what_was_answered(
    ops: list[OpSupport], refused: tuple[int, ...]
) -> None:
    assert refused_players(ops, (2, 3, 4, 5)) == refused


def test_an_engine_refusing_every_second_request_is_not_green(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "r.json"
    args = ["run", "--adapter", f"{REFUSING} --every 2", "--rule", "MELD-RUN", "-q"]
    assert main([*args, "--json", str(report)]) == 1
    err = capsys.readouterr().err
    assert "op(s) answered in some cases and refused as unsupported in others" in err
    warnings = json.loads(report.read_text())["header"]["warnings"]
    assert any(w.startswith("unsupported is inconsistent: the engine answered check_meld in ")
               for w in warnings)  # fmt: skip


def test_an_engine_refusing_every_act_that_ends_a_deal_is_not_green(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """It refuses penalty everywhere (allowed alone) and each discard that closes a deal,
    answering the other discards: its scoring is never shown, and the run says so."""
    args = ["run", "--adapter", f"{REFUSING} --op penalty --ending-deal", "--rule", "END", "-q"]
    assert main(args) == 1
    captured = capsys.readouterr()
    assert "unsupported is inconsistent: the engine answered act:discard at " in captured.out
    # penalty alone, refused in every case, is an op the engine lacks: allowed.
    assert main(["run", "--adapter", f"{REFUSING} --op penalty", "--rule", "SCORE", "-q"]) == 0


def test_all_players_fails_an_engine_that_declares_five_and_refuses_them(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["run", "--profile", "pagat", "--rule", "PAGAT-PLAYERS", "--rule", "TURN-5", "-q"]
    refusing = ["--adapter", f"{REFUSING} --players 5"]
    assert main([*args, *refusing, "--all-players"]) == 4
    captured = capsys.readouterr()
    assert "players 5 not played (5 declared, refused as unsupported)" in captured.out
    assert errors_of(captured.err) == [
        "error: profile pagat: the engine does not play 5 players; the profile's text has 2-5; "
        "it declares 5 but refused those games as unsupported (--all-players) (exit 4)"
    ]
    # Without the gate, a count not played is said, and is no failure (as for an engine that
    # declares 2-4: tests/conformance/test_cli_earned_green.py).
    assert main([*args, *refusing]) == 0


def errors_of(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("error: ")]


def test_an_action_refused_at_one_count_where_others_are_played_is_inconsistent() -> None:
    ops = [
        entry("act:draw_stock", 2, answered=4),
        entry("act:discard", 2, refused=3),
        entry("act:discard", 3, answered=5),
        entry("act:discard", 4, answered=5),
    ]
    assert refused_at_one_count(ops) == [ops[1]]
    [line] = support_warnings(ops, (2, 3, 4))
    assert "refused act:discard at 2 players as unsupported" in line
    assert "answered it at 3, 4 players, and played other ops at 2 players" in line
    # A whole count refused is a count not played (allowed, named); an action refused at
    # every count is one the engine lacks (allowed).
    whole = [entry("load_state", 2, refused=2), entry("act:discard", 3, answered=1)]
    assert refused_at_one_count(whole) == []
    lacking = [entry("act:swap_joker", 2, refused=1), entry("act:swap_joker", 3, refused=1)]
    assert refused_at_one_count([*lacking, entry("act:discard", 2, answered=1)]) == []


def test_a_load_state_refused_in_some_cases_is_no_inconsistency_of_an_op() -> None:
    # Each such case fails instead, as a state the engine refuses (test_grading_refusals.py).
    ops = [entry("load_state", 2, answered=4, refused=2), entry("act:discard", 2, answered=4)]
    assert inconsistent(ops) == []
    assert support_warnings(ops, (2, 3, 4)) == ()


def test_the_inconsistency_warning_says_to_refuse_the_state_instead() -> None:
    [line] = support_warnings([OpSupport("act:discard", 2, 3, 2, ("cc-1",), ("cc-2",), 3, 2)], ())
    assert "refuse their load_state instead: each such case then fails once" in line
    assert "a failure an expectations entry can keep" in line


def test_an_engine_refusing_discards_at_two_players_only_is_not_green(
    capsys: pytest.CaptureFixture[str],
) -> None:
    corpus = str(ROOT / "scenarios" / "end")
    args = ["run", corpus, "--adapter", f"{REFUSING} --op-at act:discard:2", "-q", "--no-explain"]
    assert main(args) == 1
    captured = capsys.readouterr()
    assert "the engine refused act:discard at 2 players as unsupported" in captured.out
    assert "op(s) refused as unsupported at one player count" in captured.err


def test_an_engine_that_claims_games_and_answers_only_meld_queries_is_not_green(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Green without a game: every game request refused, meld queries answered, turns and
    deals claimed: a broken claim at run and at run --profile all."""
    melds, end = str(ROOT / "scenarios" / "melds"), str(ROOT / "scenarios" / "end")
    adapter = ["--adapter", f"{REFUSING} --games", "-q", "--no-explain"]
    assert main(["run", melds, end, *adapter]) == 1
    err = capsys.readouterr().err
    assert "the engine claims turns but never played it" in err
    assert "the engine claims deals but never played it" in err
    assert main(["run", "--profile", "all", "--rule", "MELD-TRIO", "--rule", "END", *adapter]) == 1
    assert "a capability claimed and never played is a broken claim" in capsys.readouterr().err
