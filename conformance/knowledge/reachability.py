"""Whether a loaded mid-deal state is one that play can reach, judged by counts alone.

A scenario that loads a state nobody can reach (a player marked opened with nothing on the
table, twelve cards in the draw phase of deal 1) tests an engine on a position the rules
never produce, and can pass or fail for reasons no game would show. ``check`` refuses such a
setup unless the scenario says the state is built on purpose (``built: <why>``,
docs/scenario-format.md).

The counts come from the rules text, through the profile's data (conformance/data/profiles.json):
DEAL-3 (argentine: 11 cards dealt, 12 in deal 7), CONTRACT-1..7 (the cards an opening lays;
for a deal with a choice of contracts, the smallest), TURN-2 and TURN-5 (a turn draws one
card and ends with one discard), TURN-8 (no new melds after the opening) and TURN-9 (a meld
action keeps one card for the discard). Lay-offs only ever make an opened hand smaller, so
the checks are bounds.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conformance.knowledge.profiles import DEFAULT_PROFILE, ProfileData, default_profiles

#: Phases in which a deal is being played; other phases are not checked.
LIVE_PHASES = ("draw", "play")


def unreachable_problems(state: Mapping[str, Any], profile: ProfileData | None = None) -> list[str]:
    """Why play cannot reach ``state`` (an expanded protocol state), or [] if counts allow it.

    Only live phases are judged. For each player: one who has not opened holds exactly the
    dealt number of cards, one more if it is their turn and they have drawn; one who has
    opened owns a meld on the table and holds at most ``dealt - contract`` cards (one more
    while they are to move after their draw), and at least one. ``profile`` gives the
    counts (default: argentine).
    """
    facts = profile if profile is not None else default_profiles()[DEFAULT_PROFILE]
    if state.get("phase") not in LIVE_PHASES:
        return []
    number = state.get("deal_number")
    if not isinstance(number, int) or not 1 <= number <= facts.deal_count:
        return []
    n = facts.hand_size(number)
    laid = facts.contract_cards(number)
    players = int(state.get("players", 0))
    opened = list(state.get("opened") or [False] * players)
    owners = {m.get("owner") for m in state.get("table", [])}
    problems: list[str] = []
    if state.get("turn_opened") and state.get("phase") == "draw":
        problems.append("turn_opened is true before the player to move has drawn (TURN-2)")
    for player, hand in enumerate(state.get("hands", [])):
        drawn = 1 if player == state.get("turn") and state.get("phase") == "play" else 0
        size = len(hand)
        is_open = player < len(opened) and bool(opened[player])
        if not is_open:
            if size != n + drawn:
                problems.append(
                    f"player {player} has not opened and holds {size} cards; in deal {number} "
                    f"of {facts.name} such a hand holds {n + drawn} (DEAL-3, TURN-2, TURN-5)"
                )
            continue
        if player not in owners:
            problems.append(
                f"player {player} is marked opened but owns no meld on the table (CONTRACT-8)"
            )
        most = n - laid + drawn
        if size > most:
            problems.append(
                f"player {player} has opened and holds {size} cards; after laying the "
                f"{laid}-card contract of deal {number} at most {most} remain "
                f"(CONTRACT-{number}, {facts.name})"
            )
        if size < 1:
            problems.append(f"player {player} holds no card in a live deal (TURN-9, END-1)")
    return problems
