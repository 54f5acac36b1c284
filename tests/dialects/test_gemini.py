"""Gemini's generateContent, as a dialect: the request in either field spelling read into the one `Prompt`, the
answer whole and streamed as google-genai's own types take it (they forbid unknown fields), and read back."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest
from google.genai import types
from hypothesis import HealthCheck, given, settings

from emulator.answering.compose import finish
from emulator.core.conversation import Fault, Reply, ToolCall
from emulator.core.errors import InvalidRequest, UpstreamError
from emulator.dialects import gemini
from tests.dialects.test_read_response import replies

KEY = {"x-goog-api-key": "AIza-test"}
# A conversation as google-genai 3.6.1 sends one (reference providers-google.md §2.1's field set, values of ours).
ASKED: dict[str, Any] = {
    "contents": [
        {
            "role": "user",
            "parts": [
                {"text": "Which lighthouse is tallest?"},
                {"inlineData": {"data": "iVBO", "mime_type": "image/png"}},
            ],
        },
        {
            "role": "model",
            "parts": [
                {"text": "I should look it up.", "thought": True},
                {"functionCall": {"name": "find_lighthouse", "args": {"rank": 1}}, "thoughtSignature": "c2ln"},
            ],
        },
        {
            "role": "user",
            "parts": [{"functionResponse": {"name": "find_lighthouse", "response": {"name": "Jeddah Light"}}}],
        },
        {"role": "user", "parts": [{"text": "And how tall is it?"}]},
    ],
    "systemInstruction": {"parts": [{"text": "Answer in one sentence."}], "role": "user"},
    "tools": [
        {
            "functionDeclarations": [
                {
                    "name": "find_lighthouse",
                    "description": "Finds a lighthouse by its height rank.",
                    "parameters": {"type": "OBJECT", "properties": {"rank": {"type": "INTEGER"}}, "required": ["rank"]},
                }
            ]
        }
    ],
    "toolConfig": {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["find_lighthouse"]}},
    "generationConfig": {
        "temperature": 0.3,
        "maxOutputTokens": 300,
        "stopSequences": ["THE END"],
        "thinkingConfig": {"include_thoughts": True, "thinking_budget": 512},
    },
}


def parse(body: dict[str, Any], path: str = "/v1beta/models/gemini-2.5-flash:generateContent") -> Any:
    return gemini.parse_request(gemini.placed(path, body), KEY, "fp")


def test_a_conversation_is_read_into_the_one_prompt() -> None:
    prompt = parse(ASKED)
    assert (prompt.model, prompt.stream, prompt.api_key) == ("gemini-2.5-flash", False, "AIza-test")
    roles = [m.role for m in prompt.messages]
    assert roles == ["system", "user", "assistant", "tool", "user"]
    system, asked, called, result, again = prompt.messages
    assert system.text == "Answer in one sentence." and asked.images == 1
    assert called.reasoning == "I should look it up." and called.text == ""
    assert [(c.name, json.loads(c.arguments)) for c in called.tool_calls] == [("find_lighthouse", {"rank": 1})]
    assert json.loads(result.text) == {"name": "Jeddah Light"} and result.tool_call_id == "find_lighthouse"
    assert again.text == "And how tall is it?"
    (tool,) = prompt.tools
    assert tool.parameters == {"type": "object", "properties": {"rank": {"type": "integer"}}, "required": ["rank"]}
    assert (prompt.tool_choice.mode, prompt.tool_choice.name) == ("required", "find_lighthouse")
    assert (prompt.max_tokens, prompt.stop, prompt.temperature, prompt.reasoning_budget) == (
        300,
        ("THE END",),
        0.3,
        512,
    )
    assert prompt.echo["include_thoughts"] is True


def test_either_spelling_of_a_field_reads_the_same_and_the_path_says_stream() -> None:
    """proto3 JSON takes a field's lowerCamel or proto name; the SDKs and LiteLLM mix them in one body."""
    snake = json.loads(
        json.dumps(ASKED)
        .replace("systemInstruction", "system_instruction")
        .replace("functionDeclarations", "function_declarations")
        .replace("generationConfig", "generation_config")
        .replace("maxOutputTokens", "max_output_tokens")
        .replace("stopSequences", "stop_sequences")
    )
    camel, other = parse(ASKED), parse(snake, "/v1/models/gemini-2.5-flash:streamGenerateContent")
    assert other.stream and replace(other, stream=False, fingerprint="", conversation="") == replace(
        camel, fingerprint="", conversation=""
    )
    assert other.conversation == camel.conversation


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ({}, "contents is not specified"),
        ({"contents": [{"role": "user", "parts": []}]}, "contents.parts must not be empty"),
        ({"contents": [{"role": "assistant", "parts": [{"text": "hi"}]}]}, "Please use a valid role: user, model."),
        ({"contents": [{"role": "user", "parts": [{"thought": True}]}]}, "required oneof field 'data'"),
        ({"contents": "hi"}, "expected a list"),
    ],
)
def test_a_request_the_service_refuses_is_refused_in_its_words(body: dict[str, Any], said: str) -> None:
    with pytest.raises(InvalidRequest) as refused:
        parse(body)
    assert said in refused.value.message
    error = gemini.render_error(refused.value)["error"]
    assert error["code"] == 400 and error["status"] == "INVALID_ARGUMENT"


def _turn(reply: Reply, body: dict[str, Any] | None = None, stream: bool = False) -> tuple[Any, Any]:
    verb = "streamGenerateContent" if stream else "generateContent"
    prompt = parse(body or {"contents": [{"parts": [{"text": "hi"}]}]}, f"/v1/models/gemini-2.5-flash:{verb}")
    return prompt, finish(prompt, reply, created=1)


THOUGHTFUL = {
    "contents": [{"role": "user", "parts": [{"text": "Weather in Paris?"}]}],
    "generationConfig": {"thinkingConfig": {"includeThoughts": True}},
}
CALLING = Reply(
    reasoning="The user wants the weather; I call the tool.",
    text="Let me check.",
    tool_calls=(ToolCall("", "get_weather", '{"city": "Paris"}'), ToolCall("", "get_time", "{}")),
)


def test_a_whole_answer_is_what_the_sdk_reads_thoughts_text_calls_and_usage() -> None:
    prompt, turn = _turn(CALLING, THOUGHTFUL)
    answer = types.GenerateContentResponse.model_validate(gemini.render(prompt, turn))
    (candidate,) = answer.candidates or []
    parts = candidate.content.parts if candidate.content else None
    assert parts is not None and parts[0].thought and parts[0].text == turn.reasoning
    assert parts[1].text == "Let me check." and parts[1].thought_signature  # the first part after the thoughts
    assert answer.text == "Let me check."
    assert [(c.name, c.args) for c in answer.function_calls or []] == [
        ("get_weather", {"city": "Paris"}),
        ("get_time", {}),
    ]
    assert candidate.finish_reason == types.FinishReason.STOP and candidate.finish_message
    usage = answer.usage_metadata
    assert usage is not None and usage.thoughts_token_count == turn.usage.reasoning_tokens
    assert usage.total_token_count == turn.usage.input_tokens + turn.usage.output_tokens
    assert usage.candidates_token_count == turn.usage.output_tokens - turn.usage.reasoning_tokens


def test_thoughts_are_left_out_unless_asked_for_and_a_cut_answer_says_max_tokens() -> None:
    prompt, turn = _turn(Reply(reasoning="Thinking hard.", text="A long answer " * 40))
    answer = types.GenerateContentResponse.model_validate(gemini.render(prompt, turn))
    parts = answer.candidates[0].content.parts
    assert parts is not None and not any(p.thought for p in parts)
    limited = {"contents": [{"parts": [{"text": "hi"}]}], "generationConfig": {"maxOutputTokens": 5}}
    prompt, turn = _turn(Reply(text="A long answer " * 40), limited)
    cut = types.GenerateContentResponse.model_validate(gemini.render(prompt, turn))
    assert cut.candidates[0].finish_reason == types.FinishReason.MAX_TOKENS


def _events(data: bytes) -> list[dict[str, Any]]:
    frames = data.split(b"\r\n\r\n")
    assert frames[-1] == b"" and all(f.startswith(b"data: {") and b"\n" not in f for f in frames[:-1]), data[:200]
    return [json.loads(f[6:]) for f in frames[:-1]]


def test_a_stream_is_data_lines_of_whole_responses_the_last_one_finished() -> None:
    """No event names, comments or [DONE] (the Python SDK fails on each); every chunk a response the SDK's types
    take; the finish reason only on the last, whose usage is the whole answer's."""
    prompt, turn = _turn(CALLING, THOUGHTFUL, stream=True)
    events = _events(b"".join(gemini.render_stream(prompt, turn)))
    chunks = [types.GenerateContentResponse.model_validate(e) for e in events]
    assert [bool(c.candidates[0].finish_reason) for c in chunks] == [False] * (len(chunks) - 1) + [True]
    thought = "".join(p.text or "" for c in chunks for p in c.candidates[0].content.parts if p.thought)
    assert thought == turn.reasoning
    assert "".join(c.text or "" for c in chunks) == "Let me check."
    assert [f.name for c in chunks for f in c.function_calls or []] == ["get_weather", "get_time"]
    assert events[-1]["usageMetadata"] == gemini.render(prompt, turn)["usageMetadata"]
    assert len({e["responseId"] for e in events}) == 1
    totals = [e["usageMetadata"]["totalTokenCount"] for e in events]
    assert totals == sorted(totals)  # cumulative


def test_a_stream_error_breaks_off_with_googles_error_first_in_its_chunk() -> None:
    prompt, turn = _turn(Reply(text="Some words that will not all arrive."), stream=True)
    broken = replace(turn, fault=Fault("stream_error", after_events=2, status=503))
    events = _events(b"".join(gemini.render_stream(prompt, broken)))
    assert len(events) == 3 and list(events[-1]) == ["error"]
    assert events[-1]["error"] == {"code": 503, "message": events[-1]["error"]["message"], "status": "UNAVAILABLE"}
    with pytest.raises(ValueError):
        gemini.read_response(b"".join(gemini.render_stream(prompt, broken)), True)


@pytest.mark.parametrize("delay", [7, 0.25, 90])
def test_a_rate_limit_carries_its_retry_delay_as_google_rpc_retry_info(delay: float) -> None:
    body = gemini.render_error(UpstreamError.of(Fault("status", status=429, retry_after=delay)))["error"]
    assert body["status"] == "RESOURCE_EXHAUSTED" and body["code"] == 429
    assert body["details"] == [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": f"{delay:g}s"}]
    assert body["message"].startswith("You exceeded your current quota") and f"retry in {delay:g}s" in body["message"]
    worded = gemini.render_error(UpstreamError.of(Fault("status", status=429, retry_after=delay, message="Slow down.")))
    assert worded["error"]["message"] == "Slow down." and worded["error"]["details"] == body["details"]
    assert "details" not in gemini.render_error(UpstreamError.of(Fault("status", status=429)))["error"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(reply=replies)
@pytest.mark.parametrize("stream", [False, True])
def test_a_rendered_answer_reads_back_as_its_reply(reply: Reply, stream: bool) -> None:
    prompt, turn = _turn(reply, THOUGHTFUL, stream)
    body = b"".join(gemini.render_stream(prompt, turn)) if stream else json.dumps(gemini.render(prompt, turn)).encode()
    read = gemini.read_response(body, stream)
    assert (read.reasoning, read.text) == (turn.reasoning, turn.text)
    assert [(c.name, json.loads(c.arguments)) for c in read.tool_calls] == [
        (c.name, json.loads(c.arguments) if c.arguments else {}) for c in turn.tool_calls
    ]
    expected = turn.finish_reason  # Gemini ends a call with STOP, as any answer: read back, calls say tool_calls
    if expected in ("stop", "tool_calls"):
        expected = "tool_calls" if turn.tool_calls else "stop"
    assert read.finish_reason == expected
    assert read.usage is not None and read.usage["input_tokens"] == turn.usage.input_tokens
    assert read.usage["output_tokens"] == turn.usage.output_tokens
