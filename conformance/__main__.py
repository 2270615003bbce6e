"""Allow ``python -m conformance``."""

import sys

from conformance.cli import main

# Guarded: fuzz's worker processes (multiprocessing, spawn) import this module by name.
if __name__ == "__main__":
    sys.exit(main())
