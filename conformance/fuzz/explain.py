"""Which option explains a fuzz finding: the reference plays it, and the engine agrees.

The ``run`` counterpart (conformance/explain.py) replays failing cases; here a finding's
example game is replayed with the reference playing, one at a time, each other option of
the disputed points and house variants that decide the finding's rules (and each interface
reading the engine does not declare). When the engine and the reference so playing agree
over the whole example, the option explains the finding: its ``explained_by`` names it, a
hint graded nothing (the finding stands until the engine declares the option).

Only the reference is restarted per option; the engine keeps its session. The cost is
bounded by :data:`MAX_TRIALS` replays per campaign.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from conformance.adapter.declarations import INTERFACE_DEFAULTS
from conformance.adapter.engine import EngineSession
from conformance.errors import EngineError, EngineReportedError, InvalidRequest
from conformance.knowledge.catalogue import Catalogue

from .model import EndGame, Finding, Trace
from .pair import Pair

#: Most replays (one reference start each) the explanations of one campaign may cost.
MAX_TRIALS: Final = 40


def _agrees(pair: Pair, trace: Trace) -> bool:
    """Whether the engine and the pair's reference agree over the whole of ``trace``."""
    try:
        if trace.setup["op"] == "query":
            found, _ = pair.query({k: v for k, v in trace.setup.items() if k != "op"})
            return found is None
        if pair.setup(trace.setup) is not None:
            return False
        deal_mode = not pair.can_load
        return all(pair.step(step, deal_mode=deal_mode) is None for step in trace.steps)
    except (EndGame, EngineReportedError, InvalidRequest):
        return False
    except EngineError:
        pair.restart_engine()
        return False


def candidates(pair: Pair, finding: Finding, catalogue: Catalogue) -> list[tuple[str, str]]:
    """The other options of every point whose rules meet the finding's, then the interface
    readings the engine does not declare."""
    rules = set(finding.divergence.rules or (finding.divergence.rule,))
    profile = pair.options.profile
    found: list[tuple[str, str]] = []
    for point, dispute in catalogue.disputes_for(profile).items():
        if profile in dispute.fixed or not rules & {*dispute.rules, point}:
            continue
        played = pair.decl.ruling(point)
        found.extend((point, option) for option in dispute.options if option != played)
    for key, default in INTERFACE_DEFAULTS.items():
        if pair.decl.interface.get(key, default) == default:
            found.append((key, "engine"))
    return found


def explain_findings(
    pair: Pair, findings: Sequence[Finding], catalogue: Catalogue, budget: int = MAX_TRIALS
) -> None:
    """Set ``explained_by`` on each finding an option explains (see the module docstring)."""
    original = pair.reference
    try:
        for finding in findings:
            if finding.divergence.op == "adapter":
                continue
            for point, option in candidates(pair, finding, catalogue):
                if budget <= 0:
                    return
                budget -= 1
                flag = "--interface" if point in INTERFACE_DEFAULTS else "--ruling"
                session = EngineSession(
                    [*pair.reference_argv, flag, f"{point}={option}"],
                    timeout=pair.options.timeout,
                )
                try:
                    session.start()
                except EngineError:
                    continue
                pair.reference = session
                try:
                    if _agrees(pair, finding.example.trace):
                        finding.explained_by = {point: option}
                        break
                finally:
                    pair.reference = original
                    session.close()
    finally:
        pair.reference = original
