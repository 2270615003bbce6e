"""smoke(): a verdict on whether an adapter speaks the protocol, never on the rules."""

from __future__ import annotations

import importlib.util
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from conformance.laws.smoke import SmokeResult, canonical_deck, probe_state, smoke

#: An engine that answers is all these tests need: the reference answers in-process
#: (tests/adapters.py); the tests of what its process does run it as a process.
pytestmark = pytest.mark.usefixtures("reference_in_process")

FAKE = [
    sys.executable,
    str(Path(__file__).resolve().parents[1] / "fake_adapters" / "fake_adapter.py"),
]
#: The time limit for fake adapters that answer at once: generous, so a loaded CI machine
#: never turns a prompt answer into a timeout (a test of a hang sets its own limit).
PATIENT = 30.0


def by_name(result: SmokeResult) -> dict[str, bool]:
    return {check.name: check.ok for check in result.checks}


def test_a_correct_adapter_is_ok() -> None:
    result = smoke(FAKE, timeout=PATIENT)
    assert result.verdict == "engine_ok"
    assert by_name(result) == {
        "started": True,
        "handshake": True,
        "rulings": True,
        "capability melds": True,
        "capability reasons": True,
        "capability turns": True,
        "capability deals": True,
        "players": True,
    }
    assert result.handshake is not None and result.handshake.name == "fake"
    assert result.failed == ()


def test_only_claimed_capabilities_are_probed() -> None:
    result = smoke([*FAKE, "--capabilities", "melds"], timeout=PATIENT)
    assert result.verdict == "engine_ok"
    assert [check.name for check in result.checks] == [
        "started",
        "handshake",
        "rulings",
        "capability melds",
    ]


def test_missing_binary_is_a_broken_adapter() -> None:
    result = smoke(["/nonexistent/carioca-adapter-xyz"], timeout=PATIENT)
    assert result.verdict == "broken_adapter"
    assert by_name(result) == {"started": False}
    assert "EngineStartError" in result.checks[0].detail


def test_version_mismatch_is_a_broken_adapter() -> None:
    result = smoke([*FAKE, "--protocol", "2"], timeout=PATIENT)
    assert result.verdict == "broken_adapter"
    assert by_name(result) == {"started": True, "handshake": False}
    assert "version mismatch" in result.checks[1].detail
    assert "fake adapter got hello" in result.stderr_tail


def test_a_malformed_answer_fails_its_capability_and_the_rest_still_run() -> None:
    result = smoke([*FAKE, "--wrong-shape-on", "penalty"], timeout=PATIENT)
    assert result.verdict == "broken_adapter"
    assert result.failed == ("capability melds",)
    # The session was restarted after the protocol error, so later probes ran.
    assert by_name(result)["capability turns"] is True
    assert by_name(result)["capability deals"] is True


def test_a_crash_in_one_probe_is_contained() -> None:
    result = smoke([*FAKE, "--exit-on", "load_state"], timeout=PATIENT)
    assert result.failed == ("capability turns",)
    assert "EngineCrashed" in dict((c.name, c.detail) for c in result.checks)["capability turns"]
    assert by_name(result)["capability deals"] is True


def test_a_hanging_probe_is_bounded() -> None:
    started = time.monotonic()
    # The limit covers the start and every other probe too: 10 s lets a machine loaded
    # tenfold answer them all (3 s did not, at a load of 25 on 2 cores); the hang costs it once.
    result = smoke([*FAKE, "--hang-on", "start_deal"], timeout=10.0)
    assert time.monotonic() - started < 120  # bounded, however loaded the machine
    assert result.failed == ("capability deals",)
    details = {check.name: check.detail for check in result.checks}
    assert "EngineTimeout" in details["capability deals"]


def test_an_error_answer_to_a_claimed_op_is_broken() -> None:
    result = smoke([*FAKE, "--error-on", "act"], timeout=PATIENT)
    assert result.failed == ("capability turns",)


def test_claiming_reasons_without_giving_one() -> None:
    result = smoke([*FAKE, "--capabilities", "melds,reasons", "--invalid-melds"], timeout=PATIENT)
    assert result.failed == ("capability reasons",)
    assert "without a reason" in result.checks[-1].detail


def test_deals_without_turns_is_flagged() -> None:
    result = smoke([*FAKE, "--capabilities", "melds,deals"], timeout=PATIENT)
    assert result.verdict == "broken_adapter"
    assert by_name(result)["capabilities"] is False


def test_probe_state_accounts_for_all_108_cards() -> None:
    # 000 §01: two 52-card packs and four jokers; §04: 11 cards each in deal 1.
    state = probe_state()
    cards = [c for hand in state["hands"] for c in hand] + state["stock"] + state["discard"]
    assert len(cards) == 108
    counts = Counter(cards)
    assert counts["JK"] == 4
    assert all(n == 2 for code, n in counts.items() if code != "JK")
    assert [len(hand) for hand in state["hands"]] == [11, 11]
    assert Counter(canonical_deck()) == counts


@pytest.mark.skipif(
    importlib.util.find_spec("reference.adapter") is None, reason="reference adapter not present"
)
def test_the_reference_adapter_passes_smoke() -> None:
    result = smoke([sys.executable, "-m", "reference.adapter"], timeout=PATIENT)
    assert result.verdict == "engine_ok", result.checks
    # It takes requests as they come: smoke sends two at once, as run does.
    assert by_name(result)["in flight"] is True


@pytest.mark.parametrize(
    ("profile", "ruling"),
    [("chilean", "DISPUTE-78=always_108"), ("perla", "DISPUTE-61=two_jokers")],
)
def test_an_engine_playing_another_pack_is_probed_with_its_pack(profile: str, ruling: str) -> None:
    # Its states and decks hold the cards its rulings give (108 for every Chilean count, 106
    # for a perla game with two jokers), as run deals them: a probe of the profile's own pack
    # would be refused by an honest engine and called a broken adapter.
    argv = [sys.executable, "-m", "reference.adapter", "--ruling", ruling]
    result = smoke(argv, timeout=PATIENT, profile=profile)
    assert result.verdict == "engine_ok", result.checks
    assert by_name(result)["capability deals"] is True


# A stub engine for the adapter example of docs/writing-an-adapter.md: only
# its penalty is real (000 §07), enough to show the adapter round-trips.
STUB_ENGINE = """
VALUES = {"J": 10, "Q": 10, "K": 10, "A": 20}


def check_meld(kind, cards, initial):
    return kind in ("trio", "run")


def check_contract(deal_number, melds):
    return True


def penalty(cards):
    return sum(50 if c == "JK" else VALUES.get(c[:-1]) or int(c[:-1]) for c in cards)
"""


def test_the_adapter_example_in_the_docs_passes_smoke(tmp_path: Path) -> None:
    doc = Path(__file__).resolve().parents[2] / "docs" / "writing-an-adapter.md"
    text = doc.read_text(encoding="utf-8")
    block = text.split("<!-- adapter-example:start -->")[1].split("<!-- adapter-example:end -->")[0]
    code = block.split("```python\n", 1)[1].rsplit("```", 1)[0]
    assert 30 <= len(code.splitlines()) <= 60  # the doc promises a short example
    (tmp_path / "my_adapter.py").write_text(code, encoding="utf-8")
    (tmp_path / "mycarioca.py").write_text(STUB_ENGINE, encoding="utf-8")
    result = smoke([sys.executable, str(tmp_path / "my_adapter.py")], timeout=PATIENT)
    assert result.verdict == "engine_ok", result.checks
    assert result.handshake is not None and result.handshake.capabilities == {"melds"}
    assert "penalty points=33" in result.checks[-1].detail


def test_rulings_outside_the_catalogue_are_flagged() -> None:
    # The most common handshake slip: an engine's own word for an option.
    rulings = '{"DISPUTE-19": "allowed", "DISPUTE-01": "own_opening"}'
    result = smoke([*FAKE, "--rulings", rulings], timeout=PATIENT)
    assert result.verdict == "broken_adapter"
    (check,) = [c for c in result.checks if c.name == "rulings"]
    assert not check.ok and "DISPUTE-01: 'own_opening' is not one of its options" in check.detail


# --- player counts and the op actually sent -----------------------------------------------------

HOUSE = [
    sys.executable,
    str(Path(__file__).resolve().parents[1] / "fake_adapters" / "house_engine.py"),
]


def checks_of(result: SmokeResult) -> dict[str, str]:
    return {check.name: check.detail for check in result.checks}


def test_an_engine_declaring_three_to_five_players_passes_and_is_probed_at_each() -> None:
    result = smoke([*HOUSE, "--plays", "3,4,5", "--declare-players", "3,4,5"], profile="chilean")
    assert result.verdict == "engine_ok", result.checks
    details = checks_of(result)
    assert "players in chilean 3, 4, 5;" in details["handshake"]
    assert details["players"] == "chilean: start_deal seats 3, 4, 5 players"


def test_a_count_one_capability_seats_does_not_stop_another_from_trying_the_next() -> None:
    """An engine that loads a 2-player state but deals only 3 or more: the deal ops answer
    unsupported at 2 and are tried again at 3, so the engine is not called broken."""
    result = smoke([*HOUSE, "--deals-from", "3"])
    assert result.verdict == "engine_ok", result.checks
    details = checks_of(result)
    assert details["capability turns"].startswith("load_state phase=draw")
    assert "start_deal phase=draw" in details["capability deals"]
    assert details["players"].startswith("argentine: start_deal seats 3, 4 players;")
    assert "unsupported at 2 players" in details["players"]


def test_an_engine_declaring_no_counts_but_playing_three_to_five_is_not_broken() -> None:
    """Declaring nothing means every count of the profile (docs/protocol.md §2); a count
    it answers unsupported is noted and the next is probed, as cases are graded."""
    result = smoke([*HOUSE, "--plays", "3,4,5", "--declare-players", "none"])
    assert result.verdict == "engine_ok", result.checks
    details = checks_of(result)
    # The profile's counts, not the union of every profile the engine lists (2 to 8).
    assert "players in argentine 2, 3, 4;" in details["handshake"]
    assert (
        "answered unsupported at 2 players (this engine deals 3, 4, 5 players)"
        in (details["players"])
    )
    assert "start_deal seats 3, 4 players" in details["players"]
    assert not any(name.startswith("op ") for name in details)  # no op is lacking


def test_an_engine_declaring_no_counts_but_playing_two_to_six_passes() -> None:
    result = smoke([*HOUSE, "--plays", "2,3,4,5,6", "--declare-players", "none"], profile="perla")
    assert result.verdict == "engine_ok", result.checks
    details = checks_of(result)
    assert "start_deal seats 2, 3, 4, 5, 6 players" in details["players"]
    assert "unsupported at 7 players" in details["players"]
    assert "8 players" in details["players"]


def test_an_engine_that_breaks_at_one_count_it_plays_is_a_broken_adapter() -> None:
    result = smoke([*HOUSE, "--fails-at", "4"])
    assert result.verdict == "broken_adapter"
    assert result.failed == ("players",)
    assert "start_deal with 4 players: EngineReportedError" in checks_of(result)["players"]


def test_an_engine_playing_no_count_at_all_is_a_broken_adapter() -> None:
    result = smoke([*HOUSE, "--plays", "7", "--declare-players", "none"])
    assert result.verdict == "broken_adapter"
    assert "capability turns" in result.failed
    assert checks_of(result)["capability turns"].startswith(
        "answered unsupported at every argentine player count it plays: 2 players (this "
        "engine deals 7 players); 3 players"
    )


def test_an_unsupported_set_up_op_is_shown_against_the_op_that_got_it() -> None:
    """The redeal and next_deal probes send start_deal first: when start_deal answers
    unsupported, they were not probed, and the message says so, naming start_deal."""
    proxy = Path(__file__).resolve().parents[1] / "fake_adapters" / "real_engine_proxy.py"
    result = smoke([sys.executable, str(proxy), "--unsupported", "start_deal"], timeout=10.0)
    assert result.verdict == "engine_ok", result.checks
    details = checks_of(result)
    assert details["op start_deal"].startswith("answered unsupported (no start_deal here)")
    for op in ("redeal", "next_deal"):
        assert details[f"op {op}"].startswith(
            "not probed: start_deal, sent to set it up, answered unsupported (no start_deal here)"
        ), details[f"op {op}"]
    assert "new_game phase=draw" in details["capability deals"]
    assert details["players"] == "argentine: load_state seats 2, 3, 4 players"


# -- requests in flight (the handshake's max_in_flight) ---------------------------------


def test_an_engine_taking_two_requests_at_a_time_is_sent_two_at_once() -> None:
    result = smoke([*FAKE, "--max-in-flight", "2"], timeout=PATIENT)
    assert result.verdict == "engine_ok"
    (check,) = [c for c in result.checks if c.name == "in flight"]
    assert check.ok and "2 penalty requests written together" in check.detail
    handshake = next(c for c in result.checks if c.name == "handshake")
    assert "max_in_flight 2" in handshake.detail
    # Without the declaration the engine is sent one at a time, and nothing is probed.
    assert "in flight" not in by_name(smoke(FAKE, timeout=PATIENT))


def test_an_engine_that_loses_a_request_sent_in_flight_is_a_broken_adapter(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from conformance.adapter.engine import Handshake
    from conformance.errors import ProtocolError
    from conformance.knowledge.profiles import default_profiles
    from conformance.laws import smoke as smoke_module
    from conformance.laws.smoke import _probe_in_flight

    class OneAtATime:
        """Takes the first request of a pair and answers the second with garbage."""

        ahead_limit = 2
        alive = True
        handshake = Handshake(
            1, "stub", "0", "python", ("argentine",), frozenset(), max_in_flight=2
        )

    def together(session: object, requests: list[object]) -> list[dict[str, int]]:
        assert isinstance(session, OneAtATime) and len(requests) == 2
        raise ProtocolError('answer is not JSON: b\'{"id": 3}{"id": 4}\'')

    monkeypatch.setattr(smoke_module, "exchange_together", together)

    checks = _probe_in_flight(
        OneAtATime(),  # type: ignore[arg-type]
        frozenset({"melds"}),
        2,
        default_profiles()["argentine"],
    )
    assert [(c.name, c.ok) for c in checks] == [("in flight", False)]
    assert "declares max_in_flight 2" in checks[0].detail
    assert "not answered in turn" in checks[0].detail and "not JSON" in checks[0].detail
