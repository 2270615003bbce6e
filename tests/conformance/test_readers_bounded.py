"""Every number and text the harness writes stays readable by its own readers, and every
reader of input (expectations, rulings, recorded drafts, the load cache) is bounded: bad
input is one line naming the file and where, never a traceback (docs/robustness.md)."""

from __future__ import annotations

import json
import re
import shlex
import sys
from pathlib import Path

import pytest

from conformance import fuzz
from conformance.authoring.record import RecordError, record_to_file
from conformance.cli import main
from conformance.fuzz.merge import MAX_MERGED_COUNT
from conformance.io.jsonsafe import MAX_INT_DIGITS
from conformance.run.expectations import (
    MAX_REASON_CHARS,
    MAX_REASONS_TOTAL,
    ExpectationsError,
    load_expectations,
    write_expectations,
)
from conformance.run.selection import MAX_SHARDS, SelectionError, parse_shard
from tests.conformance.test_fuzz_merge import shard
from tests.paths import ROOT

DATA = Path(__file__).parent / "data"
PROXY = shlex.join([sys.executable, str(ROOT / "tests" / "fake_adapters" / "declaring_proxy.py")])


def errors(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("error: ")]


# --- numbers the harness writes -----------------------------------------------------------


def test_the_protocol_bounds_max_in_flight_where_the_report_reads_it() -> None:
    from conformance.adapter.protocol import validate_response
    from conformance.errors import ProtocolError
    from conformance.io.validation import SchemaValidator

    hello = json.loads(
        (ROOT / "conformance" / "schemas" / "protocol" / "hello.response.json").read_text()
    )
    report = json.loads((ROOT / "conformance" / "schemas" / "report.schema.json").read_text())
    most = hello["properties"]["max_in_flight"]["maximum"]
    # The report reads back what the handshake let through, and no more.
    assert len(str(most)) <= MAX_INT_DIGITS
    assert SchemaValidator(report).best_error({}) is not None  # the validator is strict
    answer = {
        "id": 1,
        "protocol": 1,
        "implementation": {"name": "e", "version": "1", "language": "py"},
        "profiles": ["argentine"],
        "capabilities": ["melds"],
    }
    validate_response("hello", {**answer, "max_in_flight": most})
    with pytest.raises(ProtocolError, match="/max_in_flight"):
        validate_response("hello", {**answer, "max_in_flight": most + 1})
    with pytest.raises(ProtocolError, match="/max_in_flight"):
        validate_response("hello", {**answer, "max_in_flight": 10**100})


@pytest.mark.slow  # starts an adapter through a proxy and the reference
def test_a_handshake_declaring_a_huge_max_in_flight_is_refused_before_any_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hello = json.dumps({"max_in_flight": 10**100})
    adapter = f"{PROXY} --hello {shlex.quote(hello)}"
    report = tmp_path / "r.json"
    assert main(["run", "--adapter", adapter, "--rule", "MELD-RUN", "--json", str(report)]) == 3
    [line] = errors(capsys.readouterr().err)
    # 101 digits: refused as the line is read, before the schema's maximum of 2**31 - 1
    # (test_the_protocol_bounds_max_in_flight_where_the_report_reads_it) is looked at.
    assert "holds a number the harness does not take: an integer of 101 digits" in line
    # Whatever was written reads back: a refused handshake leaves no unreadable number.
    if report.exists():
        assert main(["report", str(report), "--markdown", str(tmp_path / "r.md")]) == 0


def test_a_shard_count_the_report_cannot_hold_is_refused() -> None:
    with pytest.raises(SelectionError, match=f"N must be at most {MAX_SHARDS}"):
        parse_shard("1/9999999999")
    for bad in ("1/²", "1/", "a/b", "1/2/3", "0/2", "3/2"):
        with pytest.raises(SelectionError):
            parse_shard(bad)
    assert parse_shard("01/4") == (1, 4)
    # Spaces around the numbers are taken (a CI matrix may write them), by run and fuzz
    # alike: there is one reading of a shard.
    assert parse_shard(" 1 / 2 ") == parse_shard("1/2") == (1, 2)
    for bad in ("1\t/2", "1 2", " / 2"):
        with pytest.raises(SelectionError):
            parse_shard(bad)


def test_a_shard_is_recorded_as_the_report_schema_reads_it() -> None:
    from conformance.grading.results import RunResult
    from conformance.jobs import as_shard
    from conformance.knowledge.catalogue import load_catalogue
    from conformance.run.selection import load_scenarios, shard_of

    catalogue = load_catalogue(DATA / "catalogue.json")

    report = json.loads((ROOT / "conformance" / "schemas" / "report.schema.json").read_text())
    pattern = report["properties"]["header"]["properties"]["shard"]["pattern"]
    # Two small cases (the whole corpus would cost seconds to load uncached).
    whole = load_scenarios([DATA / "good" / "melds.yaml"], catalogue=catalogue).scenarios
    assert len(whole) == 2
    chosen = shard_of(whole, "01/2")
    empty = RunResult(argv=(), profile="argentine", handshake=None, results=())
    run = as_shard(empty, "01/2", whole, chosen)
    assert run.shard == "1/2" and re.fullmatch(pattern, run.shard)
    assert re.fullmatch(pattern, f"1/{MAX_SHARDS}") and not re.fullmatch(pattern, "1/9999999999")
    with pytest.raises(SelectionError, match="N must be at most the number of cases"):
        shard_of(whole, "1/3")


@pytest.mark.slow  # runs the reference twice
def test_a_shard_is_written_as_report_merge_reads_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "r.json"
    two = ["--scenario", "cc-0001", "--scenario", "cc-0002"]
    assert main(["run", *two, "-q", "--shard", "01/2", "--json", str(report)]) == 0
    assert json.loads(report.read_text())["header"]["shard"] == "1/2"
    assert main(["report", str(report), "--markdown", str(tmp_path / "r.md")]) == 0
    # More shards than cases is a split report merge refuses: run refuses it first.
    assert main(["run", *two, "-q", "--shard", "1/3"]) == 2
    [line] = errors(capsys.readouterr().err)
    assert "N must be at most the number of cases" in line


def test_a_merged_fuzz_count_never_outgrows_its_readers() -> None:
    big = MAX_MERGED_COUNT  # readable alone: MAX_INT_DIGITS digits
    assert len(str(big)) == MAX_INT_DIGITS
    with pytest.raises(fuzz.FuzzError, match=r"totals\.steps adds up to more than"):
        fuzz.merge_reports([shard(1, 2, steps=big), shard(2, 2, steps=1)])
    merged = fuzz.merge_reports([shard(1, 2, steps=big - 1), shard(2, 2, steps=1)])
    assert merged["totals"]["steps"] == big


# --- expectations files ---------------------------------------------------------------------

CHECKS = "expected_failures:\n  cc-0001:\n    checks:\n      step 1 hands: {reason: x}\n"


@pytest.mark.parametrize(
    ("key", "shown"),
    [("3", "int 3"), ("true", "bool True"), ("1.5", "float 1.5"), ("null", "null"), ("~", "null")],
)
def test_a_check_key_that_is_not_a_string_is_refused_with_its_line(
    tmp_path: Path, key: str, shown: str
) -> None:
    f = tmp_path / "e.yaml"
    f.write_text(CHECKS + f"      {key}: {{reason: y}}\n")
    with pytest.raises(ExpectationsError) as caught:
        load_expectations(f)
    assert str(caught.value) == (
        f"expectations file {f}:5: entry cc-0001: a check key must be a string, "
        f"not {shown} (quote it)"
    )


def test_a_bad_check_key_stops_the_run_before_the_adapter_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "e.yaml"
    f.write_text(CHECKS + "      7: {reason: y}\n")
    never = tmp_path / "started"
    adapter = shlex.join([sys.executable, "-c", f"open({str(never)!r}, 'w')"])
    report = tmp_path / "r.json"
    argv = ["run", "--adapter", adapter, "--expectations", str(f), "--json", str(report)]
    assert main(argv) == 2
    [line] = errors(capsys.readouterr().err)
    assert f"{f}:5:" in line and "not int 7" in line
    assert not never.exists() and not report.exists()


def test_control_characters_in_a_check_key_are_refused_and_never_printed_raw(
    tmp_path: Path,
) -> None:
    f = tmp_path / "e.yaml"
    f.write_text(CHECKS + '      "step\\e[31m 2": {reason: y}\n')
    with pytest.raises(ExpectationsError, match=r"e\.yaml:5: .*holds control characters") as caught:
        load_expectations(f)
    assert "\x1b" not in str(caught.value)
    # A reason is kept, made safe: the ESC shows as \x1b wherever the reason is printed.
    f.write_text('expected_failures:\n  cc-0001: {reason: "red\\e[31m"}\n')
    assert load_expectations(f).expected_failures == {"cc-0001": "red\\x1b[31m"}


def test_a_reason_is_capped_and_reasons_shared_by_alias_count_each_use(tmp_path: Path) -> None:
    f = tmp_path / "e.yaml"
    f.write_text(f"expected_failures:\n  cc-0001: {{reason: {'a' * (MAX_REASON_CHARS + 1)}}}\n")
    with pytest.raises(ExpectationsError, match=r"e\.yaml:2: .*at most 500"):
        load_expectations(f)
    uses = MAX_REASONS_TOTAL // MAX_REASON_CHARS + 1  # one over the total, all by alias
    aliased = "".join(f"  cc-{i:04d}: {{reason: *r}}\n" for i in range(2, uses + 1))
    f.write_text(
        f"expected_failures:\n  cc-0001: {{reason: &r {'a' * MAX_REASON_CHARS}}}\n{aliased}"
    )
    assert len(f.read_bytes()) < 64 * 1024
    with pytest.raises(ExpectationsError, match=f"e\\.yaml:{uses + 1}: .*add up to more than"):
        load_expectations(f)


def test_no_expectations_file_is_written_that_the_next_run_refuses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from conformance.grading.results import CaseResult, CheckResult
    from conformance.run import expectations

    # The limit lowered, so the test stays cheap: the same code compares with it.
    MAX_FILE_BYTES = 64 * 1024
    monkeypatch.setattr(expectations, "MAX_FILE_BYTES", MAX_FILE_BYTES)
    # Enough failing checks with long keys to pass the size a run reads back.
    key = "k" * 190
    per_case = 100
    cases = MAX_FILE_BYTES // (per_case * len(key)) + 1
    results = [
        CaseResult(
            id=f"cc-{i:04d}",
            title="t",
            rules=("MELD-RUN",),
            section="s",
            status="fail",
            checks=tuple(
                CheckResult(key=f"{key}{j}", what="hands", rules=("MELD-RUN",), status="fail")
                for j in range(per_case)
            ),
        )
        for i in range(1, cases + 1)
    ]
    for target in (tmp_path / "out.yaml", tmp_path / "out.json"):
        with pytest.raises(ValueError, match=r"more than the 65536 bytes a run reads back"):
            write_expectations(target, results)
        assert not target.exists()
    # Under the limit it is written, and reads back.
    write_expectations(tmp_path / "few.yaml", results[:1])
    assert len(load_expectations(tmp_path / "few.yaml").expected_checks["cc-0001"]) == per_case


# --- record: the same bounded loader as check, and a final that fits the seats --------------

FAKE = [sys.executable, str(DATA / "fake_engine.py")]
BOMB = (
    "".join(
        f"{x}: &{x} [{', '.join([f'*{p}'] * 9) if p else 'a, a, a, a, a, a, a, a, a'}]\n"
        for p, x in zip(["", "a", "b", "c", "d", "e"], ["a", "b", "c", "d", "e", "f"], strict=True)
    )
    + "g: [*f, *f, *f, *f, *f, *f, *f, *f, *f]\n"
)


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (b"setup: \xff\n", ":1: file is not UTF-8: byte 0xff at line 1, column 8"),
        (("[" * 5000 + "]" * 5000).encode(), ":1: the document may nest more than"),
        (BOMB.encode(), ":6: the document expands to more than"),
        (b"setup: [a\n", ": not YAML: while parsing a flow sequence"),
    ],
    ids=["not-utf8", "deep", "alias-bomb", "syntax"],
)
def test_record_reads_its_setup_through_the_bounded_loader(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, said: str
) -> None:
    setup = tmp_path / "setup.yaml"
    setup.write_bytes(content)
    out = tmp_path / "draft.yaml"
    argv = ["record", "--adapter", shlex.join(FAKE), "--setup", str(setup)]
    argv += ["--actions", str(DATA / "record-actions.yaml"), "-o", str(out)]
    assert main(argv) == 2
    [line] = errors(capsys.readouterr().err)
    assert line.startswith(f"error: setup file {setup}") and said in line, line
    assert not out.exists()


EXTRA_HANDS = """
import json, subprocess, sys
engine = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
for line in sys.stdin:
    engine.stdin.write(line)
    engine.stdin.flush()
    answer = json.loads(engine.stdout.readline())
    state = answer.get("state")
    if isinstance(state, dict) and json.loads(line).get("op") == "act":
        state["hands"] = state["hands"] + [["2S"], ["3S"]]  # four hands for two players
    print(json.dumps(answer), flush=True)
"""


def test_record_refuses_a_final_with_more_hands_than_seats(tmp_path: Path) -> None:
    proxy = tmp_path / "extra_hands.py"
    proxy.write_text(EXTRA_HANDS)
    out = tmp_path / "draft.yaml"
    with pytest.raises(RecordError, match="final: hands has 4 entries for 2 players"):
        record_to_file(
            [sys.executable, str(proxy), *FAKE],
            setup_path=DATA / "record-setup.yaml",
            actions_path=DATA / "record-actions.yaml",
            out=out,
        )
    assert not out.exists()


FINALS = {
    "hands: [[2C], [3C], [4C], [5C]]": "final: hands has 4 entries for 2 players",
    "hands: {3: [2C]}": "final: hands names seat 3, out of range for 2 players",
    "totals: [0, 0, 0]": "final: totals has 3 entries for 2 players",
    "turn: 2": "final: turn 2 is out of range for 2 players",
    "hand_sizes: [11, 12, 13]": "final: hand_sizes has 3 entries for 2 players",
    "stock_size: 500": "final: stock_size 500 is more than the 108 cards of the pack",
    "hands: [[2C, 2C, 2C], []]": "final: hands: 3 copies of 2C",
    "table: [{owner: 4, kind: trio, cards: [9S, 9C, 9D]}]": "final: table meld owner 4",
    "turn: {by_option: {DISPUTE-01: {a: 0, b: 5}}}": "final: turn 5 is out of range",
}


@pytest.mark.parametrize(("final", "said"), FINALS.items())
def test_check_refuses_a_final_that_does_not_fit_the_seats_or_the_pack(
    tmp_path: Path, final: str, said: str
) -> None:
    from conformance.scenarios import load_file

    text = (DATA / "record-setup.yaml").read_text()
    doc = (
        "id: cc-0999\ntitle: t\nrules: [TURN-10]\nsource: s\nprofiles: [argentine]\n"
        "level: turns\nreview: draft\n"
        + text.split("\n", 1)[1]
        + "steps:\n  - action: {type: draw_stock, player: 1}\n    expect: accepted\n"
        + f"final:\n  {final}\n"
    )
    f = tmp_path / "case.yaml"
    f.write_text(doc)
    result = load_file(f)
    messages = [e.message for e in result.errors]
    assert any(said in m for m in messages), messages
    assert all(e.line == doc.count("\n") for e in result.errors), result.errors
    # The same state as a step's expected state is refused too.
    f.write_text(doc.replace("final:\n  ", "    state:\n      "))
    assert any(said.replace("final", "step 1 state") in e.message for e in load_file(f).errors)


# --- rulings files (audit --graded --rulings) ------------------------------------------------


@pytest.mark.parametrize(
    ("data", "said"),
    [
        ({"players": [3, 99]}, "bad.yaml: players: 99 is not a player count (the protocol takes 2"),
        ({"players": []}, "bad.yaml: players: expected at least one player count"),
        ({"players": [3, 3]}, "bad.yaml: players: a player count is listed twice"),
        (
            {"profile_players": {"pagat": [1]}},
            "bad.yaml: profile_players.pagat: 1 is not a player count",
        ),
        ({"unmodelled": ["dealer", "--help"]}, "bad.yaml: unmodelled: '--help' is not a state"),
        ({"unmodelled": ["hands"]}, "bad.yaml: unmodelled: 'hands' is not a state field"),
        (
            {"profile_rulings": {"chillean": {"DISPUTE-31": "at_least"}}},
            "bad.yaml: profile_rulings: 'chillean' is not a profile (argentine, chilean",
        ),
        ({"profile_players": {"pagatt": [2, 3]}}, "bad.yaml: profile_players: 'pagatt' is not"),
    ],
)
def test_a_bad_rulings_value_is_refused_naming_its_field(data: object, said: str) -> None:
    from conformance.audit.declared import RulingsFileError, parse_rulings
    from conformance.knowledge.catalogue import load_catalogue

    with pytest.raises(RulingsFileError) as caught:
        parse_rulings(data, "bad.yaml", load_catalogue())
    assert said in str(caught.value)


def test_audit_refuses_a_misspelt_profile_before_measuring(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rulings = tmp_path / "engine.yaml"
    rulings.write_text("profile_rulings: {chillean: {DISPUTE-31: at_least}}\n", encoding="utf-8")
    assert main(["audit", "--graded", "--rulings", str(rulings)]) == 2
    [line] = errors(capsys.readouterr().err)
    assert f"{rulings}: profile_rulings: 'chillean' is not a profile" in line


# --- memory: a report read or merged costs a few times its size, not fifteen ------------------


def _fuzz_shard_text(index: int, findings: int) -> str:
    """A fuzz shard report holding ``findings`` findings, each with a full deck in its trace
    (card codes repeated hundreds of thousands of times, as in a real campaign's report)."""
    report = shard(index, 2)
    report["findings"] = [
        {
            "key": f"MELD-RUN-1|act|state|summary {i}",
            "rule": "MELD-RUN-1",
            "op": "act",
            "kind": "state",
            "summary": f"summary {i}",
            "count": 1,
            "games": list(range(20)),
            "example": {
                "game": i,
                "steps": 3,
                "players": 2,
                "shrunk": True,
                "mismatches": ["hands differ"],
                "trace": {
                    "setup": {"op": "start_deal", "players": 2, "deck": ["AS", "2C"] * 54},
                    "steps": [{"op": "act", "action": {"type": "draw_stock", "player": 0}}] * 5,
                },
            },
            "scenario": None,
            "scenario_file": None,
        }
        for i in range(findings)
    ]
    return json.dumps(report)


def test_reading_a_fuzz_report_costs_a_few_times_its_size(tmp_path: Path) -> None:
    import tracemalloc

    from conformance.fuzz.merge import read_report

    path = tmp_path / "shard.json"
    path.write_text(_fuzz_shard_text(1, 600))
    size = path.stat().st_size
    tracemalloc.start()
    try:
        doc = read_report(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(doc["findings"]) == 600
    # Equal card codes are one object: about 3 times the file (json alone: about 9).
    assert peak < 6 * size, (peak, size)


def test_a_merged_fuzz_report_is_written_in_pieces_as_the_text_would_be(tmp_path: Path) -> None:
    from conformance.fuzz.merge import read_report
    from conformance.fuzz.report import report_pieces, report_text

    paths = []
    for index in (1, 2):
        path = tmp_path / f"shard{index}.json"
        path.write_text(_fuzz_shard_text(index, 30))
        paths.append(path)
    merged = fuzz.merge_reports([read_report(p) for p in paths])
    assert "".join(report_pieces(merged)) == report_text(merged)
    assert merged["findings"][0]["count"] == 2
    # The shards' own findings are not changed by the merge (a shallow copy is merged).
    first = read_report(paths[0])
    fuzz.merge_reports([first, read_report(paths[1])])
    assert first["findings"][0]["count"] == 1


# -- every number written: one check in the writing path, and each source bounded -------


def test_no_writer_writes_a_number_its_readers_refuse() -> None:
    """The one check behind every report writer names where the number is."""
    from conformance.fuzz.report import report_pieces as fuzz_pieces
    from conformance.fuzz.report import report_text as fuzz_text
    from conformance.io.jsonsafe import UnreadableNumber, check_readable, dumps, pieces
    from conformance.reports.outputs import write_all
    from conformance.reports.report import report_pieces, report_text

    largest = 10**MAX_INT_DIGITS - 1
    check_readable({"a": [largest, -largest, 1.5e308, True, None, "9" * 99]})
    for bad, where in (
        ({"cases": [{"id": "x", "checks": [{"step": largest + 1}]}]}, "/cases/0/checks/0/step"),
        ({"totals": {"seconds": float("nan")}}, "/totals/seconds"),
        ({"a/b": {"~": [0, -(10**50)]}}, "/a~1b/~0/1"),
    ):
        for write in (dumps, pieces, report_text, report_pieces, fuzz_text, fuzz_pieces):
            # Refused at the call, before a piece is written.
            with pytest.raises(UnreadableNumber, match=f"at {re.escape(where)}: "):
                write(bad)  # type: ignore[operator]

    def write() -> None:
        dumps([10**50])

    [failure] = write_all([("--json", "r.json", write)])
    assert failure == (
        "could not write --json r.json: at /0: an integer of 51 digits "
        f"(the harness's readers take at most {MAX_INT_DIGITS})"
    )


@pytest.mark.parametrize(
    "option",
    [
        ["run", "--seed", "1" + "0" * 12],
        ["run", "--seed", "-1"],
        ["run", "--deals", "1001"],
        ["run", "--workers", "257"],
        ["run", "--max-consecutive-errors", "1" + "0" * 41],
        ["run", "--max-response-bytes", "0"],
        ["fuzz", "--seed", "9" * 50],
        ["fuzz", "--games", "1" + "0" * 10],
        ["fuzz", "--game", "1" + "0" * 9],
        ["fuzz", "--max-steps", "1" + "0" * 7],
        ["fuzz", "--workers", "0"],
        ["fuzz", "--shard", "1/" + "9" * 12],
        ["audit", "--workers", "9" * 5000],
    ],
    ids=lambda option: " ".join(option)[:30],
)
def test_a_number_option_its_reports_could_not_hold_is_refused_before_anything_starts(
    option: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    # An adapter that would record its start: none must be needed to refuse the option.
    assert main([*option, "--adapter", "/nonexistent/adapter"]) == 2
    [line] = [line for line in capsys.readouterr().err.splitlines() if "error: " in line]
    assert option[1] in line and ("whole number" in line or "at most" in line), line


@pytest.mark.slow  # a fuzz game against the reference
def test_the_largest_number_options_write_reports_their_readers_take(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """fuzz at the largest seed and game index: the report reads back through --merge."""
    from conformance.cli.args import MAX_COUNT, MAX_SEED

    out, report = tmp_path / "out", tmp_path / "f.json"
    seed, game = str(MAX_SEED), str(MAX_COUNT - 1)
    common = ["--games", str(MAX_COUNT), "--max-steps", "3", "--out", str(out)]
    code = main(["fuzz", "--seed", seed, "--game", game, *common, "--json", str(report)])
    assert code in (0, 4), capsys.readouterr().err
    campaign = json.loads(report.read_text())["campaign"]
    assert campaign["seed"] == MAX_SEED and campaign["only_games"] == [MAX_COUNT - 1]
    merged = tmp_path / "m.json"
    assert main(["fuzz", "--merge", str(report), "--out", str(out), "--json", str(merged)]) in (
        0,
        4,
    )
    assert json.loads(merged.read_text())["campaign"]["seed"] == MAX_SEED


@pytest.mark.slow  # two runs of the SCORE slice through a proxy and the reference
def test_an_engine_score_is_graded_up_to_40_digits_and_a_longer_one_errs_its_case(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Scores are any integer the reports can hold: 40 digits is a scoring failure, written
    and read back by every reader; 41 is that request's protocol error, named."""
    base = tmp_path / "base.json"
    assert main(["run", "-q", "--rule", "SCORE-1", "--json", str(base)]) == 0
    for digits, status in ((40, "fail"), (41, "error")):
        report, junit = tmp_path / f"r{digits}.json", tmp_path / f"r{digits}.xml"
        expected = tmp_path / f"e{digits}.yaml"
        adapter = f"{PROXY} --score-digits {digits}"
        outputs = ["--json", str(report), "--junit", str(junit)]
        outputs += ["--write-expectations", str(expected)]
        main(["run", "-q", "--rule", "SCORE-1", "--adapter", adapter, *outputs])
        cases = json.loads(report.read_text())["cases"]
        if status == "error":  # and the rest not run, after five errors in a row
            assert {case["status"] for case in cases} == {"error", "not_run"}
            assert "an integer of 41 digits (at most 40 are accepted)" in cases[0]["error"]
        else:
            assert {case["status"] for case in cases} == {"fail"}
            # The expectations written read back, and expect exactly these failures.
            rerun = ["run", "-q", "--rule", "SCORE-1", "--expectations", str(expected)]
            assert main([*rerun, "--adapter", adapter]) == 0
        capsys.readouterr()
        # Every reader takes back what was written.
        assert main(["report", str(report), "--markdown", str(tmp_path / "r.md")]) == 0
        assert main(["report", "diff", str(base), str(report)]) == 1
        assert main(["report", "merge", str(report), "-o", str(tmp_path / "m.json")]) == 0
        assert "error" not in errors(capsys.readouterr().err)


@pytest.mark.slow  # starts an adapter through a proxy and the reference, twice
@pytest.mark.parametrize(
    ("hello", "said"),
    [
        ('{"protocol": ' + "9" * 40 + "}", "speaks protocol " + "9" * 40),
        ('{"protocol": ' + "9" * 41 + "}", "an integer of 41 digits"),
        ('{"x": {"n": NaN}}', "NaN is not JSON"),
    ],
    ids=["protocol-40-digits", "protocol-41-digits", "extra-NaN"],
)
def test_a_handshake_number_its_reports_could_not_hold_ends_the_run_readably(
    hello: str, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "r.json"
    adapter = f"{PROXY} --hello {shlex.quote(hello)}"
    assert main(["run", "--adapter", adapter, "--rule", "MELD-RUN", "--json", str(report)]) == 3
    assert said in capsys.readouterr().err
    assert main(["report", str(report), "--markdown", str(tmp_path / "r.md")]) == 0


def test_a_merge_larger_than_its_readers_read_is_refused_and_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two shards each within the limit merge into a report over it: refused while it is
    written, by `fuzz --merge` and `report merge --fuzz` alike, and no file is left."""
    from conformance.io import jsonsafe

    paths = []
    for index in (1, 2):
        path = tmp_path / f"shard{index}.json"
        path.write_text(json.dumps(shard(index, 2), separators=(",", ":")))
        paths.append(str(path))
    # Each shard within the limit, the merge over it even in the compact layout a merge
    # falls back to.
    limit = max(Path(p).stat().st_size for p in paths)
    monkeypatch.setattr(jsonsafe, "MAX_JSON_BYTES", limit)
    out, merged = tmp_path / "out", tmp_path / "merged.json"
    for command in (
        ["fuzz", "--merge", *paths, "--out", str(out)],
        ["report", "merge", "--fuzz", paths[0], "--fuzz", paths[1], "-o", str(merged)],
    ):
        assert main(command) == 2
        err = capsys.readouterr().err
        assert f"the merged report would be larger than {limit} bytes" in err, err
    assert not merged.exists() and not (out / "fuzz-report.json").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


# -- reports padded under keys no schema names ------------------------------------------

#: Two megabytes of each shape a reader refuses, under a key the run report's schema
#: leaves free (the top level): arrays, objects, keys and numbers denser than any report.
PADDING = {
    "arrays": "[" + ",".join(["[]"] * 700_000) + "]",
    "objects": "[" + ",".join(["{}"] * 700_000) + "]",
    "keys": "{" + ",".join(f'"{i:x}":1' for i in range(250_000)) + "}",
    "numbers": "[" + ",".join(["1.5"] * 500_000) + "]",
}


def _padded(report: Path, shape: str, to: Path) -> Path:
    text = report.read_text(encoding="utf-8")
    to.write_text(text[: text.rindex("}")] + f', "pad": {PADDING[shape]}}}', encoding="utf-8")
    return to


@pytest.fixture(scope="module")
def small_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("small") / "r.json"
    assert main(["run", "-q", "--rule", "SCORE-1", "--json", str(path)]) == 0
    return path


@pytest.mark.parametrize("shape", sorted(PADDING))
def test_a_report_padded_under_a_free_key_is_refused_by_every_reader(
    shape: str, small_report: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Empty lists under free keys cost the readers 48 times the file (2 GB for 42 MB):
    each reader now refuses a file denser than any report, before decoding it whole."""
    padded = _padded(small_report, shape, tmp_path / "padded.json")
    capsys.readouterr()
    for command in (
        ["report", str(padded), "--html", str(tmp_path / "p.html")],
        ["report", "diff", str(small_report), str(padded)],
        ["report", "merge", str(padded), "-o", str(tmp_path / "m.json")],
    ):
        assert main(command) == 2, command
        err = capsys.readouterr().err
        assert "padded.json: the report" in err and "more than one per" in err, err
        assert shape in err
    assert not (tmp_path / "p.html").exists() and not (tmp_path / "m.json").exists()


def test_a_padded_fuzz_shard_is_refused_by_fuzz_merge(tmp_path: Path) -> None:
    """The 42 MB shard of empty lists under a finding's free keys: refused, not 5.5 GB."""
    report = shard(1, 1)
    text = json.dumps(report)
    path = tmp_path / "shard.json"
    path.write_text(text[: text.rindex("}")] + f', "pad": {PADDING["arrays"]}}}')
    with pytest.raises(fuzz.FuzzError, match=r"arrays in .* bytes, more than one per 32"):
        fuzz.read_report(path)


def test_brackets_and_colons_inside_strings_are_not_counted(
    small_report: Path, tmp_path: Path
) -> None:
    document = json.loads(small_report.read_text(encoding="utf-8"))
    document["cases"] = document["cases"][:1] * 130  # over a megabyte, mostly brackets in text
    document["cases"][0] = {**document["cases"][0], "title": "[{:" * 3000}
    document["cases"] = [
        {**case, "id": f"cc-{i:04d}", "title": "[{:" * 3000}
        for i, case in enumerate(document["cases"])
    ]
    big = tmp_path / "big.json"
    big.write_text(json.dumps(document, separators=(",", ":")), encoding="utf-8")
    assert big.stat().st_size > 2**20
    from conformance.reports.report_tools import load_report

    assert len(load_report(str(big)).doc["cases"]) == len(document["cases"])


@pytest.mark.slow  # tracemalloc slows decoding tenfold
def test_the_densest_padding_a_reader_takes_costs_a_bounded_multiple(tmp_path: Path) -> None:
    """Just within every limit, in the costliest shapes (distinct keys, distinct short
    strings, arrays and objects of numbers): decoding stays under 14 times the file."""
    import tracemalloc

    from conformance.io.jsonsafe import read_json_file

    shapes = {
        "keys": "{" + ",".join(f'"{i:07x}":0.5'.ljust(14) for i in range(80_000)) + "}",
        "strings": "[" + ",".join(f'"{i:x}"'.ljust(7) for i in range(160_000)) + "]",
        "arrays": "[" + ",".join("[0.5,1.5,2.5,3.5]".ljust(32) for i in range(35_000)) + "]",
        "objects": "["
        + ",".join('{"a":0.5,"b":1.5,"c":2.5}'.ljust(48) for i in range(23_000))
        + "]",
    }
    for name, pad in shapes.items():
        path = tmp_path / f"{name}.json"
        path.write_text('{"report": "x", "pad": ' + pad + "}")
        size = path.stat().st_size
        assert size > 2**20
        tracemalloc.start()
        try:
            read_json_file(path, "the report", share_strings=True, escape_text=True)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert peak < 14 * size, (name, peak / size)


def test_one_readable_report_always_merges(
    small_report: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A report as the harness writes it, just within the limit: its merge (the same
    cases, one warning more) was larger than the readers read and refused; it is now
    written in the compact layout."""
    from conformance.io import jsonsafe
    from conformance.reports.report_tools import load_report

    monkeypatch.setattr(jsonsafe, "MAX_JSON_BYTES", small_report.stat().st_size)
    merged = tmp_path / "merged.json"
    assert main(["report", "merge", str(small_report), "-o", str(merged)]) == 0
    assert merged.stat().st_size <= small_report.stat().st_size
    cases = json.loads(small_report.read_text(encoding="utf-8"))["cases"]
    assert len(load_report(str(merged)).results) == len(cases)
