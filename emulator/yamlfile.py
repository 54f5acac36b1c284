"""YAML that people write or record (scenario files, cassettes), read with bounds. PyYAML's safe loader
shares a node that aliases repeat, but what it builds expands them: a 1 kB "billion laughs" document means
a billion values to whatever walks it. Here every alias reached while the document is built is measured,
and past `MAX_ALIAS_VALUES` values the document is refused; a document nested past the parser's recursion is
an error, not a crash. The home of pyyaml.

Only what aliases add is counted, not the document's own values: a cassette of 50,000 interactions (50 MB,
two million values, no alias) is as readable as a small one, and costs one parse (see docs/reliability.md).
"""

from __future__ import annotations

import gc
from typing import Any

import yaml

MAX_ALIAS_VALUES = 1_000_000  # values the aliases of a document may add, each alias expanded where it is used
SafeLoader: type[Any] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's, when PyYAML has it


class DocumentError(ValueError):
    """A document that cannot be read: not YAML, nested too deeply, or too large once its aliases expand."""


def load(text: str, loader: type[Any] = SafeLoader) -> Any:
    """The document in `text` (None when it holds none), built by `loader` (a PyYAML loader class). The cyclic
    garbage collector waits until it is built: a parse allocates a node, then a value, for every scalar and
    makes no garbage cycles, but each collection the allocations trigger walks the whole graph built so far, and
    those walks were two thirds of a large cassette's composing time (docs/reliability.md)."""
    reader = _bounded(loader)(text)
    collecting = gc.isenabled()
    gc.disable()
    try:
        node = reader.get_single_node()
        if node is None:
            return None
        return reader.construct_document(node)
    except yaml.YAMLError as exc:
        raise DocumentError(" ".join(str(exc).split())) from None
    except RecursionError:
        raise DocumentError("nested too deeply to read") from None
    finally:
        reader.dispose()
        if collecting:
            gc.enable()


_BOUNDED: dict[type[Any], type[Any]] = {}  # each loader's bounded class, made once


def _bounded(loader: type[Any]) -> type[Any]:
    """`loader`, counting what its aliases add as it builds: a node it reaches a second time is an alias (or
    a merge key's copy), and means its whole expanded size again to whoever walks the result."""
    if loader in _BOUNDED:
        return _BOUNDED[loader]

    class Bounded(loader):  # type: ignore[misc]
        def __init__(self, stream: str) -> None:
            super().__init__(stream)
            self.aliased = 0  # values the aliases reached so far add
            self.aliases = 0  # aliases reached so far
            self.sizes: dict[int, int] = {}  # a shared node's expanded size, by id, measured once

        def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
            if node in self.constructed_objects:  # built already: this is a second way to it
                self.aliases += 1
                self.aliased += expanded(node, MAX_ALIAS_VALUES, self.sizes)
                if self.aliased > MAX_ALIAS_VALUES:
                    raise DocumentError(
                        f"its aliases expand to more than {MAX_ALIAS_VALUES:,} values ({self.aliases:,} aliases "
                        f'used so far): a bound against alias bombs ("billion laughs"); the document\'s own '
                        "values are not limited"
                    )
            return super().construct_object(node, deep)

    Bounded.__name__ = Bounded.__qualname__ = f"Bounded{loader.__name__}"
    return _BOUNDED.setdefault(loader, Bounded)


def expanded(root: yaml.Node, limit: int, sizes: dict[int, int] | None = None) -> int:
    """How many values the node graph means with every alias expanded (each shared node counted each time
    it is reached), counting no further than just past `limit`; `sizes` keeps what was measured for the next
    call. Without recursion: the graph may be deep."""
    sizes = {} if sizes is None else sizes
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
