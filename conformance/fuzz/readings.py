"""The readings docs/protocol.md §2 leaves to an engine, as other requests to the reference.

An engine that picks run ends itself (``run_ends: engine``) may lay a card at the end
where it fits, whatever ``end`` or ``to`` says; one that arranges runs itself
(``run_order: engine``) reads a run's cards as a set, so its jokers stand where it placed
them, which may be another place than the reference's listing. When such an engine
accepts an action the reference refused, the pair asks the reference again under each
reading the engine may have taken (:func:`fair_reading`); only if none is accepted is the
refusal a divergence. Where the states then differ only as the protocol allows (a
recycled stock's order, the engine's own run listing, its own first player without a
dealer), the reference takes the engine's state (:func:`take_engine_state`), so that
later steps agree.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from itertools import product
from typing import TYPE_CHECKING, Any, Final, Protocol

from conformance.errors import EngineReportedError
from conformance.grading.compare import ENDED_PHASES, strip_private
from conformance.knowledge.cards import JOKER, RANKS

from .judge import canonical_state, repaired
from .model import EndGame

if TYPE_CHECKING:
    from collections import Counter

    from conformance.adapter.declarations import Declarations
    from conformance.adapter.engine import EngineSession

    from .model import FuzzOptions


class Pair(Protocol):
    """What these readings need of the two sides of a game (the pair of
    :mod:`conformance.fuzz.pair` is one): written here, so that this module needs nothing
    from the pair that calls it."""

    options: FuzzOptions
    decl: Declarations
    reference: EngineSession
    events: Counter[str]
    ref_state: dict[str, Any]
    eng_state: dict[str, Any]


#: The most readings tried for one action (a run with several jokers has many places).
MAX_READINGS: Final = 24


def _position(card: str, ace_high: bool) -> int:
    rank = card[:-1]
    return 14 if rank == "A" and ace_high else RANKS.index(rank) + 1


def run_arrangements(cards: Sequence[str]) -> list[list[str]]:
    """Every listing of ``cards`` that is one unbroken run, low to high, its jokers filling
    the gaps and then standing at either end (within ace to ace); the cards' own listing
    first when it is one of them. Empty when no listing is a run."""
    naturals = [c for c in cards if c != JOKER]
    jokers = len(cards) - len(naturals)
    if not naturals or any(c[:-1] not in RANKS for c in naturals):
        return []
    found: list[list[str]] = []
    for ace_high in (False, True):
        ordered = sorted(naturals, key=lambda c: _position(c, ace_high))
        spots = [_position(c, ace_high) for c in ordered]
        if len(set(spots)) != len(spots):
            continue
        gaps = spots[-1] - spots[0] + 1 - len(spots)
        if gaps > jokers:
            continue
        middle: list[str] = []
        for card, spot in zip(ordered, spots, strict=True):
            if middle:
                middle += [JOKER] * (spot - _position(middle[-1], ace_high) - 1)
            middle.append(card)
        spare = jokers - gaps
        for below in range(spare + 1):
            above = spare - below
            if spots[0] - below < 1 or spots[-1] + above > 14:
                continue
            listing = [JOKER] * below + middle + [JOKER] * above
            if listing not in found:
                found.append(listing)
    listed = list(cards)
    if listed in found:
        found.remove(listed)
        found.insert(0, listed)
    return found


def alternatives(
    before: Mapping[str, Any], action: Mapping[str, Any], *, ends: bool, order: bool
) -> Iterator[tuple[dict[str, Any] | None, dict[str, Any]]]:
    """Other readings of ``action`` in ``before`` an engine may have taken: ``(table, action)``
    pairs, ``table`` None when the table is read as listed.

    ``ends`` (``run_ends: engine``): the other end of a lay-off or a joker replacement.
    ``order`` (``run_order: engine``): another arrangement of the run acted on, and for an
    opening each run arranged as a run. Never the reading the reference already refused.
    """
    kind = action.get("type")
    seen = {json.dumps([None, dict(action)], sort_keys=True)}
    tables: list[list[dict[str, Any]] | None] = [None]
    table = [dict(m) for m in before.get("table") or []]
    index = action.get("meld")
    if (
        order
        and kind in ("lay_off", "swap_joker")
        and isinstance(index, int)
        and 0 <= index < len(table)
        and table[index].get("kind") == "run"
        and JOKER in table[index].get("cards", [])
    ):
        for listing in run_arrangements(table[index]["cards"]):
            if listing == list(table[index]["cards"]):
                continue
            other = [dict(m) for m in table]
            other[index] = {**other[index], "cards": listing}
            tables.append(other)
    actions: list[dict[str, Any]] = [dict(action)]
    key = {"lay_off": "end", "swap_joker": "to"}.get(str(kind))
    if ends and key and action.get(key) in ("low", "high"):
        actions.append({**action, key: "high" if action[key] == "low" else "low"})
    if order and kind == "open":
        melds = [
            {**m, "cards": (run_arrangements(m.get("cards", [])) or [list(m.get("cards", []))])[0]}
            if isinstance(m, Mapping) and m.get("kind") == "run"
            else m
            for m in action.get("melds") or []
        ]
        actions.append({**action, "melds": melds})
    tried = 0
    for candidate_table, candidate in product(tables, actions):
        mark = json.dumps([candidate_table, candidate], sort_keys=True)
        if mark in seen:
            continue
        seen.add(mark)
        tried += 1
        if tried > MAX_READINGS:
            return
        yield candidate_table, candidate


def fair_reading(
    pair: Pair, before: dict[str, Any], action: Mapping[str, Any], ref: dict[str, Any]
) -> dict[str, Any]:
    """The reference's answer under a reading the engine may have taken
    (:func:`alternatives`): another end (``run_ends: engine``), another arrangement of the
    run acted on (``run_order: engine``); ``ref`` when it refuses them all."""
    decl = pair.decl
    ends, order = decl.run_ends == "engine", decl.run_order == "engine"
    if not (ends or order):
        return ref
    profile = pair.options.profile
    for table, other in alternatives(before, action, ends=ends, order=order):
        state = {**before, "profile": profile}  # with its own x: nothing hidden is lost
        if table is not None:
            state["table"] = table
        try:
            pair.reference.request("load_state", state=state)
        except EngineReportedError:
            continue  # that arrangement is not a table the reference holds
        alt = pair.reference.request("act", action=other)
        if alt.get("accepted"):
            pair.events["engine's reading"] += 1
            return alt
    pair.reference.request("load_state", state={**ref["state"], "profile": profile})
    return ref


#: Faults mended one after another before the engine's reason is given up as untrue.
MAX_REPAIRS: Final = 3


def both_true(
    pair: Pair, before: dict[str, Any], action: Mapping[str, Any], ref_reason: str, eng_reason: str
) -> bool:
    """Whether the engine's rejection reason is true of ``before`` too, beside the
    reference's: with the reference's fault mended (:func:`~conformance.fuzz.judge.repaired`)
    the reference, asked again, names the engine's. The two then differ only in which
    fault comes first, which no rules text fixes. The reference is left holding
    ``before`` (with its own ``x``) whatever happens."""
    profile = pair.options.profile
    state, reason, found = before, ref_reason, False
    try:
        for _ in range(MAX_REPAIRS):
            mended = repaired(state, reason, action)
            if mended is None:
                break
            try:
                pair.reference.request("load_state", state={**mended, "profile": profile})
            except EngineReportedError:
                break  # a mended state the reference refuses: no second reading
            answer = pair.reference.request("act", action=dict(action))
            if answer.get("accepted") or not isinstance(answer.get("reason"), str):
                break
            if answer["reason"] == eng_reason:
                found = True
                break
            state, reason = mended, answer["reason"]
    finally:
        pair.reference.request("load_state", state={**before, "profile": profile})
    return found


def with_hidden(state: Mapping[str, Any], reference: Mapping[str, Any]) -> dict[str, Any]:
    """``state`` (the engine's, to be loaded into the reference) carrying the reference's
    own private ``x`` from ``reference``, its state before the resync.

    What the protocol state cannot say (perla's chance to steal and whose pass it is, the
    card taken from the discard this turn, the melds added to, whether anyone has drawn in
    this deal) lives in the reference's ``x``; a resync that dropped it would make the
    reference refuse a legal action after it (a steal after a recycle). The harness never
    reads ``x``: it hands the reference back its own, which describes the same play, since
    the states differ only where the protocol leaves the engine free (the stock's order,
    the listing of runs, the first player of a deal).
    """
    merged = dict(state)
    hidden = reference.get("x")
    if isinstance(hidden, Mapping):
        merged["x"] = dict(hidden)
    return merged


def take_engine_state(pair: Pair, allowed: bool, dealt: bool = False) -> None:
    """Make the reference hold the engine's state where they differ only as allowed.

    After a recycle the stock order is the engine's own, an engine that arranges runs or
    picks ends lists runs its own way, and one that keeps no dealer picks the first player
    of a deal (``dealt``: it just did, and the reference takes the dealer before it); the
    reference loads the engine's state
    (its unmodelled fields, and ``turn`` once a deal has ended, taken from the
    reference) so that later draws agree. ``allowed`` is False for an engine that only
    deals from decks: a game that would need it ends there, since no scenario could
    replay it.
    """
    merged = strip_private(pair.eng_state)
    for name in pair.decl.unmodelled:
        merged[name] = pair.ref_state.get(name)
    turn, hands = merged.get("turn"), merged.get("hands")
    if dealt and isinstance(turn, int) and isinstance(hands, list) and hands:
        # ``dealt``: the engine just dealt from a first player of its own (it keeps no
        # dealer): the reference holds the dealer that player follows, so that its deal
        # reads the same (a redeal before the first draw, the next deal's dealer).
        merged["dealer"] = (turn - 1) % len(hands)
    if merged.get("phase") in ENDED_PHASES:
        merged["turn"] = pair.ref_state.get("turn")
    ref_winners, eng_winners = pair.ref_state.get("winners"), merged.get("winners")
    # Winners are a set of players (docs/scenario-format.md): the engine's order is its own.
    if (
        isinstance(ref_winners, list)
        and isinstance(eng_winners, list)
        and sorted(ref_winners) == sorted(eng_winners)
    ):
        merged["winners"] = ref_winners
    if canonical_state(merged, False) == canonical_state(pair.ref_state, False):
        return
    if not allowed:
        raise EndGame(
            "the states differ as the protocol allows; "
            "a deal-only engine cannot be replayed past it"
        )
    merged["profile"] = pair.options.profile
    try:
        pair.ref_state = pair.reference.request(
            "load_state", state=with_hidden(merged, pair.ref_state)
        )["state"]
    except EngineReportedError as exc:
        raise EndGame(f"the reference refuses the engine's state: {exc}") from None
