"""Anthropic Messages end to end: a real uvicorn server driven by the official `anthropic` SDK in strict mode."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from typing import Any

import anthropic
import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from emulator.http.app import Settings
from tests.conftest import Server
from tests.test_app_chat import request as raw_request

USER: Any = [{"role": "user", "content": "Hello there"}]
WEATHER_TOOL: Any = {
    "name": "get_weather",
    "description": "Current weather in a city",
    "input_schema": {
        "type": "object",
        "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
        "required": ["city"],
    },
}
ERROR_FIELDS = {"type", "error", "request_id"}


@pytest.fixture
def client(server: Server) -> Iterator[anthropic.Anthropic]:
    with server.anthropic() as sdk:
        yield sdk


def request(
    server: Server, method: str, path: str, body: bytes | None = None, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], bytes]:
    """A raw request, for what the SDK would not send; JSON, with a key unless `headers` bring one."""
    return raw_request(server, method, path, body, {"content-type": "application/json"} | (headers or {}))


def assert_anthropic_error(status: int, headers: dict[str, str], body: bytes, kind: str) -> dict[str, Any]:
    payload: dict[str, Any] = json.loads(body)
    assert set(payload) == ERROR_FIELDS and payload["type"] == "error"
    assert set(payload["error"]) == {"type", "message"} and payload["error"]["type"] == kind
    assert headers["request-id"] == payload["request_id"] and payload["request_id"].startswith("req_011")
    assert headers["content-type"] == "application/json"
    return payload


def blocks(message: Any) -> list[dict[str, Any]]:
    """Content blocks as plain data, without the ids (they derive from the request, and `stream` is in it) and
    the extra fields of the stream helper's `Parsed…` subclasses."""
    return [b.model_dump(exclude={"parsed_output", "id"}) for b in message.content]


# --- answers -------------------------------------------------------------------------------------------


def test_create_returns_thinking_then_text(client: anthropic.Anthropic) -> None:
    raw = client.messages.with_raw_response.create(model="msg-reasoned", max_tokens=100, messages=USER)
    assert raw.headers["request-id"].startswith("req_011")
    message = raw.parse()
    assert [b.type for b in message.content] == ["thinking", "text"]
    thinking, text = message.content
    assert thinking.thinking == "First I think about the question carefully." and thinking.signature == ""
    assert text.text == "Then I answer it."
    assert (message.stop_reason, message.stop_sequence, message.model) == ("end_turn", None, "msg-reasoned")
    assert message.id.startswith("msg_01")
    usage = message.usage
    assert usage.output_tokens == 11 + 5  # 44 + 17 characters, four to a token
    assert (usage.cache_read_input_tokens, usage.cache_creation_input_tokens) == (0, 0)


def test_create_streamed_yields_named_events(client: anthropic.Anthropic) -> None:
    with client.messages.create(model="msg-reasoned", max_tokens=100, messages=USER, stream=True) as stream:
        events = list(stream)
    kinds = [e.type for e in events]
    assert kinds[0] == "message_start" and kinds[-2:] == ["message_delta", "message_stop"]
    deltas = [e.delta for e in events if e.type == "content_block_delta"]
    assert "".join(d.thinking for d in deltas if d.type == "thinking_delta") == (
        "First I think about the question carefully."
    )
    assert "".join(d.text for d in deltas if d.type == "text_delta") == "Then I answer it."
    assert [d.signature for d in deltas if d.type == "signature_delta"] == [""]
    final = events[-2]
    assert final.type == "message_delta" and final.delta.stop_reason == "end_turn"
    assert final.usage.output_tokens == 16


def test_stream_helper_final_message_matches_create(client: anthropic.Anthropic) -> None:
    plain = client.messages.create(model="msg-reasoned", max_tokens=100, messages=USER)
    with client.messages.stream(model="msg-reasoned", max_tokens=100, messages=USER) as stream:
        text = "".join(stream.text_stream)
        final = stream.get_final_message()
    assert text == "Then I answer it."
    assert blocks(final) == blocks(plain)
    assert (final.stop_reason, final.usage) == (plain.stop_reason, plain.usage)


def test_thinking_disabled_answers_without_thinking(client: anthropic.Anthropic) -> None:
    on = client.messages.create(model="DeepSeek-V4.1-Flash-1017", max_tokens=1000, messages=USER)
    off = client.messages.create(
        model="DeepSeek-V4.1-Flash-1017", max_tokens=1000, messages=USER, thinking={"type": "disabled"}
    )
    assert [b.type for b in on.content] == ["thinking", "text"]
    assert [b.type for b in off.content] == ["text"]
    capped = client.messages.create(
        model="msg-long", max_tokens=1000, messages=USER, thinking={"type": "enabled", "budget_tokens": 2}
    )
    assert capped.content[0].type == "thinking" and capped.content[0].thinking == "This rea"


def test_parallel_tool_use_streams_and_accumulates(client: anthropic.Anthropic) -> None:
    with client.messages.stream(model="msg-parallel", max_tokens=200, messages=USER, tools=[WEATHER_TOOL]) as stream:
        final = stream.get_final_message()
    plain = client.messages.create(model="msg-parallel", max_tokens=200, messages=USER, tools=[WEATHER_TOOL])
    calls = [b for b in final.content if b.type == "tool_use"]
    assert [(c.name, c.input) for c in calls] == [
        ("get_weather", {"city": "Paris"}),
        ("get_weather", {"city": "Tōkyō", "unit": "celsius"}),
    ]
    assert len({c.id for c in calls}) == 2 and all(c.id.startswith("toolu_01") for c in calls)
    assert final.stop_reason == plain.stop_reason == "tool_use"
    assert blocks(final) == blocks(plain)


def test_disable_parallel_tool_use_leaves_one_call(client: anthropic.Anthropic) -> None:
    message = client.messages.create(
        model="msg-parallel",
        max_tokens=200,
        messages=USER,
        tools=[WEATHER_TOOL],
        tool_choice={"type": "auto", "disable_parallel_tool_use": True},
    )
    assert [b.type for b in message.content] == ["thinking", "tool_use"] and message.stop_reason == "tool_use"


def test_agent_loop_sends_the_tool_result_back(client: anthropic.Anthropic) -> None:
    history: Any = [{"role": "user", "content": "What's the weather in Paris?"}]
    first = client.messages.create(model="any", max_tokens=500, messages=history, tools=[WEATHER_TOOL])
    assert first.stop_reason == "tool_use"
    call = next(b for b in first.content if b.type == "tool_use")
    assert call.input == {"city": "Paris"}
    history.append({"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in first.content]})
    history.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": call.id, "content": "18 C"}]})
    second = client.messages.create(model="any", max_tokens=500, messages=history, tools=[WEATHER_TOOL])
    assert second.content[-1].type == "text" and second.content[-1].text == "It is 18 °C and sunny in Paris."
    assert second.stop_reason == "end_turn"


def test_max_tokens_truncates_and_reasoning_counts(client: anthropic.Anthropic) -> None:
    # reasoning is 40 characters (10 tokens); 12 tokens leave 2 for the text.
    message = client.messages.create(model="msg-long", max_tokens=12, messages=USER)
    assert message.stop_reason == "max_tokens"
    assert [b.type for b in message.content] == ["thinking", "text"]
    assert message.content[1].text == "One two " and message.usage.output_tokens == 12
    with client.messages.stream(model="msg-long", max_tokens=5, messages=USER) as stream:
        final = stream.get_final_message()
    assert final.stop_reason == "max_tokens"
    assert [b.type for b in final.content] == ["thinking"] and final.content[0].thinking == "This reasoning is ex"


def test_max_tokens_can_cut_a_tool_call_short(client: anthropic.Anthropic) -> None:
    # 3 tokens of text, 3 of the name, then 2 of the arguments: '{"city":' reads as {}
    plain = client.messages.create(model="msg-long-call", max_tokens=8, messages=USER, tools=[WEATHER_TOOL])
    with client.messages.stream(model="msg-long-call", max_tokens=8, messages=USER, tools=[WEATHER_TOOL]) as s:
        final = s.get_final_message()
    assert plain.stop_reason == final.stop_reason == "max_tokens"
    assert blocks(plain) == blocks(final)
    assert plain.content[-1].type == "tool_use" and plain.content[-1].input == {}
    longer = client.messages.create(model="msg-long-call", max_tokens=14, messages=USER, tools=[WEATHER_TOOL])
    assert longer.content[-1].input == {"city": "Paris"}  # the cut string value `"celsi` is dropped


def test_stop_sequence_ends_the_turn_without_naming_it(client: anthropic.Anthropic) -> None:
    message = client.messages.create(model="msg-stops", max_tokens=100, messages=USER, stop_sequences=["STOP", "zz"])
    assert message.content[0].text == "alpha beta "
    assert (message.stop_reason, message.stop_sequence) == ("end_turn", None)  # the seed's rule
    with client.messages.stream(model="msg-stops", max_tokens=100, messages=USER, stop_sequences=["beta"]) as s:
        final = s.get_final_message()
    assert final.content[0].text == "alpha " and final.stop_sequence is None


def test_usage_excludes_cached_tokens_from_input(client: anthropic.Anthropic) -> None:
    usage = client.messages.create(model="msg-cached", max_tokens=100, messages=USER).usage
    assert (usage.input_tokens, usage.cache_read_input_tokens, usage.cache_creation_input_tokens) == (256, 1792, 0)
    assert usage.output_tokens == 312
    with client.messages.stream(model="msg-cached", max_tokens=100, messages=USER) as stream:
        assert stream.get_final_message().usage == usage


def test_content_filter_is_a_refusal(client: anthropic.Anthropic) -> None:
    assert client.messages.create(model="msg-refusal", max_tokens=100, messages=USER).stop_reason == "refusal"


def test_count_tokens_equals_the_message_input(client: anthropic.Anthropic) -> None:
    body: Any = {
        "model": "DeepSeek-V4.1-Flash-1017",
        "system": "You are a terse senior engineer.",
        "messages": [{"role": "user", "content": "What does a WAL protect against?"}],
        "tools": [WEATHER_TOOL],
    }
    counted = client.messages.count_tokens(**body)
    beta = client.beta.messages.count_tokens(**body)  # POST /v1/messages/count_tokens?beta=true
    message = client.messages.create(max_tokens=200, **body)
    assert counted.input_tokens == beta.input_tokens == message.usage.input_tokens > 20


def test_beta_path_and_claude_code_headers(server: Server) -> None:
    body = {
        "model": "msg-reasoned",
        "max_tokens": 100,
        "messages": USER,
        "thinking": {"type": "adaptive"},
        "output_config": {"effort": "high"},
        "context_management": {"edits": [{"type": "clear_thinking_20251015", "keep": "all"}]},
    }
    headers = {
        "x-api-key": "sk-cc",
        "anthropic-version": "2023-06-01",
        "anthropic-beta": "claude-code-20250219,interleaved-thinking-2025-05-14,not-a-real-beta",
        "x-app": "cli",
    }
    status, response_headers, raw = request(
        server, "POST", "/v1/messages?beta=true", json.dumps(body).encode(), headers
    )
    assert status == 200 and response_headers["request-id"].startswith("req_011")
    assert [b["type"] for b in json.loads(raw)["content"]] == ["thinking", "text"]
    with server.anthropic(default_headers={"anthropic-version": "1999-01-01"}) as sdk:
        beta = sdk.beta.messages.create(model="msg-reasoned", max_tokens=100, messages=USER)
    assert beta.content[-1].type == "text" and beta.content[-1].text == "Then I answer it."


def test_x_api_key_counts_replies_per_key(server: Server) -> None:
    def text(key: str) -> str:
        body = json.dumps({"model": "msg-per-key", "max_tokens": 10, "messages": USER}).encode()
        return str(
            json.loads(request(server, "POST", "/v1/messages", body, {"x-api-key": key})[2])["content"][0]["text"]
        )

    assert [text("key-a"), text("key-a"), text("key-b")] == ["call one", "call two", "call one"]


def test_models_list_in_the_anthropic_shape(client: anthropic.Anthropic, server: Server) -> None:
    models = list(client.models.list())
    assert models[0].id == "DeepSeek-V4.1-Flash-1017" and models[0].type == "model"
    assert models[0].lifecycle == "active" and models[0].created_at.year == 2025
    assert {"msg-reasoned", "weather-agent"} <= {m.id for m in models}
    status, _, raw = request(server, "GET", "/v1/models?limit=1000", headers={"x-api-key": "k"})
    page = json.loads(raw)
    assert status == 200 and page["has_more"] is False and page["first_id"] == page["data"][0]["id"]
    assert page["last_id"] == page["data"][-1]["id"]
    status, _, raw = request(server, "GET", "/v1/models")
    assert json.loads(raw)["object"] == "list"  # OpenAI's shape for everyone else


# --- failures ------------------------------------------------------------------------------------------


def test_error_event_mid_stream_raises_the_sdk_error(client: anthropic.Anthropic) -> None:
    received = []
    with (
        pytest.raises(anthropic.APIStatusError) as caught,
        client.messages.create(model="msg-overloaded", max_tokens=100, messages=USER, stream=True) as stream,
    ):
        for event in stream:
            received.append(event.type)
    assert received == ["message_start", "content_block_start", "content_block_delta"]  # the ping is skipped
    error = caught.value
    assert error.status_code == 200 and error.type == "overloaded_error"  # in-band: the HTTP status was 200
    assert error.body == {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    with (
        pytest.raises(anthropic.APIStatusError),
        client.messages.stream(model="msg-overloaded", max_tokens=100, messages=USER) as helper,
    ):
        helper.get_final_message()


def test_a_fault_on_a_plain_request_is_the_http_error(client: anthropic.Anthropic) -> None:
    with pytest.raises(anthropic.OverloadedError) as caught:
        client.messages.create(model="msg-overloaded", max_tokens=100, messages=USER)
    assert caught.value.status_code == 529 and caught.value.type == "overloaded_error"
    assert caught.value.request_id and caught.value.request_id.startswith("req_011")


@pytest.mark.parametrize(
    ("body", "param"),
    [
        ({"messages": USER, "max_tokens": 10}, "model"),
        ({"model": "m", "messages": USER}, "max_tokens"),
        ({"model": "m", "max_tokens": 10, "messages": [{"role": "robot", "content": "x"}]}, "messages[0].role"),
        (
            {"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": [{"type": "audio"}]}]},
            "messages[0].content[0].type",
        ),
        ({"model": "m", "max_tokens": 10, "messages": USER, "tools": [{"name": "f"}]}, "tools[0].input_schema"),
        ({"model": "m", "max_tokens": 10, "messages": USER, "temperature": 3}, "temperature"),
        ({"model": "m", "max_tokens": 10, "messages": USER, "output_format": {}}, "output_format"),  # no beta header
    ],
)
def test_bad_input_is_a_400_naming_the_field(client: anthropic.Anthropic, body: dict[str, Any], param: str) -> None:
    with pytest.raises(anthropic.BadRequestError) as caught:
        client.post("/v1/messages", body=body, cast_to=object)
    assert caught.value.status_code == 400 and caught.value.type == "invalid_request_error"
    assert param in str(caught.value.body["error"]["message"])
    assert caught.value.request_id and caught.value.request_id.startswith("req_011")


@pytest.mark.parametrize("prefix", ["/anthropic", "/inferam"])
def test_output_format_of_the_structured_outputs_beta_is_honoured(server: Server, prefix: str) -> None:
    """LiteLLM's structured output: the top-level `output_format` with its beta header, as `output_config.format`
    is honoured; the answer is an instance of the schema."""
    schema = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    form: Any = {"type": "json_schema", "schema": schema}
    with server.anthropic(prefix) as sdk:
        message = sdk.messages.create(
            model="claude-sonnet-5",
            max_tokens=400,
            messages=USER,
            extra_body={"output_format": form},
            extra_headers={"anthropic-beta": "structured-outputs-2025-11-13"},
        )
        configured = sdk.messages.create(
            model="claude-sonnet-5", max_tokens=400, messages=USER, output_config={"format": form}
        )
        with pytest.raises(anthropic.BadRequestError) as caught:  # both at once: which one?
            sdk.messages.create(
                model="claude-sonnet-5",
                max_tokens=400,
                messages=USER,
                output_config={"format": form},
                extra_body={"output_format": form},
                extra_headers={"anthropic-beta": "structured-outputs-2025-11-13"},
            )
    text = message.content[-1]
    assert text.type == "text" and jsonschema.validate(json.loads(text.text), schema) is None
    assert configured.content[-1].to_dict() == text.to_dict()  # the same request, as far as the answer goes
    assert "output_format" in str(caught.value.body)


def test_malformed_json_and_oversized_bodies_answer_in_anthropic_shape(server: Server, make_server: Any) -> None:
    status, headers, body = request(server, "POST", "/v1/messages", b'{"model": "m", "messages": [')
    assert status == 400
    assert (
        "not valid JSON" in assert_anthropic_error(status, headers, body, "invalid_request_error")["error"]["message"]
    )
    status, headers, body = request(server, "POST", "/v1/messages/count_tokens?beta=true", b"[1]")
    assert status == 400 and assert_anthropic_error(status, headers, body, "invalid_request_error")
    small = make_server(Settings(max_body_bytes=1000))
    for path in ("/v1/messages", "/v1/messages/count_tokens"):
        status, headers, body = request(small, "POST", path, json.dumps({"pad": "x" * 2000}).encode())
        assert status == 413 and assert_anthropic_error(status, headers, body, "request_too_large")


def test_unknown_paths_and_methods_answer_in_anthropic_shape(server: Server, client: anthropic.Anthropic) -> None:
    status, headers, body = request(server, "GET", "/v1/messages")
    assert status == 405 and assert_anthropic_error(status, headers, body, "invalid_request_error")
    status, headers, body = request(server, "POST", "/v1/messages/batches", b"{}")
    assert status == 404 and assert_anthropic_error(status, headers, body, "not_found_error")
    with pytest.raises(anthropic.NotFoundError):
        client.post("/v1/nothing/here", body={}, cast_to=object)  # anthropic-version: Anthropic's shape anywhere


roles = st.sampled_from(["user", "assistant", "system", "tool", 3, None])
block_bodies = st.fixed_dictionaries(
    {"type": st.sampled_from(["text", "image", "tool_use", "tool_result", "thinking", "document", 7])},
    optional={
        "text": st.one_of(st.text(max_size=5), st.integers()),
        "source": st.one_of(st.none(), st.fixed_dictionaries({"type": st.sampled_from(["base64", "url"])})),
        "input": st.one_of(st.none(), st.dictionaries(st.text(max_size=3), st.integers(), max_size=2)),
        "id": st.text(max_size=3),
        "name": st.text(max_size=3),
        "tool_use_id": st.one_of(st.text(max_size=3), st.integers()),
        "content": st.one_of(st.text(max_size=3), st.lists(st.just({"type": "text", "text": "x"}), max_size=2)),
        "thinking": st.text(max_size=3),
    },
)
bodies = st.fixed_dictionaries(
    {
        "model": st.one_of(st.text(max_size=8), st.integers()),
        "messages": st.lists(
            st.fixed_dictionaries({"role": roles}, optional={"content": st.one_of(st.text(), st.lists(block_bodies))}),
            max_size=3,
        ),
    },
    optional={
        "max_tokens": st.one_of(st.integers(-2, 50), st.text(max_size=2)),
        "system": st.one_of(st.text(max_size=5), st.lists(block_bodies, max_size=2), st.integers()),
        "stream": st.one_of(st.booleans(), st.text(max_size=2)),
        "tools": st.lists(
            st.fixed_dictionaries({"name": st.text(max_size=3)}, optional={"input_schema": st.just({"type": "object"})})
        ),
        "tool_choice": st.one_of(st.text(max_size=3), st.fixed_dictionaries({"type": st.text(max_size=4)})),
        "thinking": st.fixed_dictionaries(
            {"type": st.sampled_from(["enabled", "disabled", "adaptive", "x"])},
            optional={"budget_tokens": st.integers(-5, 5)},
        ),
        "stop_sequences": st.one_of(st.lists(st.text(max_size=2)), st.text(max_size=2)),
        "output_config": st.fixed_dictionaries({}, optional={"effort": st.text(max_size=4)}),
    },
)


@settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(body=bodies, path=st.sampled_from(["/v1/messages", "/v1/messages/count_tokens?beta=true"]))
def test_arbitrary_bodies_never_get_a_5xx(connection: http.client.HTTPConnection, body: Any, path: str) -> None:
    connection.request(
        "POST", path, body=json.dumps(body), headers={"content-type": "application/json", "x-api-key": "k"}
    )
    response = connection.getresponse()
    payload = response.read()
    assert response.status < 500, payload
    if response.status >= 400:
        error = json.loads(payload)
        assert set(error) == ERROR_FIELDS and error["error"]["type"] == "invalid_request_error"
        assert error["error"]["message"]
