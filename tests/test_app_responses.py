"""Responses end to end: a real uvicorn server driven by the official `openai` SDK in strict mode."""

from __future__ import annotations

import json
from typing import Any

import openai
import pytest

from tests.conftest import FROZEN

FUNCTION: Any = {
    "type": "function",
    "name": "get_weather",
    "description": "Current weather in a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    "strict": True,
}
PATCH: Any = {"type": "custom", "name": "apply_patch", "description": "Edit files with a patch"}


def test_create_text(client: openai.OpenAI) -> None:
    response = client.responses.create(model="plain-text", input="hi")
    assert response.output_text == "Hello from the emulator. It streams in token-sized pieces."
    assert response.status == "completed" and response.store is False
    assert response.created_at == FROZEN and response.id.startswith("resp_")
    assert response.usage is not None and response.usage.total_tokens == response.usage.input_tokens + 15


def test_create_reasoning_then_text(client: openai.OpenAI) -> None:
    response = client.responses.create(model="reasoned", input="hi", reasoning={"effort": "high"})
    reasoning, message = response.output
    assert reasoning.type == "reasoning" and reasoning.content[0].text == "First I think about the question carefully."
    assert reasoning.summary[0].text == reasoning.content[0].text
    assert message.type == "message" and response.output_text == "Then I answer it."


def test_streamed_events_rebuild_the_text(client: openai.OpenAI) -> None:
    stream = client.responses.create(model="reasoned", input="hi", stream=True)
    seen = list(stream)
    assert [e.sequence_number for e in seen] == list(range(len(seen)))
    assert seen[0].type == "response.created" and seen[-1].type == "response.completed"
    assert "".join(e.delta for e in seen if e.type == "response.output_text.delta") == "Then I answer it."
    summary = "".join(e.delta for e in seen if e.type == "response.reasoning_summary_text.delta")
    raw = "".join(e.delta for e in seen if e.type == "response.reasoning_text.delta")
    assert summary == raw == "First I think about the question carefully."


def test_stream_helper_final_response_matches_create(client: openai.OpenAI) -> None:
    plain = client.responses.create(model="reasoned", input="hi")
    with client.responses.stream(model="reasoned", input="hi") as stream:
        kinds = {e.type for e in stream}
        final = stream.get_final_response()
    assert "response.output_text.delta" in kinds
    assert final.output_text == plain.output_text
    assert [o.type for o in final.output] == [o.type for o in plain.output]
    assert final.usage == plain.usage


def test_parallel_function_calls(client: openai.OpenAI) -> None:
    with client.responses.stream(model="two-calls", input="hi", tools=[FUNCTION]) as stream:
        final = stream.get_final_response()
    calls = [o for o in final.output if o.type == "function_call"]
    assert [json.loads(c.arguments) for c in calls] == [{"city": "Paris"}, {"city": "Tōkyō", "unit": "celsius"}]
    assert len({c.call_id for c in calls}) == 2
    assert calls[0].parsed_arguments is None or calls[0].parsed_arguments == {"city": "Paris"}


def test_custom_tool_call(client: openai.OpenAI) -> None:
    response = client.responses.create(model="patch", input="make hello.txt", tools=[PATCH])
    call = response.output[-1]
    assert call.type == "custom_tool_call" and call.name == "apply_patch"
    assert call.input.startswith("*** Begin Patch\n*** Add File: hello.txt")
    with client.responses.stream(model="patch", input="make hello.txt", tools=[PATCH]) as stream:
        deltas = "".join(e.delta for e in stream if e.type == "response.custom_tool_call_input.delta")
        final = stream.get_final_response()
    assert deltas == call.input == final.output[-1].input


def test_truncation_is_incomplete(client: openai.OpenAI) -> None:
    response = client.responses.create(model="long", input="hi", max_output_tokens=12)
    assert response.status == "incomplete"
    assert response.incomplete_details is not None and response.incomplete_details.reason == "max_output_tokens"
    assert response.output_text == "One two "
    with client.responses.stream(model="long", input="hi", max_output_tokens=12) as stream:
        last = [e for e in stream][-1]
        with pytest.raises(RuntimeError, match="response.completed"):
            stream.get_final_response()
    assert last.type == "response.incomplete" and last.response.output[-1].status == "incomplete"


def test_failure_mid_stream_is_response_failed(client: openai.OpenAI) -> None:
    events = list(client.responses.create(model="dies-mid-stream", input="hi", stream=True))
    assert events[-1].type == "response.failed"
    assert events[-1].response.error is not None and events[-1].response.error.message == "The model crashed."
    with pytest.raises(openai.InternalServerError):
        client.responses.create(model="dies-mid-stream", input="hi")


def test_steps_count_turns_in_input(client: openai.OpenAI) -> None:
    first = client.responses.create(model="m", input="a step test")
    history: Any = [{"role": "user", "content": "a step test"}, *[o.model_dump() for o in first.output]]
    history.append({"role": "user", "content": "step test again"})
    second = client.responses.create(model="m", input=history)
    assert (first.output_text, second.output_text) == ("step one", "step two")


def test_bad_input_is_a_400_naming_the_field(client: openai.OpenAI) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        client.responses.create(model="m", input="hi", previous_response_id="resp_123")
    assert caught.value.param == "previous_response_id"
    with pytest.raises(openai.BadRequestError) as caught:
        client.responses.create(
            model="m", input=[{"role": "user", "content": [{"type": "input_file", "file_id": "f"}]}]
        )
    assert caught.value.param == "input[0].content[0].type"
    with pytest.raises(openai.BadRequestError) as caught:  # it was a 200: the typeless tool was dropped
        client.responses.create(model="m", input="hi", tools=[{}])  # type: ignore[list-item]
    assert caught.value.param == "tools[0].type"
    assert caught.value.code == "missing_required_parameter"


def test_compact_keeps_the_users_words_and_seals_the_rest_for_the_next_request(server: Any) -> None:
    """`/v1/responses/compact` (openai): every user message as sent, then one `compaction` item; sent back in
    `input`, it stands for the turns it sealed. The SDK's strict mode types only assistant messages in `output`, so
    this client is not strict."""
    history: Any = [
        {"role": "user", "content": "Which planet has the most moons?"},
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "Saturn, at last count."}],
        },
        {"type": "function_call", "call_id": "call_m1", "name": "count_moons", "arguments": '{"planet": "Saturn"}'},
        {"type": "function_call_output", "call_id": "call_m1", "output": "274"},
        {"role": "user", "content": "And Jupiter?"},
    ]
    with unstrict(server, "/openai") as client:
        raw = client.responses.with_raw_response.compact(model="gpt-5", input=history)
        compacted = raw.parse()
        assert compacted.object == "response.compaction" and compacted.id.startswith("resp_")
        users = [item for item in compacted.output if item.type == "message"]
        assert [u.content[0].text for u in users] == ["Which planet has the most moons?", "And Jupiter?"]
        sealed = compacted.output[-1]
        assert sealed.type == "compaction" and sealed.encrypted_content.startswith("gAAAAA")
        assert "Saturn" not in sealed.encrypted_content and compacted.usage.input_tokens > 0
        carried: Any = raw.http_response.json()["output"]  # as sent back: the items as the API wrote them
        answer = client.responses.create(model="gpt-5", input=[*carried, {"role": "user", "content": "Thanks."}])
        assert answer.status == "completed"
        forged: Any = [{"type": "compaction", "encrypted_content": "gAAAAAnot-ours"}]
        with pytest.raises(openai.BadRequestError) as caught:
            client.responses.create(model="gpt-5", input=forged)
        assert caught.value.code == "invalid_encrypted_content"
    with unstrict(server, "/inferam") as seed, pytest.raises(openai.NotFoundError):  # the seeds' has no compact
        seed.responses.compact(model="gpt-5", input="hi")


def unstrict(server: Any, prefix: str) -> openai.OpenAI:
    """The SDK in its default mode, which reads what its types do not foresee; closed by its `with`."""
    return openai.OpenAI(base_url=f"{server.base_url}{prefix}/v1", api_key="sk-test", max_retries=0)
