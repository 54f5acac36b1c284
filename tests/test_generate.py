"""The embedded default: deterministic faker text, and JSON valid against the tool's schema."""

from __future__ import annotations

import json
import random
from typing import Any

import jsonschema
import pytest

from emulator.conversation import Message, Prompt, ResponseFormat, Tool, ToolChoice
from emulator.generate import Writer, default_reply, instance

SCHEMAS: list[dict[str, Any]] = [
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    {"type": "object", "properties": {"n": {"type": "integer", "minimum": 3, "maximum": 5}}},
    {"type": "object", "properties": {"x": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1}}},
    {"type": "object", "properties": {"k": {"type": "integer", "multipleOf": 7, "minimum": 10}}},
    {
        "type": "object",
        "properties": {"u": {"enum": ["c", "f"]}, "v": {"const": 3}, "w": {"type": ["null", "boolean"]}},
    },
    {"type": "array", "items": {"type": "string", "minLength": 12, "maxLength": 14}, "minItems": 2, "maxItems": 3},
    {"type": "object", "properties": {"when": {"type": "string", "format": "date-time"}}},
    {
        "type": "object",
        "$defs": {"point": {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]}},
        "properties": {"points": {"type": "array", "items": {"$ref": "#/$defs/point"}}},
        "required": ["points"],
        "additionalProperties": False,
    },
    {"anyOf": [{"type": "string"}, {"type": "integer"}]},
    {"allOf": [{"type": "object", "properties": {"a": {"type": "boolean"}}}, {"required": ["a"]}]},
]


@pytest.mark.parametrize("schema", SCHEMAS)
def test_instances_are_valid(schema: dict[str, Any]) -> None:
    for seed in range(20):
        jsonschema.validate(instance(schema, random.Random(seed)), schema)


def prompt(**fields: object) -> Prompt:
    return Prompt(dialect="t", model="m", messages=(Message("user", "hi"),), fingerprint="f", **fields)  # type: ignore[arg-type]


def test_default_reply_reasons_by_effort_and_is_deterministic() -> None:
    writer = Writer(0)
    low, high = default_reply(prompt(effort="low"), writer), default_reply(prompt(effort="max"), writer)
    assert low.reasoning.count(".") == 2 and high.reasoning.count(".") == 9
    assert default_reply(prompt(effort="none"), writer).reasoning == ""
    assert default_reply(prompt(), writer) == default_reply(prompt(), Writer(0)) != default_reply(prompt(), Writer(1))


def test_default_reply_calls_the_required_tool() -> None:
    tools = (Tool("a", parameters=SCHEMAS[0]), Tool("b", parameters=SCHEMAS[1]))
    reply = default_reply(prompt(tools=tools, tool_choice=ToolChoice("required", "b")), Writer(0))
    (call,) = reply.tool_calls
    assert call.name == "b"
    jsonschema.validate(json.loads(call.arguments), SCHEMAS[1])
    assert default_reply(prompt(tools=tools, tool_choice=ToolChoice("required")), Writer(0)).tool_calls[0].name == "a"
    assert default_reply(prompt(tools=tools), Writer(0)).tool_calls == ()


def test_default_reply_answers_json_when_asked() -> None:
    reply = default_reply(prompt(response_format=ResponseFormat("json_schema", SCHEMAS[7])), Writer(0))
    jsonschema.validate(json.loads(reply.text), SCHEMAS[7])
    assert isinstance(
        json.loads(default_reply(prompt(response_format=ResponseFormat("json_object")), Writer(0)).text), dict
    )
