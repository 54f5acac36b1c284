"""YAML that people write or record (scenario files, cassettes), read with bounds. PyYAML's safe loader
shares a node that aliases repeat, but what it builds expands them: a 1 kB "billion laughs" document means
a billion values. Here the composed graph is measured before anything is built; and a document nested past
the parser's recursion is an error, not a crash. The home of pyyaml.
"""

from __future__ import annotations

from typing import Any

import yaml

MAX_NODES = 1_000_000  # values a document may mean, its aliases expanded
SafeLoader: type[Any] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's, when PyYAML has it


class DocumentError(ValueError):
    """A document that cannot be read: not YAML, nested too deeply, or too large once its aliases expand."""


def load(text: str, loader: type[Any] = SafeLoader) -> Any:
    """The document in `text` (None when it holds none), built by `loader` (a PyYAML loader class)."""
    reader = loader(text)
    try:
        node = reader.get_single_node()
        if node is None:
            return None
        if expanded(node, MAX_NODES) > MAX_NODES:
            raise DocumentError(f"its aliases expand to more than {MAX_NODES:,} values")
        return reader.construct_document(node)
    except yaml.YAMLError as exc:
        raise DocumentError(" ".join(str(exc).split())) from None
    except RecursionError:
        raise DocumentError("nested too deeply to read") from None
    finally:
        reader.dispose()


def expanded(root: yaml.Node, limit: int) -> int:
    """How many values the node graph means with every alias expanded (each shared node counted each time
    it is reached), counting no further than just past `limit`. Without recursion: the graph may be deep."""
    sizes: dict[int, int] = {}
    open_: set[int] = set()  # nodes whose children are being measured: reaching one again is a cycle
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        if id(node) in sizes:
            continue
        children = _children(node)
        if not done:
            if id(node) in open_:
                raise DocumentError("an alias refers to the node that holds it: the document is infinite")
            open_.add(id(node))
            stack.append((node, True))
            stack.extend((c, False) for c in children if id(c) not in sizes)
            continue
        open_.discard(id(node))
        sizes[id(node)] = min(1 + sum(sizes[id(c)] for c in children), limit + 1)
    return sizes[id(root)]


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []
