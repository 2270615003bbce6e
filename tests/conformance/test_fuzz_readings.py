"""The reference asked again (conformance/fuzz/readings.py): a resync that takes the
engine's state keeps what the protocol state cannot say, and a second fault the reference
names once its first is mended makes a reason difference a matter of order."""

from __future__ import annotations

import random
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import jsonschema
import pytest

from conformance.adapter.engine import EngineSession
from conformance.errors import EngineReportedError
from conformance.fuzz.campaign import FuzzResult, split_information
from conformance.fuzz.command import verdict
from conformance.fuzz.model import Divergence, Finding, FuzzOptions, Occurrence, SetupRefused, Trace
from conformance.fuzz.pair import Pair
from conformance.fuzz.readings import run_arrangements, take_engine_state
from conformance.fuzz.report import report_dict, summary
from conformance.fuzz.states import built_state
from tests.conformance.fuzzkit import CATALOGUE, HOUSE, REFERENCE, ROOT, SCHEMA, run_fuzz

#: An engine that answers is all these tests need: the reference answers in-process
#: (tests/adapters.py); the tests of what its process does run it as a process.
pytestmark = pytest.mark.usefixtures("reference_in_process")


@contextmanager
def pair_of(argv: list[str], profile: str) -> Iterator[Pair]:
    pair = Pair(argv, FuzzOptions(profile=profile), CATALOGUE)
    try:
        yield pair
    finally:
        pair.close()


def _answers(session: Any, state: dict[str, Any], actions: list[dict[str, Any]]) -> list[Any]:
    """What ``session`` answers to each action, put to ``state`` afresh each time."""
    out = []
    for action in actions:
        session.request("load_state", state=state)
        try:
            answer = session.request("act", action=action)
        except EngineReportedError as exc:
            out.append(("error", exc.kind))
            continue
        out.append((answer.get("accepted"), answer.get("reason")))
    return out


def _probes(state: dict[str, Any]) -> list[dict[str, Any]]:
    """Every player's steal and pass, and the mover's discard and second draw."""
    turn, players = state["turn"], state["players"]
    probes: list[dict[str, Any]] = []
    for p in range(players):
        probes += [{"type": "draw_discard", "player": p}, {"type": "pass", "player": p}]
    card = next(c for c in state["hands"][turn] if c != "JK")
    probes += [
        {"type": "discard", "player": turn, "card": card},
        {"type": "draw_stock", "player": turn},
    ]
    return probes


def _other_stock(state: dict[str, Any]) -> dict[str, Any] | None:
    stock = list(state["stock"])
    if len(set(stock)) < 2:
        return None
    return {**state, "stock": stock[1:] + stock[:1]}  # a recycle in the engine's order


def _other_listing(state: dict[str, Any]) -> dict[str, Any] | None:
    table = [dict(m) for m in state["table"]]
    for meld in table:
        if meld["kind"] != "run":
            continue
        others = [a for a in run_arrangements(meld["cards"]) if a != meld["cards"]]
        if others:
            meld["cards"] = others[0]  # the engine's own listing (run order, run ends)
            return {**state, "table": table}
    return None


def _other_first_player(state: dict[str, Any]) -> dict[str, Any] | None:
    return {**state, "dealer": (state["dealer"] + 1) % state["players"]}  # its own dealer


#: The resyncs: the engine's recycled order, its own listing of a run (after its own run
#: order or its own lay-off end), its own first player (unmodelled dealer).
RESYNCS: dict[str, Callable[[dict[str, Any]], dict[str, Any] | None]] = {
    "recycled order": _other_stock,
    "run order and run ends": _other_listing,
    "own first player": _other_first_player,
}


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(RESYNCS))
def test_every_resync_leaves_the_references_answers_unchanged(kind: str) -> None:
    """After the mover drew from the stock a Perla steal is open (PERLA-STEAL-1), which no
    protocol field says; a resync taking the engine's state must keep it, and the chance
    that anyone in the deal has drawn (DEAL-6), so that every answer stays as it was."""
    perturb = RESYNCS[kind]
    checked = 0
    with pair_of([*REFERENCE], "perla") as pair:
        control = EngineSession([*REFERENCE], cwd=str(ROOT), timeout=20)
        control.start()
        try:
            for seed in range(40):
                rng = random.Random(f"resync:{seed}")
                players = rng.choice([3, 4])
                state = built_state(
                    rng, players, rng.randint(1, 4), 0, [0] * players, "perla", careful=True
                )
                try:
                    pair.setup({"op": "load_state", "state": state})
                except SetupRefused:  # a built state the reference refuses: try another
                    continue
                turn = pair.ref_state["turn"]
                if pair.step(
                    {"op": "act", "action": {"type": "draw_stock", "player": turn}}, deal_mode=False
                ):
                    continue
                before = dict(pair.ref_state)
                if not before.get("discard") or before["phase"] != "play":
                    continue
                engine = perturb(before)
                if engine is None:
                    continue
                pair.eng_state = {k: v for k, v in engine.items() if k != "x"}
                take_engine_state(pair, allowed=True)
                assert pair.ref_state.get("x") == before.get("x"), kind
                # The engine's state is the reference's now, but for what the protocol
                # leaves it; the reference answers every probe as it did before.
                probes = _probes(before)
                want = _answers(control, {**before, "profile": "perla"}, probes)
                got = _answers(pair.reference, {**pair.ref_state, "profile": "perla"}, probes)
                assert got == want, (kind, seed)
                assert (True, None) in want  # a steal was open: someone may take the card
                checked += 1
        finally:
            control.close()
    assert checked >= 3, f"{kind}: only {checked} states tried"


@pytest.mark.slow
def test_a_perla_engine_recycling_in_its_own_order_fuzzes_clean_past_a_steal() -> None:
    """The false finding of a recycle: with DISPUTE-75 recycle declared, game 15 of seed 3
    recycles in the engine's order and a steal follows; the reference must not refuse it."""
    argv = [*HOUSE, "--recycle-order", "--ruling", "DISPUTE-75=recycle"]
    result = run_fuzz(argv, games=16, seed=3, only_games=(15,), max_steps=120, profile="perla")
    assert result.events.get("recycle", 0) >= 1
    assert result.findings == [], [f.divergence.summary for f in result.findings]


def test_a_reason_difference_with_both_reasons_true_is_filed_as_their_order() -> None:
    with pair_of([*REFERENCE], "argentine") as pair:
        rng = random.Random("reason order")
        while True:  # a state whose stock holds a card the next player lacks
            state = built_state(rng, 3, 1, 0, [0, 0, 0], "argentine")
            other = (state["turn"] + 1) % 3
            spare = [c for c in state["stock"] if c not in state["hands"][other]]
            if spare:
                break
        assert pair.setup({"op": "load_state", "state": state}) is None
        before = dict(pair.ref_state)
        card = spare[0]
        action = {"type": "discard", "player": other, "card": card}
        # Out of turn, before the draw, and a card not held: all three are true.
        assert pair.reason_order(before, action, "not_your_turn", "card_not_in_hand") == (
            "TURN-1",
            "TURN-10",
        )
        assert pair.reason_order(before, action, "not_your_turn", "draw_first") == (
            "TURN-1",
            "TURN-2",
        )
        # A reason that is not true of the state is a reason divergence.
        assert pair.reason_order(before, action, "not_your_turn", "does_not_fit") is None
        mine = {**action, "player": before["turn"], "card": before["hands"][before["turn"]][0]}
        assert pair.reason_order(before, mine, "draw_first", "card_not_in_hand") is None
        # The reference is left holding the state it held.
        assert pair.reference.request("act", action=action)["state"] == pair.ref_state


QUIET = [sys.executable, str(ROOT / "tests" / "fake_adapters" / "quiet_rulings.py")]
#: A 14-card spade run from the 2 to the high ace with the 5 twice: too long for pagat
#: (PAGAT-RUN-4) and not one sequence (MELD-RUN-6).
LONG_WITH_A_GAP = {
    "kind": "run",
    "cards": ["2S", "3S", "4S", "5S", "5S", "6S", "7S", "8S", "9S", "10S", "JS", "QS", "KS", "AS"],
}


def test_a_pagat_run_too_long_and_with_a_gap_gives_both_reasons_as_information() -> None:
    # The engine plays 000's 14-card runs without saying so: it names the gap, the reference
    # the length; both are true of the meld (docs/reasons.md), so it is no finding.
    with pair_of([*QUIET, "--ruling", "DISPUTE-57=allowed"], "pagat") as pair:
        query = {
            "query": "check_meld",
            "meld": LONG_WITH_A_GAP,
            "initial": False,
            "profile": "pagat",
        }
        found, ref = pair.query(query)
    assert ref["reason"] == "run_size"
    assert found is not None and found.kind == "reason order"
    assert found.rules[0] == "PAGAT-RUN-4" and "MELD-RUN-6" in found.rules
    assert found.also_fair == ("run_gap",)


def test_the_second_fault_of_a_run_too_long_is_found_by_taking_a_card_off() -> None:
    # What files a finding on such a meld under both rules, and makes a reason difference
    # on it information: the fault left once the run is short enough.
    with pair_of([*REFERENCE], "pagat") as pair:
        query = {"meld": LONG_WITH_A_GAP, "initial": False, "profile": "pagat"}
        ref = pair.reference.request("check_meld", **query)
        assert pair.second_fault("check_meld", query, ref) == "run_gap"
        # Ace to ace with no gap is too long and nothing else: one fault.
        whole = ["AS", *LONG_WITH_A_GAP["cards"][:3], *LONG_WITH_A_GAP["cards"][4:]]
        query = {"meld": {"kind": "run", "cards": whole}, "initial": False, "profile": "pagat"}
        ref = pair.reference.request("check_meld", **query)
        assert ref["reason"] == "run_size"
        assert pair.second_fault("check_meld", query, ref) is None


def test_reason_order_is_information_and_never_a_finding() -> None:
    def found(kind: str) -> Finding:
        div = Divergence("TURN-1", "discard", kind, f"a {kind}", [], rules=("TURN-1", "TURN-10"))
        occ = Occurrence(0, div, Trace({"op": "query", "query": "penalty", "cards": []}), {})
        return Finding(div, 1, [0], occ)

    findings, information = split_information([found("reason order"), found("reason")])
    assert [f.divergence.kind for f in findings] == ["reason"]
    assert [f.divergence.kind for f in information] == ["reason order"]
    with pair_of([*REFERENCE], "argentine") as pair:
        engine = pair.handshake.as_dict()
    options = FuzzOptions()
    result = FuzzResult(engine, [], [], {}, options, information=information, compared=1)
    report = report_dict(result)
    jsonschema.validate(report, SCHEMA)
    assert report["totals"]["information"] == 1 and report["findings"] == []
    assert verdict(report)[0] == 0, "information must not fail the campaign"
    assert "information, not findings" in summary(report)
