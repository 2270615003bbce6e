"""The rejection-reason vocabulary of docs/reasons.md, each reason citing one rule ID."""

from __future__ import annotations

import enum


class Reason(enum.StrEnum):
    """Why an action was rejected. The value is the code used on the wire and in scenarios.

    The members are listed in the precedence order of docs/reasons.md: when an action
    breaks several rules, the engine reports the earliest failing check.
    """

    DEAL_OVER = "deal_over"
    GAME_OVER = "game_over"
    DEAL_IN_PROGRESS = "deal_in_progress"
    REDEAL_TOO_LATE = "redeal_too_late"
    BUY_OUT_OF_TURN = "buy_out_of_turn"
    NOT_YOUR_TURN = "not_your_turn"
    DRAW_FIRST = "draw_first"
    ALREADY_DREW = "already_drew"
    EMPTY_DISCARD = "empty_discard"
    CARD_NOT_IN_HAND = "card_not_in_hand"
    ALREADY_OPENED = "already_opened"
    CONTRACT_MISMATCH = "contract_mismatch"
    TRIO_SIZE = "trio_size"
    RUN_SIZE = "run_size"
    TOO_MANY_JOKERS = "too_many_jokers"
    TRIO_MIXED_RANKS = "trio_mixed_ranks"
    RUN_SUIT = "run_suit"
    RUN_WRAPS = "run_wraps"
    BEYOND_ACE = "beyond_ace"
    RUN_GAP = "run_gap"
    HAND_WOULD_EMPTY = "hand_would_empty"
    NOT_OPENED = "not_opened"
    OPENING_TURN = "opening_turn"
    NO_SUCH_MELD = "no_such_meld"
    NOT_A_RUN = "not_a_run"
    NO_JOKER_FOR_CARD = "no_joker_for_card"
    JOKER_TO_HAND = "joker_to_hand"
    JOKER_TO_OTHER_MELD = "joker_to_other_meld"
    NO_JOKER_POSITION = "no_joker_position"
    DOES_NOT_FIT = "does_not_fit"
    NOT_GOING_OUT = "not_going_out"
    WILD_TO_HAND = "wild_to_hand"
    MUST_LAY_DOWN = "must_lay_down"
    TRIO_SUITS = "trio_suits"
    NO_WILD_SWAPS = "no_wild_swaps"

    @property
    def rule(self) -> str:
        """The rule ID of docs/rules.md (rules-reading) this reason cites."""
        return _RULES[self]


_RULES: dict[Reason, str] = {
    Reason.DEAL_OVER: "END-1",
    Reason.GAME_OVER: "END-4",
    Reason.DEAL_IN_PROGRESS: "END-1",
    Reason.REDEAL_TOO_LATE: "DEAL-6",
    Reason.BUY_OUT_OF_TURN: "TURN-3",
    Reason.NOT_YOUR_TURN: "TURN-1",
    Reason.DRAW_FIRST: "TURN-2",
    Reason.ALREADY_DREW: "TURN-2",
    Reason.EMPTY_DISCARD: "TURN-2",
    Reason.CARD_NOT_IN_HAND: "TURN-10",
    Reason.ALREADY_OPENED: "TURN-8",
    Reason.CONTRACT_MISMATCH: "CONTRACT-8",
    Reason.TRIO_SIZE: "MELD-TRIO-1",
    Reason.RUN_SIZE: "MELD-RUN-1",
    Reason.TOO_MANY_JOKERS: "JOKER-2",
    Reason.TRIO_MIXED_RANKS: "MELD-TRIO-3",
    Reason.RUN_SUIT: "MELD-RUN-1",
    Reason.RUN_WRAPS: "MELD-RUN-3",
    Reason.BEYOND_ACE: "MELD-RUN-5",
    Reason.RUN_GAP: "MELD-RUN-6",
    Reason.HAND_WOULD_EMPTY: "TURN-9",
    Reason.NOT_OPENED: "CONTRACT-10",
    Reason.OPENING_TURN: "TURN-6",
    Reason.NO_SUCH_MELD: "LAYOFF-3",
    Reason.NOT_A_RUN: "JOKER-4",
    Reason.NO_JOKER_FOR_CARD: "JOKER-4",
    Reason.JOKER_TO_HAND: "JOKER-5",
    Reason.JOKER_TO_OTHER_MELD: "JOKER-5",
    Reason.NO_JOKER_POSITION: "JOKER-6",
    Reason.DOES_NOT_FIT: "LAYOFF-4",
    Reason.NOT_GOING_OUT: "CHILE-ROUND8-2",
    Reason.WILD_TO_HAND: "CHILE-SWAP-2",
    Reason.MUST_LAY_DOWN: "TURN-4",
    Reason.TRIO_SUITS: "PERLA-TRIO-1",
    Reason.NO_WILD_SWAPS: "PERLA-WILD-4",
}
