"""The two adapters of docs/quickstart.md, in Python and in JavaScript, earn a green at the
`melds` level: `run` against the Argentine corpus grades every melds case of the profile
and every one passes, and each file stays as short as the page promises."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.scenarios import load_corpus
from tests.paths import ROOT

QUICKSTART = ROOT / "docs" / "quickstart"
ADAPTERS = {
    "python": [sys.executable, str(QUICKSTART / "adapter.py")],
    "javascript": ["node", str(QUICKSTART / "adapter.js")],
}


def _needs(language: str) -> None:
    """Skip the JavaScript adapter where Node is missing, except in CI (.ci/run installs it)."""
    if language == "javascript" and shutil.which("node") is None:
        message = "node is not installed (Debian's nodejs; .ci/run installs it in CI)"
        if os.environ.get("CI") == "true":
            pytest.fail(message + "; CI=true, so this test may not be skipped")
        pytest.skip(message)


def _melds_cases() -> dict[str, dict[str, str]]:
    """The Argentine melds-level cases: id to the interface reading each is written for."""
    loaded = load_corpus([ROOT / "scenarios"])
    assert not loaded.errors
    return {
        s.id: dict(s.interface or {})
        for s in loaded.scenarios
        if s.level == "melds" and "argentine" in s.profiles
    }


@pytest.mark.parametrize("language", sorted(ADAPTERS))
def test_the_quickstart_adapter_passes_the_melds_level(
    language: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _needs(language)
    report = tmp_path / "report.json"
    adapter = shlex.join(ADAPTERS[language])
    code = main(
        ["run", "-q", "--profile", "argentine", "--adapter", adapter, "--json", str(report)]
    )
    out = capsys.readouterr().out
    assert code == 0, out
    cases = {case["id"]: case for case in json.loads(report.read_text(encoding="utf-8"))["cases"]}
    melds = _melds_cases()
    assert len(melds) >= 90  # the level the page promises is the corpus's, not a handful
    for sid, interface in melds.items():
        # The adapter reads runs as listed (the default): a case written for engines that
        # arrange runs themselves is not theirs to pass.
        expected = "unsupported" if interface.get("run_order") == "engine" else "pass"
        assert cases[sid]["status"] == expected, (sid, cases[sid])
    # Above the melds level nothing is claimed, so nothing else is graded, and nothing fails.
    others = {c["status"] for sid, c in cases.items() if sid not in melds}
    assert others == {"unsupported"}, others


@pytest.mark.parametrize("name", ["adapter.py", "adapter.js"])
def test_each_quickstart_adapter_is_short_and_the_page_shows_it(name: str) -> None:
    lines = (QUICKSTART / name).read_text(encoding="utf-8").splitlines()
    assert len(lines) < 150  # the page promises each under 150 lines
    page = (ROOT / "docs" / "quickstart.md").read_text(encoding="utf-8")
    assert f"quickstart/{name}" in page


@pytest.mark.parametrize("language", sorted(ADAPTERS))
def test_the_quickstart_adapter_answers_the_hostile_probes(
    language: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # An author copying the page must not start from an adapter that `smoke --hostile`
    # fails: an op outside the protocol is a bad request, one it merely lacks unsupported.
    _needs(language)
    adapter = shlex.join(ADAPTERS[language])
    code = main(["smoke", "--hostile", "--profile", "argentine", "--adapter", adapter])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "verdict: engine_ok" in out
    assert re.search(r"hostile: [1-9]\d* of", out), out  # melds probes graded, not skipped


def _page_commands() -> list[str]:
    """Every `carioca-conformance` command of the page's shell blocks, in order (continuation
    lines joined, comments dropped)."""
    page = (ROOT / "docs" / "quickstart.md").read_text(encoding="utf-8")
    commands = []
    for block in re.findall(r"^ *```sh\n(.*?)^ *```", page, re.MULTILINE | re.DOTALL):
        for line in re.sub(r"\\\n\s*", "", block).splitlines():
            line = line.split("  #")[0].strip()
            if line.startswith("carioca-conformance "):
                commands.append(line)
    return commands


@pytest.mark.parametrize("language", sorted(ADAPTERS))
def test_every_command_of_the_page_works_with_either_adapter(language: str, tmp_path: Path) -> None:
    # A reader copies the adapter next to nothing else and runs the page's commands in turn,
    # the JavaScript reader with "node adapter.js" (step 3 says so): each exits 0, step 7's
    # CI command included, once step 7's first command has written expected.yaml.
    _needs(language)
    from tests.regendoc import argv_of, environment

    name = Path(ADAPTERS[language][-1]).name
    shutil.copy(QUICKSTART / name, tmp_path / name)
    commands = _page_commands()
    assert len(commands) >= 6 and any("--min-graded" in c for c in commands), commands
    for command in commands:
        if language == "javascript":
            command = command.replace('"python3 adapter.py"', '"node adapter.js"')
        done = subprocess.run(
            argv_of(command), cwd=tmp_path, env=environment(), capture_output=True, text=True,
            timeout=600, check=False,
        )  # fmt: skip
        assert done.returncode == 0, (command, done.stdout[-3000:], done.stderr[-3000:])
    assert {"expected.yaml", "report.json", "junit.xml"} <= {p.name for p in tmp_path.iterdir()}
