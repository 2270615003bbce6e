"""CLI exit codes and messages (run in-process through main())."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path

import pytest

from conformance.cli import build_parser, main

#: An engine that answers is all these tests need: the reference answers in-process
#: (tests/adapters.py); the tests of what its process does run it as a process.
pytestmark = pytest.mark.usefixtures("reference_in_process")

DATA = Path(__file__).parent / "data"
FAKE = shlex.join([sys.executable, str(DATA / "fake_engine.py")])
CAT = ["--catalogue", str(DATA / "catalogue.json")]
GOOD = str(DATA / "good")


def run(*args: str) -> int:
    return main([*CAT, *args])


def test_run_all_pass_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "r.json"
    junit = tmp_path / "j.xml"
    code = run("run", GOOD, "--adapter", FAKE, "--json", str(report), "--junit", str(junit))
    assert code == 0
    assert json.loads(report.read_text())["summary"]["pass"] == 5
    assert junit.read_text().startswith("<?xml")
    assert "5 cases: 5 pass" in capsys.readouterr().out


def test_version_names_the_harness_and_its_corpus(capsys: pytest.CaptureFixture[str]) -> None:
    from conformance import CORPUS_VERSION, __version__

    assert main(["--version"]) == 0
    said = capsys.readouterr().out.strip()
    assert said == f"carioca-conformance {__version__} (corpus {CORPUS_VERSION})"


def test_failures_exit_1_and_expectations_make_them_xfail(tmp_path: Path) -> None:
    adapter = FAKE + " --wrong-penalty"
    exp = tmp_path / "expected.yaml"
    assert run("run", GOOD, "--adapter", adapter, "--write-expectations", str(exp)) == 1
    assert "cc-0001" in exp.read_text()
    assert run("run", GOOD, "--adapter", adapter, "--expectations", str(exp)) == 0
    # Against a correct engine the entry is an xpass: fine normally, a failure under --strict.
    assert run("run", GOOD, "--adapter", FAKE, "--expectations", str(exp)) == 0
    assert run("run", GOOD, "--adapter", FAKE, "--expectations", str(exp), "--strict") == 1


def test_selection_by_rule_prefix_tag_and_id(capsys: pytest.CaptureFixture[str]) -> None:
    assert run("run", GOOD, "--adapter", FAKE, "--rule", "MELD-TRIO") == 0
    assert "1 cases: 1 pass" in capsys.readouterr().out
    assert run("run", GOOD, "--adapter", FAKE, "--tag", "discard", "--scenario", "cc-0004") == 0
    assert "1 cases: 1 pass" in capsys.readouterr().out
    assert run("run", GOOD, "--adapter", FAKE, "--rule", "NOPE") == 2


def test_adapter_that_cannot_start_exits_3(capsys: pytest.CaptureFixture[str]) -> None:
    assert run("run", GOOD, "--adapter", FAKE + " --exit-at-start") == 3
    assert run("run", GOOD, "--adapter", "/nonexistent/engine") == 3
    err = capsys.readouterr().err
    assert "could not start" in err and "Traceback" not in err


def test_broken_corpus_is_refused_unless_skipped(capsys: pytest.CaptureFixture[str]) -> None:
    broken = str(DATA / "broken")
    assert run("run", GOOD, broken, "--adapter", FAKE) == 2
    assert "bad-schema.yaml:9:5: [cc-0101]" in capsys.readouterr().err
    assert run("run", GOOD, broken, "--adapter", FAKE, "--skip-broken") == 0


def test_check_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert run("check", GOOD) == 0
    assert run("check", str(DATA / "broken")) == 2
    assert "third copy" in capsys.readouterr().err


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert run("run", "--workers", "0") == 2
    assert run("run", "/no/such/path", "--adapter", FAKE) == 2
    assert run("frobnicate") == 2
    assert run("run", GOOD, "--adapter", "'unbalanced") == 2
    assert "Traceback" not in capsys.readouterr().err


def test_coverage_reports_uncovered(capsys: pytest.CaptureFixture[str]) -> None:
    # TURN-5 is covered only through cc-0005; SCORE-2 by cc-0001; DISPUTE-32 is not observable.
    # Every rule and point is covered, but no case loads turn_opened (or a table) set and
    # acts: that is uncovered too.
    assert run("coverage", GOOD) == 1
    out = capsys.readouterr().out
    assert "DISPUTE-19: cc-0005" in out and "DISPUTE-32: not observable" in out
    assert (
        "turn_opened (true): NONE" in out and "discard (more than the top card): 1 (cc-0005)" in out
    )
    assert "0 observable dispute(s) uncovered; 2/9 state fields loaded and acted on" in out
    assert run("coverage", str(DATA / "good" / "melds.yaml")) == 1
    assert "UNCOVERED" in capsys.readouterr().out


def test_smoke_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["smoke", "--adapter", FAKE]) == 0
    assert "verdict: engine_ok" in capsys.readouterr().out
    assert main(["smoke", "--adapter", "/nonexistent/engine"]) == 3
    assert main(["smoke", "--adapter", FAKE + " --crash-on penalty"]) == 1


BROKEN_LAWS = Path(__file__).parents[1] / "fake_adapters" / "broken_properties_adapter.py"


@pytest.mark.parametrize(("mode", "law"), [("none", None), ("lose-card", "conservation")])
def test_run_properties_reports_laws_and_fails_on_a_broken_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], mode: str, law: str | None
) -> None:
    adapter = shlex.join([sys.executable, str(BROKEN_LAWS), "--mode", mode])
    report = tmp_path / "r.json"
    args = ["run", "--scenario", "cc-0200", "--adapter", adapter, "--properties"]
    code = main([*args, "--deals", "2", "--json", str(report)])
    laws = {
        entry["name"]: entry["passed"] for entry in json.loads(report.read_text())["properties"]
    }
    assert "conservation" in laws and "scoring-at-close" in laws
    out = capsys.readouterr().out
    assert "Laws over seeded deals (seed 0):" in out
    if law is None:
        assert code == 0 and all(laws.values())
    else:
        assert code == 1 and laws[law] is False and f"FAIL {law}" in out


def test_check_flags_drafts_and_strict_refuses_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = (DATA / "good" / "melds.yaml").read_text(encoding="utf-8")
    assert "review: checked" in good
    draft = tmp_path / "draft.yaml"
    draft.write_text(good.replace("review: checked", "review: draft", 1), encoding="utf-8")
    assert run("check", str(draft)) == 0
    assert "review: draft: check every expectation" in capsys.readouterr().err
    assert run("check", "--strict", str(draft)) == 2
    assert run("check", "--strict", GOOD) == 0


def test_expectations_naming_unknown_ids_are_warned_about(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    exp = tmp_path / "expected.yaml"
    exp.write_text(
        "expected_failures:\n  cc-0001: {reason: known}\n  cc-9999: {reason: retired long ago}\n",
        encoding="utf-8",
    )
    assert run("run", GOOD, "--adapter", FAKE + " --wrong-penalty", "--expectations", str(exp)) == 0
    out = capsys.readouterr().out
    assert "names 1 id(s) that are not in the corpus: cc-9999" in out


# --------------------------------------------------------------------------- run --profile all


def test_the_main_job_speaks_briefly_when_nothing_is_unexpected(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from conformance.knowledge.profiles import default_profiles

    names = list(default_profiles())
    assert main(["run", "--profile", "all"]) == 0
    out = capsys.readouterr().out.rstrip().splitlines()
    # The header, a line per profile and its summary, the profiles line: no rulings table.
    assert len(out) <= 60, "\n".join(out)
    assert out[0].startswith("carioca-conformance ") and out[1].startswith("corpus: ")
    assert [line.split(":")[0][len("== profile ") :] for line in out if line.startswith("== ")] == (
        names
    )
    assert not any(line.lstrip().startswith(("DISPUTE-", "VARIANT-", "*")) for line in out)
    assert out[-1] == "profiles: " + ", ".join(f"{n} ok" for n in names)


def test_the_main_job_quiet_is_a_line_per_profile(capsys: pytest.CaptureFixture[str]) -> None:
    from conformance.knowledge.profiles import default_profiles

    names = list(default_profiles())
    assert main(["run", "--profile", "all", "--quiet"]) == 0
    out = capsys.readouterr().out.rstrip().splitlines()
    assert len(out) <= 6, "\n".join(out)
    assert [line.split(":")[0] for line in out[1:-1]] == names
    assert all(" graded " in line for line in out[1:-1])
    assert out[-1] == "profiles: " + ", ".join(f"{n} ok" for n in names)


def test_run_every_profile_leaves_out_those_the_engine_does_not_list(
    capsys: pytest.CaptureFixture[str],
) -> None:
    adapter = f"{shlex.quote(sys.executable)} -m reference.adapter --profiles chilean"
    code = main(
        ["run", "--profile", "all", "--quiet", "--adapter", adapter, "--rule", "CHILE-WILD"]
    )
    assert code == 0
    last = capsys.readouterr().out.rstrip().splitlines()[-1]
    assert last.startswith("profiles: chilean ok; not listed by the engine: argentine")


def test_run_every_profile_writes_no_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "--profile", "all", "--json", str(tmp_path / "r.json")]) == 2
    assert "--profile all writes no report" in capsys.readouterr().err
    assert not (tmp_path / "r.json").exists()


# --------------------------------------------------------------------------- coverage --profile all


def test_coverage_of_every_profile_is_a_line_each(capsys: pytest.CaptureFixture[str]) -> None:
    from conformance.knowledge.profiles import default_profiles

    assert main(["coverage", "--profile", "all"]) == 0
    out = capsys.readouterr().out.rstrip().splitlines()
    assert out[0].startswith("corpus ")
    assert [line.split(":")[0] for line in out[1:]] == list(default_profiles())


def test_coverage_of_every_profile_names_what_is_uncovered(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "cov.json"
    melds = str(DATA / "good" / "melds.yaml")
    assert run("coverage", melds, "--profile", "all", "--json", str(report)) == 1
    out = capsys.readouterr().out
    assert "argentine: 3/6 rules covered; 1 observable dispute(s) uncovered" in out
    assert "  UNCOVERED TURN-2\n" in out and "  UNCOVERED DISPUTE-19\n" in out
    tables = json.loads(report.read_text())["profiles"]
    assert tables["argentine"]["rules"]["SCORE-2"]["scenarios"] == 1


def test_the_package_says_it_covers_every_profile() -> None:
    import tomllib

    from conformance.knowledge.profiles import default_profiles

    root = Path(__file__).resolve().parents[2]
    project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert all(name.capitalize() in project["description"] for name in default_profiles())


def test_check_starts_without_the_modules_only_a_run_needs() -> None:
    """``check`` runs often (an editor's save hook, a pre-commit): importing the CLI must
    not pull in what judging a run reads (conformance.run.verdict and its results)."""
    import subprocess

    probe = (
        "import sys, conformance.cli; "
        "print(sorted(m for m in ('conformance.run.verdict', 'conformance.grading.results', "
        "'conformance.run.runner', 'conformance.adapter.engine', 'jsonschema', 'jsonschema_rs') "
        "if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "0", "1e300", "soon"])
@pytest.mark.parametrize(
    "command",
    [
        ["run", "--timeout"],
        ["run", "--case-timeout"],
        ["run", "--start-timeout"],
        ["fuzz", "--timeout"],
        ["smoke", "--timeout"],
        ["record", "--setup", "s.yaml", "--actions", "a.yaml", "-o", "d.yaml", "--timeout"],
    ],
)
def test_a_time_limit_that_is_no_limit_is_refused(
    command: list[str], value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """nan and inf would disable every deadline; 0 or less, none could be met (fuzz said
    "adapter could not start"): each is a usage error naming the option, before any start."""
    assert main([*command, value]) == 2
    err = capsys.readouterr().err
    [line] = [x for x in err.splitlines() if "error:" in x]
    assert f"error: argument {command[-1]}: {value!r}" in line
    assert "Traceback" not in err


def test_the_fuzz_library_call_refuses_a_time_limit_that_is_no_limit(tmp_path: Path) -> None:
    from conformance import fuzz
    from conformance.fuzz import command
    from conformance.knowledge.catalogue import load_catalogue

    for bad in (float("nan"), float("inf"), 0.0, -1.0):
        options = fuzz.FuzzOptions(games=1, timeout=bad)
        with pytest.raises(fuzz.FuzzError, match="--timeout"):
            command.campaign(["unused"], options, load_catalogue(), tmp_path, handle_signals=False)
    assert not list(tmp_path.iterdir())  # refused before anything was written


def test_by_cause_without_a_file_to_write_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    never = tmp_path / "never-started"
    argv = ["run", "--profile", "argentine", "--adapter", f"touch {never}", "--by-cause"]
    assert main(argv) == 2
    assert "--by-cause says how --write-expectations FILE" in capsys.readouterr().err
    assert not never.exists()


# --------------------------------------------------------------------------- every flag explained


def _parsers(
    parser: argparse.ArgumentParser, name: str
) -> list[tuple[str, argparse.ArgumentParser]]:
    """``parser`` and every subcommand's parser under it, each with its command line."""
    found = [(name, parser)]
    for action in parser._actions:  # argparse keeps no public list of a parser's arguments
        if isinstance(action, argparse._SubParsersAction):
            for sub, subparser in action.choices.items():
                found += _parsers(subparser, f"{name} {sub}")
    return found


def test_every_option_of_every_subcommand_has_help_text() -> None:
    parsers = _parsers(build_parser(), "carioca-conformance")
    assert len(parsers) > 9  # every command, and report's own subcommands
    missing = [
        f"{name} {'/'.join(action.option_strings) or action.dest}"
        for name, parser in parsers
        for action in parser._actions
        if not isinstance(action, argparse._SubParsersAction | argparse._HelpAction)
        and not (action.help or "").strip()
    ]
    assert missing == []


# ------------------------------------------------------------------- the handshake's profile


def test_run_and_smoke_grade_the_one_profile_the_handshake_lists(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # An engine that plays only Perla, run with no --profile: graded on Perla, not refused
    # for lacking the default (exit 3).
    adapter = f"{shlex.quote(sys.executable)} -m reference.adapter --profiles perla"
    assert main(["run", "--adapter", adapter, "--rule", "PERLA-SCORE", "-q", "--no-explain"]) == 0
    out = capsys.readouterr().out
    assert "profile perla" in out.splitlines()[0]
    assert main(["smoke", "--adapter", adapter]) == 0
    assert capsys.readouterr().out.startswith("profile perla\n")
    # Several listed: the default profile, as before; a named one is the one graded.
    several = f"{shlex.quote(sys.executable)} -m reference.adapter --profiles chilean,perla"
    assert main(["smoke", "--adapter", several]) == 3
    assert capsys.readouterr().out.startswith("profile argentine\n")
    assert main(["smoke", "--adapter", adapter, "--profile", "argentine"]) == 3
