"""Running scenarios through engine adapters and grading the answers.

Every selected case ends with exactly one status:

``pass``         every assertion held
``fail``         an assertion did not hold (diff + the failing step)
``error``        the engine misbehaved (crash, timeout, protocol breach, error answer);
                 the adapter is restarted and the run goes on
``unsupported``  the engine lacks the capability or profile, or answered ``unsupported``
``not_run``      skipped after too many consecutive errors
``xfail``/``xpass``  a failure the engine's expectations file lists / a listed case that passed
"""

from __future__ import annotations

import contextlib
import queue
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from conformance.catalogue import Catalogue
from conformance.compare import (
    Mismatch,
    compare_check,
    compare_outcome,
    compare_state,
    compare_unchanged,
    engine_message,
    format_mismatches,
)
from conformance.declarations import Declarations, declarations
from conformance.engine import Ahead, EngineSession, Handshake, Request
from conformance.errors import (
    EngineError,
    EngineReportedError,
    EngineTimeout,
    HarnessError,
    InvalidRequest,
)
from conformance.memlimit import DEFAULT_MEMORY_LIMIT
from conformance.profiles import DEFAULT_PROFILE, ProfileError, default_profiles
from conformance.results import (
    CASE_TEXT_FIELDS,
    STATUSES,
    CaseResult,
    CheckResult,
    RunResult,
    count_statuses,
)
from conformance.scenarios import Scenario, Step, corpus_digest, resolve_option
from conformance.textsafe import cap_total

if TYPE_CHECKING:  # imported where used: only --properties needs the laws
    from conformance.properties import PropertyResult

__all__ = [  # the result types live in conformance.results; re-exported for callers
    "CASE_TEXT_FIELDS",
    "STATUSES",
    "CaseResult",
    "CheckResult",
    "RunResult",
    "count_statuses",
]

LEVEL_CAPABILITIES: Mapping[str, frozenset[str]] = {
    "melds": frozenset({"melds"}),
    "turns": frozenset({"turns"}),
    "deals": frozenset({"turns", "deals"}),
}


@dataclass(frozen=True)
class RunOptions:
    """Knobs of a run (the CLI's ``run`` options)."""

    profile: str = DEFAULT_PROFILE
    timeout: float = 10.0
    case_timeout: float = 30.0
    max_response_bytes: int = 8 * 2**20
    max_consecutive_errors: int = 5
    workers: int = 1
    start_timeout: float = 10.0
    #: Start a fresh adapter process for every case (isolation at the cost of speed).
    fresh_process: bool = False
    #: Most resident memory of each adapter's process group, in bytes; None: no limit.
    memory_limit: int | None = DEFAULT_MEMORY_LIMIT


class _Unsupported(Exception):
    """The case cannot be graded against this engine (not the engine's fault)."""


class _Failed(Exception):
    def __init__(
        self, where: str, mismatches: Sequence[Mismatch], message: str | None = None
    ) -> None:
        super().__init__(where)
        self.where = where
        self.mismatches = list(mismatches)
        self.message = message


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
    ruling, else the profile's (conformance/declarations.py).

    A ruling that names an option the catalogue does not know is ignored (the run's
    warnings say so), rather than making every case of that point unsupported.
    """
    if scenario.disputed is None:
        return None
    return declared.ruling(scenario.disputed.id)


class CaseRunner:
    """Runs single scenarios on one engine session (restarting it after engine errors)."""

    def __init__(
        self, session: EngineSession, options: RunOptions, catalogue: Catalogue | None = None
    ) -> None:
        self.session = session
        self.options = options
        self.catalogue = catalogue
        self._cases_on_session = 0
        self._deadline = 0.0
        self._dealer: int | None = None
        self._declarations: tuple[Handshake, Declarations] | None = None
        # The next case's first request, sent with this case's last (cross-case ahead),
        # and the case it was sent for once it went.
        self._upcoming: Scenario | None = None
        self._next_first: Ahead | None = None
        self._sent_for: Scenario | None = None

    # -- requests -------------------------------------------------------------

    def _exchange(
        self, request: Request | None, then: Request | Ahead | None = None
    ) -> dict[str, Any]:
        """The answer to ``request`` (None: to the one sent ahead); ``then`` is sent ahead.

        Sending the next request before grading this answer lets the adapter work while
        the harness compares (conformance/engine.py ``exchange``): the case's next action
        or check, or after its last request the next case's first.
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
            if then is not None and then is self._next_first and self.session.in_flight:
                self._sent_for = self._upcoming

    def _settle(self) -> None:
        """Drop the answer to a request sent ahead that the case, once decided, did not need
        (not the next case's first request: that case reads it).

        Misbehaviour in that answer breaks the session; the next case restarts it.
        """
        if self.session.in_flight and self._sent_for is None:
            with contextlib.suppress(EngineError):
                self.session.discard()

    def _first_request(self, upcoming: Scenario | None, handshake: Handshake) -> Ahead | None:
        """The first request of ``upcoming``, to send ahead with this case's last; None when
        that case sends none (it will be unsupported) or should not be sent early."""
        if upcoming is None or self.options.fresh_process:
            return None
        profile = self.options.profile
        option = graded_option(upcoming, self._declared(handshake))
        if self._unsupported(upcoming, handshake, option) is not None:
            return None
        if upcoming.level == "melds":
            if not upcoming.checks:
                return None
            check = upcoming.checks[0]
            request: Request = (check.op, {"profile": profile, **check.request})
        else:
            request = self._setup_request(upcoming, profile)
        # Its own time limit: it belongs to the next case, not to what is left of this one.
        return Ahead(request, timeout=self.options.timeout, opens_section=True)

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
        self._upcoming, self._next_first = upcoming, None
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
            return CaseResult(
                **base,
                status="error",
                error=f"adapter could not be restarted: {exc}",
                stderr_tail=exc.stderr_tail,
                duration=time.monotonic() - started,
            )
        assert self.session.handshake is not None
        handshake = self.session.handshake.for_profile(self.options.profile)
        option = graded_option(scenario, self._declared(handshake))
        self._next_first = self._first_request(upcoming, handshake)
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
        try:
            self._grade(scenario, handshake, option)
            return {"status": "pass"}
        except _Unsupported as exc:
            return {"status": "unsupported", "note": str(exc)}
        except _Failed as exc:
            return {
                "status": "fail",
                "failing_step": exc.where,
                "diff": f"{exc.where}\n{format_mismatches(exc.mismatches)}",
                "engine_message": exc.message,
            }
        except _CaseTimeout:
            tail = self.session.stderr_tail()
            self.session.close()
            return {
                "status": "error",
                "error": f"case exceeded its {self.options.case_timeout:g} s limit",
                "stderr_tail": tail,
            }
        except EngineReportedError as exc:
            if exc.kind == "unsupported":
                return {"status": "unsupported", "note": f"engine: {exc.message}"}
            return {"status": "error", "error": str(exc), "stderr_tail": exc.stderr_tail}
        except InvalidRequest as exc:
            # The harness built a request outside the protocol: a scenario problem.
            return {"status": "error", "error": f"harness could not build a valid request: {exc}"}
        except EngineError as exc:
            self._restart_quietly()
            return {"status": "error", "error": str(exc), "stderr_tail": exc.stderr_tail}
        except HarnessError as exc:
            self._restart_quietly()
            return {"status": "error", "error": str(exc)}

    def _restart_quietly(self) -> None:
        # A failed restart is reported by the next case's ensure_alive().
        with contextlib.suppress(EngineError):
            self.session.restart()

    def _declared(self, handshake: Handshake) -> Declarations:
        """The engine's declarations in the run's profile, read once per handshake."""
        if self._declarations is None or self._declarations[0] is not handshake:
            self._declarations = (
                handshake,
                declarations(handshake, self.options.profile, self.catalogue),
            )
        return self._declarations[1]

    def _unsupported(
        self, scenario: Scenario, handshake: Handshake, option: str | None
    ) -> str | None:
        """Why the engine cannot be graded on ``scenario`` before any request; None if it can."""
        declared = self._declared(handshake)
        missing = declared.lacks(LEVEL_CAPABILITIES[scenario.level])
        if missing:
            return f"engine lacks capability {', '.join(missing)}"
        profile = self.options.profile
        if not declared.plays_profile:
            return profile_unsupported(profile, handshake)
        gap = declared.assumption_gap(scenario.assumes)
        if gap is not None:
            return f"the case {gap}"
        if scenario.disputed is not None and option is None:
            return f"no option of {scenario.disputed.id} for profile {profile!r}"
        gap = declared.interface_gap(scenario.interface)
        if gap is not None:
            return f"the case is {gap}"
        players = scenario_players(scenario)
        if players is not None:
            gap = declared.players_gap(players)
            if gap is not None:
                return f"the case {gap}"
        return None

    def _grade(self, scenario: Scenario, handshake: Handshake, option: str | None) -> None:
        why = self._unsupported(scenario, handshake, option)
        if why is not None:
            raise _Unsupported(why)
        profile = self.options.profile
        reasons = "reasons" in handshake.capabilities

        def expected(value: Any) -> Any:
            if option is None:
                return value
            try:
                return resolve_option(value, option)
            except KeyError:
                dispute = scenario.disputed.id if scenario.disputed else "?"
                raise _Unsupported(
                    f"scenario has no expectation for option {option!r} of {dispute}"
                ) from None

        if scenario.level == "melds":
            self._grade_checks(scenario, profile, expected, reasons)
            return
        # Act steps' requests are known in advance and go out one answer ahead; after the
        # last, the next case's first.
        planned: list[Request | Ahead | None] = [_planned(step) for step in scenario.steps]
        planned.append(self._next_first)
        state = self._setup(scenario, profile, then=planned[0])
        for step in scenario.steps:
            state = self._step(scenario, step, state, expected, reasons, planned[step.index + 1])
        if scenario.final is not None:
            found = compare_state(expected(scenario.final), state, **self._state_options())
            if found:
                raise _Failed("final state", found)

    def _state_options(self) -> dict[str, Any]:
        """How state checks bend to the engine's declarations (docs/protocol.md §2)."""
        handshake = self.session.handshake
        assert handshake is not None
        return {
            "unmodelled": handshake.unmodelled,
            "runs_as_sets": handshake.run_order == "engine" or handshake.run_ends == "engine",
        }

    def _grade_checks(
        self, scenario: Scenario, profile: str, expected: Callable[[Any], Any], reasons: bool
    ) -> None:
        """Grade every melds-level check; an op the engine lacks costs only its own checks.

        Each check is independent, so an ``unsupported`` answer to one op (say
        ``check_contract``) does not stop the others from being graded: a wrong answer
        to any of them fails the case. A case is ``pass`` only when every check was
        graded; when some passed and others were unsupported it is ``unsupported`` with
        a note saying exactly which, since the case as a whole was not shown to hold.
        """
        skipped: list[str] = []
        said: dict[str, str] = {}  # op -> the engine's words, once per op
        requests: list[Request] = [
            (check.op, {"profile": profile, **check.request}) for check in scenario.checks
        ]
        for check in scenario.checks:
            where = f"check {check.index + 1} ({check.op}, line {check.line})"
            # Every check's request is known: each goes out while the one before is graded,
            # and after the last, the next case's first.
            request = None if self.session.in_flight else requests[check.index]
            following = check.index + 1
            then = requests[following] if following < len(requests) else self._next_first
            try:
                answer = self._exchange(request, then)
            except EngineReportedError as exc:
                if exc.kind != "unsupported":
                    raise
                skipped.append(f"check {check.index + 1}")
                said.setdefault(check.op, engine_message({"message": exc.message}) or "")
                continue
            found = compare_check(expected(check.expect), answer, reasons=reasons)
            if found:
                raise _Failed(where, found, engine_message(answer))
        if skipped:
            graded = len(scenario.checks) - len(skipped)
            ops = "; ".join(f"{op}: {words}" if words else op for op, words in said.items())
            raise _Unsupported(
                f"{graded} of {len(scenario.checks)} checks graded and passed; "
                f"{', '.join(skipped)} unsupported by the engine ({ops})"
            )

    @staticmethod
    def _setup_request(scenario: Scenario, profile: str) -> Request:
        """The case's first request: its state, deal or new game, in ``profile``."""
        # Expanded with this profile's pack (a chilean state holds 106 or 160 cards).
        setup = scenario.setup_for(profile)
        assert setup is not None
        if setup.state is not None:
            return ("load_state", {"state": {**setup.state, "profile": profile}})
        if setup.deal is not None:
            return ("start_deal", {**setup.deal, "profile": profile})
        assert setup.new_game is not None
        return ("new_game", {**setup.new_game, "profile": profile})

    def _setup(
        self, scenario: Scenario, profile: str, then: Request | Ahead | None
    ) -> dict[str, Any]:
        setup = scenario.setup_for(profile)
        assert setup is not None
        # Who deals, as the setup says; kept for engines that do not model the dealer.
        given = setup.state or setup.deal
        self._dealer = int(given["dealer"]) if given is not None else None
        # Sent ahead with the previous case's last request, unless that was not possible.
        request = None if self.session.in_flight else self._setup_request(scenario, profile)
        answer = self._exchange(request, then)
        state: dict[str, Any] = answer["state"]
        return state

    def _step(
        self,
        scenario: Scenario,
        step: Step,
        before: dict[str, Any],
        expected: Callable[[Any], Any],
        reasons: bool,
        then: Request | Ahead | None = None,
    ) -> dict[str, Any]:
        where = f"step {step.index + 1} ({step.kind}, line {step.line})"
        check = expected(step.state) if step.state is not None else None
        if step.kind == "action":
            assert step.action is not None
            try:
                # Sent ahead with the answer before it, unless that was not possible.
                request = None if self.session.in_flight else _planned(step)
                answer = self._exchange(request, then)
            except EngineReportedError as exc:
                if exc.kind != "unsupported":
                    raise
                # An action the engine lacks (say swap_joker): the steps before were graded.
                raise _Unsupported(
                    f"{where}: the engine answered unsupported ({exc.message}); "
                    f"{step.index} earlier step(s) graded and passed"
                ) from None
        else:
            assert step.deck is not None
            context_state = before
            if "dealer" in self._state_options()["unmodelled"] and self._dealer is not None:
                # The engine's dealer is a placeholder: compose from the one the harness
                # tracked by the rules since the setup.
                context_state = {**before, "dealer": self._dealer}
            players, dealer, deal_number = self._deal_context(
                scenario, step, context_state, check, self.options.profile
            )
            self._dealer = dealer
            try:
                pack = default_profiles()[self.options.profile].pack(players)
            except ProfileError as exc:
                raise _Unsupported(f"{where}: {exc}") from None
            deck = step.deck.compose(players, dealer, deal_number, pack)
            # perla's cut (docs/protocol.md §10), sent only when the step gives one.
            cut = {} if step.deck.cut is None else {"cut": step.deck.cut}
            answer = self._exchange((step.kind, {"deck": deck, **cut}), then)
        after: dict[str, Any] = answer["state"]
        options = self._state_options()
        found = compare_outcome(expected(step.expect), answer, reasons=reasons)
        if not found and answer.get("accepted") is False:
            found = compare_unchanged(before, after, unmodelled=options["unmodelled"])
        if not found and check is not None:
            found = compare_state(check, after, **options)
        if found:
            raise _Failed(where, found, engine_message(answer))
        return after

    @staticmethod
    def _deal_context(
        scenario: Scenario,
        step: Step,
        before: Mapping[str, Any],
        check: Any,
        profile: str = DEFAULT_PROFILE,
    ) -> tuple[int, int, int]:
        """Players, dealer and deal number under which a next_deal/redeal deck is composed.

        Taken from the step itself, else from its expected state, else derived by the
        rules from the last state: after a close the deal passes to the right and the
        deal number goes up; a cancelled deal or a redeal keeps both.
        """
        assert step.deck is not None
        players = int(before.get("players", 0)) or 2
        dealer = int(before.get("dealer", 0))
        deal_number = int(before.get("deal_number", 1))
        if step.kind == "next_deal" and before.get("phase") == "deal_over":
            dealer = (dealer + 1) % players
            facts = default_profiles().get(profile)
            last = facts.deal_count if facts is not None else deal_number + 1
            deal_number = min(deal_number + 1, last)
        if isinstance(check, Mapping):
            dealer = check.get("dealer", dealer)
            deal_number = check.get("deal_number", deal_number)
        if step.deck.dealer is not None:
            dealer = step.deck.dealer
        if step.deck.deal_number is not None:
            deal_number = step.deck.deal_number
        return players, dealer, deal_number


def _planned(step: Step) -> Request | None:
    """The request of an action step, known before the case starts; None for a deal step,
    whose deck is composed from the state the step before left."""
    if step.kind != "action":
        return None
    assert step.action is not None
    return ("act", {"action": dict(step.action)})


def scenario_players(scenario: Scenario) -> int | None:
    """How many players the case's setup seats (None for melds-level cases)."""
    setup = scenario.setup
    if setup is None:
        return None
    for source in (setup.state, setup.deal, setup.new_game):
        if source is not None and isinstance(source.get("players"), int):
            return int(source["players"])
    return None


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
    wall = time.time()
    started = time.monotonic()
    workers = max(1, min(options.workers, len(scenarios) or 1))
    sessions: list[EngineSession] = []
    try:
        if spawned is not None:
            sessions.append(spawned)
            spawned.start()
        while len(sessions) < workers:
            sessions.append(start_session(argv, options))
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

    def take() -> int | None:
        try:
            return todo.get_nowait()
        except queue.Empty:
            return None

    def work(session: EngineSession) -> None:
        runner = CaseRunner(session, options, catalogue)
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
                result = not_run_result(scenario, catalogue, why)
            else:
                upcoming = scenarios[following] if following is not None else None
                try:
                    result = runner.run(scenario, section, upcoming)
                except Exception as exc:  # a harness bug must not lose the case
                    result = CaseResult(
                        scenario.id,
                        scenario.title,
                        scenario.rules,
                        section,
                        "error",
                        error=f"harness error: {type(exc).__name__}: {exc}",
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
    for index, result in enumerate(results):
        if result is None:
            result = not_run_result(scenarios[index], catalogue, "the run ended before this case")
        final.append(result)
    return RunResult(
        argv=tuple(argv),
        profile=options.profile,
        handshake=handshake,
        results=tuple(final),
        started=wall,
        duration=time.monotonic() - started,
        counts=count_statuses(final),
        corpus_digest=corpus_digest(scenarios),
        warnings=tuple(
            f"engine ruling {problem}; that point is graded by the profile's option"
            for problem in (
                catalogue.ruling_problems(handshake.rulings)
                if catalogue is not None and handshake is not None
                else ()
            )
        ),
    )


def not_run_result(scenario: Scenario, catalogue: Catalogue | None, note: str) -> CaseResult:
    """The result of a case that was selected but not run, saying why in ``note``."""
    return CaseResult(
        scenario.id,
        scenario.title,
        scenario.rules,
        section_of(scenario, catalogue),
        "not_run",
        note=note,
    )


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
    results = [not_run_result(s, catalogue, note) for s in scenarios]
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


def check_properties(
    argv: Sequence[str], options: RunOptions, *, seed: int, deals: int
) -> tuple[PropertyResult, ...]:
    """Play ``deals`` seeded deals on a fresh adapter and check the observable laws.

    Never raises for engine trouble: an adapter that cannot start is one failed result.
    """
    from conformance.properties import PropertyResult, run_properties

    try:
        session = start_session(argv, options)
    except EngineError as exc:
        detail = f"the adapter could not start: {exc}"
        return (PropertyResult("engine", (), False, detail, seed),)
    try:
        return tuple(run_properties(session, seed=seed, deals=deals, profile=options.profile))
    finally:
        session.close()
