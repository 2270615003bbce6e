"""Running scenarios through engine adapters: sessions, workers, time limits, requests sent
ahead. Each case is graded check by check (conformance/grading, docs/scenario-format.md
"Checks"), and every selected case ends with exactly one status:

``pass``         every graded check held, and at least one of the case's own was graded
``fail``         some check did not hold (each failing check names its own rules)
``error``        the engine misbehaved (crash, timeout, protocol breach, error answer);
                 the adapter is restarted and the run goes on
``unsupported``  no check of the case could be graded against this engine
``not_run``      skipped after too many consecutive errors
``xfail``/``xpass``  a failure the engine's expectations file lists / a listed case that passed

Every case lists all its checks (CaseResult.checks), whatever its status.
"""

from __future__ import annotations

import contextlib
import gc
import queue
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from conformance.adapter.declarations import Declarations, declarations
from conformance.adapter.engine import Ahead, EngineSession, Handshake, Request, Then
from conformance.adapter.limits import (
    DEFAULT_CASE_TIMEOUT,
    DEFAULT_MAX_LINE_BYTES,
    DEFAULT_START_TIMEOUT,
    DEFAULT_TIMEOUT,
)
from conformance.adapter.memlimit import DEFAULT_MEMORY_LIMIT
from conformance.errors import (
    EngineError,
    EngineReportedError,
    EngineTimeout,
    InvalidRequest,
    SessionError,
)
from conformance.grading.answers import Judge
from conformance.grading.expect import Resolutions
from conformance.grading.ledger import Ledger
from conformance.grading.refusals import ENGINE_SAYS, as_refused_state
from conformance.grading.requests import RequestBook, melds_requests, scenario_players
from conformance.grading.results import (
    CASE_TEXT_FIELDS,
    STATUSES,
    CaseResult,
    CheckResult,
    RunResult,
    count_statuses,
)
from conformance.grading.support import OpBook, merged, refused_states, support_warnings
from conformance.grading.walk import LEVEL_CAPABILITIES, CaseWalk, Gap, why_ungradable
from conformance.io.textsafe import cap_total
from conformance.knowledge.catalogue import Catalogue
from conformance.knowledge.profiles import (
    DEFAULT_PROFILE,
    ProfileData,
    ProfileError,
    default_profiles,
)
from conformance.run.warmup import WarmUp
from conformance.scenarios import Scenario, corpus_digest
from conformance.scenarios.identity import kept

__all__ = [  # the result types live in conformance.grading.results; re-exported for callers
    "CASE_TEXT_FIELDS",
    "LEVEL_CAPABILITIES",
    "STATUSES",
    "CaseResult",
    "CheckResult",
    "RunResult",
    "count_statuses",
]


@dataclass(frozen=True)
class RunOptions:
    """Knobs of a run (the CLI's ``run`` options)."""

    profile: str = DEFAULT_PROFILE
    timeout: float = DEFAULT_TIMEOUT
    case_timeout: float = DEFAULT_CASE_TIMEOUT
    max_response_bytes: int = DEFAULT_MAX_LINE_BYTES
    max_consecutive_errors: int = 5
    workers: int = 1
    start_timeout: float = DEFAULT_START_TIMEOUT
    #: Start a fresh adapter process for every case (isolation at the cost of speed).
    fresh_process: bool = False
    #: Send the next case's first request with this case's last (False: only once this case
    #: has ended, so what the adapter answers between two progress calls is one case's).
    lookahead: bool = True
    #: Most resident memory of each adapter's process group, in bytes; None: no limit.
    memory_limit: int | None = DEFAULT_MEMORY_LIMIT
    #: Audit mode only (``audit --both-ways``): grade the checks that assume an option of
    #: these points as if the engine shared the assumption (grading.expect.held).
    grade_assumed: frozenset[str] = frozenset()
    #: Grade as if the engine had declared this handshake instead of its own (the cause
    #: inference, conformance.explain: the reference plays an option it does not declare).
    graded_as: Handshake | None = None

    def __post_init__(self) -> None:
        # A library caller gets the command line's refusals, naming the field.
        from conformance.run.optioncheck import check_run_options

        check_run_options(self)


class _Unsupported(Exception):
    """No check of the case can be graded against this engine (not the engine's fault)."""

    def __init__(self, gap: Gap) -> None:
        super().__init__(gap.note)
        self.gap = gap


class _CaseTimeout(Exception):
    pass


def section_of(scenario: Scenario, catalogue: Catalogue | None) -> str:
    """The report section of a scenario: the section of its first rule."""
    first = scenario.rules[0] if scenario.rules else "OTHER"
    if catalogue is not None:
        return catalogue.section_of(first)
    # Without a catalogue, the rule id minus its number is the section prefix.
    return first.rsplit("-", 1)[0]


def profile_unsupported(profile: str, handshake: Handshake) -> str:
    """What to tell an engine author whose handshake does not list the profile run."""
    listed = ", ".join(handshake.profiles) or "none"
    return (
        f"the engine does not support profile {profile!r}: its handshake lists profiles "
        f"{listed} (docs/protocol.md §2)"
    )


def graded_option(scenario: Scenario, declared: Declarations) -> str | None:
    """The option a case's own disputed point is graded against: the engine's declared
    ruling, else the profile's (conformance/adapter/declarations.py).

    A ruling that names an option the catalogue does not know is ignored (the run's
    warnings say so), rather than making every case of that point unsupported.
    """
    if scenario.disputed is None:
        return None
    return declared.ruling(scenario.disputed.id)


#: ``CaseRunner._next_first`` before the walk has asked for it.
_NOT_YET = object()


class CaseRunner:
    """Runs single scenarios on one engine session (restarting it after engine errors)."""

    def __init__(
        self,
        session: EngineSession,
        options: RunOptions,
        catalogue: Catalogue | None = None,
        resolutions: Resolutions | None = None,
        requests: RequestBook | None = None,
    ) -> None:
        self.session = session
        self.options = options
        self.catalogue = catalogue
        # Shared by a run's workers, and filled while the adapter starts (conformance.run.warmup).
        #: Each case's applicable checks and their values, by the options they read.
        self.resolutions = Resolutions() if resolutions is None else resolutions
        #: The cases' requests, checked and encoded once.
        self.requests = RequestBook(options.profile) if requests is None else requests
        #: The ops the engine answered and refused on this runner's sessions.
        self.ops = OpBook()
        self._cases_on_session = 0
        self._deadline = 0.0
        #: Who deals, as tracked by the rules since the case's setup (grading.walk).
        self.tracked_dealer: int | None = None
        self._declarations: tuple[Handshake, Declarations] | None = None
        self._values: ProfileData | None = None
        #: Each case's gap (or None) for the current declarations: asked when its first
        #: request may go ahead and again when it is graded.
        self._gaps: dict[int, tuple[Scenario, Gap | None]] = {}
        # The next case's first request, sent with this case's last (cross-case ahead),
        # and the case it was sent for once it went.
        self._upcoming: Scenario | None = None
        #: The next case's first request, or _NOT_YET before the walk asked for it.
        self._next_first: Ahead | object | None = None
        self._handshake: Handshake | None = None
        self._sent_for: Scenario | None = None
        #: The judge made for the next case with its first request (CaseRunner.next_first).
        self._judge_ahead: tuple[Scenario, Judge] | None = None

    @property
    def profile(self) -> str:
        """The profile the run grades."""
        return self.options.profile

    # -- requests -------------------------------------------------------------

    def _exchange(self, request: Request | None, then: Then = None) -> dict[str, Any]:
        """The answer to ``request`` (None: to the oldest sent ahead); ``then`` is sent ahead.

        Sending the next requests before grading this answer lets the adapter work while
        the harness compares (conformance/adapter/engine.py ``exchange``): the case's next actions
        or checks, or after its last request the next case's first.
        """
        remaining = self._deadline - time.monotonic()
        if remaining <= 0:
            raise _CaseTimeout()
        # The case's wall-clock limit also bounds each request of the case.
        self.session.timeout = min(self.options.timeout, remaining)
        try:
            return self.session.exchange(request, then=then)
        except EngineTimeout:
            if time.monotonic() >= self._deadline:
                raise _CaseTimeout() from None
            raise
        finally:
            self.session.timeout = self.options.timeout
            # The next case's first goes only with no other request in flight, so only
            # ever as the first of ``then``; anything in flight then includes it.
            lead = (then[0] if then else None) if isinstance(then, list) else then
            first = self._next_first
            went = lead is not None and isinstance(first, list) and first and lead is first[0]
            if went and self.session.in_flight:
                self._sent_for = self._upcoming

    def _settle(self) -> None:
        """Drop the answer to a request sent ahead that the case, once decided, did not need
        (not the next case's first request: that case reads it).

        Misbehaviour in that answer breaks the session; the next case restarts it.
        """
        if self.session.in_flight and self._sent_for is None:
            with contextlib.suppress(EngineError):
                self.session.discard()

    def next_first(self) -> list[Ahead]:
        """The next case's first requests, to send ahead with this case's last (none: []):
        its first, which opens its stderr section, and the one after it when that is known
        before the case starts (its first action or second melds check).

        Worked out once per case, at the first call: the walk asks early, at a fixed point
        where the adapter is busy with the case's own next request (after the setup's answer
        is graded, or the first melds check's), so that this work, and the next case's
        judge made with it, is not done between the two cases, where the adapter would wait
        for it. The point is fixed, so the requests an engine sees never depend on timing.
        """
        if self._next_first is _NOT_YET:
            assert self._handshake is not None
            self._next_first = self._first_request(self._upcoming, self._handshake)
        next_first = self._next_first
        assert isinstance(next_first, list)
        return next_first

    def _prepare_next(self) -> None:
        """:meth:`next_first` ahead of its fixed point, while the adapter works on a request
        (EngineSession.while_waiting). Its result is the same whenever it is worked out; one
        that fails here is worked out again at the fixed point, which meets the failure."""
        if self._next_first is _NOT_YET and self._handshake is not None:
            with contextlib.suppress(Exception):
                self.next_first()

    def _first_request(self, upcoming: Scenario | None, handshake: Handshake) -> list[Ahead]:
        """The first requests of ``upcoming`` (:meth:`next_first`); none when that case
        sends none (it will be unsupported) or should not be sent early."""
        if upcoming is None or self.options.fresh_process or not self.options.lookahead:
            return []
        declared = self._declared(handshake)
        if self._gap(upcoming, handshake, graded_option(upcoming, declared)) is not None:
            return []
        # The case's judge is made now and kept for it (CaseRunner._outcome): asking which
        # melds checks to send records nothing in its ledger.
        judge = self._judge(upcoming, handshake)
        self._judge_ahead = (upcoming, judge)
        book = self.requests
        if upcoming.level == "melds":
            requests: list[Request | None] = [r for _, r in melds_requests(upcoming, judge, book)]
        else:
            steps = upcoming.steps[:1]
            requests = [book.setup(upcoming, declared), *map(book.step, steps)]
        if not requests or requests[0] is None:
            return []
        # Their own time limit: they belong to the next case, not to what is left of this one.
        timeout = self.options.timeout
        first = [Ahead(requests[0], timeout=timeout, opens_section=True)]
        second = requests[1] if len(requests) > 1 else None
        return first if second is None else [*first, Ahead(second, timeout=timeout)]

    def ensure_alive(self) -> None:
        """Restart the adapter if an earlier error left it dead, or for isolation.

        :raises EngineError: when it cannot be restarted.
        """
        if not self.session.alive or (self.options.fresh_process and self._cases_on_session):
            self.session.restart()
            self._cases_on_session = 0
        self._cases_on_session += 1

    # -- grading ----------------------------------------------------------------

    def run(self, scenario: Scenario, section: str, upcoming: Scenario | None = None) -> CaseResult:
        """Run one scenario and return its result (never raises for engine trouble).

        ``upcoming``: the case this runner runs next, whose first request may then go to
        the adapter while this case's last answer is graded.
        """
        started = time.monotonic()
        sent_for, self._sent_for = self._sent_for, None
        self._upcoming, self._next_first = upcoming, _NOT_YET
        self._handshake = None  # set below, once the session this case runs on is known
        if self.session.in_flight and sent_for is not scenario:
            with contextlib.suppress(EngineError):
                self.session.discard()  # sent for a case that is not this one
        base: dict[str, Any] = {
            "id": scenario.id,
            "title": scenario.title,
            "rules": scenario.rules,
            "section": section,
            "dispute": scenario.disputed.id if scenario.disputed else None,
        }
        try:
            if sent_for is scenario and self.session.in_flight:
                # Its first request is already with the adapter: whatever became of it (an
                # exit, a hang) is this case's to report, not a reason to restart first.
                self._cases_on_session += 1
            else:
                self.ensure_alive()
            # Error reports show the adapter's log of this case, not of the whole session.
            self.session.mark_stderr()
        except EngineError as exc:
            error = f"adapter could not be restarted: {exc}"
            return CaseResult(
                **base,
                status="error",
                error=error,
                stderr_tail=exc.stderr_tail,
                duration=time.monotonic() - started,
                checks=ungraded_checks(scenario, self.options.profile, "error", error),
            )
        assert self.session.handshake is not None
        declared = self.options.graded_as or self.session.handshake
        handshake = declared.for_profile(self.options.profile)
        option = graded_option(scenario, self._declared(handshake))
        # The next case's first request is worked out when the walk first asks for it
        # (next_first), not here: between two cases the adapter waits on the harness. Or
        # sooner, the first time the harness waits for an answer in this case.
        self._handshake = handshake
        self.session.while_waiting(self._prepare_next)
        self._deadline = started + self.options.case_timeout
        outcome = self._outcome(scenario, handshake, option)
        self._settle()
        result = CaseResult(**base, **outcome, option=option, duration=time.monotonic() - started)
        # Engine text is capped per string where it enters; this caps the case's total.
        return cap_total(result, CASE_TEXT_FIELDS)

    def _outcome(
        self, scenario: Scenario, handshake: Handshake, option: str | None
    ) -> dict[str, Any]:
        """Grade the case: the CaseResult fields its outcome sets (status first)."""
        ahead, self._judge_ahead = self._judge_ahead, None
        if (
            ahead is not None
            and ahead[0] is scenario
            and ahead[1].declared is self._declared(handshake)
        ):
            judge = ahead[1]
        else:
            judge = self._judge(scenario, handshake)
        ledger = judge.ledger
        try:
            self._grade(scenario, handshake, option, judge)
            return ledger.outcome()
        except _Unsupported as exc:
            ledger.rest_not_graded(exc.gap.cause, exc.gap.note)
            return {**ledger.outcome(), "status": "unsupported", "note": exc.gap.note}
        except _CaseTimeout:
            tail = self.session.stderr_tail()
            self.session.close()
            error = f"case exceeded its {self.options.case_timeout:g} s limit"
            return self._errored(ledger, {"error": error, "stderr_tail": tail})
        except EngineReportedError as exc:
            if exc.kind == "unsupported":
                # The setup itself (say start_deal) is an op the engine lacks.
                ledger.rest_not_graded("op", f"{ENGINE_SAYS}{exc.message}")
                outcome = ledger.outcome()
                if outcome["status"] == "unsupported":
                    outcome["note"] = f"{ENGINE_SAYS}{exc.message}"
                return outcome
            return self._errored(ledger, {"error": str(exc), "stderr_tail": exc.stderr_tail})
        except InvalidRequest as exc:
            # The harness built a request outside the protocol: a scenario problem.
            error = f"harness could not build a valid request: {exc}"
            return self._errored(ledger, {"error": error})
        except EngineError as exc:
            self._restart_quietly()
            return self._errored(ledger, {"error": str(exc), "stderr_tail": exc.stderr_tail})
        except SessionError as exc:
            self._restart_quietly()
            return self._errored(ledger, {"error": str(exc)})

    @staticmethod
    def _errored(ledger: Ledger, fields: dict[str, Any]) -> dict[str, Any]:
        """An error's outcome: the checks graded so far keep their status, the rest are not
        graded (cause ``error``)."""
        ledger.rest_not_graded("error", "the engine misbehaved earlier in the case")
        outcome = ledger.outcome()
        outcome.pop("note", None)
        return {**outcome, **fields, "status": "error"}

    def _restart_quietly(self) -> None:
        # A failed restart is reported by the next case's ensure_alive().
        with contextlib.suppress(EngineError):
            self.session.restart()

    def _gap(self, scenario: Scenario, handshake: Handshake, option: str | None) -> Gap | None:
        """Why no check of ``scenario`` can be graded against this engine (None: some can),
        worked out once per case and declarations."""
        declared = self._declared(handshake)

        def gap(case: Scenario) -> Gap | None:
            note = profile_unsupported(self.options.profile, handshake)
            return why_ungradable(case, declared, note, option, self.options.grade_assumed)

        return kept(self._gaps, scenario, gap)

    def _declared(self, handshake: Handshake) -> Declarations:
        """The engine's declarations in the run's profile, read once per handshake."""
        if self._declarations is None or self._declarations[0] is not handshake:
            declared = declarations(handshake, self.options.profile, self.catalogue)
            self._declarations = (handshake, declared)
            self._values = _card_values(declared, self.catalogue)
            self._gaps = {}
        return self._declarations[1]

    def _judge(self, scenario: Scenario, handshake: Handshake) -> Judge:
        """A judge of ``scenario``'s checks for this engine, with an empty ledger."""
        declared = self._declared(handshake)
        profile = self.options.profile
        disputed = scenario.disputed.id if scenario.disputed else None
        # Each check resolved once for these options: which apply, then what they expect.
        resolution = self.resolutions.get(scenario.plan_for(profile), declared, disputed)
        players = scenario_players(scenario)
        facts = declared.facts
        the_pack = None
        if players is not None and facts is not None:
            with contextlib.suppress(ProfileError):
                the_pack = facts.pack(players)
        return Judge(
            ledger=Ledger(resolution.kept, scenario.path, resolution.passes),
            declared=declared,
            disputed=disputed,
            reasons="reasons" in declared.capabilities,
            players=players,
            pack=the_pack,
            values=self._values,
            runs_as_sets=declared.runs_as_sets,
            grade_assumed=self.options.grade_assumed,
            resolved=resolution.values,
        )

    def _grade(
        self, scenario: Scenario, handshake: Handshake, option: str | None, judge: Judge
    ) -> None:
        declared = judge.declared
        gap = self._gap(scenario, handshake, option)
        if gap is not None:
            raise _Unsupported(gap)
        walk = CaseWalk(scenario, judge, self._exchange, self)
        if scenario.level == "melds":
            walk.melds()
        else:
            walk.steps(lambda: self.requests.setup(scenario, declared))


def _card_values(declared: Declarations, catalogue: Catalogue | None) -> ProfileData | None:
    """The profile's card values, for naming a card in a score signature; None when the
    engine rules otherwise on a point that changes a card's value (they are then unknown)."""
    if catalogue is not None:
        for point in catalogue.disputes.values():
            if set(point.rules) & _VALUE_RULES and declared.differs(point.id):
                return None
    facts: ProfileData | None = default_profiles().get(declared.profile)
    return facts


#: Rules that give a card's value: a point bearing on one changes the values.
_VALUE_RULES = frozenset({"SCORE-2", "SCORE-5", "JOKER-7", "CHILE-SCORE-2", "PERLA-SCORE-2"})


ProgressFn = Callable[[int, int, CaseResult], None]


def new_session(argv: Sequence[str], options: RunOptions) -> EngineSession:
    """An adapter session with the run's limits, not started yet."""
    return EngineSession(
        argv,
        timeout=options.timeout,
        start_timeout=options.start_timeout,
        max_line_bytes=options.max_response_bytes,
        memory_limit=options.memory_limit,
    )


def start_session(argv: Sequence[str], options: RunOptions) -> EngineSession:
    """Start one adapter session with the run's limits.

    :raises EngineError: (EngineStartError, HandshakeError, ...) when it cannot start.
    """
    session = new_session(argv, options)
    session.start()
    return session


def run_scenarios(
    argv: Sequence[str],
    scenarios: Sequence[Scenario],
    options: RunOptions,
    *,
    catalogue: Catalogue | None = None,
    progress: ProgressFn | None = None,
    spawned: EngineSession | None = None,
) -> RunResult:
    """Run ``scenarios`` against the adapter ``argv``; results keep corpus order.

    ``spawned``: the first session, already spawned (:meth:`EngineSession.spawn`) with the
    run's limits while the caller loaded the corpus; the run starts and closes it.

    ``options.workers`` sessions run side by side, each its own adapter process.

    :raises EngineError: when the adapter cannot be started or fails its handshake
        (no case could be graded, so the run as a whole fails).
    """
    with _still_heap():
        return _run_scenarios(argv, scenarios, options, catalogue, progress, spawned)


@contextlib.contextmanager
def _still_heap() -> Iterator[None]:
    """Leave what exists before the run (the loaded corpus: tens of thousands of objects)
    out of the garbage collector's full passes while it runs: one such pass, walking the
    corpus, cost as much as a tenth of a run. Nothing a run makes is affected."""
    if gc.get_freeze_count():
        yield  # the caller froze its heap itself
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def _run_scenarios(
    argv: Sequence[str],
    scenarios: Sequence[Scenario],
    options: RunOptions,
    catalogue: Catalogue | None,
    progress: ProgressFn | None,
    spawned: EngineSession | None,
) -> RunResult:
    wall = time.time()
    started = time.monotonic()
    workers = max(1, min(options.workers, len(scenarios) or 1))
    resolutions, requests = Resolutions(), RequestBook(options.profile)
    # The harness's own preparation, done while the first adapter starts up.
    warm = WarmUp(scenarios, options.profile, catalogue, resolutions, requests)
    sessions: list[EngineSession] = []
    try:
        if spawned is not None:
            sessions.append(spawned)
        while len(sessions) < workers:
            sessions.append(new_session(argv, options))
        warm.during_start(sessions[0])
        for session in sessions:
            session.start()
    except EngineError:
        for session in sessions:
            session.close()
        raise
    first = sessions[0].handshake
    # The engine's rulings in the profile graded (docs/protocol.md §2, profile_rulings).
    handshake = first.for_profile(options.profile) if first is not None else None
    results: list[CaseResult | None] = [None] * len(scenarios)
    todo: queue.Queue[int] = queue.Queue()
    for index in range(len(scenarios)):
        todo.put(index)
    lock = threading.Lock()
    state = {"consecutive_errors": 0, "done": 0, "stopped": False}
    books: list[OpBook] = []

    def take() -> int | None:
        try:
            return todo.get_nowait()
        except queue.Empty:
            return None

    def work(session: EngineSession) -> None:
        runner = CaseRunner(session, options, catalogue, resolutions, requests)
        books.append(runner.ops)
        # Each worker takes its next case before it runs this one, so that case's first
        # request can go to the adapter with this one's last (CaseRunner.run).
        following = take()
        while following is not None:
            index, following = following, take()
            scenario = scenarios[index]
            section = section_of(scenario, catalogue)
            with lock:
                stopped = bool(state["stopped"])
            if stopped:
                why = f"not run: {options.max_consecutive_errors} consecutive errors"
                result = not_run_result(scenario, catalogue, why, options.profile)
            else:
                upcoming = scenarios[following] if following is not None else None
                try:
                    result = runner.run(scenario, section, upcoming)
                except Exception as exc:  # a harness bug must not lose the case
                    error = f"harness error: {type(exc).__name__}: {exc}"
                    result = not_run_result(
                        scenario, catalogue, error, options.profile, status="error", cause="error"
                    )
            with lock:
                results[index] = result
                if result.status == "error":
                    state["consecutive_errors"] = int(state["consecutive_errors"]) + 1
                    if int(state["consecutive_errors"]) >= options.max_consecutive_errors:
                        state["stopped"] = True
                elif result.status != "not_run":
                    state["consecutive_errors"] = 0
                state["done"] = int(state["done"]) + 1
                done = int(state["done"])
            if progress is not None:
                progress(done, len(scenarios), result)

    try:
        if workers == 1:
            work(sessions[0])
        else:
            threads = [
                threading.Thread(target=work, args=(s,), name=f"carioca-worker-{i}", daemon=True)
                for i, s in enumerate(sessions)
            ]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
    finally:
        for session in sessions:
            session.close()
    final: list[CaseResult] = []
    # A load_state refused as unsupported where other states of its player count were
    # loaded is a state the engine refuses: graded as one, once every case has been asked.
    refused = refused_states(books)
    for index, result in enumerate(results):
        if result is None:
            why = "the run ended before this case"
            result = not_run_result(scenarios[index], catalogue, why, options.profile)
        elif result.id in refused:
            result = as_refused_state(result, scenarios[index].path)
        final.append(result)
    ops = merged(books)
    warnings = [
        f"engine ruling {problem}; that point is graded by the profile's option"
        for problem in (
            catalogue.ruling_problems(handshake.rulings)
            if catalogue is not None and handshake is not None
            else ()
        )
    ]
    if handshake is not None:
        declared = declarations(handshake, options.profile, catalogue)
        warnings += support_warnings(ops, declared.players)
    return RunResult(
        argv=tuple(argv),
        profile=options.profile,
        handshake=handshake,
        results=tuple(final),
        started=wall,
        duration=time.monotonic() - started,
        counts=count_statuses(final),
        corpus_digest=warm.corpus_digest,
        ops=ops,
        warnings=tuple(warnings),
    )


def not_run_result(
    scenario: Scenario,
    catalogue: Catalogue | None,
    note: str,
    profile: str = DEFAULT_PROFILE,
    *,
    status: str = "not_run",
    cause: str = "not_run",
) -> CaseResult:
    """The result of a case that was selected but not graded, saying why in ``note``: every
    check of the case is listed, not graded (cause ``not_run``, or ``error``)."""
    return CaseResult(
        scenario.id,
        scenario.title,
        scenario.rules,
        section_of(scenario, catalogue),
        status,
        note=note if status == "not_run" else None,
        error=note if status == "error" else None,
        checks=ungraded_checks(scenario, profile, cause, note),
    )


def ungraded_checks(
    scenario: Scenario, profile: str, cause: str, note: str
) -> tuple[CheckResult, ...]:
    """Every check of ``scenario`` under ``profile``, not graded for ``cause``."""
    ledger = Ledger(scenario.plan_for(profile), scenario.path)
    ledger.rest_not_graded(cause, note)
    return ledger.results


def unstarted_run(
    argv: Sequence[str],
    scenarios: Sequence[Scenario],
    options: RunOptions,
    error: EngineError,
    catalogue: Catalogue | None = None,
) -> RunResult:
    """The result of a run whose adapter never got through its handshake.

    Every selected case is accounted for (``not_run``) so that reports stay complete,
    and the run carries the reason and the adapter's stderr tail.
    """
    note = f"the adapter could not start: {error}"
    results = [not_run_result(s, catalogue, note, options.profile) for s in scenarios]
    return RunResult(
        argv=tuple(argv),
        profile=options.profile,
        handshake=None,
        results=tuple(results),
        started=time.time(),
        counts=count_statuses(results),
        corpus_digest=corpus_digest(scenarios),
        run_error=f"{type(error).__name__}: {error}",
        run_error_stderr=error.stderr_tail,
    )
