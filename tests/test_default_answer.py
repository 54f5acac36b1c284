"""The default answer plays along through the official SDKs: a tool loop under `tool_choice: auto` ends in two
calls, the tool's result in the final text."""

from __future__ import annotations

import json
from typing import Any

from tests.conftest import Server

CITY = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
DESCRIPTION = "Current weather conditions for a city."
RESULT = "18 °C and sunny, light wind from the west"


def test_a_weather_loop_with_tool_choice_auto_completes_in_two_calls(server: Server) -> None:
    tools: Any = [
        {"type": "function", "function": {"name": "current_conditions", "description": DESCRIPTION, "parameters": CITY}}
    ]
    messages: Any = [{"role": "user", "content": "What's the weather like in Paris right now?"}]
    with server.openai() as client:
        first = client.chat.completions.create(model="m", messages=messages, tools=tools)
        calls = first.choices[0].message.tool_calls or []
        assert first.choices[0].finish_reason == "tool_calls" and len(calls) == 1
        call = calls[0]
        assert call.function.name == "current_conditions" and json.loads(call.function.arguments) == {"city": "Paris"}
        messages += [
            first.choices[0].message.model_dump(exclude_none=True),
            {"role": "tool", "tool_call_id": call.id, "content": RESULT},
        ]
        second = client.chat.completions.create(model="m", messages=messages, tools=tools)
    assert second.choices[0].finish_reason == "stop" and not second.choices[0].message.tool_calls
    assert RESULT in (second.choices[0].message.content or "")


def test_the_same_loop_through_messages_streamed(server: Server) -> None:
    tools: Any = [{"name": "current_conditions", "description": DESCRIPTION, "input_schema": CITY}]
    messages: Any = [{"role": "user", "content": "What's the weather like in Paris right now?"}]
    with server.anthropic() as claude:
        with claude.messages.stream(model="m", max_tokens=4000, messages=messages, tools=tools) as stream:
            first = stream.get_final_message()
        (use,) = [b for b in first.content if b.type == "tool_use"]
        assert first.stop_reason == "tool_use" and use.input == {"city": "Paris"}
        messages += [
            {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in first.content]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": use.id, "content": RESULT}]},
        ]
        with claude.messages.stream(model="m", max_tokens=4000, messages=messages, tools=tools) as stream:
            second = stream.get_final_message()
    assert second.stop_reason == "end_turn"
    assert RESULT in "".join(b.text for b in second.content if b.type == "text")
