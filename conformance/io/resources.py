"""Where the files shipped inside the harness live: data/, schemas/, the packaged corpus.

One place answers, through :mod:`importlib.resources`, so that no module works out a path
from its own depth in the package (and none breaks when a module moves).
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

#: The package whose files these are.
PACKAGE = "conformance"


def package_root() -> Path:
    """The folder of the installed ``conformance`` package."""
    return Path(str(resources.files(PACKAGE)))


def package_file(*parts: str) -> Path:
    """A file or folder shipped inside the package, e.g. ``package_file("data", "x.json")``."""
    return package_root().joinpath(*parts)
