"""Shared pytest configuration: the hypothesis profiles.

``HYPOTHESIS_PROFILE`` picks one (default ``dev``); tox sets ``ci``, ``tox -e props-long``
sets ``long``. ``ci`` is derandomized so a CI failure replays identically, and prints the
reproduction blob so it can be replayed locally with ``@reproduce_failure``.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

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
