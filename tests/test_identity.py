"""The conversation key: one answer per conversation, whichever dialect carries it, streamed or not."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.core import identity
from emulator.dialects import anthropic_messages, openai_chat, openai_responses
from tests.conftest import Server

SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}}


def chat_tool(description: str = "Weather", **schema: Any) -> Any:
    return {"type": "function", "function": {"name": "get_weather", "description": description} | schema}


WEATHER_CALL = {"type": "tool_use", "id": "toolu_x", "name": "get_weather", "input": {"city": "Paris", "days": 1}}
CHAT: Any = {
    "model": "m",
    "messages": [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "What is the weather in Paris?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Paris", "days": 1}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "18 C, sunny"},
    ],
    "tools": [
        {"type": "function", "function": {"name": "get_weather", "description": "Weather", "parameters": SCHEMA}}
    ],
}
RESPONSES: Any = {
    "model": "m",
    "instructions": "Be brief.",
    "input": [
        {"role": "user", "content": "What is the weather in Paris?"},
        {"type": "function_call", "call_id": "fc_9", "name": "get_weather", "arguments": '{"days":1,"city":"Paris"}'},
        {"type": "function_call_output", "call_id": "fc_9", "output": "18 C, sunny"},
    ],
    "tools": [{"type": "function", "name": "get_weather", "description": "Weather", "parameters": SCHEMA}],
}
MESSAGES: Any = {
    "model": "m",
    "max_tokens": 1000,
    "system": "Be brief.",
    "messages": [
        {"role": "user", "content": "What is the weather in Paris?"},
        {
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": "toolu_x", "name": "get_weather", "input": {"city": "Paris", "days": 1}}
            ],
        },
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_x", "content": "18 C, sunny"}]},
    ],
    "tools": [{"name": "get_weather", "description": "Weather", "input_schema": SCHEMA}],
}


USER_TURN = {"role": "user", "content": "Create hello.txt."}


def key(dialect: Any, body: Any) -> str:
    return identity.conversation(dialect.parse_request(body, {}))


def test_the_same_conversation_has_one_key_in_every_dialect() -> None:
    assert key(openai_chat, CHAT) == key(openai_responses, RESPONSES) == key(anthropic_messages, MESSAGES)


@pytest.mark.parametrize(
    "change",
    [
        {"stream": True, "stream_options": {"include_usage": True}},
        {"max_tokens": 7, "stop": ["sunny"]},
        {"user": "u", "metadata": {"a": "b"}, "prompt_cache_key": "k", "safety_identifier": "s"},
    ],
    ids=["stream", "limits", "metadata"],
)
def test_streaming_limits_and_metadata_are_not_in_the_key(change: dict[str, Any]) -> None:
    assert key(openai_chat, CHAT | change) == key(openai_chat, CHAT)


def test_ids_key_order_and_runs_of_whitespace_are_not_in_the_key() -> None:
    other = json.loads(json.dumps(CHAT).replace("call_1", "call_zz"))
    other["messages"][1]["content"] = "  What is  the weather\nin Paris? "
    other["messages"][2]["tool_calls"][0]["function"]["arguments"] = '{"days":1,  "city":"Paris"}'
    other = dict(reversed(list(other.items())))
    assert key(openai_chat, other) == key(openai_chat, CHAT)


@pytest.mark.parametrize(
    "change",
    [
        {"temperature": 0.2},
        {"seed": 7},
        {"model": "n"},
        {"tool_choice": "required"},
        {"response_format": {"type": "json_object"}},
        {
            "tools": [
                {"type": "function", "function": {"name": "get_weather", "description": "Other", "parameters": SCHEMA}}
            ]
        },
        {"tools": [{"type": "function", "function": {"name": "get_weather", "description": "Weather"}}]},
        {"messages": CHAT["messages"][:-1] + [{"role": "tool", "tool_call_id": "call_1", "content": "rain"}]},
    ],
    ids=["temperature", "seed", "model", "tool_choice", "response_format", "description", "schema", "tool_result"],
)
def test_what_changes_the_answer_is_in_the_key(change: dict[str, Any]) -> None:
    assert key(openai_chat, CHAT | change) != key(openai_chat, CHAT)


def answers(server: Server, stream: bool, question: str, **asked: Any) -> dict[str, tuple[str, str, Any]]:
    """The default answer's (reasoning, text, tool calls) through each dialect's SDK."""
    user: Any = [{"role": "user", "content": question}]
    chat_tools = [{"type": "function", "function": {"name": "lookup", "description": "Find", "parameters": SCHEMA}}]
    responses_tools = [{"type": "function", "name": "lookup", "description": "Find", "parameters": SCHEMA}]
    messages_tools = [{"name": "lookup", "description": "Find", "input_schema": SCHEMA}]
    required = asked.get("tool_choice") == "required"
    chat_extra: Any = {"tools": chat_tools, "tool_choice": "required"} if required else {}
    responses_extra: Any = {"tools": responses_tools, "tool_choice": "required"} if required else {}
    messages_extra: Any = {"tools": messages_tools, "tool_choice": {"type": "any"}} if required else {}
    seen = {}
    with server.openai() as client, server.anthropic() as claude:
        if stream:
            with client.chat.completions.stream(model="m", messages=user, **chat_extra) as chat:
                done: Any = chat.get_final_completion()
            with client.responses.stream(model="m", input=question, **responses_extra) as responses:
                response: Any = responses.get_final_response()
            with claude.messages.stream(model="m", max_tokens=8000, messages=user, **messages_extra) as m:
                message: Any = m.get_final_message()
        else:
            done = client.chat.completions.create(model="m", messages=user, **chat_extra)
            response = client.responses.create(model="m", input=question, **responses_extra)
            message = claude.messages.create(model="m", max_tokens=8000, messages=user, **messages_extra)
    reply = done.choices[0].message
    calls = [(c.function.name, json.loads(c.function.arguments)) for c in reply.tool_calls or ()]
    seen["chat"] = (reply.reasoning_content, reply.content or "", calls)
    reasoning = "".join(c.text for i in response.output if i.type == "reasoning" for c in i.content or ())
    calls = [(i.name, json.loads(i.arguments)) for i in response.output if i.type == "function_call"]
    seen["responses"] = (reasoning, response.output_text, calls)
    thinking = "".join(b.thinking for b in message.content if b.type == "thinking")
    text = "".join(b.text for b in message.content if b.type == "text")
    seen["messages"] = (thinking, text, [(b.name, b.input) for b in message.content if b.type == "tool_use"])
    return seen


@pytest.mark.parametrize("tool_choice", ["auto", "required"])
def test_one_conversation_gets_one_answer_in_every_dialect_streamed_or_not(server: Server, tool_choice: str) -> None:
    """The default answer: its reasoning, text, and tool calls with their arguments."""
    whole = answers(server, False, "Why is my Go map iteration order random?", tool_choice=tool_choice)
    streamed = answers(server, True, "Why is my Go map iteration order random?", tool_choice=tool_choice)
    first = whole["chat"]
    assert first[0] and (first[1] or first[2])  # it said something
    for seen in (whole, streamed):
        for dialect, answer in seen.items():
            assert answer == first, dialect
    other = answers(server, False, "How do I sort a list in Python?", tool_choice=tool_choice)["chat"]
    assert other != first  # another conversation, another answer


def test_a_lower_limit_cuts_the_same_answer_shorter(server: Server) -> None:
    question: Any = [{"role": "user", "content": "Tell me about tides."}]
    with server.openai() as client:
        full = client.chat.completions.create(model="m", messages=question, reasoning_effort="none")
        cut = client.chat.completions.create(model="m", messages=question, reasoning_effort="none", max_tokens=5)
    assert cut.choices[0].finish_reason == "length"
    whole, shorter = full.choices[0].message.content, cut.choices[0].message.content
    assert whole and shorter and whole.startswith(shorter)


def test_a_system_prompt_in_two_parts_is_one_system_prompt_in_every_dialect() -> None:
    """Codex sends two developer messages; sent through Messages they are two blocks of the top-level `system`:
    the same conversation, which replay across dialects must see as such."""
    parts = ["You are Codex, a coding agent.", "Sandbox: workspace-write. Approvals: never."]
    chat = {"model": "m", "messages": [*({"role": "developer", "content": p} for p in parts), USER_TURN]}
    responses = {
        "model": "m",
        "input": [*({"type": "message", "role": "developer", "content": p} for p in parts), USER_TURN],
    }
    messages = {
        "model": "m",
        "max_tokens": 100,
        "system": [{"type": "text", "text": p} for p in parts],
        "messages": [USER_TURN],
    }
    assert key(openai_chat, chat) == key(openai_responses, responses) == key(anthropic_messages, messages)
    instructions = {"model": "m", "instructions": "\n".join(parts), "input": [USER_TURN]}
    assert key(openai_responses, instructions) == key(openai_responses, responses)


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet=st.sampled_from("ab \t\n\x1c\u2003\u00a0é"), max_size=60), size=st.integers(1, 9))
def test_a_long_text_is_read_as_words_a_slice_at_a_time_and_keyed_the_same(text: str, size: int) -> None:
    """A 20 MB message was split in one call of 140 ms, the loop answering nothing meanwhile: a long one goes a
    slice at a time, cut at a space, and its words (so the conversation's key) are those of one split."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(identity, "SLICE", size)
        assert identity._words(text) == " ".join(text.split())
