"""A stateful test of the game judge: random legal play mixed with deliberate probes.

The machine starts from a real shuffled deal or from a constructed mid-deal table (where
lay-offs and joker swaps are on offer at once), then draws, opens, lays off, swaps jokers
and discards by picking from ``legal_actions`` — one action kind at a time, so rare kinds
get picked as often as discards — and fires probes that are mostly illegal. After every
step it checks the invariants.
"""

from __future__ import annotations

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule
from strategies import LIVE, dealt_states, illegal_probes, seeded_deck, table_states

from properties.test_game_props import assert_conserved, check_step
from reference import (
    Action,
    Discard,
    DrawDiscard,
    DrawStock,
    GameState,
    LayOff,
    Open,
    Phase,
    SwapJoker,
    legal_actions,
    next_deal,
    validate_state,
)

KINDS = {
    "draw": (DrawStock, DrawDiscard),
    "open": (Open,),
    "lay_off": (LayOff,),
    "swap_joker": (SwapJoker,),
    "discard": (Discard,),
}


class GameMachine(RuleBasedStateMachine):
    """Drives one game; models each hand's size from the actions it saw accepted."""

    def __init__(self) -> None:
        super().__init__()
        self.state: GameState | None = None
        self.sizes: list[int] = []

    def _adopt(self, state: GameState) -> None:
        self.state = state
        self.sizes = [len(h) for h in state.hands]

    @initialize(state=st.one_of(dealt_states(), table_states()))
    def start(self, state: GameState) -> None:
        self._adopt(state)

    def _live(self) -> bool:
        return self.state is not None and self.state.phase in LIVE

    def _step(self, action: Action) -> None:
        assert self.state is not None
        before = self.state
        after = check_step(before, action)
        if after is before:
            return
        # The model: a draw adds one card, a discard removes one, an opening removes the
        # contract's cards and a lay-off or swap one (TURN-2, TURN-5, CONTRACT-8, TURN-10).
        p = before.turn
        if isinstance(action, DrawStock | DrawDiscard):
            if after.phase is not Phase.CANCELLED:
                self.sizes[p] += 1
        elif isinstance(action, Discard):
            self.sizes[p] -= 1
        elif isinstance(action, Open):
            self.sizes[p] -= sum(len(m.cards) for m in action.melds)
        else:
            self.sizes[p] -= 1
        self.state = after

    @precondition(lambda self: self._live())
    @rule(data=st.data())
    def play_a_legal_action(self, data: st.DataObject) -> None:
        """Pick an action kind on offer, then one listed action of that kind."""
        assert self.state is not None
        listed = legal_actions(self.state)
        kinds = [k for k, types in KINDS.items() if any(isinstance(a, types) for a in listed)]
        kind = data.draw(st.sampled_from(kinds))
        action = data.draw(st.sampled_from([a for a in listed if isinstance(a, KINDS[kind])]))
        self._step(action)

    @precondition(lambda self: self.state is not None)
    @rule(data=st.data())
    def probe(self, data: st.DataObject) -> None:
        """A doubtful action: judged by apply, it must agree with legal_actions."""
        assert self.state is not None
        self._step(data.draw(illegal_probes(self.state)))

    @precondition(
        lambda self: (
            self.state is not None and self.state.phase in (Phase.DEAL_OVER, Phase.CANCELLED)
        )
    )
    @rule(seed=st.integers(0, 2**16))
    def deal_again(self, seed: int) -> None:
        """After a close the next deal follows; after a cancellation the same deal again."""
        assert self.state is not None
        old = self.state
        new = next_deal(old, seeded_deck(seed))
        if old.phase is Phase.CANCELLED:
            assert (new.deal_number, new.dealer) == (old.deal_number, old.dealer)  # STOCK-2
        else:
            assert new.deal_number == old.deal_number + 1  # GAME-1
            assert new.dealer == (old.dealer + 1) % old.players  # DEAL-2
        assert new.totals == old.totals
        self._adopt(new)

    @invariant()
    def holds_the_108_cards(self) -> None:
        """CARDS-1: nothing created, nothing lost."""
        if self.state is not None:
            assert_conserved(self.state)
            assert validate_state(self.state) == ()

    @invariant()
    def hand_sizes_match_the_model(self) -> None:
        """Hand sizes follow the accepted actions; a live hand is never empty (TURN-9)."""
        if self.state is None:
            return
        assert [len(h) for h in self.state.hands] == self.sizes
        if self.state.phase in LIVE:
            assert all(self.sizes), self.sizes
        if self.state.closer is not None:
            assert self.sizes[self.state.closer] == 0  # END-1

    @invariant()
    def opening_turn_flag_is_consistent(self) -> None:
        """turn_opened only for a player who has opened (TURN-6, CONTRACT-11)."""
        if self.state is not None and self.state.turn_opened:
            assert self.state.opened[self.state.turn]


GameMachine.TestCase.settings = settings(
    settings.default,
    stateful_step_count=40,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
TestGameMachine = GameMachine.TestCase
TestGameMachine.__doc__ = """Rules: CARDS-1, TURN-1..10, CONTRACT-8..11, LAYOFF-1..4,
JOKER-4..6, STOCK-1, STOCK-2, END-1, DISPUTE-35 (see the invariants and check_step)."""
