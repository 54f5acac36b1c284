"""JSON Schema instances: a value valid against a tool's or a response format's schema, within a budget.

What is optional is cut to fit the budget (MAX_BYTES of JSON, MAX_DEPTH levels); what the schema forces
beyond it, or a malformed schema, raises `SchemaError`, which the caller turns into the client's 400.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable, Mapping
from typing import Any

MAX_BYTES = 64 * 1024  # the most JSON any one generated instance (tool arguments, structured output) holds
MAX_DEPTH = 32  # and its deepest nesting
OPTIONAL_DEPTH = 8  # array items beyond `minItems` are generated only above this depth
MAX_HOPS = 4 * MAX_DEPTH  # schema steps (`$ref`, `allOf`, …) without nesting, for `$ref` loops that never nest
_WORDS = ("alpha", "bravo", "delta", "echo", "lima", "oscar", "sierra", "tango")
_FORMATS = {
    "date-time": "2025-01-01T12:00:00Z",
    "date": "2025-01-01",
    "time": "12:00:00Z",
    "email": "user@example.com",
    "uri": "https://example.com/",
    "uuid": "00000000-0000-4000-8000-000000000000",
    "ipv4": "192.0.2.1",
}


class SchemaError(Exception):
    """A schema no instance can be generated for: malformed, or forcing more than the budget allows.
    `path` is the key path in the schema (`properties.tags.minItems`)."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path or 'the schema'}: {problem}")
        self.path = path


class _Spent(Exception):
    """The budget or the depth ran out at `path`: an optional part is cut there, a forced one fails."""

    def __init__(self, path: str, problem: str) -> None:
        self.path, self.problem = path, problem


def instance(schema: Any, rng: random.Random) -> Any:
    """A value valid against `schema`, for the subset tool schemas use: types, properties, required, enum,
    const, items, min/max bounds, anyOf/oneOf/allOf and local `$ref`s (cycles included). At most MAX_BYTES
    of JSON and MAX_DEPTH levels: what is optional is cut to fit; what the schema forces beyond that, or a
    malformed schema, raises `SchemaError`."""
    try:
        return _Instance(schema, rng).value(schema, "", 0, 0)
    except _Spent as spent:
        raise SchemaError(spent.path, spent.problem) from None


class _Instance:
    """One instance being generated: the schema's root (for `$ref`s), the die, and the budget left."""

    def __init__(self, root: Any, rng: random.Random) -> None:
        self.root, self.rng = root, rng
        self.left = MAX_BYTES
        self.full = False  # the budget ran out once: optional parts are no longer tried

    def spend(self, size: int, path: str) -> None:
        self.left -= size
        if self.left < 0:
            raise _Spent(path, f"forces an instance of more than {MAX_BYTES // 1024} KiB of JSON")

    def optional(self, make: Callable[..., Any], *args: Any) -> tuple[bool, Any]:
        """`make(*args)` if the budget allows; if it runs out, what it spent is given back, nothing is made."""
        if self.full:
            return False, None
        left = self.left
        try:
            return True, make(*args)
        except _Spent:
            self.left, self.full = left, True
            return False, None

    def value(self, schema: Any, path: str, depth: int, hops: int) -> Any:
        if schema is True or schema == {}:
            schema = {"type": "string"}
        if not isinstance(schema, Mapping):
            raise SchemaError(path, f"expected a schema (an object, or true), got {json.dumps(schema)[:40]}")
        if hops > MAX_HOPS:
            raise SchemaError(path, "$ref loops without reaching a value")
        try:
            return self._value(schema, path, depth, hops)
        except (TypeError, ValueError, OverflowError, AttributeError, KeyError, IndexError) as exc:
            raise SchemaError(path, f"malformed ({exc})") from None

    def _value(self, schema: Mapping[str, Any], path: str, depth: int, hops: int) -> Any:
        at = f"{path}." if path else ""
        if "$ref" in schema:
            ref = schema["$ref"]
            return self.value(self.resolve(ref, f"{at}$ref"), _pointer_path(ref), depth, hops + 1)
        if "const" in schema:
            self.spend(len(json.dumps(schema["const"])), path)
            return schema["const"]
        if "enum" in schema:
            choices = schema["enum"]
            if not isinstance(choices, list) or not choices:
                raise SchemaError(f"{at}enum", "expected a non-empty array")
            choice = self.rng.choice(choices)
            self.spend(len(json.dumps(choice)), path)
            return choice
        for key in ("anyOf", "oneOf"):
            if key in schema:
                return self.first(_list(schema[key], f"{at}{key}"), f"{at}{key}", depth, hops)
        if "allOf" in schema:
            merged: dict[str, Any] = {k: v for k, v in schema.items() if k != "allOf"}
            for i, part in enumerate(_list(schema["allOf"], f"{at}allOf")):
                if not isinstance(part, Mapping):
                    raise SchemaError(f"{at}allOf[{i}]", "expected a schema (an object)")
                merged.update(part)
            return self.value(merged, path, depth, hops + 1)
        kind = schema.get("type", "object" if "properties" in schema else "string")
        if isinstance(kind, list):
            kind = next((k for k in kind if k != "null"), "null")
        if kind not in _BY_TYPE:
            raise SchemaError(f"{at}type", f"expected one of {', '.join(_BY_TYPE)}, got {json.dumps(kind)[:40]}")
        if kind in ("object", "array") and depth >= MAX_DEPTH:
            raise _Spent(path, f"forces nesting deeper than {MAX_DEPTH} levels")
        return _BY_TYPE[kind](self, schema, path, depth, hops)

    def first(self, options: list[Any], path: str, depth: int, hops: int) -> Any:
        """The first option that fits (a recursive one may not: then the next, say `null`)."""
        for i, option in enumerate(options[:-1]):
            made, value = self.optional(self.value, option, f"{path}[{i}]", depth, hops + 1)
            if made:
                return value
        return self.value(options[-1], f"{path}[{len(options) - 1}]", depth, hops + 1)  # forced: it may be small

    def item(self, schema: Any, path: str, depth: int, hops: int) -> Any:
        self.spend(1, path)  # the comma
        return self.value(schema, path, depth, hops)

    def resolve(self, ref: Any, path: str) -> Any:
        """A local `$ref` (`#`, `#/$defs/X`, `#/definitions/X`, any JSON pointer into this schema)."""
        if not isinstance(ref, str) or not ref.startswith("#"):
            raise SchemaError(path, f"only local references (#/…) are supported, got {json.dumps(ref)[:60]}")
        target = self.root
        for part in filter(None, ref[1:].split("/")):
            key = part.replace("~1", "/").replace("~0", "~")
            if isinstance(target, Mapping) and key in target:
                target = target[key]
            elif isinstance(target, list) and key.isdigit() and int(key) < len(target):
                target = target[int(key)]
            else:
                raise SchemaError(path, f"'{ref}' resolves to nothing in this schema")
        return target


def _pointer_path(ref: str) -> str:
    return ".".join(filter(None, ref[1:].split("/")))


def _list(value: Any, path: str) -> list[Any]:
    if not isinstance(value, list) or not value:
        raise SchemaError(path, "expected a non-empty array of schemas")
    return value


def _count(schema: Mapping[str, Any], key: str, default: int, path: str) -> int:
    value = schema.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0 or value != int(value):
        raise SchemaError(f"{path}.{key}" if path else key, f"expected a non-negative integer, got {value!r}"[:120])
    return int(value)


def _number_at(schema: Mapping[str, Any], key: str, path: str) -> float | None:
    value = schema.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise SchemaError(f"{path}.{key}" if path else key, f"expected a number, got {value!r}"[:120])
    return float(value)


def _object(self: _Instance, schema: Mapping[str, Any], path: str, depth: int, hops: int) -> Any:
    at = f"{path}." if path else ""
    properties = schema.get("properties", {})
    if not isinstance(properties, Mapping):
        raise SchemaError(f"{at}properties", "expected an object of schemas")
    required = schema.get("required", list(properties))
    if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
        raise SchemaError(f"{at}required", "expected an array of property names")
    self.spend(2, path)
    made = {}
    for name in [*(n for n in properties if n in required), *(n for n in required if n not in properties)]:
        self.spend(len(name) + 4, path)
        sub = properties.get(name, {"type": "string"})
        made[name] = self.value(sub, f"{at}properties.{name}", depth + 1, hops)
    return made


def _array(self: _Instance, schema: Mapping[str, Any], path: str, depth: int, hops: int) -> Any:
    at = f"{path}." if path else ""
    least = _count(schema, "minItems", 0, path)
    most = _count(schema, "maxItems", max(least, 1) + 2, path)
    if least > most:
        raise SchemaError(f"{at}minItems", f"minItems {least} is above maxItems {most}")
    if least * 2 > self.left:
        raise _Spent(f"{at}minItems", f"forces an instance of more than {MAX_BYTES // 1024} KiB of JSON")
    low = max(least, 1)
    count = self.rng.randint(low, max(low, min(most, low + 2))) if most else 0
    items = schema.get("items", {})
    self.spend(2, path)
    made: list[Any] = []
    for i in range(count):
        if i < least:
            try:
                made.append(self.item(items, f"{at}items", depth + 1, hops))
            except _Spent as spent:  # name what forces it: the innermost minItems or minLength
                spent.path = spent.path if spent.path.endswith(("minItems", "minLength")) else f"{at}minItems"
                raise
            continue
        if depth + 1 >= OPTIONAL_DEPTH:
            break
        done, value = self.optional(self.item, items, f"{at}items", depth + 1, hops)
        if not done:
            break
        made.append(value)
    return made


def _string(self: _Instance, schema: Mapping[str, Any], path: str, depth: int, hops: int) -> Any:
    if schema.get("format") in _FORMATS:
        text = _FORMATS[schema["format"]]
        self.spend(len(text) + 2, path)
        return text
    low = _count(schema, "minLength", 0, path)
    high = _count(schema, "maxLength", max(low, 64), path)
    if low > high:
        raise SchemaError(f"{path}.minLength" if path else "minLength", f"minLength {low} is above maxLength {high}")
    self.spend(low + 2, f"{path}.minLength" if path else "minLength")
    word = self.rng.choice(_WORDS)
    while len(word) < low:
        word += self.rng.choice(_WORDS)
    word = word[:high]
    self.spend(len(word) - low, path)
    return word


def _bounds(schema: Mapping[str, Any], path: str, span: float) -> tuple[float, float]:
    low = _number_at(schema, "minimum", path)
    low = _number_at(schema, "exclusiveMinimum", path) if low is None else low
    high = _number_at(schema, "maximum", path)
    high = _number_at(schema, "exclusiveMaximum", path) if high is None else high
    low = low if low is not None else (high - span if high is not None else 0.0)
    high = high if high is not None else low + span
    if low > high:
        raise SchemaError(path or "minimum", f"the minimum {low:g} is above the maximum {high:g}")
    return low, high


def _integer(self: _Instance, schema: Mapping[str, Any], path: str, depth: int, hops: int) -> Any:
    low, high = _bounds(schema, path, 100)
    step = _number_at(schema, "multipleOf", path)
    if step is not None and step <= 0:
        raise SchemaError(f"{path}.multipleOf" if path else "multipleOf", "expected a number above 0")
    step = step or 1
    first, last = math.floor(low / step) + 1, math.ceil(high / step) - 1  # strictly inside: exclusive bounds hold
    if first > last:
        first = last = math.ceil(low / step)
    value = self.rng.randint(first, last) * step
    self.spend(24, path)
    return int(value) if float(value).is_integer() else value


def _number(self: _Instance, schema: Mapping[str, Any], path: str, depth: int, hops: int) -> Any:
    if "multipleOf" in schema:
        return _integer(self, schema, path, depth, hops)
    low, high = _bounds(schema, path, 100)
    self.spend(24, path)
    return round(low + (high - low) * (0.1 + 0.8 * self.rng.random()), 2)


def _boolean(self: _Instance, schema: Mapping[str, Any], path: str, depth: int, hops: int) -> Any:
    self.spend(5, path)
    return self.rng.random() < 0.5


def _null(self: _Instance, schema: Mapping[str, Any], path: str, depth: int, hops: int) -> Any:
    self.spend(4, path)
    return None


_BY_TYPE: dict[str, Callable[[_Instance, Mapping[str, Any], str, int, int], Any]] = {
    "object": _object,
    "array": _array,
    "string": _string,
    "integer": _integer,
    "number": _number,
    "boolean": _boolean,
    "null": _null,
}
