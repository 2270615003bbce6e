"""conformance/adapter/engine.py, split: each part reads in one sitting, old imports
work."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "conformance" / "adapter"
PARTS = [
    "engine",
    "handshake",
    "pipes",
    "process",
    "memlimit",
    "watchdog",
    "_watchdog_child",
    "inprocess",
]


def test_the_names_other_modules_import_from_engine_still_resolve() -> None:
    from conformance.adapter import engine
    from conformance.adapter.handshake import Handshake, default_players
    from conformance.adapter.process import kill_live_adapters, refuse_new_sessions

    assert engine.Handshake is Handshake
    assert engine.default_players is default_players
    assert engine.refuse_new_sessions is refuse_new_sessions
    assert engine.kill_live_adapters is kill_live_adapters
    for name in ("EngineSession", "Ahead", "Request", "DEFAULT_TIMEOUT", "HandshakeError"):
        assert hasattr(engine, name), name


@pytest.mark.parametrize("name", PARTS)
def test_each_part_is_a_module_and_classes_of_a_sitting(name: str) -> None:
    source = (PACKAGE / f"{name}.py").read_text(encoding="utf-8")
    assert len(source.splitlines()) <= 1000
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef):
            assert node.end_lineno is not None
            assert node.end_lineno - node.lineno < 320, f"{name}.{node.name}"
