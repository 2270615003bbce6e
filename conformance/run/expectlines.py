"""Where in an expectations file a node is: the lines its error messages name."""

from __future__ import annotations

from collections.abc import Sequence

from conformance.io.yamlsafe import FileProblem, duplicate_key_problem


def duplicate_keys(text: str) -> FileProblem | None:
    """A key written twice in one mapping of ``text`` (a JSON file read as the YAML it
    also is), naming both lines; None when there is none or the text is not YAML."""
    import yaml

    try:
        node = yaml.compose(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError:
        return None
    return None if node is None else duplicate_key_problem(node)


def node_line(text: str, path: Sequence[object], section: str = "expected_failures") -> int:
    """1-based line of the YAML node at ``path`` (mapping keys compared as loaded, list
    indexes), or of the deepest part of it found; 0 when the text cannot be composed.
    Only called on the way to an error, so the second parse costs nothing on a good file."""
    import yaml

    try:
        node = yaml.compose(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError:
        return 0
    constructor = yaml.SafeLoader("")
    line = 0
    for step in [section, *path]:
        if isinstance(node, yaml.MappingNode):
            found = None
            for key_node, value_node in node.value:
                try:
                    key = constructor.construct_object(key_node, deep=True)
                except (yaml.YAMLError, TypeError):
                    continue
                if type(key) is type(step) and key == step:
                    found = (key_node, value_node)
                    break
            if found is None:
                return line
            line = found[0].start_mark.line + 1
            node = found[1]
        elif isinstance(node, yaml.SequenceNode) and isinstance(step, int):
            if step >= len(node.value):
                return line
            node = node.value[step]
            line = node.start_mark.line + 1
        else:
            return line
    return line


def line_of_key(text: str, key: object) -> int:
    """1-based line where ``key`` is written as a mapping key (0 if it cannot be found)."""
    wanted = str(key)
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip().lstrip("{,").strip()
        for quote in ("", '"', "'"):
            if stripped.startswith(f"{quote}{wanted}{quote}:"):
                return number
    return 0
