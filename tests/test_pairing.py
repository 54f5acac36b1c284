"""The public profiles refuse a conversation whose tool calls and results do not pair up, as the real APIs do: a
call left unanswered, a result that answers no call, a response continued past its function call without the
call's output. Through the official SDKs against a real server; the seeds' profiles take all of it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anthropic
import openai
import pytest

from emulator.answering import pairing
from emulator.core.errors import InvalidRequest
from emulator.http.app import Settings
from tests.conftest import Server, serve

TOOL: Any = {
    "type": "function",
    "function": {
        "name": "tide_table",
        "description": "High and low tides for a harbour.",
        "parameters": {"type": "object", "properties": {"harbour": {"type": "string"}}, "required": ["harbour"]},
    },
}
ASKED: Any = {"role": "user", "content": "When is high tide at Whitby?"}


def chat_call(*ids: str) -> dict[str, Any]:
    calls = [{"id": i, "type": "function", "function": {"name": "tide_table", "arguments": "{}"}} for i in ids]
    return {"role": "assistant", "content": None, "tool_calls": calls}


def chat_result(call_id: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": "High water 06:12 and 18:40."}


def claude_call(*ids: str) -> dict[str, Any]:
    blocks = [{"type": "tool_use", "id": i, "name": "tide_table", "input": {"harbour": "Whitby"}} for i in ids]
    return {"role": "assistant", "content": blocks}


def claude_results(*ids: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": i, "content": "06:12"} for i in ids]}


def call_item(call_id: str) -> dict[str, Any]:
    return {"type": "function_call", "call_id": call_id, "name": "tide_table", "arguments": '{"harbour": "Whitby"}'}


def output_item(call_id: str) -> dict[str, Any]:
    return {"type": "function_call_output", "call_id": call_id, "output": "High water 06:12."}


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    yield from serve(Settings())


def openai_refusal(caught: pytest.ExceptionInfo[openai.BadRequestError]) -> tuple[str, str]:
    body: Any = caught.value.body
    assert caught.value.status_code == 400 and set(body) == {"message", "type", "param", "code"}
    assert body["type"] == "invalid_request_error" and body["code"] is None
    return body["message"], body["param"]


# --- the pure check ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "messages",
    [
        [ASKED, chat_call("call_a", "call_b"), chat_result("call_b"), chat_result("call_a")],  # any order
        [ASKED, chat_call("call_a"), chat_result("call_a"), {"role": "assistant", "content": "06:12."}, ASKED],
        [ASKED, {"role": "assistant", "content": "Which harbour?"}, ASKED],
    ],
)
def test_chat_conversations_that_pair_up_pass(messages: list[Any]) -> None:
    pairing.check("chat_completions", {"messages": messages})


def test_chat_unanswered_call_names_the_ids_left_and_the_assistant_message() -> None:
    with pytest.raises(InvalidRequest) as caught:
        pairing.check("chat_completions", {"messages": [ASKED, chat_call("call_p", "call_q"), chat_result("call_q")]})
    assert caught.value.message.endswith("did not have response messages: call_p")
    assert caught.value.param == "messages.[1].role"
    with pytest.raises(InvalidRequest) as interrupted:  # a user message between the call and its result
        pairing.check("chat_completions", {"messages": [ASKED, chat_call("call_r"), ASKED, chat_result("call_r")]})
    assert "call_r" in interrupted.value.message


def test_chat_result_answering_no_call_of_the_message_before() -> None:
    with pytest.raises(InvalidRequest) as orphan:
        pairing.check("chat_completions", {"messages": [ASKED, chat_result("call_z")]})
    assert "must be a response to a preceeding message" in orphan.value.message
    assert orphan.value.param == "messages.[1].role"
    with pytest.raises(InvalidRequest) as stale:  # answers a call of an earlier turn
        messages = [ASKED, chat_call("call_1"), chat_result("call_1"), chat_call("call_2"), chat_result("call_1")]
        pairing.check("chat_completions", {"messages": messages})
    assert stale.value.message.startswith("Invalid parameter: 'tool_call_id' of 'call_1' not found")
    assert stale.value.param == "messages.[4].tool_call_id"


def test_responses_items_pair_by_call_id() -> None:
    pairing.check(
        "responses", {"input": [ASKED, call_item("c1"), call_item("c2"), output_item("c2"), output_item("c1")]}
    )
    with pytest.raises(InvalidRequest) as unanswered:
        pairing.check("responses", {"input": [ASKED, call_item("c1"), call_item("c2"), output_item("c1")]})
    assert (unanswered.value.message, unanswered.value.param) == ("No tool output found for function call c2.", "input")
    with pytest.raises(InvalidRequest) as orphan:  # an output before its call answers nothing
        pairing.check("responses", {"input": [ASKED, output_item("c3"), call_item("c3")]})
    assert orphan.value.message == "No tool call found for function call output with call_id c3."


def test_messages_results_belong_in_the_very_next_message() -> None:
    pairing.check(
        "messages", {"messages": [ASKED, claude_call("toolu_1", "toolu_2"), claude_results("toolu_2", "toolu_1")]}
    )
    with pytest.raises(InvalidRequest) as partial:
        pairing.check("messages", {"messages": [ASKED, claude_call("toolu_1", "toolu_2"), claude_results("toolu_1")]})
    assert partial.value.message.startswith(
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_2."
    )
    late = [ASKED, claude_call("toolu_3"), {"role": "user", "content": "Well?"}, claude_results("toolu_3")]
    with pytest.raises(InvalidRequest) as skipped:
        pairing.check("messages", {"messages": late})
    assert skipped.value.message.startswith("messages.1: `tool_use` ids were found without")
    with pytest.raises(InvalidRequest) as orphan:
        pairing.check("messages", {"messages": [ASKED, claude_results("toolu_9")]})
    assert orphan.value.message.startswith("messages.1.content.0: unexpected `tool_use_id` found in `tool_result`")


# --- through the SDKs, on a real server --------------------------------------------------------------------------


def test_chat_refuses_an_unanswered_call_and_the_seed_profile_does_not(server: Server, gpt: openai.OpenAI) -> None:
    messages: Any = [ASKED, chat_call("call_k1", "call_k2"), chat_result("call_k1")]
    with pytest.raises(openai.BadRequestError) as caught:
        gpt.chat.completions.create(model="gpt-4.1", messages=messages, tools=[TOOL])
    message, param = openai_refusal(caught)
    assert message.endswith("call_k2") and param == "messages.[1].role"
    with server.openai(max_retries=0) as seeded:  # Inferam's upstream says nothing of it: answered
        assert seeded.chat.completions.create(model="gpt-4.1", messages=messages, tools=[TOOL]).choices


def test_responses_continued_past_a_function_call_needs_its_output(gpt: openai.OpenAI) -> None:
    tool: Any = {"type": "function", **TOOL["function"]}
    first = gpt.responses.create(
        model="gpt-5", input="When is high tide at Whitby?", tools=[tool], tool_choice="required"
    )
    called = [item for item in first.output if item.type == "function_call"]
    assert called, first.output
    with pytest.raises(openai.BadRequestError) as caught:
        gpt.responses.create(model="gpt-5", previous_response_id=first.id, input="And at Scarborough?", tools=[tool])
    assert openai_refusal(caught) == (f"No tool output found for function call {called[0].call_id}.", "input")
    answered: Any = [{"type": "function_call_output", "call_id": c.call_id, "output": "06:12"} for c in called]
    later = gpt.responses.create(model="gpt-5", previous_response_id=first.id, input=answered, tools=[tool])
    assert later.output_text


def test_messages_refuse_a_result_with_no_call(claude: anthropic.Anthropic) -> None:
    with pytest.raises(anthropic.BadRequestError) as caught:
        orphan: Any = [ASKED, claude_results("toolu_x")]
        claude.messages.create(model="claude-haiku-4-5", max_tokens=100, messages=orphan)
    body: Any = caught.value.body
    assert body["error"]["type"] == "invalid_request_error"
    assert body["error"]["message"].startswith("messages.1.content.0: unexpected `tool_use_id`")
