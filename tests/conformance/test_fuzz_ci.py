"""The CI matrix of docs/ci/fuzz-shards.yml: a well-formed workflow of the
expected shape, whose own commands, run here for N=2 shards of a small campaign, play
the shards and merge them into the report of the whole campaign."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from tests.conformance.fuzzkit import ROOT, SCHEMA
from tests.mutants import harness

WORKFLOW = ROOT / "docs" / "ci" / "fuzz-shards.yml"


def _workflow() -> dict[Any, Any]:
    doc = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    assert isinstance(doc, dict)
    return doc


def _step(job: dict[str, Any], step_id: str) -> dict[str, Any]:
    (step,) = [s for s in job["steps"] if s.get("id") == step_id]
    return step


def test_the_workflow_is_a_matrix_of_shards_then_a_merge() -> None:
    doc = _workflow()
    triggers = doc.get("on", doc.get(True))  # YAML 1.1 reads a bare `on` as true
    assert "workflow_dispatch" in triggers
    fuzz, merge = doc["jobs"]["fuzz"], doc["jobs"]["merge"]
    shards = int(doc["env"]["SHARDS"])
    assert fuzz["strategy"]["matrix"]["shard"] == list(range(1, shards + 1))
    assert fuzz["strategy"]["fail-fast"] is False  # one shard's failure keeps the others
    assert '--shard "${{ matrix.shard }}/$SHARDS"' in _step(fuzz, "fuzz")["run"]
    assert merge["needs"] == "fuzz" and merge["if"] == "always()"
    assert "--merge shards/fuzz-shard-*/fuzz-report.json" in _step(merge, "merge")["run"]
    # What the shards upload is what the merge downloads and reads.
    (upload,) = [s for s in fuzz["steps"] if s.get("uses", "").startswith("actions/upload")]
    (download,) = [s for s in merge["steps"] if s.get("uses", "").startswith("actions/download")]
    assert upload["with"]["name"] == "fuzz-shard-${{ matrix.shard }}"
    assert download["with"] == {"pattern": "fuzz-shard-*", "path": "shards"}
    assert upload["with"]["path"].rstrip("/") == "shard-${{ matrix.shard }}"


def _run(script: str, cwd: Path, env: dict[str, str], shard: int = 0) -> int:
    script = re.sub(r"\$\{\{\s*matrix\.shard\s*\}\}", str(shard), script)
    done = subprocess.run(["bash", "-e", "-c", script], cwd=cwd, env=env, timeout=600)
    return done.returncode


def test_the_workflows_commands_run_for_two_shards(tmp_path: Path) -> None:
    # The harness as the workflow calls it: `carioca-conformance`, here this checkout's.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "carioca-conformance"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m conformance "$@"\n')
    shim.chmod(0o755)
    doc = _workflow()
    env = {
        **harness.child_env(),
        **{k: str(v) for k, v in doc["env"].items()},
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        # A mutant with findings in both shards, so a shard's exit 1 is seen to pass.
        "ENGINE": f"{sys.executable} -m tests.mutants.adapter --mutant twos_wild",
        "GAMES": "4",
        "SEED": "0",
        "SHARDS": "2",
        "FUZZ_FLAGS": "--max-steps 20 --no-shrink",
    }
    fuzz_script = _step(doc["jobs"]["fuzz"], "fuzz")["run"]
    for shard in (1, 2):
        assert _run(fuzz_script, tmp_path, env, shard) == 0
        # actions/upload-artifact then actions/download-artifact, as the workflow names them.
        shutil.copytree(tmp_path / f"shard-{shard}", tmp_path / "shards" / f"fuzz-shard-{shard}")
    merged_code = _run(_step(doc["jobs"]["merge"], "merge")["run"], tmp_path, env)
    report = json.loads((tmp_path / "merged" / "fuzz-report.json").read_text())
    jsonschema.validate(report, SCHEMA)
    assert report["totals"]["games"] == 4
    assert report["campaign"]["shards"] == [{"index": 1, "count": 2}, {"index": 2, "count": 2}]
    assert not any("missing" in w for w in report["warnings"])
    assert report["findings"] and merged_code == 1  # findings fail the merge job
    drafts = sorted((tmp_path / "merged" / "drafts").glob("cc-8*.yaml"))
    assert len(drafts) == len(report["findings"])


def test_the_harness_is_installed_from_something_pip_can_install() -> None:
    # Before: `pip install carioca-conformance`, a name no package index holds.
    from packaging.requirements import Requirement

    doc = _workflow()
    harness_env = Requirement(doc["env"]["HARNESS"])
    assert harness_env.name == "carioca-conformance"
    assert harness_env.url is not None and harness_env.url.startswith("git+https://")
    installs = [
        step["run"]
        for job in doc["jobs"].values()
        for step in job["steps"]
        if "pip install" in step.get("run", "")
    ]
    assert installs == ['python -m pip install "$HARNESS"'] * 2
