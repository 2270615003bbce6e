"""Locating the default scenario corpus."""

from __future__ import annotations

from pathlib import Path

from conformance.io.resources import package_root

_PACKAGE_DIR = package_root()


#: The project name in a checkout's pyproject.toml: how a checkout is told from any folder.
_PROJECT_LINE = 'name = "carioca-conformance"'


def find_checkout(start: Path | None = None) -> Path | None:
    """The root of the carioca-conformance checkout holding ``start`` (default: the cwd).

    A checkout is a folder with this project's ``pyproject.toml`` and a ``scenarios/``
    folder. Inside one, a contributor edits *its* scenarios and catalogue, so those are the
    ones to read, even when an installed (non-editable) copy of the harness runs.
    """
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        project = folder / "pyproject.toml"
        if (folder / "scenarios").is_dir() and project.is_file():
            try:
                text = project.read_text(encoding="utf-8")
            except OSError:
                continue
            if _PROJECT_LINE in text:
                return folder
    return None


def default_catalogue_path() -> Path | None:
    """The checkout's catalogue when run inside a checkout, else None (the packaged one)."""
    root = find_checkout()
    if root is None:
        return None
    catalogue = root / "conformance" / "data" / "catalogue.json"
    return catalogue if catalogue.is_file() else None


def default_corpus_dir() -> Path:
    """Return the directory holding the default corpus.

    Inside a checkout (the working directory is in one, see :func:`find_checkout`) that
    checkout's ``scenarios/``, so a scenario just written is seen at once. Otherwise an
    installed wheel's copy, inside the package as ``conformance/corpus`` (pyproject.toml
    force-includes ``scenarios/`` there), the one matching this harness version; else the
    ``scenarios/`` beside the package (an editable install run from elsewhere).

    :raises FileNotFoundError: when no location exists.
    """
    root = find_checkout()
    if root is not None:
        return root / "scenarios"
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
