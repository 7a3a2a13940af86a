"""YAML for config.yml: PyYAML's safe loader, stricter.

A key written twice is refused (PyYAML keeps the last silently), and so are a
recursive anchor and an alias bomb (a few lines expanding to millions of
values); each as a YAML error with its line, which load_config reports.
"""

from __future__ import annotations

from typing import Any

import yaml

from bot.config.redact import show

# A config is a few hundred values: more (after expanding aliases) is an alias
# bomb, and would take minutes and gigabytes to walk.
MAX_YAML_NODES = 10_000


class ConfigLoader(yaml.SafeLoader):
    """safe_load that refuses duplicate keys, recursive aliases and alias bombs."""

    def compose_document(self) -> Any:
        node = super().compose_document()
        _check_node_graph(node)
        return node

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        seen: dict[Any, Any] = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge" or \
                    not isinstance(key_node, yaml.ScalarNode):
                continue
            if key_node.value in seen:
                first = seen[key_node.value]
                raise YamlShapeError(
                    f"key {show(key_node.value)} appears twice (first at line "
                    f"{first.line + 1}); remove one of them", key_node.start_mark)
            seen[key_node.value] = key_node.start_mark
        return super().construct_mapping(node, deep)


class YamlShapeError(yaml.YAMLError):
    def __init__(self, problem: str, mark: Any) -> None:
        super().__init__(problem)
        self.problem, self.problem_mark = problem, mark


def _check_node_graph(root: Any) -> None:
    """Count the nodes the document expands to (aliases included), refusing a cycle."""
    sizes: dict[int, int] = {}
    on_path: set[int] = set()
    # Iterative depth-first walk: a deep document must not hit Python's recursion limit.
    stack: list[tuple[Any, bool]] = [(root, False)] if root is not None else []
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            on_path.discard(key)
            size = 1 + sum(sizes[id(c)] for c in _children(node))
            if size > MAX_YAML_NODES:
                raise YamlShapeError(f"the document expands to more than {MAX_YAML_NODES} "
                                      f"values (aliases repeated many times?); write the "
                                      f"values out", node.start_mark)
            sizes[key] = size
            continue
        if key in sizes:
            continue
        if key in on_path:
            raise YamlShapeError("an alias refers to a value that contains it (a recursive "
                                  "anchor); write the value out", node.start_mark)
        on_path.add(key)
        stack.append((node, True))
        for child in _children(node):
            if id(child) in on_path:
                raise YamlShapeError("an alias refers to a value that contains it (a "
                                      "recursive anchor); write the value out",
                                      child.start_mark)
            if id(child) not in sizes:
                stack.append((child, False))


def _children(node: Any) -> list[Any]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    return []

