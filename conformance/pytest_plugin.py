"""pytest plugin (entry point ``carioca``): the corpus graded as pytest items, judged as
``run`` judges it.

``pytest --carioca-adapter "CMD ARGS"`` (or ``carioca_adapter = CMD ARGS`` in the ini file:
every ``--carioca-*`` option has an ini key ``carioca_*``) grades the corpus against an
adapter. Without an adapter the plugin does nothing. docs/pytest-plugin.md is the author's
page.

It is a door to ``run``, not a second judge: the items selected are one
:class:`~conformance.jobs.RunRequest`, run once per pytest process by
:func:`~conformance.jobs.run_request` (the consecutive-error stop, the expectations, the
laws, the causes) and judged by :func:`~conformance.run.verdict.judge` (nothing graded, the
``--carioca-min-graded`` gate, an op answered in some cases and refused as ``unsupported``
in others, broken laws), so a green means the same at both doors. What is the plugin's own:

- the profile is ``--carioca-profile``, else the one profile the engine's handshake lists;
  an engine listing several with none chosen, or not listing the one chosen, is one
  collection error (as is an adapter that cannot start: one error, one start);
- each scenario is one item, its node id naming its file
  (``scenarios/melds/run-shape.yaml::cc-0050``), reporting its case of the run: passed,
  failed, skipped when nothing of it could be graded, xfailed or xpassed under
  ``--carioca-expectations FILE`` (``--carioca-strict`` fails an xpass);
- ``--carioca-properties`` adds the laws (one item each: a law the engine's capabilities
  leave out is skipped as *not checked*) and ``--carioca-fuzz GAMES`` one fuzz campaign;
- the run's verdict travels on the first item's report, so under pytest-xdist the process
  that reports fails the session as ``run`` would (each worker runs the selection once).
"""

from __future__ import annotations

import math
import shlex
import warnings
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from conformance.adapter.command import AdapterCommandError, adapter_argv
from conformance.adapter.engine import Handshake
from conformance.adapter.limits import DEFAULT_CASE_TIMEOUT, DEFAULT_START_TIMEOUT, DEFAULT_TIMEOUT
from conformance.errors import EngineError, HarnessError
from conformance.grading.results import PropertyResult
from conformance.io.textsafe import terminal_text
from conformance.jobs import (
    RunOutcome,
    RunRequest,
    engine_handshake,
    handshake_profile,
    run_request,
)
from conformance.knowledge.catalogue import Catalogue, CatalogueError, load_catalogue
from conformance.knowledge.profiles import DEFAULT_PROFILE, ProfileError, default_profiles
from conformance.laws.properties import RULES as LAW_RULES
from conformance.laws.properties import check_properties
from conformance.reports.console import cause_lines, hidden_notes
from conformance.run.exitcodes import EXIT_OK
from conformance.run.expectations import Expectations, ExpectationsError
from conformance.run.runner import RunOptions, profile_unsupported
from conformance.run.verdict import Gates, judge, parse_share
from conformance.scenarios import Scenario, load_corpus
from conformance.scenarios.corpus import default_catalogue_path, default_corpus_dir

# --------------------------------------------------------------------------- settings


@dataclass(frozen=True)
class _Option:
    """One setting: ``--carioca-NAME`` on the command line, ``carioca_NAME`` in the ini."""

    name: str
    kind: str  # "text", "path", "bool", "int", "float", "share"
    default: Any
    help: str
    metavar: str | None = None

    @property
    def flag(self) -> str:
        return "--carioca-" + self.name.replace("_", "-")

    @property
    def ini(self) -> str:
        return "carioca_" + self.name

    @property
    def dest(self) -> str:
        """Where argparse keeps the command line's value."""
        return "carioca_" + self.name


OPTIONS: tuple[_Option, ...] = (
    _Option(
        "adapter", "text", None, "grade the Carioca corpus against this adapter command", "CMD"
    ),
    _Option(
        "profile",
        "text",
        None,
        "rule profile to grade (default: the one profile the engine's handshake lists)",
        "NAME",
    ),
    _Option(
        "corpus", "path", None, "scenario files or directory (default: the bundled corpus)", "PATH"
    ),
    _Option(
        "expectations",
        "path",
        None,
        "the engine's expectations file (as run --expectations): listed failures xfail",
        "FILE",
    ),
    _Option("strict", "bool", False, "an expected failure that passes (xpass) fails the session"),
    _Option("timeout", "float", DEFAULT_TIMEOUT, "per-request timeout in seconds", "S"),
    _Option("case_timeout", "float", DEFAULT_CASE_TIMEOUT, "per-case timeout in seconds", "S"),
    _Option(
        "start_timeout",
        "float",
        DEFAULT_START_TIMEOUT,
        "seconds the adapter has to answer hello",
        "S",
    ),
    _Option(
        "max_consecutive_errors",
        "int",
        5,
        "after this many errored cases in a row the rest fail as not run, unstarted",
        "N",
    ),
    _Option(
        "min_graded",
        "share",
        None,
        "fail the session unless this share of the checks was graded (0.9 or 90%%)",
        "SHARE",
    ),
    _Option(
        "no_explain",
        "bool",
        False,
        "do not ask the reference which option explains the failures (as run --no-explain)",
    ),
    _Option("properties", "bool", False, "also check the laws over seeded deals (one item each)"),
    _Option("seed", "int", 0, "seed of the laws' deals and of the fuzz campaign", "S"),
    _Option("deals", "int", 7, "deals played by --carioca-properties", "N"),
    _Option("fuzz", "int", 0, "also fuzz against the reference: GAMES games, as one item", "GAMES"),
    _Option(
        "fuzz_out",
        "path",
        "carioca-fuzz",
        "folder of the fuzz report and drafts (in the rootdir)",
        "DIR",
    ),
)


@dataclass(frozen=True)
class Settings:
    """The plugin's settings, read once from the command line and the ini file."""

    argv: tuple[str, ...]
    profile: str | None
    corpus: Path | None
    expectations: Expectations | None
    expectations_path: Path | None
    strict: bool
    options: RunOptions
    min_graded: float | None
    explain: bool
    properties: bool
    seed: int
    deals: int
    fuzz: int
    fuzz_out: Path


def _raw(config: pytest.Config, option: _Option) -> tuple[Any, Path | None, str]:
    """The value given for ``option``, the folder a relative path in it is relative to, and
    how to name where it was given. The command line wins (relative to where pytest runs),
    then the ini file (relative to its folder); the value is None when neither gives one."""
    value = config.getoption(option.dest)
    if value is not None:
        return value, config.invocation_params.dir, f"{option.flag} {value}"
    ini = config.getini(option.ini)
    if option.kind == "bool":
        return (True if ini else None), None, option.ini
    if isinstance(ini, str) and ini.strip():
        base = config.inipath.parent if config.inipath is not None else config.rootpath
        return ini.strip(), base, option.ini
    return None, None, ""


def _value(config: pytest.Config, option: _Option) -> Any:
    """``option``'s value, parsed and checked; a bad one is a usage error naming it."""
    raw, base, where = _raw(config, option)
    if raw is None:
        if option.kind == "path" and option.default is not None:
            return config.rootpath / option.default
        return option.default
    try:
        return _PARSERS[option.kind](raw, base)
    except ValueError as exc:
        raise pytest.UsageError(f"{where}: {exc}") from None


def _number(kind: Callable[[str], Any], least: float, what: str) -> Callable[[Any, Any], Any]:
    def parse(raw: Any, _base: Any) -> Any:
        try:
            value = kind(str(raw).strip())
        except ValueError:
            raise ValueError(f"expected {what}") from None
        if not (isinstance(value, int) or math.isfinite(value)) or value < least:
            raise ValueError(f"expected {what}")
        return value

    return parse


def _path(raw: Any, base: Path | None) -> Path:
    path = Path(str(raw)).expanduser()
    return path if path.is_absolute() or base is None else base / path


def _share(raw: Any, _base: Any) -> float:
    try:
        return parse_share(str(raw))
    except ValueError as exc:
        raise ValueError(str(exc).split(": ", 1)[-1]) from None


_PARSERS: dict[str, Callable[[Any, Any], Any]] = {
    "text": lambda raw, _base: str(raw),
    "path": _path,
    "bool": lambda raw, _base: bool(raw),
    "int": _number(int, 0, "a whole number, 0 or more"),
    "float": _number(float, 1e-9, "a positive number of seconds"),
    "share": _share,
}


def _settings(config: pytest.Config) -> Settings | None:
    """The settings, or None when no adapter is given (the plugin is then inert).

    :raises pytest.UsageError: for a bad value, an unknown profile, an unreadable
        expectations file or catalogue: before anything starts.
    """
    values = {option.name: _value(config, option) for option in OPTIONS}
    command = values["adapter"]
    if not command:
        return None
    try:
        argv, warning = adapter_argv(command)
    except AdapterCommandError as exc:
        raise pytest.UsageError(str(exc).replace("--adapter", "--carioca-adapter")) from None
    if warning:
        said = warning.replace("--adapter", "--carioca-adapter")
        config.issue_config_time_warning(CariocaWarning(said), stacklevel=2)
    profile = values["profile"]
    if profile is not None:
        try:
            default_profiles()[profile]
        except ProfileError as exc:
            where = _raw(config, next(o for o in OPTIONS if o.name == "profile"))[2]
            raise pytest.UsageError(f"{where}: {exc}") from None
    if values["max_consecutive_errors"] < 1:
        raise pytest.UsageError("--carioca-max-consecutive-errors must be at least 1")
    expectations = None
    if values["expectations"] is not None:
        from conformance.run.expectations import load_expectations

        try:
            expectations = load_expectations(values["expectations"])
        except ExpectationsError as exc:
            raise pytest.UsageError(str(exc)) from None
    options = RunOptions(
        # Until the handshake chooses (_State.options): RunOptions takes only a real profile.
        profile=profile or DEFAULT_PROFILE,
        timeout=values["timeout"],
        case_timeout=values["case_timeout"],
        start_timeout=values["start_timeout"],
        max_consecutive_errors=values["max_consecutive_errors"],
    )
    return Settings(
        argv=tuple(argv),
        profile=profile,
        corpus=values["corpus"],
        expectations=expectations,
        expectations_path=values["expectations"],
        strict=values["strict"],
        options=options,
        min_graded=values["min_graded"],
        explain=not values["no_explain"],
        properties=values["properties"],
        seed=values["seed"],
        deals=values["deals"],
        fuzz=values["fuzz"],
        fuzz_out=values["fuzz_out"],
    )


class CariocaWarning(pytest.PytestWarning):
    """Something about the set-up worth a look that does not stop the session."""


# --------------------------------------------------------------------------- hooks


def pytest_addoption(parser: pytest.Parser) -> None:
    """Register each setting as ``--carioca-NAME`` and as the ini key ``carioca_NAME``."""
    group = parser.getgroup("carioca", "Carioca conformance (docs/pytest-plugin.md)")
    for option in OPTIONS:
        given = option.default not in (None, False)
        text = f"{option.help} (ini {option.ini}{f'; default {option.default}' if given else ''})"
        if option.kind == "bool":
            group.addoption(option.flag, action="store_true", default=None, help=text)
            parser.addini(option.ini, option.help, type="bool", default=False)
        else:
            group.addoption(option.flag, metavar=option.metavar, default=None, help=text)
            # argparse help doubles a literal %; the ini listing prints it as written.
            parser.addini(option.ini, option.help.replace("%%", "%"), type="string", default="")


def pytest_configure(config: pytest.Config) -> None:
    """Read the settings (a bad one stops pytest before anything starts), declare the
    marker used for scenario tags (keeps --strict-markers happy), and with an adapter
    register the session's reporter."""
    config.addinivalue_line("markers", "carioca_tag(name): a Carioca scenario tag")
    settings = _settings(config)
    if settings is not None:
        state = _State(settings)
        config.stash[_STATE] = state
        config.pluginmanager.register(_Reporter(state), "carioca-reporter")


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(
    collector: pytest.Collector,
) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
    """Add the corpus to what the session collects, so pytest counts its items as it
    collects them (``collected N items`` is the number it then lists)."""
    report = yield
    state = collector.config.stash.get(_STATE, None)
    if state is not None and isinstance(collector, pytest.Session) and report.passed:
        corpus = CorpusCollector.from_parent(collector, name="carioca", nodeid="carioca")
        report.result.append(corpus)
    return report


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """A case its expectations list that passed: xpassed, or failed under strict."""
    report = yield
    skipped = isinstance(report.longrepr, tuple) and not hasattr(report, "wasxfail")
    if isinstance(item, ScenarioItem) and report.skipped and skipped:
        # Where the skip is listed: the scenario, not the line of the plugin that skipped it.
        path, line, _ = item.reportinfo()
        report.longrepr = (str(path), line + 1, report.longrepr[2])  # type: ignore[index]
    note = item.stash.get(_XPASS, None) if call.when == "call" else None
    if note is not None and report.passed:
        if item.config.stash[_STATE].settings.strict:
            report.outcome = "failed"
            report.longrepr = f"[XPASS(strict)] {note}"
        else:
            report.wasxfail = note
    return report


#: The user property, on the first item a process grades, that carries the session's
#: verdict from a worker to the process that reports (pytest-xdist sends user properties).
_VERDICT = "carioca_verdict"


class _Reporter:
    """Reads the session's verdict (in the process that reports: under xdist, the
    controller, from a worker's report) and fails a session whose run is not green."""

    def __init__(self, state: _State) -> None:
        self.state = state
        self.verdict: dict[str, Any] | None = None

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Keep the verdict the first graded item carries (every process judges the same
        run, so the first is as good as any)."""
        if report.when == "call" and self.verdict is None:
            for name, value in report.user_properties:
                if name == _VERDICT and isinstance(value, dict):
                    self.verdict = value

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """A session whose run is not green (nothing graded, a gate not met, an op answered
        in some cases and refused in others, …) fails, as ``run`` exits non-zero."""
        verdict = self.verdict
        if hasattr(session.config, "workerinput") or verdict is None:
            return  # a worker, or no case ran (deselected, or collection failed: said)
        if verdict["code"] != EXIT_OK and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        """What the run graded, its causes, and why it is not green (``run``'s words)."""
        verdict = self.verdict
        if verdict is None:
            return
        terminalreporter.write_line(f"carioca: profile {verdict['profile']}: {verdict['line']}")
        for line in verdict["causes"]:
            terminalreporter.write_line(f"carioca: {line}" if line else "")
        for line in verdict.get("notes", ()):
            terminalreporter.write_line(f"carioca: {line}")
        for reason in verdict["reasons"]:
            terminalreporter.write_line(f"carioca: error: {reason}", red=True, bold=True)


class _State:
    """This process's settings, corpus and handshake, made at collection, and the one run
    of the selected cases (:func:`conformance.jobs.run_request`), made when the first item
    needs it and read by every item."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.catalogue: Catalogue | None = None
        self.profile = settings.profile or ""
        self.scenarios: list[Scenario] = []
        self.corpus_label: str | None = None
        self.outcome: RunOutcome | None = None
        self.verdict_sent = False
        self._laws: dict[str, PropertyResult] | None = None

    @property
    def options(self) -> RunOptions:
        return replace(self.settings.options, profile=self.profile)

    def load_catalogue(self) -> Catalogue:
        if self.catalogue is None:
            try:
                self.catalogue = load_catalogue(default_catalogue_path())
            except CatalogueError as exc:
                raise CariocaSetupError(str(exc)) from None
        return self.catalogue

    def start(self) -> None:
        """Start the adapter once, shake hands and settle the profile.

        :raises CariocaSetupError: when the adapter cannot start, or the profile is not
            chosen and the engine lists several, or the engine does not list it.
        """
        try:
            handshake = engine_handshake(self.settings.argv, self.settings.options)
        except EngineError as exc:
            tail = f"\nadapter stderr (tail):\n{exc.stderr_tail}" if exc.stderr_tail else ""
            command = shlex.join(self.settings.argv)
            raise CariocaSetupError(f"adapter {command!r} could not start: {exc}{tail}") from None
        self.profile = self._profile(handshake)

    def _profile(self, handshake: Handshake) -> str:
        """The profile to grade: the chosen one, which the engine must list, else the only
        one it lists."""
        listed = handshake.profiles
        chosen = self.settings.profile
        if chosen is not None:
            if chosen not in listed:
                raise CariocaSetupError(
                    f"{profile_unsupported(chosen, handshake)}: nothing can be graded; "
                    "choose one of its profiles with --carioca-profile (ini carioca_profile)"
                )
            return chosen
        said = ", ".join(listed) or "none"
        known = [name for name in listed if name in default_profiles()]
        if not known:
            raise CariocaSetupError(
                f"the engine's handshake lists profiles {said}: none the harness knows "
                f"({', '.join(default_profiles())}), so nothing can be graded"
            )
        only = handshake_profile(handshake)
        if only is not None and len(listed) == 1:
            return only
        raise CariocaSetupError(
            f"the engine's handshake lists profiles {said}: choose the one to grade with "
            "--carioca-profile NAME (ini carioca_profile), one pytest run per profile"
        )

    def run(self, session: pytest.Session) -> RunOutcome | None:
        """The run of every case item of the session (after deselection), as ``run``
        grades it: one :class:`~conformance.jobs.RunRequest` (with the laws when law items
        are selected), made once per process; None when no case item is selected."""
        if self.outcome is None:
            items = session.items
            ids = tuple(item.scenario.id for item in items if isinstance(item, ScenarioItem))
            if not ids:
                return None
            settings = self.settings
            laws = any(isinstance(item, LawItem) for item in items) and settings.properties
            request = RunRequest(
                settings.argv,
                self.options,
                ids=ids,
                laws=(settings.seed, settings.deals) if laws else None,
                explain=settings.explain,
                expectations=settings.expectations,
                expectations_source=f"expectations file {settings.expectations_path}",
                corpus_label=self.corpus_label,
            )
            outcome = run_request(request, self.scenarios, catalogue=self.load_catalogue())
            if outcome.interrupted is not None:
                raise outcome.interrupted
            self.outcome = outcome
            for note in outcome.run.warnings:
                # Named as the run's, not as a line of the plugin.
                warnings.warn_explicit(CariocaWarning(note), CariocaWarning, "carioca run", 0)
        return self.outcome

    def verdict(self) -> dict[str, Any] | None:
        """The run's verdict as plain data (for the report that carries it), once per
        process: the first item graded carries it, the rest do not."""
        outcome = self.outcome
        if outcome is None or self.verdict_sent:
            return None
        self.verdict_sent = True
        run, settings = outcome.run, self.settings
        gates = Gates(min_graded=settings.min_graded, option="--carioca-min-graded")
        verdict = judge(run, self.catalogue, strict=settings.strict, gates=gates)
        line = verdict.tally.line() if verdict.tally is not None else ""
        return {
            "profile": run.profile,
            "code": verdict.code,
            "line": line,
            "reasons": list(verdict.reasons),
            "causes": cause_lines(run.causes),
            "notes": hidden_notes(run.results, self.catalogue),
        }

    def laws(self, session: pytest.Session) -> dict[str, PropertyResult]:
        """The laws' results by name: those of the run, or (no case item selected) checked
        alone by the same function on a fresh adapter."""
        if self._laws is None:
            outcome = self.run(session)
            found: Sequence[PropertyResult]
            if outcome is not None and outcome.run.properties:
                found = outcome.run.properties
            else:
                found = check_properties(
                    self.settings.argv,
                    self.options,
                    seed=self.settings.seed,
                    deals=self.settings.deals,
                )
            self._laws = {law.name: law for law in found}
        return self._laws


_STATE = pytest.StashKey[_State]()
_XPASS = pytest.StashKey[str]()


class CariocaSetupError(HarnessError):
    """The corpus cannot be graded at all (adapter, profile, corpus): one collection error."""


# --------------------------------------------------------------------------- nodes


class CariocaCaseFailed(Exception):
    """A scenario failed or errored; the message is the report text."""


class _CariocaItem(pytest.Item):
    """An item whose failures are reports, not tracebacks into the harness."""

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        """The report text of a failure; a traceback only for a harness bug."""
        if isinstance(excinfo.value, CariocaCaseFailed):
            return f"{self.name}\n{excinfo.value}"
        return super().repr_failure(excinfo)

    def _carry_verdict(self) -> None:
        """Attach the session's verdict to this item's report, if no item did yet."""
        verdict = self.config.stash[_STATE].verdict()
        if verdict is not None:
            self.user_properties.append((_VERDICT, verdict))


class ScenarioItem(_CariocaItem):
    """One scenario graded as a test."""

    def __init__(self, *, scenario: Scenario, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.scenario = scenario
        for tag in scenario.tags:
            self.add_marker(pytest.mark.carioca_tag(tag))

    def runtest(self) -> None:
        """Report the scenario's result in the session's run (made by the first item)."""
        state = self.config.stash[_STATE]
        outcome = state.run(self.session)
        assert outcome is not None  # this item is one of the run's cases
        self._carry_verdict()
        result = next(r for r in outcome.run.results if r.id == self.scenario.id)
        status = result.status
        if status == "unsupported":
            pytest.skip(f"unsupported: {result.note}")
        if status == "xfail":
            pytest.xfail(result.note or "expected failure")
        if status == "xpass":
            self.stash[_XPASS] = result.note or "listed as an expected failure but passed"
            return
        if status == "fail":
            # Each failing check with its place (file:line), then the rules they break.
            rules = ", ".join(result.failed_rules)
            note = f"\n{result.note}" if result.note else ""
            raise CariocaCaseFailed(f"{result.diff or 'failed'}\nfailing rules: {rules}{note}")
        if status == "error":
            tail = f"\nengine stderr (tail):\n{result.stderr_tail}" if result.stderr_tail else ""
            raise CariocaCaseFailed(f"engine error: {result.error}{tail}")
        if status == "not_run":
            raise CariocaCaseFailed(result.note or "not run")

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        """Show the scenario's report rather than a traceback into the harness, its control
        characters escaped (a scenario title is file text: conformance/io/textsafe.py)."""
        if isinstance(excinfo.value, CariocaCaseFailed):
            return terminal_text(f"{self.scenario.id} {self.scenario.title}\n{excinfo.value}")
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int, str]:
        """Point at the scenario's file and line."""
        return Path(self.scenario.path), self.scenario.line - 1, self.scenario.id


class LawItem(_CariocaItem):
    """One law checked over seeded deals (``--carioca-properties``)."""

    def runtest(self) -> None:
        """Report this law as the run checked it: a law the engine's capabilities leave
        out is skipped (*not checked*, as ``run --properties`` shows it), a broken one or
        one that could check nothing of what the engine claims fails."""
        state = self.config.stash[_STATE]
        laws = state.laws(self.session)
        self._carry_verdict()
        # No result of its own: the adapter could not start for the laws (``engine``).
        law = laws.get(self.name) or laws.get("engine")
        if law is None:
            raise CariocaCaseFailed("the law was not checked")
        if not law.applies:
            pytest.skip(f"{law.verdict}: {law.detail}")
        if not law.passed:
            raise CariocaCaseFailed(
                f"{law.verdict}: {law.detail}\nrules: {', '.join(law.rules)}; seed {law.seed}"
            )

    def reportinfo(self) -> tuple[str, int, str]:
        """Name the law."""
        return "carioca laws", 0, self.name


class FuzzItem(_CariocaItem):
    """A fuzz campaign against the reference (``--carioca-fuzz GAMES``)."""

    def runtest(self) -> None:
        """Play the campaign; findings (or nothing compared) fail the item."""
        from conformance.fuzz import FuzzOptions
        from conformance.fuzz.command import campaign

        state = self.config.stash[_STATE]
        settings = state.settings
        options = FuzzOptions(
            games=settings.fuzz,
            seed=settings.seed,
            profile=state.profile,
            timeout=settings.options.timeout,
        )
        outcome = campaign(
            settings.argv, options, state.load_catalogue(), settings.fuzz_out, handle_signals=False
        )
        if outcome.exit_code != 0:
            problem = f"\n{outcome.problem}" if outcome.problem else ""
            raise CariocaCaseFailed(f"{outcome.text}{problem}")

    def reportinfo(self) -> tuple[str, int, str]:
        """Name the campaign."""
        return "carioca fuzz", 0, f"fuzz {self.config.stash[_STATE].settings.fuzz} games"


class ScenarioFile(pytest.Collector):
    """The cases of one scenario file that apply to the profile."""

    def __init__(self, *, scenarios: Sequence[Scenario], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.scenarios = scenarios

    def collect(self) -> Iterator[pytest.Item]:
        """One item per case, in file order."""
        for scenario in self.scenarios:
            yield ScenarioItem.from_parent(self, name=scenario.id, scenario=scenario)


class LawsCollector(pytest.Collector):
    """The laws, one item each."""

    def collect(self) -> Iterator[pytest.Item]:
        """One item per law."""
        for name in LAW_RULES:
            yield LawItem.from_parent(self, name=name)


class CorpusCollector(pytest.Collector):
    """The corpus of the profile graded, by file; then the laws and the fuzz campaign when
    asked for. Starts this process's adapter (once): a failure here is one error."""

    def collect(self) -> Iterator[pytest.Item | pytest.Collector]:
        """The scenario files (each with its cases of the profile), the laws, the fuzz."""
        state = self.config.stash[_STATE]
        try:
            files = self._files(state)
        except CariocaSetupError as exc:
            raise self.CollectError(str(exc)) from None
        for label, scenarios in files:
            yield ScenarioFile.from_parent(self, name=label, nodeid=label, scenarios=scenarios)
        if state.settings.properties:
            yield LawsCollector.from_parent(self, name="laws")
        if state.settings.fuzz:
            yield FuzzItem.from_parent(self, name="fuzz")

    def _files(self, state: _State) -> list[tuple[str, list[Scenario]]]:
        """(node id label, the profile's cases) per scenario file, in corpus order: the
        corpus is read, then the adapter started for the profile to grade."""
        catalogue = state.load_catalogue()
        given = state.settings.corpus
        try:
            root = given if given is not None else default_corpus_dir()
        except FileNotFoundError as exc:
            raise CariocaSetupError(str(exc)) from None
        loaded = load_corpus([root], catalogue=catalogue)
        if loaded.errors:
            shown = "\n".join(str(e) for e in loaded.errors[:20])
            more = len(loaded.errors) - 20
            raise CariocaSetupError(
                f"the scenario corpus has {len(loaded.errors)} problem(s):\n{shown}"
                + (f"\n… and {more} more" if more > 0 else "")
            )
        state.scenarios = list(loaded.scenarios)
        state.corpus_label = None if given is None else str(given)
        # The adapter starts once the corpus is read: nothing it does can change what is read.
        state.start()
        by_file: dict[str, list[Scenario]] = {}
        for scenario in loaded.scenarios:
            if state.profile in scenario.profiles:
                label = _label(Path(scenario.path), root, given is None, self.config.rootpath)
                by_file.setdefault(label, []).append(scenario)
        if not by_file:
            raise CariocaSetupError(
                f"no scenario of the corpus {root} is for profile {state.profile}"
            )
        return list(by_file.items())


def _label(path: Path, root: Path, bundled: bool, rootpath: Path) -> str:
    """A scenario file as its node id shows it: ``scenarios/…`` for the bundled corpus, the
    path from the rootdir for one inside it, else from the corpus folder's name."""
    path, root = path.resolve(), root.resolve()
    base = root if root.is_dir() else root.parent
    within = path.relative_to(base).as_posix() if path.is_relative_to(base) else path.name
    if bundled:
        return f"scenarios/{within}"
    if path.is_relative_to(rootpath.resolve()):
        return path.relative_to(rootpath.resolve()).as_posix()
    return f"{base.name}/{within}"
