"""Reading scenario YAML safely, with node positions for every message, and the schema."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from conformance.io.resources import package_file

if TYPE_CHECKING:  # imported where used: a load from the cache needs no YAML at all
    import yaml

from conformance.io.validation import SchemaValidator
from conformance.io.yamlsafe import (
    FileProblem,
    expansion_problem,
    may_need_walk,
    nesting_problem,
    read_limited_text,
)
from conformance.scenarios.model import ScenarioError

SCHEMA_PATH = package_file("schemas", "scenario.schema.json")

# --------------------------------------------------------------------------- YAML


@cache
def _validator() -> SchemaValidator:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return SchemaValidator(schema)


def _jsonable(value: Any) -> Any:
    # JSON Schema only knows string keys; YAML gives ints for `hands: {1: [...]}`.
    if isinstance(value, Mapping):
        return {_key(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    return value


def _key(key: Any) -> str:
    return str(key).lower() if isinstance(key, bool) else str(key)


def yaml_mapping_node() -> type:
    """PyYAML's mapping node class (imported when first needed)."""
    import yaml

    return yaml.MappingNode


def _node_at(node: yaml.Node | None, path: Sequence[Any]) -> yaml.Node | None:
    """The node at ``path`` (or its deepest existing parent); None without a node."""
    if node is None:
        return None
    import yaml

    current = node
    for part in path:
        nxt: yaml.Node | None = None
        if isinstance(current, yaml.MappingNode):
            for key_node, value_node in current.value:
                if str(key_node.value) == str(part):
                    nxt = value_node
                    break
        elif (
            isinstance(current, yaml.SequenceNode)
            and isinstance(part, int)
            and 0 <= part < len(current.value)
        ):
            nxt = current.value[part]
        if nxt is None:
            break
        current = nxt
    return current


def _mark(node: yaml.Node | None, path: Sequence[Any]) -> tuple[int, int]:
    """1-based line and column of the node at ``path`` (or of its deepest existing parent)."""
    current = _node_at(node, path)
    if current is None:
        return 0, 0
    return current.start_mark.line + 1, current.start_mark.column + 1


def _pointer(path: Iterable[Any]) -> str:
    return "/" + "/".join(str(p).replace("~", "~0").replace("/", "~1") for p in path)


def _interned(value: Any) -> Any:
    """``value`` with its strings interned: a card code is then one object however often the
    corpus names it, so the load cache stores it once and loads many times faster."""
    if type(value) is str:
        return sys.intern(value)
    if type(value) is list:
        return [_interned(item) for item in value]
    if type(value) is dict:
        return {_interned(key): _interned(item) for key, item in value.items()}
    return value


def _read_documents(path: Path, label: str) -> Iterator[tuple[yaml.Node, Any] | ScenarioError]:
    import yaml

    try:
        text = read_limited_text(path)
    except OSError as exc:
        yield ScenarioError(
            f"cannot read file: {exc.strerror or exc}", file=label, line=1, column=1
        )
        return
    if isinstance(text, FileProblem):
        yield ScenarioError(text.message, file=label, line=text.line, column=text.column)
        return
    deep = nesting_problem(text)
    if deep is not None:
        yield ScenarioError(deep.message, file=label, line=deep.line, column=deep.column)
        return
    walk = may_need_walk(text)
    # libyaml's safe loader when present (several times faster), the pure one otherwise;
    # both keep node marks for line numbers and construct only plain data.
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)(text)
    try:
        while loader.check_node():
            node = loader.get_node()
            if node is None:
                continue
            # Aliases (or sheer size) could make the checks below walk a huge tree.
            too_big = expansion_problem(node) if walk else None
            if too_big is not None:
                yield ScenarioError(
                    too_big.message, file=label, line=too_big.line, column=too_big.column
                )
                continue
            yield node, _interned(loader.construct_document(node))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        line = mark.line + 1 if mark is not None else 0
        column = mark.column + 1 if mark is not None else 0
        problem = getattr(exc, "problem", None) or str(exc)
        yield ScenarioError(f"YAML syntax error: {problem}", file=label, line=line, column=column)
    except RecursionError:
        # The pure-Python loader (no libyaml) recurses per nesting level.
        yield ScenarioError("the document nests too deeply", file=label, line=1, column=1)
    finally:
        loader.dispose()
