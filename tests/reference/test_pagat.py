"""The Pagat profile (seed 002) in the reference: its numbers, its rulings and the branches
its points take (docs/rules.md, "Pagat profile", DISPUTE-57 to DISPUTE-60 and DISPUTE-79)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from ref_helpers import cards, make_state, run, trio

from reference import (
    ARGENTINE,
    GameState,
    IllegalActionError,
    LayOff,
    Meld,
    Reason,
    SwapJoker,
    apply,
    legal_actions,
)
from reference.adapter import Adapter
from reference.deadwood import deadwood_penalty, hand_score
from reference.profiles import OPTIONS, PAGAT, Profile


def pagat(**rulings: str) -> Profile:
    """The Pagat profile playing some other options (``DISPUTE_57="allowed"``)."""
    return PAGAT.with_rulings({k.replace("_", "-"): v for k, v in rulings.items()})


def test_pagat_is_the_argentine_game_with_five_players_and_13_card_runs() -> None:
    # PAGAT-PLAYERS-1, CARDS-1: 2 to 5 players, one 108-card pack for every count.
    assert (PAGAT.min_players, PAGAT.max_players) == (2, 5)
    assert all(PAGAT.pack_size_for(n) == 108 for n in range(2, 6))
    # PAGAT-RUN-4 (DISPUTE-57 forbidden): 13 cards at most; `allowed` is 000's 14.
    assert PAGAT.max_run_length == 13
    assert pagat(DISPUTE_57="allowed").max_run_length == 14
    # Everything else is seed 000's: contracts, hand sizes, values, joker limits.
    for field in ("deals", "contracts", "hand_sizes", "rank_values", "joker_value"):
        assert getattr(PAGAT, field) == getattr(ARGENTINE, field), field
    assert (PAGAT.initial_joker_limit, PAGAT.later_joker_limit) == (1, None)


def test_pagat_rules_on_every_argentine_point_and_its_own() -> None:
    own = {f"DISPUTE-{n}" for n in (47, 53, 54, 57, 58, 59, 60, 74, 75, 76, 79)}
    assert set(PAGAT.rulings) == set(ARGENTINE.rulings) | own
    for point in own:
        assert PAGAT.ruling(point) == OPTIONS[point][0], point
    # Where 002 agrees with 000 the options are Argentine's; DISPUTE-32 admits a fifth player.
    differs = {p for p in ARGENTINE.rulings if PAGAT.ruling(p) != ARGENTINE.ruling(p)}
    assert differs == {"DISPUTE-32"}


@pytest.mark.parametrize(
    ("point", "setter"),
    [
        ("DISPUTE-07", "DISPUTE-58"),
        ("DISPUTE-13", "DISPUTE-58"),
        ("DISPUTE-15", "DISPUTE-47"),
        ("VARIANT-04", "DISPUTE-76"),
    ],
)
def test_a_point_a_pagat_point_restates_is_set_through_it(point: str, setter: str) -> None:
    other = next(o for o in OPTIONS[point] if o != PAGAT.ruling(point))
    with pytest.raises(ValueError, match=f"{point} is set by {setter} in the pagat profile"):
        PAGAT.with_rulings({point: other})
    option = next(o for o in OPTIONS[setter] if o != PAGAT.ruling(setter))
    assert PAGAT.with_rulings({setter: option}).ruling(point) == other


def test_the_chilean_points_are_not_pagat_points() -> None:
    with pytest.raises(ValueError, match="DISPUTE-77 is not a point of the pagat profile"):
        PAGAT.with_rulings({"DISPUTE-77": "forbidden"})
    with pytest.raises(ValueError, match="DISPUTE-32 is fixed"):
        PAGAT.with_rulings({"DISPUTE-32": "two_to_four"})


def test_the_fourteenth_card_of_a_pagat_run_is_refused_at_either_end() -> None:
    table = [
        (0, run("AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH")),
        (1, run("2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS")),
    ]
    state = make_state(
        ["3C 4C", "AH AS JK 9D"], phase="play", opened=[True, True], table=table, profile=PAGAT
    )
    for action in (
        LayOff(1, cards("AH")[0], 0, "high"),  # type: ignore[arg-type]
        LayOff(1, cards("JK")[0], 0, "high"),  # type: ignore[arg-type]
        LayOff(1, cards("AS")[0], 1, "low"),  # type: ignore[arg-type]
        LayOff(1, cards("JK")[0], 1, "low"),  # type: ignore[arg-type]
    ):
        with pytest.raises(IllegalActionError):
            apply(state, action)
    allowed = make_state(
        ["3C 4C", "AH AS JK 9D"],
        phase="play",
        opened=[True, True],
        table=table,
        profile=pagat(DISPUTE_57="allowed"),
    )
    after = apply(allowed, LayOff(1, cards("AH")[0], 0, "high"))  # type: ignore[arg-type]
    assert len(after.table[0].meld.cards) == 14


def test_a_replaced_joker_finds_no_end_in_a_13_card_pagat_run() -> None:
    table = [(0, run("AC 2C 3C 4C 5C 6C JK 8C 9C 10C JC QC KC"))]
    state = make_state(
        ["3H 4H", "7C 9S 5H"], phase="play", opened=[True, True], table=table, profile=PAGAT
    )
    for end in ("low", "high"):
        with pytest.raises(IllegalActionError):
            apply(state, SwapJoker(1, 0, cards("7C")[0], end))
    assert not [a for a in legal_actions(state) if isinstance(a, SwapJoker)]


def test_dispute_59_anyone_lets_a_player_who_has_not_opened_replace_a_joker() -> None:
    table = [(0, run("5S JK 7S 8S"))]
    hands = ["3C 4C 9D JD", "AH AD 5D 6D 10S JC JS 3H 9S 3D 7C 6S"]
    state = make_state(hands, phase="play", opened=[True, False], table=table, profile=PAGAT)
    swap = SwapJoker(1, 0, cards("6S")[0], "high")
    with pytest.raises(IllegalActionError) as refused:
        apply(state, swap)
    assert refused.value.reason is Reason.NOT_OPENED  # CONTRACT-10
    anyone = make_state(
        hands,
        phase="play",
        opened=[True, False],
        table=table,
        profile=pagat(DISPUTE_59="anyone"),
    )
    after = apply(anyone, swap)
    assert after.table[0].meld == run("5S 6S 7S 8S JK")
    assert swap in legal_actions(anyone) and swap not in legal_actions(state)


def test_dispute_79_says_when_a_replacement_may_follow_the_initial_meld() -> None:
    # Player 1 has just met the contract; the escalera's joker stands for the 5S held.
    table: list[tuple[int, Meld]] = [(0, trio("KS KH KD")), (1, run("4S JK 6S 7S"))]

    def state(profile: Profile) -> GameState:
        return make_state(
            ["3C 4C 9H", "5S KC 2H 3H"],
            phase="play",
            opened=[True, True],
            turn_opened=True,
            table=table,
            profile=profile,
        )

    swap = SwapJoker(1, 1, cards("5S")[0], "high")
    lay_off = LayOff(1, cards("KC")[0], 0)
    with pytest.raises(IllegalActionError) as refused:
        apply(state(PAGAT), swap)
    assert refused.value.reason is Reason.OPENING_TURN
    assert swap not in legal_actions(state(PAGAT))
    # DISPUTE-79 same_turn: the replacement, not the lay-off, may follow the initial meld.
    same = state(pagat(DISPUTE_79="same_turn"))
    assert apply(same, swap).table[1].meld == run("4S 5S 6S 7S JK")
    assert swap in legal_actions(same) and lay_off not in legal_actions(same)
    with pytest.raises(IllegalActionError):
        apply(same, lay_off)
    # DISPUTE-20 same_turn says when lay-offs may happen, not replacements, in pagat.
    lay_offs_early = state(pagat(DISPUTE_20="same_turn"))
    assert apply(lay_offs_early, lay_off).table[0].meld == trio("KS KH KD KC")
    with pytest.raises(IllegalActionError):
        apply(lay_offs_early, swap)
    assert swap not in legal_actions(lay_offs_early)
    # In argentine DISPUTE-20 still says both (000 §05).
    argentine = state(ARGENTINE.with_rulings({"DISPUTE-20": "same_turn"}))
    assert apply(argentine, swap).table[1].meld == run("4S 5S 6S 7S JK")


def test_dispute_58_melding_lets_the_last_card_go_out() -> None:
    table = [(1, run("5S 6S 7S 8S"))]
    hands = ["2C 3C 4C 5C 9D 9H JD QH KS KD 7H", "9S"]
    lay_off = LayOff(1, cards("9S")[0], 0, "high")  # type: ignore[arg-type]
    state = make_state(hands, phase="play", opened=[False, True], table=table, profile=PAGAT)
    with pytest.raises(IllegalActionError) as refused:
        apply(state, lay_off)
    assert refused.value.reason is Reason.HAND_WOULD_EMPTY  # TURN-9
    melding = make_state(
        hands,
        phase="play",
        opened=[False, True],
        table=table,
        profile=pagat(DISPUTE_58="melding"),
    )
    closed = apply(melding, lay_off)
    assert closed.closer == 1 and closed.deal_scores == (79, 0)


@pytest.mark.parametrize(
    ("hand", "unmatched"),
    [
        ("9D 9H 9S KS 4C 2C 7H JD QH 3S 5S", 51),  # a trio set aside: 78 - 27
        ("3D 4D 5D 6D AH QS 8C 10H 2S 7C KC", 67),  # a run set aside: 85 - 18
        ("7C 8C JK 10C QD QH JK 5S 3H 3D KS", 21),  # a joker in each of two melds
        ("AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH", 0),  # the longest run
        ("AH 2C 4D 6S 8H 10C QS KH 9D 5C 7S", 91),  # nothing matches
        ("JK JK JK", 150),  # jokers alone form no meld
        ("", 0),
    ],
)
def test_dispute_60_unmatched_only_scores_the_least_deadwood(hand: str, unmatched: int) -> None:
    held = cards(hand) if hand else ()
    profile = pagat(DISPUTE_60="unmatched_only")
    assert deadwood_penalty(held, profile) == unmatched
    assert hand_score(held, profile) == unmatched
    # all_cards (SCORE-3): every card counts.
    assert hand_score(held, PAGAT) == PAGAT.penalty(held)


def test_the_adapter_serves_pagat_with_its_rulings() -> None:
    def ask(adapter: Adapter, **request: object) -> dict[str, object]:
        answer, _ = adapter.handle(json.dumps({"id": 1, **request}))
        return answer

    hello = ask(Adapter(rulings={"DISPUTE-57": "allowed"}), op="hello", protocol=1)
    assert "pagat" in hello["profiles"]  # type: ignore[operator]
    assert 5 in hello["players"]  # type: ignore[operator]
    rulings = hello["profile_rulings"]["pagat"]  # type: ignore[index]
    assert rulings["DISPUTE-57"] == "allowed" and rulings["DISPUTE-58"] == "discard"
    only = Adapter(profiles=["pagat"])
    assert ask(only, op="hello", protocol=1)["profiles"] == ["pagat"]
    fourteen = {"kind": "run", "cards": ["AS", *[f"{r}S" for r in "23456789"], "10S", "JS", "QS"]}
    fourteen["cards"] += ["KS", "AS"]
    answer = ask(only, op="check_meld", profile="pagat", meld=fourteen, initial=False)
    assert answer["valid"] is False


@pytest.mark.parametrize(
    "point", ["DISPUTE-57", "DISPUTE-58", "DISPUTE-59", "DISPUTE-60", "DISPUTE-79"]
)
def test_every_option_of_a_pagat_point_runs_from_the_command_line(point: str) -> None:
    for option in OPTIONS[point]:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "reference.adapter",
                "--profiles",
                "pagat",
                "--ruling",
                f"{point}={option}",
            ],
            input='{"id": 1, "op": "hello", "protocol": 1}\n',
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        hello = json.loads(done.stdout.splitlines()[0])
        assert hello["profile_rulings"]["pagat"][point] == option
