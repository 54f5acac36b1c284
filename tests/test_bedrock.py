"""Bedrock Runtime as its official clients call it, unmodified, against a real server (reference
providers-aws-azure-ollama.md §1): boto3's `converse` and `converse_stream` (text, a tool loop, reasoning, JSON by a
schema, a throttling retry, an exception frame mid-stream), its `invoke_model` for Claude, and the anthropic SDK's
`AnthropicBedrock`; the frames byte for byte against the reference's captured one and botocore's own parser."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import closing
from typing import Any

import anthropic
import boto3
import pytest
from botocore.config import Config
from botocore.eventstream import EventStreamBuffer
from botocore.exceptions import ClientError, EventStreamError

from emulator.dialects.bedrock import eventstream
from tests import browser
from tests.conftest import Server, call

CLAUDE = "anthropic.claude-sonnet-4-5-20250929-v1:0"
PROFILE_ARN = "arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-sonnet-4-5-v1:0"
WEATHER = {
    "tools": [
        {
            "toolSpec": {
                "name": "get_weather",
                "description": "The weather now in a city",
                "inputSchema": {
                    "json": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
                },
            }
        }
    ]
}


def runtime(
    server: Server, where: str = "", retries: int = 1, headers: dict[str, str] | None = None, region: str = "us-east-1"
) -> Any:
    """boto3's bedrock-runtime client at the emulator, signing with made-up credentials for `region`; `retries`
    attempts in all (standard mode, boto3's default), `headers` added to every request."""
    made = boto3.client(
        "bedrock-runtime",
        endpoint_url=f"{server.base_url}{where}",
        region_name=region,
        aws_access_key_id="AKIDEXAMPLE",
        aws_secret_access_key="made-up-secret",
        config=Config(retries={"mode": "standard", "total_max_attempts": retries}),
    )
    for name, value in (headers or {}).items():
        made.meta.events.register_first("before-sign.*.*", _adding(name, value))
    return made


def _adding(name: str, value: str) -> Any:
    def add(request: Any, **_: Any) -> None:
        request.headers[name] = value

    return add


@pytest.fixture
def bedrock(server: Server) -> Iterator[Any]:
    made = runtime(server)
    yield made
    made.close()


def user(text: str) -> list[dict[str, Any]]:
    return [{"role": "user", "content": [{"text": text}]}]


def test_a_frame_is_byte_for_byte_the_references_captured_one() -> None:
    """§1.6's `messageStart` frame, 118 bytes, as botocore accepted it."""
    captured = bytes.fromhex(
        "00000076000000529 6d5fade0b3a6576656e742d74797065070 00c6d657373616765537461727"
        "40d3a636f6e74656e742d747970650700106170706c69636174696f6e2f6a736f6e0d3a6d6573736167"
        "652d747970650700056576656e747b22726f6c65223a22617373697374616e74227d6fa8c599".replace(" ", "")
    )
    made = eventstream.event("messageStart", {"role": "assistant"})
    assert made == captured and len(made) == 118
    buffer = EventStreamBuffer()
    buffer.add_data(made + eventstream.exception("throttlingException", "Too many tokens"))
    read = [(m.headers, m.payload) for m in buffer]
    assert read[0] == (
        {":event-type": "messageStart", ":content-type": "application/json", ":message-type": "event"},
        b'{"role":"assistant"}',
    )
    assert read[1][0][":exception-type"] == "throttlingException"
    assert list(eventstream.messages(made)) == read[:1]


@pytest.mark.parametrize("where", ["", "/bedrock"])
@pytest.mark.parametrize("model", [CLAUDE, PROFILE_ARN, "amazon.nova-pro-v1:0"])
def test_converse_whole_and_streamed_say_the_same(server: Server, where: str, model: str) -> None:
    with closing(runtime(server, where)) as client:
        whole = client.converse(modelId=model, messages=user("Why is the sea salty?"))
        streamed = client.converse_stream(modelId=model, messages=user("Why is the sea salty?"))
        events = list(streamed["stream"])
    text = "".join(b["text"] for b in whole["output"]["message"]["content"] if "text" in b)
    assert text and whole["stopReason"] == "end_turn"
    usage = whole["usage"]
    assert usage["totalTokens"] == usage["inputTokens"] + usage["outputTokens"] and whole["metrics"]["latencyMs"] > 0
    kinds = [next(iter(e)) for e in events]
    assert kinds[0] == "messageStart" and kinds[-2:] == ["messageStop", "metadata"]
    deltas = [e["contentBlockDelta"]["delta"]["text"] for e in events if "contentBlockDelta" in e]
    assert "".join(deltas) == text
    assert events[-1]["metadata"]["usage"] == usage
    assert streamed["ResponseMetadata"]["HTTPHeaders"]["content-type"] == "application/vnd.amazon.eventstream"


def test_a_tool_loop_runs_to_its_end(bedrock: Any) -> None:
    """The `weather-agent` scenario: a call with the city, then, given its result, the answer."""
    asked = user("What is the weather in Paris?")
    first = bedrock.converse(modelId=CLAUDE, messages=asked, toolConfig=WEATHER)
    assert first["stopReason"] == "tool_use"
    (use,) = [b["toolUse"] for b in first["output"]["message"]["content"] if "toolUse" in b]
    assert use["name"] == "get_weather" and use["input"] == {"city": "Paris"}
    assert use["toolUseId"].startswith("tooluse_")
    result = {"toolResult": {"toolUseId": use["toolUseId"], "content": [{"json": {"c": 18}}], "status": "success"}}
    history = [*asked, first["output"]["message"], {"role": "user", "content": [result]}]
    final = bedrock.converse_stream(modelId=CLAUDE, messages=history, toolConfig=WEATHER)
    events = list(final["stream"])
    text = "".join(e["contentBlockDelta"]["delta"].get("text", "") for e in events if "contentBlockDelta" in e)
    assert text == "It is 18 °C and sunny in Paris."
    assert events[-2]["messageStop"]["stopReason"] == "end_turn"


def test_a_streamed_call_opens_its_block_and_its_input_comes_in_pieces(bedrock: Any) -> None:
    streamed = bedrock.converse_stream(
        modelId=CLAUDE, messages=user("What is the weather in Paris?"), toolConfig=WEATHER
    )
    events = list(streamed["stream"])
    (start,) = [e["contentBlockStart"] for e in events if "contentBlockStart" in e]
    assert start["start"]["toolUse"]["name"] == "get_weather"
    index = start["contentBlockIndex"]
    pieces = [
        e["contentBlockDelta"]["delta"]["toolUse"]["input"]
        for e in events
        if "contentBlockDelta" in e and e["contentBlockDelta"]["contentBlockIndex"] == index
    ]
    assert json.loads("".join(pieces)) == {"city": "Paris"}
    assert events[-2]["messageStop"]["stopReason"] == "tool_use"


def test_reasoning_only_when_thinking_is_asked_for(bedrock: Any) -> None:
    thinking = {"thinking": {"type": "enabled", "budget_tokens": 1024}}
    shown = bedrock.converse(
        modelId=CLAUDE, messages=user("Is 91 a prime number?"), additionalModelRequestFields=thinking
    )
    first = shown["output"]["message"]["content"][0]["reasoningContent"]["reasoningText"]
    assert first["text"] and first["signature"]
    streamed = bedrock.converse_stream(
        modelId=CLAUDE, messages=user("Is 91 a prime number?"), additionalModelRequestFields=thinking
    )
    deltas = [e["contentBlockDelta"]["delta"] for e in streamed["stream"] if "contentBlockDelta" in e]
    reasoning = [d["reasoningContent"] for d in deltas if "reasoningContent" in d]
    assert "".join(r.get("text", "") for r in reasoning) == first["text"]
    assert list(reasoning[-1]) == ["signature"] and reasoning[-1]["signature"]  # it closes the reasoning block
    plain = bedrock.converse(modelId=CLAUDE, messages=user("Is 91 a prime number?"))
    assert not any("reasoningContent" in b for b in plain["output"]["message"]["content"])


def test_json_by_a_schema_and_a_token_limit(bedrock: Any) -> None:
    schema = {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}}}
    schema["required"] = ["name", "age"]
    text_format = {"type": "json_schema", "structure": {"jsonSchema": {"schema": json.dumps(schema), "name": "p"}}}
    made = bedrock.converse(
        modelId=CLAUDE, messages=user("Describe a person"), outputConfig={"textFormat": text_format}
    )
    answer = json.loads(made["output"]["message"]["content"][0]["text"])
    assert isinstance(answer["name"], str) and isinstance(answer["age"], int)
    cut = bedrock.converse(
        modelId=CLAUDE, messages=user("Tell me about the history of Rome"), inferenceConfig={"maxTokens": 7}
    )
    assert cut["stopReason"] == "max_tokens" and cut["usage"]["outputTokens"] == 7


@pytest.mark.parametrize(
    ("messages", "words"),
    [
        ([{"role": "assistant", "content": [{"text": "hi"}]}], "must start with a user message"),
        (user("a") + user("b"), "must alternate between user and assistant roles"),
        ([{"role": "bogus", "content": [{"text": "hi"}]}], "Member must satisfy enum value set: [user, assistant]"),
    ],
    ids=["assistant-first", "two-users", "bad-role"],
)
def test_bad_conversations_are_validation_exceptions(bedrock: Any, messages: Any, words: str) -> None:
    with pytest.raises(ClientError) as refused:
        bedrock.converse(modelId=CLAUDE, messages=messages)
    error = refused.value.response
    assert error["Error"]["Code"] == "ValidationException" and words in error["Error"]["Message"]
    assert error["ResponseMetadata"]["HTTPStatusCode"] == 400


def test_a_throttled_call_is_retried_by_botocores_standard_mode(server: Server, test_id: str) -> None:
    """The `flaky` scenario refuses twice with a 429, then answers: boto3's three attempts are enough; with one,
    the client raises `ThrottlingException`."""
    scenario = {"x-emulator-scenario": "flaky"}
    with closing(runtime(server, retries=3, headers=scenario | {"x-emulator-test-id": test_id})) as patient:
        answer = patient.converse(modelId=CLAUDE, messages=user("hi"))
    assert answer["output"]["message"]["content"][0]["text"] == "third time lucky"
    once = runtime(server, headers=scenario | {"x-emulator-test-id": f"{test_id}-once"})
    with closing(once), pytest.raises(ClientError) as refused:
        once.converse(modelId=CLAUDE, messages=user("hi"))
    assert refused.value.response["Error"]["Code"] == "ThrottlingException"
    assert refused.value.response["ResponseMetadata"]["HTTPStatusCode"] == 429


@pytest.mark.parametrize(
    ("status", "code"),
    [(429, "throttlingException"), (500, "modelStreamErrorException"), (503, "serviceUnavailableException")],
)
def test_an_exception_frame_mid_stream_raises_as_botocore_names_it(server: Server, status: int, code: str) -> None:
    fault = {"x-emulator-fault": f"stream_error; after_events=3; status={status}"}
    with closing(runtime(server, headers=fault)) as client:
        streamed = client.converse_stream(modelId=CLAUDE, messages=user("Why is the sea salty?"))
        seen = []
        with closing(streamed["stream"]), pytest.raises(EventStreamError) as broken:
            for event in streamed["stream"]:
                seen.append(event)
    assert len(seen) == 3 and broken.value.response["Error"]["Code"] == code


def test_a_request_not_signed_is_refused_as_aws_refuses_it(server: Server) -> None:
    body = {"messages": user("hi")}
    status, answer = call(server.port, "POST", f"/model/{CLAUDE}/converse", body)
    assert status == 403 and answer == {"message": "Missing Authentication Token"}
    status, answer = call(server.port, "POST", f"/model/{CLAUDE}/converse", body, {"authorization": "AWS4 nonsense"})
    assert status == 403 and "Signature" in answer["message"]
    status, _ = call(server.port, "POST", f"/model/{CLAUDE}/converse", body, {"authorization": "Bearer bedrock-key"})
    assert status == 200  # a Bedrock API key


def test_invoke_model_speaks_claudes_messages(server: Server, test_id: str) -> None:
    bedrock = runtime(server, headers={"x-emulator-test-id": test_id})
    body = {
        "anthropic_version": "bedrock-2023-05-31",
        "max_tokens": 200,
        "messages": [{"role": "user", "content": "hi"}],
    }
    whole = bedrock.invoke_model(modelId=CLAUDE, body=json.dumps(body))
    message = json.loads(whole["body"].read())
    assert message["id"].startswith("msg_bdrk_01") and message["type"] == "message" and message["content"]
    streamed = bedrock.invoke_model_with_response_stream(modelId=CLAUDE, body=json.dumps(body))
    chunks = [json.loads(e["chunk"]["bytes"]) for e in streamed["body"]]
    assert [c["type"] for c in chunks][0] == "message_start" and chunks[-1]["type"] == "message_stop"
    metrics = chunks[-1]["amazon-bedrock-invocationMetrics"]
    assert metrics["outputTokenCount"] == message["usage"]["output_tokens"]
    text = "".join(c["delta"].get("text", "") for c in chunks if c["type"] == "content_block_delta")
    assert text == message["content"][0]["text"]
    bedrock.close()
    # The journal reads the chunks back as the Anthropic events they carry, and assembles them as Messages.
    status, page = call(server.port, "GET", f"/_emulator/requests?test_id={test_id}&bodies=false")
    streamed_entry = page["requests"][-1]["id"]
    status, entry = call(server.port, "GET", f"/_emulator/requests/{streamed_entry}?transcript=true")
    assert entry["response"]["events"][0]["event"] == "message_start"
    assert entry["transcript"]["answer"]["text"] == text and entry["transcript"]["answer"]["complete"]


def test_anthropic_bedrock_creates_and_streams_messages(server: Server) -> None:
    with anthropic.AnthropicBedrock(
        aws_access_key="AKIDEXAMPLE",
        aws_secret_key="made-up",
        aws_region="us-east-1",
        base_url=server.base_url,
        max_retries=0,
    ) as claude:
        tools: Any = [
            {"name": "get_weather", "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}}}
        ]
        asked: Any = [{"role": "user", "content": "What is the weather in Paris?"}]
        made = claude.messages.create(model=CLAUDE, max_tokens=300, messages=asked, tools=tools)
        (use,) = [b for b in made.content if b.type == "tool_use"]
        assert use.input == {"city": "Paris"} and use.id.startswith("toolu_bdrk_01") and made.stop_reason == "tool_use"
        with claude.messages.stream(model=CLAUDE, max_tokens=300, messages=asked, tools=tools) as stream:
            final = stream.get_final_message()
        calls = [(b.name, b.input) for b in final.content if b.type == "tool_use"]
        assert calls == [(use.name, use.input)] and final.usage.output_tokens == made.usage.output_tokens
        refusing = claude.with_options(default_headers={"x-emulator-fault": "status=429"})
        with pytest.raises(anthropic.RateLimitError):
            refusing.messages.create(model=CLAUDE, max_tokens=50, messages=[{"role": "user", "content": "hi"}])


JS = """
const { BedrockRuntimeClient, ConverseCommand, ConverseStreamCommand } = require("@aws-sdk/client-bedrock-runtime");
const { NodeHttpHandler } = require("@smithy/node-http-handler");
(async () => {
  // Its default handler speaks HTTP/2; against an HTTP/1.1 server it needs this one (reference §1.2).
  const client = new BedrockRuntimeClient({
    endpoint: process.argv[1], region: "us-east-1", requestHandler: new NodeHttpHandler(),
    credentials: { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "made-up" },
  });
  const modelId = "anthropic.claude-sonnet-4-5-20250929-v1:0";
  const messages = [{ role: "user", content: [{ text: "Why is the sky blue?" }] }];
  const whole = await client.send(new ConverseCommand({ modelId, messages }));
  const streamed = await client.send(new ConverseStreamCommand({ modelId, messages }));
  let text = "", stop = null;
  for await (const event of streamed.stream) {
    if (event.contentBlockDelta) text += event.contentBlockDelta.delta.text ?? "";
    if (event.messageStop) stop = event.messageStop.stopReason;
  }
  const toolConfig = { tools: [{ toolSpec: { name: "get_weather", inputSchema: { json: { type: "object" } } } }] };
  const called = await client.send(new ConverseCommand({
    modelId, messages: [{ role: "user", content: [{ text: "What is the weather in Paris?" }] }], toolConfig }));
  let refused = null;
  try {
    await client.send(new ConverseCommand({ modelId, messages: [{ role: "assistant", content: [{ text: "x" }] }] }));
  } catch (e) { refused = e.name; }
  console.log(JSON.stringify({
    whole: whole.output.message.content[0].text, streamed: text, stop,
    call: called.output.message.content.find((b) => b.toolUse).toolUse, refused,
  }));
})().catch((e) => { console.error(e); process.exit(1); });
"""
JS_BEDROCK = {"@aws-sdk/client-bedrock-runtime": "3.1178.0", "@smithy/node-http-handler": "4.14.2"}


def test_the_aws_sdk_for_javascript(server: Server) -> None:
    ran = browser.run_node(JS, server.base_url, pinned=JS_BEDROCK)
    assert ran["whole"] and ran["streamed"] == ran["whole"] and ran["stop"] == "end_turn"
    assert ran["call"]["name"] == "get_weather" and ran["call"]["input"] == {"city": "Paris"}
    assert ran["refused"] == "ValidationException"


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        ({"model": "x"}, "#: extraneous key [model] is not permitted"),
        ({"stream": True}, "#: extraneous key [stream] is not permitted"),
        ({"anthropic_version": None}, "#: required key [anthropic_version] not found"),
    ],
    ids=["model", "stream", "no-version"],
)
def test_invoke_model_takes_the_model_and_the_stream_from_the_path_alone(
    server: Server, extra: dict[str, Any], words: str
) -> None:
    body = {
        "anthropic_version": "bedrock-2023-05-31",
        "max_tokens": 50,
        "messages": [{"role": "user", "content": "hi"}],
    }
    body = {k: v for k, v in (body | extra).items() if v is not None}
    status, answer = call(server.port, "POST", f"/model/{CLAUDE}/invoke", body, {"authorization": "Bearer key"})
    assert status == 400 and answer["message"].startswith("Malformed input request: ") and words in answer["message"]


def test_count_tokens_is_what_the_answer_reports(bedrock: Any) -> None:
    """CountTokens of a Converse body and of an InvokeModel body: the input tokens each operation reports."""
    asked = user("Plan a three-day trip to Lisbon on a budget")
    counted = bedrock.count_tokens(modelId=CLAUDE, input={"converse": {"messages": asked, "toolConfig": WEATHER}})
    answered = bedrock.converse(modelId=CLAUDE, messages=asked, toolConfig=WEATHER)
    assert counted["inputTokens"] == answered["usage"]["inputTokens"] > 0
    body = {
        "anthropic_version": "bedrock-2023-05-31",
        "max_tokens": 50,
        "messages": [{"role": "user", "content": "hi"}],
    }
    counted = bedrock.count_tokens(modelId=CLAUDE, input={"invokeModel": {"body": json.dumps(body).encode()}})
    message = json.loads(bedrock.invoke_model(modelId=CLAUDE, body=json.dumps(body))["body"].read())
    assert counted["inputTokens"] == message["usage"]["input_tokens"]
