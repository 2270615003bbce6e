"""The step laws every profile's playouts obey, shared by the per-profile property tests
(test_chilean_props, test_pagat_props, test_perla_props)."""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable, Sequence

from hypothesis import HealthCheck, settings

from reference import (
    Action,
    Discard,
    DrawDiscard,
    DrawStock,
    GameState,
    IllegalActionError,
    InvalidActionError,
    LayOff,
    Open,
    Phase,
    Run,
    SwapJoker,
    Trio,
    apply,
    full_pack,
    is_legal,
    legal_actions,
    start_deal,
    state_to_json,
)
from reference.game import shuffled_pack, validate_state
from reference.play import DealRecord, play_game
from reference.profiles import Profile

#: Fewer examples than the default: each one plays a whole seeded playout.
LAWS = settings(
    max_examples=max(5, settings.default.max_examples // 4),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def snapshot(state: GameState) -> str:
    """The state's protocol JSON, as text: what "unchanged" is judged on."""
    return json.dumps(state_to_json(state), sort_keys=True)


def all_cards(state: GameState) -> Counter[object]:
    """Every card of the state: hands, table, stock and discard pile."""
    found: Counter[object] = Counter()
    for hand in state.hands:
        found.update(hand)
    for tm in state.table:
        found.update(tm.meld.cards)
    found.update(state.stock)
    found.update(state.discard)
    return found


def check_step(state: GameState, action: Action) -> GameState:
    """Apply ``action``: a rejection changes nothing (TURN-1, DISPUTE-35) and is not legal;
    an acceptance keeps the profile's whole pack for the player count (CARDS-1 and the
    profile's own pack rules) and gives a valid state."""
    before = snapshot(state)
    try:
        after = apply(state, action)
    except (IllegalActionError, InvalidActionError):
        assert snapshot(state) == before, action
        assert not is_legal(state, action)
        return state
    assert all_cards(after) == Counter(full_pack(*state.profile.pack(state.players)))
    assert validate_state(after) == (), validate_state(after)
    return after


def probes(
    state: GameState,
    rng: random.Random,
    *,
    swap_to: Sequence[str] = ("hand", "low"),
    swap_wild: bool = False,
) -> list[Action]:
    """A few actions that are often illegal: wrong player, cards not held, bad melds, a
    joker replacement to one of ``swap_to`` (naming the card it stands for: ``swap_wild``)."""
    pack = list(full_pack(*state.profile.pack(state.players)))
    player = state.turn if rng.random() < 0.7 else rng.randrange(state.players)
    card = rng.choice(pack)
    meld = rng.randrange(len(state.table) + 1)
    some = tuple(rng.sample(pack, 4))
    to = rng.choice(list(swap_to))
    swap = (
        SwapJoker(player, meld, card, to, wild=rng.choice(pack))  # type: ignore[arg-type]
        if swap_wild
        else SwapJoker(player, meld, card, to)  # type: ignore[arg-type]
    )
    return [
        DrawDiscard(player),
        DrawStock(player),
        Discard(player, card),
        LayOff(player, card, meld, rng.choice(["low", "high"])),  # type: ignore[arg-type]
        swap,
        Open(player, (Trio(some[:3]), Run(some))),
    ]


def listed_actions(profile: Profile, players: int, deal: int, seed: int) -> list[Action]:
    """Play up to 29 random legal actions of a seeded deal; then every action legal_actions
    lists must be legal (returned, for the profile's own checks)."""
    rng = random.Random(seed)
    state = start_deal(
        profile, players, deal, 0, (0,) * players, shuffled_pack(profile, rng, players)
    )
    for _ in range(rng.randrange(1, 30)):
        if state.phase not in (Phase.DRAW, Phase.PLAY):
            return []
        state = apply(state, rng.choice(legal_actions(state)))
    listed = legal_actions(state)
    for action in listed:
        assert is_legal(state, action), action
    return listed


def check_random_games(profile: Profile, players: int) -> None:
    """Seeded random games are deterministic, keep the pack and differ by seed."""
    first = play_game(3, players, "random", profile=profile, max_actions_per_deal=150)
    assert first == play_game(3, players, "random", profile=profile, max_actions_per_deal=150)
    assert all_cards(first.final) == Counter(full_pack(*profile.pack(players)))
    assert first != play_game(4, players, "random", profile=profile, max_actions_per_deal=150)


#: The playouts' step count: enough to reach laying down, lay-offs, swaps and steals early.
STEPS = 60


def playout(
    state: GameState,
    rng: random.Random,
    probe: Callable[[GameState, random.Random], list[Action]],
    keen: tuple[type, ...],
    *,
    step: Callable[[GameState, Action], GameState] = check_step,
    between: Callable[[GameState, random.Random], GameState] | None = None,
) -> GameState:
    """Play up to STEPS listed actions from ``state``, judging ``probe``'s actions (never
    kept) before each; actions of the ``keen`` kinds go first most of the time, so tables,
    lay-offs and swaps come up. ``between`` may move the state on first (perla's steals)."""
    for _ in range(STEPS):
        if state.phase not in (Phase.DRAW, Phase.PLAY):
            break
        for action in probe(state, rng):
            step(state, action)  # probes are judged, never kept
        if between is not None:
            state = between(state, rng)
        legal = legal_actions(state)
        assert legal, "a live deal always offers an action"
        eager = [a for a in legal if isinstance(a, keen)]
        action = eager[0] if eager and rng.random() < 0.8 else rng.choice(legal)
        after = step(state, action)
        assert after is not state, f"a listed action was refused: {action}"
        state = after
    return state


def greedy_game(profile: Profile, seed: int, players: int) -> list[DealRecord]:
    """Play a seeded greedy game: it ends (GAME_OVER) after the profile's last deal, every
    deal closed once in order (GAME-1), the totals are the sums of the deal scores (SCORE-4)
    and the lowest total wins, ties sharing (END-4, END-5). Returns the closed deals."""
    record = play_game(seed, players, "greedy", profile=profile, max_actions_per_deal=2000)
    assert record.finished, (seed, players)
    final = record.final
    assert final.phase is Phase.GAME_OVER and final.deal_number == profile.deals
    closed = [d for d in record.deals if not d.cancelled]
    assert [d.deal_number for d in closed] == list(range(1, profile.deals + 1))
    sums = [sum(d.deal_scores[i] for d in closed if d.deal_scores) for i in range(players)]
    assert list(final.totals) == sums
    assert final.winners == tuple(i for i, t in enumerate(sums) if t == min(sums))
    return closed
