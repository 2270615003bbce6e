"""The pytest plugin: scenarios as items, inert without --carioca-adapter, works under xdist."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

DATA = Path(__file__).parent / "data"
FAKE = shlex.join([sys.executable, str(DATA / "fake_engine.py")])


def test_inert_without_option(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_x():\n    assert True\n")
    result = pytester.runpytest("-p", "carioca")
    result.assert_outcomes(passed=1)


def test_scenarios_become_items(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(
        "-p",
        "carioca",
        "--carioca-adapter",
        FAKE + " --wrong-penalty",
        "--carioca-corpus",
        str(DATA / "good"),
        "-v",
    )
    result.assert_outcomes(passed=4, failed=1)
    result.stdout.fnmatch_lines(["*cc-0001*FAILED*", "*expected 33*"])


def test_unsupported_cases_are_skipped(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(
        "-p",
        "carioca",
        "--carioca-adapter",
        FAKE + " --capabilities melds",
        "--carioca-corpus",
        str(DATA / "good"),
    )
    result.assert_outcomes(passed=2, skipped=3)


def test_under_xdist(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(
        "-p",
        "carioca",
        "-n",
        "2",
        "--carioca-adapter",
        FAKE,
        "--carioca-corpus",
        str(DATA / "good"),
    )
    result.assert_outcomes(passed=5)
