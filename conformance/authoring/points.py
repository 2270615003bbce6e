"""The catalogue is the only hand-edited list of points: what follows from it, and a new point.

``conformance/data/catalogue.json`` lists every disputed point and house variant: its options,
the option each profile plays and the profiles where another point decides it (``fixed``).
Two files of a checkout repeat that list for readers who cannot read the JSON, and are
written from it here, never by hand:

- ``reference/profiles/catalogued.py``: the options, rulings and fixed points the reference
  plays (the reference may not import the harness, so it gets a generated module);
- the points table of ``docs/profiles.md``.

:func:`sync` rewrites both (``carioca-conformance points sync``; ``--check`` only says which
are stale, as tests/test_points_single_source.py does). :func:`add_point` scaffolds a new
point (``carioca-conformance points new``): the next number, the catalogue entry, the
skeleton of its entry in ``docs/rules.md`` for its prose, the two files above, and where the
reference reads the points of the same rules, the place for its branch.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance.errors import HarnessError

CATALOGUE = Path("conformance", "data", "catalogue.json")
REFERENCE_MODULE = Path("reference", "profiles", "catalogued.py")
PROFILES_MD = Path("docs", "profiles.md")
RULES_MD = Path("docs", "rules.md")

#: The profiles, in the order of docs/profiles.md's columns and of a point's profile lines.
PROFILE_ORDER = ("argentine", "chilean", "pagat", "perla")

_POINT_ID = re.compile(r"^DISPUTE-([0-9]{2,})$")
_OPTION_KEY = re.compile(r"^[a-z][a-z0-9_]*$")
_TABLE_HEADER = "| point | title | argentine | chilean | pagat | perla |"
#: The line of docs/rules.md a new point's entry goes before: the last point's entry ends there.
_RULES_MD_AFTER_POINTS = "# House variants"


#: The part of docs/rules.md that new points go in, after the seeds' points.
LATER_POINTS_HEADING = "## Points added later"
LATER_POINTS_TEXT = (
    "Points raised after the seeds were read, each numbered after the highest point before it "
    "(docs/adding-scenarios.md)."
)


class PointError(HarnessError):
    """A new point that cannot be added, or a checkout whose files cannot be written."""


def read_catalogue(root: Path) -> dict[str, Any]:
    """The raw catalogue of the checkout at ``root`` (order kept, as the generators need)."""
    path = root / CATALOGUE
    try:
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise PointError(f"cannot read {path}: {exc.strerror} (is {root} a checkout?)") from exc
    except json.JSONDecodeError as exc:
        raise PointError(f"{path} is not JSON: {exc}") from exc
    return data


def catalogue_text(data: Mapping[str, Any]) -> str:
    """The catalogue as the file keeps it: two-space indented UTF-8 (tests/test_catalogue.py)."""
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def points_of(data: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every point an engine rules on, in catalogue order: the disputes, then the variants."""
    return [*data["disputes"], *data["variants"]]


def option_order(point: Mapping[str, Any]) -> tuple[str, ...]:
    """A point's options, the option of the first profile that plays it first (argentine's,
    else chilean's, pagat's, perla's): the reference's order, whose first option is the one
    a profile ruling on the point takes by default."""
    first = next((point["profiles"][p] for p in PROFILE_ORDER if p in point["profiles"]), None)
    rest = [o for o in point["options"] if o != first]
    return tuple([first, *rest] if first is not None else rest)


def next_point_id(data: Mapping[str, Any]) -> str:
    """The number a new disputed point takes: one after the highest, never a gap's (ids are
    never reused), always at least two digits."""
    numbers = [int(m[1]) for d in data["disputes"] if (m := _POINT_ID.match(d["id"]))]
    return f"DISPUTE-{max(numbers, default=0) + 1:02d}"


# --- the generated files ------------------------------------------------------------------


def reference_module(data: Mapping[str, Any]) -> str:
    """The text of ``reference/profiles/catalogued.py`` for the catalogue ``data``."""
    points = points_of(data)
    lines = [
        '"""The disputed points and house variants as the reference plays them: each point\'s',
        "options (the profile's option first), each profile's ruling on every point it rules",
        "on, and the points a profile plays only one way (another point decides them there).",
        "",
        "Generated from conformance/data/catalogue.json by ``carioca-conformance points sync``:",
        "do not edit (tests/test_points_single_source.py fails while it is stale).",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "POINT_OPTIONS: dict[str, tuple[str, ...]] = {",
    ]
    for point in points:
        options = ", ".join(json.dumps(o) for o in option_order(point))
        lines.append(f"    {json.dumps(point['id'])}: ({options}),")
    lines += ["}", "", "PROFILE_RULINGS: dict[str, dict[str, str]] = {"]
    for profile in _profiles(points):
        lines.append(f"    {json.dumps(profile)}: {{")
        for point in points:
            if profile in point["profiles"]:
                option = point["profiles"][profile]
                lines.append(f"        {json.dumps(point['id'])}: {json.dumps(option)},")
        lines.append("    },")
    lines += ["}", "", "PROFILE_FIXED: dict[str, dict[str, str]] = {"]
    for profile in _profiles(points):
        fixed = [(p["id"], p["fixed"][profile]) for p in points if profile in p.get("fixed", {})]
        if not fixed:
            lines.append(f"    {json.dumps(profile)}: {{}},")
            continue
        lines.append(f"    {json.dumps(profile)}: {{")
        lines += [f"        {json.dumps(pid)}: {json.dumps(why)}," for pid, why in fixed]
        lines.append("    },")
    lines += ["}", ""]
    return "\n".join(lines)


def _profiles(points: Sequence[Mapping[str, Any]]) -> list[str]:
    named = {p for point in points for p in point["profiles"]}
    return [p for p in PROFILE_ORDER if p in named] + sorted(named - set(PROFILE_ORDER))


def profiles_table(data: Mapping[str, Any]) -> list[str]:
    """The rows of docs/profiles.md's points table: each profile's option, with what decides
    it where another point does (``set by DISPUTE-50``), ``—`` where it does not rule."""
    rows = []
    for point in points_of(data):
        cells = []
        for profile in PROFILE_ORDER:
            option = point["profiles"].get(profile)
            fixed = point.get("fixed", {}).get(profile)
            cell = "—" if option is None else f"`{option}`" + (f" ({fixed})" if fixed else "")
            cells.append(cell)
        rows.append(f"| {point['id']} | {point['title']} | " + " | ".join(cells) + " |")
    return rows


def profiles_md(text: str, data: Mapping[str, Any]) -> str:
    """docs/profiles.md's ``text`` with its points table rewritten from ``data``.

    :raises PointError: when the page has no points table (its header line).
    """
    lines = text.splitlines()
    try:
        start = lines.index(_TABLE_HEADER) + 2  # the header and its |---| line
    except ValueError:
        raise PointError(f"{PROFILES_MD} has no points table ({_TABLE_HEADER})") from None
    end = start
    while end < len(lines) and lines[end].startswith("| "):
        end += 1
    return "\n".join([*lines[:start], *profiles_table(data), *lines[end:]]) + "\n"


#: Each generated file of a checkout, with how its text follows from the catalogue (and,
#: for a page with prose around the generated part, from its current text).
GENERATED: dict[Path, Any] = {
    REFERENCE_MODULE: lambda _text, data: reference_module(data),
    PROFILES_MD: profiles_md,
}


def stale_files(root: Path) -> list[Path]:
    """The generated files of the checkout at ``root`` that its catalogue does not give."""
    data = read_catalogue(root)
    stale = []
    for relative, generate in GENERATED.items():
        path = root / relative
        current = path.read_text(encoding="utf-8") if path.exists() else ""
        if generate(current, data) != current:
            stale.append(relative)
    return stale


def sync(root: Path) -> list[Path]:
    """Rewrite the generated files of the checkout at ``root`` from its catalogue; the ones
    that changed."""
    data = read_catalogue(root)
    changed = []
    for relative, generate in GENERATED.items():
        path = root / relative
        current = path.read_text(encoding="utf-8") if path.exists() else ""
        wanted = generate(current, data)
        if wanted != current:
            path.write_text(wanted, encoding="utf-8")
            changed.append(relative)
    return changed


# --- a new point ------------------------------------------------------------------------------


@dataclass(frozen=True)
class NewPoint:
    """What an author says about a new disputed point; the rest is the catalogue's."""

    title: str
    question: str
    options: Mapping[str, str]
    """Option key -> what it means, the one the profiles play first."""
    rules: tuple[str, ...]
    """The rule IDs it bears on (docs/rules.md)."""
    profiles: Mapping[str, str] = field(default_factory=dict)
    """Profile -> its option; empty: every profile plays the first option. A profile that
    builds on the argentine one (all do) plays argentine's option unless given."""
    observable: bool = True


@dataclass(frozen=True)
class AddedPoint:
    """A point :func:`add_point` added: its id, the files it wrote, and where the reference
    reads points of the same rules (``file:line: text``), the place for its branch."""

    id: str
    written: tuple[Path, ...]
    branch_hints: tuple[str, ...]


def catalogue_entry(point_id: str, new: NewPoint, data: Mapping[str, Any]) -> dict[str, Any]:
    """The catalogue entry of ``new`` as ``point_id``, checked against ``data``.

    :raises PointError: naming each problem (an option key, an unknown rule or profile).
    """
    problems = []
    if len(new.options) < 2:
        problems.append("a point needs at least two options")
    problems += [
        f"option key {key!r} is not lower case letters, digits and _"
        for key in new.options
        if not _OPTION_KEY.match(key)
    ]
    known_rules = {r["id"] for r in data["rules"]}
    problems += [f"unknown rule {r}" for r in new.rules if r not in known_rules]
    if not new.rules:
        problems.append("a point bears on at least one rule")
    first = next(iter(new.options), None)
    profiles = dict.fromkeys(PROFILE_ORDER, new.profiles.get("argentine", first))
    profiles.update(new.profiles)
    for profile, option in profiles.items():
        if profile not in PROFILE_ORDER:
            problems.append(f"unknown profile {profile} (one of {', '.join(PROFILE_ORDER)})")
        elif option not in new.options:
            problems.append(f"{profile} plays {option!r}, not one of the options")
    if not new.title.strip() or not new.question.strip():
        problems.append("a point has a title and a question")
    if problems:
        raise PointError("; ".join(problems))
    return {
        "id": point_id,
        "title": new.title,
        "question": new.question,
        "options": dict(new.options),
        "profiles": {p: profiles[p] for p in PROFILE_ORDER if p in profiles},
        "rules": list(new.rules),
        "observable": new.observable,
    }


def rules_md_entry(entry: Mapping[str, Any]) -> str:
    """The skeleton of a point's entry in docs/rules.md: everything the catalogue says, in
    the words tests/test_catalogue.py compares, and ``TODO`` where the prose goes."""
    lines = [
        f"### {entry['id']} — {entry['title']}",
        "",
        f"**Question.** {entry['question']}",
        "",
        "| option | meaning | held by |",
        "|---|---|---|",
        *(f"| `{key}` | {says} | TODO: who holds it |" for key, says in entry["options"].items()),
        "",
    ]
    for profile in PROFILE_ORDER:
        option = entry["profiles"].get(profile)
        if option is None:
            continue
        name = profile.capitalize()
        lines.append(
            f"- **{name} profile:** `{option}`"
            if profile == "argentine"
            else f"- **{name} profile:** `{option}` — TODO: why (as argentine, or its text)."
        )
    observable = "yes: TODO: the request that shows it" if entry["observable"] else "no: TODO"
    lines += [
        f"- **Rules:** {', '.join(entry['rules'])}",
        f"- **Observable:** {observable}",
        "- **Seeds:** TODO: what each text says.",
        "- **Rationale:** TODO: why the argentine profile takes its option.",
        "",
    ]
    return "\n".join(lines)


def insert_rules_md_entry(text: str, entry_text: str) -> str:
    """docs/rules.md's ``text`` with a new point's entry after the last point's, before the
    house variants (catalogue order: a new point is the last dispute), under the heading of
    the points added later (written with the first of them).

    :raises PointError: when the page has no house variants part to put it before.
    """
    lines = text.splitlines()
    try:
        at = lines.index(_RULES_MD_AFTER_POINTS)
    except ValueError:
        raise PointError(f"{RULES_MD} has no '{_RULES_MD_AFTER_POINTS}' line") from None
    heading = (
        [] if LATER_POINTS_HEADING in lines else [LATER_POINTS_HEADING, "", LATER_POINTS_TEXT, ""]
    )
    return "\n".join([*lines[:at], *heading, *entry_text.splitlines(), "", *lines[at:]]) + "\n"


def branch_hints(root: Path, data: Mapping[str, Any], rules: Sequence[str]) -> list[str]:
    """Where the reference reads the points that bear on ``rules`` (or, failing those, on
    their sections): the ``file:line`` places a new point's branch most likely goes beside."""
    wanted = set(rules)
    sections = {r["section"] for r in data["rules"] if r["id"] in wanted}
    section_of = {r["id"]: r["section"] for r in data["rules"]}
    near = [p["id"] for p in points_of(data) if wanted & set(p["rules"])]
    if not near:
        near = [p["id"] for p in points_of(data) if sections & {section_of[r] for r in p["rules"]}]
    found = []
    pattern = re.compile(r'"(' + "|".join(map(re.escape, near)) + r')"') if near else None
    for path in sorted((root / "reference").rglob("*.py")):
        if pattern is None or path.name == REFERENCE_MODULE.name:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if pattern.search(line) and "plays(" in line:
                found.append(f"{path.relative_to(root)}:{number}: {line.strip()}")
    return found


def add_point(root: Path, new: NewPoint) -> AddedPoint:
    """Add ``new`` to the checkout at ``root`` as the next disputed point: its catalogue
    entry (last of the disputes), its docs/rules.md skeleton, and the generated files.

    :raises PointError: for a point the catalogue cannot take (see :func:`catalogue_entry`).
    """
    data = read_catalogue(root)
    point_id = next_point_id(data)
    entry = catalogue_entry(point_id, new, data)
    rules_path = root / RULES_MD
    rules_text = insert_rules_md_entry(
        rules_path.read_text(encoding="utf-8"), rules_md_entry(entry)
    )
    data["disputes"].append(entry)
    (root / CATALOGUE).write_text(catalogue_text(data), encoding="utf-8")
    rules_path.write_text(rules_text, encoding="utf-8")
    written = [CATALOGUE, RULES_MD, *sync(root)]
    return AddedPoint(point_id, tuple(written), tuple(branch_hints(root, data, new.rules)))
