"""Limits on scenario and expectations files: size, expansion, encoding.

PyYAML's safe loader never runs code, but it will happily describe a document that
expands to billions of nodes ("billion laughs": nested anchors and aliases), and the
checks after it (schema validation, copies, digests) walk the expanded tree. A 50 MB
list is no better. So a file is refused, with its file and line, when:

- it is larger than :data:`MAX_FILE_BYTES` (the largest corpus file is under 20 KB);
- it is not UTF-8 (the line and column of the first bad byte are given);
- it may nest more than :data:`MAX_DEPTH` levels (libyaml would crash the process);
- one document would expand to more than :data:`MAX_NODES` nodes, counting every
  alias as the copy it stands for, or an alias refers to a node that contains it.

The expansion is counted on the composed node graph, once per distinct node, so
counting a bomb costs as little as reading it. Files that cannot hold an alias (no
``*``) and are small are not walked at all: normal loading keeps libyaml's speed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:  # imported where used: a load from the cache needs no YAML at all
    import yaml

#: Largest scenario or expectations file accepted, in bytes.
MAX_FILE_BYTES: Final = 1024 * 1024
#: Most nodes one YAML document may expand to (the largest corpus document has ~600).
MAX_NODES: Final = 100_000
#: Deepest nesting accepted. libyaml's composer recurses in C and crashes the whole
#: process (SIGSEGV) somewhere past 20,000 levels; the corpus nests about 8 deep.
MAX_DEPTH: Final = 1000
#: Below this size a document without aliases cannot come near MAX_NODES: skip the walk.
_WALK_FROM_BYTES: Final = 64 * 1024


_BRACKETS: Final = re.compile(r"[\[\]{}]")


@dataclass(frozen=True)
class FileProblem:
    """Why a file was refused, and where (1-based line and column; 1:1 for the whole file)."""

    message: str
    line: int = 1
    column: int = 1


def read_limited_text(path: Path, max_bytes: int = MAX_FILE_BYTES) -> str | FileProblem:
    """The UTF-8 text of ``path``, or the problem: too large, not UTF-8.

    :raises OSError: when the file cannot be read at all (the caller words that).
    """
    import os
    import stat

    # Opened without waiting (a FIFO would block until a writer came) and refused unless
    # it is a regular file: /dev/zero or a FIFO is never a scenario or expectations file.
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    with os.fdopen(fd, "rb") as handle:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            from conformance.io.files import file_kind

            return FileProblem(f"{file_kind(mode)}, not a regular file: nothing read")
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:
        return FileProblem(
            f"file is larger than the limit of {max_bytes} bytes "
            f"(scenario and expectations files are small; is this the right file?)"
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        return FileProblem(
            f"file is not UTF-8: byte 0x{data[exc.start]:02x} at line {line}, "
            f"column {column} ({exc.reason})",
            line,
            column,
        )


def nesting_problem(text: str, max_depth: int = MAX_DEPTH) -> FileProblem | None:
    """Refuse text that may nest deeper than ``max_depth`` before any parser sees it.

    An over-estimate, cheap and parser-free: the deepest point of the flow brackets on
    a line (counting those still open from earlier lines), plus the line's indentation,
    ``- `` items and ``: `` keys (each level of block nesting needs at least one of those
    characters). Ordinary files are far below it; the quick test on the whole text
    spares them the per-line pass.
    """
    lines = text.splitlines()
    openers = text.count("[") + text.count("{")
    if openers + max(map(len, lines), default=0) <= max_depth:
        return None
    depth = 0
    for number, line in enumerate(lines, 1):
        deepest = depth
        if "[" in line or "{" in line or "]" in line or "}" in line:
            for bracket in _BRACKETS.findall(line):
                depth = depth + 1 if bracket in "[{" else max(depth - 1, 0)
                deepest = max(deepest, depth)
        stripped = line.lstrip(" ")
        block = len(line) - len(stripped) + stripped.count("- ") + stripped.count(": ")
        if deepest + block > max_depth:
            return FileProblem(
                f"the document may nest more than {max_depth} levels deep here; refused "
                "(the YAML parser could crash on it)",
                number,
                1,
            )
    return None


def may_need_walk(text: str) -> bool:
    """True unless ``text`` is small and has no ``*`` (so no alias): then no walk is needed."""
    return len(text) >= _WALK_FROM_BYTES or "*" in text


def _children(node: yaml.Node) -> list[yaml.Node]:
    import yaml

    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def expansion_problem(root: yaml.Node, max_nodes: int = MAX_NODES) -> FileProblem | None:
    """Refuse a document expanding to more than ``max_nodes`` nodes, or with a cycle.

    Each distinct node is visited once (sizes are memoised), so a bomb of 10**30 nodes
    costs a few dozen steps. The problem names the line of the smallest part of the
    document that is already too large (where the aliases pile up).
    """
    sizes: dict[int, int] = {}
    state: dict[int, int] = {}  # 1: being counted, 2: done
    # Iterative post-order walk: a hostile document may nest deeper than the stack.
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        if children_done:
            total = 1 + sum(sizes[id(child)] for child in _children(node))
            sizes[key] = min(total, max_nodes + 1)
            state[key] = 2
            continue
        if state.get(key) == 2:
            continue
        if state.get(key) == 1:
            mark = node.start_mark
            return FileProblem(
                "an alias refers to a node that contains it (a recursive document)",
                mark.line + 1,
                mark.column + 1,
            )
        state[key] = 1
        stack.append((node, True))
        for child in _children(node):
            if state.get(id(child)) == 1:
                mark = child.start_mark
                return FileProblem(
                    "an alias refers to a node that contains it (a recursive document)",
                    mark.line + 1,
                    mark.column + 1,
                )
            if state.get(id(child)) != 2:
                stack.append((child, False))
    if sizes[id(root)] <= max_nodes:
        return None
    # Go down while a child alone is still too large: that is where the blow-up is.
    node = root
    while True:
        big = [c for c in _children(node) if sizes[id(c)] > max_nodes]
        if not big:
            break
        node = big[0]
    mark = node.start_mark
    return FileProblem(
        f"the document expands to more than {max_nodes} nodes (anchors and aliases "
        "repeated into a huge tree, or simply too much data); refused",
        mark.line + 1,
        mark.column + 1,
    )


def duplicate_key_problem(root: yaml.Node) -> FileProblem | None:
    """The first mapping key written twice in one mapping (YAML's safe loader keeps the
    last silently), naming both lines; None when every key is unique."""
    import yaml

    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            first: dict[tuple[str, str], int] = {}
            for key, _value in node.value:
                if not isinstance(key, yaml.ScalarNode) or key.tag.endswith(":merge"):
                    continue
                line = key.start_mark.line + 1
                earlier = first.get((key.tag, key.value))
                first.setdefault((key.tag, key.value), line)
                if earlier is not None:
                    return FileProblem(
                        f"the key {key.value[:80]!r} is written twice in one mapping, at "
                        f"lines {earlier} and {line} (YAML would keep the second silently)",
                        line,
                        key.start_mark.column + 1,
                    )
        stack.extend(_children(node))
    return None


def load_yaml_limited(text: str, *, unique_keys: bool = False) -> object | FileProblem:
    """Safe-load a single YAML document from ``text`` within the limits above;
    ``unique_keys``: a key written twice in one mapping is a problem too.

    :raises yaml.YAMLError: on a syntax error (the caller locates it).
    """
    import yaml

    deep = nesting_problem(text)
    if deep is not None:
        return deep
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        if may_need_walk(text):
            problem = expansion_problem(node)
            if problem is not None:
                return problem
        if unique_keys:
            duplicate = duplicate_key_problem(node)
            if duplicate is not None:
                return duplicate
        data: object = loader.construct_document(node)
        return data
    finally:
        loader.dispose()


def read_yaml_file(path: Path, error: type[Exception], what: str = "YAML") -> object:
    """The one YAML (or JSON) document in the file at ``path``, read and loaded within the
    limits above; any problem raises ``error`` with a message naming the file (and the line,
    where known). ``what``: the format named when the text does not parse.
    """
    import yaml

    try:
        text = read_limited_text(path)
    except OSError as exc:
        raise error(f"{path}: cannot read: {exc.strerror or exc}") from None
    if isinstance(text, FileProblem):
        raise error(f"{path}:{text.line}: {text.message}")
    try:
        data = load_yaml_limited(text)
    except yaml.YAMLError as exc:
        raise error(f"{path}: not {what}: {exc}") from None
    if isinstance(data, FileProblem):
        raise error(f"{path}:{data.line}: {data.message}")
    return data


__all__ = [
    "MAX_DEPTH",
    "MAX_FILE_BYTES",
    "MAX_NODES",
    "FileProblem",
    "duplicate_key_problem",
    "expansion_problem",
    "load_yaml_limited",
    "may_need_walk",
    "nesting_problem",
    "read_limited_text",
    "read_yaml_file",
]
