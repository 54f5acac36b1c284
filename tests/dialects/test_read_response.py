"""Each dialect reads back what it renders: a recorded answer, streamed or whole, becomes the `Reply` it came
from, which is what lets a cassette recorded through one dialect answer in another."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from emulator.answering.compose import finish
from emulator.core import sse
from emulator.core.conversation import Reply, ToolCall, Turn
from emulator.dialects import anthropic_messages, openai_chat, openai_responses
from tests.dialects.test_openai_chat import names, texts
from tests.dialects.test_openai_chat import replies as chat_replies

USER = [{"role": "user", "content": "hi"}]
BODIES: dict[str, dict[str, Any]] = {
    "openai_chat": {"model": "m", "messages": USER},
    "openai_responses": {"model": "m", "input": "hi"},
    "anthropic_messages": {"model": "m", "max_tokens": 4000, "messages": USER},
}
DIALECTS: dict[str, Any] = {d.NAME: d for d in (openai_chat, openai_responses, anthropic_messages)}
CASES = [("openai_chat", "inferam"), ("openai_chat", "infercom"), ("openai_responses", "inferam")]
CASES += [("anthropic_messages", "inferam")]

# The Chat tests' replies, with tool arguments whose integers JSON libraries agree on: orjson, on the
# Messages path, stops at 64 bits.
objects = st.dictionaries(names, st.one_of(st.integers(-(2**53), 2**53), texts, st.booleans()), max_size=3)
calls = st.lists(st.builds(ToolCall, id=st.just(""), name=names, arguments=objects.map(json.dumps)), max_size=3)
replies = st.builds(replace, chat_replies, tool_calls=calls.map(tuple))


def rendered(name: str, profile: str, reply: Reply, stream: bool) -> tuple[Turn, bytes]:
    dialect = DIALECTS[name]
    body = BODIES[name] | {"stream": stream}
    if stream and name == "openai_chat":
        body["stream_options"] = {"include_usage": True}
    prompt = dialect.parse_request(body, {}, "fp", profile)
    turn = finish(prompt, reply, created=1)
    return turn, b"".join(dialect.render_stream(prompt, turn)) if stream else sse.encode(dialect.render(prompt, turn))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(reply=replies, stream=st.booleans())
@pytest.mark.parametrize(("name", "profile"), CASES)
def test_a_rendered_answer_reads_back_as_its_reply(name: str, profile: str, reply: Reply, stream: bool) -> None:
    turn, body = rendered(name, profile, reply, stream)
    read = DIALECTS[name].read_response(body, stream)
    assert read.reasoning == turn.reasoning
    assert read.text == turn.text
    assert [(c.name, json.loads(c.arguments)) for c in read.tool_calls] == [
        (c.name, json.loads(c.arguments)) for c in turn.tool_calls
    ]
    expected = turn.finish_reason
    if profile == "infercom" and expected == "content_filter":  # not in its enum
        expected = "stop"
    if name == "openai_responses" and expected in ("stop", "tool_calls"):  # its status says only "completed"
        expected = "tool_calls" if turn.tool_calls else "stop"
    assert read.finish_reason == expected
    assert read.usage is not None
    assert read.usage["input_tokens"] == turn.usage.input_tokens
    assert read.usage["output_tokens"] == turn.usage.output_tokens
    assert read.usage["cached_tokens"] == turn.usage.cached_tokens


@pytest.mark.parametrize("name", DIALECTS)
def test_a_stream_that_broke_off_is_not_an_answer(name: str) -> None:
    dialect = DIALECTS[name]
    prompt = dialect.parse_request(BODIES[name] | {"stream": True}, {}, "fp")
    turn = finish(prompt, Reply(text="Hello there, friend."), created=1)
    events = list(dialect.render_stream(prompt, turn))
    with pytest.raises((ValueError, KeyError, IndexError)):
        dialect.read_response(b"".join(events[:3]), True)
