"""Interface modes: the reference as an engine that declares other interface choices.

Each mode must answer within what docs/protocol.md §2 lets its declaration do: ``run_order:
engine`` reads a run's cards as a set, ``run_ends: engine`` accepts a card that fits at either
end, ``unmodelled`` fields carry a placeholder of their type, ``players`` are the counts played.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from reference.adapter import Adapter
from reference.cards import full_pack
from reference.codec import state_to_json
from reference.interface import Interface, arrange_run, parse_interface
from reference.melds import check_meld
from reference.profiles import ARGENTINE, CHILEAN
from tests.reference.ref_helpers import make_state, run, trio

ENGINE_ORDER = parse_interface(["run_order=engine"])
ENGINE_ENDS = parse_interface(["run_ends=engine"])


def ask(adapter: Adapter, request: dict[str, Any]) -> dict[str, Any]:
    answer, _ = adapter.handle(json.dumps({"id": 7, **request}))
    return answer


def hello(adapter: Adapter) -> dict[str, Any]:
    return ask(adapter, {"op": "hello", "protocol": 1})


def check_run(adapter: Adapter, cards: list[str], initial: bool = True) -> dict[str, Any]:
    meld = {"kind": "run", "cards": cards}
    return ask(
        adapter, {"op": "check_meld", "profile": "argentine", "meld": meld, "initial": initial}
    )


def test_the_default_handshake_declares_no_interface_choice() -> None:
    answer = hello(Adapter())
    assert not {"run_order", "run_ends", "unmodelled"} & set(answer)
    assert answer["profile_players"]["argentine"] == [2, 3, 4]


def test_the_handshake_declares_exactly_the_choices_made() -> None:
    interface = parse_interface(
        ["run_order=engine", "run_ends=engine"], "winners,dealer", "3,4,5", ["chilean=2,6"]
    )
    answer = hello(Adapter(interface=interface))
    assert answer["run_order"] == "engine" and answer["run_ends"] == "engine"
    assert answer["unmodelled"] == ["dealer", "winners"]
    # Each profile plays the declared counts it allows: argentine 2-4, pagat 2-5, perla 2-8.
    assert answer["profile_players"] == {
        "argentine": [3, 4],
        "chilean": [2, 6],
        "pagat": [3, 4, 5],
        "perla": [3, 4, 5],
    }
    assert answer["players"] == [2, 3, 4, 5, 6]


def test_it_declares_taking_requests_as_they_come_unless_told_otherwise() -> None:
    # It reads one line at a time, so any number of requests may wait in the pipe
    # (docs/protocol.md §1); "none" makes an engine the harness writes to one at a time.
    assert hello(Adapter())["max_in_flight"] == 16
    assert hello(Adapter(interface=parse_interface([], max_in_flight="2")))["max_in_flight"] == 2
    assert "max_in_flight" not in hello(
        Adapter(interface=parse_interface([], max_in_flight="none"))
    )


def test_requests_written_together_are_answered_in_turn() -> None:
    lines = "".join(
        json.dumps(request) + "\n"
        for request in (
            {"id": 1, "op": "hello", "protocol": 1},
            {"id": 2, "op": "penalty", "profile": "argentine", "cards": ["AS"]},
            {"id": 3, "op": "penalty", "profile": "argentine", "cards": ["QD", "3C"]},
            {"id": 4, "op": "bye"},
        )
    )
    done = subprocess.run(
        [sys.executable, "-m", "reference.adapter"],
        input=lines,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [a["id"] for a in answers] == [1, 2, 3, 4]
    assert [a.get("points") for a in answers[1:3]] == [20, 13]  # an ace 20; a queen 10, a 3 3


def test_an_engine_may_declare_no_player_counts_and_still_play_them_all() -> None:
    adapter = Adapter(interface=parse_interface([], None, "none"))
    answer = hello(adapter)
    assert "players" not in answer and "profile_players" not in answer
    for players in (2, 6):
        game = {"op": "new_game", "profile": "chilean", "players": players, "seed": 1}
        assert "state" in ask(adapter, game)


def test_a_count_not_declared_is_unsupported_and_a_declared_one_is_played() -> None:
    adapter = Adapter(interface=parse_interface([], None, "3,4,5"))
    two = ask(adapter, {"op": "new_game", "profile": "pagat", "players": 2, "seed": 1})
    assert two["error"]["kind"] == "unsupported"
    five = ask(adapter, {"op": "new_game", "profile": "pagat", "players": 5, "seed": 1})
    assert len(five["state"]["hands"]) == 5
    state = state_to_json(make_state(["8S 2D", "QH KH"], turn=0))
    assert ask(adapter, {"op": "load_state", "state": state})["error"]["kind"] == "unsupported"


@pytest.mark.parametrize(
    "cards",
    [["5S", "4S", "6S", "7S"], ["4H", "5H", "7H", "6H"], ["JK", "5S", "7S", "8S"]],
)
def test_an_arranging_engine_reads_a_run_as_a_set(cards: list[str]) -> None:
    # docs/protocol.md §4: for an `engine` engine the cards are a set, a run when some
    # arrangement of them is one; the reference reading the listing refuses them.
    assert check_run(Adapter(interface=ENGINE_ORDER), cards) == {"id": 7, "valid": True}
    assert check_run(Adapter(), cards)["valid"] is False


@pytest.mark.parametrize(
    ("cards", "reasons"),
    [
        (["8S", "JK", "4S", "5S"], {"run_gap"}),  # two cards missing, one joker
        (["6D", "4S", "5S", "7S"], {"run_suit"}),
        (["2S", "QS", "AS", "KS"], {"run_wraps", "beyond_ace"}),  # only round the corner
    ],
)
def test_a_set_no_arrangement_makes_a_run_is_refused(cards: list[str], reasons: set[str]) -> None:
    answer = check_run(Adapter(interface=ENGINE_ORDER), cards)
    assert answer["valid"] is False and answer["reason"] in reasons


def test_an_arranged_joker_never_stands_beyond_an_ace() -> None:
    arranged = arrange_run(run("JC QC KC AC JK"), ARGENTINE, initial=False)
    assert [c.code() for c in arranged.cards] == ["JK", "JC", "QC", "KC", "AC"]


def test_a_chilean_set_arranges_a_wild_2_into_a_gap() -> None:
    arranged = arrange_run(run("2H 5S 7S 8S"), CHILEAN, initial=True)
    assert check_meld(arranged, initial=True, profile=CHILEAN) is None
    assert sorted(c.code() for c in arranged.cards) == ["2H", "5S", "7S", "8S"]


def test_an_opening_of_an_arranging_engine_lays_its_runs_arranged() -> None:
    adapter = Adapter(interface=ENGINE_ORDER)
    state = make_state(["8C 8D 8H 5S 4S 7S 6S 9D", "QH KH"], turn=0, phase="play")
    ask(adapter, {"op": "load_state", "state": state_to_json(state)})
    melds = [
        {"kind": "trio", "cards": ["8C", "8D", "8H"]},
        {"kind": "run", "cards": ["5S", "4S", "7S", "6S"]},
    ]
    answer = ask(adapter, {"op": "act", "action": {"type": "open", "player": 0, "melds": melds}})
    assert answer["accepted"] is True
    assert answer["state"]["table"][1]["cards"] == ["4S", "5S", "6S", "7S"]


def test_an_engine_picking_ends_accepts_a_card_at_the_end_it_fits() -> None:
    adapter = Adapter(interface=ENGINE_ENDS)
    state = make_state(
        ["3D 8D 2C", "QH KH"],
        turn=0,
        phase="play",
        opened=(True, True),
        table=[(1, run("4D 5D 6D 7D"))],
    )
    ask(adapter, {"op": "load_state", "state": state_to_json(state)})
    lay = {"type": "lay_off", "player": 0, "meld": 0}
    # 3D fits only below 4D: asked "high", it goes low; 8D asked "low" goes high; no end named.
    for card, end in (("3D", "high"), ("8D", "low")):
        answer = ask(adapter, {"op": "act", "action": {**lay, "card": card, "end": end}})
        assert answer["accepted"] is True
    assert answer["state"]["table"][0]["cards"] == ["3D", "4D", "5D", "6D", "7D", "8D"]
    refused = ask(adapter, {"op": "act", "action": {**lay, "card": "2C", "end": "low"}})
    assert refused["accepted"] is False and refused["reason"] == "does_not_fit"


def test_an_engine_picking_ends_moves_a_joker_to_an_end_that_takes_it() -> None:
    adapter = Adapter(interface=ENGINE_ENDS)
    state = make_state(
        ["QS 2D", "QH KH"],
        turn=0,
        phase="play",
        opened=(True, True),
        table=[(1, run("JS JK KS AS"))],
    )
    ask(adapter, {"op": "load_state", "state": state_to_json(state)})
    # Nothing stands above the high ace (JOKER-6): asked "high", the joker goes low.
    swap = {"type": "swap_joker", "player": 0, "meld": 0, "card": "QS", "to": "high"}
    answer = ask(adapter, {"op": "act", "action": swap})
    assert answer["accepted"] is True
    assert answer["state"]["table"][0]["cards"] == ["JK", "JS", "QS", "KS", "AS"]


def test_unmodelled_fields_carry_placeholders_while_the_game_is_played_right() -> None:
    every = "dealer,turn_opened,totals,deal_scores,closer,winners"
    adapter = Adapter(interface=parse_interface([], every))
    deck = [c.code() for c in full_pack(*ARGENTINE.pack(3))]
    request = {
        "op": "start_deal",
        "profile": "argentine",
        "players": 3,
        "deal_number": 1,
        "dealer": 1,
        "totals": [5, 10, 20],
        "deck": deck,
    }
    state = ask(adapter, request)["state"]
    assert state["dealer"] == 0 and state["totals"] == [0, 0, 0]
    assert state["winners"] is None and state["closer"] is None and state["deal_scores"] is None
    # The engine still deals from the dealer it was given: the right-hand neighbour moves.
    assert state["turn"] == 2
    assert len(state["hands"][2]) == 11


def test_bad_interface_arguments_are_named() -> None:
    with pytest.raises(ValueError, match="run_order"):
        parse_interface(["run_order=sometimes"])
    with pytest.raises(ValueError, match="FIELD"):
        parse_interface(["colour=engine"])
    with pytest.raises(ValueError, match="shoe_size"):
        parse_interface([], "dealer,shoe_size")
    with pytest.raises(ValueError, match="from 2 to 8"):
        parse_interface([], None, "1,2")
    for bad in ("0", "two", "-1"):
        with pytest.raises(ValueError, match="--max-in-flight"):
            parse_interface([], max_in_flight=bad)
    with pytest.raises(ValueError, match="unknown profiles"):
        Adapter(interface=Interface(profile_players={"klondike": (2,)}))


def test_the_command_line_takes_the_interface_options() -> None:
    args = [
        sys.executable,
        "-m",
        "reference.adapter",
        "--interface",
        "run_order=engine",
        "--unmodelled",
        "winners",
        "--players",
        "3,4",
    ]
    lines = '{"id": 1, "op": "hello", "protocol": 1}\n{"id": 2, "op": "bye"}\n'
    done = subprocess.run(args, input=lines, capture_output=True, text=True, timeout=60, check=True)
    answer = json.loads(done.stdout.splitlines()[0])
    assert answer["run_order"] == "engine" and answer["unmodelled"] == ["winners"]
    assert answer["players"] == [3, 4]
    bad = subprocess.run(
        [*args[:3], "--interface", "run_ends=sometimes"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 2 and "run_ends" in bad.stderr


def test_a_trio_is_never_rearranged() -> None:
    meld = trio("8C JK 8D")
    assert ENGINE_ORDER.arrange(meld, ARGENTINE, initial=True) is meld


def test_an_engine_without_a_dealer_starts_deal_k_with_player_k_minus_1() -> None:
    # The test double of an engine that keeps no dealer: whatever dealer it is told, deal k
    # starts with player (k - 1) mod n, who is dealt the first card.
    interface = parse_interface(["first_player=deal_index"], "dealer")
    adapter = Adapter(interface=interface)
    assert "first_player" not in hello(adapter)
    deck = [c.code() for c in full_pack()]
    for deal_number, first in ((1, 0), (2, 1), (3, 2), (4, 3), (5, 0)):
        request = {
            "op": "start_deal",
            "profile": "argentine",
            "players": 4,
            "deal_number": deal_number,
            "dealer": 0,
            "totals": [0, 0, 0, 0],
            "deck": deck,
        }
        state = ask(adapter, request)["state"]
        assert state["turn"] == first
        size = len(state["hands"][first])
        assert sorted(state["hands"][first]) == sorted(deck[0 : 4 * size : 4])
    # A redeal keeps the deal, and so its first player.
    state = ask(adapter, {"op": "redeal", "deck": deck[::-1]})["state"]
    size = len(state["hands"][0])
    assert state["turn"] == 0
    assert sorted(state["hands"][0]) == sorted(deck[::-1][0 : 4 * size : 4])


def test_first_player_is_a_double_only_with_known_values() -> None:
    with pytest.raises(ValueError, match="first_player"):
        parse_interface(["first_player=left"])
