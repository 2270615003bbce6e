"""``carioca-conformance record``: draft a scenario from what an engine does.

The draft carries ``review: draft``: its expectations are the engine's observed
behaviour, not the rules text, until a person checks each one against the rules.

What the engine declares (conformance/adapter/declarations.py) shapes the draft, so that it never
asserts what the engine was free to choose: fields it does not model are left out of
``final``; a draft with runs recorded from an engine that arranges runs or picks their
ends itself is written for that reading (``interface``); and the options it plays
otherwise than the profile are the draft's ``assumes``, for the reviewer to narrow. A
profile, capability or player count the engine does not play is refused up front.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from conformance.adapter.declarations import INTERFACE_DEFAULTS, Declarations
from conformance.adapter.limits import DEFAULT_TIMEOUT
from conformance.authoring.options import record_by_option
from conformance.authoring.play import (
    PlayedDraft,
    RecordError,
    draft_header,
    play_draft,
    play_in_session,
    refuse_impossible_final,
)
from conformance.io.files import atomic_write_text
from conformance.io.yamlsafe import read_yaml_file
from conformance.knowledge.profiles import DEFAULT_PROFILE
from conformance.scenarios import DocChecker, Scenario

__all__ = [
    "FINAL_KEYS",
    "PlayedDraft",
    "RecordError",
    "draft_scenario",
    "observed_final",
    "play_draft",
    "play_in_session",
    "record",
    "record_to_file",
]

# Keys of the observed final state that a draft asserts: enough to review the outcome,
# leaving out the stock order (an engine's own after a recycle).
FINAL_KEYS = ("phase", "turn", "hands", "opened", "table", "discard_top", "stock_size", "totals")
# A syntactically valid stand-in rule id, only for validating the draft's setup.
_PLACEHOLDER_RULE = "DRAFT-0"


def _read_yaml(path: Path, what: str) -> Any:
    """The ``what`` file at ``path``, read through the bounded loader ``check`` uses
    (conformance/io/yamlsafe.py: size, UTF-8, nesting depth, alias expansion).

    :raises RecordError: one line naming the file and, where known, the line.
    """
    try:
        return read_yaml_file(path, _Unreadable)
    except _Unreadable as exc:
        # A YAML syntax error spans several lines (the mark and a caret): one line here.
        message = " ".join(part.strip() for part in str(exc).splitlines() if part.strip())
        raise RecordError(f"{what} file {message}") from None
    except RecursionError:  # a parser limit the depth check did not foresee
        raise RecordError(f"{what} file {path}: nested too deeply to read") from None


class _Unreadable(Exception):
    """A file the bounded loader refused (reworded as a RecordError)."""


def _steps_from(actions: Any) -> list[dict[str, Any]]:
    if isinstance(actions, Mapping) and "steps" in actions:
        actions = actions["steps"]
    if isinstance(actions, Mapping) and "actions" in actions:
        actions = actions["actions"]
    if not isinstance(actions, list):
        raise RecordError("the actions file must hold a list of actions")
    steps = []
    for item in actions:
        if isinstance(item, Mapping) and ({"action", "next_deal", "redeal"} & set(item)):
            steps.append({k: v for k, v in item.items() if k in ("action", "next_deal", "redeal")})
        elif isinstance(item, Mapping) and "type" in item:
            steps.append({"action": dict(item)})
        else:
            raise RecordError(f"not an action: {item!r}")
    return steps


def draft_scenario(
    setup: Mapping[str, Any],
    steps: Sequence[Mapping[str, Any]],
    *,
    scenario_id: str,
    title: str,
    rules: Sequence[str],
    profile: str,
) -> Scenario:
    """Validate and expand a setup + steps as a scenario (without expectations).

    :raises RecordError: when the setup or steps are not valid scenario parts.
    """
    if isinstance(setup, Mapping) and "setup" in setup:
        setup = setup["setup"]
    if not isinstance(setup, Mapping):
        raise RecordError("the setup file must hold a mapping with state, deal or new_game")
    level = "turns" if "state" in setup else "deals"
    doc = {
        "id": scenario_id,
        "title": title,
        "rules": list(rules) or [_PLACEHOLDER_RULE],
        "source": "recorded",
        "profiles": [profile],
        "level": level,
        "review": "draft",
        "setup": dict(setup),
        # `check` requires an expect on every step; the recorded answers replace this
        # placeholder, which only lets the setup and actions be validated first.
        "steps": [{"expect": "accepted", **dict(s)} for s in steps],
    }
    node = yaml.compose(yaml.safe_dump(doc), Loader=yaml.SafeLoader)
    assert node is not None
    checker = DocChecker(node, doc, "<record>", None)
    scenario = checker.build()
    if scenario is None:
        problems = "; ".join(e.message for e in checker.errors)
        raise RecordError(f"setup/actions are not a valid scenario: {problems}")
    return scenario


def observed_final(
    state: Mapping[str, Any], declared: Declarations | None = None
) -> dict[str, Any]:
    """The assertions a draft makes about the final state (none about a field the engine
    declares it does not model)."""
    final: dict[str, Any] = {}
    for key in FINAL_KEYS:
        if declared is not None and not declared.models(key):
            continue
        if key == "discard_top":
            discard = state.get("discard") or []
            if discard:
                final[key] = discard[0]
        elif key == "stock_size":
            final[key] = len(state.get("stock") or [])
        elif key in state:
            final[key] = state[key]
    return final


def record(
    argv: Sequence[str],
    setup: Mapping[str, Any],
    actions: Any,
    *,
    scenario_id: str = "cc-0000",
    title: str = "Recorded draft: describe the case",
    rules: Sequence[str] = (),
    profile: str = DEFAULT_PROFILE,
    timeout: float = DEFAULT_TIMEOUT,
    points: Sequence[str] = (),
) -> dict[str, Any]:
    """Run the actions through the engine and return the draft scenario document.

    With ``points``, the engine (the reference, or an adapter taking its ``--ruling``
    flag) plays the case once under every combination of the points' options, and the draft
    gives a value per option (``by_option``) only where the answers differ, and asserts
    only the state keys that matter: those the steps change and those an option changes
    (:mod:`conformance.authoring.options`).

    :raises RecordError: on an unusable setup or actions list, or an unknown point.
    :raises EngineError: when the engine cannot start or misbehaves.
    """
    steps = _steps_from(actions)
    scenario = draft_scenario(
        setup, steps, scenario_id=scenario_id, title=title, rules=rules, profile=profile
    )
    if points:
        return record_by_option(
            argv,
            setup,
            steps,
            scenario,
            points=points,
            header=draft_header(scenario_id, title, rules, profile, scenario.level),
            timeout=timeout,
        )
    played = play_draft(argv, scenario, profile, timeout)
    declared = played.declared
    out_steps = [{**raw, "expect": e} for raw, e in zip(steps, played.expects, strict=True)]
    document = draft_header(scenario_id, title, rules, profile, scenario.level)
    document["source"] = f"recorded from {played.engine}; check against the rules text"
    state = played.states[-1] if played.states else played.initial
    final = observed_final(state, declared)
    assumes = _own_options(declared)
    interface = _own_readings(declared) if _has_runs(setup, steps, final) else {}
    notes = _notes(declared, assumes, interface)
    if notes:
        document["notes"] = notes
    if assumes:
        document["assumes"] = assumes
    if interface:
        document["interface"] = interface
    document.update({"setup": dict(setup.get("setup", setup)), "steps": out_steps})
    document["final"] = final
    refuse_impossible_final(document, scenario)
    return document


def _own_options(declared: Declarations) -> dict[str, str]:
    """The options the engine declares otherwise than the profile, on the points the
    profile rules on: the draft's expectations were observed under them."""
    return {
        point: option
        for point, option in declared.declared.items()
        if point in declared.profile_options and declared.differs(point)
    }


def _own_readings(declared: Declarations) -> dict[str, str]:
    """The interface readings the engine declares otherwise than the protocol's default."""
    return {
        key: value for key, value in declared.interface.items() if value != INTERFACE_DEFAULTS[key]
    }


def _has_runs(setup: Mapping[str, Any], steps: Sequence[Mapping[str, Any]], final: Any) -> bool:
    """True when a run is on the table or played in the draft (its order or ends are then
    the engine's own for an engine that declares so)."""
    state = setup.get("setup", setup).get("state") or {}
    tables = [state.get("table") or [], final.get("table") or []]
    for step in steps:
        action = step.get("action") or {}
        if action.get("type") in ("lay_off", "swap_joker"):
            return True
        tables.append(action.get("melds") or [])
    return any(
        isinstance(meld, Mapping) and meld.get("kind") == "run"
        for table in tables
        for meld in table
    )


def _notes(declared: Declarations, assumes: Mapping[str, str], interface: Mapping[str, str]) -> str:
    parts = []
    if assumes:
        listed = ", ".join(f"{p} {o}" for p, o in assumes.items())
        parts.append(
            f"Recorded from an engine playing {listed} where the {declared.profile} profile "
            "plays otherwise: keep in assumes only the options the expectations lean on."
        )
    if interface:
        listed = ", ".join(f"{k} {v}" for k, v in interface.items())
        parts.append(
            f"Recorded from an engine declaring {listed}: its runs' order and ends are its "
            "own; the draft is written for that reading until reviewed."
        )
    unmodelled = sorted(declared.unmodelled)
    if unmodelled:
        parts.append(
            f"The engine does not model {', '.join(unmodelled)}: final asserts none of it."
        )
    return " ".join(parts)


def record_to_file(
    argv: Sequence[str],
    *,
    setup_path: Path,
    actions_path: Path,
    out: Path,
    scenario_id: str = "cc-0000",
    title: str = "Recorded draft: describe the case",
    rules: Sequence[str] = (),
    profile: str = DEFAULT_PROFILE,
    timeout: float = DEFAULT_TIMEOUT,
    points: Sequence[str] = (),
) -> dict[str, Any]:
    """Record from files and write the draft YAML atomically; return the document
    (``points``: a value per option, :func:`record`)."""
    setup = _read_yaml(setup_path, "setup")
    actions = _read_yaml(actions_path, "actions")
    if not isinstance(setup, Mapping):
        raise RecordError(f"setup file {setup_path} must hold a mapping")
    document = record(
        argv,
        setup,
        actions,
        scenario_id=scenario_id,
        title=title,
        rules=rules,
        profile=profile,
        timeout=timeout,
        points=points,
    )
    header = (
        f"# Draft recorded from an engine ({profile} profile): check every expectation "
        "against the rules.\n"
    )
    text = header + yaml.safe_dump(document, sort_keys=False, default_flow_style=None, width=100)
    atomic_write_text(out, text)
    return document
