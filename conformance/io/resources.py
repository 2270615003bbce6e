"""Where the files shipped inside the harness live: data/, schemas/, the packaged corpus.

One place answers, so that no module works out a path from its own depth in the package
(and none breaks when a module moves).
"""

from __future__ import annotations

import sys
from pathlib import Path

#: The package whose files these are.
PACKAGE = "conformance"


def package_root() -> Path:
    """The folder of the installed ``conformance`` package."""
    # The folder of the package's __init__, which is what importlib.resources.files gives
    # for a package on disk, without importing importlib.resources (and zipfile and
    # tempfile with it): every start of the command line asks, ``check`` among them.
    origin = sys.modules[PACKAGE].__file__
    if origin is not None:
        return Path(origin).parent
    from importlib import resources

    return Path(str(resources.files(PACKAGE)))


def package_file(*parts: str) -> Path:
    """A file or folder shipped inside the package, e.g. ``package_file("data", "x.json")``."""
    return package_root().joinpath(*parts)
