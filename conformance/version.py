"""The harness's version and its corpus's: the bottom layer, which every report names.

Kept apart from the package root, which is the front door (the library's entry points,
conformance/__init__.py): a module that needs the version never imports the door.
"""

from __future__ import annotations

__version__ = "0.1.0"
"""Version of the harness itself."""

CORPUS_VERSION = "1"
"""Version of the scenario corpus format and content shipped with this harness.

Bumped whenever scenarios are added, removed or their expectations change, so that a
report says which corpus an engine was graded against.
"""

__all__ = ["CORPUS_VERSION", "__version__"]
