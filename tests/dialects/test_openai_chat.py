"""The Chat Completions dialect without sockets: golden bytes against the seed and wire-formats.md §1.2,
request validation, and the stream/non-stream equivalence through the SDK's own accumulator."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openai.lib.streaming.chat import ChatCompletionStreamState
from openai.types.chat import ChatCompletion, ChatCompletionChunk

from emulator.answering.compose import finish
from emulator.core import sse, tokens
from emulator.core.conversation import Reply, ToolCall
from emulator.core.errors import InvalidRequest
from emulator.default_model.generate import Writer, default_reply
from emulator.dialects import openai_chat

# The seed's curl example (000_db11a23fb20ba52d.txt), verbatim.
SEED_BODY = {
    "model": "DeepSeek-V4.1-Flash-1017",
    "stream": True,
    "stream_options": {"include_usage": True},
    "reasoning_effort": "low",
    "messages": [
        {"role": "system", "content": "You are a terse senior engineer."},
        {"role": "user", "content": "Why is my Go map iteration order random?"},
    ],
}
CHUNK_FIELDS = {"id", "object", "created", "model", "system_fingerprint", "choices", "usage"}
CHOICE_FIELDS = {"index", "delta", "logprobs", "finish_reason"}
WRITER = Writer(0)


def parse(body: dict[str, Any]) -> Any:
    return openai_chat.parse_request(body, {"authorization": "Bearer k"}, "fp")


def stream_of(body: dict[str, Any], reply: Reply) -> list[sse.Event]:
    prompt = parse(body)
    turn = finish(prompt, reply, created=1)
    return list(sse.decode(openai_chat.render_stream(prompt, turn)))


def test_seed_example_streams_reasoning_content_then_usage_then_done() -> None:
    prompt = parse(SEED_BODY)
    assert (prompt.effort, prompt.include_usage, prompt.stream) == ("low", True, True)
    turn = finish(prompt, default_reply(prompt, WRITER), created=1)
    events = list(sse.decode(openai_chat.render_stream(prompt, turn)))
    assert all(e.event is None for e in events)  # data-only, as real servers send
    assert events[-1].data == "[DONE]"
    chunks = [e.json() for e in events[:-1]]
    kinds = []
    for chunk in chunks:
        assert set(chunk) == CHUNK_FIELDS
        assert chunk["object"] == "chat.completion.chunk"
        if chunk["choices"]:
            (choice,) = chunk["choices"]
            assert set(choice) == CHOICE_FIELDS and chunk["usage"] is None
            delta = choice["delta"]
            kinds.append("finish" if choice["finish_reason"] else "role" if "role" in delta else next(iter(delta)))
        else:
            kinds.append("usage")
    # role chunk, reasoning deltas, content deltas, finish, usage: in that order, each run non-empty
    runs = [k for i, k in enumerate(kinds) if i == 0 or kinds[i - 1] != k]
    assert runs == ["role", "reasoning_content", "content", "finish", "usage"]
    assert chunks[0]["choices"][0]["delta"] == {"role": "assistant", "content": None, "reasoning_content": ""}
    usage = chunks[-1]["usage"]
    assert usage["prompt_tokens_details"] == {"cached_tokens": 0}
    assert usage["completion_tokens_details"]["reasoning_tokens"] == tokens.count(turn.reasoning) > 0
    assert usage["completion_tokens"] == kinds.count("reasoning_content") + kinds.count("content")
    assert len({c["id"] for c in chunks}) == 1


def test_tool_call_deltas_open_with_id_and_name_then_carry_arguments() -> None:
    call = ToolCall(id="call_1", name="get_weather", arguments='{"city":"Paris"}')
    events = stream_of(
        {"model": "m", "messages": [{"role": "user", "content": "x"}], "stream": True}, Reply(tool_calls=(call,))
    )
    deltas = [e.json()["choices"][0] for e in events[:-1]]
    assert deltas[0]["delta"] == {"role": "assistant", "content": None, "refusal": None}
    assert deltas[1]["delta"] == {
        "tool_calls": [
            {"index": 0, "id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": ""}}
        ]
    }
    fragments = [d["delta"]["tool_calls"][0] for d in deltas[2:-1]]
    assert all(set(f) == {"index", "function"} and set(f["function"]) == {"arguments"} for f in fragments)
    assert "".join(f["function"]["arguments"] for f in fragments) == call.arguments
    assert deltas[-1] == {"index": 0, "delta": {}, "logprobs": None, "finish_reason": "tool_calls"}
    assert "usage" not in events[0].json()  # only present when include_usage was asked for


def test_non_stream_body_has_the_documented_shape() -> None:
    prompt = parse({"model": "m", "messages": [{"role": "user", "content": "x"}]})
    body = openai_chat.render(prompt, finish(prompt, Reply(reasoning="r", text="hi"), created=5))
    assert set(body) == {"id", "object", "created", "model", "system_fingerprint", "choices", "usage"}
    assert body["object"] == "chat.completion" and body["created"] == 5
    assert body["choices"][0]["message"] == {
        "role": "assistant",
        "content": "hi",
        "refusal": None,
        "reasoning_content": "r",
    }
    assert set(body["usage"]) == {
        "prompt_tokens",
        "completion_tokens",
        "total_tokens",
        "prompt_tokens_details",
        "completion_tokens_details",
    }
    ChatCompletion.model_validate(body, strict=True)


def test_request_fields_reach_the_prompt() -> None:
    prompt = parse(
        {
            "model": "m",
            "messages": [
                {"role": "developer", "content": [{"type": "text", "text": "be brief"}]},
                {
                    "role": "user",
                    "content": [{"type": "image_url", "image_url": {"url": "data:image/png;base64,AA=="}}],
                },
                {
                    "role": "assistant",
                    "content": None,
                    "reasoning_content": "thought",
                    "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}],
                },
                {"role": "tool", "tool_call_id": "c1", "content": "42"},
            ],
            "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}],
            "tool_choice": "required",
            "max_tokens": 50,
            "thinking_budget": 80,
            "stop": "END",
            "n": 3,
            "logit_bias": {"1": 2},
            "user": "u-1",
        }
    )
    assert [m.role for m in prompt.messages] == ["developer", "user", "assistant", "tool"]
    assert prompt.messages[1].images == 1
    assert prompt.messages[2].reasoning == "thought" and prompt.messages[2].tool_calls[0].name == "f"
    assert prompt.messages[3].tool_call_id == "c1"
    assert prompt.tool_choice.mode == "required" and prompt.tools[0].name == "f"
    assert (prompt.max_tokens, prompt.reasoning_budget, prompt.stop) == (50, 50, ("END",))  # budget capped by limit
    assert (prompt.cache_key, prompt.api_key, prompt.assistant_turns) == ("u-1", "k", 1)


@pytest.mark.parametrize(
    ("body", "param", "words"),
    [
        ([], None, "JSON object"),
        ({"model": "m", "messages": []}, "messages", "empty array"),
        ({"model": "m", "messages": [3]}, "messages[0]", "expected an object"),
        ({"model": "m", "messages": [{"role": "user", "content": 5}]}, "messages[0].content", "string or an array"),
        (
            {"model": "m", "messages": [{"role": "user", "content": [{"type": "audio"}]}]},
            "messages[0].content[0].type",
            "audio",
        ),
        ({"model": "m", "messages": [{"role": "user", "content": "x"}], "stop": [1]}, "stop", "array of strings"),
        (
            {"model": "m", "messages": [{"role": "user", "content": "x"}], "tool_choice": "sometimes"},
            "tool_choice",
            "sometimes",
        ),
        (
            {
                "model": "m",
                "messages": [{"role": "user", "content": "x"}],
                "tool_choice": {"type": "function", "function": {"name": "g"}},
            },
            "tool_choice.function.name",
            "no function named 'g'",
        ),
        (
            {"model": "m", "messages": [{"role": "user", "content": "x"}], "response_format": {"type": "xml"}},
            "response_format.type",
            "xml",
        ),
        ({"model": "m", "messages": [{"role": "user", "content": "x"}], "stream": "yes"}, "stream", "a boolean"),
    ],
)
def test_bad_requests_name_the_field(body: Any, param: str | None, words: str) -> None:
    with pytest.raises(InvalidRequest) as caught:
        parse(body)
    assert caught.value.param == param
    assert words in caught.value.message


# --- stream and non-stream agree, for any reply a scenario can script -------------------------------------

texts = st.text(st.characters(codec="utf-8"), max_size=120)
names = st.from_regex(r"[a-z_]{1,12}", fullmatch=True)
arguments = st.dictionaries(names, st.one_of(st.integers(), texts, st.booleans()), max_size=4).map(json.dumps)
calls = st.lists(st.builds(ToolCall, id=st.just(""), name=names, arguments=arguments), max_size=3)
replies = st.builds(
    Reply,
    reasoning=texts,
    text=texts,
    tool_calls=calls.map(tuple),
    finish_reason=st.sampled_from([None, "stop", "length", "tool_calls", "content_filter"]),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    reply=replies,
    max_tokens=st.one_of(st.none(), st.integers(1, 80)),
    stop=st.lists(st.text(min_size=1, max_size=3), max_size=2),
)
def test_stream_accumulates_to_the_non_stream_message(reply: Reply, max_tokens: int | None, stop: list[str]) -> None:
    body: dict[str, Any] = {"model": "m", "messages": [{"role": "user", "content": "x"}], "stop": stop}
    if max_tokens:
        body["max_tokens"] = max_tokens
    prompt = parse(body)
    turn = finish(prompt, reply, created=1)
    plain = ChatCompletion.model_validate(openai_chat.render(prompt, turn), strict=True)

    streamed = parse(body | {"stream": True, "stream_options": {"include_usage": True}})
    state: ChatCompletionStreamState[None] = ChatCompletionStreamState()
    for event in sse.decode(openai_chat.render_stream(streamed, turn)):
        if event.data != "[DONE]":
            state.handle_chunk(ChatCompletionChunk.model_validate(event.json(), strict=True))
    final = state.current_completion_snapshot
    got, want = final.choices[0].message, plain.choices[0].message
    assert got.content == want.content
    assert getattr(got, "reasoning_content", None) == getattr(want, "reasoning_content", None)
    assert [_call(c) for c in got.tool_calls or []] == [_call(c) for c in want.tool_calls or []]
    assert final.choices[0].finish_reason == plain.choices[0].finish_reason
    assert final.usage == plain.usage


def _call(call: Any) -> tuple[str, str, str, str]:
    return call.id, call.type, call.function.name, call.function.arguments
