"""Imports point one way: the reference knows nothing of the harness, and the
harness reaches engines (the reference included) only through the protocol."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from tests.paths import ROOT


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


# --- the harness's own layers ------------------------------------------------------------

#: The harness's packages (and top-level modules) from the bottom up: a module may import
#: its own package and any layer below its own, never one above. Names on one line share
#: a layer and may not import each other.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("errors", "version"),  # the one error root; the harness's and the corpus's versions
    ("io",),  # reading and writing files safely; where the shipped files are
    ("knowledge",),  # cards, the rule catalogue, the profiles and their options
    ("scenarios",),  # the corpus: loading, checking, the load cache
    ("adapter",),  # an engine, reached only through the protocol
    ("grading",),  # one case's answers judged against its checks
    ("run",),  # a run of the corpus: selection, the runner, expectations, the verdict
    ("laws",),  # the laws over seeded deals, hostile input, the smoke test
    ("fuzz",),  # the differential fuzzer
    ("authoring",),  # recording scenarios, coverage of rules and options
    ("audit",),  # the reference audited against itself and the corpus
    ("reports",),  # causes, the console, JSON, JUnit and HTML
    ("explain",),  # the option that explains a run's failures, asked of the reference
    ("jobs",),  # the library's entry points: one profile, every profile
    ("cli", "pytest_plugin"),  # the two shells over the library
    ("__main__",),
)

#: The package root, ``conformance/__init__.py``: the front door (the library's entry
#: points), above every layer, so nothing inside the harness may import it.
ROOT_LAYER = len(LAYERS)

#: Imports that point up, each with the reason it is still there. Only ``TYPE_CHECKING``
#: imports may be listed: they cost nothing at run time, but they are still an arrow.
KNOWN_UPWARD: dict[tuple[str, str], str] = {}

#: Import circles through function-level imports, each with the reason it is still there.
KNOWN_CIRCLES: dict[frozenset[str], str] = {}


def _layer_of(module: str) -> int:
    """The index in LAYERS of a ``conformance`` module (the package root is the top)."""
    parts = module.split(".")
    if len(parts) == 1:
        return ROOT_LAYER
    for index, names in enumerate(LAYERS):
        if parts[1] in names:
            return index
    raise AssertionError(f"{module} is in no layer of LAYERS: add its package there")


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def harness_imports() -> list[tuple[str, str, tuple[str, ...], str]]:
    """Every import of a ``conformance`` module by a ``conformance`` module: (importer,
    imported module, names imported, where: ``top``, ``lazy`` or ``typing``)."""
    modules = {_module_name(p): p for p in (ROOT / "conformance").rglob("*.py")}
    found = []
    for importer, path in sorted(modules.items()):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        typing_only = {
            id(inner)
            for node in ast.walk(tree)
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
            for inner in ast.walk(node)
        }
        in_function = {
            id(inner)
            for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            for inner in ast.walk(node)
            if inner is not node
        }
        for node in ast.walk(tree):
            where = (
                "typing"
                if id(node) in typing_only
                else "lazy"
                if id(node) in in_function
                else "top"
            )
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = importer.split(".")
                    if path.name != "__init__.py":
                        base = base[:-1]
                    base = base[: len(base) - (node.level - 1)]
                    target = ".".join([*base, *([node.module] if node.module else [])])
                else:
                    target = node.module or ""
                if target.split(".")[0] != "conformance":
                    continue
                names = tuple(alias.name for alias in node.names)
                submodules = [f"{target}.{n}" for n in names if f"{target}.{n}" in modules]
                for sub in submodules:
                    found.append((importer, sub, (), where))
                if len(submodules) < len(names):
                    found.append((importer, target, names, where))
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.split(".")[0] == "conformance":
                        found.append((importer, alias.name, (), where))
    return found


def test_every_harness_package_has_a_layer() -> None:
    for path in (ROOT / "conformance").rglob("*.py"):
        _layer_of(_module_name(path))


def upward(
    arrows: list[tuple[str, str, tuple[str, ...], str]],
) -> dict[tuple[str, str], str]:
    """The arrows that point up the layers: (importer, imported) to where the import is."""
    return {
        (importer, target): where
        for importer, target, _, where in arrows
        if _layer_of(target) > _layer_of(importer)
    }


def test_harness_imports_point_down_the_layers() -> None:
    arrows = harness_imports()
    # The front door imports its version, and names the entry points for type checkers
    # only, importing them on first use (conformance/__init__.py): importing any part never
    # imports all.
    root = {(target, where) for importer, target, _, where in arrows if importer == "conformance"}
    assert {(t, w) for t, w in root if w != "typing"} == {("conformance.version", "top")}
    found = upward(arrows)
    assert {k: v for k, v in found.items() if k not in KNOWN_UPWARD} == {}
    # The exceptions are type-only, and still needed: a fixed one leaves the list.
    assert {k: found.get(k) for k in KNOWN_UPWARD} == dict.fromkeys(KNOWN_UPWARD, "typing")


def test_an_import_of_the_package_root_from_below_is_upward() -> None:
    # ``from conformance import run_request`` inside grading/ reaches the front door, and
    # through it jobs: an upward arrow, however the name is then resolved.
    arrow = ("conformance.grading.ledger", "conformance", ("run_request",), "top")
    assert upward([arrow]) == {("conformance.grading.ledger", "conformance"): "top"}
    # A submodule named through the root (``from conformance import scenarios``) is not.
    inner = ("conformance.run.selection", "conformance.scenarios", (), "top")
    assert upward([inner]) == {}


def test_no_private_name_crosses_a_package() -> None:
    def package(module: str) -> str:
        return ".".join(module.split(".")[:2])

    crossing = [
        (importer, target, name)
        for importer, target, names, _ in harness_imports()
        for name in names
        if name.startswith("_")
        and not name.startswith("__")
        and package(importer) != package(target)
    ]
    assert crossing == []


def test_no_import_circle() -> None:
    graph: dict[str, set[str]] = {}
    for importer, target, _, where in harness_imports():
        if where != "typing" and target != importer:
            graph.setdefault(importer, set()).add(target)
    circles = [frozenset(c) for c in _strongly_connected(graph) if len(c) > 1]
    assert [c for c in circles if c not in KNOWN_CIRCLES] == []
    assert set(KNOWN_CIRCLES) <= set(circles), "a known circle is gone: drop it from the list"


def _strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components, iteratively (no recursion limit)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                found.append(component)
    return found


def test_the_layering_checks_see_an_upward_import_and_a_circle() -> None:
    # Guard against checks that silently pass: the walker finds real arrows, a made-up
    # upward arrow is caught by the order, and a made-up circle by the search.
    arrows = harness_imports()
    assert ("conformance.run.runner", "conformance.grading.walk", (), "top") in {
        (a, b, (), w) for a, b, _, w in arrows
    }
    assert _layer_of("conformance.io.files") < _layer_of("conformance.run.runner")
    assert [sorted(c) for c in _strongly_connected({"a": {"b"}, "b": {"a"}})] == [["a", "b"]]
