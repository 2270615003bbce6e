"""Playing a draft's setup and steps through an engine: what ``record`` and
``record --point`` (:mod:`conformance.authoring.options`) and the audit's replays share."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import yaml

from conformance.adapter.declarations import Declarations, declarations
from conformance.adapter.engine import EngineSession
from conformance.errors import HarnessError
from conformance.knowledge.catalogue import load_catalogue
from conformance.knowledge.optionfacts import pack
from conformance.knowledge.profiles import default_profiles
from conformance.scenarios import DocChecker, Scenario


class RecordError(HarnessError):
    """The setup or actions file is unusable (a user mistake)."""


@dataclass(frozen=True)
class PlayedDraft:
    """One play of a draft's setup and steps: each step's answer and the states."""

    expects: tuple[Any, ...]
    states: tuple[Mapping[str, Any], ...]
    """The state after each step."""
    initial: Mapping[str, Any]
    declared: Declarations
    engine: str


def play_draft(
    argv: Sequence[str],
    scenario: Scenario,
    profile: str,
    timeout: float,
) -> PlayedDraft:
    """Play ``scenario``'s setup and steps through the engine at ``argv``.

    :raises RecordError: when the engine answers the setup or a step with no state.
    """
    with EngineSession(argv, timeout=timeout) as session:
        hs = session.handshake
        assert hs is not None
        declared = declarations(hs, profile, load_catalogue())
        refuse_what_it_does_not_play(declared, scenario)
        return play_in_session(session, declared, scenario, profile)


def play_in_session(
    session: EngineSession, declared: Declarations, scenario: Scenario, profile: str
) -> PlayedDraft:
    """Play ``scenario``'s setup and steps in an open ``session`` (each setup starts afresh,
    so one session plays many cases).

    :raises RecordError: when the engine answers the setup or a step with no state.
    """
    assert scenario.setup is not None
    if scenario.setup.state is not None:
        loaded = session.request("load_state", state=dict(scenario.setup.state))
    elif scenario.setup.deal is not None:
        loaded = session.request("start_deal", **scenario.setup.deal)
    else:
        assert scenario.setup.new_game is not None
        loaded = session.request("new_game", **scenario.setup.new_game)
    if "state" not in loaded:
        raise RecordError(f"the engine refused the setup: {loaded.get('error', loaded)}")
    state = initial = loaded["state"]
    expects: list[Any] = []
    states: list[Mapping[str, Any]] = []
    for step in scenario.steps:
        if step.kind == "action":
            answer = session.request("act", action=dict(step.action or {}))
        else:
            assert step.deck is not None
            deck = step.deck.compose(
                state["players"],
                step.deck.dealer if step.deck.dealer is not None else state["dealer"],
                step.deck.deal_number or state["deal_number"],
                # The pack the engine deals under its rulings, as run composes it.
                pack(default_profiles()[profile], state["players"], declared.ruling),
            )
            answer = session.request(step.kind, deck=deck)
        if "state" not in answer:
            raise RecordError(f"step {step.index}: no state in the answer: {answer}")
        if answer.get("accepted"):
            expects.append("accepted")
        elif answer.get("reason"):
            expects.append({"rejected": answer["reason"]})
        else:
            expects.append("rejected")
        state = answer["state"]
        states.append(state)
    hs = session.handshake
    engine = f"{hs.name} {hs.version}" if hs is not None else "the engine"
    return PlayedDraft(tuple(expects), tuple(states), initial, declared, engine)


def draft_header(
    scenario_id: str, title: str, rules: Sequence[str], profile: str, level: str
) -> dict[str, Any]:
    return {
        "id": scenario_id,
        "title": title,
        "rules": list(rules),
        "source": "recorded; check against the rules text",
        "profiles": [profile],
        "level": level,
        "review": "draft",
    }


def refuse_impossible_final(document: Mapping[str, Any], scenario: Scenario) -> None:
    """Refuse a draft whose observed ``final`` no game of its seats and pack can hold (four
    hands for two players, a third copy of a card): ``check`` would refuse the draft, and
    the engine, not the reviewer, is what is wrong.

    :raises RecordError: naming the first problem and how many there are.
    """
    assert scenario.setup is not None
    node = yaml.compose(yaml.safe_dump(dict(document)), Loader=yaml.SafeLoader)
    assert node is not None
    checker = DocChecker(node, dict(document), "<record>", None)
    given = scenario.setup.state or scenario.setup.deal or scenario.setup.new_game or {}
    players = given.get("players")
    if not isinstance(players, int):
        return
    checker.check_expected_states(document, players, checker.profiles_of(document))
    if checker.errors:
        first = checker.errors[0].message
        more = f" (and {len(checker.errors) - 1} more)" if len(checker.errors) > 1 else ""
        raise RecordError(
            f"the engine's final state cannot be a draft's final: {first}{more}; nothing written"
        )


def refuse_what_it_does_not_play(declared: Declarations, scenario: Scenario) -> None:
    """A setup the engine cannot be asked about is a user mistake, said before any request.

    :raises RecordError: the profile, the level's capability or the player count is not
        one the engine plays.
    """
    if not declared.plays_profile:
        listed = ", ".join(declared.profiles) or "none"
        raise RecordError(
            f"the engine does not support profile {declared.profile!r}: its handshake lists "
            f"profiles {listed}"
        )
    lacking = declared.lacks({scenario.level})
    if lacking:
        raise RecordError(
            f"a {scenario.level}-level setup needs capability {lacking[0]!r}, which the "
            "engine does not claim"
        )
    assert scenario.setup is not None
    given = scenario.setup.state or scenario.setup.deal or scenario.setup.new_game or {}
    players = given.get("players")
    gap = declared.players_gap(players) if isinstance(players, int) else None
    if gap is not None:
        raise RecordError(f"the setup {gap}")
