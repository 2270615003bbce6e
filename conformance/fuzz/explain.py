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

Where no option alone is proved, the options that came nearest (the finding's example
agreed but an agreed answer broke; else the example agreed up to its divergent step,
where the option changed the difference) are tried two at a time, the best
:data:`MAX_PAIRED` of them, put to the same two tests: an engine playing two options
whose effects show together in one answer is named both (``explained_by`` has two keys).
When every option, and every such pair, was tried and none is proved, the finding says
so (``all_options_tried``): a bug, or an entry for the expectations file.

Only the reference is restarted per option or pair; the engine keeps its session. The
cost is bounded by :data:`MAX_TRIALS` reference starts and by a time budget (the campaign
gives twice its own time, conformance.run.budget: playing, shrinking, drafting): past
either, the explanation stops with what it has proved, and the findings left unexplained
keep ``explained_by`` null and say nothing of the options left untried.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from itertools import combinations
from typing import Any, Final

from conformance.adapter.declarations import INTERFACE_DEFAULTS
from conformance.adapter.engine import EngineSession
from conformance.errors import EngineError, EngineReportedError, InvalidRequest
from conformance.knowledge.catalogue import Catalogue
from conformance.knowledge.profiles import find_profile

from .judge import filed
from .model import Divergence, EndGame, Finding, SetupRefused, Trace
from .pair import Pair

#: Most options or pairs (one reference start each) the explanations of one campaign may try.
MAX_TRIALS: Final = 80
#: A finding's closest options (see :func:`explain_findings`) tried two at a time, as a
#: run's causes pair their best few (conformance/explain.py): at most 6 pairs a finding.
MAX_PAIRED: Final = 4

#: An option, or a pair of them: ``((point, option), ...)``, sorted by point.
Choices = tuple[tuple[str, str], ...]


class _OutOfTime(Exception):
    """The time allowed ran out in the middle of a proof."""


def _play(pair: Pair, trace: Trace) -> tuple[bool, int, Divergence | None]:
    """Play ``trace`` on the engine and the pair's reference: whether they agree over the
    whole of it, how many of its steps they agreed on (-1: not its setup), and where they
    diverged, filed as the campaign files it (None when they agree, or when the game could
    not go on comparably)."""
    agrees, done, found = _played(pair, trace)
    if found is not None:
        found = filed(found, find_profile(pair.options.profile), pair.catalogue)
    return agrees, done, found


def _played(pair: Pair, trace: Trace) -> tuple[bool, int, Divergence | None]:
    done = 0
    try:
        if trace.setup["op"] == "query":
            found, _ = pair.query({k: v for k, v in trace.setup.items() if k != "op"})
            return found is None, 0, found
        found = pair.setup(trace.setup)
        if found is not None:
            return False, -1, found  # before its first step
        deal_mode = not pair.can_load
        for step in trace.steps:
            found = pair.step(step, deal_mode=deal_mode)
            if found is not None:
                return False, done, found
            done += 1
        return True, done, None
    except SetupRefused:
        # The reference so playing refuses the state: an engine that refuses it too (the
        # finding's own divergence, a state it cannot reach) agrees.
        return not trace.steps and _engine_refuses(pair, trace.setup), -1, None
    except (EndGame, EngineReportedError, InvalidRequest):
        return False, done, None
    except EngineError:
        pair.restart_engine()
        return False, done, None


def _engine_refuses(pair: Pair, setup: dict[str, Any]) -> bool:
    """Whether the engine refuses to load ``setup``'s state as invalid."""
    if setup["op"] != "load_state":
        return False
    try:
        pair.engine.request("load_state", **{k: v for k, v in setup.items() if k != "op"})
    except EngineReportedError as exc:
        return exc.kind == "invalid_state"
    except InvalidRequest:
        return False
    except EngineError:
        pair.restart_engine()
    return False


def _agrees(pair: Pair, trace: Trace) -> bool:
    """Whether the engine and the pair's reference agree over the whole of ``trace``."""
    return _play(pair, trace)[0]


def _changes(finding: Finding, played: tuple[bool, int, Divergence | None]) -> bool:
    """Whether an option turns ``finding``'s example into another finding: it diverges
    there otherwise than it did (an example it explains, or that cannot be played so, is
    no new finding)."""
    agrees, _, found = played
    return not agrees and found is not None and found.key != finding.example.divergence.key


def _nearness(finding: Finding, played: tuple[bool, int, Divergence | None]) -> int | None:
    """How near an option that does not prove ``finding`` came, as a rank (lower is nearer):
    0, its example agrees (an agreed answer broke, or another occurrence); 2 + n, the
    example agrees up to its divergent step, where the option changes the difference (to
    ``n`` mismatches: a penalty of 40 points where the engine says 45 and the reference
    70); None, no nearer than without it. (:func:`explain_findings` adds -1, an option
    proved for another finding, and 1, one that made another finding's example agree.)"""
    agrees, done, found = played
    if agrees:
        return 0
    example = finding.example
    if found is None or done < len(example.trace.steps) - 1:
        return None
    if (found.key, found.mismatches) == (example.divergence.key, example.divergence.mismatches):
        return None  # the same difference: the option does not reach it
    return 2 + len(found.mismatches)


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
    return [
        choice
        for choice in every_option(pair, catalogue)
        if choice[0] in INTERFACE_DEFAULTS or rules & _rules_of(catalogue, pair, choice[0])
    ]


def every_option(pair: Pair, catalogue: Catalogue) -> list[tuple[str, str]]:
    """Every option the engine could declare and does not: the other options of each point
    of the profile (a point fixed there has none), then the interface readings it does not
    declare."""
    profile = pair.options.profile
    found: list[tuple[str, str]] = []
    for point, dispute in catalogue.disputes_for(profile).items():
        if profile in dispute.fixed:
            continue
        played = pair.decl.ruling(point)
        found.extend((point, option) for option in dispute.options if option != played)
    for key, default in INTERFACE_DEFAULTS.items():
        if pair.decl.interface.get(key, default) == default:
            found.append((key, "engine"))
    return found


def _rules_of(catalogue: Catalogue, pair: Pair, point: str) -> set[str]:
    return {*catalogue.disputes_for(pair.options.profile)[point].rules, point}


def pairs_of(near: Sequence[tuple[int, tuple[str, str]]]) -> list[Choices]:
    """The pairs tried for a finding no single option proves: two of its
    :data:`MAX_PAIRED` nearest options (``(rank, option)``, see :func:`_nearness`; an
    option listed twice counts at its nearest), of two different points (one point plays
    one option)."""
    best = list(dict.fromkeys(option for _, option in sorted(near)))[:MAX_PAIRED]
    return [
        (one, two) if one < two else (two, one)
        for one, two in combinations(best, 2)
        if one[0] != two[0]
    ]


def explain_findings(
    pair: Pair,
    findings: Sequence[Finding],
    catalogue: Catalogue,
    agreed: Sequence[Trace] = (),
    *,
    budget: float | None = None,
    trials: int = MAX_TRIALS,
) -> None:
    """Set ``explained_by`` on each finding an option, or a pair of them, is proved to
    explain (see the module docstring), and ``all_options_tried`` on each that none
    explains when every candidate was tried. ``agreed``: the campaign's kept traces over
    which the engine and the reference agreed; ``budget``: the seconds it may take (None:
    no limit but ``trials``)."""
    deadline = time.monotonic() + budget if budget is not None else None
    # What the engine got right that a hint must keep: the findings' agreed parts
    # (small, after shrinking) first, then the kept games' traces.
    parts = [part for f in findings if (part := agreed_part(f)) is not None]
    left = [trials]

    def in_time() -> bool:
        return deadline is None or time.monotonic() < deadline

    def all_agree(traces: Sequence[Trace]) -> bool:
        for trace in traces:
            if not in_time():
                raise _OutOfTime
            if not _agrees(pair, trace):
                return False
        return True

    def keeps_agreements() -> bool:
        # Every finding's agreed part, its own too (a part of its example, so it agrees
        # already): the verdict is then the same for every finding.
        return all_agree(parts) and all_agree(agreed)

    todo = [f for f in findings if f.divergence.op != "adapter"]
    # The options that decide a finding's rules first, for every finding; then every
    # other option, since a point's effects reach rules beyond its own (wild twos are
    # laid off, not only counted): "no declarable option" must hold of them all.
    first: dict[int, list[Choices]] = {
        id(f): [(c,) for c in candidates(pair, f, catalogue)] for f in todo
    }
    wider: list[Choices] = [(c,) for c in every_option(pair, catalogue)]
    tried: dict[int, list[Choices]] = {
        id(f): [*first[id(f)], *(c for c in wider if c not in first[id(f)])] for f in todo
    }
    #: What is still to try for each finding: it was tried them all when this is empty.
    pending = {id(f): set(tried[id(f)]) for f in todo}
    near: dict[int, list[tuple[int, tuple[str, str]]]] = {id(f): [] for f in todo}

    def attempt(choices: Choices) -> bool:
        """Play ``choices`` against every finding still waiting for it; False when the
        trials or the time allowed ran out (it stops with what is proved)."""
        waiting = {id(f) for f in todo if f.explained_by is None and choices in tried[id(f)]}
        if not waiting:
            return True
        if left[0] <= 0 or not in_time():
            return False
        left[0] -= 1
        flags = [
            flag
            for point, option in choices
            for flag in (
                "--interface" if point in INTERFACE_DEFAULTS else "--ruling",
                f"{point}={option}",
            )
        ]
        session = EngineSession([*pair.reference_argv, *flags], timeout=pair.options.timeout)
        try:
            session.start()
        except EngineError:
            return True  # not tried: its findings are never said to have tried everything
        original, pair.reference = pair.reference, session
        try:
            explained: list[Finding] = []
            split: list[Finding] = []  # the example agrees, another occurrence does not
            changes = False
            # Every finding's example, not only those waiting: declaring the option must
            # turn no other finding into a new one (a joker worth 25 where the engine says
            # 30, for an option proved on an ace's value).
            for finding in todo:
                if not in_time():
                    raise _OutOfTime
                played = _play(pair, finding.example.trace)
                changes = changes or _changes(finding, played)
                if id(finding) not in waiting:
                    continue
                if played[0] and all_agree(finding.others):
                    explained.append(finding)
                elif played[0]:
                    split.append(finding)
                elif len(choices) == 1 and (rank := _nearness(finding, played)) is not None:
                    near[id(finding)].append((rank, choices[0]))
            # Named only if it breaks no answer the engine got right.
            if explained and not changes and keeps_agreements():
                for finding in explained:
                    finding.explained_by = dict(choices)
            elif len(choices) == 1:
                for finding in explained:  # its example agrees: the nearest of all
                    near[id(finding)].append((0, choices[0]))
            if len(choices) == 1:
                for finding in split:
                    near[id(finding)].append((0, choices[0]))
        except _OutOfTime:
            return False
        finally:
            pair.reference = original
            session.close()
        for key in waiting:
            pending[key].discard(choices)
        return True

    try:
        # Option by option, each put to every finding it may explain: one reference start
        # per option, whatever the number of findings.
        for choices in dict.fromkeys([*(c for f in todo for c in first[id(f)]), *wider]):
            if not attempt(choices):
                return
        # Then, for the findings no option explains, pairs of the options that came
        # nearest: a pair is never named where one of its options alone is proved.
        # Besides a finding's own nearest: an option proved for another finding (a fact
        # of the engine: wild twos may be refused alone only because they change how
        # the findings of an ace worth 15 show), then one that made another finding's
        # example agree (one finding may hold two faults: an ace's value in one
        # occurrence, a joker's in another).
        proved = [
            c
            for f in todo
            if f.explained_by and len(f.explained_by) == 1
            for c in f.explained_by.items()
        ]
        agreeing = [c for f in todo for rank, c in near[id(f)] if rank == 0]
        for f in todo:
            if f.explained_by is None:
                near[id(f)] += [(-1, c) for c in proved] + [(1, c) for c in agreeing]
                tried[id(f)] = pairs_of(near[id(f)])
                pending[id(f)] = set(tried[id(f)])
        for choices in dict.fromkeys(
            c for f in todo if f.explained_by is None for c in tried[id(f)]
        ):
            if not attempt(choices):
                return
    finally:
        for f in todo:
            f.all_options_tried = f.explained_by is None and not pending[id(f)]
