"""Game laws (reference.game, reference.play): conservation, rejection without effect,
legal_actions sound and complete, dealing, stock recycling, determinism and termination."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import (
    PACK,
    Playout,
    dealt_states,
    illegal_probes,
    opening_key,
    play,
    playouts,
    reachable_states,
    seeded_deck,
    table_states,
)

from reference import (
    ARGENTINE,
    Action,
    Discard,
    DrawStock,
    GameState,
    IllegalActionError,
    InvalidActionError,
    LayOff,
    Open,
    Phase,
    SwapJoker,
    Trio,
    apply,
    is_legal,
    legal_actions,
    next_deal,
    start_deal,
    state_to_json,
)
from reference.play import play_game

GAME_STATES = settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
HAND_SIZES = {1: 11, 2: 11, 3: 11, 4: 11, 5: 11, 6: 11, 7: 12}  # DEAL-3
CARD_COUNTS = {1: 6, 2: 7, 3: 8, 4: 9, 5: 10, 6: 11, 7: 12}  # CONTRACT-1..7
MAX_ACTIONS_PER_DEAL = 2000
"""The termination bound: a seeded greedy deal closes or is cancelled within this many
actions (observed deals take well under 400)."""
MAX_DEALS = 7 + 3
"""Seven deals plus a few cancelled replays (STOCK-2) at most."""


def all_cards(state: GameState) -> Counter[object]:
    """Every card the state holds: hands, table, stock and discard."""
    found: Counter[object] = Counter()
    for hand in state.hands:
        found.update(hand)
    for tm in state.table:
        found.update(tm.meld.cards)
    found.update(state.stock)
    found.update(state.discard)
    return found


def assert_conserved(state: GameState) -> None:
    """CARDS-1: exactly the 108 cards, two of each natural card and four jokers."""
    assert all_cards(state) == PACK


def snapshot(state: GameState) -> str:
    """The state's protocol JSON, as text: what "unchanged" is judged on."""
    return json.dumps(state_to_json(state), sort_keys=True)


def action_key(state: GameState, action: Action) -> object:
    """An action with the choices that do not change its effect normalised away.

    Meld order in an opening does not matter; a lay-off on a trio has no end; a swap whose
    ``to_meld`` names its own meld stays in that meld.
    """
    if isinstance(action, Open):
        return ("open", action.player, opening_key(action.melds))
    if isinstance(action, LayOff):
        on_trio = 0 <= action.meld < len(state.table) and isinstance(
            state.table[action.meld].meld, Trio
        )
        return replace(action, end=None) if on_trio else action
    if isinstance(action, SwapJoker) and action.to_meld == action.meld:
        return replace(action, to_meld=None)
    return action


def check_step(state: GameState, action: Action) -> GameState:
    """Apply ``action`` and check the step laws; return the next state (or the same one).

    - is_legal agrees with membership of legal_actions (after normalising);
    - a rejected action leaves the state exactly as it was (DISPUTE-35);
    - an accepted action keeps all 108 cards (CARDS-1).
    """
    before = snapshot(state)
    listed = {action_key(state, a) for a in legal_actions(state)}
    try:
        after = apply(state, action)
    except (IllegalActionError, InvalidActionError):
        assert snapshot(state) == before
        assert not is_legal(state, action)
        assert action_key(state, action) not in listed, action
        return state
    assert is_legal(state, action)
    assert action_key(state, action) in listed, action
    assert_conserved(after)
    return after


@GAME_STATES
@given(playouts())
def test_every_reachable_state_holds_the_108_cards(playout: Playout) -> None:
    """Conservation: every state of a real deal holds each natural card twice and four
    jokers, in hands, table, stock and discard, through draws, melds and recycling.

    Rules: CARDS-1, DEAL-4, STOCK-1, TURN-10.
    """
    for state in playout.states:
        assert_conserved(state)


@GAME_STATES
@given(playouts())
def test_hand_sizes_follow_the_phase(playout: Playout) -> None:
    """Each hand holds the dealt size, minus the cards its owner put on the table, plus the
    drawn card while its owner is in the ``play`` phase; an opening lays exactly the
    contract's cards; the closer's hand is empty.

    Rules: DEAL-3, TURN-2, TURN-5, CONTRACT-8, END-1, END-2, END-3.
    """
    first = playout.states[0]
    size = HAND_SIZES[first.deal_number]
    laid = [0] * first.players
    for state, action in zip(playout.states[1:], playout.actions, strict=True):
        if isinstance(action, Open):
            assert sum(len(m.cards) for m in action.melds) == CARD_COUNTS[first.deal_number]
            laid[action.player] += CARD_COUNTS[first.deal_number]
        elif isinstance(action, LayOff | SwapJoker):
            laid[action.player] += 1
        for p in range(state.players):
            drew = state.phase is Phase.PLAY and p == state.turn
            assert len(state.hands[p]) == size - laid[p] + drew, (p, action)
        if state.closer is not None:
            assert state.hands[state.closer] == ()
            assert isinstance(action, Discard) and action.player == state.closer


@GAME_STATES
@given(st.one_of(reachable_states(), table_states()))
def test_legal_actions_are_all_accepted(state: GameState) -> None:
    """Soundness: every action legal_actions lists is accepted by apply and keeps the cards.

    Rules: TURN-1, TURN-2, TURN-5, TURN-7, LAYOFF-1..4, JOKER-4, CARDS-1.
    """
    for action in legal_actions(state):
        assert is_legal(state, action), action
        assert_conserved(apply(state, action))


@GAME_STATES
@given(st.data(), st.one_of(reachable_states(), table_states()))
def test_probes_are_judged_consistently(data: st.DataObject, state: GameState) -> None:
    """Completeness and rejection without effect: any sampled action apply accepts is among
    legal_actions; any it rejects leaves the state's JSON untouched and is not listed.

    Rules: TURN-1, TURN-3, TURN-10, CONTRACT-10, JOKER-5, JOKER-6, DISPUTE-35.
    """
    for _ in range(6):
        check_step(state, data.draw(illegal_probes(state)))


@GAME_STATES
@given(dealt_states())
def test_a_deal_starts_as_the_rules_say(state: GameState) -> None:
    """Each player gets the deal's hand size, one card is turned up, the rest is stock,
    the dealer's right-hand neighbour moves first and nobody has opened.

    Rules: DEAL-3, DEAL-4, DEAL-5, CONTRACT-11.
    """
    size = HAND_SIZES[state.deal_number]
    assert [len(h) for h in state.hands] == [size] * state.players
    assert len(state.discard) == 1
    assert len(state.stock) == 108 - state.players * size - 1
    assert state.turn == (state.dealer + 1) % state.players
    assert state.phase is Phase.DRAW
    assert state.opened == (False,) * state.players
    assert state.table == ()


def _draw_phase(state: GameState) -> bool:
    return state.phase is Phase.DRAW


@GAME_STATES
@given(reachable_states(80).filter(_draw_phase))
def test_an_empty_stock_is_rebuilt_from_the_discards_under_the_top(state: GameState) -> None:
    """With the stock empty, a stock draw keeps the top discard in place and turns the other
    discards into a new stock, from which the player draws; no card is lost.

    Rules: STOCK-1, DISPUTE-18.
    """
    emptied = replace(state, stock=(), discard=state.discard + state.stock)
    assert_conserved(emptied)
    if len(emptied.discard) < 2:
        return
    after = apply(emptied, DrawStock(emptied.turn))
    assert_conserved(after)
    assert after.phase is Phase.PLAY
    assert after.discard == emptied.discard[:1]
    drawn = Counter(after.hands[emptied.turn]) - Counter(emptied.hands[emptied.turn])
    assert Counter(after.stock) + drawn == Counter(emptied.discard[1:])


@GAME_STATES
@given(reachable_states(80).filter(_draw_phase), st.integers(0, 2**16))
def test_nothing_to_recycle_cancels_and_replays_the_deal(state: GameState, seed: int) -> None:
    """With the stock empty and only the top discard left, a stock draw cancels the deal
    with no points; the replay is the same deal number, same dealer, totals unchanged.

    Rules: STOCK-2, DISPUTE-17, END-1.
    """
    other = (state.turn + 1) % state.players
    # Push every stock card and every buried discard into another player's hand.
    hands = list(state.hands)
    hands[other] = hands[other] + state.stock + state.discard[1:]
    dry = replace(state, stock=(), discard=state.discard[:1], hands=tuple(hands))
    assert_conserved(dry)
    after = apply(dry, DrawStock(dry.turn))
    assert after.phase is Phase.CANCELLED
    assert after.totals == dry.totals and after.deal_scores is None
    assert after.hands == dry.hands and after.table == dry.table
    assert legal_actions(after) == ()
    replay = next_deal(after, seeded_deck(seed))
    assert (replay.deal_number, replay.dealer, replay.totals) == (
        dry.deal_number,
        dry.dealer,
        dry.totals,
    )
    assert replay.phase is Phase.DRAW


@settings(max_examples=max(2, settings.default.max_examples // 25))
@given(st.integers(0, 2**32 - 1), st.integers(2, 4))
def test_seeded_games_terminate_and_replay_identically(seed: int, players: int) -> None:
    """A seeded greedy game reaches the end of deal 7 within MAX_DEALS deals and
    MAX_ACTIONS_PER_DEAL actions per deal (through recycling and any cancelled replays);
    the same seed plays the same game; deal numbers climb 1..7, replays keep theirs.

    Rules: GAME-1, STOCK-1, STOCK-2, END-1, END-4.
    """
    record = play_game(seed, players, "greedy", max_actions_per_deal=MAX_ACTIONS_PER_DEAL)
    assert record.finished
    assert len(record.deals) <= MAX_DEALS
    assert record.final.phase is Phase.GAME_OVER
    assert all(d.actions <= MAX_ACTIONS_PER_DEAL for d in record.deals)
    expected = 1
    for deal in record.deals:
        assert deal.deal_number == expected
        if not deal.cancelled:
            expected += 1
    assert expected == 8
    again = play_game(seed, players, "greedy", max_actions_per_deal=MAX_ACTIONS_PER_DEAL)
    assert again == record


@GAME_STATES
@given(dealt_states(), st.sampled_from(["greedy", "random"]), st.integers(0, 2**16))
def test_same_seed_same_deal(state: GameState, policy: str, seed: int) -> None:
    """Determinism: the same deal and policy seed give the same actions and states, and
    recycled stocks shuffle identically (the engine keeps its seed in the state).

    Rules: STOCK-1 (replayable shuffles), DISPUTE-18.
    """
    first = play(state, policy, seed, 60)
    second = play(state, policy, seed, 60)
    assert first.actions == second.actions
    assert [snapshot(s) for s in first.states] == [snapshot(s) for s in second.states]


def test_an_ended_deal_offers_no_action() -> None:
    """A deal that has ended offers no action and accepts none (END-1)."""
    dealt = start_deal(ARGENTINE, 2, 1, 0, (0, 0), seeded_deck(0))
    for phase in (Phase.DEAL_OVER, Phase.CANCELLED, Phase.GAME_OVER):
        state = replace(dealt, phase=phase)
        assert legal_actions(state) == ()
        assert not is_legal(state, DrawStock(state.turn))
