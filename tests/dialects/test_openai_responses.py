"""The Responses dialect without sockets: golden event order and fields (wire-formats.md §2.2, seed 001),
input items, validation, and the stream/non-stream equivalence through the SDK's own stream state."""

from __future__ import annotations

import json
from typing import Any

import pydantic
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openai import omit
from openai.lib.streaming.responses import ResponseStreamState
from openai.types.responses import Response, ResponseStreamEvent

from emulator.answering.compose import finish
from emulator.core import sse
from emulator.core.conversation import Fault, Prompt, Reply, ToolCall
from emulator.core.errors import InvalidRequest
from emulator.dialects import openai_responses

EVENTS: pydantic.TypeAdapter[Any] = pydantic.TypeAdapter(ResponseStreamEvent)
# The seed's curl example (001_665abdf1d121f1c7.txt), verbatim.
SEED_BODY = {
    "model": "DeepSeek-V4.1-Flash-1017",
    "instructions": "You are a terse senior engineer.",
    "input": "Explain Rust lifetimes in two sentences.",
    "reasoning": {"effort": "low"},
}
TOOLS = [
    {"type": "function", "name": "exec_command", "parameters": {"type": "object"}, "strict": False},
    {"type": "custom", "name": "apply_patch", "description": "Edit files", "format": {"type": "text"}},
    {"type": "web_search"},
]


def parse(body: dict[str, Any]) -> Prompt:
    return openai_responses.parse_request(body, {"authorization": "Bearer k"}, "fp")


def events(body: dict[str, Any], reply: Reply) -> list[sse.Event]:
    prompt = parse(body | {"stream": True})
    return list(sse.decode(openai_responses.render_stream(prompt, finish(prompt, reply, created=1))))


def test_seed_example_is_a_stateless_response_with_reasoning() -> None:
    prompt = parse(SEED_BODY)
    assert prompt.messages[0].role == "system" and prompt.messages[1].text == SEED_BODY["input"]
    assert prompt.effort == "low"
    body = openai_responses.render(prompt, finish(prompt, Reply(reasoning="think", text="Lifetimes."), created=7))
    response = Response.model_validate(body, strict=True)
    assert response.store is False and response.status == "completed" and response.created_at == 7
    assert [o.type for o in response.output] == ["reasoning", "message"]
    assert response.output[0].content[0].text == "think"  # the seed: reasoning text in content (reasoning_text)
    assert response.output_text == "Lifetimes."
    assert response.instructions == SEED_BODY["instructions"]
    assert response.usage is not None and response.usage.output_tokens_details.reasoning_tokens == 0
    assert response.usage.output_tokens == 2 + 3  # reasoning is counted in output_tokens
    assert response.usage.input_tokens_details.cache_write_tokens == 0


def test_stream_order_and_numbering_for_reasoning_and_text() -> None:
    got = events(SEED_BODY, Reply(reasoning="Hmm.", text="Hi there!"))
    assert all(e.event == e.json()["type"] for e in got)  # `event:` lines name the data's type
    assert [e.json()["sequence_number"] for e in got] == list(range(len(got)))
    kinds = [e.json()["type"] for e in got]
    assert kinds == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.reasoning_summary_part.added",
        "response.reasoning_summary_text.delta",
        "response.reasoning_summary_text.done",
        "response.reasoning_summary_part.done",
        "response.content_part.added",
        "response.reasoning_text.delta",
        "response.reasoning_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.output_item.added",
        "response.content_part.added",
        "response.output_text.delta",
        "response.output_text.delta",
        "response.output_text.delta",
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.completed",
    ]
    for event in got:
        EVENTS.validate_python(event.json(), strict=True)
    created, completed = got[0].json()["response"], got[-1].json()["response"]
    assert created["status"] == "in_progress" and created["output"] == [] and created["usage"] is None
    assert completed["status"] == "completed" and len(completed["output"]) == 2
    assert created["id"] == completed["id"]
    delta = got[14].json()
    assert set(delta) == {"type", "sequence_number", "item_id", "output_index", "content_index", "delta", "logprobs"}
    assert got[12].json()["item"] == {
        "id": completed["output"][1]["id"],
        "type": "message",
        "status": "in_progress",
        "role": "assistant",
        "content": [],
    }


def test_function_and_custom_calls_stream_their_own_events() -> None:
    body = {"model": "m", "input": "go", "tools": TOOLS}
    calls = (
        ToolCall("", "exec_command", '{"cmd": "ls"}'),
        ToolCall("", "apply_patch", "*** Begin Patch\n*** End Patch"),
    )
    got = [e.json() for e in events(body, Reply(tool_calls=calls))]
    kinds = [e["type"] for e in got]
    assert kinds[2:] == [
        "response.output_item.added",
        *["response.function_call_arguments.delta"] * 4,
        "response.function_call_arguments.done",
        "response.output_item.done",
        "response.output_item.added",
        *["response.custom_tool_call_input.delta"] * 8,
        "response.custom_tool_call_input.done",
        "response.output_item.done",
        "response.completed",
    ]
    assert got[2]["item"]["arguments"] == "" and got[2]["item"]["status"] == "in_progress"
    function, custom = got[-1]["response"]["output"]
    assert (function["type"], function["arguments"]) == ("function_call", '{"cmd": "ls"}')
    assert (custom["type"], custom["input"], custom["name"]) == ("custom_tool_call", calls[1].arguments, "apply_patch")
    assert function["call_id"].startswith("call_") and function["id"].startswith("fc_")
    tools = got[-1]["response"]["tools"]
    assert [t["type"] for t in tools] == ["function", "custom"]  # web_search was dropped, not rejected


def test_truncation_ends_with_response_incomplete() -> None:
    got = [e.json() for e in events({"model": "m", "input": "x", "max_output_tokens": 3}, Reply(text="a" * 40))]
    assert got[-1]["type"] == "response.incomplete"
    final = got[-1]["response"]
    assert final["status"] == "incomplete" and final["incomplete_details"] == {"reason": "max_output_tokens"}
    assert final["output"][0]["content"][0]["text"] == "a" * 12 and final["output"][0]["status"] == "incomplete"
    assert final["usage"]["output_tokens"] == 3


def test_stream_error_ends_with_response_failed() -> None:
    reply = Reply(text="a" * 40, fault=Fault(after_events=5, status=429))
    got = [e.json() for e in events({"model": "m", "input": "x"}, reply)]
    assert len(got) == 6 and [g["sequence_number"] for g in got] == list(range(6))
    failed = got[-1]
    assert failed["type"] == "response.failed" and failed["response"]["status"] == "failed"
    assert failed["response"]["error"]["code"] == "rate_limit_exceeded"
    assert "try again in" in failed["response"]["error"]["message"]  # Codex parses its delay from these words
    EVENTS.validate_python(failed, strict=True)


def test_input_items_fold_model_runs_into_assistant_turns() -> None:
    prompt = parse(
        {
            "model": "m",
            "input": [
                {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "rules"}]},
                {"role": "user", "content": "make a file"},
                {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "I will"}]},
                {"type": "function_call", "call_id": "c1", "name": "exec_command", "arguments": "{}"},
                {"type": "custom_tool_call", "call_id": "c2", "name": "apply_patch", "input": "*** Begin Patch"},
                {"type": "function_call_output", "call_id": "c1", "output": "done"},
                {"type": "custom_tool_call_output", "call_id": "c2", "output": [{"type": "input_text", "text": "ok"}]},
                {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Made it."}]},
                {"role": "user", "content": [{"type": "input_image", "image_url": "data:image/png;base64,AA=="}]},
            ],
            "tools": TOOLS,
        }
    )
    roles = [m.role for m in prompt.messages]
    assert roles == ["developer", "user", "assistant", "tool", "tool", "assistant", "user"]
    assert prompt.assistant_turns == 2
    first = prompt.messages[2]
    assert first.reasoning == "I will" and [c.kind for c in first.tool_calls] == ["function", "custom"]
    assert (prompt.messages[4].text, prompt.messages[4].tool_call_id) == ("ok", "c2")
    assert prompt.messages[6].images == 1
    assert [t.kind for t in prompt.tools] == ["function", "custom"]


@pytest.mark.parametrize(
    ("body", "param", "words"),
    [
        ({"input": "x"}, "model", "Missing required parameter"),
        ({"model": "m"}, "input", "Missing required parameter"),
        ({"model": "m", "input": 3}, "input", "a string or an array"),
        (
            {"model": "m", "input": "x", "previous_response_id": "resp_1"},
            "previous_response_id",
            "no conversation state",
        ),
        ({"model": "m", "input": [{"type": "item_reference", "id": "x"}]}, "input[0].type", "item_reference"),
        ({"model": "m", "input": [{"role": "tool", "content": "x"}]}, "input[0].role", "'tool'"),
        (
            {"model": "m", "input": [{"role": "user", "content": [{"type": "input_image", "image_url": "https://x"}]}]},
            "input[0].content[0].image_url",
            "data: URLs",
        ),
        (
            {"model": "m", "input": [{"type": "function_call", "name": "f", "arguments": "{}"}]},
            "input[0].call_id",
            "Missing",
        ),
        ({"model": "m", "input": "x", "max_output_tokens": "9"}, "max_output_tokens", "an integer"),
        ({"model": "m", "input": "x", "reasoning": {"effort": "lots"}}, "reasoning.effort", "'lots'"),
        ({"model": "m", "input": "x", "tool_choice": {"type": "function", "name": "nope"}}, "tool_choice.name", "nope"),
        (
            {"model": "m", "input": "x", "text": {"format": {"type": "json_schema", "name": "n"}}},
            "text.format.schema",
            "Missing",
        ),
    ],
)
def test_bad_requests_name_the_field(body: dict[str, Any], param: str, words: str) -> None:
    with pytest.raises(InvalidRequest) as caught:
        parse(body)
    assert caught.value.param == param
    assert words in caught.value.message


# --- stream and non-stream agree, for any reply a scenario can script -------------------------------------

texts = st.text(max_size=80)
names = st.sampled_from(["exec_command", "apply_patch", "other"])
calls = st.lists(st.builds(ToolCall, id=st.just(""), name=names, arguments=texts), max_size=3)
replies = st.builds(Reply, reasoning=texts, text=texts, tool_calls=calls.map(tuple))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(reply=replies, limit=st.one_of(st.none(), st.integers(1, 40)))
def test_stream_state_rebuilds_the_non_stream_response(reply: Reply, limit: int | None) -> None:
    body: dict[str, Any] = {"model": "m", "input": "x", "tools": TOOLS, "max_output_tokens": limit}
    prompt = parse(body)
    turn = finish(prompt, reply, created=1)
    plain = Response.model_validate(openai_responses.render(prompt, turn), strict=True)
    state: ResponseStreamState[Any] = ResponseStreamState(input_tools=omit, text_format=omit)
    last = None
    for event in sse.decode(openai_responses.render_stream(parse(body | {"stream": True}), turn)):
        last = EVENTS.validate_python(event.json(), strict=True)
        state.handle_event(last)
    assert last is not None
    final = state._completed_response or last.response  # `incomplete` ends without a completed response
    assert final.status == plain.status
    assert [_plain(o) for o in final.output] == [_plain(o) for o in plain.output]
    assert final.usage == plain.usage
    assert json.loads(json.dumps(final.incomplete_details and final.incomplete_details.model_dump())) == (
        plain.incomplete_details and plain.incomplete_details.model_dump()
    )


def _plain(item: Any) -> Any:
    """An output item as data, without the `parsed*` fields the stream helper adds."""

    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k not in ("parsed", "parsed_arguments")}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    return strip(item.model_dump())
