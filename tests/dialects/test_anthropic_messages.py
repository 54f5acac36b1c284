"""The Messages dialect without sockets: golden events against the seed and wire-formats.md §3.2,
request validation, and the stream/non-stream equivalence through the SDK's own accumulator."""

from __future__ import annotations

import json
from typing import Any

import jiter
import pytest
from anthropic.lib.streaming._messages import accumulate_event  # what MessageStream folds events with
from anthropic.types import (
    Message,
    RawContentBlockDeltaEvent,
    RawContentBlockStartEvent,
    RawContentBlockStopEvent,
    RawMessageDeltaEvent,
    RawMessageStartEvent,
    RawMessageStopEvent,
)
from anthropic.types.shared import ErrorResponse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from emulator.answering.compose import finish
from emulator.core import sse, tokens
from emulator.core.conversation import Fault, Reply, ToolCall
from emulator.core.errors import InvalidRequest, NotFound, UpstreamError
from emulator.default_model.generate import Writer, default_reply
from emulator.dialects import anthropic_messages as dialect
from emulator.dialects.anthropic_messages import rendering

# The seed's curl example (004_99e9388de872c08d.txt), verbatim.
SEED_BODY: dict[str, Any] = {
    "model": "DeepSeek-V4.1-Flash-1017",
    "max_tokens": 1024,
    "system": "You are a terse senior engineer.",
    "messages": [{"role": "user", "content": "What does a WAL protect against?"}],
}
SEED_HEADERS = {"x-api-key": "sk-inferam", "anthropic-version": "2023-06-01", "content-type": "application/json"}
USER = [{"role": "user", "content": "x"}]
WRITER = Writer(0)
EVENT_TYPES: dict[str, Any] = {
    "message_start": RawMessageStartEvent,
    "content_block_start": RawContentBlockStartEvent,
    "content_block_delta": RawContentBlockDeltaEvent,
    "content_block_stop": RawContentBlockStopEvent,
    "message_delta": RawMessageDeltaEvent,
    "message_stop": RawMessageStopEvent,
}
USAGE_FIELDS = {"input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens"}


def parse(body: dict[str, Any], headers: dict[str, str] | None = None) -> Any:
    return dialect.parse_request(body, {"authorization": "Bearer k"} if headers is None else headers, "fp")


def events_of(body: dict[str, Any], reply: Reply) -> list[sse.Event]:
    prompt = parse(body | {"stream": True})
    return list(sse.decode(dialect.render_stream(prompt, finish(prompt, reply, created=1))))


# --- golden: the seed's example and wire-formats.md §3.2 -------------------------------------------------


def test_seed_example_answers_a_message_with_thinking_first() -> None:
    prompt = dialect.parse_request(SEED_BODY, SEED_HEADERS, "fp")
    assert (prompt.model, prompt.max_tokens, prompt.api_key, prompt.stream) == (
        "DeepSeek-V4.1-Flash-1017",
        1024,
        "sk-inferam",
        False,
    )
    assert [(m.role, m.text) for m in prompt.messages] == [
        ("system", "You are a terse senior engineer."),
        ("user", "What does a WAL protect against?"),
    ]
    turn = finish(prompt, default_reply(prompt, WRITER), created=1)
    body = dialect.render(prompt, turn)
    assert set(body) == {"id", "type", "role", "model", "content", "stop_reason", "stop_sequence", "usage"}
    assert body["id"].startswith("msg_01") and body["type"] == "message" and body["role"] == "assistant"
    assert [b["type"] for b in body["content"]] == ["thinking", "text"]  # "The model thinks by default"
    assert body["content"][0]["signature"] == ""  # "Their signature is always an empty string"
    assert (body["stop_reason"], body["stop_sequence"]) == ("end_turn", None)
    assert set(body["usage"]) == USAGE_FIELDS  # the seed's Usage example, field for field
    assert body["usage"]["input_tokens"] == dialect.count_tokens(SEED_BODY, SEED_HEADERS)["input_tokens"]
    Message.model_validate(body, strict=True)


def test_stream_events_come_in_the_documented_order_with_their_fields() -> None:
    reply = Reply(
        reasoning="Let me think",
        text="I'll check.",
        tool_calls=(ToolCall("call_1", "get_weather", '{"city": "Paris"}'),),
    )
    events = events_of({"model": "m", "max_tokens": 100, "messages": USER}, reply)
    assert all(e.event == e.json()["type"] for e in events)  # every event is named: the SDK needs `event:`
    names = []
    for e in events:
        data = e.json()
        if data["type"] in ("content_block_delta",):
            names.append(data["delta"]["type"])
        elif data["type"] == "content_block_start":
            names.append("start:" + data["content_block"]["type"])
        else:
            names.append(data["type"])
    runs = [n for i, n in enumerate(names) if i == 0 or names[i - 1] != n]
    assert runs == [
        "message_start",
        "start:thinking",
        "ping",  # once, right after the first block opens (wire-formats.md §3.2)
        "thinking_delta",
        "signature_delta",
        "content_block_stop",
        "start:text",
        "text_delta",
        "content_block_stop",
        "start:tool_use",
        "input_json_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    data = [e.json() for e in events]
    start = data[0]["message"]
    assert set(start) == {"id", "type", "role", "model", "content", "stop_reason", "stop_sequence", "usage"}
    assert (start["content"], start["stop_reason"], start["usage"]["output_tokens"]) == ([], None, 1)
    assert set(start["usage"]) == USAGE_FIELDS
    opening = next(d for d in data if d.get("content_block", {}).get("type") == "tool_use")
    assert opening["content_block"]["input"] == {} and opening["content_block"]["id"].startswith("toolu_01")
    fragments = [d["delta"]["partial_json"] for d in data if d["type"] == "content_block_delta" and d["index"] == 2]
    assert fragments[0] == "" and "".join(fragments) == '{"city": "Paris"}'  # empty first, as Anthropic sends
    assert [d["delta"] for d in data if d["type"] == "content_block_delta" and d["index"] == 0][-1] == {
        "type": "signature_delta",
        "signature": "",
    }
    final = data[-2]
    assert final["delta"] == {"stop_reason": "tool_use", "stop_sequence": None}
    assert set(final["usage"]) == USAGE_FIELDS  # cumulative totals, always present
    assert final["usage"]["output_tokens"] == sum(
        map(tokens.count, ["Let me think", "I'll check.", "get_weather", '{"city": "Paris"}'])
    )
    for d in data:
        if d["type"] in EVENT_TYPES:
            EVENT_TYPES[d["type"]].model_validate(d, strict=True)


def test_an_empty_answer_still_pings_and_ends() -> None:
    names = [e.event for e in events_of({"model": "m", "max_tokens": 5, "messages": USER}, Reply())]
    assert names == ["message_start", "ping", "message_delta", "message_stop"]


def test_a_fault_cuts_the_stream_with_an_error_event_and_nothing_after() -> None:
    fault = Fault(after_events=4, status=529, message="Overloaded")
    events = events_of({"model": "m", "max_tokens": 100, "messages": USER}, Reply(text="a b c d e f", fault=fault))
    assert [e.event for e in events] == ["message_start", "content_block_start", "ping", "content_block_delta", "error"]
    body = events[-1].json()
    assert body == {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    ErrorResponse.model_validate(body, strict=True)


@pytest.mark.parametrize(
    ("status", "kind"),
    [
        (400, "invalid_request_error"),
        (401, "authentication_error"),
        (402, "billing_error"),
        (403, "permission_error"),
        (404, "not_found_error"),
        (413, "request_too_large"),
        (422, "invalid_request_error"),
        (429, "rate_limit_error"),
        (500, "api_error"),
        (503, "api_error"),
        (504, "timeout_error"),
        (529, "overloaded_error"),
    ],
)
def test_error_types_follow_the_status(status: int, kind: str) -> None:
    body = dialect.render_error(UpstreamError(status))
    assert body["type"] == "error" and body["error"]["type"] == kind and body["error"]["message"]


def test_a_scripted_code_naming_an_anthropic_type_wins() -> None:
    assert dialect.error_type(UpstreamError(500, code="overloaded_error")) == "overloaded_error"
    assert dialect.error_type(NotFound("no such path", code="unknown_url")) == "not_found_error"


# --- requests ------------------------------------------------------------------------------------------


def test_request_fields_reach_the_prompt() -> None:
    prompt = parse(
        {
            "model": "m",
            "max_tokens": 2000,
            "system": [
                {"type": "text", "text": "x-anthropic-billing-header: cc_version=2"},
                {"type": "text", "text": "You are Claude Code.", "cache_control": {"type": "ephemeral"}},
            ],
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "look", "cache_control": {"type": "ephemeral"}},
                        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AA=="}},
                    ],
                },
                {"role": "system", "content": "Available agents: none"},
                {
                    "role": "assistant",
                    "content": [
                        {"type": "thinking", "thinking": "thought", "signature": ""},
                        {"type": "text", "text": "calling"},
                        {"type": "tool_use", "id": "toolu_01", "name": "f", "input": {"a": 1}},
                    ],
                },
                {
                    "role": "user",
                    "content": [
                        {"type": "tool_result", "tool_use_id": "toolu_01", "content": [{"type": "text", "text": "42"}]},
                        {"type": "text", "text": "and now?"},
                    ],
                },
            ],
            "tools": [{"name": "f", "description": "d", "input_schema": {"type": "object"}, "cache_control": {}}],
            "tool_choice": {"type": "any", "disable_parallel_tool_use": True},
            "thinking": {"type": "enabled", "budget_tokens": 4000},
            "output_config": {"effort": "high"},
            "stop_sequences": ["END", ""],
            "temperature": 0.5,
            "top_k": 5,
            "metadata": {"user_id": '{"device_id": "d"}'},
            "context_management": {"edits": [{"type": "clear_thinking_20251015", "keep": "all"}]},
        },
        {"x-api-key": "sk-cc", "authorization": "Bearer other"},
    )
    assert [m.role for m in prompt.messages] == ["system", "user", "system", "assistant", "tool", "user"]
    assert prompt.messages[0].text == "x-anthropic-billing-header: cc_version=2\nYou are Claude Code."
    assert prompt.messages[1].images == 1
    assistant = prompt.messages[3]
    assert (assistant.reasoning, assistant.text) == ("thought", "calling")
    assert assistant.tool_calls == (ToolCall("toolu_01", "f", '{"a": 1}'),)
    assert (prompt.messages[4].tool_call_id, prompt.messages[4].text) == ("toolu_01", "42")
    assert prompt.last_user_text == "and now?" and prompt.assistant_turns == 1
    assert prompt.tools[0].parameters == {"type": "object"} and prompt.tools[0].description == "d"
    assert (prompt.tool_choice.mode, prompt.parallel_tool_calls) == ("required", False)
    assert (prompt.effort, prompt.reasoning_budget, prompt.max_tokens) == ("high", 2000, 2000)  # budget capped
    assert (prompt.stop, prompt.temperature, prompt.api_key) == (("END",), 0.5, "sk-cc")


def test_a_turn_of_tool_results_only_is_tool_messages() -> None:
    prompt = parse(
        {
            "model": "m",
            "max_tokens": 10,
            "messages": [
                {"role": "user", "content": "create a file"},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}]},
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "(Bash completed)"}],
                },
            ],
        }
    )
    assert [m.role for m in prompt.messages] == ["user", "assistant", "tool"]
    assert prompt.last_user_text == "create a file"  # what `last_user` scenario matches see


@pytest.mark.parametrize(
    ("thinking", "effort", "budget", "thinks"),
    [
        ({"type": "disabled"}, "none", None, False),
        ({"type": "adaptive"}, None, None, True),
        ({"type": "enabled", "budget_tokens": 50}, None, 50, True),
        ({"type": "enabled", "budget_tokens": 4000}, None, 100, True),
    ],
)
def test_thinking_maps_to_effort_and_budget(
    thinking: dict[str, Any], effort: str | None, budget: int | None, thinks: bool
) -> None:
    prompt = parse({"model": "m", "max_tokens": 100, "messages": USER, "thinking": thinking})
    assert (prompt.effort, prompt.reasoning_budget, prompt.thinking) == (effort, budget, thinks)


def test_both_auth_headers_give_the_key() -> None:
    assert parse(SEED_BODY, {"x-api-key": "a"}).api_key == "a"
    assert parse(SEED_BODY, {"authorization": "Bearer b"}).api_key == "b"
    assert parse(SEED_BODY, {}).api_key == ""


BAD_REQUESTS: list[tuple[Any, str | None, str]] = [
    ([], None, "JSON object"),
    ({"messages": USER, "max_tokens": 5}, "model", "'model'"),
    ({"model": "m", "messages": USER}, "max_tokens", "'max_tokens'"),
    ({"model": "m", "messages": USER, "max_tokens": 0}, "max_tokens", "at least 1"),
    ({"model": "m", "messages": [], "max_tokens": 5}, "messages", "empty array"),
    ({"model": "m", "messages": [{"role": "robot", "content": "x"}], "max_tokens": 5}, "messages[0].role", "robot"),
    ({"model": "m", "messages": [{"role": "user"}], "max_tokens": 5}, "messages[0].content", "'messages[0].content'"),
    (
        {"model": "m", "messages": [{"role": "user", "content": [{"type": "document"}]}], "max_tokens": 5},
        "messages[0].content[0].type",
        "'document'",
    ),
    (
        {
            "model": "m",
            "messages": [{"role": "user", "content": [{"type": "image", "source": {"type": "url", "url": "u"}}]}],
            "max_tokens": 5,
        },
        "messages[0].content[0].source.type",
        "base64",
    ),
    (
        {
            "model": "m",
            "messages": [{"role": "user", "content": [{"type": "tool_use", "id": "t", "name": "f", "input": {}}]}],
            "max_tokens": 5,
        },
        "messages[0].content[0]",
        "`assistant` messages",
    ),
    (
        {"model": "m", "messages": [{"role": "user", "content": [{"type": "tool_result"}]}], "max_tokens": 5},
        "messages[0].content[0].tool_use_id",
        "tool_use_id",
    ),
    (
        {
            "model": "m",
            "messages": [{"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "f", "input": 3}]}],
            "max_tokens": 5,
        },
        "messages[0].content[0].input",
        "an object",
    ),
    ({"model": "m", "messages": USER, "max_tokens": 5, "system": 5}, "system", "text blocks"),
    ({"model": "m", "messages": USER, "max_tokens": 5, "system": [{"type": "image"}]}, "system[0].type", "image"),
    ({"model": "m", "messages": USER, "max_tokens": 5, "tools": [{"name": "f"}]}, "tools[0].input_schema", "schema"),
    (
        {"model": "m", "messages": USER, "max_tokens": 5, "tools": [{"type": "web_search_20250305", "name": "w"}]},
        "tools[0].type",
        "server tools",
    ),
    (
        {"model": "m", "messages": USER, "max_tokens": 5, "tool_choice": {"type": "tool", "name": "g"}},
        "tool_choice.name",
        "no tool named 'g'",
    ),
    ({"model": "m", "messages": USER, "max_tokens": 5, "tool_choice": "auto"}, "tool_choice", "an object"),
    ({"model": "m", "messages": USER, "max_tokens": 5, "tool_choice": {"type": "some"}}, "tool_choice.type", "some"),
    (
        {"model": "m", "messages": USER, "max_tokens": 5, "thinking": {"type": "enabled"}},
        "thinking.budget_tokens",
        "budget_tokens",
    ),
    ({"model": "m", "messages": USER, "max_tokens": 5, "thinking": {"type": "on"}}, "thinking.type", "'on'"),
    (
        {"model": "m", "messages": USER, "max_tokens": 5, "output_config": {"effort": "huge"}},
        "output_config.effort",
        "huge",
    ),
    ({"model": "m", "messages": USER, "max_tokens": 5, "stop_sequences": "END"}, "stop_sequences", "array"),
    ({"model": "m", "messages": USER, "max_tokens": 5, "temperature": 1.5}, "temperature", "0 to 1"),
    ({"model": "m", "messages": USER, "max_tokens": 5, "stream": "yes"}, "stream", "a boolean"),
]


@pytest.mark.parametrize(("body", "param", "words"), BAD_REQUESTS)
def test_bad_requests_name_the_field(body: Any, param: str | None, words: str) -> None:
    with pytest.raises(InvalidRequest) as caught:
        parse(body)
    assert caught.value.param == param
    assert words in caught.value.message
    if param:
        assert param in caught.value.message  # Anthropic's body has no `param`: the message names the path
    assert dialect.render_error(caught.value)["error"]["type"] == "invalid_request_error"


def test_count_tokens_takes_no_max_tokens_and_equals_the_message_input() -> None:
    body = {
        "model": "m",
        "system": "be brief",
        "messages": [{"role": "user", "content": "How many tokens is this?"}],
        "tools": [{"name": "f", "description": "a tool", "input_schema": {"type": "object", "properties": {}}}],
    }
    counted = dialect.count_tokens(body, {})
    prompt = parse(body | {"max_tokens": 10})
    rendered = dialect.render(prompt, finish(prompt, Reply(text="ok"), created=1))
    assert counted == {"input_tokens": rendered["usage"]["input_tokens"]} and counted["input_tokens"] > 10
    with pytest.raises(InvalidRequest, match="'messages'"):
        dialect.count_tokens({"model": "m"}, {})


# --- tool input: complete, cut short, or not JSON ----------------------------------------------------------


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=10,
)


@settings(max_examples=300)
@given(obj=st.dictionaries(st.text(max_size=5), json_values, max_size=4), ascii=st.booleans(), data=st.data())
def test_cut_arguments_read_as_the_sdk_partial_parser_reads_them(obj: dict[str, Any], ascii: bool, data: Any) -> None:
    text = json.dumps(obj, ensure_ascii=ascii)
    cut = text[: data.draw(st.integers(1, len(text)))]
    value, streamed = rendering._tool_input(cut)
    assert streamed == cut
    assert value == jiter.from_json(cut.encode(), partial_mode=True)


def test_text_that_is_not_json_is_wrapped() -> None:
    assert rendering._tool_input("*** Begin Patch") == ({"input": "*** Begin Patch"}, '{"input":"*** Begin Patch"}')
    assert rendering._tool_input("[1, 2]")[0] == {"input": "[1, 2]"}
    assert rendering._tool_input("") == ({}, "")


# --- stream and non-stream agree, for any reply a scenario can script ----------------------------------------

texts = st.text(st.characters(codec="utf-8"), max_size=120)
names = st.from_regex(r"[a-z_]{1,12}", fullmatch=True)
arguments = st.one_of(
    st.dictionaries(names, st.one_of(st.integers(), texts, st.booleans()), max_size=4).map(json.dumps),
    texts,  # freeform input, wrapped
)
calls = st.lists(st.builds(ToolCall, id=st.just(""), name=names, arguments=arguments), max_size=3)
usages = st.one_of(
    st.none(),
    st.integers(0, 5000).flatmap(
        lambda total: st.fixed_dictionaries({"input_tokens": st.just(total), "cached_tokens": st.integers(0, total)})
    ),
)
replies = st.builds(
    Reply,
    reasoning=texts,
    text=texts,
    tool_calls=calls.map(tuple),
    finish_reason=st.sampled_from([None, "stop", "length", "tool_calls", "content_filter"]),
    usage=usages,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    reply=replies,
    max_tokens=st.integers(1, 80),
    stop=st.lists(st.text(min_size=1, max_size=3), max_size=2),
    thinking=st.sampled_from(
        [None, {"type": "disabled"}, {"type": "adaptive"}, {"type": "enabled", "budget_tokens": 3}]
    ),
)
def test_stream_accumulates_to_the_non_stream_message(
    reply: Reply, max_tokens: int, stop: list[str], thinking: dict[str, Any] | None
) -> None:
    body: dict[str, Any] = {"model": "m", "max_tokens": max_tokens, "messages": USER, "stop_sequences": stop}
    if thinking:
        body["thinking"] = thinking
    prompt = parse(body)
    turn = finish(prompt, reply, created=1)
    plain = Message.model_validate(dialect.render(prompt, turn), strict=True)

    streamed = parse(body | {"stream": True})
    snapshot: Any = None
    json_bufs: dict[int, bytes] = {}
    for event in sse.decode(dialect.render_stream(streamed, turn)):
        data = event.json()
        assert event.event == data["type"]
        if data["type"] == "ping":
            continue
        validated = EVENT_TYPES[data["type"]].model_validate(data, strict=True)
        snapshot = accumulate_event(event=validated, current_snapshot=snapshot, json_bufs=json_bufs)
    assert [b.model_dump() for b in snapshot.content] == [b.model_dump() for b in plain.content]
    assert snapshot.stop_reason == plain.stop_reason and snapshot.stop_sequence is None is plain.stop_sequence
    assert snapshot.usage == plain.usage
    assert plain.usage.input_tokens + (plain.usage.cache_read_input_tokens or 0) == turn.usage.input_tokens
    assert len({b.id for b in plain.content if b.type == "tool_use"}) == len(turn.tool_calls)
