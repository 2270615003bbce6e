"""``--cpu-durations=N``: the N tests that cost the most CPU, counting their subprocesses.

Wall-clock durations (``--durations``) on a shared, loaded machine say more about the other
work on it than about a test: the same test took 3 s and 23 s an hour apart. CPU seconds
(user + system, of the test process and of every child it started and waited for: the
adapters, the mutants, the ``python -m`` commands) hardly move with the load, so they are
what to compare before and after a change, and what decides which tests are ``slow``.

Each phase (setup, call, teardown) is measured in the process that runs it, so a
module-scoped fixture is charged to the first test that asks for it; under ``pytest -n``
the figures travel to the controller in the report's ``user_properties``. A child that is
still running when the phase ends (none should be) is not counted.
"""

from __future__ import annotations

import resource
from collections.abc import Generator
from typing import Any

import pytest

_KEY = "cpu_seconds"


def _cpu_seconds() -> float:
    """User + system seconds of this process and its waited-for children so far."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def pytest_addoption(parser: pytest.Parser) -> None:
    """Register ``--cpu-durations``."""
    parser.addoption(
        "--cpu-durations",
        type=int,
        default=None,
        metavar="N",
        help="show the N tests with the most CPU seconds, subprocesses included (0: all)",
    )


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[Any]:
    """Attach the phase's CPU seconds to its report (set by the phase hooks below)."""
    outcome = yield
    spent = item.stash.get(_PHASE_CPU, {}).get(call.when)
    if spent is not None and item.config.getoption("--cpu-durations") is not None:
        outcome.get_result().user_properties.append((_KEY, spent))


_PHASE_CPU = pytest.StashKey[dict[str, float]]()


def _measured(item: pytest.Item, when: str) -> Generator[None]:
    start = _cpu_seconds()
    yield
    item.stash.setdefault(_PHASE_CPU, {})[when] = _cpu_seconds() - start


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None]:
    """Measure the setup phase (fixtures)."""
    yield from _measured(item, "setup")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None]:
    """Measure the test body."""
    yield from _measured(item, "call")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Generator[None]:
    """Measure the teardown phase."""
    yield from _measured(item, "teardown")


class _Totals:
    """CPU seconds per test id, summed over its phases, gathered on the controller."""

    def __init__(self) -> None:
        self.by_test: dict[str, float] = {}

    @pytest.hookimpl
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        for key, value in report.user_properties:
            if key == _KEY:
                self.by_test[report.nodeid] = self.by_test.get(report.nodeid, 0.0) + value

    @pytest.hookimpl
    def pytest_terminal_summary(self, terminalreporter: Any, config: pytest.Config) -> None:
        count = config.getoption("--cpu-durations")
        ranked = sorted(self.by_test.items(), key=lambda kv: kv[1], reverse=True)
        total = sum(self.by_test.values())
        terminalreporter.write_sep("=", f"CPU seconds: {total:.1f} over {len(ranked)} tests")
        for nodeid, seconds in ranked[: count or None]:
            terminalreporter.write_line(f"{seconds:8.2f}s {nodeid}")


def pytest_configure(config: pytest.Config) -> None:
    """Gather the figures only when asked (on the controller under xdist)."""
    if config.getoption("--cpu-durations") is not None and not hasattr(config, "workerinput"):
        config.pluginmanager.register(_Totals(), "cpu-durations-totals")
