"""The install line README.md and docs/pytest-plugin.md give an engine's repository works as
written: the ref it names exists, and pip installs the harness from a clone of this repository
by that line (the URL standing for "this repository's URL" is a local clone's)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conformance import CORPUS_VERSION, __version__
from tests.paths import ROOT

README_LINE = re.compile(
    r'`python -m pip install "carioca-conformance @ git\+<this repository\'s URL>@([\w./-]+)"`'
)
PLUGIN_REF = re.compile(
    r"git\+https://git\.example\.org/carioca/carioca-conformance\.git@([\w./-]+)"
)


def _ref() -> str:
    """The ref README's install line names."""
    found = README_LINE.search((ROOT / "README.md").read_text(encoding="utf-8"))
    assert found, "README.md no longer gives the install line this test runs"
    return found[1]


def _git(*argv: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", *argv], cwd=cwd, capture_output=True, text=True, check=False, timeout=120
    )


def _checkout() -> None:
    if shutil.which("git") is None or _git("rev-parse", "--git-dir").returncode != 0:
        pytest.skip("not a git checkout: the install line names a ref of the repository")


def test_every_install_line_names_the_same_ref() -> None:
    page = (ROOT / "docs" / "pytest-plugin.md").read_text(encoding="utf-8")
    refs = set(PLUGIN_REF.findall(page))
    assert refs == {_ref()}, refs


def test_the_ref_of_the_install_line_exists_in_this_repository() -> None:
    _checkout()
    ref = _ref()
    known = [
        _git("rev-parse", "--verify", "--quiet", f"{name}^{{commit}}")
        for name in (ref, f"origin/{ref}")
    ]
    assert any(k.returncode == 0 for k in known), f"no branch, tag or commit {ref!r} here"


@pytest.mark.slow
def test_pip_installs_the_harness_by_the_readme_line_from_a_clone(tmp_path: Path) -> None:
    _checkout()
    ref = _ref()
    # The served repository: a bare clone whose `ref` is the commit under test (HEAD), so the
    # line is tried against this code, not against whatever the branch held before.
    served = tmp_path / "carioca-conformance.git"
    assert _git("clone", "--quiet", "--bare", str(ROOT), str(served)).returncode == 0
    head = _git("rev-parse", "HEAD").stdout.strip()
    if _git("rev-parse", "--verify", "--quiet", f"refs/tags/{ref}").returncode == 0:
        assert _git("tag", "-f", ref, head, cwd=served).returncode == 0
    else:
        assert _git("update-ref", f"refs/heads/{ref}", head, cwd=served).returncode == 0
    # pip's URL parser wants a host in a file URL: file://localhost/path.
    line = f"carioca-conformance @ git+file://localhost{served}@{ref}"
    site = tmp_path / "site"
    pip = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site), line]
    env = _plain_env()
    installed = subprocess.run(
        pip, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600, check=False
    )
    assert installed.returncode == 0, installed.stderr[-3000:]
    away = tmp_path / "engine-repo"
    away.mkdir()
    env["PYTHONPATH"] = str(site)
    version = subprocess.run(
        [sys.executable, "-m", "conformance", "--version"],
        cwd=away,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert version.stdout.strip() == f"carioca-conformance {__version__} (corpus {CORPUS_VERSION})"
    where = subprocess.run(
        [sys.executable, "-c", "import conformance; print(conformance.__file__)"],
        cwd=away,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert where.stdout.strip() == str(site / "conformance" / "__init__.py")


def _plain_env() -> dict[str, str]:
    """An environment without the checkout on the path (pip's index settings kept)."""
    import os

    keep = ("HOME", "LANG", "LC_ALL", "TMPDIR", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL")
    env = {key: os.environ[key] for key in keep if key in os.environ}
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), "/usr/bin", "/bin"])
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env
