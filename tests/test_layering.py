"""Imports point one way: the reference knows nothing of the harness, and the
harness reaches engines (the reference included) only through the protocol."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def imported_top_levels(package: str) -> dict[str, set[str]]:
    """Map each module file of ``package`` to the top-level names it imports."""
    found: dict[str, set[str]] = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        names: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
        found[str(path.relative_to(ROOT))] = names
    return found


def test_reference_imports_only_the_stdlib_and_itself() -> None:
    allowed = set(sys.stdlib_module_names) | {"reference", "__future__"}
    offenders = {
        path: sorted(names - allowed)
        for path, names in imported_top_levels("reference").items()
        if names - allowed
    }
    assert offenders == {}


@pytest.mark.parametrize("package", ["conformance"])
def test_harness_never_imports_the_reference(package: str) -> None:
    modules = imported_top_levels(package)
    offenders = [path for path, names in modules.items() if "reference" in names]
    assert offenders == []


def test_the_layering_check_sees_imports() -> None:
    # Guard against a walker that silently finds nothing (e.g. a moved folder).
    modules = imported_top_levels("reference")
    assert any("reference" in names for names in modules.values())
