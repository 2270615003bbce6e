"""Where the tests find the checkout: one definition for every test module.

(tests/conftest.py computes the same path once more, to put the checkout on ``sys.path``
before ``tests`` can be imported.)
"""

from __future__ import annotations

from pathlib import Path

#: The checkout: tests/ is its child.
ROOT = Path(__file__).resolve().parents[1]
#: The fake adapters and proxies tests run as processes.
FAKE_ADAPTERS = ROOT / "tests" / "fake_adapters"
