"""Claude on Bedrock through InvokeModel and InvokeModelWithResponseStream (reference
providers-aws-azure-ollama.md §1.5), as the anthropic SDK's `AnthropicBedrock` and boto3's `invoke_model` send it:
the Messages body, with an `anthropic_version` field (whatever version string the client sends) and the model and
the stream in the path (`/model/{modelId}/invoke-with-response-stream`).

The answer is Anthropic's Messages, with Bedrock's ids (`msg_bdrk_01…`); a stream is AWS event-stream frames, one
`chunk` an Anthropic event (`{"bytes": <its JSON, base64>}`), the last (`message_stop`) with Bedrock's invocation
metrics. Errors are Bedrock's. It reads and renders through the Messages dialect: Messages over Bedrock's transport,
as Azure's deployments are Chat Completions over another path."""

from __future__ import annotations

import base64
from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import Any

from emulator.core.conversation import Prompt, Reply, Turn
from emulator.core.errors import EmulatorError, InvalidRequest, UpstreamError
from emulator.core.sse import dumps, loads
from emulator.core.wire import broken_off
from emulator.dialects import anthropic_messages
from emulator.dialects.bedrock import converse, eventstream
from emulator.rules import bedrock_rules, profiles

NAME = profiles.BEDROCK_INVOKE
STREAM_HEADERS = {
    "content-type": "application/vnd.amazon.eventstream",
    "x-amzn-bedrock-content-type": "application/json",
}
OPENS = True  # `message_start` opens the stream
KEEPALIVE = b""
MALFORMED = eventstream.event("chunk", b'{"bytes":"eyJ0eXBlIjoiY29udGVudF9ibG9ja19kZWx0YSIsImluZGV4IjowLCJk')
render_error = converse.render_error


def placed(path: str, body: Any) -> Any:
    """The body with the model and the stream the path says, as the Messages dialect reads them. Bedrock takes
    them from the path alone: a body that names either, or lacks `anthropic_version`, is its 400 (reference §1.5)."""
    found = converse.placed(path, body)
    if found is body:
        return body
    extraneous = "".join(f"#: extraneous key [{key}] is not permitted" for key in ("stream", "model") if key in body)
    if extraneous or "anthropic_version" not in body:
        raise bedrock_rules.malformed(extraneous or "#: required key [anthropic_version] not found")
    return {**body, "model": found["modelId"], "stream": found["stream"]}


def parse_request(
    body: Any, headers: Mapping[str, str], fingerprint: str = "", profile: str = profiles.DEFAULT
) -> Prompt:
    return anthropic_messages.parse_request(body, headers, fingerprint, profile)


def count_tokens(body: Any, headers: Mapping[str, str], profile: str = profiles.DEFAULT) -> dict[str, int]:
    """CountTokens of an InvokeModel body (`input.invokeModel.body`, the Messages body as base64): `{"inputTokens"}`,
    the `input_tokens` the answer would report."""
    given = (body.get("input") or {}).get("invokeModel") if isinstance(body, dict) else None
    try:
        asked = loads(base64.b64decode(given["body"] if isinstance(given, dict) else ""))
    except (TypeError, KeyError, ValueError):
        asked = None
    if not isinstance(asked, dict):
        raise InvalidRequest(
            "The invokeModel body must be the model's JSON object, base64-encoded.", code="ValidationException"
        )
    counted = anthropic_messages.count_tokens({**asked, "model": body.get("modelId")}, headers, profile)
    return {"inputTokens": counted["input_tokens"]}


def render(prompt: Prompt, turn: Turn) -> dict[str, Any]:
    return anthropic_messages.render(prompt, turn)


def render_stream(prompt: Prompt, turn: Turn) -> Iterator[bytes]:
    """Each Anthropic event as a `chunk` frame, made as they are read; a `stream_error` fault ends the stream with
    Bedrock's exception frame."""
    fault = turn.fault
    chunks = _chunks(prompt, replace(turn, fault=None) if fault else turn, turn)
    if fault and fault.kind == "stream_error":
        return broken_off(chunks, fault.after_events, converse.stream_exception(UpstreamError.of(fault)))
    return chunks


def _chunks(prompt: Prompt, plain: Turn, turn: Turn) -> Iterator[bytes]:
    for piece in anthropic_messages.render_stream(prompt, plain):
        for line in piece.split(b"\n"):
            if not line.startswith(b"data:"):
                continue
            data = loads(line[5:].strip())
            kind = data.get("type")
            if kind == "ping":
                continue
            if kind == "message_stop":
                usage = turn.usage
                data["amazon-bedrock-invocationMetrics"] = {
                    "inputTokenCount": usage.input_tokens,
                    "outputTokenCount": usage.output_tokens,
                    "invocationLatency": converse.latency(turn),
                    "firstByteLatency": (turn.timing.latency_ms + turn.timing.ttft_ms) if turn.timing else 300,
                }
            encoded = base64.b64encode(dumps(data).encode()).decode()
            yield eventstream.event("chunk", {"bytes": encoded, "p": converse.PADDING[: 1 + len(encoded) % 32]})


def read_response(body: bytes, stream: bool) -> Reply:
    """A recorded answer: Messages' JSON whole, or its events out of the `chunk` frames."""
    if not stream:
        return anthropic_messages.read_response(body, False)
    events = []
    for headers, payload in eventstream.messages(body):
        if headers.get(":message-type") != "event":
            raise ValueError(f"the recorded stream broke off with {headers.get(':exception-type')}")
        data = loads(base64.b64decode(loads(payload)["bytes"]))
        events.append(f"event: {data.get('type')}\ndata: {dumps(data)}\n\n".encode())
    return anthropic_messages.read_response(b"".join(events), True)


def error_code(error: EmulatorError) -> str:
    return converse.error_code(error)
