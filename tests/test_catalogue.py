"""The rule catalogue agrees with itself: docs/rules.md, catalogue.json and docs/reasons.md.

The three files are written by hand (or regenerated) separately, so these tests parse the
markdown tables with plain regular expressions and compare them with the JSON field by field.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from tests.paths import ROOT

RULES_MD = ROOT / "docs" / "rules.md"
REASONS_MD = ROOT / "docs" / "reasons.md"
CATALOGUE_JSON = ROOT / "conformance" / "data" / "catalogue.json"

SECTION_PREFIXES = (
    "CARDS",
    "PLAYERS",
    "GAME",
    "MELD-TRIO",
    "MELD-RUN",
    "CONTRACT",
    "DEAL",
    "TURN",
    "LAYOFF",
    "JOKER",
    "STOCK",
    "SCORE",
    "END",
    "EXAMPLE",
)
RULE_ID_RE = re.compile(r"^(" + "|".join(SECTION_PREFIXES) + r")-([1-9][0-9]*)$")
# A Chilean rule (docs/rules.md, "Chilean profile"): numbered after the 000 rule it replaces.
CHILE_ID_RE = re.compile(r"^CHILE-[A-Z][A-Z0-9]*-[0-9]+$")
# A Pagat rule (docs/rules.md, "Pagat profile"): numbered as the 000 rule it replaces.
PAGAT_ID_RE = re.compile(r"^PAGAT-[A-Z][A-Z0-9]*-[0-9]+$")
# A Perla rule (docs/rules.md, "Perla profile"), numbered the same way.
PERLA_ID_RE = re.compile(r"^PERLA-[A-Z][A-Z0-9]*-[0-9]+$")
# A rule of one later profile only (CHILE-, PAGAT-, PERLA-).
PROFILE_ID_RE = re.compile(r"^(?:CHILE|PAGAT|PERLA)-[A-Z][A-Z0-9]*-[0-9]+$")
PROFILES = ("argentine", "chilean", "pagat", "perla")
# The Chilean points of rules-reading-profiles.md (57..73 belong to seeds 002 and 003), and
# DISPUTE-78, the Chilean house game's pack.
CHILEAN_POINTS = [*range(39, 57), *range(74, 78), 78]
# The Pagat points (seed 002's own), and the shared silences the pagat profile also rules on.
PAGAT_POINTS = [*range(57, 61), 79]
PAGAT_SHARED_POINTS = [47, 53, 54, 74, 75, 76]
# The Perla points (seed 003), after the Pagat ones in the catalogue; perla also rules on the
# shared points below.
PERLA_POINTS = list(range(61, 74))
SHARED_POINTS = [47, 49, 50, *range(74, 78)]
DISPUTE_ID_RE = re.compile(r"^DISPUTE-[0-9]{2}$")
OPTION_KEY_RE = re.compile(r"^[a-z][a-z0-9_]*$")
REASON_RE = re.compile(r"^[a-z][a-z_]*[a-z]$")
# A rule row in rules.md: | ID | rule text | source |
RULE_ROW_RE = re.compile(
    r"^\| ([A-Z][A-Z0-9-]*-[0-9]+) \| (.+) \| (000 §[^|]+|001 L[^|]+|002 L[^|]+|003 L[^|]+) \|$"
)
DISPUTE_HEADING_RE = re.compile(r"^### ((?:DISPUTE|VARIANT)-[0-9]+) — (.+)$")
OPTION_ROW_RE = re.compile(r"^\| `([^`]+)` \| (.+) \| (.+) \|$")
ARGENTINE_RE = re.compile(r"^- \*\*Argentine profile:\*\* `([^`]+)`$")
CHILEAN_RE = re.compile(r"^- \*\*Chilean profile:\*\* `([^`]+)` — .+$")
PAGAT_RE = re.compile(r"^- \*\*Pagat profile:\*\* `([^`]+)` — .+$")
PERLA_RE = re.compile(r"^- \*\*Perla profile:\*\* `([^`]+)` — .+$")
ALSO_RE = re.compile(r"^\*\*Also in (chilean|pagat|perla):\*\* (.+)\.$")
QUESTION_RE = re.compile(r"^\*\*Question\.\*\* (.+)$")
DISPUTE_RULES_RE = re.compile(r"^- \*\*Rules:\*\* (.+)$")
OBSERVABLE_RE = re.compile(r"^- \*\*Observable:\*\* (yes|no)\b")
REASON_ROW_RE = re.compile(r"^\| `([a-z_]+)` \| ([A-Z][A-Z0-9-]*-[0-9]+) \| (.+) \|$")
BY_RULE_ROW_RE = re.compile(r"^\| ([A-Z][A-Z0-9-]*-[0-9]+) \| ((?:`[a-z_]+`(?:, )?)+) \|$")


def _catalogue() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(CATALOGUE_JSON.read_text(encoding="utf-8"))
    return data


def _md_lines() -> list[str]:
    return RULES_MD.read_text(encoding="utf-8").splitlines()


def _md_rules() -> list[tuple[str, str, str]]:
    """Every (id, text, source) row of the rule tables in rules.md, in file order."""
    rows = []
    for line in _md_lines():
        match = RULE_ROW_RE.match(line)
        if match:
            rows.append((match[1], match[2], match[3]))
    return rows


def _md_disputes() -> dict[str, dict[str, Any]]:
    """Each DISPUTE entry of rules.md: title, question, options, argentine, rules, observable."""
    disputes: dict[str, dict[str, Any]] = {}
    current: dict[str, Any] | None = None
    for line in _md_lines():
        heading = DISPUTE_HEADING_RE.match(line)
        if heading:
            assert heading[1] not in disputes, f"{heading[1]} appears twice in rules.md"
            current = {
                "title": heading[2],
                "options": {},
                "argentine": None,
                "chilean": None,
                "pagat": None,
                "perla": None,
            }
            disputes[heading[1]] = current
            continue
        if line.startswith("#"):
            # Any other heading ends the dispute entry, so later tables are not misread.
            current = None
            continue
        if current is None:
            continue
        if match := QUESTION_RE.match(line):
            current["question"] = match[1]
        elif (match := OPTION_ROW_RE.match(line)) and match[1] != "option":
            assert match[1] not in current["options"], f"option {match[1]} twice"
            current["options"][match[1]] = match[2]
        elif match := ARGENTINE_RE.match(line):
            current["argentine"] = match[1]
        elif match := CHILEAN_RE.match(line):
            current["chilean"] = match[1]
        elif match := PAGAT_RE.match(line):
            current["pagat"] = match[1]
        elif match := PERLA_RE.match(line):
            current["perla"] = match[1]
        elif match := DISPUTE_RULES_RE.match(line):
            current["rules"] = [part.strip() for part in match[1].split(",")]
        elif match := OBSERVABLE_RE.match(line):
            current["observable"] = match[1] == "yes"
    return disputes


def _reasons_md() -> list[tuple[str, str, str]]:
    rows = []
    for line in REASONS_MD.read_text(encoding="utf-8").splitlines():
        match = REASON_ROW_RE.match(line)
        if match:
            rows.append((match[1], match[2], match[3].replace("`", "")))
    return rows


def _md_reasons_by_rule() -> dict[str, list[str]]:
    lines = _md_lines()
    start = lines.index("## Rejection reasons by rule")
    table: dict[str, list[str]] = {}
    for line in lines[start:]:
        match = BY_RULE_ROW_RE.match(line)
        if match:
            table[match[1]] = re.findall(r"`([a-z_]+)`", match[2])
    return table


# --- shape of catalogue.json -------------------------------------------------------------


def test_catalogue_json_has_exactly_the_agreed_shape() -> None:
    data = _catalogue()
    assert set(data) == {"version", "sections", "rules", "disputes", "variants", "reasons"}
    assert data["version"] == 1
    assert all(set(s) == {"prefix", "title"} for s in data["sections"])
    # ``profiles`` is optional: a rule without it is Argentine only
    # (conformance/knowledge/catalogue.py).
    base = {"id", "section", "summary", "source"}
    assert all(set(r) in (base, base | {"profiles"}) for r in data["rules"])
    dispute_keys = {"id", "title", "question", "options", "profiles", "rules", "observable"}
    # ``fixed`` is optional: profile -> why the point has no option of its own there.
    shapes = (dispute_keys, dispute_keys | {"fixed"})
    assert all(set(d) in shapes for d in data["disputes"])
    assert all(set(v) in shapes for v in data["variants"])
    for point in data["disputes"] + data["variants"]:
        assert set(point.get("fixed", {})) <= set(point["profiles"]), point["id"]
    assert all(set(r) == {"reason", "rule", "when"} for r in data["reasons"])


def test_catalogue_json_is_two_space_indented_utf8() -> None:
    text = CATALOGUE_JSON.read_text(encoding="utf-8")
    assert text == json.dumps(json.loads(text), indent=2, ensure_ascii=False) + "\n"


def test_sections_are_the_fourteen_prefixes_in_order() -> None:
    assert [s["prefix"] for s in _catalogue()["sections"]] == list(SECTION_PREFIXES)
    assert all(s["title"].strip() for s in _catalogue()["sections"])


# --- rules ------------------------------------------------------------------------------


def test_rule_ids_are_well_formed_and_unique() -> None:
    ids = [r["id"] for r in _catalogue()["rules"]]
    assert len(ids) == len(set(ids))
    for rule_id in ids:
        assert RULE_ID_RE.match(rule_id) or PROFILE_ID_RE.match(rule_id), rule_id


def test_each_rule_sits_in_the_section_of_its_id_prefix() -> None:
    for rule in _catalogue()["rules"]:
        if PROFILE_ID_RE.match(rule["id"]):
            # A later profile's rule sits in the section of the topic it settles
            # (CHILE-WILD-2: JOKER).
            assert rule["section"] in SECTION_PREFIXES, rule["id"]
            continue
        match = RULE_ID_RE.match(rule["id"])
        assert match is not None
        # MELD-TRIO-1 must be MELD-TRIO, not a looser prefix.
        assert rule["section"] == match[1], rule["id"]


def test_rule_numbers_within_a_section_run_from_one_without_gaps() -> None:
    numbers: dict[str, list[int]] = {}
    for rule in _catalogue()["rules"]:
        match = RULE_ID_RE.match(rule["id"])  # CHILE- numbers follow the rule they replace
        if match is None:
            continue
        assert match is not None
        numbers.setdefault(match[1], []).append(int(match[2]))
    assert set(numbers) == set(SECTION_PREFIXES)
    for prefix, found in numbers.items():
        assert found == list(range(1, len(found) + 1)), prefix


def test_rules_md_and_json_list_the_same_rules_in_the_same_order() -> None:
    md = _md_rules()
    json_rules = [(r["id"], r["summary"], r["source"]) for r in _catalogue()["rules"]]
    assert [row[0] for row in md] == [row[0] for row in json_rules]
    assert md == json_rules


def test_the_reading_ids_and_turn_10_are_all_present() -> None:
    # The counts per section come from rules-reading.md (66 rules) plus the new TURN-10.
    expected = {
        "CARDS": 3,
        "PLAYERS": 1,
        "GAME": 2,
        "MELD-TRIO": 4,
        "MELD-RUN": 6,
        "CONTRACT": 11,
        "DEAL": 6,
        "TURN": 10,
        "LAYOFF": 4,
        "JOKER": 7,
        "STOCK": 2,
        "SCORE": 5,
        "END": 5,
        "EXAMPLE": 1,
    }
    counts: dict[str, int] = {}
    for rule in _catalogue()["rules"]:
        if not PROFILE_ID_RE.match(rule["id"]):
            counts[rule["section"]] = counts.get(rule["section"], 0) + 1
    assert counts == expected
    assert sum(expected.values()) == 67


def test_turn_10_says_cards_come_from_the_players_own_hand() -> None:
    rules = {r["id"]: r for r in _catalogue()["rules"]}
    summary = rules["TURN-10"]["summary"].lower()
    assert "own hand" in summary
    assert "copies" in summary


def test_every_source_cites_seed_000_sections() -> None:
    for rule in _catalogue()["rules"]:
        if PROFILE_ID_RE.match(rule["id"]):
            continue
        assert re.match(r"^000 §(0[1-9]|10)(, §(0[1-9]|10))*( \(.+\))?$", rule["source"]), rule


def test_every_chilean_rule_cites_seed_001_lines_and_holds_in_chilean_only() -> None:
    chilean = [r for r in _catalogue()["rules"] if CHILE_ID_RE.match(r["id"])]
    # The CHILE- rules of rules-reading-profiles.md §1.2.
    assert len(chilean) == 22
    # Seed 001 (001_e455f465dd4cb1f8.txt) has 94 lines; the seeds are not in the repository.
    lines = 94
    for rule in chilean:
        assert re.match(r"^001 L[0-9]+(, L[0-9]+)*( \(derived\))?$", rule["source"]), rule
        assert all(1 <= int(n) <= lines for n in re.findall(r"L([0-9]+)", rule["source"]))
        assert rule["profiles"] == ["chilean"], rule["id"]


def test_every_perla_rule_cites_seed_003_lines_and_holds_in_perla_only() -> None:
    perla = [r for r in _catalogue()["rules"] if PERLA_ID_RE.match(r["id"])]
    # The PERLA- rules of rules-reading-profiles.md §3.2 (docs/rules.md says where it differs).
    assert len(perla) == 30
    # Seed 003 (003_41c439b45037b1f5.txt) has 92 lines; the seeds are not in the repository.
    lines = 92
    for rule in perla:
        assert re.match(r"^003 L[0-9]+(, L[0-9]+)*( \(derived\))?$", rule["source"]), rule
        assert all(1 <= int(n) <= lines for n in re.findall(r"L([0-9]+)", rule["source"]))
        assert rule["profiles"] == ["perla"], rule["id"]


def test_every_pagat_rule_cites_seed_002_lines_and_holds_in_pagat_only() -> None:
    pagat = [r for r in _catalogue()["rules"] if PAGAT_ID_RE.match(r["id"])]
    # The PAGAT- rules of rules-reading-profiles.md §2.2.
    assert [r["id"] for r in pagat] == ["PAGAT-PLAYERS-1", "PAGAT-RUN-4"]
    # Seed 002 (002_f551f46bead22b82.txt) has 33 lines; the seeds are not in the repository.
    for rule in pagat:
        assert re.match(r"^002 L[0-9]+(, L[0-9]+)*( \(derived\))?$", rule["source"]), rule
        assert all(1 <= int(n) <= 33 for n in re.findall(r"L([0-9]+)", rule["source"]))
        assert rule["profiles"] == ["pagat"], rule["id"]


def test_every_rule_names_known_profiles_and_rules_md_lists_the_shared_ones() -> None:
    rules = _catalogue()["rules"]
    for rule in rules:
        assert set(rule.get("profiles", ["argentine"])) <= set(PROFILES), rule["id"]
    lines = {m[1]: m[2] for line in _md_lines() if (m := ALSO_RE.match(line))}
    for profile, own in (("chilean", CHILE_ID_RE), ("pagat", PAGAT_ID_RE), ("perla", PERLA_ID_RE)):
        shared = [
            r["id"] for r in rules if profile in r.get("profiles", []) and not own.match(r["id"])
        ]
        assert all(r.get("profiles", [])[0] == "argentine" for r in rules if r["id"] in shared)
        assert lines[profile] == ", ".join(shared), profile


def test_ids_mentioned_in_rule_texts_exist() -> None:
    data = _catalogue()
    rule_ids = {r["id"] for r in data["rules"]}
    dispute_ids = {d["id"] for d in data["disputes"]}
    pattern = re.compile(
        r"\b(?:DISPUTE|CHILE-[A-Z][A-Z0-9]*|PAGAT-[A-Z][A-Z0-9]*|PERLA-[A-Z][A-Z0-9]*|"
        + "|".join(SECTION_PREFIXES)
        + r")-[0-9]+\b"
    )
    for rule in data["rules"]:
        for ref in pattern.findall(rule["summary"]):
            assert ref in rule_ids | dispute_ids, f"{rule['id']} mentions unknown {ref}"


# --- disputes ---------------------------------------------------------------------------


def test_dispute_ids_are_two_digit_unique_and_consecutive() -> None:
    ids = [d["id"] for d in _catalogue()["disputes"]]
    for dispute_id in ids:
        assert DISPUTE_ID_RE.match(dispute_id), dispute_id
    # 01..38 are seed 000's; the later seeds' points keep the numbers of
    # rules-reading-profiles.md.
    # In docs/rules.md's order: the Chilean points (DISPUTE-78, a house point, last of them),
    # the Pagat ones, the silences every later seed shares, then the Perla points.
    numbers = [*range(1, 57), 78, *PAGAT_POINTS, *range(74, 78), *PERLA_POINTS]
    assert ids == [f"DISPUTE-{n:02d}" for n in numbers]


def test_every_dispute_has_two_or_more_well_formed_options() -> None:
    for dispute in _catalogue()["disputes"]:
        options = dispute["options"]
        assert len(options) >= 2, dispute["id"]
        for key, meaning in options.items():
            assert OPTION_KEY_RE.match(key), (dispute["id"], key)
            assert meaning.strip(), (dispute["id"], key)


def test_every_argentine_ruling_is_one_of_the_disputes_options() -> None:
    for dispute in _catalogue()["disputes"]:
        number = int(dispute["id"][8:])
        # Every profile rules on 000's points; each later profile on its own points and the
        # shared silences it leaves to one reading.
        want = set(PROFILES)
        if number > 38:
            want = set()
            if number in CHILEAN_POINTS:
                want.add("chilean")
            if number in PAGAT_POINTS or number in PAGAT_SHARED_POINTS:
                want.add("pagat")
            if number in PERLA_POINTS or number in SHARED_POINTS:
                want.add("perla")
        assert set(dispute["profiles"]) == want, dispute["id"]
        for option in dispute["profiles"].values():
            assert option in dispute["options"], dispute["id"]


def test_lettered_options_of_the_reading_keep_their_letters() -> None:
    disputes = {d["id"]: d for d in _catalogue()["disputes"]}
    # The reading letters these options and rules (b), (c), (a), (b) respectively.
    assert set(disputes["DISPUTE-01"]["options"]) == {"a", "b"}
    assert disputes["DISPUTE-01"]["profiles"]["argentine"] == "b"
    assert set(disputes["DISPUTE-02"]["options"]) == {"a", "b", "c"}
    assert disputes["DISPUTE-02"]["profiles"]["argentine"] == "c"
    assert set(disputes["DISPUTE-11"]["options"]) == {"a", "b", "c"}
    assert disputes["DISPUTE-11"]["profiles"]["argentine"] == "a"
    assert set(disputes["DISPUTE-18"]["options"]) == {"a", "b", "c"}
    assert disputes["DISPUTE-18"]["profiles"]["argentine"] == "b"
    assert disputes["DISPUTE-19"]["options"].keys() == {"allowed", "forbidden"}
    assert disputes["DISPUTE-19"]["profiles"]["argentine"] == "allowed"


def test_every_dispute_cites_existing_rules() -> None:
    data = _catalogue()
    rule_ids = {r["id"] for r in data["rules"]}
    for dispute in data["disputes"]:
        assert dispute["rules"], dispute["id"]
        for rule_id in dispute["rules"]:
            assert rule_id in rule_ids, (dispute["id"], rule_id)
        assert isinstance(dispute["observable"], bool)


def test_rules_md_and_json_agree_on_every_dispute() -> None:
    md = _md_disputes()
    data = _catalogue()
    json_disputes = {d["id"]: d for d in [*data["disputes"], *data["variants"]]}
    fix = "conformance/data/catalogue.json is the source: make docs/rules.md say the same"
    assert list(md) == list(json_disputes), f"points differ or are out of order; {fix}"
    for dispute_id, entry in md.items():
        expected = json_disputes[dispute_id]
        where = f"{dispute_id}: {fix}"
        assert entry["title"] == expected["title"], where
        assert entry.get("question") == expected["question"], where
        assert entry["options"] == expected["options"], where
        assert entry["argentine"] == expected["profiles"].get("argentine"), where
        assert entry["chilean"] == expected["profiles"].get("chilean"), where
        assert entry["pagat"] == expected["profiles"].get("pagat"), where
        assert entry["perla"] == expected["profiles"].get("perla"), where
        assert entry.get("rules") == expected["rules"], where
        assert entry.get("observable") == expected["observable"], where


def test_variant_ids_are_two_digit_and_consecutive_with_dispute_shaped_entries() -> None:
    variants = _catalogue()["variants"]
    ids = [v["id"] for v in variants]
    assert ids == [f"VARIANT-{n:02d}" for n in range(1, len(ids) + 1)]
    rule_ids = {r["id"] for r in _catalogue()["rules"]}
    for variant in variants:
        assert len(variant["options"]) >= 2, variant["id"]
        assert all(OPTION_KEY_RE.match(key) for key in variant["options"]), variant["id"]
        assert variant["profiles"]["argentine"] in variant["options"], variant["id"]
        assert variant["profiles"]["chilean"] in variant["options"], variant["id"]
        assert variant["profiles"]["pagat"] in variant["options"], variant["id"]
        assert variant["profiles"]["perla"] in variant["options"], variant["id"]
        assert variant["rules"] and set(variant["rules"]) <= rule_ids, variant["id"]


# --- reasons ----------------------------------------------------------------------------


def test_reasons_in_json_match_docs_reasons_md_exactly() -> None:
    md = _reasons_md()
    assert md, "no reason rows parsed from docs/reasons.md"
    json_rows = [(r["reason"], r["rule"], r["when"]) for r in _catalogue()["reasons"]]
    assert json_rows == md


def test_reason_names_are_unique_and_well_formed() -> None:
    names = [r["reason"] for r in _catalogue()["reasons"]]
    assert len(names) == len(set(names))
    for name in names:
        assert REASON_RE.match(name), name


def test_every_reason_cites_a_rule_that_exists() -> None:
    data = _catalogue()
    rule_ids = {r["id"] for r in data["rules"]}
    for reason in data["reasons"]:
        assert reason["rule"] in rule_ids, reason


def test_card_not_in_hand_cites_turn_10() -> None:
    reasons = {r["reason"]: r["rule"] for r in _catalogue()["reasons"]}
    assert reasons["card_not_in_hand"] == "TURN-10"


def test_reasons_by_rule_table_in_rules_md_matches_reasons_md() -> None:
    expected: dict[str, list[str]] = {}
    for reason, rule, _when in _reasons_md():
        expected.setdefault(rule, []).append(reason)
    assert _md_reasons_by_rule() == expected


# --- the parsers themselves -------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "parsed"),
    [
        ("| TURN-10 | Cards come from hand. | 000 §05 (project rule) |", True),
        ("| ID | Rule | Source |", False),
        ("|---|---|---|", False),
    ],
)
def test_rule_row_pattern_accepts_rows_and_skips_headers(line: str, parsed: bool) -> None:
    assert (RULE_ROW_RE.match(line) is not None) is parsed


# --- docs/profiles.md -------------------------------------------------------------------------

PROFILES_MD = ROOT / "docs" / "profiles.md"


def test_profiles_md_sets_every_rule_and_point_side_by_side() -> None:
    lines = PROFILES_MD.read_text(encoding="utf-8").splitlines()
    rows = [line.split(" | ") for line in lines if line.startswith("| ") and " | " in line]
    by_id = {row[0][2:]: row for row in rows}
    data = _catalogue()
    for rule in data["rules"]:
        row = by_id.get(rule["id"])
        assert row is not None, f"docs/profiles.md lacks {rule['id']}"
        profiles = rule.get("profiles", ["argentine"])
        argentine, chilean, pagat = row[1], row[2], row[3]
        perla = row[4].removesuffix(" |")
        # The rule text sits in the column of each profile it holds in, and only there.
        assert (rule["summary"] == argentine) is ("argentine" in profiles), rule["id"]
        for profile, cell in (("chilean", chilean), ("pagat", pagat), ("perla", perla)):
            if "argentine" in profiles and profile not in profiles:
                assert cell.startswith("does not hold"), (rule["id"], profile)
            if "argentine" in profiles and profile in profiles:
                assert cell.startswith("holds"), (rule["id"], profile)
            if profiles == [profile]:
                assert cell == rule["summary"], rule["id"]
    for point in [*data["disputes"], *data["variants"]]:
        row = by_id[point["id"]]
        assert row[1] == point["title"], point["id"]  # the catalogue's title, word for word
        for column, profile in ((2, "argentine"), (3, "chilean"), (4, "pagat"), (5, "perla")):
            option = point["profiles"].get(profile)
            cell = row[column]
            assert cell.startswith(f"`{option}`") if option else cell.startswith("—"), point["id"]
