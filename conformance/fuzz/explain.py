"""Which option explains a fuzz finding, proved over the campaign's compared answers.

The ``run`` counterpart (conformance/explain.py) grades the engine again as declaring the
option; here the reference plays the engine's declarations plus the option, and the engine
is compared with it. For each finding, the reference plays, one at a time, each other
option of the disputed points and house variants that decide the finding's rules (and each
interface reading the engine does not declare). An option is named in the finding's
``explained_by`` only when the engine agrees with the reference so playing

1. over the whole of the finding's example, and
2. over every answer of the campaign the engine got right that is kept to replay: the
   steps of every finding's example before its divergent one, and the traces of the
   first games (conformance/fuzz/pool.py, ``AGREED_GAMES``) over which the engine and the
   reference agreed: their queries, and their games up to a divergence or their end.

So a hint never names an option under which answers the engine got right would diverge.
It is a hint, graded nothing: the finding stands until the engine declares the option.
The second test does not depend on the finding, so each option is put to it once: the
reference is started once per option, and plays every finding it may explain.

Only the reference is restarted per option; the engine keeps its session. The cost is
bounded by :data:`MAX_TRIALS` reference starts and by a time budget (the campaign gives
twice its own time, conformance.run.budget: playing, shrinking, drafting): past either, the
explanation stops with what it has proved, and the findings left unexplained keep
``explained_by`` null.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Final

from conformance.adapter.declarations import INTERFACE_DEFAULTS
from conformance.adapter.engine import EngineSession
from conformance.errors import EngineError, EngineReportedError, InvalidRequest
from conformance.knowledge.catalogue import Catalogue

from .model import EndGame, Finding, Trace
from .pair import Pair

#: Most options (one reference start each) the explanations of one campaign may try.
MAX_TRIALS: Final = 40


class _OutOfTime(Exception):
    """The time allowed ran out in the middle of a proof."""


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


def agreed_part(finding: Finding) -> Trace | None:
    """The part of ``finding``'s example the engine got right: its setup and the steps
    before the divergent one; None when it diverged at once (a query, a setup, a crash)."""
    trace = finding.example.trace
    if finding.divergence.op == "adapter" or trace.setup["op"] in ("query", "none"):
        return None
    if not trace.steps:
        return None  # the setup itself diverged
    return Trace(trace.setup, trace.steps[:-1], trace.stock_top)


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
    pair: Pair,
    findings: Sequence[Finding],
    catalogue: Catalogue,
    agreed: Sequence[Trace] = (),
    *,
    budget: float | None = None,
    trials: int = MAX_TRIALS,
) -> None:
    """Set ``explained_by`` on each finding an option is proved to explain (see the
    module docstring). ``agreed``: the campaign's kept traces over which the engine and the
    reference agreed; ``budget``: the seconds it may take (None: no limit but ``trials``)."""
    deadline = time.monotonic() + budget if budget is not None else None
    # What the engine got right that a hint must keep: the findings' agreed parts
    # (small, after shrinking) first, then the kept games' traces.
    parts = [part for f in findings if (part := agreed_part(f)) is not None]

    def in_time() -> bool:
        return deadline is None or time.monotonic() < deadline

    def keeps_agreements() -> bool:
        # Every finding's agreed part, its own too (a part of its example, so it agrees
        # already): the verdict is then the same for every finding.
        for part in parts:
            if not in_time():
                raise _OutOfTime
            if not _agrees(pair, part):
                return False
        for trace in agreed:
            if not in_time():
                raise _OutOfTime
            if not _agrees(pair, trace):
                return False
        return True

    todo = [f for f in findings if f.divergence.op != "adapter"]
    tried = {id(f): candidates(pair, f, catalogue) for f in todo}
    original = pair.reference
    try:
        # Option by option, each put to every finding it may explain: one reference start
        # per option, whatever the number of findings.
        for point, option in dict.fromkeys(c for f in todo for c in tried[id(f)]):
            waiting = [
                f for f in todo if f.explained_by is None and (point, option) in tried[id(f)]
            ]
            if not waiting:
                continue
            if trials <= 0 or not in_time():
                return
            trials -= 1
            flag = "--interface" if point in INTERFACE_DEFAULTS else "--ruling"
            session = EngineSession(
                [*pair.reference_argv, flag, f"{point}={option}"], timeout=pair.options.timeout
            )
            try:
                session.start()
            except EngineError:
                continue
            pair.reference = session
            try:
                explained = []
                for finding in waiting:
                    if not in_time():
                        raise _OutOfTime
                    if _agrees(pair, finding.example.trace):
                        explained.append(finding)
                # Named only if it breaks no answer the engine got right.
                if explained and keeps_agreements():
                    for finding in explained:
                        finding.explained_by = {point: option}
            except _OutOfTime:
                return  # stop with what is proved
            finally:
                pair.reference = original
                session.close()
    finally:
        pair.reference = original
