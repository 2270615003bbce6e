"""Names a scenario uses, against the catalogue: rule IDs, rejection reasons, disputed points,
house variants and their options, wherever the case names them (the case, a step, a melds
check, one key of a state check, a ``by_option``); docs/scenario-format.md, "Semantic checks".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from conformance.knowledge.catalogue import Catalogue
from conformance.scenarios.options import (
    INTERFACE_READINGS,
    NoValue,
    _reason_sites,
    by_option_sites,
    is_by_option,
    is_wrapper,
    malformed_by_option,
    resolve,
)
from conformance.scenarios.reporter import Reporter
from conformance.scenarios.yamldoc import _jsonable, _pointer, _validator


class CatalogueChecks(Reporter):
    """Rule, reason, point and option names against the catalogue."""

    catalogue: Catalogue | None

    def check_catalogue(self) -> None:
        """Every name the document uses exists, holds in its profiles and fits its place."""
        data = self.data
        self.check_rule_list(data["rules"], ["rules"])
        cat = self.catalogue
        if cat is not None:
            for part in ("checks", "steps"):
                for path, reason in _reason_sites(data.get(part, []), (part,)):
                    if reason not in cat.reasons:
                        self.error(f"unknown rejection reason {reason!r}", list(path))
        self.check_assumes(data.get("assumes", {}), ["assumes"])
        for part in ("checks", "steps"):
            for i, item in enumerate(data.get(part, [])):
                self.check_rule_list(item.get("rules", ()), [part, i, "rules"])
                self.check_assumes(item.get("assumes", {}), [part, i, "assumes"])
        for where, value in self._state_checks():
            self.check_wrappers(value, where)
        self.check_by_option_shape()
        self.check_disputed()
        self.check_point_sites()

    # -- rules and assumptions -----------------------------------------------------------------

    def check_rule_list(self, rules: Sequence[str], path: list[Any]) -> None:
        """Each rule is known, and holds in every profile the case lists."""
        cat = self.catalogue
        if cat is None:
            return
        for i, rule in enumerate(rules):
            # A text-settled ruling (DISPUTE-nn) is as citable as a rule.
            if rule not in cat.rules and rule not in cat.disputes:
                self.error(f"unknown rule ID {rule!r}", [*path, i])
            elif rule in cat.rules:
                # A case holds for each profile it lists: so must every rule it cites.
                outside = [p for p in self.data["profiles"] if p not in cat.rules[rule].profiles]
                if outside:
                    self.error(
                        f"rule {rule} does not hold in profile(s) {', '.join(outside)} "
                        f"(the catalogue gives it {', '.join(cat.rules[rule].profiles)})",
                        [*path, i],
                    )

    def check_assumes(self, assumes: Mapping[str, str], path: list[Any]) -> None:
        """Each assumed point and option is known, ruled on by a profile of the case, and not
        the case's own disputed point."""
        for point, option in assumes.items():
            self.check_point(point, [*path, point], options=(option,))
            disputed = self.data.get("disputed")
            if isinstance(disputed, Mapping) and disputed.get("id") == point:
                self.error(
                    f"{point} is this case's disputed point; it cannot also be assumed",
                    [*path, point],
                )

    def check_point(
        self, point: str, path: list[Any], options: Sequence[Any] = (), *, ruled: bool = False
    ) -> bool:
        """Whether ``point`` is a known point (and ``options`` its options); with ``ruled``,
        also that a profile of the case rules on it (a ``by_option`` on it then has a value
        to grade)."""
        cat = self.catalogue
        if cat is None:
            return True
        known = cat.disputes.get(point)
        if known is None:
            self.error(f"unknown disputed point {point!r}", path)
            return False
        ok = True
        for option in options:
            if option not in known.options:
                self.error(
                    f"unknown option {option!r} of {point} (known: {', '.join(known.options)})",
                    [*path, option] if ruled else path,
                )
                ok = False
        if ruled and not any(p in known.profiles for p in self.data["profiles"]):
            self.error(
                f"by_option on {point}, which none of the case's profiles "
                f"({', '.join(self.data['profiles'])}) rules on",
                path,
            )
            ok = False
        return ok

    # -- per-key wrappers ----------------------------------------------------------------------

    def _state_checks(self) -> list[tuple[list[Any], Any]]:
        found: list[tuple[list[Any], Any]] = []
        for i, step in enumerate(self.data.get("steps", [])):
            if "state" in step:
                found.append((["steps", i, "state"], step["state"]))
        if "final" in self.data:
            found.append((["final"], self.data["final"]))
        return found

    def check_wrappers(self, state: Any, path: list[Any]) -> None:
        """A ``{expect, rules, assumes}`` wrapper names known rules and points, and stands only
        as the value of a key (not inside a state written whole per option)."""
        if is_by_option(state):
            for site, _point, branches in by_option_sites(state, tuple(path), ""):
                for option, branch in branches.items():
                    if isinstance(branch, Mapping) and any(map(is_wrapper, branch.values())):
                        self.error(
                            "a key's {expect, rules, assumes} form cannot stand inside a state "
                            "written whole per option: write the key's value per option instead",
                            [*site, "by_option", option],
                        )
            return
        if not isinstance(state, Mapping):
            return
        for key, value in state.items():
            if is_wrapper(value):
                self.check_rule_list(value.get("rules", ()), [*path, key, "rules"])
                self.check_assumes(value.get("assumes", {}), [*path, key, "assumes"])

    # -- by_option -----------------------------------------------------------------------------

    def check_by_option_shape(self) -> None:
        """A ``by_option`` is the only key of its mapping and holds the options' mapping."""
        for path in malformed_by_option(self.data, ()):
            self.error(
                "by_option must be the only key of its mapping and map points or options to "
                "values (is it indented under the key it belongs to?)",
                [*path, "by_option"],
            )

    def check_disputed(self) -> None:
        """The ``disputed`` block, and every ``by_option`` keyed by its options."""
        data = self.data
        cat = self.catalogue
        disputed = data.get("disputed")
        sites = [(p, b) for p, point, b in by_option_sites(data, (), "") if point == ""]
        if disputed is None:
            for path, _ in sites:
                self.error("by_option used without a disputed block", list(path))
            return
        options = set(disputed["options"])
        known = cat.disputes.get(disputed["id"]) if cat is not None else None
        if cat is not None and known is None:
            self.error(f"unknown disputed point {disputed['id']!r}", ["disputed", "id"])
        if known is not None:
            for key in disputed["options"]:
                if key not in known.options:
                    self.error(
                        f"unknown option {key!r} of {known.id} (known: {', '.join(known.options)})",
                        ["disputed", "options", key],
                    )
        for profile, key in disputed["profiles"].items():
            if key not in options:
                self.error(
                    f"profile {profile!r} follows option {key!r}, which is not among the options",
                    ["disputed", "profiles", profile],
                )
        for profile in data["profiles"]:
            if profile not in disputed["profiles"]:
                self.error(
                    f"disputed block gives no option for profile {profile!r}",
                    ["disputed", "profiles"],
                )
        for path, branches in sites:
            for key in branches:
                if key not in options:
                    self.error(f"unknown option key {key!r} in by_option", [*path, key])
            for profile, key in disputed["profiles"].items():
                if key in options and key not in branches:
                    self.error(
                        f"by_option has no branch for {key!r}, the {profile} profile's option",
                        list(path),
                    )
        self.check_resolved(sorted(options), [b for _, b in sites])

    def check_point_sites(self) -> None:
        """Every ``by_option`` keyed by a point: a known point a profile of the case rules on,
        known options, and a branch for each of the case's profiles' options."""
        cat = self.catalogue
        for path, point, branches in by_option_sites(self.data, (), ""):
            if point == "" or point is None:
                continue
            where = [*path, "by_option", point]
            readings = INTERFACE_READINGS.get(point)
            if readings is not None:
                # A value per interface reading: every reading, and nothing else.
                if set(branches) != set(readings):
                    self.error(
                        f"by_option on {point} needs exactly the readings "
                        f"{', '.join(readings)}, got {', '.join(map(str, branches))}",
                        where,
                    )
                continue
            if not self.check_point(point, where, list(branches), ruled=True) or cat is None:
                continue
            for profile in self.data["profiles"]:
                theirs = cat.disputes[point].profiles.get(profile)
                if theirs is not None and theirs not in branches:
                    self.error(
                        f"by_option on {point} has no branch for {theirs!r}, "
                        f"the {profile} profile's option",
                        where,
                    )

    def check_resolved(self, options: Sequence[str], sites: Sequence[Mapping[str, Any]]) -> None:
        """Every option of the disputed point that all its sites cover gives a schema-valid
        scenario (other points read at the case's first profile's options)."""
        cat = self.catalogue
        first = self.data["profiles"][0]

        def ruling_under(option: str) -> Callable[[str], str | None]:
            def ruling(point: str) -> str | None:
                if point == "":
                    return option
                known = cat.disputes.get(point) if cat is not None else None
                return known.profiles.get(first) if known is not None else None

            return ruling

        for option in options:
            if not all(option in branches for branches in sites):
                continue
            try:
                resolved = resolve(self.data, ruling_under(option), "")
            except NoValue:  # a point without a profile option: reported elsewhere
                continue
            for err in _validator().iter_errors(_jsonable(resolved)):
                self.error(
                    f"schema (option {option!r}): at {_pointer(err.absolute_path)}: {err.message}",
                    list(err.absolute_path),
                )
                break
