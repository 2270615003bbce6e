"""The package an engine's repository depends on: the wheel ``pip wheel .`` builds carries the
corpus, the catalogue, the schemas and the reference, and an installed copy (not this source
tree) finds them: ``check``, ``run``, ``--version`` and the pytest plugin, run from a folder
outside any checkout (docs/pytest-plugin.md gives the install lines)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from conformance.scenarios import load_corpus
from conformance.version import CORPUS_VERSION, __version__
from tests.paths import ROOT


def _run(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


@pytest.mark.slow
def test_the_built_wheel_carries_everything_and_an_installed_copy_finds_it(
    tmp_path: Path,
) -> None:
    dist = tmp_path / "dist"
    built = _run(
        [sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "-w", str(dist), "-q"],
        tmp_path,
        {**_base_env(), "PIP_DISABLE_PIP_VERSION_CHECK": "1"},
    )
    assert built.returncode == 0, built.stderr
    (wheel,) = dist.glob("carioca_conformance-*.whl")
    assert wheel.name.startswith(f"carioca_conformance-{__version__}-")

    names = set(zipfile.ZipFile(wheel).namelist())
    scenarios = sorted(p.relative_to(ROOT / "scenarios") for p in ROOT.glob("scenarios/**/*.yaml"))
    assert {f"conformance/corpus/{p.as_posix()}" for p in scenarios} <= names
    schemas = [p.relative_to(ROOT) for p in (ROOT / "conformance" / "schemas").rglob("*.json")]
    data = [p.relative_to(ROOT) for p in (ROOT / "conformance" / "data").glob("*.json")]
    reference = [p.relative_to(ROOT) for p in (ROOT / "reference").glob("*.py")]
    assert "conformance/data/catalogue.json" in names
    # PEP 561: an engine author's type checker reads the harness's annotations.
    assert "conformance/py.typed" in names
    for path in (*schemas, *data, *reference):
        assert path.as_posix() in names, f"the wheel lacks {path}"
    entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    points = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "carioca = conformance.pytest_plugin" in points
    assert "carioca-conformance = conformance.cli:main" in points

    site = tmp_path / "site"
    installed = _run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "-q",
            "--target",
            str(site),
            str(wheel),
        ],
        tmp_path,
        _base_env(),
    )
    assert installed.returncode == 0, installed.stderr
    # Outside any checkout, with only the installed copy on the path before site-packages.
    away = tmp_path / "engine-repo"
    away.mkdir()
    env = {**_base_env(), "PYTHONPATH": str(site)}
    where = _run(
        [sys.executable, "-c", "import conformance, reference; print(conformance.__file__)"],
        away,
        env,
    )
    assert where.stdout.strip() == str(site / "conformance" / "__init__.py")

    version = _run([sys.executable, "-m", "conformance", "--version"], away, env)
    assert version.stdout.strip() == f"carioca-conformance {__version__} (corpus {CORPUS_VERSION})"

    checked = _run([sys.executable, "-m", "conformance", "check"], away, env)
    assert checked.returncode == 0, checked.stderr
    count = len(load_corpus([ROOT / "scenarios"]).scenarios)
    assert f"{count} scenarios in {len(scenarios)} files: OK" in checked.stdout
    assert str(site / "conformance" / "corpus") in checked.stdout

    # The reference it starts is the installed one (python -m reference.adapter).
    report = away / "perla.json"
    ran = _run(
        [
            sys.executable,
            "-m",
            "conformance",
            "run",
            "--profile",
            "perla",
            "-q",
            "--json",
            str(report),
        ],
        away,
        env,
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    header = json.loads(report.read_text(encoding="utf-8"))["header"]
    assert header["harness_version"] == __version__
    assert header["corpus_version"] == CORPUS_VERSION

    # The plugin of the installed copy, set up by an ini file alone.
    (away / "pytest.ini").write_text(
        "[pytest]\ncarioca_adapter = python -m reference.adapter --profiles perla\n",
        encoding="utf-8",
    )
    perla = sum("perla" in s.profiles for s in load_corpus([ROOT / "scenarios"]).scenarios)
    plugin_argv = [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider"]
    plugin = _run(plugin_argv, away, env)
    assert plugin.returncode == 0, plugin.stdout[-3000:]
    # Every Perla case ran: passed, or skipped as written for an interface reading (runs the
    # engine arranges, lay-off ends it picks) the reference does not declare.
    summary = re.search(r"([0-9]+) passed(?:, ([0-9]+) skipped)? in ", plugin.stdout)
    assert summary is not None, plugin.stdout[-3000:]
    assert int(summary[1]) + int(summary[2] or 0) == perla
    assert int(summary[2] or 0) == len(re.findall("written for engines with run_", plugin.stdout))


def _base_env() -> dict[str, str]:
    """A plain environment: this interpreter's folder first on PATH, and nothing that would
    put the source tree on the path."""
    import os

    keep = ("HOME", "LANG", "LC_ALL", "TMPDIR", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL")
    env = {key: os.environ[key] for key in keep if key in os.environ}
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), "/usr/bin", "/bin"])
    return env
