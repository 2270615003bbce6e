"""Playing one case's requests through an engine and grading every answer, check by check.

A case is walked from its setup through its steps to ``final``; a step whose answer differs
costs only its own checks, and grading goes on from the state the rules give where that
can be built (:mod:`conformance.grading.answers`). The walk asks its runner to exchange
requests (:class:`conformance.run.runner.CaseRunner`, which owns the adapter session, the time
limits and the requests sent ahead); everything it learns goes to the case's
:class:`~conformance.grading.ledger.Ledger`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from conformance.adapter.declarations import Declarations
from conformance.adapter.engine import MAX_AHEAD, Ahead, EngineSession, Request, Then
from conformance.errors import EngineReportedError
from conformance.grading.after import Unseen
from conformance.grading.answers import Judge, StepOutcome
from conformance.grading.compare import dealt_from, seated_for, strip_private
from conformance.grading.expect import held
from conformance.grading.ledger import Ledger
from conformance.grading.requests import (
    RequestBook,
    composed,
    deal_for,
    melds_requests,
    scenario_players,
    state_for,
)
from conformance.grading.support import OpBook, op_label
from conformance.knowledge.cards import JOKER
from conformance.knowledge.profiles import (
    DEFAULT_PROFILE,
    ProfileData,
    ProfileError,
    default_profiles,
)
from conformance.scenarios.model import Check, PlannedCheck, Scenario, Step

#: Error kinds by which an engine answers, protocol-correctly, that it refuses a state or a
#: deal a case sets up: a failing check of the case, never an error toward the run's stop.
REFUSALS = frozenset({"invalid_state", "bad_request"})

#: Capabilities each level needs (docs/protocol.md §2).
LEVEL_CAPABILITIES: Mapping[str, frozenset[str]] = {
    "melds": frozenset({"melds"}),
    "turns": frozenset({"turns"}),
    "deals": frozenset({"turns", "deals"}),
}

#: ``exchange(request, then)``: the answer to ``request`` (None: to the oldest sent ahead),
#: sending ``then`` ahead.
Exchange = Callable[[Request | None, Then], dict[str, Any]]
#: A case's requests in order as known before it starts: None for one that is not (a deal
#: step's), an :class:`Ahead` for the next case's first.
Chain = Sequence[Request | Ahead | None]


def ahead_of(
    chain: Chain, start: int, in_flight: int, limit: int = MAX_AHEAD
) -> list[Request | Ahead]:
    """What to send ahead once an answer is read: ``chain[start:]`` up to ``limit`` in
    flight (the session's :attr:`~conformance.adapter.engine.EngineSession.ahead_limit`),
    ``in_flight`` being still unanswered.

    It stops at a request not known yet, and sends the next case's first (an Ahead) only
    when no other is in flight (its stderr section starts there), the next case's own
    requests behind it. What goes depends on the chain and on how many went, never on
    timing.
    """
    sends: list[Request | Ahead] = []
    for item in chain[start : start + limit - in_flight]:
        if item is None or (
            isinstance(item, Ahead) and item.opens_section and in_flight + len(sends) > 0
        ):
            break
        sends.append(item)
    return sends


class Driver(Protocol):
    """What a walk needs of the runner that owns the adapter session."""

    session: EngineSession
    #: Who deals, as the rules tell it since the setup (for engines without a dealer).
    tracked_dealer: int | None
    #: The run's requests, checked and encoded once.
    requests: RequestBook
    #: The ops this worker's engine answered and refused, by player count.
    ops: OpBook

    @property
    def profile(self) -> str:
        """The profile the run grades."""

    def next_first(self) -> list[Ahead]:
        """The next case's first requests, sent ahead with this case's last (none: []);
        worked out at the first call."""


@dataclass(frozen=True)
class Gap:
    """Why a whole case cannot be graded against an engine, before any request."""

    cause: str
    note: str


def why_ungradable(
    scenario: Scenario,
    declared: Declarations,
    profile_note: str,
    option: str | None,
    grade_assumed: frozenset[str] = frozenset(),
) -> Gap | None:
    """Why no check of ``scenario`` can be graded against the engine ``declared`` describes
    (a capability, the profile, the case's own assumptions, interface or seats); None if
    some can. ``profile_note``: what to say when the engine lacks the profile;
    ``grade_assumed``: audit mode only (grading.expect.held)."""
    missing = declared.lacks(LEVEL_CAPABILITIES[scenario.level])
    if missing:
        return Gap("capability", f"engine lacks capability {', '.join(missing)}")
    if not declared.plays_profile:
        return Gap("profile", profile_note)
    gap = declared.assumption_gap(held(scenario.assumes, grade_assumed))
    if gap is not None:
        return Gap("option", f"the case {gap}")
    if scenario.disputed is not None and option is None:
        return Gap(
            "option", f"no option of {scenario.disputed.id} for profile {declared.profile!r}"
        )
    gap = declared.interface_gap(scenario.interface)
    if gap is not None:
        return Gap("interface", f"the case is {gap}")
    players = scenario_players(scenario)
    if players is not None:
        gap = declared.players_gap(players)
        if gap is not None:
            return Gap("players", f"the case {gap}")
    setup = scenario.setup_for(declared.profile)
    if setup is not None and setup.state is not None and state_for(setup, declared) is None:
        return Gap(
            "option",
            "the case's state holds more jokers or copies of a card outside the stock's "
            "filling than the engine's pack has under its rulings",
        )
    if setup is not None and setup.state is not None:
        crowded = _crowded_meld(setup.state, declared)
        if crowded is not None:
            return Gap("option", f"the case's state holds {crowded}")
    if setup is not None and setup.deal is not None:
        try:
            deal_for(setup.deal, setup, declared)
        except (ProfileError, ValueError) as exc:
            return Gap(
                "option", f"the case's deal cannot be dealt under the engine's rulings: {exc}"
            )
    return None


def _crowded_meld(state: Mapping[str, Any], declared: Declarations) -> str | None:
    """A table meld of ``state`` holding more wild cards than the engine's rulings let a meld
    hold (conformance.knowledge.optionfacts.meld_wild_limit), which it cannot load: a run
    with a joker beside a natural 2 where 2s are wild and the joker limit is kept
    (VARIANT-03 ``kept``, DISPUTE-25 ``wild``). None when every meld is within them."""
    facts = declared.facts
    if facts is None:
        return None
    for i, meld in enumerate(state.get("table") or ()):
        kind, cards = meld.get("kind"), meld.get("cards") or ()
        most = facts.meld_wild_limit(str(kind))
        if most is None:
            continue
        wild = facts.wild_ranks
        held = sum(1 for c in cards if c == JOKER or str(c)[:-1] in wild)
        if held > most:
            return (
                f"a {kind} (table[{i}]) with {held} wild cards, more than the {most} the "
                "engine's rulings let a meld hold"
            )
    return None


class CaseWalk:
    """One case against one engine: its requests, in order, and the grading of each answer."""

    def __init__(
        self,
        scenario: Scenario,
        judge: Judge,
        exchange: Exchange,
        runner: Driver,
    ) -> None:
        self.scenario = scenario
        self.judge = judge
        self.ledger: Ledger = judge.ledger
        self.exchange = exchange
        #: The CaseRunner: its session (in flight, discard), profile and tracked dealer.
        self.runner = runner
        self.profile = runner.profile
        #: Melds answers received and not graded yet (_grade_later).
        self._waiting: list[tuple[Sequence[PlannedCheck], Check, Mapping[str, Any]]] = []
        #: The engine's answer when it did not load the state seated for the case (_seated).
        self._refused_load: EngineReportedError | None = None
        #: The deck of the last deal step sent (_deal).
        self._deck: list[str] | None = None
        #: The deal op whose answer was the last, when its first player was the engine's own
        #: (_seated); None after an action.
        self._own_first: str | None = None

    # -- melds ----------------------------------------------------------------------------------

    def melds(self) -> None:
        """Ask every melds check with something to grade; an op the engine lacks costs only
        its own checks."""
        asked = melds_requests(self.scenario, self.judge, self.runner.requests)
        for check in self.scenario.checks:
            self.judge.skip_ungradable(self.ledger.of_step(check.index + 1))
        chain: list[Request | Ahead | None] = [request for _, request in asked]
        try:
            for i, (check, request) in enumerate(asked):
                # Every request is known: each goes out while those before are graded, and
                # after the last, the next case's first.
                if i + 1 == len(asked):
                    chain.extend(self.runner.next_first())
                planned = self.ledger.of_step(check.index + 1)
                try:
                    answer = self._exchange_at(chain, i, request)
                except EngineReportedError as exc:
                    if exc.kind == "internal" or exc.kind in REFUSALS:
                        # Its own bug on this query: this check fails, the others are
                        # still asked (no melds query depends on another).
                        self._grade_waiting()
                        self.judge.melds_error(planned, check.op, exc.kind, exc.message)
                        continue
                    if exc.kind != "unsupported":
                        raise
                    self.runner.ops.refused(check.op, None, self.scenario.id)
                    note = f"the engine answered unsupported to {check.op}: {exc.message}"
                    self.ledger.not_graded(planned, "op", note)
                    continue
                self.runner.ops.answered(check.op, None, self.scenario.id)
                self._grade_later(planned, check, answer)
                if i == 0:
                    self.runner.next_first()  # while the adapter answers the second check
        finally:
            # Whatever ends the case (its last answer, an engine error), every answer
            # received is graded: the checks graded so far keep their status.
            self._grade_waiting()

    def _grade_later(
        self, planned: Sequence[PlannedCheck], check: Check, answer: Mapping[str, Any]
    ) -> None:
        """Grade a melds answer the next time the harness waits for one, or at the case's end.

        No melds answer changes what is asked next, so its grading need not stand between
        an answer and the next request; it is done in the order the answers came.
        """
        self._waiting.append((planned, check, answer))
        self.runner.session.while_waiting(self._grade_waiting)

    def _grade_waiting(self) -> None:
        while self._waiting:
            planned, check, answer = self._waiting.pop(0)
            self.judge.melds(planned, check.op, check.request, answer)

    # -- turns and deals ------------------------------------------------------------------------

    def _exchange_at(
        self, chain: Chain, index: int, request: Request | Callable[[], Request]
    ) -> dict[str, Any]:
        """The answer to ``chain[index]`` (``request``, or what it builds, unless it went
        ahead; index -1: the setup, before the chain), sending the chain's next requests
        ahead (:func:`ahead_of`)."""
        session = self.runner.session
        in_flight = session.in_flight
        left = max(in_flight - 1, 0)
        then = ahead_of(chain, index + 1 + left, left, session.ahead_limit)
        if in_flight:
            return self.exchange(None, then)
        return self.exchange(request() if callable(request) else request, then)

    def steps(self, setup: Callable[[], Request]) -> None:
        """The setup (``setup()`` builds its request, when it has not gone ahead), every
        step, then ``final``."""
        steps = self.scenario.steps
        book = self.runner.requests
        planned: list[Request | Ahead | None] = [book.step(s) for s in steps]
        if not steps:
            planned.extend(self.runner.next_first())
        state = self._setup(setup, planned)
        if state is None:
            return
        if steps:
            # Worked out while the adapter plays step 1; sent with the last step.
            planned.extend(self.runner.next_first())
        last: StepOutcome | None = None
        # What the case's play holds that no state field says, lost by every reload.
        unseen = Unseen(self.judge.declared)
        for step in steps:
            number = step.index + 1
            assumes = held(step.assumes, self.judge.grade_assumed)
            gap = self.judge.declared.assumption_gap(assumes) if assumes else None
            if gap is not None:
                note = f"step {number} {gap}"
                self.ledger.not_graded(self.ledger.rest(number - 1), "option", note)
                return
            hidden = unseen.bears_on(step.kind, step.action, state)
            if hidden is not None:
                note = (
                    f"step {number} turns on {hidden}, which the state the engine was put "
                    "on after an earlier divergence cannot hold"
                )
                self.ledger.not_graded(self.ledger.rest(number - 1), "divergence", note)
                return
            answer = self._answer(step, state, planned)
            if answer is None:
                return
            checks = self.ledger.of_step(number)
            self._own_first = None
            if step.kind != "action":
                answer = self._seated(
                    step.kind, answer, self.runner.tracked_dealer, state.get("totals"), self._deck
                )
                if answer is None:
                    self._unseated(number - 1)
                    return
                if self._own_first is not None:
                    checks = self._first_seat_checks(step.kind, checks)
            later = number < len(steps)
            last = self.judge.step(checks, step.kind, step.action, state, answer, later)
            accepted = self.judge.must_accept(self.ledger.of_step(number))
            unseen.played(step.kind, step.action, accepted, state.get("turn"))
            if last.diverged is not None:
                self.ledger.not_graded(self.ledger.rest(number), last.cause, last.diverged)
                return
            if last.resync is None:
                state = dict(last.after)
                continue
            why = unseen.reloaded()
            if why is not None:
                note = f"after step {number}: {why}"
                self.ledger.not_graded(self.ledger.rest(number), "divergence", note)
                return
            resynced = self._resync(last.resync)
            if isinstance(resynced, EngineReportedError):
                self._unloaded(number, resynced)
                return
            state = resynced
        final = self.ledger.of_step(None)
        if final:
            if last is not None and not last.final_comparable:
                note = "the engine accepted the last action, which must be refused"
                self.ledger.not_graded(final, "divergence", note)
            else:
                # After a deal op as the last request, who moves first is the engine's own
                # (the state read from the case's seats names the case's first player).
                if self._own_first is not None:
                    final = self._first_seat_checks(self._own_first, final)
                self.judge.final(final, state)

    def _setup(self, request: Callable[[], Request], planned: Chain) -> dict[str, Any] | None:
        setup = self.scenario.setup_for(self.profile)
        assert setup is not None
        # Who deals, as the setup says; kept for engines that do not model the dealer.
        given = setup.state or setup.deal
        self.runner.tracked_dealer = int(given["dealer"]) if given is not None else None
        # Sent ahead with the previous case's last request (and maybe ``planned[0]`` behind
        # it), unless that was not possible.
        op = "load_state" if setup.state is not None else "start_deal"
        if setup.new_game is not None:
            op = "new_game"
        try:
            answer = self._exchange_at(planned, -1, request)
        except EngineReportedError as exc:
            if exc.kind == "unsupported":
                self.runner.ops.refused(op, self.judge.players, self.scenario.id)
                if op == "load_state":
                    # The checks no state could let be graded (an option, a reading the
                    # engine declares) say so now: those left are the ones this refusal
                    # keeps from grading (grading.refusals, when the run finds it is one).
                    self.judge.skip_ungradable(self.ledger.rest(None))
            if exc.kind in REFUSALS:
                self.runner.ops.answered(op, self.judge.players, self.scenario.id)
                self._refused(op, exc, None)
                return None
            raise
        self.runner.ops.answered(op, self.judge.players, self.scenario.id)
        if setup.deal is not None and self.judge.declared.picks_first_player("start_deal"):
            # Only for an engine without a dealer: nothing more on a usual run's path.
            deck = deal_for(setup.deal, setup, self.judge.declared).get("deck")
            seated = self._seated(
                "start_deal", answer, self.runner.tracked_dealer, setup.deal.get("totals"), deck
            )
            if seated is None:
                self._unseated(None)
                return None
            answer = seated
        state: dict[str, Any] = answer["state"]
        for check in self.ledger.of_step(0):
            self.judge.invariants(check, state, "setup")
        return state

    # -- an engine that picks the first player of a deal ---------------------------------------

    def _seated(
        self, op: str, answer: dict[str, Any], dealer: int | None, totals: Any, deck: Any
    ) -> dict[str, Any] | None:
        """``answer`` to deal op ``op`` as the case's seats read it; None when the engine
        refuses to be put on those seats.

        An engine that keeps no dealer starts a deal with a player of its own choosing and
        deals the first card to that player, as the protocol deals to the dealer's right-hand
        neighbour, or to the seat the protocol names (docs/protocol.md §2): the seat it dealt
        from is read off ``deck`` (:func:`conformance.grading.compare.dealt_from`). When either
        is not the case's (``dealer`` + 1), the answer is read with the case's seats and first
        player (:func:`conformance.grading.compare.seated_for`, ``totals``: the totals before
        the deal) and the engine is put on that state, so that the later steps (each naming its
        player) are the case's. Hands dealt from no seat are read as they are, and fail where
        they differ.
        """
        declared = self.judge.declared
        state = answer.get("state")
        if (
            dealer is None
            or not declared.picks_first_player(op)
            or answer.get("accepted") is False
            or not isinstance(state, Mapping)
            or state.get("phase") != "draw"
        ):
            return answer
        self._own_first = op
        first = (dealer + 1) % max(len(state.get("hands") or ()), 1)
        source = dealt_from(state, deck)
        seated = seated_for(state, first, first if source is None else source, totals)
        if seated is None:
            return answer
        seated["dealer"] = dealer
        loaded = self._resync(seated)
        if isinstance(loaded, EngineReportedError):
            self._refused_load = loaded
            return None
        return {**answer, "state": seated}

    def _first_seat_checks(self, op: str, checks: Sequence[PlannedCheck]) -> list[PlannedCheck]:
        """``checks`` of a deal op's step but its ``turn`` checks, which are recorded as not
        graded (cause ``interface``) when the first player is the engine's own: their point
        is the first seat itself."""
        if not self.judge.declared.picks_first_player(op):
            return list(checks)
        turns = [c for c in checks if c.what == "turn"]
        if turns:
            note = (
                f"after {op} the engine keeps no dealer and starts the deal with a player of "
                "its own choosing (docs/protocol.md §2)"
            )
            self.ledger.not_graded(turns, "interface", note)
        return [c for c in checks if c.what != "turn"]

    def _unseated(self, after: int | None) -> None:
        """Record the checks after step ``after`` (None: the setup's too) as not graded: the
        engine, which picks the first player itself, did not load the state with the case's
        seats (an ``internal`` or ``bad_request`` answer is its own failure: cause
        ``error``, with its words)."""
        where = "the setup" if after is None else f"step {after + 1}"
        exc = self._refused_load
        if exc is not None and exc.kind in ("internal", "bad_request"):
            note = (
                f"the engine answered {exc.kind} to the state dealt at {where} with the "
                f"case's seats: {exc.message}"
            )
            if self.ledger.engine_message is None:
                self.ledger.engine_message = exc.message
            self.ledger.not_graded(self.ledger.rest(after), "error", note)
            return
        said = f" ({exc.message})" if exc is not None else ""
        note = (
            f"the engine refused the state dealt at {where} with the case's seats{said} (it "
            "keeps no dealer and picked another first player)"
        )
        self.ledger.not_graded(self.ledger.rest(after), "interface", note)

    def _answer(
        self, step: Step, before: Mapping[str, Any], planned: Chain
    ) -> dict[str, Any] | None:
        """The engine's answer to ``step`` (``planned``: the case's requests); None (its checks
        and the later ones recorded as not graded) when the engine lacks it or cannot be
        dealt the case's cards."""
        number = step.index + 1
        op = op_label("act", {"action": step.action}) if step.kind == "action" else step.kind
        try:
            if step.kind == "action":
                # Sent ahead with an answer before it, unless that was not possible.
                request = planned[step.index]
                assert request is not None and not isinstance(request, Ahead)
                answer = self._exchange_at(planned, step.index, request)
            else:
                deal = self._deal(step, before)
                if isinstance(deal, str):
                    self.ledger.not_graded(self.ledger.rest(number - 1), "option", deal)
                    return None
                answer = self._exchange_at(planned, step.index, deal)
            self.runner.ops.answered(op, self.judge.players, self.scenario.id)
            return answer
        except EngineReportedError as exc:
            if exc.kind in REFUSALS and step.kind != "action":
                self.runner.ops.answered(op, self.judge.players, self.scenario.id)
                self._refused(step.kind, exc, number)
                return None
            if exc.kind != "unsupported":
                raise
            self.runner.ops.refused(op, self.judge.players, self.scenario.id)
            # An action the engine lacks (say swap_joker): the checks before were graded.
            note = f"step {number}: the engine answered unsupported ({exc.message})"
            self.ledger.not_graded(self.ledger.rest(number - 1), "op", note)
            return None

    def _deal(self, step: Step, before: Mapping[str, Any]) -> Request | str:
        """A ``next_deal``/``redeal`` request with the deck composed for the engine's rulings,
        or why the case's cards cannot be dealt to it."""
        assert step.deck is not None
        context = dict(before)
        if not self.judge.declared.models("dealer") and self.runner.tracked_dealer is not None:
            # The engine's dealer is a placeholder: compose from the one the harness
            # tracked by the rules since the setup.
            context["dealer"] = self.runner.tracked_dealer
        expected: dict[str, Any] = {}
        for check in self.ledger.of_step(step.index + 1):
            if check.what in ("dealer", "deal_number"):
                # The value under the engine's options even when the field is not compared
                # (an engine that keeps no dealer): the deck is dealt from that dealer.
                value = self.judge.option_value(check)
                if isinstance(value, int):
                    expected[check.what] = value
        players, dealer, deal_number = deal_context(
            step, context, expected, self.profile, self.judge.declared.ruling
        )
        self.runner.tracked_dealer = dealer
        facts = self.judge.declared.facts
        try:
            if facts is None:
                raise ProfileError(f"unknown profile {self.profile!r}")
            size = facts.hand_size(deal_number)
            the_pack = facts.pack(players)
            deck = composed(step.deck, players, dealer, deal_number, the_pack, size)
        except (ProfileError, ValueError) as exc:
            return f"step {step.index + 1} cannot be dealt under the engine's rulings: {exc}"
        self._deck = deck
        # perla's cut (docs/protocol.md §10), sent only when the step gives one.
        cut = {} if step.deck.cut is None else {"cut": step.deck.cut}
        return (step.kind, {"deck": deck, **cut})

    def _refused(self, op: str, exc: EngineReportedError, number: int | None) -> None:
        """The engine refused the state or deal the case sets up (the setup, ``number``
        None, or deal step ``number``) with a protocol-correct answer: a failing check of
        the case (Judge.refused_state), the later ones not graded."""
        where = "the setup" if number is None else f"step {number}"
        checks = self.ledger.rest(None if number is None else number - 1)
        if not self.judge.refused_state(checks, op, exc.kind, exc.message, where):
            note = f"the engine refused the state {op} sets up at {where} ({exc.kind})"
            self.ledger.not_graded(checks, "divergence", note)

    def _unloaded(self, number: int, exc: EngineReportedError) -> None:
        """Record the checks after step ``number`` as not graded: the engine did not load the
        state to go on from. Refused as ``invalid_state`` (or ``unsupported``), they are not
        graded after a divergence; an ``internal`` or ``bad_request`` answer is the engine's
        own failure, kept with its words (cause ``error``)."""
        if exc.kind in ("internal", "bad_request"):
            note = (
                f"after step {number} the engine answered {exc.kind} to the state to go on "
                f"from: {exc.message}"
            )
            if self.ledger.engine_message is None:
                self.ledger.engine_message = exc.message
            self.ledger.not_graded(self.ledger.rest(number), "error", note)
            return
        note = f"after step {number} the engine refused the state to go on from ({exc.message})"
        self.ledger.not_graded(self.ledger.rest(number), "divergence", note)

    def _resync(self, state: Mapping[str, Any]) -> dict[str, Any] | EngineReportedError:
        """Put the engine on ``state``; the state it answers, or its error answer."""
        session = self.runner.session
        if session.in_flight:
            session.discard()  # the next step, sent ahead onto the state that differed
        try:
            # The engine's own ``x`` is never sent back (docs/protocol.md §5).
            state = {**strip_private(state), "profile": self.profile}
            answer = self.exchange(("load_state", {"state": state}), None)
        except EngineReportedError as exc:
            return exc
        loaded: dict[str, Any] = answer["state"]
        return loaded


def _passes_on(kind: str, phase: Any, ruling: Callable[[str], str | None]) -> bool:
    """True when a ``kind`` step from a state in ``phase`` deals from the next dealer:
    a cancelled deal's replay under DISPUTE-17 ``next_dealer``, a redeal under DISPUTE-16
    ``next_dealer`` (docs/rules.md)."""
    if kind == "next_deal" and phase == "cancelled":
        return ruling("DISPUTE-17") == "next_dealer"
    return kind == "redeal" and ruling("DISPUTE-16") == "next_dealer"


def deal_context(
    step: Step,
    before: Mapping[str, Any],
    expected: Mapping[str, Any],
    profile: str = DEFAULT_PROFILE,
    ruling: Callable[[str], str | None] = lambda _: None,
) -> tuple[int, int, int]:
    """Players, dealer and deal number under which a next_deal/redeal deck is composed.

    Taken from the step itself, else from its expected state, else derived by the rules
    from the last state under the engine's options (``ruling``): after a close the deal
    passes to the right and the deal number goes up; a cancelled deal or a redeal keeps
    both, but for the dealer where DISPUTE-17 (a cancelled deal's replay) or DISPUTE-16 (a
    redeal) is ruled ``next_dealer``.
    """
    assert step.deck is not None
    players = int(before.get("players", 0)) or 2
    dealer = int(before.get("dealer", 0))
    deal_number = int(before.get("deal_number", 1))
    if step.kind == "next_deal" and before.get("phase") == "deal_over":
        dealer = (dealer + 1) % players
        facts: ProfileData | None = default_profiles().get(profile)
        last = facts.deal_count if facts is not None else deal_number + 1
        deal_number = min(deal_number + 1, last)
    elif _passes_on(step.kind, before.get("phase"), ruling):
        dealer = (dealer + 1) % players
    dealer = int(expected.get("dealer", dealer))
    deal_number = int(expected.get("deal_number", deal_number))
    if step.deck.dealer is not None:
        dealer = step.deck.dealer
    if step.deck.deal_number is not None:
        deal_number = step.deck.deal_number
    return players, dealer, deal_number
