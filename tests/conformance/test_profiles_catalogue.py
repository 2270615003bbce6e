"""The catalogue's per-rule ``profiles`` field and ``coverage --profile``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.knowledge.catalogue import CatalogueError, load_catalogue
from tests.paths import ROOT

CATALOGUE = ROOT / "conformance" / "data" / "catalogue.json"
GOOD = Path(__file__).resolve().parent / "data" / "good"


def _argentine_only(data: dict) -> dict:  # type: ignore[type-arg]
    """The catalogue data without its Chilean entries, and no rule naming profiles."""
    data["rules"] = [r for r in data["rules"] if "argentine" in r.get("profiles", ["argentine"])]
    for rule in data["rules"]:
        rule.pop("profiles", None)
    data["disputes"] = [d for d in data["disputes"] if "argentine" in d["profiles"]]
    for point in [*data["disputes"], *data["variants"]]:
        point["profiles"] = {"argentine": point["profiles"]["argentine"]}
    return data


def _with_chilean_rule(tmp_path: Path) -> Path:
    """A copy of the Argentine catalogue with one rule shared by both profiles and one
    Chilean rule."""
    data = _argentine_only(json.loads(CATALOGUE.read_text(encoding="utf-8")))
    for rule in data["rules"]:
        if rule["id"] == "MELD-RUN-3":
            rule["profiles"] = ["argentine", "chilean"]
    data["rules"].append(
        {
            "id": "CHILE-WILD-1",
            "section": "CARDS",
            "summary": "Jokers and 2s are wild.",
            "source": "001 L5",
            "profiles": ["chilean"],
        }
    )
    data["disputes"][0]["profiles"]["chilean"] = data["disputes"][0]["profiles"]["argentine"]
    path = tmp_path / "catalogue.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_a_rule_without_profiles_is_argentine_only(tmp_path: Path) -> None:
    path = tmp_path / "catalogue.json"
    data = _argentine_only(json.loads(CATALOGUE.read_text(encoding="utf-8")))
    path.write_text(json.dumps(data), encoding="utf-8")
    catalogue = load_catalogue(path)
    assert catalogue.profiles == ("argentine",)
    assert all(rule.profiles == ("argentine",) for rule in catalogue.rules.values())
    assert catalogue.rules_for("argentine") == catalogue.rules
    assert catalogue.rules_for("chilean") == {}


def test_rules_and_points_per_profile(tmp_path: Path) -> None:
    catalogue = load_catalogue(_with_chilean_rule(tmp_path))
    assert catalogue.profiles == ("argentine", "chilean")
    assert set(catalogue.rules_for("chilean")) == {"MELD-RUN-3", "CHILE-WILD-1"}
    assert "CHILE-WILD-1" not in catalogue.rules_for("argentine")
    assert list(catalogue.disputes_for("chilean")) == ["DISPUTE-01"]
    assert len(catalogue.disputes_for("argentine")) == len(catalogue.disputes)


@pytest.mark.parametrize("bad", [[], "chilean", [""], [3]])
def test_malformed_rule_profiles_are_a_typed_error(tmp_path: Path, bad: object) -> None:
    data = json.loads(CATALOGUE.read_text(encoding="utf-8"))
    data["rules"][0]["profiles"] = bad
    path = tmp_path / "catalogue.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(CatalogueError, match=r"rule CARDS-1: profiles must be"):
        load_catalogue(path)


def test_coverage_counts_only_the_profiles_rules(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cat = str(_with_chilean_rule(tmp_path))
    out = tmp_path / "cov.json"
    # No case of the test corpus lists chilean: both of its rules are uncovered.
    assert (
        main(
            ["--catalogue", cat, "coverage", str(GOOD), "--profile", "chilean", "--json", str(out)]
        )
        == 1
    )
    text = capsys.readouterr().out
    assert "profile chilean" in text
    assert "0/2 rules covered" in text
    table = json.loads(out.read_text(encoding="utf-8"))
    assert table["profile"] == "chilean"
    assert set(table["rules"]) == {"MELD-RUN-3", "CHILE-WILD-1"}
    assert list(table["disputes"]) == []


def test_coverage_of_an_unknown_profile_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--catalogue", str(CATALOGUE), "coverage", str(GOOD), "--profile", "klingon"]) == 2
    assert "unknown profile 'klingon'" in capsys.readouterr().err
