"""OpenAI's rules for a strict JSON Schema (Structured Outputs, and function tools with `strict: true`), and its
rule that JSON mode's prompt mention JSON: what the `openai` profile refuses, in the API's words.

The rules, from OpenAI's Structured Outputs guide: the root is an object (not `anyOf`); every object says
`additionalProperties: false` and lists every key of its `properties` in `required`. The schema is walked root
first, then each subschema in the order written (`properties`, `items`, `anyOf`, `$defs`, `definitions`); the first
object breaking a rule is reported with its place in the schema as the API shows it, a Python tuple of keys:
`In context=('properties', 'steps', 'items'), …`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

# Keywords whose value is one subschema, or a map or list of them.
ONE = ("items", "additionalItems", "not")
MANY = ("anyOf", "oneOf", "allOf", "prefixItems")
NAMED = ("properties", "$defs", "definitions", "patternProperties")


def strict_problem(schema: Any) -> str | None:
    """What breaks the strict rules, as the API words it after `Invalid schema for …: `; None when nothing does."""
    if type(schema) is not dict:
        return None
    kind = schema.get("type")
    if kind != "object" or "anyOf" in schema:
        shown = kind if type(kind) is str else "None"
        return f"schema must be a JSON Schema of 'type: \"object\"', got 'type: \"{shown}\"'."
    for context, node in _subschemas(schema, ()):
        properties = node.get("properties")
        if node.get("type") != "object" and type(properties) is not dict:
            continue
        if node.get("additionalProperties") is not False:
            return f"In context={context!r}, 'additionalProperties' is required to be supplied and to be false."
        required = node.get("required")
        listed = required if type(required) is list else []
        for key in properties if type(properties) is dict else ():
            if key not in listed:
                return (
                    f"In context={context!r}, 'required' is required to be supplied and to be an array including "
                    f"every key in properties. Missing '{key}'."
                )
    return None


def _subschemas(node: dict[str, Any], context: tuple[str | int, ...]) -> Iterator[tuple[tuple[str | int, ...], Any]]:
    """Each schema object below and including `node`, with its place, root first."""
    yield context, node
    for key, value in node.items():
        if key in NAMED and type(value) is dict:
            for name, sub in value.items():
                if type(sub) is dict:
                    yield from _subschemas(sub, (*context, key, name))
        elif key in MANY and type(value) is list:
            for at, sub in enumerate(value):
                if type(sub) is dict:
                    yield from _subschemas(sub, (*context, key, at))
        elif key in ONE and type(value) is dict:
            yield from _subschemas(value, (*context, key))


def mentions_json(texts: Iterable[str]) -> bool:
    """Whether any of the texts says "json", in any case: JSON mode's requirement of the prompt."""
    return any("json" in text.lower() for text in texts)


def texts(messages: Any, key: str = "content") -> Iterator[str]:
    """Every text of a list of messages or input items: string contents and text parts."""
    if type(messages) is str:
        yield messages
        return
    if type(messages) is not list:
        return
    for message in messages:
        if type(message) is not dict:
            continue
        content = message.get(key)
        if type(content) is str:
            yield content
        elif type(content) is list:
            for part in content:
                if type(part) is dict and type(part.get("text")) is str:
                    yield part["text"]
