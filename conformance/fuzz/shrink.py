"""The shrinker: a smaller reproduction of a finding's divergence (a loaded state just
before it, fewer players, melds and cards; else delta debugging over the steps; a query
with fewer cards), every change kept only if the same divergence still shows."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, Final

from conformance.errors import EngineError, EngineReportedError, InvalidRequest
from conformance.grading.compare import strip_private
from conformance.knowledge.profiles import find_profile
from conformance.scenarios import fill_after

from .judge import filed
from .model import Divergence, EndGame, Occurrence, Trace
from .pair import Pair

#: Replays the delta-debugging shrinker may spend on one finding.
SHRINK_BUDGET: Final = 150


def _replay(
    pair: Pair, trace: Trace, key: str, shown: list[Divergence] | None = None
) -> int | None:
    """Replay ``trace``; the index of the step where divergence ``key`` shows, else None.

    ``-1`` means the setup itself diverges that way. Any other divergence first is None.
    ``key`` cites the profile's own rule IDs, as findings do (:func:`~.judge.filed`); the
    divergence as this replay shows it is appended to ``shown``.
    """
    facts = find_profile(pair.options.profile)

    def same(found: Divergence | None) -> bool:
        if found is None:
            return False
        found = filed(found, facts, pair.catalogue)
        if found.key != key:
            return False
        if shown is not None:
            shown.append(found)
        return True

    try:
        if trace.setup["op"] == "query":
            found, _ = pair.query({k: v for k, v in trace.setup.items() if k != "op"})
            return -1 if same(found) else None
        found = pair.setup(trace.setup)
        if found is not None:
            return -1 if same(found) else None
        deal_mode = not pair.can_load
        for i, step in enumerate(trace.steps):
            found = pair.step(step, deal_mode=deal_mode)
            if found is not None:
                return i if same(found) else None
    except (EndGame, EngineReportedError):
        return None
    except InvalidRequest:
        # A candidate the protocol cannot express (an emptied meld) is no smaller example;
        # nothing was sent, so neither adapter needs a restart.
        return None
    except EngineError:
        pair.restart_engine()
        return None
    return None


def _ddmin(items: list[Any], test: Callable[[list[Any]], bool], budget: list[int]) -> list[Any]:
    """Zeller's delta debugging: a 1-minimal sublist for which ``test`` holds (within budget)."""
    n = 2
    while len(items) >= 2 and budget[0] > 0:
        chunk = max(1, len(items) // n)
        reduced = False
        for start in range(0, len(items), chunk):
            if budget[0] <= 0:
                break
            candidate = items[:start] + items[start + chunk :]
            budget[0] -= 1
            if candidate and test(candidate):
                items = candidate
                n = max(n - 1, 2)
                reduced = True
                break
        if not reduced:
            if chunk == 1:
                break
            n = min(len(items), n * 2)
    return items


def shrink(pair: Pair, occurrence: Occurrence) -> Occurrence:
    """A smaller reproduction of the same divergence (same key), or the original.

    Queries lose cards one at a time. With an engine that loads states, the reference's
    state just before the divergent step becomes the setup (one step), or else the state
    before the last few steps (up to ``SHRINK_TAIL``). Otherwise the steps before it are
    delta-debugged (rejected ones first), as long as the divergence stays.
    """
    key = occurrence.divergence.key
    trace = occurrence.trace
    budget = [SHRINK_BUDGET]
    if trace.setup["op"] == "query":
        return _shrink_query(pair, occurrence, budget)
    if not trace.steps:
        return occurrence
    last = trace.steps[-1]
    before = occurrence.reference.get("before")
    befores = occurrence.reference.get("befores") or ([before] if before is not None else [])
    if pair.can_load:
        # The state before the last step, else before the last few: what the protocol's
        # state does not carry (perla's chance to steal after a draw) is then replayed.
        for k in range(1, min(len(befores), len(trace.steps)) + 1):
            start = {**strip_private(befores[-k]), "profile": pair.options.profile}
            short = Trace({"op": "load_state", "state": start}, trace.steps[-k:])
            if _replay(pair, short, key) != k - 1:
                continue
            if k == 1:
                return _found_again(pair, occurrence, _shrink_state(pair, short, key, budget))
            return _found_again(pair, occurrence, short)
    prefix = trace.steps[:-1]

    def holds(candidate: list[Any]) -> bool:
        return _replay(pair, Trace(trace.setup, [*candidate, last]), key) == len(candidate)

    if prefix and holds([]):
        return _found_again(pair, occurrence, Trace(trace.setup, [last]))
    smaller = _ddmin(prefix, holds, budget) if prefix else prefix
    if len(smaller) < len(prefix) and holds(smaller):
        return _found_again(pair, occurrence, Trace(trace.setup, [*smaller, last]))
    return occurrence


def _shrink_state(pair: Pair, trace: Trace, key: str, budget: list[int]) -> Trace:
    """A smaller one-step reproduction: fewer table melds, a one-card discard pile, and a
    stock given by its first cards (the rest filled in canonical order, as a scenario's
    ``stock_top`` is, docs/scenario-format.md). Each change is kept only if the same
    divergence still shows on the step."""
    state = json.loads(json.dumps(trace.setup["state"]))
    action = dict(trace.steps[0].get("action") or {})

    def holds(candidate: dict[str, Any], act: dict[str, Any]) -> bool:
        budget[0] -= 1
        step = {"op": "act", "action": act} if act else trace.steps[0]
        return _replay(pair, Trace({"op": "load_state", "state": candidate}, [step]), key) == 0

    # Fewer players: drop one who neither acts nor is to move nor owns a meld (their
    # cards go to the stock); indices above them shift down by one.
    while int(state["players"]) > 2 and budget[0] > 0:
        for k in reversed(range(int(state["players"]))):
            fewer = _without_player(state, k, action)
            if fewer is not None and holds(*fewer):
                state, action = fewer
                break
        else:
            break
    # Table melds the action does not name, last first (indices above shift down by one).
    for index in reversed(range(len(state["table"]))):
        if budget[0] <= 0:
            break
        named = {action.get("meld"), action.get("to_meld")}
        if not action or index in named:
            continue
        owner = state["table"][index]["owner"]
        if sum(m["owner"] == owner for m in state["table"]) == 1 and state["opened"][owner]:
            continue  # an opened player keeps a meld (conformance/knowledge/reachability.py)
        candidate = json.loads(json.dumps(state))
        meld = candidate["table"].pop(index)
        candidate["stock"] += meld["cards"]
        act = dict(action)
        for name in ("meld", "to_meld"):
            if isinstance(act.get(name), int) and act[name] > index:
                act[name] -= 1
        if holds(candidate, act):
            state, action = candidate, act
    if len(state["discard"]) > 1 and budget[0] > 0:
        candidate = json.loads(json.dumps(state))
        candidate["stock"] += candidate["discard"][1:]
        candidate["discard"] = candidate["discard"][:1]
        if holds(candidate, action):
            state = candidate
    placed = [c for h in state["hands"] for c in h] + [
        c for m in state["table"] for c in m["cards"]
    ]
    placed += state["discard"]
    for keep in (0, 1, 2, 4, 8, 16):
        if budget[0] <= 0 or keep >= len(state["stock"]):
            break
        candidate = {**state, "stock": fill_after(state["stock"][:keep], placed)}
        if holds(candidate, action):
            state = candidate
            trace = Trace({"op": "load_state", "state": state}, trace.steps, stock_top=keep)
            break
    step = {"op": "act", "action": action} if action else trace.steps[0]
    return Trace({"op": "load_state", "state": state}, [step], stock_top=trace.stock_top)


def _without_player(
    state: Mapping[str, Any], k: int, action: Mapping[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """``state`` and ``action`` with player ``k`` removed, or None when ``k`` matters."""
    players = int(state["players"])
    if k in (state["turn"], action.get("player")) or any(m["owner"] == k for m in state["table"]):
        return None

    def seat(i: int) -> int:
        return i - 1 if i > k else i

    out = json.loads(json.dumps(state))
    out["stock"] += out["hands"].pop(k)
    for key in ("opened", "totals"):
        out[key].pop(k)
    out["players"] = players - 1
    out["turn"] = seat(int(state["turn"]))
    dealer = int(state["dealer"])
    out["dealer"] = seat(dealer) if dealer != k else seat((k - 1) % players)
    for meld in out["table"]:
        meld["owner"] = seat(int(meld["owner"]))
    act = dict(action)
    if isinstance(act.get("player"), int):
        act["player"] = seat(act["player"])
    return out, act


def _found_again(pair: Pair, occurrence: Occurrence, trace: Trace) -> Occurrence:
    """Replay ``trace`` once more and keep the reference's answers along it, and the
    divergence as the shrunk game shows it (its own players and cards)."""
    shown: list[Divergence] = []
    _replay(pair, trace, occurrence.divergence.key, shown)
    divergence = shown[-1] if shown else occurrence.divergence
    return Occurrence(occurrence.game, divergence, trace, {"state": pair.ref_state})


def _shrink_query(pair: Pair, occurrence: Occurrence, budget: list[int]) -> Occurrence:
    setup = dict(occurrence.trace.setup)
    key = occurrence.divergence.key
    listed = "cards" if setup["query"] == "penalty" else None
    changed = True
    while changed and budget[0] > 0:
        changed = False
        places: list[tuple[str, int]] = []
        if listed:
            places = [("cards", i) for i in range(len(setup["cards"]))]
        elif setup["query"] == "check_meld":
            places = [("meld", i) for i in range(len(setup["meld"]["cards"]))]
        else:
            places = [
                (f"melds.{m}", i)
                for m, meld in enumerate(setup["melds"])
                for i in range(len(meld["cards"]))
            ]
        for where, i in places:
            budget[0] -= 1
            candidate = json.loads(json.dumps(setup))
            if where == "cards":
                del candidate["cards"][i]
            elif where == "meld":
                del candidate["meld"]["cards"][i]
            else:
                del candidate["melds"][int(where.split(".")[1])]["cards"][i]
            if _replay(pair, Trace(candidate), key) == -1:
                setup = candidate
                changed = True
                break
    if setup == occurrence.trace.setup:
        return occurrence
    found, ref = pair.query({k: v for k, v in setup.items() if k != "op"})
    facts = find_profile(pair.options.profile)
    shown = filed(found, facts, pair.catalogue) if found is not None else None
    divergence = shown if shown is not None and shown.key == key else occurrence.divergence
    return Occurrence(occurrence.game, divergence, Trace(setup), ref)
