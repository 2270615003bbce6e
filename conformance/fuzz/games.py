"""A game's main part: its seeded stream, the queries, a dealt or built setup, and the
steps the policy plays on the pair up to the first divergence."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any, Final

from conformance.grading.compare import ENDED_PHASES
from conformance.knowledge.profiles import ProfileData

from .melds import shuffled_deck
from .model import SHRINK_TAIL, EndGame, Occurrence, SetupRefused, Trace
from .pair import Pair
from .player import Policy, random_query
from .states import built_state

#: Meld, contract and penalty queries per game for ``melds``-level engines.
QUERIES_PER_GAME: Final = 12


def game_rng(seed: int, game: int, what: str = "game") -> random.Random:
    # A string seed is hashed with SHA-512 by random.Random: stable across runs and machines.
    return random.Random(f"carioca-fuzz:{seed}:{game}:{what}")


def play_main(pair: Pair, game: int) -> list[Occurrence]:
    """The queries and the main game of ``game``: a shuffled deal or a built state, played
    by a seeded policy up to ``--max-steps`` steps."""
    options = pair.options
    rng = game_rng(options.seed, game)
    occurrences: list[Occurrence] = []
    decl = pair.decl
    if pair.can_query and "query" not in pair.unsupported_ops:
        for _ in range(QUERIES_PER_GAME):
            setup = random_query(rng, decl, options.profile)
            if setup["query"] in pair.unsupported_ops:
                continue
            try:
                found, ref = pair.query(setup)
            except EndGame:
                pair.unsupported_ops.add(setup["query"])
                continue
            if found is not None:
                occurrences.append(Occurrence(game, found, Trace({"op": "query", **setup}), ref))
            else:
                pair.agreed_on(Trace({"op": "query", **setup}))
    if not (pair.can_load or pair.can_deal):
        return occurrences
    facts = pair.facts  # the engine's packs
    # The most wild cards a run may hold under the engine's rulings (VARIANT-03 kept).
    limit = pair.decl.facts.meld_wild_limit("run") if pair.decl.facts is not None else None
    players = rng.choice(pair.player_counts)
    deal = rng.randint(1, facts.deal_count)
    dealer = rng.randrange(players)
    totals = [rng.choice([0, 0, 10, 25, 60]) for _ in range(players)]
    use_state = rng.random() < 0.5
    if pair.can_load and (use_state or not pair.can_deal):
        setup = {
            "op": "load_state",
            "state": built_state(
                rng, players, deal, dealer, totals, options.profile, facts=facts, wild_limit=limit
            ),
        }
    else:
        setup = {
            "op": "start_deal",
            "profile": options.profile,
            "players": players,
            "deal_number": deal,
            "dealer": dealer,
            "totals": totals,
            "deck": shuffled_deck(rng, facts, players),
        }
    policy = Policy(rng, decl, facts)
    try:
        try:
            try:
                found = pair.setup(setup)
            except SetupRefused:
                # The profile's rules refuse the built table (perla's trios of different
                # suits, say): build once more with trios that every profile allows.
                state = built_state(
                    rng,
                    players,
                    deal,
                    dealer,
                    totals,
                    options.profile,
                    careful=True,
                    facts=facts,
                    wild_limit=limit,
                )
                setup = {"op": "load_state", "state": state}
                found = pair.setup(setup)
        except EndGame:
            if pair.can_load or not pair.can_deal or setup["op"] != "load_state":
                raise
            # The engine does not load states: play this game from a deck instead.
            state = setup["state"]
            fields = ("profile", "players", "deal_number", "dealer", "totals")
            setup = {
                "op": "start_deal",
                **{k: state[k] for k in fields},
                "deck": shuffled_deck(rng, facts, players),
            }
            found = pair.setup(setup)
        trace = Trace(setup)
        if found is not None:
            occurrences.append(Occurrence(game, found, trace, {"state": pair.ref_state}))
            return occurrences
        found_step = play_steps(pair, game, trace, rng, policy, facts, players, options.max_steps)
        if found_step is not None:
            occurrences.append(found_step)
    except EndGame as exc:
        pair.ended_early[str(exc).split(":", 1)[0]] += 1
    return occurrences


def play_steps(
    pair: Pair,
    game: int,
    trace: Trace,
    rng: random.Random,
    policy: Policy,
    facts: ProfileData,
    players: int,
    limit: int,
    script: Callable[[Mapping[str, Any]], dict[str, Any] | None] | None = None,
) -> Occurrence | None:
    """Play up to ``limit`` steps from the pair's state; the first divergence, if any.

    ``script`` gives the next action while it has one (None: the policy's turn); it draws
    nothing from ``rng``, so a game without a script consumes its stream as it always did.
    """
    deal_mode = not pair.can_load
    drew = False
    befores: list[dict[str, Any]] = []  # the reference's state before each step
    for _ in range(limit):
        state = pair.ref_state
        befores.append(state)
        phase = state["phase"]
        step: dict[str, Any]
        scripted = script(state) if script is not None and phase not in ENDED_PHASES else None
        if scripted is not None:
            step = {"op": "act", "action": scripted}
            drew = True
        elif phase in ENDED_PHASES:
            if not pair.can_deal or "next_deal" in pair.unsupported_ops:
                break
            step = {"op": "next_deal", "deck": shuffled_deck(rng, facts, players)}
            drew = False
        elif pair.can_deal and rng.random() < 0.02:
            step = {
                "op": rng.choice(["next_deal", "redeal"]),
                "deck": shuffled_deck(rng, facts, players),
            }
        elif pair.can_deal and not drew and rng.random() < 0.1:
            step = {"op": "redeal", "deck": shuffled_deck(rng, facts, players)}
        else:
            step = {"op": "act", "action": policy.action(state)}
            drew = True
        trace.steps.append(step)
        try:
            found = pair.step(step, deal_mode=deal_mode)
        except EndGame:
            pair.agreed_on(Trace(trace.setup, trace.steps[:-1]))  # the steps before it agreed
            raise
        if found is not None:
            pair.agreed_on(Trace(trace.setup, trace.steps[:-1]))
            return Occurrence(
                game,
                found,
                Trace(trace.setup, list(trace.steps)),
                {"state": pair.ref_state, "before": state, "befores": befores[-SHRINK_TAIL:]},
            )
        if phase == "game_over":
            break
    pair.agreed_on(Trace(trace.setup, list(trace.steps)))
    return None
