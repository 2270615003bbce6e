"""The checks a scenario makes, enumerable from the scenario alone (docs/scenario-format.md,
"Checks").

Every assertion is one check with a stable key, the rules a failure is attributed to, the
points it leans on and its line, so that a case reports its full list of checks whether it
passed, failed, errored or was not run:

==========================  ================================================================
``check N``                 a melds-level answer (``valid`` or ``points``)
``check N reason``          its rejection reason
``setup invariants``        the setup's answer holds one hand per player and the whole pack
``step N accepted``         the step's acceptance (or refusal)
``step N reason``           the refusal's reason
``step N unchanged``        a refused action left the state as it was
``step N <key>``            one key of the step's ``state`` check
``step N invariants``       the step's answer holds one hand per player and the whole pack
``final <key>``             one key of ``final``
==========================  ================================================================

Rules come from the scenario where it names them (a step's or check's ``rules``, a key's
``{expect: ..., rules: [...]}``), else from the map of conformance/data/check_rules.json
(Argentine IDs, read through the profile's ``own_rules``), else a reason's rule from the
catalogue for a reason check, else the case's ``rules``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from functools import cache
from typing import Any

from conformance.io.resources import package_file
from conformance.knowledge.catalogue import Catalogue
from conformance.knowledge.profiles import ProfileData
from conformance.scenarios.model import Check, PlannedCheck, Step
from conformance.scenarios.options import (
    NOT_ASSERTED,
    branches_of,
    is_by_option,
    is_wrapper,
    points_of,
    varies,
)

CHECK_RULES = package_file("data", "check_rules.json")

#: Where a rule came from: translated through own_rules (map, reason) or taken as written.
_TRANSLATED = "translated"


@cache
def check_rules() -> Mapping[str, Any]:
    """The map of checks and state fields to rules (conformance/data/check_rules.json)."""
    data: Mapping[str, Any] = json.loads(CHECK_RULES.read_text(encoding="utf-8"))
    return data


def mapped_rules(what: str, kind: str | None) -> tuple[str, ...]:
    """The Argentine rules the map gives a check of ``what`` after a step of ``kind``
    (``action``, ``next_deal``, ``redeal``; None: the setup); () when it gives none."""
    data = check_rules()
    if what in data["checks"]:
        return tuple(data["checks"][what])
    fields = data["fields"]
    for scope in (kind, "any"):
        rules = fields.get(scope, {}).get(what) if scope else None
        if rules:
            return tuple(rules)
    return ()


def reason_rules(reasons: Iterable[str], catalogue: Catalogue | None) -> tuple[str, ...]:
    """The catalogue's rule of each reason (Argentine IDs), in order, once each."""
    if catalogue is None:
        return ()
    found = [catalogue.reasons[r].rule for r in reasons if r in catalogue.reasons]
    return tuple(dict.fromkeys(found))


def state_keys(state: Any, disputed: str | None) -> dict[str, Any]:
    """Each key a state check (``state:`` or ``final:``) asserts, with its expected value.

    A whole state written per option (``{by_option: {a: {...}, b: {...}}}``) becomes one
    ``by_option`` per key, holding the options whose branch names that key: under another
    option the key is not asserted (NOT_ASSERTED): under that option the check does not exist.
    """
    if not is_by_option(state):
        return dict(state) if isinstance(state, Mapping) else {}
    point, branches = branches_of(state["by_option"], disputed)
    keys: dict[str, dict[str, Any]] = {}
    for option, branch in branches.items():
        for key, value in state_keys(branch, disputed).items():
            keys.setdefault(key, {})[option] = value
    for per in keys.values():
        for option in branches:
            per.setdefault(option, NOT_ASSERTED)
    if point == disputed:
        return {key: {"by_option": per} for key, per in keys.items()}
    return {key: {"by_option": {point: per}} for key, per in keys.items()}


def _reasons_in(expect: Any) -> list[str]:
    """Every reason a step's ``expect`` or a check's ``expect`` names, in any branch."""
    found: list[str] = []
    if is_by_option(expect):
        _, branches = branches_of(expect["by_option"], "")
        for branch in branches.values():
            found += _reasons_in(branch)
    elif isinstance(expect, Mapping):
        for key in ("rejected", "reason"):
            value = expect.get(key)
            if isinstance(value, str):
                found.append(value)
            elif isinstance(value, list):
                found += [v for v in value if isinstance(v, str)]
    return found


def _rejects(expect: Any) -> bool:
    """True when some branch of a step's ``expect`` is a refusal."""
    if expect == "rejected" or (isinstance(expect, Mapping) and "rejected" in expect):
        return True
    if is_by_option(expect):
        _, branches = branches_of(expect["by_option"], "")
        return any(_rejects(b) for b in branches.values())
    return False


class Planner:
    """Builds the check plan of one document once its steps and checks are built.

    ``line_of`` gives the line of a document path; ``facts`` are the case's profiles.
    """

    def __init__(
        self,
        data: Mapping[str, Any],
        line_of: Callable[[Sequence[Any]], int],
        catalogue: Catalogue | None,
        facts: Sequence[ProfileData],
    ) -> None:
        self.data = data
        self.line_of = line_of
        self.catalogue = catalogue
        self.facts = facts
        self.case_rules = tuple(data["rules"])
        disputed = data.get("disputed")
        self.disputed: str | None = disputed.get("id") if isinstance(disputed, Mapping) else None

    # -- the plan ---------------------------------------------------------------------------

    def plans(
        self, checks: Sequence[Check], steps: Sequence[Step]
    ) -> dict[str, tuple[PlannedCheck, ...]]:
        """The plan per profile: the same checks, rules in each profile's own IDs."""
        planned: list[tuple[PlannedCheck, str]] = []
        for check in checks:
            planned += self._melds_check(check)
        if steps or self.data.get("setup") is not None:
            if self.data.get("level") != "melds":
                planned.append(self._invariants(0, "setup invariants", ["setup"]))
            for step in steps:
                planned += self._step(step)
            final = self.data.get("final")
            if final is not None:
                kind = steps[-1].kind if steps else None
                planned += self._state(None, "final", final, kind, ["final"], {})
        plans: dict[str, tuple[PlannedCheck, ...]] = {}
        for facts in self.facts:
            plans[facts.name] = tuple(
                replace(check, rules=tuple(dict.fromkeys(map(facts.rule_id, check.rules))))
                if source == _TRANSLATED
                else check
                for check, source in planned
            )
        return plans

    def _melds_check(self, check: Check) -> list[tuple[PlannedCheck, str]]:
        item = self.data["checks"][check.index]
        number = check.index + 1
        given = tuple(item.get("rules", ()))
        assumes = dict(item.get("assumes", {}))
        out = [
            self._planned(
                f"check {number}",
                "answer",
                number,
                check.line,
                check.expect,
                given or self.case_rules,
                assumes,
            )
        ]
        reasons = _reasons_in(check.expect)
        if reasons:
            rules, source = self._reason_rules(given, reasons)
            out.append(
                (
                    self._planned(
                        f"check {number} reason",
                        "reason",
                        number,
                        check.line,
                        check.expect,
                        rules,
                        assumes,
                    )[0],
                    source,
                )
            )
        return out

    def _step(self, step: Step) -> list[tuple[PlannedCheck, str]]:
        item = self.data["steps"][step.index]
        number = step.index + 1
        given = tuple(item.get("rules", ()))
        assumes = dict(step.assumes)
        expect_line = self.line_of(["steps", step.index, "expect"]) or step.line
        mapped = mapped_rules("accepted", step.kind)
        accepted_rules = given or mapped or self.case_rules
        out = [
            (
                self._planned(
                    f"step {number} accepted",
                    "accepted",
                    number,
                    expect_line,
                    step.expect,
                    accepted_rules,
                    assumes,
                )[0],
                _TRANSLATED if not given and mapped else "",
            )
        ]
        reasons = _reasons_in(step.expect)
        if reasons:
            rules, source = self._reason_rules(given, reasons)
            out.append(
                (
                    self._planned(
                        f"step {number} reason",
                        "reason",
                        number,
                        expect_line,
                        step.expect,
                        rules,
                        assumes,
                    )[0],
                    source,
                )
            )
        if _rejects(step.expect):
            mapped = mapped_rules("unchanged", step.kind)
            out.append(
                (
                    self._planned(
                        f"step {number} unchanged",
                        "unchanged",
                        number,
                        expect_line,
                        step.expect,
                        given or mapped,
                        assumes,
                    )[0],
                    "" if given else _TRANSLATED,
                )
            )
        if step.state is not None:
            out += self._state(
                number,
                f"step {number}",
                step.state,
                step.kind,
                ["steps", step.index, "state"],
                assumes,
            )
        out.append(self._invariants(number, f"step {number} invariants", ["steps", step.index]))
        return out

    def _state(
        self,
        number: int | None,
        prefix: str,
        state: Any,
        kind: str | None,
        path: list[Any],
        assumes: Mapping[str, str],
    ) -> list[tuple[PlannedCheck, str]]:
        out: list[tuple[PlannedCheck, str]] = []
        whole = is_by_option(state)
        for key, value in state_keys(state, self.disputed).items():
            line = self.line_of(path if whole else [*path, key])
            own_rules: tuple[str, ...] = ()
            own_assumes = dict(assumes)
            if is_wrapper(value):
                own_rules = tuple(value.get("rules", ()))
                own_assumes.update(value.get("assumes", {}))
                value = value["expect"]
            mapped = mapped_rules(key, kind)
            if own_rules:
                rules, source = own_rules, ""
            elif mapped:
                rules, source = mapped, _TRANSLATED
            else:
                rules, source = self.case_rules, ""
            check = self._planned(f"{prefix} {key}", key, number, line, value, rules, own_assumes)[
                0
            ]
            out.append((check, source))
        return out

    def _invariants(self, number: int, key: str, path: list[Any]) -> tuple[PlannedCheck, str]:
        line = self.line_of(path)
        check = PlannedCheck(key, "invariants", number, line, mapped_rules("invariants", None))
        return check, _TRANSLATED

    def _planned(
        self,
        key: str,
        what: str,
        number: int | None,
        line: int,
        expected: Any,
        rules: tuple[str, ...],
        assumes: Mapping[str, str],
    ) -> tuple[PlannedCheck, str]:
        leans = tuple(dict.fromkeys([*assumes, *points_of(expected, self.disputed)]))
        check = PlannedCheck(
            key=key,
            what=what,
            step=number,
            line=line,
            rules=rules,
            expected=expected,
            varies=varies(expected),
            assumes=dict(assumes),
            leans=leans,
        )
        return check, ""

    def _reason_rules(
        self, given: tuple[str, ...], reasons: Sequence[str]
    ) -> tuple[tuple[str, ...], str]:
        if given:
            return given, ""
        from_catalogue = reason_rules(reasons, self.catalogue)
        if from_catalogue:
            return from_catalogue, _TRANSLATED
        return self.case_rules, ""
