"""Pairs of options that read perversely together (``audit --pairs``).

The audit changes one point at a time, so it cannot see two options that each behave as
their texts say alone and otherwise together (a player who has not opened may replace a
joker on any turn, one who opened this turn may not). Here the reference plays, for each pair
of points the profile rules on freely that touch the same rule section, each pair of their
non-profile options, on the cases that lean on either point (conformance/authoring/coverage.py),
and compares every step's answer and state with the profile's rulings and with each option
alone:

- where one option alone changes nothing of a step, the pair must answer as the other alone;
- where neither does, as the profile's rulings;
- where both do, the text of neither says what the pair gives, and nothing is compared.

A pair answering otherwise is listed with the first step that shows it. It is a finding to
judge (a real interaction of two rules, or a branch of the reference reading one option
wrongly next to the other), not a failure: the command's exit code does not change.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

from conformance.adapter.declarations import declarations
from conformance.adapter.engine import EngineSession
from conformance.authoring.coverage import leaning_options
from conformance.authoring.options import STEP_KEYS, observed
from conformance.authoring.play import PlayedDraft, RecordError, play_in_session
from conformance.errors import EngineError
from conformance.knowledge.catalogue import Catalogue
from conformance.scenarios import Scenario

#: ``((point, option), ...)``: the profile's rulings (empty), one option, or a pair.
Rulings = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class PairFinding:
    """A pair of options whose combined answer is neither what each says alone."""

    first: tuple[str, str]
    second: tuple[str, str]
    case: str
    #: ``step N expect`` or ``step N KEY``.
    where: str
    #: What the profile's rulings, each option alone, and the pair gave there.
    profile: object
    alone_first: object
    alone_second: object
    together: object

    def line(self) -> str:
        """One line: the pair, the case and step, the four answers."""
        (p, o), (q, r) = self.first, self.second

        def show(value: object) -> str:
            return json.dumps(value, separators=(",", ":"))

        return (
            f"{p}={o} with {q}={r}: {self.case} {self.where}: the profile's rulings "
            f"{show(self.profile)}, {p}={o} alone {show(self.alone_first)}, {q}={r} alone "
            f"{show(self.alone_second)}, together {show(self.together)}"
        )


def pairs_to_play(
    catalogue: Catalogue, profile: str, points: Sequence[str] = ()
) -> list[tuple[tuple[str, str], tuple[str, str]]]:
    """Each pair of non-profile options of two points the profile rules on freely whose
    rules share a section (with ``points``: pairs holding one of them)."""
    sections = {rule.id: rule.section for rule in catalogue.rules.values()}
    free = [d for d in catalogue.disputes_for(profile).values() if profile not in d.fixed]
    found = []
    for a, b in combinations(free, 2):
        if points and a.id not in points and b.id not in points:
            continue
        if not {sections.get(r) for r in a.rules} & {sections.get(r) for r in b.rules}:
            continue
        for o in (o for o in a.options if o != a.profiles[profile]):
            for r in (r for r in b.options if r != b.profiles[profile]):
                found.append(((a.id, o), (b.id, r)))
    return found


def _answers(played: PlayedDraft) -> list[dict[str, object]]:
    """Per step: its outcome and the state keys a case may check, as one mapping."""
    return [
        {"expect": expect, **{k: v for k, v in observed(state).items() if k in STEP_KEYS}}
        for expect, state in zip(played.expects, played.states, strict=True)
    ]


def _play_all(
    argv: Sequence[str],
    rulings: Rulings,
    scenarios: Iterable[Scenario],
    profile: str,
    timeout: float,
) -> dict[str, list[dict[str, object]]]:
    """Each case's answers under ``rulings``, one adapter for all (a case an option cannot
    set up or play through is left out)."""
    flags = [f for p, o in rulings for f in ("--ruling", f"{p}={o}")]
    found: dict[str, list[dict[str, object]]] = {}
    with EngineSession([*argv, *flags], timeout=timeout) as session:
        assert session.handshake is not None
        from conformance.knowledge.catalogue import load_catalogue

        declared = declarations(session.handshake, profile, load_catalogue())
        for scenario in scenarios:
            reading = dict(scenario.interface or {})
            if any(declared.interface.get(k, v) != v for k, v in reading.items()):
                continue  # written for a reading this adapter does not play
            try:
                found[scenario.id] = _answers(play_in_session(session, declared, scenario, profile))
            except (RecordError, EngineError, KeyError):
                continue
    return found


def first_surprise(
    base: Sequence[Mapping[str, object]],
    first: Sequence[Mapping[str, object]],
    second: Sequence[Mapping[str, object]],
    both: Sequence[Mapping[str, object]],
) -> tuple[str, object, object, object, object] | None:
    """The first step and key where the pair answers neither as each option alone says."""
    for index, (b, f, s, t) in enumerate(zip(base, first, second, both, strict=False), 1):
        for key in b:
            same = json.dumps(b.get(key), sort_keys=True)
            moved_first = json.dumps(f.get(key), sort_keys=True) != same
            moved_second = json.dumps(s.get(key), sort_keys=True) != same
            if moved_first and moved_second:
                continue  # both change it: neither text says what the pair gives
            wanted = f.get(key) if moved_first else s.get(key) if moved_second else b.get(key)
            if json.dumps(t.get(key), sort_keys=True) != json.dumps(wanted, sort_keys=True):
                return f"step {index} {key}", b.get(key), f.get(key), s.get(key), t.get(key)
    return None


def audit_pairs(
    argv: Sequence[str],
    scenarios: Sequence[Scenario],
    catalogue: Catalogue,
    profile: str,
    *,
    points: Sequence[str] = (),
    timeout: float = 10.0,
) -> list[PairFinding]:
    """Every pair of :func:`pairs_to_play` answering otherwise than each option alone on a
    case that leans on either point (turns and deals cases: a melds answer has no steps)."""
    playable = [s for s in scenarios if s.setup is not None and s.steps and profile in s.profiles]
    leaning = {s.id: set(leaning_options(s)) for s in playable}
    cache: dict[Rulings, dict[str, list[dict[str, object]]]] = {}

    def under(rulings: Rulings, cases: Sequence[Scenario]) -> dict[str, list[dict[str, object]]]:
        if rulings not in cache:
            cache[rulings] = _play_all(argv, rulings, cases, profile, timeout)
        return cache[rulings]

    findings = []
    for first, second in pairs_to_play(catalogue, profile, points):
        cases = [s for s in playable if leaning[s.id] & {first[0], second[0]}]
        if not cases:
            continue
        # The profile's rulings and each option alone are played on every case that leans
        # on any point of a pair; the pair on its own cases.
        all_cases = [s for s in playable if leaning[s.id]]
        base, alone_first = under((), all_cases), under((first,), all_cases)
        alone_second = under((second,), all_cases)
        together = _play_all(argv, (first, second), cases, profile, timeout)
        for scenario in cases:
            answers = [m.get(scenario.id) for m in (base, alone_first, alone_second, together)]
            if any(a is None for a in answers):
                continue
            b, f, s, t = answers
            assert b is not None and f is not None and s is not None and t is not None
            found = first_surprise(b, f, s, t)
            if found is not None:
                where, *values = found
                findings.append(PairFinding(first, second, scenario.id, where, *values))
                break  # one case shows the pair; the rest would repeat it
    return findings


def pairs_text(profile: str, findings: Sequence[PairFinding], pairs: int) -> str:
    """The report: each pair that reads otherwise together, or that none does."""
    if not findings:
        return (
            f"{profile}: pairs: {pairs} pair(s) of options touching the same rule section, "
            "each answering together as each says alone\n"
        )
    lines = [
        f"{profile}: pairs: {len(findings)} of {pairs} pair(s) of options answer together "
        "otherwise than each says alone (judge each: an interaction the texts give, or a "
        "branch to fix):"
    ]
    lines += [f"  {finding.line()}" for finding in findings]
    return "\n".join(lines) + "\n"
