"""The `infercom` profile (seed 003, an OpenAPI document): its shapes, models, validation and errors.

Every body is checked against the seed's own schemas (`003_….openapi.yaml`, `nullable` read as OpenAPI
3.0 means it); the official openai SDK parses everything in its default mode, since its strict mode
refuses Infercom's float `created`.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import openai
import pytest
import yaml

from emulator.http.app import Settings
from emulator.rules.limits import Limits
from tests.conftest import Server
from tests.test_app_chat import WEATHER_TOOL, post

SEED = Path(__file__).parents[2] / "shared" / "seeds" / "003_728f86709c3116e6.openapi.yaml"
BASE = "/infercom/v1"
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
# The seed's cURL example, verbatim but for the base URL.
CURL: Any = {"model": "MiniMax-M2.7", "messages": [{"role": "user", "content": "Write a haiku about AI."}]}
TIMING_FIELDS = {
    "acceptance_rate",
    "completion_tokens_after_first_per_sec",
    "completion_tokens_after_first_per_sec_first_ten",
    "completion_tokens_per_sec",
    "end_time",
    "is_last_response",
    "start_time",
    "time_to_first_token",
    "total_latency",
    "total_tokens_per_sec",
}

pytestmark = [
    pytest.mark.skipif(not SEED.exists(), reason="the seeds are not beside the project"),
    # The SDK's `.stream()` helper re-serialises its snapshot and pydantic warns that the float `created` is
    # not the `int` the SDK declares: a warning the client sees, not a failure.
    pytest.mark.filterwarnings("ignore:Pydantic serializer warnings:UserWarning"),
]


def _nullable(node: Any) -> Any:
    """The document with OpenAPI 3.0's `nullable: true` turned into JSON Schema's "or null"."""
    if isinstance(node, list):
        return [_nullable(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {k: _nullable(v) for k, v in node.items() if k != "nullable"}
    return {"anyOf": [out, {"type": "null"}]} if node.get("nullable") is True else out


@cache
def _document() -> dict[str, Any]:
    converted: dict[str, Any] = _nullable(yaml.safe_load(SEED.read_text()))
    return converted


def check(name: str, instance: Any) -> None:
    """Validate `instance` against the seed's `components/schemas/NAME`."""
    schema = {"$ref": f"#/components/schemas/{name}", "components": _document()["components"]}
    jsonschema.Draft202012Validator(schema).validate(instance)


def sdk(server: Server) -> openai.OpenAI:
    """The openai SDK in its default (non-strict) mode, which accepts Infercom's float `created`."""
    return openai.OpenAI(base_url=f"{server.base_url}{BASE}", api_key="k", max_retries=0, timeout=10.0)


def call(server: Server, body: dict[str, Any], **headers: str) -> tuple[int, dict[str, str], bytes]:
    return post(server, f"{BASE}/chat/completions", json.dumps(body).encode(), headers)


def chunks(raw: bytes) -> Iterator[dict[str, Any]]:
    frames = [f.removeprefix(b"data: ") for f in raw.split(b"\n\n") if f.startswith(b"data: ")]
    assert frames[-1] == b"[DONE]"
    for f in frames[:-1]:
        yield json.loads(f)


# --- shapes ----------------------------------------------------------------------------------------------


def test_seed_curl_example_answers_in_infercoms_shape(server: Server) -> None:
    status, headers, raw = call(server, CURL, authorization="Bearer k")
    assert status == 200 and UUID.match(headers["inference-id"])
    body = json.loads(raw)
    check("ChatCompletionResponse", body)
    assert UUID.match(body["id"]) and body["object"] == "chat.completion" and body["model"] == "MiniMax-M2.7"
    assert isinstance(body["created"], float) and body["system_fingerprint"] == "fastcoe"
    message = body["choices"][0]["message"]
    assert message["role"] == "assistant" and message["content"]
    assert message["reasoning"] and "reasoning_content" not in message  # MiniMax-M2.7 reasons by default
    usage = body["usage"]
    assert set(usage) >= TIMING_FIELDS and usage["is_last_response"] is True
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
    assert usage["end_time"] == pytest.approx(usage["start_time"] + usage["total_latency"])
    assert usage["completion_tokens_per_sec"] == pytest.approx(usage["completion_tokens"] / usage["total_latency"])
    assert usage["start_time"] < body["created"] <= usage["end_time"]
    assert call(server, CURL)[2] == raw  # deterministic


def test_timing_usage_follows_the_requested_pacing(server: Server) -> None:
    headers = {"x-emulator-timing": "ttft_ms=200; tokens_per_second=1000"}
    usage = json.loads(call(server, CURL, **headers)[2])["usage"]
    assert usage["time_to_first_token"] == pytest.approx(0.2)
    assert usage["completion_tokens_after_first_per_sec"] == pytest.approx(1000)
    assert usage["total_latency"] == pytest.approx(0.2 + (usage["completion_tokens"] - 1) / 1000)


def test_stream_chunks_match_the_schema_and_end_with_usage(server: Server) -> None:
    status, headers, raw = call(server, CURL | {"stream": True})
    assert status == 200 and UUID.match(headers["inference-id"])
    events = list(chunks(raw))
    for event in events:
        check("ChatCompletionStreamResponse", event)
        assert isinstance(event["created"], float) and event["system_fingerprint"] == "fastcoe"
    *body, finish, tail = events
    assert all("usage" not in e for e in body + [finish])  # not asked for, and no `usage: null` either
    assert body[0]["choices"][0]["delta"]["role"] == "assistant"
    assert all("role" not in e["choices"][0]["delta"] for e in body[1:])
    deltas = [e["choices"][0]["delta"] for e in body]
    assert any(d.get("reasoning") for d in deltas) and not any("reasoning_content" in d for d in deltas)
    assert finish["choices"][0]["delta"] == {"content": ""} and finish["choices"][0]["finish_reason"] == "stop"
    assert tail["choices"] == [] and tail["usage"]["is_last_response"] is True
    assert set(tail["usage"]) >= TIMING_FIELDS


def test_tool_calls_stream_whole_and_the_sdk_assembles_them(server: Server) -> None:
    body = {"model": "two-calls", "messages": CURL["messages"], "tools": [WEATHER_TOOL], "stream": True}
    events = list(chunks(call(server, body)[2]))
    entries = [c for e in events for ch in e["choices"] for c in ch["delta"].get("tool_calls") or []]
    assert len(entries) == 2  # one chunk a call
    for entry in entries:
        check("AssistantToolCall", entry)
        json.loads(entry["function"]["arguments"])
    with sdk(server) as client:
        with client.chat.completions.stream(model="two-calls", messages=CURL["messages"], tools=[WEATHER_TOOL]) as s:
            final = s.get_final_completion()
        plain = client.chat.completions.create(model="two-calls", messages=CURL["messages"], tools=[WEATHER_TOOL])
    calls = final.choices[0].message.tool_calls or []  # not "functionfunction": each field came once
    assert [(c.type, c.function.name, json.loads(c.function.arguments)) for c in calls] == [
        ("function", e["function"]["name"], json.loads(e["function"]["arguments"])) for e in entries
    ]
    assert all(c.id.startswith("call_") and c.id.count("call_") == 1 for c in calls)
    assert len(plain.choices[0].message.tool_calls or []) == 2


def test_the_sdk_parses_everything_in_default_mode(server: Server) -> None:
    with sdk(server) as client:
        completion = client.chat.completions.create(**CURL)
        streamed = list(client.chat.completions.create(**CURL, stream=True))
        with client.chat.completions.stream(**CURL) as stream:
            final = stream.get_final_completion()
        raw = client.chat.completions.with_raw_response.create(**CURL)
    assert completion.choices[0].message.content and completion.usage.total_tokens > 0
    assert (completion.choices[0].message.model_extra or {}).get("reasoning")
    assert completion.usage.model_extra["time_to_first_token"] > 0
    assert streamed[-1].choices == [] and streamed[-1].usage.model_extra["is_last_response"] is True
    text = "".join(c.choices[0].delta.content or "" for c in streamed if c.choices)
    thought = "".join((c.choices[0].delta.model_extra or {}).get("reasoning") or "" for c in streamed if c.choices)
    assert text == final.choices[0].message.content and thought  # the same request body: the same answer
    assert final.choices[0].message.model_extra.get("reasoning") == thought
    assert final.choices[0].message.role == "assistant" and final.choices[0].finish_reason == "stop"
    assert UUID.match(raw.headers["inference-id"])


def test_n_gives_that_many_choices(server: Server) -> None:
    body = json.loads(call(server, CURL | {"n": 3})[2])
    check("ChatCompletionResponse", body)
    assert [c["index"] for c in body["choices"]] == [0, 1, 2]
    with sdk(server) as client, client.chat.completions.stream(**CURL, n=2) as stream:
        final = stream.get_final_completion()
    first, second = final.choices
    assert first.message.content and second.message.content and first.message.content != second.message.content
    contents = [c["message"]["content"] for c in body["choices"]]
    assert len(set(contents)) == 3  # sampled afresh, as `n` does
    assert call(server, CURL | {"n": 3})[2] == call(server, CURL | {"n": 3})[2]  # and deterministic
    scripted = json.loads(call(server, CURL | {"n": 2, "model": "plain-text"})[2])
    assert len({c["message"]["content"] for c in scripted["choices"]}) == 1  # a script reads the same in each
    one = json.loads(call(server, CURL | {"n": 1})[2])["usage"]["completion_tokens"]
    assert body["usage"]["completion_tokens"] > one  # every choice's tokens count


# --- models ----------------------------------------------------------------------------------------------


def _reasoning(server: Server, **fields: Any) -> str:
    body = json.loads(call(server, {"messages": CURL["messages"]} | fields)[2])
    return str(body["choices"][0]["message"].get("reasoning", ""))


def test_each_documented_model_thinks_its_own_way(server: Server) -> None:
    assert _reasoning(server, model="gemma-4-31B-it") == ""  # off by default
    assert _reasoning(server, model="gemma-4-31B-it", chat_template_kwargs={"enable_thinking": True})
    assert _reasoning(server, model="gemma-4-31B-it", chat_template_kwargs={"enable_thinking": False}) == ""

    def sentences(**fields: Any) -> int:  # the default model thinks 2, 3 or up to 4 sentences for low, medium, high
        return _reasoning(server, **fields).count(".")

    # Honours the effort: high thinks more than low, within the four sentences a question gets (issue 26).
    assert sentences(model="gpt-oss-120b", reasoning_effort="low") == 2
    assert 2 < sentences(model="gpt-oss-120b", reasoning_effort="high") <= 4
    assert sentences(model="gpt-oss-120b") == 3  # medium by default
    assert sentences(model="MiniMax-M2.7", reasoning_effort="low") == sentences(model="MiniMax-M2.7") == 3  # ignored
    assert _reasoning(server, model="DeepSeek-V3.2", reasoning_effort="high")  # reasons by default
    with sdk(server) as client:
        listed = [m.id for m in client.models.list()]
    assert {"MiniMax-M2.7", "gpt-oss-120b", "gemma-4-31B-it"} <= set(listed)


# --- validation and errors -------------------------------------------------------------------------------

TOOLS_129 = [{"type": "function", "function": {"name": f"f{i}"}} for i in range(129)]


@pytest.mark.parametrize(
    "fields",
    [
        {"temperature": 2.5},
        {"top_p": 1.5},
        {"top_k": 0},
        {"top_k": 101},
        {"presence_penalty": -3},
        {"frequency_penalty": 2.5},
        {"n": 9},
        {"n": 0},
        {"tools": TOOLS_129},
        {"reasoning_effort": "none"},
        {"reasoning_effort": "off"},
        {"reasoning_effort": "max"},
        {"model": None},
    ],
)
def test_bad_fields_are_a_plain_text_400(server: Server, fields: dict[str, Any]) -> None:
    body = {k: v for k, v in (CURL | fields).items() if v is not None}
    status, headers, raw = call(server, body)
    assert status == 400 and headers["content-type"].startswith("text/plain") and raw
    assert UUID.match(headers["inference-id"])
    assert next(iter(k for k in fields if k != "model"), "model") in raw.decode()


def test_accepted_edges(server: Server) -> None:
    fields = {"top_k": 100, "n": 8, "temperature": 2, "top_p": 0, "presence_penalty": -2, "tools": TOOLS_129[:128]}
    assert call(server, CURL | fields)[0] == 200


@pytest.mark.parametrize(
    ("status", "shape", "sdk_error"),
    [
        (400, "text", openai.BadRequestError),
        (401, "text", openai.AuthenticationError),
        (404, "SimpleError", openai.NotFoundError),
        (408, "SimpleError", openai.APIStatusError),
        (410, "SimpleError", openai.APIStatusError),
        (429, "GeneralError", openai.RateLimitError),
        (500, "text", openai.InternalServerError),
        (503, "text", openai.InternalServerError),
    ],
)
def test_errors_take_the_documented_shape_per_status(
    server: Server, status: int, shape: str, sdk_error: type[openai.APIStatusError]
) -> None:
    got, headers, raw = call(server, CURL, **{"x-emulator-fault": f"status={status}"})
    assert got == status and UUID.match(headers["inference-id"])
    if shape == "text":
        assert headers["content-type"].startswith("text/plain") and raw.decode()
    else:
        check(shape, json.loads(raw))
    if status in (401, 503):
        assert raw.decode() == {401: "unauthorized", 503: "Service Temporarily Unavailable"}[status]
    with sdk(server) as client, pytest.raises(sdk_error) as caught:
        client.chat.completions.create(**CURL, extra_headers={"x-emulator-fault": f"status={status}"})
    assert caught.value.status_code == status


def test_mid_stream_error_is_a_general_error(server: Server) -> None:
    raw = call(server, CURL | {"stream": True}, **{"x-emulator-fault": "stream_error; after_events=3; status=500"})[2]
    frames = [f.removeprefix(b"data: ") for f in raw.split(b"\n\n") if f.startswith(b"data: ")]
    check("GeneralError", json.loads(frames[-1]))


def test_other_profiles_keep_their_shapes(server: Server) -> None:
    status, headers, raw = post(server, "/inferam/v1/chat/completions", json.dumps(CURL | {"stream": True}).encode())
    assert status == 200 and "inference-id" not in headers and "x-request-id" in headers
    assert b'"reasoning_content"' in raw and b'"reasoning"' not in raw
    status, headers, raw = post(server, "/inferam/v1/chat/completions", json.dumps(CURL | {"n": 9}).encode())
    assert status == 200 and len(json.loads(raw)["choices"]) == 1


def test_rate_limit_headers_count_requests_per_minute_and_day(make_server: Any) -> None:
    server = make_server(Settings(limits=Limits(requests_per_minute=2, requests_per_day=100)))
    started = time.time()
    first, second, spent = (call(server, CURL, authorization="Bearer k") for _ in range(3))
    headers = first[1]
    assert headers["x-ratelimit-limit-requests"] == "2" and headers["x-ratelimit-remaining-requests"] == "1"
    assert headers["x-ratelimit-limit-requests-day"] == "100" and headers["x-ratelimit-remaining-requests-day"] == "99"
    for name in ("x-ratelimit-reset-requests", "x-ratelimit-reset-requests-day"):
        assert int(headers[name]) >= started  # a Unix timestamp, not a duration
    assert not any("tokens" in name for name in headers)
    assert second[1]["x-ratelimit-remaining-requests"] == "0"
    assert spent[0] == 429 and "retry-after" in spent[1]
    check("GeneralError", json.loads(spent[2]))


def test_unknown_paths_and_endpoints_are_simple_errors(server: Server) -> None:
    for path in (f"{BASE}/nowhere", f"{BASE}/responses"):
        status, headers, raw = post(server, path, json.dumps(CURL).encode())
        assert status == 404 and UUID.match(headers["inference-id"])
        check("SimpleError", json.loads(raw))
        assert isinstance(json.loads(raw)["error"], str)


# --- answers the model got wrong, channels, finish reasons ----------------------------------------------------------

TOOL_CALL = {"model": "two-calls", "messages": CURL["messages"], "tools": [WEATHER_TOOL]}


def test_a_failed_tool_call_is_a_200_model_output_error(server: Server) -> None:
    status, headers, raw = call(server, TOOL_CALL, **{"x-emulator-fault": "model_output"})
    assert status == 200 and UUID.match(headers["inference-id"]) and headers["content-type"] == "application/json"
    body = json.loads(raw)
    check("ModelOutputError", body)
    error = body["error"]
    assert error["model_output"].startswith('{"name":"get_weather"')  # the call, broken off halfway
    with pytest.raises(json.JSONDecodeError):
        json.loads(error["model_output"])
    assert "tool call" in error["message"] and error["param"] is None
    scripted = {"x-emulator-fault": 'model_output; output={"city": ; message=Bad JSON; code=tool_call_parse_error'}
    error = json.loads(call(server, CURL, **scripted)[2])["error"]
    assert error == error | {"model_output": '{"city":', "message": "Bad JSON", "code": "tool_call_parse_error"}
    with sdk(server) as client:  # the SDK, in its default mode, hands the body over as it came
        completion = client.chat.completions.create(**TOOL_CALL, extra_headers={"x-emulator-fault": "model_output"})
    assert completion.model_extra and completion.model_extra["error"]["type"] == "model_output_error"


def test_a_failed_tool_call_streamed_is_one_error_event_the_sdk_raises(server: Server) -> None:
    raw = call(server, TOOL_CALL | {"stream": True}, **{"x-emulator-fault": "model_output"})[2]
    frames = [f.removeprefix(b"data: ") for f in raw.split(b"\n\n") if f.startswith(b"data: ")]
    assert len(frames) == 1
    check("ModelOutputError", json.loads(frames[0]))
    with sdk(server) as client, pytest.raises(openai.APIError, match="tool call"):
        for _ in client.chat.completions.create(
            **TOOL_CALL, stream=True, extra_headers={"x-emulator-fault": "model_output"}
        ):
            pass


def test_model_output_errors_elsewhere_are_a_500(server: Server) -> None:
    with server.openai() as client, pytest.raises(openai.InternalServerError, match="tool call"):
        client.responses.create(model="m", input="hi", extra_headers={"x-emulator-fault": "model_output"})


def test_a_reasoning_models_deltas_name_their_channel(server: Server) -> None:
    deltas = [e["choices"][0]["delta"] for e in chunks(call(server, CURL | {"stream": True})[2]) if e["choices"]]
    assert {d["channel"] for d in deltas if d.get("reasoning")} == {"analysis"}
    assert {d["channel"] for d in deltas if d.get("content")} == {"final"}
    gemma = CURL | {"model": "gemma-4-31B-it", "stream": True}  # not thinking: no channels
    assert not any("channel" in e["choices"][0]["delta"] for e in chunks(call(server, gemma)[2]) if e["choices"])


def test_finish_reasons_stay_within_infercoms_enum(server: Server) -> None:
    body = json.loads(call(server, CURL | {"model": "content-filter"})[2])
    check("ChatCompletionResponse", body)
    assert body["choices"][0]["finish_reason"] == body["usage"]["stop_reason"] == "stop"
