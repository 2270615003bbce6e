"""The pytest plugin, tried as an engine author would: in a scratch engine repository
(pytester's folder, with its own ini file), against fake engines.

It must judge as ``run`` does: the profile from the handshake, one error for an adapter
that cannot start or a profile it cannot grade, the expectations file, and no green for a
session that graded nothing.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest
import yaml  # noqa: F401

#: An engine that answers is all these tests need: the reference answers in-process
#: (tests/adapters.py); the tests of what its process does run it as a process.
pytestmark = pytest.mark.usefixtures("reference_in_process")

# pytester runs pytest in this process and then drops the modules the run imported; PyYAML's
# C loader cannot be imported a second time (its nodes would no longer match), so it is
# imported here, before any run, and every run shares it.
pytest_plugins = ["pytester"]

DATA = Path(__file__).parent / "data"
GOOD = DATA / "good"
FAKE = shlex.join([sys.executable, str(DATA / "fake_engine.py")])
REFERENCE = shlex.join([sys.executable, "-m", "reference.adapter"])

#: An engine with no rules: it echoes load_state and answers unsupported to the rest.
ECHO_ENGINE = """
import json, sys
for line in sys.stdin:
    request = json.loads(line)
    op = request["op"]
    if op == "hello":
        answer = {
            "protocol": 1,
            "implementation": {"name": "echo", "version": "0", "language": "python"},
            "profiles": ["argentine"],
            "capabilities": ["melds", "turns", "deals", "reasons"],
            "rulings": {},
        }
    elif op == "bye":
        print(json.dumps({"id": request["id"]}), flush=True)
        break
    elif op == "load_state":
        answer = {"state": request["state"]}
    else:
        answer = {"error": {"kind": "unsupported", "message": "no " + op}}
    print(json.dumps({"id": request["id"], **answer}), flush=True)
"""

#: An adapter that cannot start, counting each attempt in starts.txt beside it.
DEAD_ENGINE = """
import pathlib, sys
with open(pathlib.Path(__file__).with_name("starts.txt"), "a") as starts:
    starts.write("start\\n")
print("this engine cannot start: no licence", file=sys.stderr)
sys.exit(4)
"""


def carioca(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    """pytest with the plugin, in the scratch repository."""
    return pytester.runpytest("-p", "carioca", "-p", "no:cacheprovider", *args)


def test_inert_without_an_adapter(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_x():\n    assert True\n")
    result = carioca(pytester)
    result.assert_outcomes(passed=1)
    assert "carioca:" not in result.stdout.str()


def test_scenarios_become_items_named_by_their_file(pytester: pytest.Pytester) -> None:
    result = carioca(
        pytester, f"--carioca-adapter={FAKE} --wrong-penalty", f"--carioca-corpus={GOOD}", "-v"
    )
    result.assert_outcomes(passed=4, failed=1)
    # The corpus lies outside the rootdir: the ids start at its folder.
    result.stdout.fnmatch_lines(
        [
            "good/disputed.yaml::cc-0005 PASSED*",
            "good/melds.yaml::cc-0001 FAILED*",
            "good/melds.yaml::cc-0002 PASSED*",
        ]
    )
    # A failure is the case's report (rule, expected against got), not a traceback.
    result.stdout.fnmatch_lines(["*cc-0001 Ace, queen*", "*expected 33*", "*SCORE-2*"])
    assert "Traceback" not in result.stdout.str()
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_collect_only_counts_what_it_lists(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_own():\n    pass\n")
    result = carioca(pytester, f"--carioca-adapter={FAKE}", f"--carioca-corpus={GOOD}")
    result.stdout.fnmatch_lines(["collected 6 items"])
    result.assert_outcomes(passed=6)
    listed = carioca(
        pytester, f"--carioca-adapter={FAKE}", f"--carioca-corpus={GOOD}", "--collect-only", "-q"
    )
    ids = [line for line in listed.outlines if "::" in line]
    assert len(ids) == 6
    assert "good/turns.yaml::cc-0004" in ids
    listed.stdout.fnmatch_lines(["6 tests collected*"])


def test_an_ini_file_alone_sets_it_up_and_the_profile_comes_from_the_handshake(
    pytester: pytest.Pytester,
) -> None:
    # A copy of the corpus inside the repository: the ids are its paths from the rootdir.
    corpus = pytester.path / "conformance" / "corpus"
    corpus.mkdir(parents=True)
    for source in GOOD.iterdir():
        (corpus / source.name).write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
    pytester.makeini(
        f"""
        [pytest]
        carioca_adapter = {FAKE}
        carioca_corpus = conformance/corpus
        """
    )
    result = carioca(pytester, "-v")
    result.assert_outcomes(passed=5)
    result.stdout.fnmatch_lines(
        [
            "conformance/corpus/melds.yaml::cc-0001 PASSED*",
            "carioca: profile argentine: graded 27/27 checks",
        ]
    )
    assert result.ret == pytest.ExitCode.OK


def test_an_engine_listing_several_profiles_must_be_told_which(pytester: pytest.Pytester) -> None:
    result = carioca(pytester, f"--carioca-adapter={REFERENCE}", f"--carioca-corpus={GOOD}")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "*lists profiles argentine, chilean, pagat, perla: choose the one to grade with "
            "--carioca-profile NAME (ini carioca_profile)*"
        ]
    )
    assert result.ret != pytest.ExitCode.OK


def test_a_profile_the_engine_does_not_list_is_one_error(pytester: pytest.Pytester) -> None:
    result = carioca(
        pytester,
        f"--carioca-adapter={FAKE}",
        f"--carioca-corpus={GOOD}",
        "--carioca-profile=perla",
    )
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        ["*does not support profile 'perla': its handshake lists profiles argentine*"]
    )
    assert result.ret != pytest.ExitCode.OK


def test_an_adapter_that_cannot_start_is_one_error_and_one_attempt(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(dead_engine=DEAD_ENGINE)
    command = shlex.join([sys.executable, str(pytester.path / "dead_engine.py")])
    result = carioca(pytester, f"--carioca-adapter={command}", f"--carioca-corpus={GOOD}")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*could not start*", "*this engine cannot start: no licence*"])
    assert "Traceback" not in result.stdout.str()
    assert (pytester.path / "starts.txt").read_text().splitlines() == ["start"]
    assert result.ret != pytest.ExitCode.OK


@pytest.mark.parametrize("engine", ["nothing claimed", "echo"])
def test_a_session_that_grades_nothing_fails(pytester: pytest.Pytester, engine: str) -> None:
    if engine == "echo":
        pytester.makepyfile(echo_engine=ECHO_ENGINE)
        command = shlex.join([sys.executable, str(pytester.path / "echo_engine.py")])
    else:
        command = f"{FAKE} --capabilities ,"
    result = carioca(pytester, f"--carioca-adapter={command}", f"--carioca-corpus={GOOD}")
    result.assert_outcomes(skipped=5)
    result.stdout.fnmatch_lines(
        ["carioca: error: profile argentine: nothing was graded: 0 of 27 checks*"]
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_some_graded_is_a_pass_and_min_graded_is_a_gate(pytester: pytest.Pytester) -> None:
    args = [f"--carioca-adapter={FAKE} --capabilities melds", f"--carioca-corpus={GOOD}"]
    result = carioca(pytester, *args)
    result.assert_outcomes(passed=2, skipped=3)
    result.stdout.fnmatch_lines(
        [
            "carioca: profile argentine: graded 4/27 checks (not graded: 23*",
        ]
    )
    # A capability not claimed is counted on that line, not noted section by section.
    assert "carioca: note:" not in result.stdout.str()
    assert result.ret == pytest.ExitCode.OK
    gated = carioca(pytester, *args, "--carioca-min-graded=50%")
    gated.stdout.fnmatch_lines(["*4/27 checks graded (14.8%), under --carioca-min-graded 50%"])
    assert gated.ret == pytest.ExitCode.TESTS_FAILED


def test_expectations_whole_cases_checks_and_strict(pytester: pytest.Pytester) -> None:
    pytester.makefile(
        ".yaml",
        expected="""
        expected_failures:
          cc-0001:
            checks:
              check 1: {reason: "our penalty is one off"}
          cc-0002: {reason: "listed, but it passes"}
          cc-9999: {reason: "no such case"}
        """,
    )
    args = [
        f"--carioca-adapter={FAKE} --wrong-penalty",
        f"--carioca-corpus={GOOD}",
        "--carioca-expectations=expected.yaml",
        "-rxX",
    ]
    result = carioca(pytester, *args)
    result.assert_outcomes(passed=3, xfailed=1, xpassed=1, warnings=1)
    result.stdout.fnmatch_lines(
        [
            "*expected.yaml*names 1 id(s) that are not in the corpus: cc-9999",
            "XFAIL good/melds.yaml::cc-0001 - expected failure of check(s) check 1*",
            "XPASS good/melds.yaml::cc-0002 - listed as an expected failure*but passed",
        ]
    )
    assert result.ret == pytest.ExitCode.OK
    strict = carioca(pytester, *args, "--carioca-strict")
    strict.assert_outcomes(passed=3, xfailed=1, failed=1, warnings=1)
    strict.stdout.fnmatch_lines(["[[]XPASS(strict)] listed as an expected failure*"])
    assert strict.ret == pytest.ExitCode.TESTS_FAILED


def test_expectations_never_cover_another_failure(pytester: pytest.Pytester) -> None:
    # Listed by a check it does not make: the failing check still fails the case.
    pytester.makefile(
        ".yaml", expected="expected_failures:\n  cc-0001:\n    checks:\n      check 9: {}\n"
    )
    result = carioca(
        pytester,
        f"--carioca-adapter={FAKE} --wrong-penalty",
        f"--carioca-corpus={GOOD}",
        "--carioca-expectations=expected.yaml",
    )
    result.assert_outcomes(passed=4, failed=1)


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--carioca-timeout=nan"], "--carioca-timeout nan: expected a positive number*"),
        (["--carioca-profile=klondike"], "--carioca-profile klondike: *klondike*"),
        (["--carioca-expectations=missing.yaml"], "*cannot read expectations file*missing.yaml*"),
        (["--carioca-min-graded=2"], "--carioca-min-graded 2: must be between 0 and 1*"),
    ],
)
def test_a_bad_setting_stops_pytest_before_anything_starts(
    pytester: pytest.Pytester, args: list[str], said: str
) -> None:
    pytester.makepyfile(dead_engine=DEAD_ENGINE)
    command = shlex.join([sys.executable, str(pytester.path / "dead_engine.py")])
    result = carioca(pytester, f"--carioca-adapter={command}", *args)
    result.stderr.fnmatch_lines([f"ERROR: {said}"])
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert not (pytester.path / "starts.txt").exists()


def test_a_bad_ini_value_is_named_by_its_key(pytester: pytest.Pytester) -> None:
    pytester.makeini(f"[pytest]\ncarioca_adapter = {FAKE}\ncarioca_deals = many\n")
    result = carioca(pytester)
    result.stderr.fnmatch_lines(["ERROR: carioca_deals: expected a whole number, 0 or more"])
    assert result.ret == pytest.ExitCode.USAGE_ERROR


def test_laws_and_fuzz_are_items_only_when_asked_for(pytester: pytest.Pytester) -> None:
    base = [f"--carioca-adapter={FAKE}", f"--carioca-corpus={GOOD}", "--collect-only", "-q"]
    plain = carioca(pytester, *base)
    assert not [line for line in plain.outlines if line.startswith("carioca::")]
    asked = carioca(pytester, *base, "--carioca-properties", "--carioca-fuzz=5")
    laws = [line for line in asked.outlines if line.startswith("carioca::")]
    assert laws == [
        "carioca::laws::conservation",
        "carioca::laws::rejected-leaves-unchanged",
        "carioca::laws::illegal-actions-rejected",
        "carioca::laws::determinism",
        "carioca::laws::scoring-at-close",
        "carioca::laws::random-choices",
        "carioca::fuzz",
    ]


def test_a_law_that_could_check_nothing_is_no_pass(pytester: pytest.Pytester) -> None:
    # The fake engine claims no deals: every law is "not checked", which is no pass (a
    # skip) and, as in run --properties, no failure: the cases grade what it claims.
    args = [f"--carioca-adapter={FAKE}", f"--carioca-corpus={GOOD}", "--carioca-properties"]
    result = carioca(pytester, *args, "-k", "laws", "-rs")
    result.assert_outcomes(skipped=6, deselected=5)
    result.stdout.fnmatch_lines(["*not checked: *the engine does not claim deals*"])
    assert result.ret == pytest.ExitCode.OK
    # With the cases, the laws are the run's own: the same verdict.
    whole = carioca(pytester, *args)
    whole.assert_outcomes(passed=5, skipped=6)
    assert whole.ret == pytest.ExitCode.OK


@pytest.mark.slow
def test_a_perla_only_engine_is_graded_on_perla_from_an_ini_file(
    pytester: pytest.Pytester,
) -> None:
    """The author's set-up (docs/pytest-plugin.md): an ini file, no conftest.py, no
    profile named: a Perla-only engine is graded on the bundled corpus's Perla slice."""
    pytester.makeini(f"[pytest]\ncarioca_adapter = {REFERENCE} --profiles perla\n")
    result = carioca(pytester, "-q", "-rs")
    outcomes = result.parseoutcomes()
    assert outcomes.get("passed", 0) >= 100
    assert set(outcomes) <= {"passed", "skipped"}
    # The only cases skipped are those written for an interface reading the reference does
    # not declare (an engine that arranges its runs or picks lay-off ends), each saying so.
    skips = [line for line in result.outlines if line.startswith("SKIPPED")]
    assert len(skips) == outcomes.get("skipped", 0)
    assert all("the case is written for engines with run_" in line for line in skips)
    result.stdout.fnmatch_lines(["carioca: profile perla: graded *checks*"])
    assert result.ret == pytest.ExitCode.OK
    ids = [line for line in carioca(pytester, "--collect-only", "-q").outlines if "::" in line]
    assert len(ids) == outcomes["passed"] + outcomes.get("skipped", 0)
    assert all(line.startswith("scenarios/") and ".yaml::cc-" in line for line in ids)


@pytest.mark.slow
def test_laws_and_fuzz_pass_a_correct_engine(pytester: pytest.Pytester) -> None:
    result = carioca(
        pytester,
        f"--carioca-adapter={REFERENCE} --profiles perla",
        "--carioca-properties",
        "--carioca-deals=1",
        "--carioca-fuzz=2",
        "--carioca-fuzz-out=fuzzed",
        "-k",
        "laws or fuzz",
    )
    collected = carioca(
        pytester, f"--carioca-adapter={REFERENCE} --profiles perla", "--collect-only", "-q"
    )
    cases = sum(1 for line in collected.outlines if ".yaml::cc-" in line)
    assert cases >= 100  # the Perla slice of the bundled corpus
    result.assert_outcomes(passed=7, deselected=cases)
    assert (pytester.path / "fuzzed" / "fuzz-report.json").is_file()


def test_under_xdist(pytester: pytest.Pytester) -> None:
    result = carioca(pytester, "-n", "2", f"--carioca-adapter={FAKE}", f"--carioca-corpus={GOOD}")
    result.assert_outcomes(passed=5)
    result.stdout.fnmatch_lines(["carioca: profile argentine: graded 27/27 checks"])


def test_under_xdist_nothing_graded_still_fails(pytester: pytest.Pytester) -> None:
    result = carioca(
        pytester,
        "-n",
        "2",
        f"--carioca-adapter={FAKE} --capabilities ,",
        f"--carioca-corpus={GOOD}",
    )
    result.assert_outcomes(skipped=5)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
