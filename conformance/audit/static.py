"""What the audit can tell without running anything (``check --strict`` fails on these).

- **A ``by_option`` whose values are equal for every option**: the value does not depend on
  the point, so writing it per option only hides that (and makes the check look as if it
  leaned on the point). Write the value once.
- **An assumption on a point none of the case's profiles rules on**: no engine is ever held
  to it (an engine that plays no option of a point follows the profile's reading,
  conformance/adapter/declarations.py), so it says nothing; it is a slip for another point, or
  for a profile the case does not list.

The dynamic findings (a check that fails under an option it does not name, an assumption a
check does not need) need the reference to play each option: ``audit --both-ways``
(conformance/audit/bothways.py).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from conformance.knowledge.catalogue import Catalogue
from conformance.scenarios import Scenario
from conformance.scenarios.options import by_option_sites


@dataclass(frozen=True)
class StaticFinding:
    """One static finding: where, and what to do."""

    case: str
    where: str
    message: str

    def line(self) -> str:
        """``file:line: [case] message``, as ``check`` prints its problems."""
        return f"{self.where}: [{self.case}] {self.message}"


def _pointer(path: Sequence[Any]) -> str:
    return "/" + "/".join(str(p) for p in path)


def equal_by_option(scenario: Scenario, catalogue: Catalogue) -> Iterator[StaticFinding]:
    """Every ``by_option`` of ``scenario`` that gives one value for every option of its point."""
    if '"by_option"' not in scenario.canonical:
        return  # no by_option anywhere in the case (its canonical JSON names every key)
    data = json.loads(scenario.canonical)
    disputed = scenario.disputed.id if scenario.disputed is not None else None
    for key in ("steps", "checks", "final"):
        for path, point, branches in by_option_sites(data.get(key), (key,), disputed):
            if point is None or not isinstance(branches, Mapping) or not branches:
                continue
            known = catalogue.disputes.get(point)
            options = tuple(known.options) if known is not None else tuple(branches)
            if set(options) - set(branches):
                continue  # an option without a value is not graded: not the same thing
            values = [json.dumps(branches[o], sort_keys=True) for o in options]
            if len(set(values)) == 1:
                yield StaticFinding(
                    scenario.id,
                    _where(scenario, path),
                    f"at {_pointer(path)}: by_option on {point} gives the same value for "
                    f"every option ({', '.join(options)}): write the value once",
                )


def _where(scenario: Scenario, path: Sequence[Any]) -> str:
    """``file:line`` of the check a ``by_option`` site belongs to (the case's line when the
    site is not one check's)."""
    key = None
    if len(path) >= 2 and path[0] == "checks":
        key = f"check {int(path[1]) + 1}"
    elif len(path) >= 4 and path[0] == "steps" and path[2] == "state":
        key = f"step {int(path[1]) + 1} {path[3]}"
    elif len(path) >= 2 and path[0] == "steps":
        key = f"step {int(path[1]) + 1} accepted"
    elif len(path) >= 2 and path[0] == "final":
        key = f"final {path[1]}"
    for check in scenario.plan_for(scenario.profiles[0]):
        if check.key == key or (key is None and path[:1] == ("final",) and check.step is None):
            return scenario.file_line(check.line)
    return scenario.where()


def assumptions_of(scenario: Scenario) -> Iterator[tuple[str, str, str]]:
    """Every assumption the case makes: ``(where, point, option)``; ``where`` is ``case``,
    ``step N`` or a check's key."""
    for point, option in scenario.assumes.items():
        yield "case", point, option
    steps: dict[int, Mapping[str, str]] = {}
    for step in scenario.steps:
        steps[step.index + 1] = step.assumes
        for point, option in step.assumes.items():
            yield f"step {step.index + 1}", point, option
    seen: set[tuple[str, str, str]] = set()
    for plan in scenario.plans.values():
        for check in plan:
            inherited = steps.get(check.step or -1, {})
            for point, option in check.assumes.items():
                if inherited.get(point) == option or (check.key, point, option) in seen:
                    continue
                seen.add((check.key, point, option))
                yield check.key, point, option


def unruled_assumptions(scenario: Scenario, catalogue: Catalogue) -> Iterator[StaticFinding]:
    """Every assumption of ``scenario`` on a point none of its profiles rules on."""
    for where, point, option in assumptions_of(scenario):
        known = catalogue.disputes.get(point)
        if known is None:
            continue  # check reports an unknown point already
        if not any(known.profiles.get(p) is not None for p in scenario.profiles):
            listed = ", ".join(scenario.profiles)
            yield StaticFinding(
                scenario.id,
                scenario.where(),
                f"{where} assumes {point} option {option!r}, which none of its profiles "
                f"({listed}) rules on: no engine is held to it; name the point the case leans "
                "on, or remove it",
            )


def static_findings(scenarios: Sequence[Scenario], catalogue: Catalogue) -> list[StaticFinding]:
    """Every static finding of ``scenarios``, in corpus order."""
    found: list[StaticFinding] = []
    for scenario in scenarios:
        found += equal_by_option(scenario, catalogue)
        found += unruled_assumptions(scenario, catalogue)
    return found
