"""Direct probes: for each strength mutant, protocol requests on which it must answer
differently from the reference.

A mutant that the corpus "kills" might still be equivalent to the reference on every input
that matters, or killed only by accident. A probe is a short, specific input chosen from
the mutant's own class (a meld, or a corpus state and the actions played on it); the test
in ``tests/test_mutant_probes.py`` sends it to the reference adapter and to the mutant
adapter through the protocol and requires the answers to differ.

States come from corpus scenarios (their expanded 108-card setup), so a probe needs no
hand-built state of its own.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from conformance.knowledge.cards import CANONICAL_ORDER

from . import harness

Request = dict[str, Any]


def meld(kind: str, cards: str, *, initial: bool) -> Request:
    """A ``check_meld`` request for ``cards`` (space-separated codes)."""
    return {
        "op": "check_meld",
        "profile": harness.PROFILE,
        "meld": {"kind": kind, "cards": cards.split()},
        "initial": initial,
    }


@cache
def _states() -> dict[str, Any]:
    return {s.id: s.setup.state for s in harness.load().scenarios if s.setup and s.setup.state}


def played(scenario_id: str, *actions: Request) -> list[Request]:
    """Load the setup state of ``scenario_id``, then act each action in turn."""
    state = _states()[scenario_id]
    return [{"op": "load_state", "state": dict(state)}] + [
        {"op": "act", "action": a} for a in actions
    ]


def _draw(player: int) -> Request:
    return {"type": "draw_stock", "player": player}


def _lay(player: int, card: str, meld_index: int, end: str | None = None) -> Request:
    action: Request = {"type": "lay_off", "player": player, "card": card, "meld": meld_index}
    if end is not None:
        action["end"] = end
    return action


def _swap(player: int, card: str, meld_index: int, to: str) -> Request:
    return {"type": "swap_joker", "player": player, "meld": meld_index, "card": card, "to": to}


def _open(player: int, *melds: tuple[str, str]) -> Request:
    return {
        "type": "open",
        "player": player,
        "melds": [{"kind": k, "cards": c.split()} for k, c in melds],
    }


def _discard(player: int, card: str) -> Request:
    return {"type": "discard", "player": player, "card": card}


# cc-1414, cc-1415, cc-1416 lay a joker off in player 1's turn and act again in the next
# one (no two additions to a run share a turn): player 1 discards the 5C it drew, player 0
# draws and discards the 10C, player 1 draws.
_NEXT_TURN = (_discard(1, "5C"), _draw(0), _discard(0, "10C"), _draw(1))

_DEAL_6_OPENING = _open(1, ("trio", "8C 8D 8H"), ("run", "4S 5S 6S 7S"), ("run", "9H 10H JH QH"))


def probes() -> dict[str, list[Request]]:
    """Mutant name -> the requests (after ``hello``) on which it must differ from the reference."""
    return {
        "run_suit_by_neighbours": [meld("run", "5S JK 7H 8H", initial=True)],
        "joker_fills_any_gap": [meld("run", "4S JK 7S 8S", initial=True)],
        "joker_may_wrap": [meld("run", "KS JK 2S 3S", initial=True)],
        "run_size_counts_naturals": [meld("run", "5S 6S 7S JK", initial=True)],
        "trio_size_counts_naturals": [meld("trio", "8C JK 8D", initial=True)],
        "all_joker_run_valid": [meld("run", "JK JK JK JK", initial=False)],
        "all_joker_trio_valid": [meld("trio", "JK JK JK", initial=False)],
        "joker_hides_trio_rank": [meld("trio", "8C JK 9C", initial=True)],
        "table_joker_blamed": [meld("run", "5S JK JK 8H", initial=False)],
        "opening_joker_blamed": [meld("run", "4S JK 7S 8S", initial=True)],
        "layoff_next_after_natural": played("cc-1412", _draw(1), _lay(1, "8S", 3, "high")),
        "swap_first_joker": played(
            "cc-1415", _draw(1), _lay(1, "JK", 3, "low"), *_NEXT_TURN, _swap(1, "4S", 3, "high")
        ),
        "swap_by_rank_only": played(
            "cc-1415", _draw(1), _lay(1, "JK", 3, "low"), *_NEXT_TURN, _swap(1, "4H", 3, "high")
        ),
        "joker_laid_past_ace": played(
            "cc-1414", _draw(1), _lay(1, "JK", 3, "high"), *_NEXT_TURN, _lay(1, "JK", 3, "high")
        ),
        "past_ace_does_not_fit": played(
            "cc-1414", _draw(1), _lay(1, "JK", 3, "high"), *_NEXT_TURN, _lay(1, "2H", 3, "high")
        ),
        "swapped_joker_past_ace": played(
            "cc-1416", _draw(1), _lay(1, "JK", 3, "high"), *_NEXT_TURN, _swap(1, "AD", 3, "high")
        ),
        "opening_keeps_two": played("cc-1420", _draw(1), _DEAL_6_OPENING),
        "game_over_after_6": played(
            "cc-1420", _draw(1), _DEAL_6_OPENING, {"type": "discard", "player": 1, "card": "3C"}
        ),
        "deal_6_dealt_12": [
            {
                "op": "start_deal",
                "profile": harness.PROFILE,
                "players": 2,
                "deal_number": 6,
                "dealer": 0,
                "totals": [0, 0],
                "deck": list(CANONICAL_ORDER),
            }
        ],
        "closer_scores_minus_10": played(
            "cc-1420", _draw(1), _DEAL_6_OPENING, {"type": "discard", "player": 1, "card": "3C"}
        ),
        "turn_opened_kept_after_close": played(
            "cc-1420", _draw(1), _DEAL_6_OPENING, {"type": "discard", "player": 1, "card": "3C"}
        ),
    }
