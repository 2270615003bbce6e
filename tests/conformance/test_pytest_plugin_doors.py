"""The two doors give one verdict: ``run`` and the pytest plugin, on the same fault-injected
engines (tests/fake_adapters/, tests/mutants/), come to the same green or not green, because
the plugin builds the run's own request and reads the run's own verdict (conformance/jobs.py,
conformance/run/verdict.py).

Each engine is tried on one small folder of the corpus, through ``run`` (its exit code) and
through pytest with the plugin in a scratch repository (its exit status).
"""

from __future__ import annotations

import shlex
import sys

import pytest
import yaml  # noqa: F401  (imported once: pytester drops the modules a run imports)

from conformance.cli import main
from conformance.run.exitcodes import EXIT_FAILED, EXIT_OK, EXIT_UNGRADED
from tests.mutants.harness import make_root_importable, mutant_argv
from tests.paths import ROOT

pytest_plugins = ["pytester"]

FAKES = ROOT / "tests" / "fake_adapters"
REFUSING = shlex.join([sys.executable, str(FAKES / "refusing_proxy.py")])
ECHO = shlex.join([sys.executable, str(FAKES / "echo_engine.py")])
REFERENCE = shlex.join([sys.executable, "-m", "reference.adapter"])

#: (engine, corpus folder, extra ``run`` flags, the exit code ``run`` must give).
ENGINES = {
    # Refusing request by request hides what it would fail: not green at either door.
    "unsupported every second request": (f"{REFUSING} --every 2", "melds", [], EXIT_FAILED),
    # A scoring bug hidden behind unsupported for each close (discards answered elsewhere).
    "unsupported for the close": (
        f"{REFUSING} --op penalty --ending-deal",
        "end",
        [],
        EXIT_FAILED,
    ),
    # One op refused everywhere is an op the engine lacks: allowed at both doors.
    "one op refused everywhere": (f"{REFUSING} --op penalty", "scoring", [], EXIT_OK),
    # A melds-only engine: the laws are not checked, which fails neither door.
    "melds only, with the laws": (
        f"{REFERENCE} --capabilities melds",
        "melds",
        ["--properties", "--deals", "1"],
        EXIT_OK,
    ),
    "echo, nothing graded": (ECHO, "end", [], EXIT_UNGRADED),
    "mutant: a joker left in hand costs 25": (
        shlex.join(mutant_argv("joker_worth_25")),
        "end",
        [],
        EXIT_FAILED,
    ),
}

#: ``run``'s flags as the plugin spells them.
PLUGIN_FLAGS = {"--properties": "--carioca-properties", "--deals": "--carioca-deals"}


def plugin_args(extra: list[str]) -> list[str]:
    """``run``'s extra flags as plugin options."""
    found, pairs = [], iter(extra)
    for flag in pairs:
        if flag == "--deals":
            found.append(f"--carioca-deals={next(pairs)}")
        else:
            found.append(PLUGIN_FLAGS[flag])
    return found


@pytest.mark.parametrize("name", list(ENGINES))
def test_run_and_the_plugin_give_the_same_verdict(
    name: str, pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    make_root_importable()
    engine, folder, extra, code = ENGINES[name]
    corpus = ROOT / "scenarios" / folder
    args = ["run", str(corpus), "--adapter", engine, "--profile", "argentine", "-q"]
    assert main([*args, "--no-explain", *extra]) == code
    capsys.readouterr()
    result = pytester.runpytest(
        "-p",
        "carioca",
        "-p",
        "no:cacheprovider",
        f"--carioca-adapter={engine}",
        f"--carioca-corpus={corpus}",
        "--carioca-profile=argentine",
        "--carioca-no-explain",
        *plugin_args(extra),
    )
    green = pytest.ExitCode.OK if code == EXIT_OK else pytest.ExitCode.TESTS_FAILED
    assert result.ret == green, result.stdout.str()[-3000:]
    if code != EXIT_OK:
        result.stdout.fnmatch_lines(["carioca: *profile argentine: graded *"])
