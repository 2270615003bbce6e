"""The rule catalogue: rule IDs, sections, disputed points and rejection reasons."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance.errors import HarnessError
from conformance.io.resources import package_file

DEFAULT_CATALOGUE = package_file("data", "catalogue.json")

#: The profiles a rule entry applies to when it names none: the catalogue was Argentine-only
#: before rules carried a ``profiles`` field (docs/scenario-format.md, "Profiles").
DEFAULT_RULE_PROFILES: tuple[str, ...] = ("argentine",)

_DISPUTE_RE = re.compile(r"^(DISPUTE|VARIANT)-0*([0-9]+)$")


class CatalogueError(HarnessError):
    """The catalogue file is missing or malformed."""


def normalise_dispute_id(dispute_id: str) -> str:
    """Return the canonical two-digit form of a point id (``DISPUTE-1`` → ``DISPUTE-01``).

    Engines may write rulings with one digit; the catalogue always uses two. House
    variants (``VARIANT-nn``) are normalised the same way.
    Anything that is not a dispute id is returned unchanged.
    """
    match = _DISPUTE_RE.match(dispute_id.strip().upper())
    if match is None:
        return dispute_id
    return f"{match.group(1)}-{int(match.group(2)):02d}"


@dataclass(frozen=True)
class Section:
    """A rule section such as ``MELD-RUN`` with its human title."""

    prefix: str
    title: str


@dataclass(frozen=True)
class Rule:
    """One rule of the catalogue."""

    id: str
    section: str
    summary: str
    source: str
    profiles: tuple[str, ...] = DEFAULT_RULE_PROFILES
    """The profiles this rule holds in (catalogue field ``profiles``, default argentine)."""


@dataclass(frozen=True)
class Dispute:
    """A disputed point with its option keys and per-profile rulings."""

    id: str
    title: str
    question: str
    options: Mapping[str, str]
    profiles: Mapping[str, str]
    rules: tuple[str, ...]
    observable: bool
    kind: str = "dispute"
    """``dispute`` (a ``DISPUTE-nn`` of docs/rules.md) or ``variant`` (a ``VARIANT-nn``
    house variant); both are graded alike: ``disputed``, ``assumes`` and engine rulings."""
    fixed: Mapping[str, str] = field(default_factory=dict)
    """Profile -> why the point has no free option there (``set by DISPUTE-48``: another
    point decides it; ``fixed``: the profile is that choice). Its cases are that point's."""


@dataclass(frozen=True)
class Reason:
    """A rejection reason and the rule it cites."""

    reason: str
    rule: str
    when: str


@dataclass(frozen=True)
class Catalogue:
    """The loaded rule catalogue."""

    version: int
    sections: tuple[Section, ...]
    rules: Mapping[str, Rule]
    disputes: Mapping[str, Dispute]
    """Every point an engine rules on: the disputes, then the house variants."""
    reasons: Mapping[str, Reason]
    _section_order: Mapping[str, int] = field(default_factory=dict, repr=False)

    @property
    def profiles(self) -> tuple[str, ...]:
        """Every profile some rule or disputed point of the catalogue names, sorted."""
        names: set[str] = set()
        for rule in self.rules.values():
            names.update(rule.profiles)
        for dispute in self.disputes.values():
            names.update(dispute.profiles)
        return tuple(sorted(names))

    def rules_for(self, profile: str) -> Mapping[str, Rule]:
        """The rules that hold in ``profile``, in catalogue order."""
        return {rid: rule for rid, rule in self.rules.items() if profile in rule.profiles}

    def disputes_for(self, profile: str) -> Mapping[str, Dispute]:
        """The disputed points and variants ``profile`` rules on (it names an option)."""
        return {did: d for did, d in self.disputes.items() if profile in d.profiles}

    def profile_options(self, profile: str) -> dict[str, str]:
        """The option ``profile`` plays on each point it rules on."""
        return {did: d.profiles[profile] for did, d in self.disputes_for(profile).items()}

    def ruling_problems(self, rulings: Mapping[str, str]) -> tuple[str, ...]:
        """What is wrong with an engine's declared rulings: unknown points or options.

        An engine that names an option the catalogue does not know cannot be graded on
        that point; the harness warns and grades it against its profile's option.
        """
        problems = []
        for dispute_id, option in sorted(rulings.items()):
            dispute = self.disputes.get(dispute_id)
            if dispute is None:
                problems.append(f"{dispute_id} is not a disputed point of the rule catalogue")
            elif option not in dispute.options:
                known = ", ".join(dispute.options)
                problems.append(f"{dispute_id}: {option!r} is not one of its options ({known})")
        return tuple(problems)

    def section_of(self, rule_id: str) -> str:
        """Return the section prefix a rule belongs to.

        Uses the rule's own ``section`` when the rule is known, else the longest
        section prefix matching the id, else ``"OTHER"``.
        """
        rule = self.rules.get(rule_id)
        if rule is not None:
            return rule.section
        best = ""
        for section in self.sections:
            prefix = section.prefix
            if (rule_id == prefix or rule_id.startswith(prefix + "-")) and len(prefix) > len(best):
                best = prefix
        return best or "OTHER"

    def section_title(self, prefix: str) -> str:
        """Return the title of a section prefix (the prefix itself when unknown)."""
        for section in self.sections:
            if section.prefix == prefix:
                return section.title
        return prefix

    def section_rank(self, prefix: str) -> int:
        """Return the position of a section in catalogue order (unknown sections last)."""
        return self._section_order.get(prefix, len(self.sections))


def _parse(data: Any) -> Catalogue:
    if not isinstance(data, dict):
        raise CatalogueError("catalogue must be a JSON object")
    try:
        sections = tuple(Section(s["prefix"], s["title"]) for s in data.get("sections", []))
        rules = {r["id"]: _rule(r) for r in data.get("rules", [])}
        disputes: dict[str, Dispute] = {}
        for kind, key in (("dispute", "disputes"), ("variant", "variants")):
            for d in data.get(key, []):
                dispute_id = normalise_dispute_id(d["id"])
                disputes[dispute_id] = Dispute(
                    id=dispute_id,
                    title=d.get("title", ""),
                    question=d.get("question", ""),
                    options=dict(d.get("options", {})),
                    profiles=dict(d.get("profiles", {})),
                    rules=tuple(d.get("rules", [])),
                    observable=bool(d.get("observable", True)),
                    kind=kind,
                    fixed=dict(d.get("fixed", {})),
                )
        reasons = {
            r["reason"]: Reason(r["reason"], r["rule"], r.get("when", ""))
            for r in data.get("reasons", [])
        }
    except (KeyError, TypeError) as exc:
        raise CatalogueError(f"malformed catalogue: missing or wrong field {exc}") from exc
    return Catalogue(
        version=int(data.get("version", 1)),
        sections=sections,
        rules=rules,
        disputes=disputes,
        reasons=reasons,
        _section_order={s.prefix: i for i, s in enumerate(sections)},
    )


def _rule(entry: Any) -> Rule:
    """One ``rules`` entry; ``profiles`` is optional (default: argentine only)."""
    profiles = entry.get("profiles", list(DEFAULT_RULE_PROFILES))
    if (
        not isinstance(profiles, list)
        or not profiles
        or not all(isinstance(p, str) and p for p in profiles)
    ):
        raise CatalogueError(
            f"malformed catalogue: rule {entry['id']}: profiles must be a non-empty list of "
            f"profile names, not {profiles!r}"
        )
    return Rule(
        entry["id"],
        entry["section"],
        entry.get("summary", ""),
        entry.get("source", ""),
        tuple(profiles),
    )


def load_catalogue(path: Path | str | None = None) -> Catalogue:
    """Load the catalogue from ``path`` (default: the packaged ``data/catalogue.json``).

    :raises CatalogueError: when the file is missing, not JSON or malformed.
    """
    target = Path(path) if path is not None else DEFAULT_CATALOGUE
    try:
        text = target.read_text(encoding="utf-8")
    except OSError as exc:
        raise CatalogueError(f"cannot read rule catalogue {target}: {exc.strerror}") from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CatalogueError(f"rule catalogue {target} is not JSON: {exc}") from exc
    return _parse(data)
