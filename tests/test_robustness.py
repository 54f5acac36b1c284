"""Whatever a client sends, the answer is never a 5xx: bad input gets a 4xx in the dialect's shape."""

from __future__ import annotations

import http.client
import json
from typing import Any

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
