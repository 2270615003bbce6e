"""The requests a case sends: its setup, its planned steps and its melds checks.

What is the same for every engine (an action step, a melds check, a setup as the profile
deals it) is checked against the schema and encoded once a run, into a :class:`RequestBook`
that the run fills while its adapter starts (conformance.run.warmup); a setup the engine's
rulings deal otherwise is made for that engine.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conformance.adapter.declarations import Declarations
from conformance.adapter.engine import Request
from conformance.adapter.protocol import checked_request
from conformance.grading.answers import Judge
from conformance.knowledge.profiles import Pack
from conformance.scenarios.identity import kept
from conformance.scenarios.model import Check, DeckSpec, Scenario, Setup, Step
from conformance.scenarios.packs import conservation_problems, for_pack


class RequestBook:
    """A run's requests that are the same for every engine, checked and encoded once
    (:class:`conformance.adapter.protocol.CheckedRequest`): filled ahead (:meth:`warm`), else at
    first use. Each is kept with the step, check or case it was made for."""

    def __init__(self, profile: str) -> None:
        self.profile = profile
        self._steps: dict[int, tuple[Step, Request | None]] = {}
        self._checks: dict[int, tuple[Check, Request]] = {}
        self._setups: dict[int, tuple[Scenario, Request]] = {}

    def step(self, step: Step) -> Request | None:
        """:func:`planned_request` (``step``), checked and encoded."""
        return kept(self._steps, step, _checked_step)

    def check(self, check: Check) -> Request:
        """:func:`check_request` (``check``) in the run's profile, checked and encoded."""
        return kept(self._checks, check, lambda c: _checked(check_request(c, self.profile)))

    def setup(self, scenario: Scenario, declared: Declarations) -> Request:
        """:func:`setup_request` for the engine ``declared`` describes: the one checked and
        encoded when the engine is dealt the setup as written (:func:`as_written`)."""
        setup = scenario.setup_for(self.profile)
        assert setup is not None
        if not as_written(setup, declared):
            return setup_request(scenario, self.profile, declared)
        return self._written(scenario)

    def warm(self, scenario: Scenario) -> None:
        """Check and encode ``scenario``'s requests now."""
        if scenario.level == "melds":
            for check in scenario.checks:
                self.check(check)
            return
        if scenario.setup_for(self.profile) is not None:
            self._written(scenario)
        for step in scenario.steps:
            self.step(step)

    def _written(self, scenario: Scenario) -> Request:
        return kept(
            self._setups, scenario, lambda s: _checked(setup_request(s, self.profile, None))
        )


def _checked(request: Request) -> Request:
    return checked_request(*request)


def _checked_step(step: Step) -> Request | None:
    planned = planned_request(step)
    return None if planned is None else _checked(planned)


def _engine_pack(declared: Declarations, players: int) -> Pack | None:
    """The pack the engine deals ``players`` players under its rulings, or None when it is
    the profile's own (or the profile has no such count)."""
    facts = declared.facts
    return None if facts is None else facts.other_pack(players)


def state_for(setup: Setup, declared: Declarations) -> dict[str, Any] | None:
    """A setup state as loaded into this engine: refilled for its pack when its rulings
    give the pack other jokers or fewer packs (conformance.scenarios.packs.for_pack)."""
    state = setup.state
    assert state is not None
    the_pack = _engine_pack(declared, int(state["players"]))
    if the_pack is None:
        return dict(state)
    return for_pack(state, the_pack.jokers, the_pack.copies, stock_given=setup.stock_given)


def scenario_players(scenario: Scenario) -> int | None:
    """How many players the case's setup seats (None for melds-level cases)."""
    setup = scenario.setup
    if setup is None:
        return None
    for source in (setup.state, setup.deal, setup.new_game):
        if source is not None and isinstance(source.get("players"), int):
            return int(source["players"])
    return None


def setup_request(scenario: Scenario, profile: str, declared: Declarations | None) -> Request:
    """The case's first request: its state, deal or new game, in ``profile``, for the engine
    ``declared`` describes (None: as the profile deals it, :func:`as_written`).

    A state is refilled for the engine's pack, and a deal dealt again when the engine's
    rulings give another hand size than the profile's (its hands then completed from the
    pack, DeckSpec.completed_hands).
    """
    # Expanded with this profile's pack (a chilean state holds 106 or 160 cards).
    setup = scenario.setup_for(profile)
    assert setup is not None
    if setup.state is not None:
        state = setup.state if declared is None else state_for(setup, declared)
        assert state is not None, "why_ungradable turns such a case away first"
        return ("load_state", {"state": {**state, "profile": profile}})
    if setup.deal is not None:
        deal = setup.deal if declared is None else deal_for(setup.deal, setup, declared)
        return ("start_deal", {**deal, "profile": profile})
    assert setup.new_game is not None
    return ("new_game", {**setup.new_game, "profile": profile})


def deal_for(given: Mapping[str, Any], setup: Setup, declared: Declarations) -> dict[str, Any]:
    """The setup's ``start_deal`` fields, its deck dealt again when the engine's rulings give
    another hand size or pack than the profile's.

    :raises ValueError: when the case's cards cannot make the engine's pack (a third copy
        of a card for an engine playing two packs) or its hands hold more than it deals.
    """
    deal = dict(given)
    facts = declared.facts
    if setup.deck_spec is not None and facts is not None and _deals_otherwise(given, declared):
        size = facts.hand_size(deal["deal_number"])
        the_pack = facts.other_pack(deal["players"]) or facts.profile.pack(deal["players"])
        deal["deck"] = composed(
            setup.deck_spec,
            deal["players"],
            deal["dealer"],
            deal["deal_number"],
            the_pack,
            size,
        )
    return deal


def _deals_otherwise(deal: Mapping[str, Any], declared: Declarations) -> bool:
    """True when the engine's rulings deal ``deal`` another hand size or pack than the
    profile's."""
    facts = declared.facts
    if facts is None:
        return False
    number, players = deal["deal_number"], deal["players"]
    return (
        facts.hand_size(number) != facts.profile.hand_size(number)
        or facts.other_pack(players) is not None
    )


def as_written(setup: Setup, declared: Declarations) -> bool:
    """True when the engine ``declared`` describes is sent the setup as the profile deals
    it (:func:`setup_request` with ``declared`` None): its pack and hand sizes are the
    profile's."""
    if setup.state is not None:
        return _engine_pack(declared, int(setup.state["players"])) is None
    if setup.deal is not None:
        return setup.deck_spec is None or not _deals_otherwise(setup.deal, declared)
    return True


def composed(
    spec: DeckSpec, players: int, dealer: int, deal_number: int, the_pack: Pack, size: int
) -> list[str]:
    """The deck ``spec`` stands for, dealt ``size`` cards a hand from ``the_pack``.

    :raises ValueError: when its cards are not exactly ``the_pack`` (a whole deck, or cards
        beyond the pack, written for the profile's own).
    """
    deck = spec.compose(players, dealer, deal_number, the_pack, size)
    problems = conservation_problems(deck, exact=True, pack=the_pack)
    if problems:
        raise ValueError("; ".join(problems))
    return deck


def melds_requests(
    scenario: Scenario, judge: Judge, book: RequestBook
) -> list[tuple[Check, Request]]:
    """The melds checks to ask, with their requests: those with a check to grade."""
    return [
        (check, book.check(check))
        for check in scenario.checks
        if judge.gradable(judge.ledger.of_step(check.index + 1))
    ]


def check_request(check: Check, profile: str) -> Request:
    """The request of a melds check, in ``profile``."""
    return (check.op, {"profile": profile, **check.request})


def planned_request(step: Step) -> Request | None:
    """The request of an action step, known before the case starts; None for a deal step,
    whose deck is composed from the state the step before left."""
    if step.kind != "action":
        return None
    assert step.action is not None
    return ("act", {"action": dict(step.action)})


__all__ = [
    "RequestBook",
    "as_written",
    "check_request",
    "composed",
    "deal_for",
    "melds_requests",
    "planned_request",
    "scenario_players",
    "setup_request",
    "state_for",
]
