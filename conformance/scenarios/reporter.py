"""Where a scenario problem is: the document's node marks, and the list problems go to."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from conformance.scenarios.model import ScenarioError
from conformance.scenarios.yamldoc import _mark, _node_at, yaml_mapping_node

if TYPE_CHECKING:
    import yaml


class Reporter:
    """Collects the problems of one document, each located by file, line, column and id.

    The checks of a document (:mod:`conformance.scenarios.semantics`, the loader in
    :mod:`conformance.scenarios.checker`) share one reporter, so every message reads alike.
    """

    def __init__(self, node: yaml.Node | None, data: Any, label: str) -> None:
        self.node = node
        self.data = data
        self.label = label
        self.errors: list[ScenarioError] = []
        self.sid: str | None = None
        if isinstance(data, Mapping) and isinstance(data.get("id"), str):
            self.sid = data["id"]

    def line_of(self, path: Sequence[Any]) -> int:
        """The 1-based line of the node at ``path`` (0 without a node); for a mapping key,
        the line of the key itself (a block value starts on the line after it)."""
        if path and isinstance(path[-1], str):
            parent = _node_at(self.node, path[:-1])
            if parent is not None and isinstance(parent, yaml_mapping_node()):
                for key_node, _ in parent.value:
                    if str(key_node.value) == path[-1]:
                        return int(key_node.start_mark.line) + 1
        return _mark(self.node, path)[0]

    def error(self, message: str, path: Sequence[Any] = ()) -> None:
        """Record a problem at ``path`` of the document."""
        line, column = _mark(self.node, path)
        error = ScenarioError(
            message, file=self.label, line=line, column=column, scenario_id=self.sid
        )
        # A setup checked once per listed profile may show one problem twice: say it once.
        if str(error) not in {str(e) for e in self.errors}:
            self.errors.append(error)
