"""Rule tracing: the adapter names the rules each answer was decided by.

``python -m reference.adapter --trace-rules PATH`` (or ``CARIOCA_TRACE_RULES=PATH``) appends
one line per request answered: ``{"id", "op", "decided", "refused"}``. A rule appears only
where the branch deciding by it ran. Expected rule IDs come from docs/rules.md.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from reference import trace
from reference.adapter import TRACE_ENV, Adapter
from reference.codec import state_to_json
from reference.game import GameState
from reference.profiles import CHILEAN, PROFILES
from tests.reference.ref_helpers import make_state, run, trio


class Traced:
    """An in-process adapter tracing into ``path``; ``ask`` answers and returns the trace line."""

    def __init__(self, path: Path, rulings: dict[str, str] | None = None) -> None:
        self.path = path
        self.adapter = Adapter(rulings=rulings, trace_rules=str(path))
        self.next_id = 1

    def ask(self, request: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        request = {"id": self.next_id, **request}
        self.next_id += 1
        answer, _ = self.adapter.handle(json.dumps(request))
        lines = self.path.read_text(encoding="utf-8").splitlines()
        return answer, json.loads(lines[-1])

    def load(self, state: GameState) -> None:
        answer, line = self.ask({"op": "load_state", "state": state_to_json(state)})
        assert "state" in answer, answer
        # Validating a loaded state plays no rule (its table melds are checked quietly).
        assert line["decided"] == [] and line["refused"] == []

    def act(self, action: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        return self.ask({"op": "act", "action": action})


@pytest.fixture
def traced(tmp_path: Path) -> Traced:
    return Traced(tmp_path / "trace.jsonl")


def test_each_request_answered_appends_one_line_with_exactly_the_four_fields(
    traced: Traced,
) -> None:
    traced.ask({"op": "hello", "protocol": 1})
    meld = {"kind": "trio", "cards": ["8C", "8D", "8H"]}
    traced.ask({"op": "check_meld", "profile": "argentine", "meld": meld, "initial": True})
    traced.adapter.handle("not json")
    lines = [json.loads(x) for x in traced.path.read_text().splitlines()]
    assert len(lines) == 3
    assert all(set(line) == {"id", "op", "decided", "refused"} for line in lines)
    assert [(x["id"], x["op"]) for x in lines] == [(1, "hello"), (2, "check_meld"), (None, None)]
    assert lines[0]["decided"] == lines[0]["refused"] == []
    # A valid opening trio: MELD-TRIO-1 (three cards), MELD-TRIO-3 (one rank).
    assert {"MELD-TRIO-1", "MELD-TRIO-3"} <= set(lines[1]["decided"])
    assert lines[1]["refused"] == []


def test_a_refused_meld_names_the_rule_that_refused_it(traced: Traced) -> None:
    meld = {"kind": "run", "cards": ["QS", "KS", "AS", "2S"]}
    answer, line = traced.ask(
        {"op": "check_meld", "profile": "argentine", "meld": meld, "initial": True}
    )
    assert answer["valid"] is False
    assert line["refused"] == ["MELD-RUN-3"]  # no run turns the corner K-A-2
    assert "MELD-RUN-1" not in line["decided"]  # the run was never accepted


def test_a_refused_lay_off_cites_lay_off_4_and_keeps_the_checks_it_passed(
    traced: Traced,
) -> None:
    traced.load(
        make_state(
            ["9C 2D", "QH KH"],
            turn=0,
            phase="play",
            opened=(True, True),
            table=[(1, run("4S 5S 6S 7S"))],
        )
    )
    answer, line = traced.act(
        {"type": "lay_off", "player": 0, "card": "9C", "meld": 0, "end": "high"}
    )
    assert answer["accepted"] is False
    assert "LAYOFF-4" in line["refused"]
    # The player to move (TURN-1) holds the card (TURN-10): those branches accepted.
    assert {"TURN-1", "TURN-10"} <= set(line["decided"])
    assert "LAYOFF-1" not in line["decided"]


def test_an_accepted_lay_off_on_another_players_run(traced: Traced) -> None:
    traced.load(
        make_state(
            ["8S 2D", "QH KH"],
            turn=0,
            phase="play",
            opened=(True, True),
            table=[(1, run("4S 5S 6S 7S"))],
        )
    )
    answer, line = traced.act(
        {"type": "lay_off", "player": 0, "card": "8S", "meld": 0, "end": "high"}
    )
    assert answer["accepted"] is True
    assert {"LAYOFF-1", "LAYOFF-2", "LAYOFF-4", "TURN-7"} <= set(line["decided"])
    assert line["refused"] == []


def test_a_stock_draw_recycles_only_when_the_stock_is_empty(traced: Traced) -> None:
    full = make_state(["8S 2D", "QH KH"], turn=0, discard="6H 9C 3D")
    traced.load(full)
    _, line = traced.act({"type": "draw_stock", "player": 0})
    assert "TURN-2" in line["decided"] and "STOCK-1" not in line["decided"]
    state = full
    empty = GameState(**{**_fields(state), "stock": (), "discard": (*state.discard, *state.stock)})
    traced.load(empty)
    answer, line = traced.act({"type": "draw_stock", "player": 0})
    assert answer["accepted"] is True
    assert {"STOCK-1", "DISPUTE-18"} <= set(line["decided"])


def test_a_deal_with_nothing_to_recycle_is_cancelled_by_stock_2(traced: Traced) -> None:
    state = make_state(["8S 2D", "QH KH"], turn=0, discard="6H")
    rest = state.stock
    hands = (state.hands[0] + rest[: len(rest) // 2], state.hands[1] + rest[len(rest) // 2 :])
    traced.load(GameState(**{**_fields(state), "stock": (), "hands": hands}))
    answer, line = traced.act({"type": "draw_stock", "player": 0})
    assert answer["state"]["phase"] == "cancelled"
    assert "STOCK-2" in line["decided"] and "STOCK-1" not in line["decided"]


def test_a_closing_discard_is_scored(traced: Traced) -> None:
    traced.load(
        make_state(
            ["2D", "QH KH JK"],
            turn=0,
            phase="play",
            opened=(True, False),
            table=[(0, trio("8C 8D 8H"))],
        )
    )
    answer, line = traced.act({"type": "discard", "player": 0, "card": "2D"})
    assert answer["state"]["phase"] == "deal_over"
    # END-1 closes; the closer scores 0 (SCORE-1), the others their cards (SCORE-2), a
    # joker 50 (JOKER-7); the scores add to the totals (SCORE-4).
    assert {"TURN-5", "END-1", "SCORE-1", "SCORE-2", "SCORE-4", "JOKER-7"} <= set(line["decided"])


def test_a_point_is_traced_only_where_its_options_part_ways(traced: Traced) -> None:
    traced.load(make_state(["9C 2D JK", "QH KH"], turn=0, phase="play"))
    _, plain = traced.act({"type": "discard", "player": 0, "card": "9C"})
    assert "DISPUTE-08" not in plain["decided"]  # any discard but a joker
    traced.load(make_state(["9C 2D JK", "QH KH"], turn=0, phase="play"))
    _, joker = traced.act({"type": "discard", "player": 0, "card": "JK"})
    assert "DISPUTE-08" in joker["decided"]


def test_the_refusal_of_an_option_cites_its_point(tmp_path: Path) -> None:
    traced = Traced(tmp_path / "t.jsonl", rulings={"DISPUTE-08": "no"})
    traced.load(make_state(["9C 2D JK", "QH KH"], turn=0, phase="play"))
    answer, line = traced.act({"type": "discard", "player": 0, "card": "JK"})
    assert answer["accepted"] is False
    assert line["refused"] == ["TURN-5", "DISPUTE-08"]


def test_speculative_work_is_not_traced(tmp_path: Path) -> None:
    # DISPUTE-54 compulsory tries every opening the hand holds before a discard: trying is
    # not laying down, so no meld rule may appear.
    profile = CHILEAN.with_rulings({"DISPUTE-54": "compulsory"})
    traced = Traced(tmp_path / "t.jsonl", rulings={"DISPUTE-54": "compulsory"})
    state = make_state(
        ["8C 8D 9H 9S 3C 4D 5H KC QS JD 10H 7C", "QH KH"],
        deal_number=1,
        turn=0,
        phase="play",
        profile=profile,
    )
    traced.load(state)
    answer, line = traced.act({"type": "discard", "player": 0, "card": "KC"})
    assert answer["accepted"] is True
    assert "DISPUTE-54" in line["decided"]
    assert not [r for r in line["decided"] if r.startswith(("MELD-", "CONTRACT-"))]


def test_an_error_answer_decided_nothing(traced: Traced) -> None:
    answer, line = traced.ask({"op": "act", "action": {"type": "discard", "player": 0}})
    assert "error" in answer
    assert line["decided"] == line["refused"] == []


def test_a_profile_names_its_own_points_and_no_other_profiles_rules(traced: Traced) -> None:
    meld = {"kind": "run", "cards": ["2S", "3S", "4S", "5S"]}
    request = {"op": "check_meld", "meld": meld, "initial": True}
    _, line = traced.ask({**request, "profile": "chilean"})
    # A 2 in its own place is natural (CHILE-WILD-3); whether 2s are wild is DISPUTE-25,
    # which the Chilean profile states as DISPUTE-48.
    assert {"CHILE-WILD-3", "DISPUTE-49", "DISPUTE-25", "DISPUTE-48"} <= set(line["decided"])
    assert not [r for r in line["decided"] if r.startswith(("PERLA-", "PAGAT-"))]
    _, line = traced.ask({**request, "profile": "argentine"})
    assert not [r for r in line["decided"] if r.startswith(("CHILE-", "PERLA-", "PAGAT-"))]


def test_dealing_traces_the_dealing_rules(traced: Traced) -> None:
    answer, line = traced.ask({"op": "new_game", "profile": "argentine", "players": 3, "seed": 5})
    assert "state" in answer
    assert {"DEAL-1", "DEAL-2", "DEAL-3", "DEAL-4", "DEAL-5", "CARDS-1", "PLAYERS-1"} <= set(
        line["decided"]
    )


def test_nothing_is_kept_while_tracing_is_off() -> None:
    trace.decided("TURN-1")  # no record is open: a no-op
    with trace.recording() as record:
        trace.decided("TURN-1", "TURN-2", "TURN-1")
        with trace.quiet():
            trace.decided("MELD-RUN-1")
            trace.refused("MELD-RUN-1")
        trace.refused("LAYOFF-4")
    assert record.decided == ["TURN-1", "TURN-2"]  # first-seen order, once each
    assert record.refused == ["LAYOFF-4"]
    assert not trace.active()


def _requests() -> str:
    meld = {"kind": "trio", "cards": ["8C", "JK", "JK"]}
    lines = [
        {"id": 1, "op": "hello", "protocol": 1},
        {"id": 2, "op": "check_meld", "profile": "argentine", "meld": meld, "initial": True},
        {"id": 3, "op": "bye"},
    ]
    return "".join(json.dumps(x) + "\n" for x in lines)


@pytest.mark.parametrize("by_env", [False, True], ids=["flag", "env"])
def test_the_command_line_traces_by_flag_or_environment(tmp_path: Path, by_env: bool) -> None:
    path = tmp_path / "rules.jsonl"
    path.write_text('{"earlier": "line"}\n')  # appended to, never truncated
    env = {k: v for k, v in os.environ.items() if k != TRACE_ENV}
    args = [sys.executable, "-m", "reference.adapter"]
    if by_env:
        env[TRACE_ENV] = str(path)
    else:
        args += ["--trace-rules", str(path)]
    done = subprocess.run(
        args, input=_requests(), capture_output=True, text=True, env=env, timeout=60, check=True
    )
    assert len(done.stdout.splitlines()) == 3
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    assert lines[0] == {"earlier": "line"}
    assert [(x["id"], x["op"]) for x in lines[1:]] == [(1, "hello"), (2, "check_meld"), (3, "bye")]
    # Two jokers in an opening trio break JOKER-2.
    assert lines[2]["refused"] == ["JOKER-2"]


def test_without_tracing_no_file_is_written(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != TRACE_ENV}
    subprocess.run(
        [sys.executable, "-m", "reference.adapter"],
        input=_requests(),
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=60,
        check=True,
    )
    assert list(tmp_path.iterdir()) == []


def _fields(state: GameState) -> dict[str, Any]:
    return {name: getattr(state, name) for name in GameState.__dataclass_fields__}


def test_every_profile_is_served_with_tracing(traced: Traced) -> None:
    for name in PROFILES:
        answer, line = traced.ask({"op": "new_game", "profile": name, "players": 2, "seed": 1})
        assert "state" in answer and "DEAL-4" in line["decided"]
