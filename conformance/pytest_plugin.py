"""pytest plugin (entry point ``carioca``): each scenario becomes a pytest item.

``pytest --carioca-adapter "CMD ARGS"`` collects the corpus (``--carioca-corpus PATH``
to pick another one) and runs each scenario against one adapter process per pytest
process, so it also works under pytest-xdist. Without ``--carioca-adapter`` the
plugin does nothing.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conformance.catalogue import CatalogueError, load_catalogue
from conformance.corpus import default_catalogue_path, default_corpus_dir
from conformance.profiles import DEFAULT_PROFILE, UnknownProfile, default_profiles
from conformance.runner import CaseResult, CaseRunner, RunOptions, section_of, start_session
from conformance.scenarios import Scenario, load_corpus

_SESSION_KEY = pytest.StashKey[Any]()


def pytest_addoption(parser: pytest.Parser) -> None:
    """Register the plugin's command-line options."""
    group = parser.getgroup("carioca", "Carioca conformance scenarios")
    group.addoption(
        "--carioca-adapter",
        metavar="CMD",
        default=None,
        help="run the Carioca scenario corpus against this adapter command",
    )
    group.addoption(
        "--carioca-corpus",
        metavar="PATH",
        default=None,
        help="scenario files or directory (default: the bundled corpus)",
    )
    group.addoption(
        "--carioca-profile",
        metavar="NAME",
        default=DEFAULT_PROFILE,
        help="rule profile to grade against (default: argentine)",
    )
    group.addoption(
        "--carioca-timeout", type=float, default=10.0, help="per-request timeout in seconds"
    )


class CariocaCaseFailed(Exception):
    """A scenario failed or errored; the message is the report text."""


class ScenarioItem(pytest.Item):
    """One scenario run as a test."""

    def __init__(self, *, scenario: Scenario, section: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.scenario = scenario
        self.section = section
        for tag in scenario.tags:
            self.add_marker(pytest.mark.carioca_tag(tag))

    def runtest(self) -> None:
        """Run the scenario on this process's adapter session."""
        runner: CaseRunner = _runner(self.config)
        result: CaseResult = runner.run(self.scenario, self.section)
        if result.status == "unsupported":
            pytest.skip(f"unsupported: {result.note}")
        if result.status == "fail":
            # Each failing check with its place (file:line), then the rules they break.
            rules = ", ".join(result.failed_rules)
            raise CariocaCaseFailed(f"{result.diff or 'failed'}\nfailing rules: {rules}")
        if result.status == "error":
            tail = f"\nengine stderr (tail):\n{result.stderr_tail}" if result.stderr_tail else ""
            raise CariocaCaseFailed(f"engine error: {result.error}{tail}")

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        """Show the scenario diff rather than a traceback into the harness."""
        if isinstance(excinfo.value, CariocaCaseFailed):
            return f"{self.scenario.id} {self.scenario.title}\n{excinfo.value}"
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int, str]:
        """Point at the scenario's file and line."""
        return Path(self.scenario.path), self.scenario.line - 1, self.scenario.id


class CorpusCollector(pytest.Collector):
    """Collects every scenario of the selected corpus that applies to the profile."""

    def collect(self) -> Iterator[pytest.Item]:
        """Yield one item per scenario, in corpus order."""
        config = self.config
        profile = config.getoption("carioca_profile")
        if profile not in default_profiles():
            raise pytest.UsageError(str(UnknownProfile(profile, tuple(default_profiles()))))
        corpus = config.getoption("carioca_corpus")
        try:
            catalogue = load_catalogue(default_catalogue_path())
        except CatalogueError:
            catalogue = None
        path = Path(corpus) if corpus else default_corpus_dir()
        loaded = load_corpus([path], catalogue=catalogue)
        if loaded.errors:
            raise pytest.UsageError(
                "broken scenario corpus:\n" + "\n".join(str(e) for e in loaded.errors)
            )
        for scenario in loaded.scenarios:
            if profile in scenario.profiles:
                yield ScenarioItem.from_parent(
                    self,
                    name=scenario.id,
                    scenario=scenario,
                    section=section_of(scenario, catalogue),
                )


def _runner(config: pytest.Config) -> CaseRunner:
    # One adapter per pytest process (each xdist worker has its own), started lazily.
    runner: CaseRunner | None = config.stash.get(_SESSION_KEY, None)
    if runner is None:
        argv = shlex.split(config.getoption("carioca_adapter"))
        options = RunOptions(
            profile=config.getoption("carioca_profile"),
            timeout=config.getoption("carioca_timeout"),
        )
        runner = CaseRunner(
            start_session(argv, options), options, load_catalogue(default_catalogue_path())
        )
        config.stash[_SESSION_KEY] = runner
    return runner


def pytest_configure(config: pytest.Config) -> None:
    """Declare the marker used for scenario tags (keeps --strict-markers happy)."""
    config.addinivalue_line("markers", "carioca_tag(name): a Carioca scenario tag")


def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    """Append the scenario items when ``--carioca-adapter`` is given."""
    if not config.getoption("carioca_adapter"):
        return
    collector = CorpusCollector.from_parent(session, name="carioca")
    items.extend(collector.collect())


def pytest_unconfigure(config: pytest.Config) -> None:
    """Close this process's adapter session."""
    runner: CaseRunner | None = config.stash.get(_SESSION_KEY, None)
    if runner is not None:
        runner.session.close()
