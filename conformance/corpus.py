"""Locating the default scenario corpus."""

from __future__ import annotations

from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent


def default_corpus_dir() -> Path:
    """Return the directory holding the default corpus.

    An installed wheel carries the corpus inside the package as ``conformance/corpus``
    (pyproject.toml force-includes ``scenarios/`` there); an editable install or a
    checkout has it at ``<repo root>/scenarios``. The packaged copy wins because it is
    the one matching this harness version.

    :raises FileNotFoundError: when neither location exists.
    """
    packaged = _PACKAGE_DIR / "corpus"
    if packaged.is_dir():
        return packaged
    checkout = _PACKAGE_DIR.parent / "scenarios"
    if checkout.is_dir():
        return checkout
    raise FileNotFoundError(
        f"no scenario corpus found (looked in {packaged} and {checkout}); pass --corpus PATH"
    )


def scenario_files(paths: list[Path] | tuple[Path, ...]) -> list[Path]:
    """Expand files and directories into the sorted list of scenario YAML files.

    Directories are searched recursively for ``*.yaml`` and ``*.yml``; the order is
    sorted per argument so that corpus order is stable across machines.

    :raises FileNotFoundError: when a path does not exist.
    """
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            found = [p for p in path.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file()]
            files.extend(sorted(found))
        elif path.is_file():
            files.append(path)
        else:
            raise FileNotFoundError(f"no such scenario file or directory: {path}")
    return files
