"""Bedrock Runtime's Converse and ConverseStream (reference providers-aws-azure-ollama.md §1.3-1.8), as boto3's
`bedrock-runtime` client and the AWS SDK for JavaScript call them: `POST /model/{modelId}/converse` (JSON) and
`/converse-stream` (AWS event-stream frames), the model in the path.

A request's `messages` of content blocks (`text`, `image`, `document`, `toolUse`, `toolResult`,
`reasoningContent`, `cachePoint`), `system`, `inferenceConfig`, `toolConfig` and the model's own fields
(`additionalModelRequestFields.thinking`) are read into a `Prompt`; a `Turn` is rendered as Converse's `output`,
`stopReason`, `usage` and `metrics`, or as the stream's events: `messageStart`, each block's deltas (a tool call's
opened by `contentBlockStart`), `contentBlockStop`, `messageStop`, `metadata`. Errors are `{"message"}` with the
code in `x-amzn-ErrorType`; mid-stream, an exception frame."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from emulator.core import identity, ids, tokens
from emulator.core.conversation import (
    AUTO,
    TEXT,
    FinishReason,
    Message,
    Prompt,
    Reply,
    ResponseFormat,
    Tool,
    ToolCall,
    ToolChoice,
    Turn,
)
from emulator.core.errors import InvalidRequest, UpstreamError
from emulator.core.sse import dumps, loads
from emulator.core.wire import broken_off
from emulator.dialects.bedrock import eventstream
from emulator.dialects.bedrock.errors import error_code as error_code
from emulator.dialects.bedrock.errors import render_error as render_error
from emulator.dialects.bedrock.errors import stream_exception as stream_exception
from emulator.rules import profiles

NAME = profiles.BEDROCK_CONVERSE
STREAM_HEADERS = {"content-type": "application/vnd.amazon.eventstream"}
OPENS = True  # `messageStart` opens the stream before any token
KEEPALIVE = b""  # Bedrock sends nothing while it waits
# A frame its clients read, with broken JSON in it (its checksums whole).
MALFORMED = eventstream.event("contentBlockDelta", b'{"contentBlockIndex":0,"delta":{"te')
STOP_REASONS = {
    "stop": "end_turn",
    "length": "max_tokens",
    "tool_calls": "tool_use",
    "content_filter": "content_filtered",
}
REASONS: dict[str, FinishReason] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "tool_use": "tool_calls",
}
_PATH = re.compile(r"/model/(.+)/(converse|converse-stream|invoke|invoke-with-response-stream|count-tokens)$")
PADDING = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0"  # Bedrock's `p`, a padding of varying length


def placed(path: str, body: Any) -> Any:
    """The body with the model the path names (`/model/{modelId}/converse-stream`, an ARN's `/` decoded) and whether
    the operation streams."""
    found = _PATH.search(path)
    if found is None or type(body) is not dict:
        return body
    return {**body, "modelId": found[1], "stream": found[2].endswith("stream")}


def _invalid(message: str) -> InvalidRequest:
    return InvalidRequest(message, code="ValidationException")


def _objects(value: Any, what: str) -> list[dict[str, Any]]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise _invalid(
            f"1 validation error detected: Value at '{what}' failed to satisfy constraint: a list of objects"
        )
    return value


def parse_request(
    body: Any, headers: Mapping[str, str], fingerprint: str = "", profile: str = profiles.DEFAULT
) -> Prompt:
    if not isinstance(body, dict):
        raise _invalid("The request body must be a JSON object.")
    model = str(body.get("modelId") or "")
    entries = _objects(body.get("messages"), "messages")
    if not entries:
        raise _invalid(
            "A conversation must start with a user message. Try again with a conversation that starts "
            "with a user message."
        )
    messages: list[Message] = [Message("system", text=t) for t in _texts(_objects(body.get("system"), "system"))]
    previous = None
    for index, entry in enumerate(entries):
        role = entry.get("role")
        if role not in ("user", "assistant"):
            raise _invalid(
                f"1 validation error detected: Value '{role}' at 'messages.{index + 1}.member.role' failed "
                "to satisfy constraint: Member must satisfy enum value set: [user, assistant]"
            )
        if index == 0 and role != "user":
            raise _invalid(
                "A conversation must start with a user message. Try again with a conversation that starts "
                "with a user message."
            )
        if role == previous:
            raise _invalid(
                "A conversation must alternate between user and assistant roles. Make sure the "
                "conversation alternates between user and assistant roles and try again."
            )
        previous = role
        messages += _message(role, _objects(entry.get("content"), f"messages.{index + 1}.member.content"))
    given = body.get("inferenceConfig")
    config: dict[str, Any] = given if isinstance(given, dict) else {}
    tools, choice = _tools(body.get("toolConfig"))
    effort, budget = _thinking(body.get("additionalModelRequestFields"))
    shape = _format(body.get("outputConfig"))
    temperature = config.get("temperature") if isinstance(config.get("temperature"), int | float) else None
    stops = config.get("stopSequences")
    stop: list[Any] = stops if isinstance(stops, list) else []
    everything = tuple(messages)
    return Prompt(
        dialect=NAME,
        model=model,
        messages=everything,
        tools=tools,
        tool_choice=choice,
        max_tokens=config.get("maxTokens") if isinstance(config.get("maxTokens"), int) else None,
        effort=effort,
        reasoning_budget=budget,
        stop=tuple(s for s in stop if isinstance(s, str) and s),
        stream=body.get("stream") is True,
        response_format=shape,
        temperature=temperature,
        top_p=config.get("topP") if isinstance(config.get("topP"), int | float) else None,
        api_key=_access_key(headers),
        headers=headers,
        fingerprint=fingerprint,
        conversation=identity.key(model, everything, tools, choice, shape, temperature, None),
        echo={"thinking": effort != "none"},
        profile=profile,
    )


def count_tokens(body: Any, headers: Mapping[str, str], profile: str = profiles.DEFAULT) -> dict[str, int]:
    """CountTokens of a Converse request (`input.converse`): `{"inputTokens"}`, what Converse's usage would say."""
    given = (body.get("input") or {}).get("converse") if isinstance(body, dict) else None
    if not isinstance(given, dict):
        raise _invalid(
            "1 validation error detected: Value at 'input' failed to satisfy constraint: one of converse "
            "or invokeModel must be set"
        )
    asked = {**given, "modelId": body.get("modelId")}
    return {"inputTokens": tokens.prompt_tokens(parse_request(asked, headers, "", profile))}


def _access_key(headers: Mapping[str, str]) -> str:
    """Whose request it is: the access key id a SigV4 signature names (`Credential=AKID/…`), or a bearer key."""
    authorization = headers.get("authorization", "")
    found = re.search(r"Credential=([^/,\s]+)", authorization)
    return found[1] if found else authorization.partition(" ")[2].strip()


def _texts(blocks: list[dict[str, Any]]) -> list[str]:
    return [str(b["text"]) for b in blocks if isinstance(b.get("text"), str)]


def _message(role: str, blocks: list[dict[str, Any]]) -> list[Message]:
    """One message's blocks: a user's text and media, its tool results (each a tool message); an assistant's
    reasoning, text and tool calls."""
    text: list[str] = []
    reasoning: list[str] = []
    calls: list[ToolCall] = []
    results: list[Message] = []
    media = 0
    for block in blocks:
        if isinstance(block.get("text"), str):
            text.append(block["text"])
        elif any(k in block for k in ("image", "document", "video", "audio")):
            media += 1
        elif isinstance(block.get("toolUse"), dict):
            calls.append(_call(block["toolUse"]))
        elif isinstance(block.get("toolResult"), dict):
            result = block["toolResult"]
            given = _objects(result.get("content"), "toolResult.content")
            said = "".join(dumps(c["json"]) if "json" in c else str(c.get("text") or "") for c in given)
            results.append(Message("tool", text=said, tool_call_id=str(result.get("toolUseId") or "")))
        elif isinstance(block.get("reasoningContent"), dict):
            reasoning.append(str(_reasoning(block).get("text") or ""))
    if role == "assistant":
        return [Message("assistant", text="".join(text), reasoning="".join(reasoning), tool_calls=tuple(calls))]
    asked = [Message("user", text="".join(text), images=media)] if text or media or not results else []
    return [*results, *asked]


def _call(use: Mapping[str, Any]) -> ToolCall:
    return ToolCall(str(use.get("toolUseId") or ""), str(use.get("name") or ""), dumps(use.get("input", {})))


def _tools(config: Any) -> tuple[tuple[Tool, ...], ToolChoice]:
    """`toolConfig`: each `toolSpec` (its `inputSchema.json`), and `toolChoice` (`auto`, `any`, `tool`)."""
    if not isinstance(config, dict):
        return (), AUTO
    tools = []
    for item in _objects(config.get("tools"), "toolConfig.tools"):
        spec = item.get("toolSpec")
        if isinstance(spec, dict):
            schema = (spec.get("inputSchema") or {}).get("json")
            tools.append(
                Tool(str(spec.get("name") or ""), description=str(spec.get("description") or ""), parameters=schema)
            )
    given = config.get("toolChoice")
    chosen: dict[str, Any] = given if isinstance(given, dict) else {}
    if "any" in chosen:
        return tuple(tools), ToolChoice("required")
    if isinstance(chosen.get("tool"), dict):
        return tuple(tools), ToolChoice("required", str(chosen["tool"].get("name") or ""))
    return tuple(tools), AUTO


def _thinking(fields: Any) -> tuple[str | None, int | None]:
    """Claude's extended thinking, in the model's own fields (`thinking: {type: enabled, budget_tokens}`, or
    `reasoning_config`): off unless asked for, as Claude is."""
    if not isinstance(fields, dict):
        return "none", None
    thinking = fields.get("thinking") or fields.get("reasoning_config")
    if not isinstance(thinking, dict) or thinking.get("type") not in ("enabled", "adaptive"):
        return "none", None
    budget = thinking.get("budget_tokens")
    return None, budget if isinstance(budget, int) and budget > 0 else None


def _format(config: Any) -> ResponseFormat:
    """`outputConfig.textFormat`: a JSON schema, given as a JSON text (`structure.jsonSchema.schema`)."""
    text = config.get("textFormat") if isinstance(config, dict) else None
    if not isinstance(text, dict) or text.get("type") != "json_schema":
        return TEXT
    given = ((text.get("structure") or {}).get("jsonSchema") or {}).get("schema")
    try:
        schema = loads(given.encode()) if isinstance(given, str) else given
    except ValueError:
        raise _invalid("The JSON schema in outputConfig.textFormat is not valid JSON.") from None
    return ResponseFormat("json_schema", schema) if isinstance(schema, dict) else ResponseFormat("json_object")


# --- the answer ---------------------------------------------------------------------------------------------


def _tool_id(call: ToolCall) -> str:
    return call.id if call.id.startswith("tooluse_") else ids.make("tooluse_", call.id, length=22)


def _usage(turn: Turn) -> dict[str, int]:
    usage = turn.usage
    made = {"inputTokens": usage.input_tokens, "outputTokens": usage.output_tokens}
    made["totalTokens"] = usage.input_tokens + usage.output_tokens
    if usage.cached_tokens:
        made["cacheReadInputTokens"] = usage.cached_tokens
    return made


def latency(turn: Turn) -> int:
    """The answer's latency at its pacing, else a nominal 50 tokens a second."""
    pace = turn.timing
    speed = pace.tokens_per_second if pace and pace.tokens_per_second else 50.0
    before = (pace.latency_ms + pace.ttft_ms) if pace else 300
    return max(1, round(before + turn.usage.output_tokens / speed * 1000))


def _shows_reasoning(prompt: Prompt, turn: Turn) -> bool:
    return bool(turn.reasoning) and prompt.echo.get("thinking") is not False


def render(prompt: Prompt, turn: Turn) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if _shows_reasoning(prompt, turn):
        content.append(
            {"reasoningContent": {"reasoningText": {"text": turn.reasoning, "signature": ids.signature(turn.id)}}}
        )
    if turn.text:
        content.append({"text": turn.text})
    for call in turn.tool_calls:
        content.append({"toolUse": {"toolUseId": _tool_id(call), "name": call.name, "input": call.parsed_arguments()}})
    return {
        "output": {"message": {"role": "assistant", "content": content}},
        "stopReason": _stop(turn),
        "usage": _usage(turn),
        "metrics": {"latencyMs": latency(turn)},
    }


def _stop(turn: Turn) -> str:
    return "stop_sequence" if turn.stop_sequence else STOP_REASONS[turn.finish_reason]


def render_stream(prompt: Prompt, turn: Turn) -> Iterator[bytes]:
    """The stream's frames, made as they are read; a `stream_error` fault ends it with an exception frame."""
    fault = turn.fault
    if fault and fault.kind == "stream_error":
        return broken_off(_events(prompt, turn), fault.after_events, stream_exception(UpstreamError.of(fault)))
    return _events(prompt, turn)


def _event(kind: str, payload: dict[str, Any], count: int) -> bytes:
    return eventstream.event(kind, payload | {"p": PADDING[: 1 + count % len(PADDING)]})


def _delta(index: int, delta: dict[str, Any], count: int) -> bytes:
    return _event("contentBlockDelta", {"contentBlockIndex": index, "delta": delta}, count)


def _events(prompt: Prompt, turn: Turn) -> Iterator[bytes]:
    count = 0
    yield _event("messageStart", {"role": "assistant"}, count)
    index = 0
    if _shows_reasoning(prompt, turn):
        for piece in tokens.pieces(turn.reasoning):
            count += 1
            yield _event(
                "contentBlockDelta", {"contentBlockIndex": index, "delta": {"reasoningContent": {"text": piece}}}, count
            )
        signed = {"contentBlockIndex": index, "delta": {"reasoningContent": {"signature": ids.signature(turn.id)}}}
        yield _event("contentBlockDelta", signed, count)
        yield _event("contentBlockStop", {"contentBlockIndex": index}, count)
        index += 1
    if turn.text:
        for piece in tokens.pieces(turn.text):
            count += 1
            yield _delta(index, {"text": piece}, count)
        yield _event("contentBlockStop", {"contentBlockIndex": index}, count)
        index += 1
    for call in turn.tool_calls:
        start = {"toolUse": {"toolUseId": _tool_id(call), "name": call.name}}
        yield _event("contentBlockStart", {"contentBlockIndex": index, "start": start}, count)
        for piece in tokens.pieces(dumps(call.parsed_arguments())):
            count += 1
            yield _event(
                "contentBlockDelta", {"contentBlockIndex": index, "delta": {"toolUse": {"input": piece}}}, count
            )
        yield _event("contentBlockStop", {"contentBlockIndex": index}, count)
        index += 1
    yield _event("messageStop", {"stopReason": _stop(turn)}, count)
    yield _event("metadata", {"usage": _usage(turn), "metrics": {"latencyMs": latency(turn)}}, count)


# --- a recorded answer --------------------------------------------------------------------------------------


def fold(events: Iterable[Mapping[str, Any]]) -> tuple[dict[str, Any], bool]:
    """The Converse answer a stream's events make, as boto3's callers join them (each block by its index: text and
    reasoning deltas joined, a tool call's input pieces parsed once whole), as far as the stream went, and whether
    it reached `messageStop`. Events are the journal's `{event, data}`; an exception is the answer's `error`."""
    blocks: dict[Any, dict[str, Any]] = {}
    inputs: dict[Any, str] = {}
    answer: dict[str, Any] = {"output": {"message": {"role": "assistant", "content": []}}}
    ended = False
    for event in events:
        data = event.get("data")
        if not isinstance(data, dict):
            continue
        if event.get("exception"):
            answer["error"] = {"message": data.get("message"), "type": event["exception"]}
            continue
        kind, index = event.get("event"), data.get("contentBlockIndex")
        if kind == "contentBlockStart":
            use = (data.get("start") or {}).get("toolUse") or {}
            blocks[index] = {"toolUse": {"toolUseId": use.get("toolUseId"), "name": use.get("name"), "input": {}}}
            inputs[index] = ""
        elif kind == "contentBlockDelta":
            delta = data.get("delta") or {}
            if "text" in delta:
                block = blocks.setdefault(index, {"text": ""})
                block["text"] = block.get("text", "") + str(delta["text"])
            elif "toolUse" in delta:
                inputs[index] = inputs.get(index, "") + str(delta["toolUse"].get("input") or "")
            elif "reasoningContent" in delta:
                given = blocks.setdefault(index, {"reasoningContent": {"reasoningText": {"text": ""}}})
                text = given["reasoningContent"]["reasoningText"]
                text["text"] += str(delta["reasoningContent"].get("text") or "")
                if delta["reasoningContent"].get("signature"):
                    text["signature"] = delta["reasoningContent"]["signature"]
        elif kind == "messageStop":
            answer["stopReason"], ended = data.get("stopReason"), True
        elif kind == "metadata":
            answer["usage"], answer["metrics"] = data.get("usage"), data.get("metrics")
    for index, piece in inputs.items():
        if index in blocks:
            try:
                blocks[index]["toolUse"]["input"] = loads(piece.encode()) if piece else {}
            except ValueError:
                blocks[index]["toolUse"]["input"] = piece
    answer["output"]["message"]["content"] = [blocks[i] for i in sorted(blocks, key=lambda i: (i is None, i or 0))]
    return answer, ended


def read_response(body: bytes, stream: bool) -> Reply:
    """A recorded Converse answer, whole or as frames, read back as the `Reply` it said."""
    if stream:
        events = [
            {"event": h.get(":event-type"), "exception": h.get(":exception-type"), "data": loads(payload)}
            for h, payload in eventstream.messages(body)
        ]
        made, _ = fold(events)
    else:
        made = loads(body)
    if "error" in made or "output" not in made:
        raise ValueError(f"the recorded answer is an error: {made.get('error') or made.get('message')}")
    content = (made["output"].get("message") or {}).get("content") or []
    thought = "".join(str(_reasoning(b).get("text") or "") for b in content)
    said = "".join(str(b.get("text") or "") for b in content)
    used = tuple(_call(b["toolUse"]) for b in content if isinstance(b.get("toolUse"), dict))
    return _reply(thought, said, used, made.get("stopReason"), made.get("usage") or {})


def _reasoning(block: Mapping[str, Any]) -> Mapping[str, Any]:
    given = (block.get("reasoningContent") or {}).get("reasoningText")
    return given if isinstance(given, dict) else {}


def _reply(reasoning: str, text: str, calls: tuple[ToolCall, ...], stop: Any, usage: Mapping[str, Any]) -> Reply:
    if stop is None:
        raise ValueError("the recorded answer has no stop reason: it broke off")
    counted = {
        "input_tokens": int(usage.get("inputTokens") or 0),
        "output_tokens": int(usage.get("outputTokens") or 0),
        "cached_tokens": int(usage.get("cacheReadInputTokens") or 0),
    }
    return Reply(reasoning, text, calls, REASONS.get(str(stop), "content_filter"), counted)
