"""carioca-conformance: the harness that runs Carioca engines through the adapter protocol."""

__version__ = "0.1.0"
"""Version of the harness itself."""

CORPUS_VERSION = "1"
"""Version of the scenario corpus format and content shipped with this harness.

Bumped whenever scenarios are added, removed or their expectations change, so that a
report says which corpus an engine was graded against.
"""

__all__ = ["CORPUS_VERSION", "__version__"]
