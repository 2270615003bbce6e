"""smoke's in-flight probe tells, every time and with no timing, an adapter that takes one
read of its stdin for one request (tests/fake_adapters/chunking_proxy.py)."""

from __future__ import annotations

import sys
from pathlib import Path

from conformance.laws.smoke import smoke

ADAPTERS = Path(__file__).resolve().parents[1] / "fake_adapters"
CHUNKING = [sys.executable, str(ADAPTERS / "chunking_proxy.py")]
DECLARING = [sys.executable, str(ADAPTERS / "declaring_proxy.py")]


def test_an_adapter_reading_two_requests_as_one_fails_the_probe_every_time() -> None:
    # Three runs: each must fail. The two requests go in one write, so they reach the
    # adapter in one read whatever the scheduling (a run sending them ahead did 1 in 3).
    for _ in range(3):
        result = smoke(CHUNKING, timeout=10.0)
        (check,) = [c for c in result.checks if c.name == "in flight"]
        assert not check.ok, check.detail
        assert "declares max_in_flight 2" in check.detail
        assert "not answered in turn" in check.detail
        assert result.verdict == "broken_adapter"
        # Everything but the in-flight probe passes: only that probe could tell.
        assert [c.name for c in result.checks if not c.ok] == ["in flight"]


def test_a_line_reading_adapter_passes_the_same_probe() -> None:
    result = smoke([*DECLARING, "--hello", '{"max_in_flight": 2}'], timeout=10.0)
    (check,) = [c for c in result.checks if c.name == "in flight"]
    assert check.ok and "2 penalty requests written together" in check.detail
    assert result.verdict == "engine_ok"
