"""YAML that people write or record (scenario files, cassettes), read with bounds. PyYAML's safe loader
shares a node that aliases repeat, but what it builds expands them: a 1 kB "billion laughs" document means
a billion values to whatever walks it. Here every alias reached while the document is built is measured,
and past `MAX_ALIAS_VALUES` values the document is refused; a document nested past the parser's recursion is
an error, not a crash. The home of pyyaml.

Only what aliases add is counted, not the document's own values: a cassette of 50,000 interactions (50 MB,
two million values, no alias) is as readable as a small one, and costs one parse (see docs/reliability.md).

Values are built straight from libyaml's events (`_built`), not through PyYAML's node graph and its Python
constructor: a cassette's YAML is read at a fraction of the cost (docs/reliability.md). Whatever that builder
does not do itself (a tag other than a scalar's, a merge key, an unhashable key, an undefined or repeated
anchor, a second document, deep nesting) is left to PyYAML's constructor over the whole document, so the
values and the errors are PyYAML's either way.
"""

from __future__ import annotations

import gc
import types
from typing import Any

import yaml

MAX_ALIAS_VALUES = 1_000_000  # values the aliases of a document may add, each alias expanded where it is used
SafeLoader: type[Any] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's, when PyYAML has it


class DocumentError(ValueError):
    """A document that cannot be read: not YAML, nested too deeply, or too large once its aliases expand."""


def load(text: str, loader: type[Any] = SafeLoader) -> Any:
    """The document in `text` (None when it holds none), built by `loader` (a PyYAML loader class). The cyclic
    garbage collector waits until it is built: a parse allocates a value (and on PyYAML's way a node) for every
    scalar and makes no garbage cycles, but each collection the allocations trigger walks everything built so
    far, and those walks were two thirds of a large cassette's composing time (docs/reliability.md)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        try:
            return _built(text, loader)
        except _Unusual:
            return _constructed(text, loader)
    except yaml.YAMLError as exc:
        raise DocumentError(" ".join(str(exc).split())) from None
    except RecursionError:
        raise DocumentError("nested too deeply to read") from None
    finally:
        if collecting:
            gc.enable()


def has_key(text: str, key: str) -> bool:
    """Whether the first document in `text` is a mapping with the plain key `key` at its top, read from the
    parser's events as far as that key and no further: nothing is built (`emulator check` tells cassettes from
    scenario files by their `interactions`, and then loads each once). False for text that is not YAML."""
    depth, is_key = 0, False  # how deep the events are; at depth 1, whether the next node is a key
    resolver: Any = yaml.resolver.Resolver()
    plain = resolver.resolve(yaml.ScalarNode, key, (True, False)) == _STR  # whether `key` unquoted is a string
    try:
        for event in yaml.parse(text, Loader=SafeLoader):
            kind = type(event)
            if kind is yaml.ScalarEvent or kind is yaml.AliasEvent:
                if depth == 0:
                    return False  # a document that is a scalar
                if depth == 1:
                    if is_key and _is_key(event, key, plain):
                        return True
                    is_key = not is_key
            elif kind is yaml.MappingStartEvent or kind is yaml.SequenceStartEvent:
                if depth == 0 and kind is yaml.SequenceStartEvent:
                    return False
                if depth == 1:
                    is_key = not is_key
                depth += 1
                if depth == 1:
                    is_key = True
            elif kind is yaml.MappingEndEvent or kind is yaml.SequenceEndEvent:
                depth -= 1
                if depth == 0:
                    return False  # the first document's mapping ended without it
    except yaml.YAMLError:
        return False
    return False


def _is_key(event: Any, key: str, plain: bool) -> bool:
    """Whether a key's event is the string `key` (`plain`: whether `key` unquoted reads as a string)."""
    if not isinstance(event, yaml.ScalarEvent) or event.value != key or event.tag not in (None, "!", _STR):
        return False
    return plain or event.tag is not None or not event.implicit[0]


def _constructed(text: str, loader: type[Any]) -> Any:
    """The document by PyYAML's way: its node graph, then its constructor, bounded."""
    reader = _bounded(loader)(text)
    try:
        node = reader.get_single_node()
        return None if node is None else reader.construct_document(node)
    finally:
        reader.dispose()


class _Unusual(Exception):
    """What `_built` leaves to PyYAML's constructor."""


_STR, _SEQ, _MAP = (f"tag:yaml.org,2002:{kind}" for kind in ("str", "seq", "map"))
_DEEP = 100  # collections open at once past which `_built` leaves the document to PyYAML (which may refuse it)
_KEY, _ITEM, _ROOT = object(), object(), object()  # what a collection or the document awaits (`_built`)
_PLAIN = (int, float, bool, type(None), str)  # scalar values that one text always gives alike, so kept by text


def _built(text: str, loader: type[Any]) -> Any:
    """The document in `text`, built from the parser's events by the same rules as `loader`'s constructor: a
    plain scalar's tag as its resolver says (remembered by text), each other scalar by the loader's constructor
    for its tag, mappings as dicts and sequences as lists, an alias as the very value its anchor holds. Each
    alias adds its anchor's expanded size to what `MAX_ALIAS_VALUES` bounds, as in `_bounded`. Raises `_Unusual`
    for anything it does not build itself, and the parser's own error for text that is not YAML."""
    reader = loader(text)
    try:
        constructors = reader.yaml_constructors
        own = yaml.constructor.SafeConstructor.yaml_constructors
        if reader.yaml_path_resolvers or any(constructors.get(tag) is not own[tag] for tag in (_STR, _SEQ, _MAP)):
            raise _Unusual
        get, resolve = reader.get_event, reader.resolve
        scalar, alias, mapping, sequence = (
            yaml.ScalarEvent,
            yaml.AliasEvent,
            yaml.MappingStartEvent,
            yaml.SequenceStartEvent,
        )
        ends = (yaml.MappingEndEvent, yaml.SequenceEndEvent)
        tags: dict[str, str] = {}  # a plain scalar's tag, by its text
        scalars: dict[tuple[str, str], Any] = {}  # a scalar's value by tag and text, where the value is plain
        anchors: dict[str, Any] = {}  # each anchor's value
        sizes: dict[str, int] = {}  # each anchor's value's expanded size (absent while it is being built)
        built = aliases = aliased = 0  # values built so far (aliases expanded), aliases, what aliases added
        # The innermost open collection and what it awaits: `_ITEM` (a sequence), `_KEY` (a mapping awaiting a
        # key), or the key awaiting its value; the document itself awaits `_ROOT`. Each one outside it, on
        # `stack` with its anchor and `built` when it opened.
        top: Any = None
        awaits: Any = _ROOT
        stack: list[tuple[Any, Any, str | None, int]] = []
        get()  # the stream's start
        if isinstance(get(), yaml.StreamEndEvent):
            return None
        while True:
            event = get()
            kind = type(event)
            if kind is scalar:
                tag, value = event.tag, event.value
                if tag is None or tag == "!":
                    if event.implicit[0]:
                        tag = tags.get(value) or tags.setdefault(value, resolve(yaml.ScalarNode, value, (True, False)))
                    else:
                        tag = _STR
                if tag != _STR:
                    value = _scalar(reader, constructors, scalars, tag, value)
                built += 1
                if event.anchor is not None:
                    _anchor(anchors, event.anchor, value)
                    sizes[event.anchor] = 1
            elif kind is mapping or kind is sequence:
                if event.tag not in (None, "!", _MAP if kind is mapping else _SEQ) or len(stack) >= _DEEP:
                    raise _Unusual
                stack.append((top, awaits, event.anchor, built))
                built += 1
                top, awaits = ({}, _KEY) if kind is mapping else ([], _ITEM)
                if event.anchor is not None:
                    _anchor(anchors, event.anchor, top)
                continue
            elif kind in ends:
                value = top
                top, awaits, anchor, opened = stack.pop()
                if anchor is not None:
                    sizes[anchor] = min(built - opened, MAX_ALIAS_VALUES + 1)
            elif kind is alias:
                if event.anchor not in anchors:
                    raise _Unusual  # PyYAML's error
                if event.anchor not in sizes:
                    raise DocumentError("an alias refers to the node that holds it: the document is infinite")
                value, size = anchors[event.anchor], sizes[event.anchor]
                built += size
                aliases += 1
                aliased += size
                if aliased > MAX_ALIAS_VALUES:
                    raise DocumentError(_too_many(aliases))
            else:  # the document's end
                if not isinstance(get(), yaml.StreamEndEvent):
                    raise _Unusual  # a second document: PyYAML's error
                return top
            if awaits is _ITEM:
                top.append(value)
            elif awaits is _KEY:
                if isinstance(value, (dict, list)):
                    raise _Unusual  # an unhashable key: PyYAML's error
                awaits = value
            elif awaits is _ROOT:
                top = value
            else:
                top[awaits] = value
                awaits = _KEY
    finally:
        reader.dispose()


def _scalar(reader: Any, constructors: dict[str, Any], known: dict[tuple[str, str], Any], tag: str, text: str) -> Any:
    """A scalar of a tag other than a string's, by the loader's constructor for it (`known` keeps plain values)."""
    if (tag, text) in known:
        return known[tag, text]
    if tag not in constructors:
        raise _Unusual  # a merge key, `=`, an unknown tag: PyYAML's to build or refuse
    try:
        value = constructors[tag](reader, yaml.ScalarNode(tag, text))
    except Exception:
        raise _Unusual from None
    if isinstance(value, types.GeneratorType):
        raise _Unusual  # a collection's tag on a scalar
    if isinstance(value, _PLAIN):
        known[tag, text] = value
    return value


def _anchor(anchors: dict[str, Any], name: str, value: Any) -> None:
    if name in anchors:
        raise _Unusual  # a repeated anchor: PyYAML's error
    anchors[name] = value


def _too_many(aliases: int) -> str:
    return (
        f"its aliases expand to more than {MAX_ALIAS_VALUES:,} values ({aliases:,} aliases used so far): a bound "
        'against alias bombs ("billion laughs"); the document\'s own values are not limited'
    )


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
                    raise DocumentError(_too_many(self.aliases))
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
