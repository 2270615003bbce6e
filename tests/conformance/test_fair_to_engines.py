"""Fair to real engines: interface choices are declared, and never failed.

Most tests drive the reference through ``tests/fake_adapters/real_engine_proxy.py``, which
makes the choices real engines make (arranging runs, picking lay-off ends, dealing only
some player counts, keeping no dealer, lacking an op, explaining rejections) while still
following the rules. Declared, none of them may cost a single failed case; undeclared,
the same behaviour must be caught, or the declarations would be meaningless.
"""

from __future__ import annotations

import json
import re
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

import jsonschema
import pytest

from conformance.adapter.command import shell_operators
from conformance.adapter.engine import Handshake
from conformance.adapter.protocol import validate_response
from conformance.cli import main
from conformance.cli.common import parse_adapter
from conformance.errors import ProtocolError
from conformance.grading.compare import (
    MAX_ENGINE_MESSAGE,
    compare_outcome,
    compare_state,
    compare_unchanged,
    engine_message,
)
from conformance.knowledge.catalogue import load_catalogue
from conformance.laws.properties import check_properties
from conformance.laws.smoke import smoke
from conformance.reports.report import build_report
from conformance.run.runner import RunOptions, RunResult, run_scenarios
from conformance.scenarios import EXAMPLE_IDS, is_example_id, load_corpus
from conformance.scenarios.corpus import default_catalogue_path, default_corpus_dir, find_checkout
from tests.paths import ROOT

#: An engine that answers is all these tests need: the reference answers in-process
#: (tests/adapters.py); the tests of what its process does run it as a process.
pytestmark = pytest.mark.usefixtures("reference_in_process")

PROXY = [sys.executable, str(ROOT / "tests" / "fake_adapters" / "real_engine_proxy.py")]
REPORT_SCHEMA = ROOT / "conformance" / "schemas" / "report.schema.json"


@pytest.fixture(scope="module")
def corpus() -> tuple:  # type: ignore[type-arg]
    catalogue = load_catalogue(ROOT / "conformance" / "data" / "catalogue.json")
    loaded = load_corpus([ROOT / "scenarios"], catalogue=catalogue)
    assert not loaded.errors
    return loaded.scenarios, catalogue


def run_corpus(corpus: tuple, flags: Sequence[str], ids: Sequence[str] = ()) -> RunResult:  # type: ignore[type-arg]
    scenarios, catalogue = corpus
    # The runs play the Argentine profile; the Chilean slice runs under its own.
    chosen = [s for s in scenarios if (not ids or s.id in ids) and "argentine" in s.profiles]
    return run_scenarios([*PROXY, *flags], chosen, RunOptions(), catalogue=catalogue)


def bad(run: RunResult) -> dict[str, str]:
    return {r.id: r.status for r in run.results if r.status in ("fail", "error", "not_run")}


# --- items 1 and 2: run order and lay-off ends ----------------------------------------------


def test_handshake_declarations_are_optional_and_default_to_protocol_1_behaviour() -> None:
    hello = {
        "id": 1,
        "protocol": 1,
        "implementation": {"name": "e", "version": "1", "language": "go"},
        "profiles": ["argentine"],
        "capabilities": ["melds"],
    }
    plain = Handshake.from_hello(hello)
    assert (plain.run_order, plain.run_ends, plain.players, plain.unmodelled) == (
        "listed",
        "requested",
        (2, 3, 4),
        frozenset(),
    )
    declared = Handshake.from_hello(
        {
            **hello,
            "run_order": "engine",
            "run_ends": "engine",
            "players": [4, 3],
            "unmodelled": ["dealer"],
        }
    )
    assert declared.players == (3, 4) and declared.unmodelled == {"dealer"}
    assert declared.as_dict()["run_order"] == "engine"


@pytest.mark.parametrize(
    "extra",
    [{"run_order": "sorted"}, {"run_ends": "low"}, {"players": [9]}, {"unmodelled": ["hands"]}],
)
def test_a_declaration_outside_the_protocol_is_a_malformed_hello(extra: dict) -> None:  # type: ignore[type-arg]
    hello = {
        "id": 1,
        "protocol": 1,
        "implementation": {"name": "e", "version": "1", "language": "go"},
        "profiles": ["argentine"],
        "capabilities": ["melds"],
        **extra,
    }
    with pytest.raises(ProtocolError):
        validate_response("hello", hello)


def test_an_engine_that_arranges_runs_and_picks_ends_itself_never_fails(corpus: tuple) -> None:  # type: ignore[type-arg]
    run = run_corpus(corpus, ["--own-order", "--own-ends"])
    assert bad(run) == {}
    # The cases written for the other reading are not graded, and say why.
    skipped = {r.id: r.note for r in run.results if r.status == "unsupported"}
    assert {"cc-0703", "cc-1200", "cc-1202", "cc-1205"} <= set(skipped)
    assert "run_order 'listed'" in str(skipped["cc-1200"])
    # ...the cases written for its own reading ran and passed, and so did those that give a
    # value per reading (cc-0058, cc-0064: the arranged run has its own value there).
    passed = {r.id for r in run.results if r.status == "pass"}
    assert {"cc-1201", "cc-1203", "cc-1204", "cc-1206", "cc-0058", "cc-0064"} <= passed


def test_the_same_behaviour_undeclared_is_failed(corpus: tuple) -> None:  # type: ignore[type-arg]
    run = run_corpus(corpus, ["--own-order", "--own-ends", "--undeclared"])
    assert {"cc-0058", "cc-0064", "cc-0703", "cc-1200", "cc-1202"} <= set(bad(run))


def test_declaring_the_choices_without_making_them_is_failed(corpus: tuple) -> None:  # type: ignore[type-arg]
    ids = ("cc-1201", "cc-1203", "cc-1204", "cc-1206")
    run = run_corpus(corpus, ["--own-order", "--own-ends", "--declare-only"], ids)
    assert bad(run) == dict.fromkeys(ids, "fail")


def test_runs_of_an_engine_that_arranges_them_compare_as_sets() -> None:
    want = {"table": [{"owner": 0, "kind": "run", "cards": ["JK", "5S", "6S", "7S"]}]}
    got = {"table": [{"owner": 0, "kind": "run", "cards": ["5S", "6S", "7S", "JK"]}]}
    assert compare_state(want, got, runs_as_sets=True) == []
    assert compare_state(want, got) != []  # an engine reading the listing keeps the order
    got_other = {"table": [{"owner": 0, "kind": "run", "cards": ["5S", "6S", "7S", "8S"]}]}
    assert compare_state(want, got_other, runs_as_sets=True) != []


# --- item 3: support per operation ------------------------------------------------------------


def test_an_engine_lacking_check_contract_is_graded_on_every_other_check(corpus: tuple) -> None:  # type: ignore[type-arg]
    run = run_corpus(corpus, ["--unsupported", "check_contract"])
    assert bad(run) == {}
    # The op costs only its own checks: a case mixing ops passes on the others,
    # its check_contract checks not graded for cause `op`; a case of check_contract only
    # has nothing graded and is unsupported.
    lacking = [
        r
        for r in run.results
        if any(c.cause == "op" and c.status == "not_graded" for c in r.checks)
    ]
    assert lacking
    assert all(
        "check_contract" in str(c.note) for r in lacking for c in r.checks if c.cause == "op"
    )
    assert any(r.status == "pass" for r in lacking)
    assert all(
        r.status == "unsupported"
        for r in lacking
        if all(c.status == "not_graded" for c in r.checks)
    )


def test_a_wrong_answer_to_a_supported_op_still_fails_when_another_op_is_unsupported(
    tmp_path: Path,
) -> None:
    case = tmp_path / "mixed.yaml"
    case.write_text(
        "id: cc-1390\ntitle: t\nrules: [MELD-RUN-1]\nsource: '000 §02'\nprofiles: [argentine]\n"
        "level: melds\nreview: checked\nchecks:\n"
        "  - check_contract: {deal_number: 1, melds: [{kind: trio, cards: [8C, 8D, 8H]},"
        " {kind: trio, cards: [KS, KH, KD]}]}\n    expect: {valid: true}\n"
        # A deliberately wrong expectation stands in for an engine's wrong answer.
        "  - check_meld: {kind: run, cards: [4S, 5S, 6S, 7S]}\n    expect: {valid: false}\n",
        encoding="utf-8",
    )
    catalogue = load_catalogue(ROOT / "conformance" / "data" / "catalogue.json")
    loaded = load_corpus([case], catalogue=catalogue)
    flags = ["--unsupported", "check_contract"]
    run = run_scenarios([*PROXY, *flags], loaded.scenarios, RunOptions(), catalogue=catalogue)
    (result,) = run.results
    assert result.status == "fail" and result.failing_step is not None
    assert "check 2" in result.failing_step


def test_smoke_probes_every_op_and_lists_the_unsupported_one() -> None:
    result = smoke([*PROXY, "--unsupported", "check_contract"], timeout=10.0)
    assert result.verdict == "engine_ok"
    names = {c.name: c for c in result.checks}
    assert names["op check_contract"].ok
    assert "unsupported" in names["op check_contract"].detail
    deals = names["capability deals"].detail
    for op in ("start_deal", "redeal", "next_deal", "new_game"):
        assert op in deals


def test_smoke_fails_a_capability_none_of_whose_ops_is_supported() -> None:
    flags = ["--unsupported", "check_meld", "--unsupported", "check_contract"]
    result = smoke([*PROXY, *flags, "--unsupported", "penalty"], timeout=10.0)
    assert "capability melds" in result.failed


def test_an_action_the_engine_lacks_is_unsupported_not_failed_from_that_step(
    corpus: tuple,  # type: ignore[type-arg]
) -> None:
    # docs/writing-an-adapter.md: answer `unsupported` for an action you lack...
    run = run_corpus(corpus, ["--unsupported", "swap_joker"])
    assert bad(run) == {}
    # The step's checks and the later ones are not graded (cause `op`); the earlier ones are.
    lacking = [r for r in run.results if any(c.cause == "op" for c in r.checks)]
    assert lacking
    for result in lacking:
        first = next(i for i, c in enumerate(result.checks) if c.cause == "op")
        assert "unsupported" in str(result.checks[first].note)
        assert all(c.cause == "op" for c in result.checks[first:])
    # ...because refusing it claims the rules forbid a legal swap, and is failed.
    refused = run_corpus(corpus, ["--refuse", "swap_joker"])
    assert bad(refused)


# --- item 4: player counts --------------------------------------------------------------------


def test_declared_player_counts_skip_other_deals_and_drive_smoke(corpus: tuple) -> None:  # type: ignore[type-arg]
    run = run_corpus(corpus, ["--players", "3,4"])
    assert bad(run) == {}
    notes = [r.note or "" for r in run.results if r.status == "unsupported"]
    assert sum("plays 2 players" in n for n in notes) > 50
    # Every other case skipped is skipped for a reason the proxy has without --players too
    # (a house variant it does not play), never for the player count it declared.
    reasons = ("plays 2 players", "written for engines with", "the case assumes VARIANT-")
    assert all(any(reason in n for reason in reasons) for n in notes)
    result = smoke([*PROXY, "--players", "3,4"], timeout=10.0)
    assert result.verdict == "engine_ok", result.checks


def test_laws_use_declared_players_and_skip_an_unsupported_deal_not_the_laws() -> None:
    declared = check_properties([*PROXY, "--players", "3,4"], RunOptions(), seed=0, deals=4)
    assert declared and all(law.passed for law in declared)
    assert all("skipped" not in law.detail for law in declared)
    # Undeclared, the 2-player deals are answered unsupported: skipped, and the laws still run.
    flags = ["--players", "3,4", "--undeclared"]
    laws = check_properties([*PROXY, *flags], RunOptions(), seed=0, deals=4)
    assert all(law.passed for law in laws), laws
    assert any("skipped" in law.detail for law in laws)
    assert all("not checked" not in law.detail for law in laws)


# --- item 5: unmodelled state fields ------------------------------------------------------------


def test_an_engine_without_a_dealer_is_compared_on_everything_else(corpus: tuple) -> None:  # type: ignore[type-arg]
    assert bad(run_corpus(corpus, ["--no-dealer"])) == {}
    assert bad(run_corpus(corpus, ["--no-dealer", "--undeclared"]))  # the invented 0 is wrong


def test_unmodelled_fields_are_skipped_exactly() -> None:
    want = {"dealer": 2, "dealer_in": [2], "turn": 1}
    got = {"dealer": 0, "turn": 0, "players": 3, "phase": "play"}
    found = compare_state(want, got, unmodelled=frozenset({"dealer"}))
    assert [m.what for m in found] == ["turn"]
    before, after = {"dealer": 1, "turn": 0}, {"dealer": 0, "turn": 0}
    assert compare_unchanged(before, after, unmodelled=frozenset({"dealer"})) == []
    assert compare_unchanged(before, after) != []


# --- item 6: the engine's own words ---------------------------------------------------------------


def test_a_rejection_message_is_shown_in_the_diff_and_kept_bounded_in_the_report(
    corpus: tuple,  # type: ignore[type-arg]
) -> None:
    long_words = "the card does not continue the run at that end " * 10
    flags = ["--own-ends", "--declare-only", "--message", long_words]
    run = run_corpus(corpus, flags, ("cc-1204",))
    (result,) = run.results
    assert result.status == "fail"
    assert result.diff is not None and "engine says: the card does not continue" in result.diff
    assert result.engine_message is not None
    assert len(result.engine_message) == MAX_ENGINE_MESSAGE
    report = build_report(run)
    jsonschema.validate(report, json.loads(REPORT_SCHEMA.read_text(encoding="utf-8")))
    assert report["cases"][0]["engine_message"] == result.engine_message


def test_engine_message_is_optional_and_only_text() -> None:
    assert engine_message({"accepted": False}) is None
    assert engine_message({"accepted": False, "message": "  \n "}) is None
    assert engine_message({"accepted": False, "message": "a\nb"}) == "a b"
    found = compare_outcome("accepted", {"accepted": False, "message": "no"}, reasons=False)
    assert found and "engine says: no" in found[0].actual


# --- items 8 and 9: exit codes, quiet output, failures by rule ------------------------------------


def test_write_expectations_never_turns_errors_green(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fake = shlex.join([sys.executable, str(ROOT / "tests" / "fake_adapters" / "fake_adapter.py")])
    # An internal error setting up a case errs the case (one to a melds query only fails
    # that check).
    adapter = f"{fake} --error-on load_state"
    exp = tmp_path / "expected.yaml"
    args = ["run", "--rule", "TURN-1", "--adapter", adapter]
    assert main([*args, "--write-expectations", str(exp)]) == 1
    assert "not written" in capsys.readouterr().err
    assert main([*args, "--expectations", str(exp), "--strict"]) == 1


def test_not_run_fails_the_run(tmp_path: Path) -> None:
    fake = shlex.join([sys.executable, str(ROOT / "tests" / "fake_adapters" / "fake_adapter.py")])
    report = tmp_path / "r.json"
    args = ["run", "--adapter", f"{fake} --error-on load_state", "--json", str(report)]
    assert main([*args, "--max-consecutive-errors", "1", "--rule", "TURN"]) == 1
    summary = json.loads(report.read_text())["summary"]
    assert summary["not_run"] > 0


# --- item 10: shell operators in --adapter ------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "operators"),
    [
        ("node adapter.js | tee log", ["|"]),
        ("node adapter.js|tee log", ["|"]),
        ("./engine > out.txt", [">"]),
        ("make && ./engine", ["&&"]),
        ("a ; b", [";"]),
        ("python3 adapter.py --sep '|'", []),
        ("python3 -m my.adapter --level=3", []),
    ],
)
def test_shell_operators_are_found_outside_quotes(command: str, operators: list[str]) -> None:
    assert shell_operators(command) == operators


def test_an_adapter_with_a_pipe_warns_and_shows_how_to_wrap_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = parse_adapter("node adapter.js | tee log")
    assert argv == ["node", "adapter.js", "|", "tee", "log"]  # still not a shell
    err = capsys.readouterr().err
    assert "'|'" in err and "\"sh -c 'node adapter.js | tee log'\"" in err
    parse_adapter("python3 adapter.py")
    assert capsys.readouterr().err == ""


# --- item 11: a checkout's corpus and catalogue -----------------------------------------------


def make_checkout(root: Path) -> Path:
    root.mkdir()
    (root / "pyproject.toml").write_text(
        '[project]\nname = "carioca-conformance"\n', encoding="utf-8"
    )
    (root / "scenarios" / "melds").mkdir(parents=True)
    (root / "conformance" / "data").mkdir(parents=True)
    catalogue = (ROOT / "conformance" / "data" / "catalogue.json").read_text(encoding="utf-8")
    (root / "conformance" / "data" / "catalogue.json").write_text(catalogue, encoding="utf-8")
    case = (ROOT / "scenarios" / "melds" / "run-listing-order.yaml").read_text(encoding="utf-8")
    (root / "scenarios" / "melds" / "one.yaml").write_text(case, encoding="utf-8")
    return root


def test_inside_a_checkout_its_own_corpus_and_catalogue_are_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    checkout = make_checkout(tmp_path / "clone").resolve()
    monkeypatch.chdir(checkout / "scenarios" / "melds")  # anywhere inside the checkout
    assert find_checkout() == checkout
    assert default_corpus_dir() == checkout / "scenarios"
    assert default_catalogue_path() == checkout / "conformance" / "data" / "catalogue.json"
    assert main(["check"]) == 0
    out = capsys.readouterr().out
    assert f"2 scenarios in 1 files: OK (corpus {checkout / 'scenarios'})" in out


def test_outside_a_checkout_the_installed_corpus_is_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert find_checkout() is None
    assert default_catalogue_path() is None
    assert default_corpus_dir() != tmp_path / "scenarios"


def test_the_run_header_names_the_corpus(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.chdir(ROOT)
    report = tmp_path / "r.json"
    assert main(["run", "--scenario", "cc-1200", "--json", str(report)]) == 0
    assert f"corpus: {ROOT / 'scenarios'}" in capsys.readouterr().out
    assert json.loads(report.read_text())["header"]["corpus_path"] == str(ROOT / "scenarios")


# --- item 12: example ids in the docs never collide -------------------------------------------


def test_check_refuses_an_example_id(tmp_path: Path) -> None:
    case = tmp_path / "example.yaml"
    case.write_text(
        f"id: {EXAMPLE_IDS[0]}\ntitle: t\nrules: [MELD-RUN-1]\nsource: s\nprofiles: [argentine]\n"
        "level: melds\nreview: checked\nchecks:\n  - penalty: [AS]\n    expect: {points: 20}\n",
        encoding="utf-8",
    )
    loaded = load_corpus([case])
    assert not loaded.scenarios
    assert "reserved for examples in the docs" in str(loaded.errors[0])


_ID = re.compile(r"cc-[0-9]{4}")


def _code_spans(text: str) -> list[str]:
    """Fenced blocks and inline code of a markdown text: where the examples are."""
    fenced = re.findall(r"```.*?```", text, flags=re.S)
    rest = re.sub(r"```.*?```", "", text, flags=re.S)
    return fenced + re.findall(r"`[^`\n]+`", rest)


def test_every_example_id_in_the_docs_is_reserved_and_every_cited_id_exists(
    corpus: tuple,  # type: ignore[type-arg]
) -> None:
    from tests.doc_samples import COUNTS
    from tests.regendoc import blocks

    real = {s.id for s in corpus[0]}
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = doc.read_text(encoding="utf-8")
        # What a real run printed (a regendoc block) and what a count names are no examples:
        # tests/test_regendoc.py checks them against the run and the corpus, and they must
        # name real cases (below, as prose does).
        ran = text.split("\n")
        for block in blocks(text):
            ran[block.start : block.stop] = [""] * (block.stop - block.start)
        shown = "\n".join(ran)
        for count in COUNTS:
            if doc == ROOT / count.page:
                shown = re.sub(count.pattern, "", shown)
        examples = {i for span in _code_spans(shown) for i in _ID.findall(span)}
        for sid in examples:
            assert is_example_id(sid), f"{doc.name}: example id {sid} is not in {EXAMPLE_IDS}"
        for sid in set(_ID.findall(text)) - examples:
            # Prose may name the reserved range itself; any other id must be a real case.
            assert sid in real or is_example_id(sid), f"{doc.name}: {sid} names no scenario"


def test_an_installed_copy_run_inside_a_checkout_reads_the_checkout(tmp_path: Path) -> None:
    # A newcomer's report, replayed: after a plain `pip install .`, a scenario added to the
    # checkout was not seen. Here an installed layout (the wheel's: conformance/corpus
    # inside the package) runs from inside a checkout holding one scenario more.
    import shutil
    import subprocess

    site = tmp_path / "site"
    ignore = shutil.ignore_patterns("__pycache__")
    for package in ("conformance", "reference"):
        shutil.copytree(ROOT / package, site / package, ignore=ignore)
    # One folder of the corpus stands for all of it: which corpus is read is the question,
    # and loading the whole corpus twice without a cache cost this test most of its time.
    part = ROOT / "scenarios" / "melds"
    shutil.copytree(part, site / "conformance" / "corpus" / "melds")
    clone = make_checkout(tmp_path / "clone")
    shutil.rmtree(clone / "scenarios")
    shutil.copytree(part, clone / "scenarios" / "melds")
    new = (ROOT / "scenarios" / "melds" / "run-listing-order.yaml").read_text(encoding="utf-8")
    new = new.replace("cc-1200", "cc-1398").replace("cc-1201", "cc-1399")
    (clone / "scenarios" / "melds" / "new.yaml").write_text(new, encoding="utf-8")
    env = {"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"}

    def check(cwd: Path) -> str:
        argv = [sys.executable, "-m", "conformance", "check"]
        done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        return done.stdout

    installed = len(load_corpus([part]).scenarios)
    inside = check(clone / "scenarios")
    assert f"{installed + 2} scenarios" in inside and str(clone / "scenarios") in inside
    outside = check(tmp_path)
    assert f"{installed} scenarios" in outside
    assert str(site / "conformance" / "corpus") in outside
