"""conformance/__init__.py: the library's entry points, exported and imported on first use."""

from __future__ import annotations

import subprocess
import sys

import conformance


def test_every_entry_point_is_exported_and_resolves_to_its_module() -> None:
    assert set(conformance.__all__) - {"CORPUS_VERSION", "__version__"} == set(
        conformance._ENTRY_POINTS
    )
    for name, module in conformance._ENTRY_POINTS.items():
        value = getattr(conformance, name)
        assert value is getattr(sys.modules[module], name), name


def test_an_unknown_name_is_an_attribute_error() -> None:
    try:
        conformance.no_such_entry_point  # noqa: B018
    except AttributeError as exc:
        assert "no_such_entry_point" in str(exc)
    else:
        raise AssertionError("an unknown name resolved")


def test_asking_the_version_imports_only_the_version() -> None:
    code = (
        "import sys, conformance; "
        "print(sorted(m for m in sys.modules if m.startswith('conformance')))"
    )
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert shown.stdout.strip() == "['conformance', 'conformance.version']"
