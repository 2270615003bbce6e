"""The ``slow`` tests are left out of a run that does not ask for them.

A test is slow when marked ``@pytest.mark.slow`` or listed in tests/slow_tests.txt (the
tests measured at a CPU second or more, so that ``tox`` stays a quick loop).

Tests marked ``slow`` (every mutant against its slice of the corpus, the mutant probes, the
fairness matrix) take most of the suite's time, so a plain ``pytest`` and ``tox`` leave
them out, and the run's summary says how many and how to run them (a test left out is no
pass). They run when asked for: ``pytest -m slow`` (``tox -e slow``, which CI runs after
``tox``), any ``-m`` or ``-k`` (the expression decides, as pytest's own), or a test named by
its node id (``tests/test_mutants.py::test_the_corpus_kills_the_mutant``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

_SLOW_LEFT_OUT = pytest.StashKey[int]()


def _chooses_tests(config: pytest.Config) -> bool:
    """Whether the command line chooses tests by expression: an ``-m`` or a ``-k``."""
    return bool(config.option.markexpr or config.option.keyword)


def _named(config: pytest.Config) -> list[tuple[Path, str]]:
    """The tests named by node id on the command line: (file, the id's part after ``::``)."""
    named = []
    for arg in config.args:
        path, sep, rest = str(arg).partition("::")
        if sep:
            named.append(((config.invocation_params.dir / path).resolve(), rest))
    return named


def _is_named(item: pytest.Item, named: list[tuple[Path, str]]) -> bool:
    """Whether a node id on the command line names ``item`` (or its function, or its class)."""
    _, _, rest = item.nodeid.partition("::")
    return any(
        item.path == path and (rest == want or rest.startswith((f"{want}::", f"{want}[")))
        for path, want in named
    )


#: Tests measured slow (tests/slow_tests.txt): marked ``slow`` as if decorated.
SLOW_LIST = Path(__file__).with_name("slow_tests.txt")


def listed_slow() -> frozenset[str]:
    """The node ids of tests/slow_tests.txt (comments and blank lines skipped)."""
    lines = SLOW_LIST.read_text(encoding="utf-8").splitlines()
    return frozenset(line for line in lines if line.strip() and not line.startswith("#"))


def _whole_suite(config: pytest.Config) -> bool:
    """Whether the command line collects every test (no path, node id or selection)."""
    tests = Path(__file__).resolve().parent
    given = [(config.invocation_params.dir / str(a)).resolve() for a in config.args]
    return given == [tests] and not _chooses_tests(config)


@pytest.hookimpl(tryfirst=True)  # before -m reads the markers
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the listed slow tests; leave out the ``slow`` tests the command line did not
    ask for."""
    listed = listed_slow()
    for item in items:
        if item.nodeid in listed:
            item.add_marker(pytest.mark.slow)
    if _whole_suite(config):
        stale = sorted(listed - {item.nodeid for item in items})
        if stale:
            raise pytest.UsageError(
                f"{SLOW_LIST.name} names tests that do not exist (renamed or removed?): "
                + ", ".join(stale)
            )
    if _chooses_tests(config):
        return
    named = _named(config)
    slow = [
        item
        for item in items
        if item.get_closest_marker("slow") is not None and not _is_named(item, named)
    ]
    if slow:
        left_out = {id(item) for item in slow}
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if id(item) not in left_out]
    config.stash[_SLOW_LEFT_OUT] = len(slow)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """An xdist worker hands its count to the controller, which collects nothing itself."""
    output = getattr(session.config, "workeroutput", None)
    if output is not None:
        output["slow_left_out"] = session.config.stash.get(_SLOW_LEFT_OUT, 0)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    """On the xdist controller: every worker collected the same tests, so any count will do."""
    count = getattr(node, "workeroutput", {}).get("slow_left_out", 0)
    config: pytest.Config = node.config
    config.stash[_SLOW_LEFT_OUT] = max(count, config.stash.get(_SLOW_LEFT_OUT, 0))


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """Say that slow tests were left out, and how to run them: a deselection is no pass."""
    left_out = config.stash.get(_SLOW_LEFT_OUT, 0)
    if left_out:
        terminalreporter.write_line(
            f"{left_out} slow tests left out: `pytest -m slow` or `tox -e slow` runs them (CI does)"
        )
