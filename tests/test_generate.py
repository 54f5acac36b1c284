"""The embedded default: deterministic faker text, and JSON valid against the tool's schema."""

from __future__ import annotations

import json

import jsonschema
import pytest

from emulator.conversation import Message, Prompt, ResponseFormat, Tool, ToolChoice
from emulator.errors import InvalidRequest
from emulator.generate import Writer, default_reply
from tests.test_instances import DEEP, SCHEMAS


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


def test_a_bad_schema_in_a_tool_is_the_clients_400() -> None:
    tools = (Tool("deep", parameters=DEEP),)
    with pytest.raises(InvalidRequest) as caught:
        default_reply(prompt(tools=tools, tool_choice=ToolChoice("required")), Writer(0))
    assert caught.value.param == "tools"
    assert caught.value.message.startswith("Invalid schema for function 'deep': items.minItems: forces an instance")
    with pytest.raises(InvalidRequest) as caught:
        default_reply(
            prompt(response_format=ResponseFormat("json_schema", {"type": "integer", "multipleOf": -2})), Writer(0)
        )
    assert caught.value.param == "response_format"
