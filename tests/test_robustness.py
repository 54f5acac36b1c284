"""Whatever a client sends, the answer is never a 5xx: bad input gets a 4xx in the dialect's shape."""

from __future__ import annotations

import http.client
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=20,
)
roles = st.sampled_from(["system", "developer", "user", "assistant", "tool", "robot", 3, None])
messages = st.lists(
    st.fixed_dictionaries(
        {"role": roles}, optional={"content": json_values, "tool_calls": json_values, "tool_call_id": json_values}
    ),
    max_size=3,
)
fields = st.sampled_from(
    ["model", "messages", "stream", "stream_options", "max_tokens", "max_completion_tokens", "stop", "tools"]
    + ["tool_choice", "response_format", "reasoning_effort", "thinking_budget", "temperature", "top_p", "seed", "user"]
    + ["n", "input", "instructions", "max_output_tokens", "text", "reasoning", "previous_response_id"]
)
item_types = st.sampled_from(
    ["message", "reasoning", "function_call", "function_call_output", "custom_tool_call", "custom_tool_call_output", 7]
)
item_fields = ["role", "content", "call_id", "name", "arguments", "input", "output", "summary"]
items = st.lists(
    st.fixed_dictionaries({"type": item_types}, optional={k: json_values for k in item_fields}),
    max_size=3,
)
bodies = st.one_of(
    json_values,
    st.fixed_dictionaries({"model": st.text(max_size=10), "messages": messages, "input": items | st.text()}).flatmap(
        lambda base: st.dictionaries(fields, json_values, max_size=4).map(lambda extra: base | extra)
    ),
)
PATHS = ["/v1/chat/completions", "/v1/responses"]


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(body=bodies)
def test_arbitrary_bodies_never_get_a_5xx(connection: http.client.HTTPConnection, body: Any) -> None:
    connection.request(
        "POST", "/v1/chat/completions", body=json.dumps(body), headers={"content-type": "application/json"}
    )
    response = connection.getresponse()
    payload = response.read()
    assert response.status < 500, payload
    if response.status >= 400:
        error = json.loads(payload)["error"]
        assert set(error) == {"message", "type", "param", "code"} and error["message"]


# Every answering endpoint, plain and under each profile that serves it, with the shape its errors take.
ENDPOINTS = [
    (f"{prefix}{path}", shape)
    for prefix, dialects in [("", "crm"), ("/inferam", "crm"), ("/inferel", "c"), ("/infercom", "c"), ("/openai", "cr")]
    + [("/anthropic", "m")]
    for path, dialect, shape in [
        ("/v1/chat/completions", "c", "text" if prefix == "/infercom" else "openai"),
        ("/v1/responses", "r", "openai"),
        ("/v1/messages", "m", "anthropic"),
        ("/v1/messages/count_tokens", "m", "anthropic"),
    ]
    if dialect in dialects
] + [("/openai/v1/responses/input_tokens", "openai")]
CHAT = b'{"model": "m", "messages": [{"role": "user", "content": "hi"}], "input": "hi", "max_tokens": 5}'
# Bytes that are not UTF-8: a lone surrogate's encoding (ED A0 80), a stray continuation byte, a truncated
# sequence, an overlong encoding, and bytes that never occur.
NOT_UTF8 = st.sampled_from([b"\xed\xa0\x80", b"\x80", b"\xe2\x82", b"\xc0\xaf", b"\xff", b"\xfe"])
raw_bodies = st.one_of(
    st.binary(max_size=64),
    # a valid body with bad bytes spliced in: inside a string, or anywhere
    st.tuples(st.integers(0, len(CHAT)), NOT_UTF8).map(lambda cut: CHAT[: cut[0]] + cut[1] + CHAT[cut[0] :]),
    st.builds(lambda bad: CHAT.replace(b"hi", b"h" + bad, 1), NOT_UTF8),
)


@pytest.mark.parametrize(("path", "shape"), ENDPOINTS, ids=[p for p, _ in ENDPOINTS])
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(body=raw_bodies)
def test_arbitrary_bytes_never_get_a_5xx(
    connection: http.client.HTTPConnection, path: str, shape: str, body: bytes
) -> None:
    """Raw bytes, not only JSON values: whatever is not UTF-8 JSON is a 400 in the endpoint's error shape."""
    headers = {"content-type": "application/json", "authorization": "Bearer sk-test", "x-api-key": "sk-test"}
    connection.request("POST", path, body=body, headers=headers)
    response = connection.getresponse()
    payload = response.read()
    assert response.status < 500, payload
    try:
        json.loads(body.decode("utf-8"))
    except ValueError:  # not UTF-8, or not JSON: refused as a bad body
        assert response.status == 400, payload
    if response.status >= 400:
        if shape == "text":  # Infercom answers its 400 in plain text
            assert response.getheader("content-type", "").startswith("text/plain") and payload
        elif shape == "anthropic":
            error = json.loads(payload)
            assert error["type"] == "error" and error["error"]["type"] and error["error"]["message"]
        else:
            error = json.loads(payload)["error"]
            assert set(error) == {"message", "type", "param", "code"} and error["message"]


@pytest.mark.parametrize(("path", "shape"), ENDPOINTS, ids=[p for p, _ in ENDPOINTS])
def test_a_lone_surrogate_in_a_string_is_a_400(connection: http.client.HTTPConnection, path: str, shape: str) -> None:
    """The bytes ED A0 80 (a lone surrogate, which UTF-8 forbids) inside a string were a 500, and a 200 from
    count_tokens."""
    body = CHAT.replace(b"hi", b"\xed\xa0\x80")
    connection.request("POST", path, body=body, headers={"content-type": "application/json", "x-api-key": "sk-test"})
    response = connection.getresponse()
    payload = response.read()
    assert response.status == 400, payload
    assert b"utf-8" in payload, payload  # it says what is wrong


NESTED = b'{"a": ' * 1000 + b"1" + b"}" * 1000
DEEP_BODIES = {  # 1,000 levels (past Python's recursion, under the JSON parser's 1,024), where clients put depth
    "metadata": CHAT[:-1] + b', "metadata": ' + NESTED + b"}",
    "tool schema": CHAT[:-1]
    + b', "tool_choice": "required", "tools": [{"type": "function", "name": "f", "input_schema": '
    + NESTED
    + b', "parameters": '
    + NESTED
    + b', "function": {"name": "f", "parameters": '
    + NESTED
    + b"}}]}",
    "response format": CHAT[:-1]
    + b', "response_format": {"type": "json_schema", "json_schema": {"schema": '
    + NESTED
    + b"}}}",
}


@pytest.mark.parametrize("where", DEEP_BODIES)
@pytest.mark.parametrize(("path", "shape"), ENDPOINTS, ids=[p for p, _ in ENDPOINTS])
def test_a_body_nested_a_thousand_levels_deep_is_a_400(
    connection: http.client.HTTPConnection, path: str, shape: str, where: str
) -> None:
    """It was a 500 (a RecursionError while keying or echoing the body) on every endpoint."""
    headers = {"content-type": "application/json", "authorization": "Bearer sk-test", "x-api-key": "sk-test"}
    connection.request("POST", path, body=DEEP_BODIES[where], headers=headers)
    response = connection.getresponse()
    payload = response.read()
    assert response.status == 400, payload
    assert b"more than 128 levels deep" in payload
