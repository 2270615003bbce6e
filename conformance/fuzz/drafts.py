"""The draft writer: a finding's example as a scenario document (``review: draft``) whose
expectations are the reference's answers under the engine's rulings, checked by the
corpus loader before it is kept."""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from conformance.grading.compare import EXACT_KEYS
from conformance.knowledge.catalogue import Catalogue
from conformance.knowledge.profiles import find_profile
from conformance.knowledge.reachability import unreachable_problems
from conformance.scenarios import load_file

from .judge import (
    expected_state,
    fair_reasons,
    field_of,
    lay_off_fair_reasons,
    new_game_check,
    recycle_drawer,
    recycled_in,
)
from .model import Divergence, Finding, Trace
from .pair import Pair


def draft_scenario(
    finding: Finding, scenario_id: str, pair_info: Mapping[str, Any], catalogue: Catalogue
) -> dict[str, Any]:
    """The finding's smallest example as a scenario document marked ``review: draft``.

    Its expectations are the reference's answers under the engine's rulings: they await a
    person's check against the rules text (docs/adding-scenarios.md).
    """
    occ = finding.example
    # The example's own divergence: after shrinking, what the shrunk game showed (its
    # mismatches name its own players and cards, not those of the game as found).
    div = occ.divergence
    trace = occ.trace
    profile = pair_info["profile"]
    rulings: Mapping[str, str] = pair_info["rulings"]
    # Only points this profile rules on: a handshake may list every profile's points.
    points = catalogue.disputes_for(profile)
    assumes = {
        point: option
        for point, option in sorted(rulings.items())
        if point in points and points[point].profiles[profile] != option
    }
    doc: dict[str, Any] = {
        "id": scenario_id,
        "title": f"Fuzz draft: {div.op} ({div.kind}) under {div.rule}",
        "rules": list(div.rules or (div.rule,)),
        "source": (
            f"drafted from the reference by fuzz (seed {pair_info['seed']}, game {occ.game}); "
            "check every expectation against the rules text"
        ),
        "profiles": [profile],
        "tags": ["fuzz"],
        "review": "draft",
        "notes": "; ".join(div.mismatches)[:500],
    }
    if assumes:
        doc["assumes"] = assumes
    if trace.setup["op"] == "query":
        setup = trace.setup
        op = setup["query"]
        ref = occ.reference
        if op == "penalty":
            check: dict[str, Any] = {"penalty": setup["cards"], "expect": {"points": ref["points"]}}
        else:
            expect: dict[str, Any] = {"valid": ref["valid"]}
            if ref.get("valid") is False and ref.get("reason"):
                fair = fair_reasons(ref["reason"])
                expect["reason"] = fair if len(fair) > 1 else fair[0]
            if op == "check_meld":
                check = {"check_meld": setup["meld"], "initial": setup["initial"], "expect": expect}
            else:
                check = {
                    "check_contract": {
                        "deal_number": setup["deal_number"],
                        "melds": setup["melds"],
                    },
                    "expect": expect,
                }
        doc["level"] = "melds"
        doc["checks"] = [check]
        return doc
    setup_op = trace.setup["op"]
    if setup_op == "load_state":
        state = {k: v for k, v in trace.setup["state"].items() if k != "profile"}
        if trace.stock_top is not None:
            # The harness fills the rest of the stock exactly as the shrinker did.
            state["stock_top"] = state.pop("stock")[: trace.stock_top]
        doc["level"] = "turns" if all(s["op"] == "act" for s in trace.steps) else "deals"
        doc["setup"] = {"state": state}
        problems = unreachable_problems(trace.setup["state"], find_profile(profile))
        if problems:
            doc["built"] = (
                "drafted by fuzz from a state the reference reached or built: "
                + "; ".join(problems)
            )
    elif setup_op == "new_game":
        doc["level"] = "deals"
        doc["setup"] = {"new_game": {k: trace.setup[k] for k in ("players", "seed")}}
    else:
        doc["level"] = "deals"
        doc["setup"] = {
            "deal": {
                k: trace.setup[k]
                for k in ("players", "deal_number", "dealer", "totals", "deck", "cut")
                if k in trace.setup
            }
        }
    steps = []
    befores = pair_info.get("befores") or [None] * len(trace.steps)
    by_cards = pair_info.get("by_cards", True)
    recycled, drawer = False, None
    for n, (step, answer, before) in enumerate(
        zip(trace.steps, pair_info["answers"], befores, strict=True), start=1
    ):
        if before is not None and answer.get("accepted"):
            if recycled_in(before, answer.get("state") or {}, step.get("action")):
                recycled, drawer = True, recycle_drawer(before, step.get("action"))
                if n < len(trace.steps):
                    doc["notes"] += (
                        f"; step {n} recycles the stock, whose order is the engine's own "
                        "(docs/protocol.md §6): the later steps follow the reference's order, "
                        "so start the case after the recycle before it joins the corpus"
                    )
            else:
                recycled, drawer = False, None
        if step["op"] == "act":
            out: dict[str, Any] = {"action": step["action"]}
        else:
            out = {step["op"]: {"deck": step["deck"]}}
        if answer.get("accepted"):
            out["expect"] = "accepted"
        elif answer.get("reason"):
            fair = (
                lay_off_fair_reasons(answer["reason"], step["action"], before)
                if by_cards and before is not None and step["op"] == "act"
                else fair_reasons(answer["reason"])
            )
            if n == len(trace.steps) and div.also_fair:
                # Reason order: both reasons are true here (docs/reasons.md), so both fair.
                fair = sorted({*fair, *div.also_fair})
            out["expect"] = {"rejected": fair if len(fair) > 1 else fair[0]}
        else:
            out["expect"] = "rejected"
        steps.append(out)
    doc["steps"] = steps
    ref_state = occ.reference["state"]
    check_keys = _check_keys(div)
    if setup_op == "new_game" and not trace.steps:
        doc["final"] = new_game_check(ref_state)
    elif check_keys:
        # After a recycle the stock's order and the card drawn from it are the engine's:
        # the draft pins their sizes and the other hands, never which card was drawn.
        full = expected_state(ref_state, recycled=recycled, drawer=drawer)
        final = {k: full[k] for k in check_keys if k in full}
        if final:
            if steps:
                steps[-1]["state"] = final
            else:
                doc["final"] = final
    elif not trace.steps and div.kind in ("setup", "error"):
        # The engine refused the setup itself: a protocol-correct refusal is a failing check
        # (conformance/grading/walk.py), but a draft of nothing more has no check of its own
        # for an engine that loads it to pass. It checks the state the reference set up.
        doc["final"] = expected_state(ref_state)
    return doc


def draft_of(
    pair: Pair, finding: Finding, info: Mapping[str, Any], catalogue: Catalogue
) -> dict[str, Any]:
    """The draft scenario of ``finding``'s example, from the reference's answers along it."""
    answers, befores = _reference_answers(pair, finding.example.trace)
    pair_info = {**info, "answers": answers, "befores": befores}
    return draft_scenario(finding, "cc-8000", pair_info, catalogue)


def draft_problems(doc: Mapping[str, Any], catalogue: Catalogue) -> list[str]:
    """What ``check`` says is wrong with a draft document (empty when it loads)."""
    with tempfile.TemporaryDirectory(prefix="carioca-fuzz-") as tmp:
        path = Path(tmp) / f"{doc['id']}.yaml"
        path.write_text(yaml.safe_dump(dict(doc), sort_keys=False), encoding="utf-8")
        # A label, not the temporary path: the messages and the load cache's key stay
        # the same from run to run.
        loaded = load_file(path, catalogue=catalogue, label=f"draft {doc['id']}")
    return [str(e) for e in loaded.errors]


#: State-check keys a draft may pin besides the exact ones (compare.py's EXACT_KEYS).
PINNED = ("stock_cards", "stock", "stock_size", "hands", "hand_sizes", "table", "discard")


def _check_keys(div: Divergence) -> list[str]:
    """The state-check keys a draft pins: the fields that differed."""
    if div.kind not in ("state", "setup"):
        return []
    keys = []
    for text in div.mismatches:
        name = field_of(text.split(":", 1)[0])
        if name in EXACT_KEYS or name in PINNED:
            keys.append(name)
        if name in ("hands", "stock"):
            keys += ["hand_sizes", "stock_size"]  # what a recycle's check holds instead
    return sorted(set(keys))


def _reference_answers(
    pair: Pair, trace: Trace
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The reference's answers along a trace (for the draft's expectations), and its state
    before each step (for the reasons fair there)."""
    answers: list[dict[str, Any]] = []
    befores: list[dict[str, Any]] = []
    ref = pair.reference
    if trace.setup["op"] == "load_state":
        state = ref.request("load_state", state=trace.setup["state"])["state"]
    elif trace.setup["op"] in ("start_deal", "new_game"):
        fields = {k: v for k, v in trace.setup.items() if k != "op"}
        state = ref.request(trace.setup["op"], **fields)["state"]
    else:
        return [], []
    for step in trace.steps:
        befores.append(state)
        if step["op"] == "act":
            answer = ref.request("act", action=step["action"])
        else:
            answer = ref.request(step["op"], deck=step["deck"])
        answers.append(answer)
        state = answer.get("state", state)
    return answers, befores
