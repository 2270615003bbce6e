"""Shared pytest configuration: the hypothesis profiles, `tests` importable as a package, and
the ``slow`` tests left out of a plain run.

``HYPOTHESIS_PROFILE`` picks one (default ``dev``); tox sets ``ci``, ``tox -e props-long``
sets ``long``. ``ci`` is derandomized so a CI failure replays identically, and prints the
reproduction blob so it can be replayed locally with ``@reproduce_failure``.

Tests marked ``slow`` are left out of a plain ``pytest`` and of ``tox`` (see
tests/slow_selection.py); ``tox -e slow``, which CI runs after ``tox``, runs them.

The ``reference_in_process`` fixture serves the reference adapter's command in the test's
own process (tests/adapters.py), for tests that need an engine that answers, not a process.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# Test modules import helpers as ``tests.mutants`` and ``tests.strategies``; `pytest` (as tox
# runs it) does not put the checkout on sys.path. Appended, so `conformance` and `reference`
# still come from the installed package.
_ROOT = str(Path(__file__).resolve().parents[1])
if _ROOT not in sys.path:
    sys.path.append(_ROOT)

# ``--cpu-durations=N``: the costliest tests in CPU seconds, a measure the machine's load
# hardly moves; the ``slow`` tests left out of a run that does not ask for them.
pytest_plugins = ["tests.cpu_durations", "tests.slow_selection"]

settings.register_profile(
    "ci",
    derandomize=True,
    max_examples=50,
    deadline=None,
    print_blob=True,
    # Game-state strategies play real deals before the test body runs; that is the point,
    # not a slow generator to be warned about.
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile("dev", max_examples=100, deadline=None)
settings.register_profile(
    "long",
    max_examples=2000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


@pytest.fixture
def reference_in_process() -> Iterator[None]:
    """Sessions started with the reference adapter's command answer in this process."""
    from tests.adapters import reference_in_process as serve

    with serve():
        yield
