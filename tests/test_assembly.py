"""The answer as the client assembled it (emulator/journal/assembly.py), against the official SDKs as the oracle: for
each dialect, whole and streamed, the text, reasoning, tool calls and finish reason the journal's transcript
reads back are the ones the SDK put together from the same bytes."""

from __future__ import annotations

import json
from typing import Any

import pytest

from emulator.journal import assembly
from tests.conftest import Server, call

TOOLS: list[Any] = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]
ANTHROPIC_TOOLS = [{"name": "get_weather", "input_schema": {"type": "object"}}]
SCENARIOS = ["reasoned", "two-calls", "text-then-call", "long"]


def transcript(server: Server, test_id: str) -> dict[str, Any]:
    status, page = call(server.port, "GET", f"/_emulator/requests?test_id={test_id}&bodies=false")
    assert status == 200 and len(page["requests"]) == 1, page
    entry_id = page["requests"][0]["id"]
    status, entry = call(server.port, "GET", f"/_emulator/requests/{entry_id}?transcript=true")
    assert status == 200
    found: dict[str, Any] = entry["transcript"]
    return found


def headers(test_id: str, scenario: str) -> dict[str, str]:
    return {"x-emulator-test-id": test_id, "x-emulator-scenario": scenario}


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_chat_completions_assembled_as_the_sdk_did(server: Server, scenario: str, stream: bool) -> None:
    test_id = f"assembly-chat-{scenario}-{stream}"
    question: list[Any] = [{"role": "user", "content": f"Weather in two cities, {scenario}?"}]
    final: Any
    with server.openai(default_headers=headers(test_id, scenario)) as sdk:
        if stream:
            with sdk.chat.completions.stream(model="m", messages=question, tools=TOOLS, max_tokens=40) as s:
                final = s.get_final_completion()
        else:
            final = sdk.chat.completions.create(model="m", messages=question, tools=TOOLS, max_tokens=40)
    message, read = final.choices[0].message, transcript(server, test_id)
    answer = read["answer"]
    assert answer["text"] == (message.content or "") and answer["complete"]
    assert answer["reasoning"] == (message.model_extra or {}).get("reasoning_content", "")
    calls = [(c.function.name, json.loads(c.function.arguments), c.id) for c in message.tool_calls or ()]
    assert [(c["name"], c["arguments"], c["id"]) for c in answer["tool_calls"]] == calls
    assert answer["finish_reason"] == final.choices[0].finish_reason and answer["id"] == final.id
    asked = [{"role": "user", "parts": [{"type": "text", "text": question[0]["content"]}]}]
    assert read["request"]["messages"] == asked
    assert read["request"]["tools"] == ["get_weather"]


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_responses_assembled_as_the_sdk_did(server: Server, scenario: str, stream: bool) -> None:
    test_id = f"assembly-responses-{scenario}-{stream}"
    tools = [{"type": "function", "name": "get_weather", "parameters": {"type": "object"}, "strict": False}]
    asked: dict[str, Any] = {"model": "m", "input": "Weather, please?", "tools": tools, "max_output_tokens": 40}
    with server.openai(default_headers=headers(test_id, scenario)) as sdk:
        if stream:
            with sdk.responses.stream(**asked) as s:
                final = s.get_final_response()
        else:
            final = sdk.responses.create(**asked)
    answer = transcript(server, test_id)["answer"]
    assert answer["text"] == final.output_text and answer["complete"]
    calls = [(i.name, json.loads(i.arguments), i.call_id) for i in final.output if i.type == "function_call"]
    assert [(c["name"], c["arguments"], c["id"]) for c in answer["tool_calls"]] == calls
    reasoning = [p.text for i in final.output if i.type == "reasoning" for p in i.summary]
    assert answer["reasoning"] == "".join(reasoning)
    details = final.incomplete_details
    assert answer["finish_reason"] == (details.reason if details else final.status) and answer["id"] == final.id


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_messages_assembled_as_the_sdk_did(server: Server, scenario: str, stream: bool) -> None:
    test_id = f"assembly-messages-{scenario}-{stream}"
    asked: dict[str, Any] = {
        "model": "claude-sonnet-4-6",
        "max_tokens": 40,
        "tools": ANTHROPIC_TOOLS,
        "messages": [{"role": "user", "content": [{"type": "text", "text": "Weather, please?"}]}],
    }
    with server.anthropic(default_headers=headers(test_id, scenario)) as sdk:
        if stream:
            with sdk.messages.stream(**asked) as s:
                final = s.get_final_message()
        else:
            final = sdk.messages.create(**asked)
    answer = transcript(server, test_id)["answer"]
    assert answer["text"] == "".join(b.text for b in final.content if b.type == "text") and answer["complete"]
    assert answer["reasoning"] == "".join(b.thinking for b in final.content if b.type == "thinking")
    calls = [(b.name, b.input, b.id) for b in final.content if b.type == "tool_use"]
    assert [(c["name"], c["arguments"], c["id"]) for c in answer["tool_calls"]] == calls
    assert answer["finish_reason"] == final.stop_reason and answer["id"] == final.id
    assert answer["usage"]["output_tokens"] == final.usage.output_tokens


def test_a_stream_cut_off_is_assembled_as_far_as_it_went() -> None:
    events = [
        {"t": 1.0, "data": {"id": "c1", "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Half"}}]}},
        {"t": 2.0, "data": {"id": "c1", "choices": [{"index": 0, "delta": {"content": " a thought"}}]}},
        {"t": 3.0, "data": {"error": {"message": "The server broke off", "type": "server_error"}}},
    ]
    answer = assembly.assemble({"status": 200, "headers": {}, "events": events})
    assert answer is not None
    assert answer["text"] == "Half a thought" and not answer["complete"]
    assert answer["error"] == {"message": "The server broke off", "type": "server_error"}


def test_a_gemini_stream_cut_off_is_assembled_as_far_as_it_went() -> None:
    def chunk(text: str, **more: Any) -> dict[str, Any]:
        return {"candidates": [{"content": {"parts": [{"text": text, **more}], "role": "model"}, "index": 0}]}

    events = [
        {"t": 1.0, "data": chunk("Weighing", thought=True)},
        {"t": 1.5, "data": chunk(" it.", thought=True)},
        {"t": 2.0, "data": chunk("Half", thoughtSignature="c2ln")},
        {"t": 2.5, "data": chunk(" an answer")},
        {"t": 3.0, "data": {"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}}},
    ]
    answer = assembly.assemble({"status": 200, "headers": {}, "events": events})
    assert answer is not None and not answer["complete"]
    assert (answer["reasoning"], answer["text"]) == ("Weighing it.", "Half an answer")
    assert answer["error"] == {"message": "The model is overloaded.", "type": "UNAVAILABLE"}


def test_an_error_body_is_the_answer_error_and_a_pending_answer_is_none() -> None:
    body = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    answer = assembly.assemble({"status": 529, "headers": {}, "body": body})
    assert answer is not None and answer["error"] == {"message": "Overloaded", "type": "overloaded_error"}
    assert assembly.assemble(None) is None


def test_an_error_status_of_an_unknown_shape_is_still_an_error() -> None:
    answer = assembly.assemble({"status": 502, "headers": {}, "body": {"detail": "upstream went away"}})
    assert answer is not None and "upstream went away" in answer["error"]["message"]
    assert "502" in answer["error"]["message"]


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_gemini_assembled_as_the_sdk_did(server: Server, scenario: str, stream: bool) -> None:
    """google-genai joins a stream's chunks into the response `fold` makes: thoughts, text, function calls."""
    from google import genai
    from google.genai import types

    test_id = f"assembly-gemini-{scenario}-{stream}"
    options = types.HttpOptions(base_url=server.base_url, headers=headers(test_id, scenario))
    declared = types.FunctionDeclaration(name="get_weather", parameters_json_schema={"type": "object"})
    config = types.GenerateContentConfig(
        tools=[types.Tool(function_declarations=[declared])],
        system_instruction="Answer briefly.",
        thinking_config=types.ThinkingConfig(include_thoughts=True),
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
    )
    question = f"Weather in two cities, {scenario}?"
    with genai.Client(api_key="k", http_options=options) as sdk:
        if stream:
            chunks = list(sdk.models.generate_content_stream(model="m", contents=question, config=config))
        else:
            chunks = [sdk.models.generate_content(model="m", contents=question, config=config)]
    parts = [p for c in chunks if c.candidates for p in (c.candidates[0].content.parts or [])]
    read = transcript(server, test_id)
    answer = read["answer"]
    assert answer["text"] == "".join(p.text or "" for p in parts if not p.thought) and answer["complete"]
    assert answer["reasoning"] == "".join(p.text or "" for p in parts if p.thought)
    calls = [(p.function_call.name, p.function_call.args) for p in parts if p.function_call]
    assert [(c["name"], c["arguments"]) for c in answer["tool_calls"]] == calls
    finish = chunks[-1].candidates[0].finish_reason
    assert answer["finish_reason"] == (finish.value if finish else None)
    assert answer["id"] == chunks[-1].response_id and answer["model"] == "m"
    asked = [{"role": "user", "parts": [{"type": "text", "text": question}]}]
    assert read["request"] == {"system": "Answer briefly.", "messages": asked, "tools": ["get_weather"]}


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_bedrock_converse_assembled_as_boto3_gave_it(server: Server, scenario: str, stream: bool) -> None:
    """The journal reads AWS's frames back (`delivery.frames`) and `converse.fold` joins them by block index."""
    from contextlib import closing

    from tests.test_bedrock import runtime

    test_id = f"assembly-bedrock-{scenario}-{stream}"
    client = runtime(server, headers=headers(test_id, scenario))
    asked = {
        "modelId": "m",
        "messages": [{"role": "user", "content": [{"text": "Weather, please?"}]}],
        "system": [{"text": "Answer briefly."}],
        "toolConfig": {"tools": [{"toolSpec": {"name": "get_weather", "inputSchema": {"json": {"type": "object"}}}}]},
        "additionalModelRequestFields": {"thinking": {"type": "enabled", "budget_tokens": 1024}},
    }
    with closing(client):
        if stream:
            events = list(client.converse_stream(**asked)["stream"])
            deltas = [e["contentBlockDelta"]["delta"] for e in events if "contentBlockDelta" in e]
            text = "".join(d.get("text", "") for d in deltas)
            reasoning = "".join(d["reasoningContent"].get("text", "") for d in deltas if "reasoningContent" in d)
            starts = [e["contentBlockStart"]["start"]["toolUse"]["name"] for e in events if "contentBlockStart" in e]
            stop = events[-2]["messageStop"]["stopReason"]
        else:
            made = client.converse(**asked)
            content = made["output"]["message"]["content"]
            text = "".join(b.get("text", "") for b in content)
            reasoning = "".join(
                b["reasoningContent"]["reasoningText"]["text"] for b in content if "reasoningContent" in b
            )
            starts = [b["toolUse"]["name"] for b in content if "toolUse" in b]
            stop = made["stopReason"]
    read = transcript(server, test_id)
    answer = read["answer"]
    assert (answer["text"], answer["reasoning"], answer["complete"]) == (text, reasoning, True)
    assert [c["name"] for c in answer["tool_calls"]] == starts and answer["finish_reason"] == stop
    assert read["request"]["system"] == "Answer briefly." and read["request"]["tools"] == ["get_weather"]
    assert read["request"]["messages"] == [{"role": "user", "parts": [{"type": "text", "text": "Weather, please?"}]}]
