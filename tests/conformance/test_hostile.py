"""The hostile probes: malformed and borderline requests, each with the answer the protocol
requires (conformance/laws/hostile/), sent by ``smoke --hostile`` and ``run --hostile``."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conformance.adapter.declarations import declarations
from conformance.adapter.engine import EngineSession
from conformance.adapter.handshake import Handshake
from conformance.cli import main
from conformance.errors import EngineReportedError, ProtocolError
from conformance.grading.results import graded
from conformance.knowledge.catalogue import load_catalogue
from conformance.knowledge.optionfacts import with_packs
from conformance.knowledge.profiles import default_profiles
from conformance.laws.hostile import (
    HOSTILE_IDS,
    HOSTILE_PROBES,
    Ignored,
    MayRefuse,
    ProbeOutcome,
    Refused,
    Rejected,
    case_results,
    hostile_checks,
    probe_engine,
)
from conformance.laws.smoke import smoke
from tests.adapters import REFERENCE

#: An engine that answers is all these tests need: the reference answers in-process
#: (tests/adapters.py); the tests of what its process does run it as a process.
pytestmark = pytest.mark.usefixtures("reference_in_process")

FAKES = Path(__file__).resolve().parents[1] / "fake_adapters"


def lenient(*bugs: str) -> list[str]:
    """The reference behind a proxy with these bugs (tests/fake_adapters/lenient_proxy.py)."""
    return [sys.executable, str(FAKES / "lenient_proxy.py"), "--bugs", ",".join(bugs)]


def outcomes_of(argv: list[str], profile: str) -> dict[str, ProbeOutcome]:
    """Every probe's outcome against ``argv`` in ``profile``, by key."""
    with EngineSession(argv) as session:
        assert session.handshake is not None
        declared = declarations(session.handshake, profile, load_catalogue())
        facts = with_packs(default_profiles()[profile], declared.ruling)
        counts = [n for n in declared.players if n in facts.players]
        found = probe_engine(session, declared, facts, counts[0])
    return {outcome.probe.key: outcome for outcome in found}


def failed(outcomes: dict[str, ProbeOutcome]) -> set[str]:
    return {key for key, outcome in outcomes.items() if outcome.status == "fail"}


# -- the probe list -----------------------------------------------------------------------


def test_every_kind_the_protocol_names_is_probed() -> None:
    kinds = {type(probe.expect) for probe in HOSTILE_PROBES}
    assert kinds == {Refused, Rejected, Ignored, MayRefuse}
    keys = [probe.key for probe in HOSTILE_PROBES]
    assert len(keys) == len(set(keys))
    for wanted in (
        "unknown-op",
        "lay_off-without-end",
        "start_deal-cut-boolean",
        "start_deal-cut-float",
        "start_deal-deal-9",
        "check_contract-deal-9",
        "pass-before-drawing",
        "act-unknown-card",
        "penalty-extra-fields",
        # The impossible requests: decks, player counts and states.
        "start_deal-deck-third-copy",
        "next_deal-deck-missing-card",
        "redeal-deck-extra-joker",
        "start_deal-players-above",
        "new_game-players-below",
        "load_state-phase-unknown",
        "load_state-turn-opened-in-draw",
        "load_state-card-missing",
    ):
        assert wanted in keys
    # One capability per op family, each probe citing a section of docs/protocol.md.
    protocol = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()
    for probe in HOSTILE_PROBES:
        assert probe.capability in ("", "melds", "turns", "deals")
        number = probe.section.removeprefix("§")
        assert f"\n## {number}. " in protocol, probe.section
    graded_keys = [p.key for p in HOSTILE_PROBES if not isinstance(p.expect, MayRefuse)]
    assert tuple(f"hostile/{key}" for key in graded_keys) == HOSTILE_IDS


# -- the reference passes ------------------------------------------------------------------


def test_the_reference_answers_every_perla_probe_as_the_protocol_requires() -> None:
    found = outcomes_of(REFERENCE, "perla")
    # The states whose cards do not add up the reference refuses, as it may: information.
    assert {key: o.status for key, o in found.items() if o.status != "pass"} == {
        "load_state-card-missing": "info",
        "load_state-third-copy": "info",
    }
    assert found["load_state-card-missing"].detail.startswith("refused it")
    # Perla has steals and a cut: nothing is left out.
    assert len(found) == len(HOSTILE_PROBES)


def test_in_argentine_the_reference_passes_and_the_perla_only_probes_are_not_graded() -> None:
    found = outcomes_of(REFERENCE, "argentine")
    left = {key: (o.status, o.cause) for key, o in found.items() if o.status != "pass"}
    assert left == {
        "start_deal-cut-boolean": ("not_graded", "not_in_profile"),
        "start_deal-cut-float": ("not_graded", "not_in_profile"),
        # Argentine plays no steals (DISPUTE-29 forbidden): a pass is not an action there.
        "pass-before-drawing": ("not_graded", "option"),
        "pass-after-drawing": ("not_graded", "option"),
        "load_state-card-missing": ("info", None),
        "load_state-third-copy": ("info", None),
    }
    # Smoke counts neither cut probe (no argentine engine could be graded on one) nor the
    # information, and lists the passes as not graded.
    checks = hostile_checks(list(found.values()))
    name, ok, detail = checks[-1]
    informed = [check for check in checks if check[0].endswith("(information)")]
    assert [(n, o) for n, o, _ in informed] == [
        ("hostile load_state-card-missing (information)", True),
        ("hostile load_state-third-copy (information)", True),
    ]
    total = len(HOSTILE_PROBES) - 4
    assert (name, ok) == ("hostile", True)
    assert detail.startswith(f"{total - 2} of {total} probes answered as the protocol requires")
    assert (
        "2 not graded (pass-before-drawing, pass-after-drawing: pass serves steals only" in detail
    )
    assert "cut" not in detail


def test_smoke_hostile_passes_the_reference() -> None:
    result = smoke(REFERENCE, profile="perla", hostile=True)
    assert result.verdict == "engine_ok"
    summary = [check for check in result.checks if check.name == "hostile"]
    assert len(summary) == 1 and summary[0].ok
    graded_count = len(HOSTILE_IDS)
    assert summary[0].detail.startswith(f"{graded_count} of {graded_count}")


# -- an engine that accepts them fails, named ----------------------------------------------


def test_smoke_hostile_names_a_lay_off_without_end_and_a_non_boolean_cut() -> None:
    result = smoke(lenient("end", "cut"), profile="perla", hostile=True)
    # It talks: lax, not broken.
    assert result.verdict == "lax_adapter"
    assert set(result.failed) == {
        "hostile lay_off-without-end",
        "hostile start_deal-cut-boolean",
        "hostile start_deal-cut-float",
        "hostile",
    }
    details = {check.name: check.detail for check in result.checks}
    lay_off = details["hostile lay_off-without-end"]
    # The request, the answer and the protocol section.
    assert '{"op":"act","action":{"type":"lay_off","player":1,"card":"8S","meld":1}}' in lay_off
    assert 'answered {"accepted":true' in lay_off
    assert "protocol §6 requires an error of kind bad_request" in lay_off
    assert '"cut":true' in details["hostile start_deal-cut-boolean"]
    assert '"cut":23.0' in details["hostile start_deal-cut-float"]
    assert "protocol §10" in details["hostile start_deal-cut-float"]
    # Without --hostile the same engine looks fine: nothing malformed was sent.
    assert smoke(lenient("end", "cut"), profile="perla").verdict == "engine_ok"


@pytest.mark.parametrize(
    ("bug", "caught"),
    [
        ("end", {"lay_off-without-end"}),
        ("cut", {"start_deal-cut-boolean", "start_deal-cut-float"}),
        ("deal", {"start_deal-deal-9", "check_contract-deal-9"}),
        ("op", {"unknown-op"}),
        ("card", {"penalty-unknown-card"}),
        ("missing", {"new_game-without-seed"}),
        ("pass", {"pass-before-drawing", "pass-after-drawing"}),
        (
            "extra",
            {
                "check_meld-extra-fields",
                "penalty-extra-fields",
                "act-extra-fields",
                "start_deal-extra-fields",
            },
        ),
        (
            "deck",
            {
                f"{op}-deck-{kind}"
                for op in ("start_deal", "next_deal", "redeal")
                for kind in ("third-copy", "missing-card", "extra-joker")
            },
        ),
        (
            "players",
            {
                f"{op}-players-{side}"
                for op in ("start_deal", "new_game")
                for side in ("below", "above")
            },
        ),
        (
            "load",
            {
                "load_state-phase-unknown",
                "load_state-turn-past-players",
                "load_state-dealer-past-players",
                "load_state-turn-opened-in-draw",
                "load_state-turn-opened-not-opened",
                "load_state-opened-short",
                "load_state-opened-long",
            },
        ),
    ],
)
def test_each_kind_of_probe_catches_its_bug_and_no_other(bug: str, caught: set[str]) -> None:
    found = outcomes_of(lenient(bug), "perla")
    assert failed(found) == caught
    for key in caught:
        assert found[key].failure().startswith(found[key].probe.title)


# -- declarations are respected ------------------------------------------------------------


def test_a_melds_only_engine_is_sent_no_turns_or_deals_probe() -> None:
    found = outcomes_of([*REFERENCE, "--capabilities", "melds"], "perla")
    for probe in HOSTILE_PROBES:
        outcome = found[probe.key]
        if probe.capability in ("turns", "deals"):
            assert (outcome.status, outcome.cause, outcome.request) == (
                "not_graded",
                "capability",
                "",
            )
        else:
            assert outcome.status == "pass", probe.key


def test_an_engine_that_picks_run_ends_itself_is_not_sent_a_lay_off_without_end() -> None:
    found = outcomes_of([*REFERENCE, "--interface", "run_ends=engine"], "perla")
    assert (found["lay_off-without-end"].status, found["lay_off-without-end"].cause) == (
        "not_graded",
        "interface",
    )


def test_an_engine_ruling_out_steals_is_not_sent_a_pass() -> None:
    found = outcomes_of([*REFERENCE, "--ruling", "DISPUTE-64=forbidden"], "perla")
    for key in ("pass-before-drawing", "pass-after-drawing"):
        assert (found[key].status, found[key].cause) == ("not_graded", "option")


def test_probes_seat_the_fewest_players_the_engine_plays() -> None:
    found = outcomes_of([*REFERENCE, "--profile-players", "perla=5,6"], "perla")
    assert '"players":5' in found["start_deal-cut-float"].request
    # 5 players times 11 cards, plus one: the perfect cut, sent as a float.
    assert '"cut":56.0' in found["start_deal-cut-float"].request
    assert found["start_deal-cut-float"].status == "pass"


# -- grading, with a scripted engine -------------------------------------------------------


class Scripted:
    """A session whose answers come from ``answer(op, fields)``: a dict is a result, an
    exception is raised (an error answer, or misbehaviour)."""

    def __init__(self, answer: Callable[[str, dict[str, Any]], dict[str, Any]]) -> None:
        self.answer = answer
        self.validate_requests = True
        self.alive = True
        self.restarts = 0
        self.sent: list[str] = []

    def request(self, op: str, **fields: Any) -> dict[str, Any]:
        assert self.validate_requests is False, "hostile requests are sent unchecked"
        self.sent.append(op)
        return self.answer(op, fields)

    def restart(self) -> Handshake:
        self.restarts += 1
        return Handshake(1, "scripted", "1", "python", ("perla",), frozenset({"melds"}), {})


def run_scripted(engine: Scripted) -> dict[str, ProbeOutcome]:
    handshake = Handshake(1, "scripted", "1", "python", ("perla",), frozenset({"melds"}), {})
    declared = declarations(handshake, "perla", load_catalogue())
    facts = with_packs(default_profiles()["perla"], declared.ruling)
    found = probe_engine(engine, declared, facts, 2)  # type: ignore[arg-type]
    assert engine.validate_requests is True, "request checking is put back"
    return {outcome.probe.key: outcome for outcome in found}


def well_formed(op: str, fields: dict[str, Any]) -> dict[str, Any]:
    """Refuse exactly what a careful engine refuses, answer the rest."""
    if op == "check_meld":
        meld = fields.get("meld")
        if not isinstance(meld, dict) or not isinstance(fields.get("initial"), bool):
            raise EngineReportedError("bad_request", "check_meld needs meld and initial")
        if "1S" in meld["cards"]:
            raise EngineReportedError("bad_request", "unknown card code 1S")
        return {"valid": True}
    if op == "check_contract":
        if "melds" not in fields or not 1 <= fields["deal_number"] <= 8:
            raise EngineReportedError("bad_request", "bad check_contract")
        return {"valid": True}
    if op == "penalty":
        if "cards" not in fields or "11H" in fields["cards"]:
            raise EngineReportedError("bad_request", "bad penalty")
        return {"points": 33}
    raise EngineReportedError("bad_request", f"unknown op {op}")


def test_a_careful_melds_engine_passes_and_its_checks_are_put_back() -> None:
    found = run_scripted(Scripted(well_formed))
    melds = {p.key for p in HOSTILE_PROBES if p.capability in ("", "melds")}
    assert {k for k, o in found.items() if o.status == "pass"} == melds


def test_an_unsupported_answer_is_not_graded_but_for_an_op_the_protocol_lacks() -> None:
    def lacking(op: str, fields: dict[str, Any]) -> dict[str, Any]:
        raise EngineReportedError("unsupported", f"no {op}")

    found = run_scripted(Scripted(lacking))
    assert found["unknown-op"].status == "fail"
    assert (found["penalty-without-cards"].status, found["penalty-without-cards"].cause) == (
        "not_graded",
        "op",
    )
    checks = hostile_checks(list(found.values()))
    assert checks[-1][0] == "hostile" and checks[-1][1] is False


def test_a_refusal_the_well_formed_twin_gets_too_grades_nothing() -> None:
    def refuses_all(op: str, fields: dict[str, Any]) -> dict[str, Any]:
        if op == "shuffle_table":
            raise EngineReportedError("bad_request", "unknown op")
        raise EngineReportedError("bad_request", "I refuse everything")

    found = run_scripted(Scripted(refuses_all))
    assert found["unknown-op"].status == "pass"
    for key in ("check_meld-without-meld", "penalty-unknown-card"):
        assert found[key].status == "not_graded"
        assert "the well-formed request was refused too" in found[key].detail
    # Ignored fields cannot pass either: the answer with them is an error.
    assert found["penalty-extra-fields"].status == "fail"


def test_extra_fields_must_not_change_the_answer() -> None:
    def counts_fields(op: str, fields: dict[str, Any]) -> dict[str, Any]:
        answer = well_formed(op, {k: v for k, v in fields.items() if not k.startswith("x")})
        return {"points": len(fields)} if op == "penalty" else answer

    found = run_scripted(Scripted(counts_fields))
    assert found["penalty-extra-fields"].status == "fail"
    assert "without them it answered" in found["penalty-extra-fields"].detail
    assert found["check_meld-extra-fields"].status == "pass"


def test_a_result_to_an_op_the_protocol_lacks_is_named_as_such() -> None:
    def answers_anything(op: str, fields: dict[str, Any]) -> dict[str, Any]:
        if op == "shuffle_table":
            # What the session raises for a result no schema can read.
            raise ProtocolError("shuffle_table response: unknown op", pointer="/op")
        return well_formed(op, fields)

    found = run_scripted(Scripted(answers_anything))
    assert found["unknown-op"].status == "fail"
    assert found["unknown-op"].answer == "a result, not an error"


def test_a_protocol_breach_fails_the_probe_and_restarts_the_session() -> None:
    def breaks(op: str, fields: dict[str, Any]) -> dict[str, Any]:
        if op == "shuffle_table":
            raise ProtocolError("answer to shuffle_table: unknown op")
        return well_formed(op, fields)

    engine = Scripted(breaks)
    found = run_scripted(engine)
    assert found["unknown-op"].status == "fail"
    assert "ProtocolError" in found["unknown-op"].answer
    assert engine.restarts == 1
    assert found["penalty-without-cards"].status == "pass"


# -- nothing graded is no pass ---------------------------------------------------------------


def test_probes_not_graded_are_no_pass_in_smoke_or_in_a_run() -> None:
    skipped = [
        ProbeOutcome(probe, "not_graded", detail="the engine does not claim it", cause="capability")
        for probe in HOSTILE_PROBES
    ]
    (summary,) = hostile_checks(skipped)
    assert summary[1] is False and "none graded" in summary[2]
    cases = case_results(skipped)
    assert {case.status for case in cases} == {"unsupported"}
    counted = graded(cases)
    assert (counted.graded, counted.passed, counted.not_graded) == (
        0,
        0,
        {"capability": len(HOSTILE_IDS)},
    )


# -- run --hostile ------------------------------------------------------------------------


def run_cli(argv: list[str], tmp_path: Path, *extra: str) -> tuple[int, dict[str, Any], str]:
    report, junit = tmp_path / "report.json", tmp_path / "junit.xml"
    code = main(
        [
            "run",
            "--adapter",
            " ".join(argv),
            "--profile",
            "perla",
            "--rule",
            "PERLA-CUT",
            "--hostile",
            "--json",
            str(report),
            "--junit",
            str(junit),
            *extra,
        ]
    )
    return code, json.loads(report.read_text()), junit.read_text()


def test_run_hostile_grades_the_probes_as_a_section_of_their_own(tmp_path: Path) -> None:
    code, report, junit = run_cli(lenient("end", "cut"), tmp_path)
    assert code == 1
    cases = {case["id"]: case for case in report["cases"] if case["section"] == "hostile"}
    assert set(cases) == set(HOSTILE_IDS)
    failing = {case_id for case_id, case in cases.items() if case["status"] == "fail"}
    assert failing == {
        "hostile/lay_off-without-end",
        "hostile/start_deal-cut-boolean",
        "hostile/start_deal-cut-float",
    }
    lay_off = cases["hostile/lay_off-without-end"]
    assert lay_off["checks"][0]["rules"] == ["protocol §6"]
    assert "protocol §6 requires an error of kind bad_request" in lay_off["checks"][0]["diff"]
    assert 'name="hostile/lay_off-without-end' in junit
    # Counted in the graded checks like any case's.
    checks = [check for case in report["cases"] for check in case["checks"]]
    assert sum(check["status"] == "fail" for check in checks) == 3


def test_run_hostile_passes_the_reference_and_its_failures_can_be_expected(
    tmp_path: Path,
) -> None:
    code, report, _ = run_cli(REFERENCE, tmp_path)
    assert code == 0
    assert {c["status"] for c in report["cases"] if c["section"] == "hostile"} == {"pass"}
    expected = tmp_path / "expected.yaml"
    code, _, _ = run_cli(lenient("end"), tmp_path, "--write-expectations", str(expected))
    assert code == 1 and "hostile/lay_off-without-end" in expected.read_text()
    code, report, _ = run_cli(lenient("end"), tmp_path, "--expectations", str(expected))
    assert code == 0
    statuses = {c["id"]: c["status"] for c in report["cases"]}
    assert statuses["hostile/lay_off-without-end"] == "xfail"


# -- impossible requests ----------------------------------------------------------------------


def test_smoke_hostile_names_each_impossible_request_a_lax_engine_accepts() -> None:
    result = smoke(lenient("deck", "players", "load"), profile="pagat", hostile=True)
    assert result.verdict == "lax_adapter"
    details = {check.name: check.detail for check in result.checks if not check.ok}
    # A third copy dealt, named with its deck shortened and the section that forbids it.
    third = details["hostile start_deal-deck-third-copy"]
    assert (
        '"deck":"[108 cards]"' in third
        and "protocol §1 requires an error of kind bad_request" in third
    )
    # The newcomer's `players: 6` in pagat, answered unsupported.
    above = details["hostile start_deal-players-above"]
    assert '"players":6' in above and "answered error unsupported" in above
    bogus = details["hostile load_state-phase-unknown"]
    assert (
        '"phase":"bogus"' in bogus
        and "protocol §5 requires an error of kind invalid_state" in bogus
    )


def test_unsupported_to_a_count_outside_the_profile_from_an_engine_lacking_the_op() -> None:
    def no_deals(op: str, fields: dict[str, Any]) -> dict[str, Any]:
        raise EngineReportedError("unsupported", f"no {op}")

    handshake = Handshake(
        1, "scripted", "1", "python", ("pagat",), frozenset({"turns", "deals"}), {}
    )
    declared = declarations(handshake, "pagat", load_catalogue())
    facts = with_packs(default_profiles()["pagat"], declared.ruling)
    found = {o.probe.key: o for o in probe_engine(Scripted(no_deals), declared, facts, 2)}  # type: ignore[arg-type]
    # The well-formed twin is refused too: the engine lacks new_game, not the count.
    assert (found["new_game-players-above"].status, found["new_game-players-above"].cause) == (
        "not_graded",
        "op",
    )


@pytest.mark.parametrize("refuses", [True, False])
def test_a_state_that_does_not_add_up_is_information_whether_loaded_or_refused(
    refuses: bool,
) -> None:
    argv = REFERENCE if refuses else lenient("load")
    found = outcomes_of(argv, "argentine")
    outcome = found["load_state-card-missing"]
    assert outcome.status == "info"
    if refuses:
        assert outcome.detail.startswith("refused it")
    # Never a run's case, and never a failed smoke check.
    assert "hostile/load_state-card-missing" not in HOSTILE_IDS
    assert all(
        case.id != "hostile/load_state-card-missing" for case in case_results(list(found.values()))
    )


def test_a_state_refused_with_another_error_kind_fails_even_where_refusing_is_free() -> None:
    def wrong_kind(op: str, fields: dict[str, Any]) -> dict[str, Any]:
        state = fields.get("state", {})
        cards = [*state.get("stock", []), *state.get("discard", [])]
        cards += [card for hand in state.get("hands", []) for card in hand]
        if op == "load_state" and len(cards) != 108:
            raise EngineReportedError("bad_request", f"{len(cards)} cards")
        return {"state": state}

    handshake = Handshake(1, "scripted", "1", "python", ("perla",), frozenset({"turns"}), {})
    declared = declarations(handshake, "perla", load_catalogue())
    facts = with_packs(default_profiles()["perla"], declared.ruling)
    found = {o.probe.key: o for o in probe_engine(Scripted(wrong_kind), declared, facts, 2)}  # type: ignore[arg-type]
    assert found["load_state-card-missing"].status == "fail"
    assert (
        "if it refuses, the error is of kind invalid_state"
        in found["load_state-card-missing"].detail
    )


def test_the_smoke_command_calls_an_engine_that_takes_impossible_requests_lax(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(
        ["smoke", "--hostile", "--profile", "pagat", "--adapter", " ".join(lenient("load"))]
    )
    out = capsys.readouterr().out
    # It talks: exit 1 (a failure), never 3 (an adapter that cannot start or shake hands).
    assert code == 1
    assert "verdict: lax_adapter" in out and "broken_adapter" not in out
    assert "FAIL hostile load_state-turn-past-players:" in out
