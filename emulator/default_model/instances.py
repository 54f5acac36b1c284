"""JSON Schema instances: a value valid against a tool's or a response format's schema, within a budget.

What is optional is cut to fit the budget (MAX_BYTES of JSON, MAX_DEPTH levels); what the schema forces
beyond it, or a malformed schema, raises `SchemaError`, which the caller turns into the client's 400.

Values look like what a model would write: every property is filled while the budget allows, not only the
required ones; a property's name says what it holds (`city` a city, `email` an address, `age` a small number),
drawn from `Hints` (faker's pools, and the names and numbers the question itself mentions); numbers without
bounds stay human-sized; `enum`, `format`, bounds, `minItems` and a simple `pattern` hold.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable, Mapping
from typing import Any

from emulator.default_model import patterns
from emulator.default_model.hints import FORMATS, NAMED, NUMBER_HINTS, STRING_HINTS, hint, name_of
from emulator.default_model.hints import NO_HINTS as NO_HINTS
from emulator.default_model.hints import Hints as Hints

MAX_BYTES = 64 * 1024  # the most JSON any one generated instance (tool arguments, structured output) holds
MAX_DEPTH = 32  # and its deepest nesting
OPTIONAL_DEPTH = 8  # optional properties, and array items beyond `minItems`, are generated only above this depth
MAX_HOPS = 4 * MAX_DEPTH  # schema steps (`$ref`, `allOf`, …) without nesting, for `$ref` loops that never nest
_WORDS = ("alpha", "bravo", "delta", "echo", "lima", "oscar", "sierra", "tango")  # without a pool of words
HUMAN = 100  # the span of a number the schema leaves open: 0 to 100, or 100 past its one bound


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


def instance(schema: Any, rng: random.Random, hints: Hints = NO_HINTS) -> Any:
    """A value valid against `schema`, for the subset tool schemas use: types, properties, required, enum,
    const, items, min/max bounds, anyOf/oneOf/allOf and local `$ref`s (cycles included). At most MAX_BYTES
    of JSON and MAX_DEPTH levels: what is optional is cut to fit; what the schema forces beyond that, or a
    malformed schema, raises `SchemaError`. Values are drawn from `hints` where a property's name says what it
    holds."""
    try:
        return _Instance(schema, rng, hints).value(schema, "", 0, 0)
    except _Spent as spent:
        raise SchemaError(spent.path, spent.problem) from None


class _Instance:
    """One instance being generated: the schema's root (for `$ref`s), the die, the hints, and the budget left."""

    def __init__(self, root: Any, rng: random.Random, hints: Hints) -> None:
        self.root, self.rng, self.hints = root, rng, hints
        self.left = MAX_BYTES
        self.full = False  # the budget ran out once: optional parts are no longer tried
        self.proper = 0  # the question's proper nouns used so far: each goes to the next name-like property
        self.counted: set[int] = set()  # and its numbers used

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
        except _Spent:  # too deep (only this part is cut) or too big (nothing optional is tried after it)
            self.full = self.left < 0
            self.left = left
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

    def hinted(self, kind: str | None) -> str:
        """A value of `kind` (a hint): the question's next proper noun for a name or a place, its topic for a query,
        a format's value, or a draw from faker's pool; "" for no kind, or a pool the hints lack."""
        hints = self.hints
        if kind in NAMED and hints.names:
            self.proper += 1
            return hints.names[(self.proper - 1) % len(hints.names)]
        if kind == "topic" and hints.topic:
            return hints.topic
        if kind in FORMATS:
            return FORMATS[kind](self.rng, hints.pools)
        pool = hints.pools.get(kind or "")
        return self.rng.choice(pool) if pool else ""

    def member(self, name: str, schema: Any, path: str, depth: int, hops: int) -> Any:
        self.spend(len(name) + 4, path)  # the quoted name, the colon, the comma
        return self.value(schema, path, depth, hops)

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
    required = schema.get("required", ())
    if not isinstance(required, list | tuple) or not all(isinstance(r, str) for r in required):
        raise SchemaError(f"{at}required", "expected an array of property names")
    self.spend(2, path)
    made = {}
    optional = depth + 1 < OPTIONAL_DEPTH  # as a model fills them: all of them, in the schema's order
    for name in [*properties, *(n for n in required if n not in properties)]:
        sub, where = properties.get(name, {"type": "string"}), f"{at}properties.{name}"
        if name in required:
            self.spend(len(name) + 4, path)
            made[name] = self.value(sub, where, depth + 1, hops)
        elif optional:
            done, value = self.optional(self.member, name, sub, where, depth + 1, hops)
            if done:
                made[name] = value
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
                innermost = spent.path.endswith(("minItems", "minLength"))
                raise _Spent(spent.path if innermost else f"{at}minItems", spent.problem) from None
            continue
        if depth + 1 >= OPTIONAL_DEPTH:
            break
        done, value = self.optional(self.item, items, f"{at}items", depth + 1, hops)
        if not done:
            break
        made.append(value)
    return made


def _string(self: _Instance, schema: Mapping[str, Any], path: str, depth: int, hops: int) -> Any:
    low = _count(schema, "minLength", 0, path)
    high = _count(schema, "maxLength", max(low, 64), path)
    if low > high:
        raise SchemaError(f"{path}.minLength" if path else "minLength", f"minLength {low} is above maxLength {high}")
    self.spend(low + 2, f"{path}.minLength" if path else "minLength")
    form, pattern = schema.get("format"), schema.get("pattern")
    matching = patterns.matching(pattern, self.rng) if isinstance(pattern, str) else None
    if form in FORMATS:
        text = FORMATS[form](self.rng, self.hints.pools)
    elif matching is not None:
        text = matching
    else:
        text = self.hinted(hint(name_of(path), STRING_HINTS)) if path else ""
        words = self.hints.pools.get("word") or _WORDS
        text = text or self.rng.choice(words)
        while len(text) < low:
            text += " " + self.rng.choice(words)
        text = cut(text, low, high)
    self.spend(len(text) - low, path)
    return text


def cut(text: str, low: int, high: int) -> str:
    """`text` at most `high` characters long: cut at the last word boundary that keeps `low`, with no space or
    punctuation left dangling; mid-word only where no boundary keeps `low`."""
    if len(text) <= high:
        return text
    shortened = text[:high]
    space = shortened.rfind(" ")
    if space > 0:
        shortened = shortened[:space]
    shortened = shortened.rstrip(" ,;:-([{/&")
    return shortened if len(shortened) >= max(low, 1) else text[:high]


# --- numbers ------------------------------------------------------------------------------------------------


def _window(self: _Instance, schema: Mapping[str, Any], path: str) -> tuple[float, float]:
    """Where a number is drawn: what the property's name suggests, where the schema's bounds allow it; else the
    bounds, narrowed to a human size (near zero when they hold it)."""
    low = _number_at(schema, "minimum", path)
    low = _number_at(schema, "exclusiveMinimum", path) if low is None else low
    high = _number_at(schema, "maximum", path)
    high = _number_at(schema, "exclusiveMaximum", path) if high is None else high
    if low is not None and high is not None and low > high:
        raise SchemaError(path or "minimum", f"the minimum {low:g} is above the maximum {high:g}")
    named = hint(name_of(path), NUMBER_HINTS) if path else None
    if named:
        least = named[0] if low is None else max(low, named[0])
        most = named[1] if high is None else min(high, named[1])
        if least <= most:
            return least, most
    if low is None or high is None:
        low = low if low is not None else (high - HUMAN if high is not None else 0.0)
        return low, low + HUMAN
    if high - low > 10 * HUMAN:
        low = min(max(low, 0.0), high - HUMAN)
        return low, low + HUMAN
    return low, high


def _integer(self: _Instance, schema: Mapping[str, Any], path: str, depth: int, hops: int) -> Any:
    step = _number_at(schema, "multipleOf", path)
    if step is not None and step <= 0:
        raise SchemaError(f"{path}.multipleOf" if path else "multipleOf", "expected a number above 0")
    step = step or 1
    low, high = _window(self, schema, path)
    first, last = math.ceil(low / step), math.floor(high / step)
    above, below = _number_at(schema, "exclusiveMinimum", path), _number_at(schema, "exclusiveMaximum", path)
    first += above is not None and first * step <= above  # exclusive bounds stay out
    last -= below is not None and last * step >= below
    if first > last:  # no multiple of `step` inside: the nearest one
        first = last = math.ceil(low / step)
    mentioned = [n for n in self.hints.numbers if n not in self.counted and first <= n <= last] if step == 1 else []
    if mentioned and path and hint(name_of(path), NUMBER_HINTS):  # "Jason is 25 years old": an `age` of 25
        self.counted.add(mentioned[0])
        value: int | float = mentioned[0]
    else:
        value = self.rng.randint(first, last) * step
    self.spend(24, path)
    return int(value) if float(value).is_integer() else value


def _number(self: _Instance, schema: Mapping[str, Any], path: str, depth: int, hops: int) -> Any:
    if "multipleOf" in schema:
        return _integer(self, schema, path, depth, hops)
    low, high = _window(self, schema, path)
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
