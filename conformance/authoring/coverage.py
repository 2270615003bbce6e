"""What the corpus covers: for one profile, the cases behind each rule and each disputed
point, the cases that load each state field that changes what is legal set and then act on
it, and what is left uncovered.

``carioca-conformance coverage`` prints :func:`coverage_text` of :func:`profile_coverage`
and exits 1 when something is uncovered; a library user (a CI script, a notebook, a later
``coverage --executed`` that counts what the cases really run) gets the same numbers from
:func:`profile_coverage` without argparse. The counts come from the scenarios alone: no
engine runs here.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from conformance.knowledge.catalogue import Catalogue
from conformance.scenarios import Scenario
from conformance.scenarios.options import INTERFACE_READINGS, by_option_sites


def coverage_table(
    scenarios: Sequence[Scenario], catalogue: Catalogue, profile: str | None = None
) -> dict[str, Any]:
    """Rule ID → scenario count and accepted/rejected split; disputes covered.

    With ``profile``, only that profile's rules (catalogue ``profiles``) and the scenarios
    that list the profile are counted; without it, every rule and scenario.
    """
    wanted = catalogue.rules if profile is None else catalogue.rules_for(profile)
    rules: dict[str, dict[str, int]] = {
        rid: {"scenarios": 0, "accepted": 0, "rejected": 0} for rid in wanted
    }
    disputes: dict[str, list[str]] = defaultdict(list)
    for scenario in scenarios:
        if profile is not None and profile not in scenario.profiles:
            continue
        accepted = rejected = 0
        for step in scenario.steps:
            kinds = outcome_kinds(step.expect)
            accepted += "accepted" in kinds
            rejected += "rejected" in kinds
        for check in scenario.checks:
            kinds = outcome_kinds(check.expect)
            accepted += "accepted" in kinds
            rejected += "rejected" in kinds
        for rule in set(scenario.rules) - set(catalogue.disputes):
            row = rules.setdefault(rule, {"scenarios": 0, "accepted": 0, "rejected": 0})
            row["scenarios"] += 1
            row["accepted"] += accepted
            row["rejected"] += rejected
        if scenario.disputed is not None:
            disputes[scenario.disputed.id].append(scenario.id)
        for rule in scenario.rules:
            # Citing a text-settled ruling in `rules` also covers that dispute.
            if rule in catalogue.disputes and scenario.id not in disputes[rule]:
                disputes[rule].append(scenario.id)
    return {
        "rules": rules,
        "disputes": dict(disputes),
        "leaning": leaning_table(scenarios, profile),
    }


def leaning_options(scenario: Scenario) -> dict[str, set[str]]:
    """Every point the case leans on, with the options it exercises there: its ``disputed``
    point (each option of the block), an ``assumes`` of the case, a step or a check (that
    option), a ``by_option`` keyed by the point (each option it gives a value for), a point
    it cites in ``rules`` (the profile's option: an empty set here)."""
    found: dict[str, set[str]] = defaultdict(set)
    disputed = scenario.disputed.id if scenario.disputed is not None else None
    if scenario.disputed is not None:
        found[scenario.disputed.id].update(scenario.disputed.options)
    assumed = [scenario.assumes, *(step.assumes for step in scenario.steps)]
    for plan in scenario.plans.values():
        for check in plan:
            assumed.append(check.assumes)
            for point in check.leans:
                found.setdefault(point, set())
            for _, keyed, branches in by_option_sites(check.expected, (), disputed):
                if keyed is not None and keyed not in INTERFACE_READINGS:
                    found[keyed].update(str(k) for k in branches)
    for assumes in assumed:
        for point, option in assumes.items():
            found[point].add(option)
    for rule in scenario.rules:
        if rule.startswith(("DISPUTE-", "VARIANT-")):
            found.setdefault(rule, set())
    return dict(found)


def leaning_table(
    scenarios: Sequence[Scenario], profile: str | None = None
) -> dict[str, dict[str, Any]]:
    """Point -> the cases (of ``profile``) that lean on it and, per option, the cases that
    exercise it (``{"cases": [...], "options": {option: [...]}}``); a case leaning on the
    point with no option of its own named exercises the profile's option."""
    table: dict[str, dict[str, Any]] = {}
    for scenario in scenarios:
        if profile is not None and profile not in scenario.profiles:
            continue
        for point, options in leaning_options(scenario).items():
            row = table.setdefault(point, {"cases": [], "options": defaultdict(list)})
            row["cases"].append(scenario.id)
            for option in sorted(options):
                row["options"][option].append(scenario.id)
    return {p: {"cases": r["cases"], "options": dict(r["options"])} for p, r in table.items()}


def outcome_kinds(expect: Any) -> set[str]:
    """Which outcomes an expectation asserts (through every by_option branch)."""
    if isinstance(expect, dict) and set(expect) == {"by_option"}:
        kinds: set[str] = set()
        for branch in expect["by_option"].values():
            kinds |= outcome_kinds(branch)
        return kinds
    if expect == "accepted":
        return {"accepted"}
    if expect == "rejected" or (isinstance(expect, dict) and "rejected" in expect):
        return {"rejected"}
    if isinstance(expect, dict) and "valid" in expect:
        valid = expect["valid"]
        if isinstance(valid, dict):
            return outcome_kinds(
                {"by_option": {k: {"valid": v} for k, v in valid.get("by_option", {}).items()}}
            )
        return {"accepted" if valid else "rejected"}
    return set()


def _seat_after_dealer(state: Mapping[str, Any]) -> int:
    return (int(state.get("dealer", 0)) + 1) % int(state.get("players", 2))


#: The fields of the protocol state (docs/protocol.md §5) that change what is legal next,
#: each with what a setup must give it to be *set* (differ from what a fresh deal or the
#: setup's default gives it): a case that loads the field set and then acts fails an engine
#: that drops the field on load. Fields only a close fills (``deal_scores``, ``closer``,
#: ``winners``) change nothing that is legal; the hands and stock are loaded by every case.
LOADED_FIELDS: Mapping[str, tuple[str, Callable[[Mapping[str, Any]], bool]]] = {
    "phase": ("not draw", lambda s: s.get("phase", "draw") != "draw"),
    "turn": ("not the dealer's right", lambda s: s.get("turn") != _seat_after_dealer(s)),
    "dealer": ("not player 0", lambda s: s.get("dealer", 0) != 0),
    "deal_number": ("past deal 1", lambda s: s.get("deal_number", 1) != 1),
    "opened": ("someone opened", lambda s: any(s.get("opened") or ())),
    "turn_opened": ("true", lambda s: s.get("turn_opened") is True),
    "table": ("melds on it", lambda s: bool(s.get("table"))),
    "totals": ("not all zero", lambda s: any(s.get("totals") or ())),
    "discard": ("more than the top card", lambda s: len(s.get("discard") or ()) > 1),
}


def loaded_fields(scenarios: Sequence[Scenario], profile: str) -> dict[str, tuple[str, ...]]:
    """State field (:data:`LOADED_FIELDS`) → the cases of ``profile`` whose setup state
    loads it set and that then act (a step after the load), in corpus order."""
    found: dict[str, list[str]] = {name: [] for name in LOADED_FIELDS}
    for scenario in scenarios:
        setup = scenario.setup
        if profile not in scenario.profiles or setup is None or setup.state is None:
            continue
        if not scenario.steps:
            continue
        for name, (_, is_set) in LOADED_FIELDS.items():
            if is_set(setup.state):
                found[name].append(scenario.id)
    return {name: tuple(ids) for name, ids in found.items()}


@dataclass(frozen=True)
class Coverage:
    """One profile's coverage: the table, and what it leaves uncovered."""

    profile: str
    #: :func:`coverage_table` of the profile: ``rules`` and ``disputes``.
    table: Mapping[str, Any]
    #: The profile's rules no case cites, in catalogue order.
    uncovered_rules: tuple[str, ...]
    #: The profile's observable points no case tests and no other point decides.
    uncovered_disputes: tuple[str, ...]
    #: Points another point decides in this profile (docs/rules.md "set by"): point → option.
    fixed: Mapping[str, str]
    #: :func:`loaded_fields` of the profile: state field → the cases that load it set and act.
    loaded: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def unloaded_fields(self) -> tuple[str, ...]:
        """The state fields that change what is legal and that no case loads set and acts on."""
        return tuple(name for name, ids in self.loaded.items() if not ids)

    @property
    def complete(self) -> bool:
        """True when every rule and every observable point of the profile is covered, and
        every state field that changes what is legal is loaded set by a case that acts."""
        return not self.uncovered_rules and not self.uncovered_disputes and not self.unloaded_fields

    def as_json(self) -> dict[str, Any]:
        """What ``coverage --json`` writes: the table, the profile, the fixed points and the
        cases behind each loaded state field."""
        loaded = {name: list(ids) for name, ids in self.loaded.items()}
        return {**self.table, "profile": self.profile, "fixed": dict(self.fixed), "loaded": loaded}


def profile_coverage(scenarios: Sequence[Scenario], catalogue: Catalogue, profile: str) -> Coverage:
    """Count the cases of ``profile`` behind each of its rules and disputed points."""
    table = coverage_table(scenarios, catalogue, profile)
    points = catalogue.disputes_for(profile)
    # A point another point decides in this profile is covered by that point's cases; it
    # has no option of its own to test.
    fixed = {d.id: d.fixed[profile] for d in points.values() if profile in d.fixed}
    uncovered_rules = tuple(
        rid for rid in catalogue.rules_for(profile) if table["rules"][rid]["scenarios"] == 0
    )
    uncovered_disputes = tuple(
        d.id
        for d in points.values()
        if d.observable and d.id not in table["disputes"] and d.id not in fixed
    )
    loaded = loaded_fields(scenarios, profile)
    return Coverage(profile, table, uncovered_rules, uncovered_disputes, fixed, loaded)


def coverage_text(coverage: Coverage, catalogue: Catalogue, corpus: str) -> str:
    """The ``coverage`` command's table: one row per rule, one line per disputed point,
    and the totals."""
    profile = coverage.profile
    lines = [f"corpus {corpus}; profile {profile}"]
    lines.append(f"{'rule':<16} {'cases':>5} {'accept':>6} {'reject':>6}")
    for rid, row in coverage.table["rules"].items():
        mark = "  UNCOVERED" if row["scenarios"] == 0 else ""
        lines.append(
            f"{rid:<16} {row['scenarios']:>5} {row['accepted']:>6} {row['rejected']:>6}{mark}"
        )
    lines.append("")
    leaning = coverage.table.get("leaning", {})
    for dispute in catalogue.disputes_for(profile).values():
        cases = coverage.table["disputes"].get(dispute.id, [])
        if cases:
            state = ", ".join(cases)
        elif dispute.id in coverage.fixed:
            state = f"{coverage.fixed[dispute.id]} in {profile}"
        else:
            state = "UNCOVERED" if dispute.observable else "not observable"
        lines.append(f"{dispute.id}: {state}")
        lines += _leaning_lines(leaning.get(dispute.id), dispute.profiles.get(profile), dispute)
    lines.append("")
    lines.append("state loaded set, then acted on (field: what set means: cases)")
    for name, ids in coverage.loaded.items():
        shown = _listed(ids) if ids else "NONE"
        lines.append(f"{name} ({LOADED_FIELDS[name][0]}): {shown}")
    lines.append("")
    lines.append(_totals(coverage, catalogue))
    return "\n".join(lines) + "\n"


def _leaning_lines(row: Mapping[str, Any] | None, own: str | None, dispute: Any) -> list[str]:
    """Under a point's line: every case that leans on it, and per option the cases that
    exercise it (a case naming no option exercises the profile's)."""
    if not row:
        return []
    named = {case for cases in row["options"].values() for case in cases}
    per_option = {o: list(row["options"].get(o, [])) for o in dispute.options}
    if own is not None:
        per_option[own] += [c for c in row["cases"] if c not in named]
    counts = ", ".join(f"{o} {len(cases)}" for o, cases in per_option.items())
    return [
        f"    {len(row['cases'])} case(s) lean on it: {', '.join(row['cases'])}",
        f"    exercising each option: {counts}",
    ]


def _listed(ids: Sequence[str], limit: int = 6) -> str:
    shown = ", ".join(ids[:limit])
    return f"{len(ids)} ({shown}{', ...' if len(ids) > limit else ''})"


def _totals(coverage: Coverage, catalogue: Catalogue) -> str:
    rules = len(catalogue.rules_for(coverage.profile))
    return (
        f"{rules - len(coverage.uncovered_rules)}/{rules} rules covered; "
        f"{len(coverage.uncovered_disputes)} observable dispute(s) uncovered; "
        f"{len(coverage.loaded) - len(coverage.unloaded_fields)}/{len(coverage.loaded)} "
        "state fields loaded and acted on"
    )


def every_profile_coverage(
    scenarios: Sequence[Scenario], catalogue: Catalogue
) -> dict[str, Coverage]:
    """:func:`profile_coverage` of every profile of the harness, in its order."""
    from conformance.knowledge.profiles import default_profiles

    return {name: profile_coverage(scenarios, catalogue, name) for name in default_profiles()}


def brief_text(coverages: Mapping[str, Coverage], catalogue: Catalogue, corpus: str) -> str:
    """``coverage --profile all``: one line per profile, and a line for each rule or point
    left uncovered (the whole tables are each profile's ``coverage --profile NAME``)."""
    lines = [f"corpus {corpus}"]
    for name, coverage in coverages.items():
        lines.append(f"{name}: {_totals(coverage, catalogue)}")
        lines.extend(f"  UNCOVERED {rid}" for rid in coverage.uncovered_rules)
        lines.extend(f"  UNCOVERED {pid}" for pid in coverage.uncovered_disputes)
        lines.extend(
            f"  NOT LOADED {field_name}: no case loads it set and acts"
            for field_name in coverage.unloaded_fields
        )
    return "\n".join(lines) + "\n"


__all__ = [
    "LOADED_FIELDS",
    "Coverage",
    "brief_text",
    "coverage_table",
    "coverage_text",
    "every_profile_coverage",
    "leaning_options",
    "leaning_table",
    "loaded_fields",
    "outcome_kinds",
    "profile_coverage",
]
