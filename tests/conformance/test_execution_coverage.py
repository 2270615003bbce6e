"""Coverage by execution (conformance/authoring/execution_coverage.py).

A fake adapter (tests/fake_adapters/tracing_adapter.py) relays the reference and writes a
scripted trace, so what fires is known here and not taken from the code under test. The
end-to-end test against the reference's own ``--trace-rules`` runs once the reference has it.
"""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from conformance import cli
from conformance.authoring import execution_coverage as ec
from conformance.knowledge.catalogue import Catalogue, load_catalogue
from conformance.knowledge.profiles import find_profile
from conformance.scenarios import Scenario, load_corpus
from tests.paths import ROOT

#: An engine that answers is all these tests need: the reference answers in-process
#: (tests/adapters.py); the tests of what its process does run it as a process.
pytestmark = pytest.mark.usefixtures("reference_in_process")

TRACING = ROOT / "tests" / "fake_adapters" / "tracing_adapter.py"

CASES = """\
id: cc-0001
title: K-A-2 is no run
rules: [MELD-RUN-3]
source: "000 §02"
profiles: [argentine, pagat]
level: melds
review: checked
checks:
  - check_meld: {kind: run, cards: [KS, AS, 2S, 3S]}
    expect: {valid: false}
---
id: cc-0002
title: A trio of three
rules: [MELD-TRIO-1, MELD-TRIO-3]
source: "000 §02"
profiles: [argentine, pagat]
level: melds
review: checked
checks:
  - check_meld: {kind: trio, cards: [8C, 8D, 8H]}
    expect: {valid: true}
---
id: cc-0003
title: A Chilean 2 is wild
rules: [CHILE-WILD-1, CHILE-DEAL-0]
source: "001 L5"
profiles: [chilean]
level: melds
review: checked
checks:
  - check_meld: {kind: trio, cards: [8C, 8D, 2H]}
    expect: {valid: true}
"""


@pytest.fixture(scope="module")
def scenarios(tmp_path_factory: pytest.TempPathFactory) -> tuple[Scenario, ...]:
    folder = tmp_path_factory.mktemp("cases")
    (folder / "cases.yaml").write_text(CASES, encoding="utf-8")
    loaded = load_corpus([folder], catalogue=load_catalogue())
    assert not loaded.errors, loaded.errors
    return loaded.scenarios


def tracing(*script: str) -> list[str]:
    return [sys.executable, str(TRACING), *script]


def test_a_trace_file_is_read_line_by_line(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(
        '{"id": 1, "op": "hello", "decided": [], "refused": []}\n\n'
        '{"id": 2, "op": "act", "decided": ["TURN-2"], "refused": ["TURN-5"]}\n',
        encoding="utf-8",
    )
    lines = ec.read_trace(path)
    assert [(line.id, line.op, line.decided, line.refused) for line in lines] == [
        (1, "hello", (), ()),
        (2, "act", ("TURN-2",), ("TURN-5",)),
    ]
    assert ec.read_trace(tmp_path / "missing.jsonl") == []


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("{nope\n", "not JSON"),
        ("[1]\n", "JSON object"),
        ('{"decided": []}\n', "'op'"),
        ('{"op": "act", "decided": "TURN-2"}\n', "'decided'"),
        ('{"op": "act", "refused": [3]}\n', "'refused'"),
    ],
)
def test_a_malformed_trace_line_is_named_by_file_and_line(
    tmp_path: Path, text: str, words: str
) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text('{"op": "hello"}\n' + text, encoding="utf-8")
    with pytest.raises(ec.TraceError) as raised:
        ec.read_trace(path)
    assert f"{path}:2" in str(raised.value) and words in str(raised.value)


def test_reference_ids_are_read_as_the_profiles_own() -> None:
    chilean, perla = find_profile("chilean"), find_profile("perla")
    assert ec.own_rule("CARDS-2", chilean) == "CHILE-WILD-1"
    assert ec.own_rule("JOKER-3", chilean) == "CHILE-WILD-2"
    assert ec.own_rule("STOCK-2", perla) == "PERLA-STOCK-1"
    # Already the profile's own, or stated alike: unchanged.
    assert ec.own_rule("PERLA-STEAL-2", perla) == "PERLA-STEAL-2"
    assert ec.own_rule("MELD-RUN-3", chilean) == "MELD-RUN-3"


def narrowed(*rules: str) -> Catalogue:
    """The catalogue with only ``rules``: what a profile states is then known here."""
    catalogue = load_catalogue()
    return replace(catalogue, rules={r: catalogue.rules[r] for r in rules})


def test_a_cited_rule_that_never_fires_is_reported_with_its_cases(
    scenarios: tuple[Scenario, ...],
) -> None:
    report = ec.executed_coverage(
        scenarios,
        narrowed("MELD-RUN-3", "MELD-TRIO-1", "MELD-TRIO-3"),
        "pagat",
        adapter=tracing("--fire", "check_meld=MELD-RUN-3,MELD-TRIO-3"),
    )
    assert report.cases == 2
    assert report.unexercised == {"MELD-TRIO-1": ("cc-0002",)}
    assert not report.ok
    # Every request answered was traced: hello, two check_meld, bye.
    assert report.decided == {"MELD-RUN-3": 2, "MELD-TRIO-3": 2}
    # Each case's check_meld fired both: two cases exercise each.
    assert report.exercised == {
        "MELD-RUN-3": ("cc-0001", "cc-0002"),
        "MELD-TRIO-3": ("cc-0001", "cc-0002"),
    }
    assert report.thin == {}
    text = ec.render_text([report])
    assert "MELD-TRIO-1: cited but never decided or refused by; cited by cc-0002" in text
    assert "pagat: 2/3 rules exercised by 2 cases or more over 2 cases" in text
    assert "fewer than 2 cases: pagat" in text


def test_a_rule_one_case_exercises_is_listed_with_its_count(
    scenarios: tuple[Scenario, ...],
) -> None:
    fire = "check_meld=MELD-TRIO-1,MELD-TRIO-3"
    catalogue = narrowed("MELD-RUN-3", "MELD-TRIO-1", "MELD-TRIO-3")
    report = ec.executed_coverage(
        scenarios,
        catalogue,
        "pagat",
        adapter=tracing("--fire", fire, "--refuse", "check_meld=MELD-RUN-3"),
    )
    # Only cc-0001's K-A-2 is refused, so only its request names the rule: a refusal
    # exercises its rule, in that case alone.
    assert report.refused == {"MELD-RUN-3": 1}
    assert report.exercised["MELD-RUN-3"] == ("cc-0001",)
    assert report.unexercised == {}
    assert report.thin == {"MELD-RUN-3": ("cc-0001",)} and not report.ok
    assert "  MELD-RUN-3: exercised by 1 case: cc-0001" in ec.render_text([report])
    report = ec.executed_coverage(scenarios, catalogue, "pagat", adapter=tracing("--fire", fire))
    assert report.unexercised == {"MELD-RUN-3": ("cc-0001",)}
    # A rule listed once: as cited and never fired, not again as thin.
    assert report.thin == {}


def test_every_rule_the_profile_states_counts_even_uncited(
    scenarios: tuple[Scenario, ...],
) -> None:
    fire = "check_meld=MELD-RUN-3,MELD-TRIO-1,MELD-TRIO-3"
    report = ec.executed_coverage(
        scenarios,
        narrowed("MELD-RUN-3", "MELD-TRIO-1", "MELD-TRIO-3", "SCORE-1"),
        "pagat",
        adapter=tracing("--fire", fire),
    )
    assert report.unexercised == {}
    assert report.thin == {"SCORE-1": ()} and not report.ok
    assert "  SCORE-1: exercised by 0 cases" in ec.render_text([report])


def test_the_argentine_id_fired_covers_the_profiles_own_rule(
    scenarios: tuple[Scenario, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    catalogue = narrowed("CHILE-WILD-1", "CHILE-DEAL-0")
    report = ec.executed_coverage(
        scenarios, catalogue, "chilean", adapter=tracing("--fire", "check_meld=CARDS-2")
    )
    assert report.cases == 1
    assert report.decided == {"CHILE-WILD-1": 1}
    assert report.exercised == {"CHILE-WILD-1": ("cc-0003",)}
    # One case only: short of two.
    assert report.thin == {"CHILE-WILD-1": ("cc-0003",)} and not report.ok
    # The cut is procedure no branch decides by: left out while it does not fire.
    assert set(report.exempt) == {"CHILE-DEAL-0"}
    assert "CHILE-DEAL-0: not decidable" in ec.render_text([report])
    monkeypatch.setattr(ec, "MIN_CASES", 1)
    report = ec.executed_coverage(
        scenarios, catalogue, "chilean", adapter=tracing("--fire", "check_meld=CARDS-2")
    )
    assert report.thin == {} and report.ok
    fired = ec.executed_coverage(
        scenarios,
        catalogue,
        "chilean",
        adapter=tracing("--fire", "check_meld=CARDS-2,CHILE-DEAL-0"),
    )
    assert fired.exempt == {} and fired.ok


def test_an_adapter_that_traces_nothing_is_never_ok(scenarios: tuple[Scenario, ...]) -> None:
    report = ec.executed_coverage(scenarios, load_catalogue(), "chilean", adapter=tracing())
    assert not report.traced and not report.ok
    assert report.unexercised == {"CHILE-WILD-1": ("cc-0003",)}
    assert set(report.exempt) == {"CHILE-DEAL-0"}
    assert "nothing was traced" in ec.render_text([report])


def test_a_malformed_trace_is_an_error_not_a_report(scenarios: tuple[Scenario, ...]) -> None:
    with pytest.raises(ec.TraceError):
        ec.executed_coverage(scenarios, load_catalogue(), "chilean", adapter=tracing("--garbage"))


def test_the_json_report_lists_each_rule(scenarios: tuple[Scenario, ...], tmp_path: Path) -> None:
    report = ec.executed_coverage(
        scenarios,
        narrowed("MELD-RUN-3", "MELD-TRIO-1", "MELD-TRIO-3", "SCORE-1"),
        "pagat",
        adapter=tracing("--fire", "check_meld=MELD-RUN-3"),
    )
    out = tmp_path / "cov.json"
    ec.write_json([report], out)
    document = json.loads(out.read_text(encoding="utf-8"))
    assert document["ok"] is False
    (only,) = document["profiles"]
    assert only["unexercised"] == {"MELD-TRIO-1": ["cc-0002"], "MELD-TRIO-3": ["cc-0002"]}
    assert only["thin"] == {"SCORE-1": []} and only["min_cases"] == 2
    assert only["rules"]["MELD-RUN-3"] == {
        "cited_by": 1,
        "decided": 2,
        "refused": 0,
        "exercised_by": 2,
    }


def test_the_command_exits_non_zero_on_a_rule_short_of_two_cases(
    scenarios: tuple[Scenario, ...],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder = tmp_path / "cases"
    folder.mkdir()
    (folder / "cases.yaml").write_text(CASES, encoding="utf-8")
    argv = ["coverage", "--executed", str(folder)]
    monkeypatch.setattr(ec, "reference_argv", lambda: tracing("--fire", "check_meld=CARDS-2"))
    # The chilean slice is one case: every rule the profile states is short of two.
    assert cli.main([*argv, "--profile", "chilean"]) == 1
    out = capsys.readouterr().out
    assert "  CHILE-WILD-1: exercised by 1 case: cc-0003" in out
    assert "  CHILE-DEAL-0: not decidable" in out
    assert cli.main([*argv, "--profile", "all"]) == 1
    out = capsys.readouterr().out
    assert "MELD-RUN-3: cited but never decided or refused by; cited by cc-0001" in out
    assert out.index("argentine:") < out.index("pagat:")
    # Green, and brief: one line per profile and the verdict.
    monkeypatch.setattr(ec, "MIN_CASES", 1)
    code = ec.coverage_command(
        scenarios, narrowed("CHILE-WILD-1", "CHILE-DEAL-0"), ["chilean"], adapter=None
    )
    assert code == 0
    assert capsys.readouterr().out.splitlines() == [
        "chilean: 1/1 rules exercised by 1 cases or more over 1 cases",
        "  CHILE-DEAL-0: not decidable (the shuffle and cut are procedure; a deck given in "
        "order is unaffected)",
        "every rule exercised by 1 cases or more",
    ]


def test_the_command_says_so_when_the_reference_cannot_trace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "cases"
    folder.mkdir()
    (folder / "cases.yaml").write_text(CASES, encoding="utf-8")
    # An adapter that refuses the option exits before its handshake.
    refusing = [sys.executable, "-c", "import sys; sys.exit(2)"]
    monkeypatch.setattr(ec, "reference_argv", lambda: refusing)
    assert cli.main(["coverage", "--executed", str(folder), "--profile", "chilean"]) == 3
    err = capsys.readouterr().err
    assert "the tracing reference could not start" in err and "--trace-rules" in err
    monkeypatch.setattr(ec, "reference_argv", lambda: tracing("--garbage"))
    assert cli.main(["coverage", "--executed", str(folder), "--profile", "chilean"]) == 1
    assert "malformed rule trace" in capsys.readouterr().err


# Slow: the whole corpus under every profile, which `tox -e corpus` also runs
# (`coverage --executed --profile all`); CI runs both.
@pytest.mark.slow
@pytest.mark.parametrize("profile", ["argentine", "chilean", "pagat", "perla"])
def test_every_rule_of_a_profile_is_exercised_by_two_cases_on_the_reference(profile: str) -> None:
    catalogue = load_catalogue()
    loaded = load_corpus([ROOT / "scenarios"], catalogue=catalogue)
    report = ec.executed_coverage(loaded.scenarios, catalogue, profile)
    assert report.traced
    assert report.not_passed == ()
    assert report.unexercised == {}, ec.render_text([report])
    assert report.thin == {}, ec.render_text([report])
