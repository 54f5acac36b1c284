"""Request schemas: every field an endpoint's body may hold, at every depth, as data (`catalog/requests/*.yaml`).

A schema is a set of named shapes. An object shape lists its fields, each with what its value is walked as; a
union shape picks one object by a field fixed to a literal (`type`, `role`), or by a default where the field may
be left out. A field's reference says what to walk: `Shape` for an object value, `[Shape]` for each item of a list,
`Shape|[Other]` for either, `~` for a value not walked (a scalar, a free map, a JSON Schema). Scalars' types are
left to the dialects' readers, which already say what a field must be.

`check` walks a body in its own order and returns the first thing the API would refuse: an unknown key, a required
key missing, a union's tag it does not know, a value past one of its field's limits (`requests/limits.yaml`, or a
file's own `limits`: a number's range, an array's most and least items, a string's pattern, length and values).
A file with `spellings: proto3` (Gemini's) knows each lowerCamel field by its snake_case name too, as proto3 JSON
does. `Problem.path` holds keys and list
indexes; the positions of `type` unions' tags are kept apart, for Anthropic's paths, which name them
(`messages.0.content.0.text.x`).
The files are read once at import; walking is dictionary lookups over the body's own keys.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

from emulator.core import yamlfile

FILES = (
    "openai_chat",
    "openai_responses",
    "openai_embeddings",
    "openai_completions",
    "anthropic_messages",
    "gemini",
    "bedrock_converse",
)
LIMIT_KEYS = {"range", "integer", "most", "least", "pattern", "whole", "longest", "shortest", "values"}


class Limit:
    """What one field's value may be: a number within `low`..`high` (an integer's words where `integer`), an array of
    `least` to `most` items, a string matching `pattern` (all of it, where `whole`) of `shortest` to `longest`
    characters, one of `values`."""

    __slots__ = ("low", "high", "integer", "most", "least", "pattern", "whole", "longest", "shortest", "values")

    def __init__(self, spec: Mapping[str, Any], where: str) -> None:
        unknown = set(spec) - LIMIT_KEYS
        if unknown:
            raise ValueError(f"{where}: unknown limits {sorted(unknown)}")
        low, high = spec.get("range") or (None, None)
        self.low: float | None = low
        self.high: float | None = high
        self.integer = bool(spec.get("integer"))
        self.most: int | None = spec.get("most")
        self.least: int | None = spec.get("least")
        self.pattern = re.compile(spec["pattern"]) if "pattern" in spec else None
        self.whole = bool(spec.get("whole"))
        self.longest: int | None = spec.get("longest")
        self.shortest: int | None = spec.get("shortest")
        self.values: tuple[str, ...] = tuple(spec.get("values") or ())

    def broken(self, value: Any) -> tuple[str, Any]:
        """("", None) when `value` keeps to the limit, else the kind of problem and the bound it passes."""
        kind = type(value)
        if kind is int or kind is float:
            if self.high is not None and value > self.high:
                return "above", self.high
            if self.low is not None and value < self.low:
                return "below", self.low
        elif kind is list:
            if self.most is not None and len(value) > self.most:
                return "too_many", self.most
            if self.least is not None and len(value) < self.least:
                return "too_few", self.least
        elif kind is str:
            if self.pattern is not None:
                matched = self.pattern.fullmatch(value) if self.whole else self.pattern.search(value)
                if matched is None:
                    return "pattern", self.pattern.pattern
            if self.shortest is not None and len(value) < self.shortest:
                return "too_short", self.shortest
            if self.longest is not None and len(value) > self.longest:
                return "too_long", self.longest
            if self.values and value not in self.values:
                return "enum", self.values
        return "", None


class Shape:
    """An object (its `fields`, the `required` ones, the `limits` of some) or a union (`by`, `tags`, `default`)."""

    __slots__ = ("name", "fields", "required", "limits", "by", "tags", "default")

    def __init__(self, name: str) -> None:
        self.name = name
        self.fields: dict[str, Ref | None] = {}
        self.required: tuple[str, ...] = ()
        self.limits: dict[str, Limit] = {}
        self.by = ""
        self.tags: dict[str, Shape] = {}
        self.default = ""


class Ref:
    """What a value is walked as: an object value by `shape`, a list's items by `items`."""

    __slots__ = ("shape", "items")

    def __init__(self, shape: Shape | None, items: Ref | None) -> None:
        self.shape = shape
        self.items = items


@dataclass(frozen=True, slots=True)
class Problem:
    """The first thing refused: `kind` is "unknown" (a key), "missing" (a required key), "untagged" (a union's `by`
    field missing), "tag" (a union's value `value`, not one of `allowed`, at the union's `by` field), or a limit
    `value` passes: "above" or "below" a number's `bound` (`integer`: an integer field), "too_many" or "too_few"
    items (at most, at least `bound`), a string not matching the `pattern` `bound`, "too_long" or "too_short"
    (past `bound` characters), or not one of the values `bound` ("enum"). `tags` are the positions in `path` of
    tags."""

    kind: str
    path: tuple[str | int, ...]
    tags: tuple[int, ...] = ()
    value: Any = None
    allowed: tuple[str, ...] = ()
    bound: Any = None
    integer: bool = False

    def dotted(self) -> str:
        """Anthropic's form: `messages.0.content.0.text.x`, each `type` union's tag in its place."""
        return ".".join(str(p) for p in self.path)

    def indexed(self) -> str:
        """OpenAI's form: `messages[0].content[0].x`, no tags."""
        out = ""
        for at, part in enumerate(self.path):
            if at in self.tags:
                continue
            out += f"[{part}]" if type(part) is int else (f".{part}" if out else str(part))
        return out


def check(shape: Shape, value: Any, lenient: bool = False) -> tuple[Problem | None, list[Problem]]:
    """The first problem of a body (a dict) against its endpoint's root shape, and, when `lenient`, the unknown keys
    it passed over instead (the first problem is then never one). The root's own keys are the caller's to check:
    its unknown keys (worded per endpoint, Anthropic's betas) and its required ones (worded per API)."""
    if type(value) is not dict:
        return None, []
    walk = _Walk(lenient)
    return walk.object(shape, value, True), walk.passed


class _Walk:
    def __init__(self, lenient: bool = False) -> None:
        self.path: list[str | int] = []
        self.tags: list[int] = []
        self.lenient = lenient
        self.passed: list[Problem] = []

    def _problem(self, kind: str, key: str | int, value: Any = None, allowed: tuple[str, ...] = ()) -> Problem:
        return Problem(kind, (*self.path, key), tuple(self.tags), value, allowed)

    def _limit(self, limit: Limit, key: str, value: Any) -> Problem | None:
        kind, bound = limit.broken(value)
        if not kind:
            return None
        return Problem(kind, (*self.path, key), tuple(self.tags), value, bound=bound, integer=limit.integer)

    def object(self, shape: Shape, value: dict[str, Any], root: bool = False) -> Problem | None:
        tagged = False
        if shape.by:
            tag = value.get(shape.by, shape.default or None)
            if tag is None:
                return self._problem("untagged", shape.by, allowed=tuple(shape.tags))
            member = shape.tags.get(tag) if type(tag) is str else None
            if member is None:
                return self._problem("tag", shape.by, tag, tuple(shape.tags))
            if shape.by == "type":
                self.tags.append(len(self.path))
                self.path.append(tag)
                tagged = True
            shape = member
        found = self._fields(shape, value, root)
        if tagged:
            self.path.pop()
            self.tags.pop()
        return found

    def _fields(self, shape: Shape, value: dict[str, Any], root: bool) -> Problem | None:
        fields, limits = shape.fields, shape.limits
        for key, item in value.items():
            if key not in fields:
                if root:  # the top level's unknown keys are the caller's: its words, Anthropic's betas
                    continue
                found = self._problem("unknown", key)
                if not self.lenient:
                    return found
                self.passed.append(found)
                continue
            if limits and key in limits and item is not None:
                broken = self._limit(limits[key], key, item)
                if broken is not None:
                    return broken
            ref = fields[key]
            if ref is None or item is None:
                continue
            self.path.append(key)
            below = self.value(ref, item)
            self.path.pop()
            if below is not None:
                return below
        if not root:
            for key in shape.required:
                if key not in value:
                    return self._problem("missing", key)
        return None

    def value(self, ref: Ref, item: Any) -> Problem | None:
        kind = type(item)
        if kind is dict:
            return self.object(ref.shape, item) if ref.shape is not None else None
        if kind is list and ref.items is not None:
            for at, each in enumerate(item):
                self.path.append(at)
                found = self.value(ref.items, each)
                self.path.pop()
                if found is not None:
                    return found
        return None


# --- reading the files ------------------------------------------------------------------------------------------


def load(document: Mapping[str, Any], source: str, limits: Mapping[str, Any] | None = None) -> dict[str, Shape]:
    """A schema file's roots by endpoint, every name it uses resolved, and `limits` (`Shape.field` → limit) set on
    the shapes they name."""
    shapes: dict[str, Shape] = {}
    proto3 = document.get("spellings") == "proto3"
    limits = {**(limits or {}), **(document.get("limits") or {})}
    unions = document.get("unions") or {}
    objects = document.get("objects") or {}
    for name in (*unions, *objects):
        if name in shapes:
            raise ValueError(f"{source}: {name} is defined twice")
        shapes[name] = Shape(name)

    def shape(name: str, where: str) -> Shape:
        if name not in shapes:
            raise ValueError(f"{source}: {where} names {name!r}, which is not defined")
        return shapes[name]

    def ref(text: str | None, where: str) -> Ref | None:
        if text is None or text == "~":
            return None
        obj, items = None, None
        for part in _alternatives(text):
            if part.startswith("["):
                items = ref(part[1:-1], where)
            else:
                obj = shape(part, where)
        return Ref(obj, items)

    for name, spec in unions.items():
        held = shapes[name]
        held.by, held.default = spec["by"], spec.get("default") or ""
        held.tags = {str(tag): shape(member, f"{name}.{tag}") for tag, member in spec["tags"].items()}
    for name, fields in objects.items():
        held, required = shapes[name], []
        for key, text in (fields or {}).items():
            field = key[:-1] if key.endswith("*") else key
            if field != key:
                required.append(field)
            held.fields[field] = ref(text, f"{name}.{field}")
            if proto3:
                held.fields.setdefault(snake(field), held.fields[field])
        held.required = tuple(required)
    for named, spec in limits.items():
        owner, _, field = named.rpartition(".")
        held = shape(owner, f"limits {named}")
        if field not in held.fields:
            raise ValueError(f"{source}: limits name {named}, a field {owner} does not have")
        held.limits[field] = Limit(spec, f"{source}: limits {named}")
    return {endpoint: shape(name, f"roots.{endpoint}") for endpoint, name in document["roots"].items()}


def snake(name: str) -> str:
    """A lowerCamel field's proto name: `systemInstruction` → `system_instruction`."""
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


def _alternatives(text: str) -> list[str]:
    """`A|[B|[C]]` → `A`, `[B|[C]]`: split on the bars outside brackets."""
    parts, depth, start = [], 0, 0
    for at, char in enumerate(text):
        depth += char == "["
        depth -= char == "]"
        if char == "|" and depth == 0:
            parts.append(text[start:at])
            start = at + 1
    parts.append(text[start:])
    return [p.strip() for p in parts]


def _read(file: str) -> str:
    return resources.files("emulator.rules.catalog").joinpath(f"requests/{file}.yaml").read_text(encoding="utf-8")


LIMITS: Mapping[str, Any] = yamlfile.load(_read("limits"))
SCHEMAS: Mapping[str, Shape] = {
    endpoint: root
    for file in FILES
    for endpoint, root in load(yamlfile.load(_read(file)), f"{file}.yaml", LIMITS.get(file)).items()
}
