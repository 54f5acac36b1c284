"""OpenAI's rules for a strict JSON Schema (Structured Outputs, and function tools with `strict: true`), and its
rule that JSON mode's prompt mention JSON: what the `openai` profile refuses, in the API's words.

The rules, from OpenAI's Structured Outputs guide: the root is an object (not `anyOf`); every object says
`additionalProperties: false` and lists every key of its `properties` in `required`. The schema is walked root
first, then each subschema in the order written (`properties`, `items`, `anyOf`, `$defs`, `definitions`); the first
object breaking a rule is reported with its place in the schema as the API shows it, a Python tuple of keys:
`In context=('properties', 'steps', 'items'), …`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from emulator.core.errors import InvalidRequest

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


# --- what the `openai` profile checks of a body (`validation.body`) ---------------------------------------------


def chat(data: Mapping[str, Any]) -> None:
    """Chat's strict schemas (`response_format`, strict function tools) and JSON mode's mention of JSON."""
    form = data.get("response_format")
    kind = form.get("type") if type(form) is dict else None
    if kind == "json_schema":
        spec = form.get("json_schema") if type(form) is dict else None
        if type(spec) is dict and spec.get("strict") is True:
            _held(spec.get("schema"), f"response_format '{spec.get('name')}'", "response_format", "invalid_json_schema")
    elif kind == "json_object" and not mentions_json(texts(data.get("messages"))):
        raise InvalidRequest(  # the API's words
            "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.",
            param="messages",
        )
    for at, tool in enumerate(data.get("tools") or ()):
        function = tool.get("function") if type(tool) is dict else None
        if type(function) is dict and function.get("strict") is True:
            where = f"tools[{at}].function.parameters"
            _held(
                function.get("parameters"), f"function '{function.get('name')}'", where, "invalid_function_parameters"
            )


def responses(data: Mapping[str, Any]) -> None:
    """Responses' strict schemas (`text.format`, strict function tools) and JSON mode's mention of JSON in `input`
    (its instructions do not count)."""
    text = data.get("text")
    form = text.get("format") if type(text) is dict else None
    kind = form.get("type") if type(form) is dict else None
    if kind == "json_schema" and type(form) is dict and form.get("strict") is True:
        _held(form.get("schema"), f"response_format '{form.get('name')}'", "text.format.schema", "invalid_json_schema")
    elif kind == "json_object" and not mentions_json(texts(data.get("input"))):
        raise InvalidRequest(  # the API's words
            "Response input messages must contain the word 'json' in some form to use 'text.format' of type "
            "'json_object'.",
            param="text.format",
        )
    for at, tool in enumerate(data.get("tools") or ()):
        if type(tool) is dict and tool.get("type") == "function" and tool.get("strict") is True:
            _held(
                tool.get("parameters"),
                f"function '{tool.get('name')}'",
                f"tools[{at}].parameters",
                "invalid_function_parameters",
            )


def _held(given: Any, what: str, param: str, code: str) -> None:
    """A strict schema that breaks OpenAI's rules, refused in its words (`structured.py`)."""
    if given is None:
        return
    problem = strict_problem(given)
    if problem is not None:
        raise InvalidRequest(f"Invalid schema for {what}: {problem}", param=param, code=code)
