"""docs/adding-scenarios.md's worked example of a new point, replayed in a temporary copy of the
repository: `points new`, the reference branch, `record --point`, the reviewed case, then
`check`, `run` and the tests of the catalogue, the profiles and the reference's options.

The page's blocks are the script (each follows a ``<!-- replayed: NAME -->`` comment), so the
guide cannot say one thing while the tools do another. Adding a point touches the catalogue,
docs/rules.md, the reference's branch and the case; this test fails if anything else has to
change by hand.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.paths import ROOT

GUIDE = ROOT / "docs" / "adding-scenarios.md"
BLOCK = re.compile(r"<!-- replayed: ([\w.]+) -->\n```\w*\n(.*?)\n```", re.S)
#: Where the example's branch goes: before DISPUTE-19's, in _check_discard.
ANCHOR = "    if action.card == state.taken:\n"
#: What the copy leaves out: the repository's history, caches and the benchmarks.
LEFT_OUT = shutil.ignore_patterns(
    ".git", "__pycache__", ".tox", ".mypy_cache", ".ruff_cache", ".pytest_cache", "*.egg-info",
    "build", "dist", "benchmarks", ".hypothesis",
)  # fmt: skip

pytestmark = pytest.mark.slow  # a copy of the repository and four tools run as processes


def _blocks() -> dict[str, str]:
    return dict(BLOCK.findall(GUIDE.read_text(encoding="utf-8")))


def _commands(block: str) -> list[list[str]]:
    """The shell block's commands as argvs, the package's tools run by this interpreter."""
    argvs = []
    for line in block.replace("\\\n", " ").splitlines():
        argv = shlex.split(line, comments=True)
        if not argv:
            continue
        if argv[0] == "carioca-conformance":
            argv = [sys.executable, "-m", "conformance", *argv[1:]]
        elif argv[0] == "python3":
            argv = [sys.executable, *argv[1:]]
        argvs.append(argv)
    return argvs


def _next_case_id(copy: Path) -> str:
    """The next free id of scenarios/disputes/ (docs/adding-scenarios.md, section 3)."""
    used = set(re.findall(r"cc-\d{4}", (copy / "scenarios" / "retired-ids.txt").read_text()))
    mine = []
    for path in (copy / "scenarios").rglob("*.yaml"):
        found = re.findall(r"^id: (cc-\d{4})", path.read_text(encoding="utf-8"), re.M)
        used.update(found)
        if path.parent.name == "disputes":
            mine += [int(i[3:]) for i in found]
    number = max(mine) + 1
    while f"cc-{number:04d}" in used:
        number += 1
    return f"cc-{number:04d}"


def test_the_guides_new_point_is_added_the_short_way(tmp_path: Path) -> None:
    blocks = _blocks()
    assert set(blocks) == {"new", "branch", "setup.yaml", "actions.yaml", "record", "case", "test"}
    copy = tmp_path / "repo"
    shutil.copytree(ROOT, copy, ignore=LEFT_OUT)
    env = {**os.environ, "PYTHONPATH": str(copy)}

    def run(argv: list[str]) -> str:
        done = subprocess.run(argv, cwd=copy, env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, f"{shlex.join(argv)}:\n{done.stdout}\n{done.stderr}"
        return done.stdout

    # 1. The catalogue entry, the docs skeleton and the generated files.
    (new,) = _commands(blocks["new"])
    printed = run(new)
    point = re.search(r"^added (DISPUTE-\d{2,})$", printed, re.M)
    assert point is not None, printed
    case_id = _next_case_id(copy)

    def mine(text: str) -> str:
        return text.replace("DISPUTE-NN", point[1]).replace("cc-NNNN", case_id)

    assert "reference/game.py" in printed and "DISPUTE-19" in printed  # where to branch
    # 2. The branch, where the guide says.
    game = copy / "reference" / "game.py"
    source = game.read_text(encoding="utf-8")
    assert source.count(ANCHOR) == 1
    game.write_text(source.replace(ANCHOR, mine(blocks["branch"]) + "\n" + ANCHOR), "utf-8")
    # 3. The draft under both options.
    (copy / "setup.yaml").write_text(blocks["setup.yaml"] + "\n", encoding="utf-8")
    (copy / "actions.yaml").write_text(blocks["actions.yaml"] + "\n", encoding="utf-8")
    (record,) = _commands(mine(blocks["record"]))
    run(record)
    case_path = copy / "scenarios" / "disputes" / "going-out-on-a-joker.yaml"
    draft = yaml.safe_load(case_path.read_text(encoding="utf-8"))
    reviewed = yaml.safe_load(mine(blocks["case"]))
    # The review kept the draft's values for the question, as the page says.
    assert draft["steps"][2]["expect"] == reviewed["steps"][2]["expect"]
    for key, value in reviewed["steps"][2]["state"].items():
        assert draft["steps"][2]["state"][key] == value, key
    # 4. The reviewed case; 5. check, run and the tests.
    case_path.write_text(mine(blocks["case"]) + "\n", encoding="utf-8")
    for argv in _commands(mine(blocks["test"])):
        run(argv)
    # Nothing but the catalogue, the prose, the branch and the case changed by hand: the
    # generated files are what `points sync` writes.
    (sync,) = _commands("carioca-conformance points sync --check")
    run(sync)
