"""A draft with a value per option: ``record --point``.

The reference plays any option of any point (``--ruling POINT=OPTION``), so a draft about a
disputed point need not be written for one option and nested by hand: the case is played
once under every combination of the named points' options, and the draft writes

- a value per option (``{by_option: {POINT: {OPTION: VALUE}}}``, nested for two points)
  only where the answers differ, one plain value where they agree;
- only the state keys that matter: after a step, the keys an option changes; at the end,
  those the steps changed from the setup and those an option changes;
- a plain ``rejected`` where an option refuses what the profile's options accept (the
  reference then answers the nearest reason: docs/rules.md);
- the catalogue's ``disputed`` block for the first point (a ``DISPUTE-nn``), its texts to
  be completed by the reviewer.

:func:`option_tree` is the same collapse for any value given per combination of options
(the audit uses it for the values a flagged check should give).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from itertools import product
from typing import Any

from conformance.authoring.play import (
    PlayedDraft,
    RecordError,
    play_draft,
    refuse_impossible_final,
)
from conformance.knowledge.catalogue import Catalogue, load_catalogue
from conformance.scenarios import Scenario

#: The keys a step's state may show when an option changes them, the compact ones first.
STEP_KEYS = (
    "phase",
    "turn",
    "hand_sizes",
    "discard_size",
    "discard_top",
    "opened",
    "table",
    "totals",
    "deal_scores",
    "closer",
)
#: The keys a draft's final may assert.
FINAL_KEYS = (
    "phase",
    "turn",
    "hands",
    "opened",
    "table",
    "discard_top",
    "stock_size",
    "totals",
    "deal_scores",
    "closer",
)

#: One combination of options: ``((point, option), ...)`` in the order the points were named.
Combo = tuple[tuple[str, str], ...]


def observed(state: Mapping[str, Any]) -> dict[str, Any]:
    """Every key a draft may assert, as the scenario format compares it, from an answer's
    state."""
    hands = state.get("hands") or []
    discard = state.get("discard") or []
    found: dict[str, Any] = {
        "hand_sizes": [len(hand) for hand in hands],
        "discard_size": len(discard),
        "stock_size": len(state.get("stock") or []),
    }
    if discard:
        found["discard_top"] = discard[0]
    for key in ("phase", "turn", "hands", "opened", "table", "totals", "deal_scores", "closer"):
        if key in state:
            found[key] = state[key]
    return found


def _same(values: Sequence[Any]) -> bool:
    first = json.dumps(values[0], sort_keys=True)
    return all(json.dumps(v, sort_keys=True) == first for v in values[1:])


def option_tree(
    points: Sequence[str],
    options: Mapping[str, Sequence[str]],
    value: Callable[[Mapping[str, str]], Any],
    fixed: Mapping[str, str] | None = None,
) -> Any:
    """The value ``value`` gives under every combination of the points' options, written
    once where they agree and as ``{by_option: {POINT: {OPTION: ...}}}`` where a point
    changes it (nested where two do), the points tried in the order given."""
    fixed = dict(fixed or {})
    free = [p for p in points if p not in fixed]
    combos = [
        {**fixed, **dict(zip(free, chosen, strict=True))}
        for chosen in product(*(options[p] for p in free))
    ]
    values = [value(combo) for combo in combos]
    if _same(values):
        return values[0]
    for point in free:
        branches = {
            option: option_tree(points, options, value, {**fixed, point: option})
            for option in options[point]
        }
        if not _same(list(branches.values())):
            return {"by_option": {point: branches}}
    return values[0]  # unreachable: some point changes what differs


def _expect(answer: Any, profile_answer: Any) -> Any:
    """A step's expectation under an option: a refusal of what the profile's options accept
    is a plain ``rejected`` (docs/rules.md: the reference answers with the nearest reason
    there); the reviewer names a reason only where the option's entry gives one."""
    if profile_answer == "accepted" and isinstance(answer, Mapping) and "rejected" in answer:
        return "rejected"
    return answer


def _expect_of(index: int, profile_play: PlayedDraft) -> Callable[[PlayedDraft], Any]:
    return lambda play: _expect(play.expects[index], profile_play.expects[index])


def _key_of(index: int, key: str) -> Callable[[PlayedDraft], Any]:
    return lambda play: observed(play.states[index]).get(key)


def _every_branch(tree: Any) -> bool:
    """True when every option gives the key a value (an empty pile has no ``discard_top``:
    ``discard_size`` says it instead)."""
    if tree is None:
        return False
    if isinstance(tree, Mapping) and "by_option" in tree:
        return all(_every_branch(b) for by in tree["by_option"].values() for b in by.values())
    return True


def point_options(
    catalogue: Catalogue, profile: str, points: Sequence[str]
) -> dict[str, list[str]]:
    """Each named point's options, the profile's first.

    :raises ValueError: for a point the catalogue lacks, one the profile does not rule on, or
        one another point decides in the profile (``set by``): name that point instead.
    """
    found: dict[str, list[str]] = {}
    for point in points:
        dispute = catalogue.disputes.get(point)
        if dispute is None:
            raise ValueError(f"{point} is not a disputed point or house variant")
        own = dispute.profiles.get(profile)
        if own is None:
            raise ValueError(f"the {profile} profile does not rule on {point}")
        if profile in dispute.fixed:
            raise ValueError(f"{point} is {dispute.fixed[profile]} in the {profile} profile")
        found[point] = [own, *(o for o in dispute.options if o != own)]
    return found


def record_by_option(
    argv: Sequence[str],
    setup: Mapping[str, Any],
    steps: Sequence[Mapping[str, Any]],
    scenario: Scenario,
    *,
    points: Sequence[str],
    header: Mapping[str, Any],
    timeout: float,
) -> dict[str, Any]:
    """The draft of ``scenario`` with a value per option of ``points`` (module docstring).

    :raises RecordError: for an unknown point, or a setup an option's engine refuses.
    """
    catalogue = load_catalogue()
    profile = scenario.profiles[0]
    try:
        options = point_options(catalogue, profile, points)
    except ValueError as exc:
        raise RecordError(str(exc)) from None
    plays = {}
    for chosen in product(*(options[p] for p in points)):
        combo: Combo = tuple(zip(points, chosen, strict=True))
        flags = [flag for p, o in combo for flag in ("--ruling", f"{p}={o}")]
        try:
            plays[combo] = play_draft([*argv, *flags], scenario, profile, timeout)
        except RecordError as exc:
            where = ", ".join(f"{p}={o}" for p, o in combo)
            raise RecordError(f"under {where}: {exc}") from None

    def under(combo: Mapping[str, str]) -> Any:
        return plays[tuple((p, combo[p]) for p in points)]

    base = plays[tuple((p, options[p][0]) for p in points)]

    def expect_at(i: int) -> Callable[[Mapping[str, str]], Any]:
        return lambda c: _expect(under(c).expects[i], base.expects[i])

    def key_at(i: int, key: str) -> Callable[[Mapping[str, str]], Any]:
        return lambda c: observed(under(c).states[i]).get(key)

    out_steps = []
    for index, raw in enumerate(steps):
        step: dict[str, Any] = {**raw}
        step["expect"] = option_tree(points, options, expect_at(index))
        state = {}
        for key in STEP_KEYS:
            tree = option_tree(points, options, key_at(index, key))
            if isinstance(tree, Mapping) and "by_option" in tree and _every_branch(tree):
                state[key] = tree
        if state:
            step["state"] = state
        out_steps.append(step)
    start = observed(base.initial)
    final = {}
    for key in FINAL_KEYS if steps else ():
        tree = option_tree(points, options, key_at(len(steps) - 1, key))
        asserted = out_steps[-1].get("state", {})
        if key in asserted or not _every_branch(tree) or _same([start.get(key), tree]):
            continue  # the last step shows it already, an option has none, or no step changed it
        final[key] = tree
    document: dict[str, Any] = dict(header)
    document["source"] = f"recorded from {base.engine} under every option; check the rules text"
    listed = ", ".join(f"{p} ({', '.join(options[p])})" for p in points)
    document["notes"] = (
        f"Recorded under every option of {listed}: a value per option only where the answers "
        "differ, and only the state keys the steps or an option change; an option refusing "
        "what the profile accepts expects a plain rejected. Check each against the rules text "
        "and fill in who holds each option."
    )
    own = catalogue.disputes[points[0]]
    if own.kind == "dispute":
        document["disputed"] = {
            "id": own.id,
            "question": own.question,
            "options": {o: {"says": own.options[o], "held_by": []} for o in options[own.id]},
            "profiles": {profile: options[own.id][0]},
        }
    document.update({"setup": dict(setup.get("setup", setup)), "steps": out_steps})
    document["final"] = final
    refuse_impossible_final(document, scenario)
    return document


def values_to_add(
    argv: Sequence[str],
    scenario: Scenario,
    point: str,
    profile: str,
    *,
    timeout: float = 10.0,
) -> list[str]:
    """For a case that leans on ``point`` without naming it: each of its checks whose answer
    the point's options change, with the value per option to write there
    (``step 2 expect: {by_option: {DISPUTE-19: {allowed: accepted, forbidden: rejected}}}``).
    Played by the engine at ``argv`` (the reference: it takes ``--ruling``) under each option,
    in the case's own interface reading; a melds-level case, or one an option cannot set up,
    gives none.
    """
    from conformance.errors import EngineError

    if scenario.setup is None or not scenario.steps:
        return []
    try:
        options = point_options(load_catalogue(), profile, [point])
    except ValueError:
        return []
    reading = [
        f for k, v in (scenario.interface or {}).items() for f in ("--interface", f"{k}={v}")
    ]
    plays = {}
    try:
        for option in options[point]:
            flags = [*reading, "--ruling", f"{point}={option}"]
            plays[option] = play_draft([*argv, *flags], scenario, profile, timeout)
    except (RecordError, EngineError):
        return []

    def tree(value: Callable[[PlayedDraft], Any]) -> Any:
        return option_tree([point], options, lambda c: value(plays[c[point]]))

    lines: list[str] = []
    seen: set[str] = set()
    for check in scenario.plan_for(profile):
        if check.step is None:
            index, where = len(scenario.steps) - 1, "final"
        elif check.step >= 1 and check.step <= len(scenario.steps):
            index, where = check.step - 1, f"step {check.step}"
        else:
            continue
        if check.what in ("accepted", "reason") and check.step is not None:
            label = f"{where} expect"
            found = tree(_expect_of(index, plays[options[point][0]]))
        elif check.what in STEP_KEYS or check.what in FINAL_KEYS:
            label = f"{where} {check.what}"
            found = tree(_key_of(index, check.what))
        else:
            continue
        if label not in seen and isinstance(found, Mapping) and "by_option" in found:
            seen.add(label)
            lines.append(f"{label}: {json.dumps(found, separators=(', ', ': '))}")
    return lines
