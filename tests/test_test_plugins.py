"""The suite's own pytest plugins: slow tests left out unless asked for, CPU durations.

Each case runs pytest on a small generated test file (pytester), with the plugin loaded by
``-p`` as tests/conftest.py loads it for the suite.
"""

from __future__ import annotations

import os
import re
import sys

import pytest

from tests.paths import ROOT

pytest_plugins = ["pytester"]


SUITE = """
import pytest

def test_fast():
    pass

@pytest.mark.slow
@pytest.mark.parametrize("n", [1, 2])
def test_sweep(n):
    pass

@pytest.mark.slow
class TestMatrix:
    def test_cell(self):
        pass
"""

SLOW = "-p tests.slow_selection"


def _outcomes(result: pytest.RunResult) -> set[str]:
    """The node ids that passed, as ``-rA`` lists them."""
    return set(re.findall(r"^PASSED (\S+)", result.stdout.str(), re.MULTILINE))


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeini("[pytest]\nmarkers =\n    slow: a whole sweep\n")
    pytester.makepyfile(test_suite=SUITE)
    return pytester


def test_a_plain_run_leaves_the_slow_tests_out_and_says_so(suite: pytest.Pytester) -> None:
    result = suite.runpytest(*SLOW.split(), "-rA")
    result.assert_outcomes(passed=1, deselected=3)
    assert _outcomes(result) == {"test_suite.py::test_fast"}
    result.stdout.fnmatch_lines(["3 slow tests left out: `pytest -m slow` or `tox -e slow`*"])


def test_a_test_listed_in_the_slow_file_is_slow_as_if_marked(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tests.slow_selection as selection

    listed = suite.path / "slow_tests.txt"
    listed.write_text("# measured\ntest_suite.py::test_fast\n", encoding="utf-8")
    monkeypatch.setattr(selection, "SLOW_LIST", listed)
    plain = suite.runpytest(*SLOW.split(), "-rA")
    plain.assert_outcomes(deselected=4)
    chosen = suite.runpytest(*SLOW.split(), "-rA", "-m", "slow")
    assert "test_suite.py::test_fast" in _outcomes(chosen)


def test_the_slow_file_names_only_tests_that_exist() -> None:
    # The whole-suite run refuses a stale line too; this says which, without running it.
    from tests.slow_selection import listed_slow

    files = {nodeid.partition("::")[0] for nodeid in listed_slow()}
    for name in files:
        assert (ROOT / name).is_file(), name
    for nodeid in listed_slow():
        path, _, rest = nodeid.partition("::")
        # The test function, or the class holding it (a stateful machine's TestCase).
        name = rest.split("::")[0].split("[")[0]
        text = (ROOT / path).read_text(encoding="utf-8")
        assert re.search(rf"^(def {name}\(|class {name}\b|{name} = )", text, re.M), nodeid


def test_marker_and_keyword_expressions_choose_as_pytest_does(suite: pytest.Pytester) -> None:
    slow = suite.runpytest(*SLOW.split(), "-rA", "-m", "slow")
    slow.assert_outcomes(passed=3, deselected=1)
    assert "slow tests left out" not in slow.stdout.str()
    everything = suite.runpytest(*SLOW.split(), "-rA", "-m", "slow or not slow")
    everything.assert_outcomes(passed=4)
    keyword = suite.runpytest(*SLOW.split(), "-rA", "-k", "sweep")
    assert _outcomes(keyword) == {"test_suite.py::test_sweep[1]", "test_suite.py::test_sweep[2]"}


def test_a_slow_test_named_by_its_node_id_runs(suite: pytest.Pytester) -> None:
    one = suite.runpytest(*SLOW.split(), "-rA", "test_suite.py::test_sweep[2]")
    assert _outcomes(one) == {"test_suite.py::test_sweep[2]"}
    # A function names its parameters, a class its methods; the rest of the file stays out.
    named = suite.runpytest(
        *SLOW.split(), "-rA", "test_suite.py::test_sweep", "test_suite.py::TestMatrix", "."
    )
    assert _outcomes(named) == {
        "test_suite.py::test_fast",
        "test_suite.py::test_sweep[1]",
        "test_suite.py::test_sweep[2]",
        "test_suite.py::TestMatrix::test_cell",
    }
    assert "slow tests left out" not in named.stdout.str()


def test_under_xdist_the_controller_says_what_its_workers_left_out(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The workers collect, the controller reports: the count must cross over (tox's way).
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    # Without the plugins this test needs none of, three interpreters start faster.
    unused = ("-p", "no:hypothesispytest", "-p", "no:carioca", "-p", "no:benchmark")
    result = suite.runpytest_subprocess(*SLOW.split(), *unused, "-n", "2")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["3 slow tests left out: *"])


def test_cpu_durations_count_the_subprocesses_a_test_waits_for(pytester: pytest.Pytester) -> None:
    # The child burns CPU and writes what it spent; the test that ran it must be charged at
    # least that much, and a test that runs nothing next to nothing.
    pytester.makepyfile(
        test_cpu=f"""
import subprocess, sys

CHILD = (
    "import resource, time\\n"
    "end = time.process_time() + 0.3\\n"
    "while time.process_time() < end: pass\\n"
    "use = resource.getrusage(resource.RUSAGE_SELF)\\n"
    "print(use.ru_utime + use.ru_stime)\\n"
)

def test_runs_a_child():
    done = subprocess.run([{sys.executable!r}, "-c", CHILD], capture_output=True, text=True)
    open("child.txt", "w").write(done.stdout)

def test_idle():
    pass
"""
    )
    result = pytester.runpytest("-p", "tests.cpu_durations", "--cpu-durations=0")
    result.assert_outcomes(passed=2)
    spent = float((pytester.path / "child.txt").read_text())
    out = result.stdout.str()
    charged = {
        name: float(seconds)
        for seconds, name in re.findall(r"^\s+([\d.]+)s test_cpu\.py::(\w+)$", out, re.MULTILINE)
    }
    # The figures are printed to two decimals, so each is within half a hundredth of the exact
    # charge, which is at least what the child spent: compare with that allowance, never more.
    rounding = 0.005 + 1e-9
    assert charged["test_runs_a_child"] + rounding >= spent >= 0.3
    assert charged["test_idle"] < 0.3
    assert re.search(r"CPU seconds: [\d.]+ over 2 tests", out)


def test_cpu_durations_say_nothing_unless_asked(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_quiet="def test_x():\n    pass\n")
    result = pytester.runpytest("-p", "tests.cpu_durations", "--junitxml=out.xml")
    result.assert_outcomes(passed=1)
    assert "CPU seconds" not in result.stdout.str()
    assert "cpu_seconds" not in (pytester.path / "out.xml").read_text()
