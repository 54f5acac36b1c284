"""Chat Completions end to end: a real uvicorn server driven by the official `openai` SDK in strict mode."""

from __future__ import annotations

import http.client
import json
from typing import Any

import openai
import pytest

from emulator.http.app import Settings
from tests.conftest import BUNDLED, FROZEN, Server

USER: Any = [{"role": "user", "content": "Hello there"}]
WEATHER_TOOL: Any = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather in a city",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
            "required": ["city"],
        },
    },
}


def post(
    server: Server, path: str, body: bytes, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], bytes]:
    """A raw request, for what the SDK would not send."""
    return request(server, "POST", path, body, {"content-type": "application/json"} | (headers or {}))


def request(
    server: Server, method: str, path: str, body: bytes | None = None, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection(server.host, server.port, timeout=10)
    headers = headers or {}
    if not {"authorization", "x-api-key"} & {k.lower() for k in headers}:  # any key will do, but some key
        headers = headers | {"authorization": "Bearer sk-test"}
    try:
        conn.request(method, path, body=body, headers=headers)
        response = conn.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        conn.close()


# --- answers -------------------------------------------------------------------------------------------


def test_create_returns_the_scripted_reply(client: openai.OpenAI) -> None:
    completion = client.chat.completions.create(model="reasoned", messages=USER)
    choice = completion.choices[0]
    assert choice.message.content == "Then I answer it."
    assert choice.message.reasoning_content == "First I think about the question carefully."
    assert choice.finish_reason == "stop"
    assert completion.created == FROZEN
    assert completion.id.startswith("chatcmpl-")
    usage = completion.usage
    assert usage is not None and usage.completion_tokens_details and usage.prompt_tokens_details
    assert usage.completion_tokens_details.reasoning_tokens == 11  # 44 characters / 4
    assert usage.completion_tokens == 11 + 5  # reasoning + "Then I answer it." (17 characters)
    assert usage.prompt_tokens_details.cached_tokens == 0
    assert usage.total_tokens == usage.prompt_tokens + usage.completion_tokens


def test_stream_yields_reasoning_then_content_then_usage(client: openai.OpenAI) -> None:
    stream = client.chat.completions.create(
        model="reasoned", messages=USER, stream=True, stream_options={"include_usage": True}
    )
    chunks = list(stream)
    reasoning = "".join(getattr(c.choices[0].delta, "reasoning_content", None) or "" for c in chunks if c.choices)
    content = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert reasoning == "First I think about the question carefully."
    assert content == "Then I answer it."
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"
    assert chunks[-1].choices == [] and chunks[-1].usage is not None
    assert chunks[-1].usage.completion_tokens == 16
    assert all(c.usage is None for c in chunks[:-1])


def test_stream_helper_final_message_matches_create(client: openai.OpenAI) -> None:
    plain = client.chat.completions.create(model="reasoned", messages=USER)
    with client.chat.completions.stream(
        model="reasoned", messages=USER, stream_options={"include_usage": True}
    ) as stream:
        events = [e.type for e in stream]
        final = stream.get_final_completion()
    assert "content.delta" in events and "content.done" in events
    assert final.choices[0].message.content == plain.choices[0].message.content
    assert final.choices[0].message.reasoning_content == plain.choices[0].message.reasoning_content
    assert final.usage == plain.usage


def test_parallel_tool_calls_accumulate(client: openai.OpenAI) -> None:
    with client.chat.completions.stream(model="two-calls", messages=USER, tools=[WEATHER_TOOL]) as stream:
        final = stream.get_final_completion()
    plain = client.chat.completions.create(model="two-calls", messages=USER, tools=[WEATHER_TOOL])
    calls = final.choices[0].message.tool_calls or []
    assert [(c.function.name, json.loads(c.function.arguments)) for c in calls] == [
        ("get_weather", {"city": "Paris"}),
        ("get_weather", {"city": "Tōkyō", "unit": "celsius"}),
    ]
    assert final.choices[0].finish_reason == "tool_calls"
    assert len(plain.choices[0].message.tool_calls or []) == 2
    assert len({c.id for c in calls}) == 2 and all(c.id.startswith("call_") for c in calls)
    assert plain.choices[0].message.content is None


def test_generated_arguments_follow_the_tool_schema(client: openai.OpenAI) -> None:
    completion = client.chat.completions.create(model="generated-arguments", messages=USER, tools=[WEATHER_TOOL])
    arguments = json.loads(completion.choices[0].message.tool_calls[0].function.arguments)
    assert isinstance(arguments["city"], str)
    assert arguments.get("unit", "celsius") in ("celsius", "fahrenheit")


def test_max_tokens_truncates_and_reasoning_counts(client: openai.OpenAI) -> None:
    # reasoning is 40 characters (10 tokens); 12 tokens leave 2 for the text.
    completion = client.chat.completions.create(model="long", messages=USER, max_tokens=12)
    choice = completion.choices[0]
    assert choice.finish_reason == "length"
    assert choice.message.reasoning_content == "This reasoning is exactly forty chars.."
    assert choice.message.content == "One two "
    assert completion.usage is not None and completion.usage.completion_tokens == 12
    # The helper's final completion raises on `length` (openai/lib/_parsing/_completions.py), with the
    # truncated completion attached.
    with (
        client.chat.completions.stream(model="long", messages=USER, max_completion_tokens=5) as stream,
        pytest.raises(openai.LengthFinishReasonError) as caught,
    ):
        stream.get_final_completion()
    final = caught.value.completion
    assert final.choices[0].finish_reason == "length"
    assert final.choices[0].message.reasoning_content == "This reasoning is ex"
    assert final.choices[0].message.content is None


def test_stop_sequence_cuts_the_text(client: openai.OpenAI) -> None:
    completion = client.chat.completions.create(model="stops", messages=USER, stop=["STOP", "zzz"])
    assert completion.choices[0].message.content == "alpha beta "
    assert completion.choices[0].finish_reason == "stop"
    with client.chat.completions.stream(model="stops", messages=USER, stop="beta") as stream:
        final = stream.get_final_completion()
    assert final.choices[0].message.content == "alpha "


def test_default_answer_is_deterministic_and_reasons_first(client: openai.OpenAI) -> None:
    messages: Any = [{"role": "user", "content": "Why is my Go map iteration order random?"}]
    first = client.chat.completions.create(model="DeepSeek-V4.1-Flash-1017", messages=messages)
    second = client.chat.completions.create(model="DeepSeek-V4.1-Flash-1017", messages=messages)
    assert first == second
    assert first.choices[0].message.reasoning_content
    assert len(first.choices[0].message.content or "") > 40
    off = client.chat.completions.create(model="DeepSeek-V4.1-Flash-1017", messages=messages, reasoning_effort="none")
    assert getattr(off.choices[0].message, "reasoning_content", None) is None
    other = client.chat.completions.create(model="DeepSeek-V4.1-Flash-1017", messages=USER)
    assert other.choices[0].message.content != first.choices[0].message.content


def test_required_tool_choice_gets_schema_valid_arguments(client: openai.OpenAI) -> None:
    completion = client.chat.completions.create(
        model="DeepSeek-V4.1-Flash-1017",
        messages=USER,
        tools=[WEATHER_TOOL],
        tool_choice={"type": "function", "function": {"name": "get_weather"}},
    )
    call = completion.choices[0].message.tool_calls[0]
    assert call.function.name == "get_weather"
    assert isinstance(json.loads(call.function.arguments)["city"], str)
    assert completion.choices[0].finish_reason == "tool_calls"


def test_scenario_picked_by_header_wins_over_matching(client: openai.OpenAI) -> None:
    completion = client.chat.completions.create(
        model="glob-anything", messages=USER, extra_headers={"x-emulator-scenario": "plain-text"}
    )
    assert completion.choices[0].message.content == "Hello from the emulator. It streams in token-sized pieces."
    matched = client.chat.completions.create(model="glob-anything", messages=USER)
    assert matched.choices[0].message.content == "matched by model glob"


def test_steps_follow_the_conversation(client: openai.OpenAI) -> None:
    history: Any = [{"role": "user", "content": "a step test"}]
    first = client.chat.completions.create(model="m", messages=history)
    history += [
        {"role": "assistant", "content": first.choices[0].message.content},
        {"role": "user", "content": "step test"},
    ]
    second = client.chat.completions.create(model="m", messages=history)
    assert (first.choices[0].message.content, second.choices[0].message.content) == ("step one", "step two")


def test_weather_agent_loop_runs_to_the_answer(client: openai.OpenAI) -> None:
    history: Any = [{"role": "user", "content": "What's the weather in Paris?"}]
    first = client.chat.completions.create(model="any", messages=history, tools=[WEATHER_TOOL])
    message = first.choices[0].message
    assert first.choices[0].finish_reason == "tool_calls" and message.tool_calls
    history.append(message.model_dump(exclude_none=True))
    history.append({"role": "tool", "tool_call_id": message.tool_calls[0].id, "content": '{"temp": 18}'})
    second = client.chat.completions.create(model="any", messages=history, tools=[WEATHER_TOOL])
    assert second.choices[0].message.content == "It is 18 °C and sunny in Paris."


def test_replies_step_by_call_count_per_key(server: Server) -> None:
    with server.openai(api_key="key-a") as a, server.openai(api_key="key-b") as b:
        _check_replies(server, a, b)


def _check_replies(server: Server, a: openai.OpenAI, b: openai.OpenAI) -> None:
    texts = [a.chat.completions.create(model="per-call", messages=USER).choices[0].message.content for _ in range(4)]
    assert texts == ["call one", "call two", "call three and after", "call three and after"]
    assert b.chat.completions.create(model="per-call", messages=USER).choices[0].message.content == "call one"
    post(server, "/_emulator/reset", b"")
    assert a.chat.completions.create(model="per-call", messages=USER).choices[0].message.content == "call one"


def test_scripted_usage_and_finish_reason(client: openai.OpenAI) -> None:
    completion = client.chat.completions.create(model="scripted-usage", messages=USER)
    usage = completion.usage
    assert usage is not None and usage.prompt_tokens_details is not None
    assert (usage.prompt_tokens, usage.prompt_tokens_details.cached_tokens, usage.completion_tokens) == (
        2048,
        1792,
        312,
    )
    assert usage.total_tokens == 2360
    filtered = client.chat.completions.create(model="content-filter", messages=USER)
    assert filtered.choices[0].finish_reason == "content_filter"


# --- errors --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "param"),
    [
        ({"messages": USER}, "model"),
        ({"model": "m"}, "messages"),
        ({"model": 3, "messages": USER}, "model"),
        ({"model": "m", "messages": "hi"}, "messages"),
        ({"model": "m", "messages": [{"role": "robot", "content": "x"}]}, "messages[0].role"),
        ({"model": "m", "messages": [{"role": "user"}]}, "messages[0].content"),
        ({"model": "m", "messages": [{"role": "tool", "content": "x"}]}, "messages[0].tool_call_id"),
        ({"model": "m", "messages": USER, "max_tokens": "10"}, "max_tokens"),
        ({"model": "m", "messages": USER, "max_tokens": 0}, "max_tokens"),
        ({"model": "m", "messages": USER, "temperature": 3}, "temperature"),
        ({"model": "m", "messages": USER, "reasoning_effort": "huge"}, "reasoning_effort"),
        ({"model": "m", "messages": USER, "tools": [{"type": "function"}]}, "tools[0].function"),
        ({"model": "m", "messages": USER, "stream_options": {"include_usage": True}}, "stream_options"),
        (
            {
                "model": "m",
                "messages": [
                    {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "https://x/y.png"}}]}
                ],
            },
            "messages[0].content[0].image_url.url",
        ),
    ],
)
def test_bad_input_is_a_400_naming_the_field(client: openai.OpenAI, body: dict[str, Any], param: str) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        client.post("/chat/completions", body=body, cast_to=object)
    assert caught.value.status_code == 400
    assert caught.value.param == param
    assert caught.value.type == "invalid_request_error"
    assert param.split("[")[0].split(".")[0] in caught.value.message


def test_malformed_json_is_a_400(server: Server) -> None:
    status, headers, body = post(server, "/v1/chat/completions", b'{"model": "m", "messages": [')
    assert status == 400 and headers["content-type"] == "application/json"
    assert json.loads(body)["error"]["code"] == "invalid_json"
    status, _, body = post(server, "/v1/chat/completions", b"[1, 2]")
    assert status == 400 and "JSON object" in json.loads(body)["error"]["message"]


def test_oversized_body_is_a_413(make_server: Any) -> None:
    small = make_server(Settings(max_body_bytes=1000))
    status, _, body = post(small, "/v1/chat/completions", json.dumps({"model": "m", "pad": "x" * 2000}).encode())
    assert status == 413
    assert set(json.loads(body)["error"]) == {"message", "type", "param", "code"}


def test_unknown_path_and_method_are_json(server: Server, client: openai.OpenAI) -> None:
    with pytest.raises(openai.NotFoundError) as caught:
        client.post("/nothing/here", body={}, cast_to=object)
    assert caught.value.code == "unknown_url"
    status, _, body = request(server, "GET", "/v1/chat/completions")
    assert status == 405 and "error" in json.loads(body)


def test_unknown_scenario_header_is_a_400(client: openai.OpenAI) -> None:
    with pytest.raises(openai.BadRequestError, match="names no scenario"):
        client.chat.completions.create(model="m", messages=USER, extra_headers={"x-emulator-scenario": "nope"})


# --- the rest of the surface ---------------------------------------------------------------------------


def test_models_lists_defaults_and_scenario_models(client: openai.OpenAI) -> None:
    ids = [m.id for m in client.models.list()]
    assert ids[0] == "DeepSeek-V4.1-Flash-1017"
    assert {"weather-agent", "haiku", "plain-text"} <= set(ids)


def test_health(server: Server) -> None:
    status, _, body = request(server, "GET", "/health")
    assert status == 200 and json.loads(body)["status"] == "ok"


def test_same_request_same_bytes_with_a_frozen_clock(make_server: Any) -> None:
    body = json.dumps({"model": "DeepSeek-V4.1-Flash-1017", "messages": USER, "stream": True}).encode()
    one = make_server(Settings(scenarios=(BUNDLED,), frozen_time=FROZEN, seed=7))
    two = make_server(Settings(scenarios=(BUNDLED,), frozen_time=FROZEN, seed=7))
    other_seed = make_server(Settings(scenarios=(BUNDLED,), frozen_time=FROZEN, seed=8))
    first, second, third = (post(s, "/v1/chat/completions", body)[2] for s in (one, two, other_seed))
    assert first == second
    assert first != third
    assert first.endswith(b"data: [DONE]\n\n")


def test_stream_error_mid_stream_raises_api_error(client: openai.OpenAI) -> None:
    received = []
    with pytest.raises(openai.APIError, match="The model crashed.") as caught:
        for chunk in client.chat.completions.create(model="dies-mid-stream", messages=USER, stream=True):
            received.append(chunk)
    assert len(received) == 3  # the role chunk and two content deltas arrived first
    assert caught.value.code == "server_error" and caught.value.type == "server_error"
    with pytest.raises(openai.InternalServerError) as plain:
        client.chat.completions.create(model="dies-mid-stream", messages=USER)
    assert plain.value.status_code == 500


def test_lone_surrogate_escape_is_a_400_not_a_crash(server: Server) -> None:
    body = b'{"model": "m", "messages": [{"role": "user", "content": "\\ud800"}]}'
    status, _, payload = post(server, "/v1/chat/completions", body)
    assert status == 400 and json.loads(payload)["error"]["code"] == "invalid_json"
    paired = b'{"model": "plain-text", "messages": [{"role": "user", "content": "\\ud83d\\ude00"}]}'
    assert post(server, "/v1/chat/completions", paired)[0] == 200


def test_oversized_chunked_body_is_a_413(make_server: Any) -> None:
    small = make_server(Settings(max_body_bytes=1000))
    conn = http.client.HTTPConnection(small.host, small.port, timeout=10)
    try:
        chunks = iter([b'{"model": "m", "pad": "', b"x" * 800, b"x" * 800, b'"}'])
        conn.request(
            "POST", "/v1/chat/completions", body=chunks, encode_chunked=True, headers={"authorization": "Bearer k"}
        )
        response = conn.getresponse()
        assert response.status == 413 and json.loads(response.read())["error"]["type"] == "invalid_request_error"
    finally:
        conn.close()
