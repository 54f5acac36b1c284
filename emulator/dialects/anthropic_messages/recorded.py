"""Messages: a recorded answer, whole or streamed, read back into a `Reply` (for replay), and an event stream
folded into the `message` it makes (`fold`, which the inspector's `assembly` reads too)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from emulator.core.conversation import FinishReason, Reply, ToolCall
from emulator.core.sse import dumps, loads, parsed
from emulator.dialects.anthropic_messages.rendering import STOP_REASONS

FINISH_REASONS: dict[str, FinishReason] = {v: k for k, v in STOP_REASONS.items()} | {"stop_sequence": "stop"}
# A delta's text and the block field it extends (`input_json_delta` pieces are joined apart, then parsed).
_DELTAS = {"text_delta": "text", "thinking_delta": "thinking", "signature_delta": "signature"}


def read_response(body: bytes, stream: bool) -> Reply:
    """A recorded answer (a `message`, or the event stream that builds one) back as a `Reply`, so that it
    can answer the same conversation in another dialect. `ValueError` when it is not one."""
    message = fold(parsed(body))[0] if stream else loads(body)
    if "error" in message:
        raise ValueError("the recorded answer is an error")
    reasoning, text, calls = "", "", []
    for block in message["content"]:
        if block["type"] == "thinking":
            reasoning += block["thinking"]
        elif block["type"] == "text":
            text += block["text"]
        elif block["type"] == "tool_use":
            if not isinstance(block["input"], dict):
                raise ValueError(f"the recorded tool_use block's input is not a JSON object: {block['input']!r}")
            calls.append(ToolCall(block["id"], block["name"], dumps(block["input"])))
    finish = FINISH_REASONS.get(message.get("stop_reason") or "")
    if finish is None:
        raise ValueError(f"the recorded message did not finish (stop_reason {message.get('stop_reason')!r})")
    usage = message.get("usage")
    counts = None
    if usage:
        cached = usage.get("cache_read_input_tokens") or 0
        counts = {
            "input_tokens": usage.get("input_tokens", 0) + cached + (usage.get("cache_creation_input_tokens") or 0),
            "output_tokens": usage.get("output_tokens", 0),
            "cached_tokens": cached,
        }
    return Reply(reasoning=reasoning, text=text, tool_calls=tuple(calls), finish_reason=finish, usage=counts)


def fold(events: Iterable[Mapping[str, Any]]) -> tuple[dict[str, Any], bool]:
    """The `message` an event stream builds, as the SDK's accumulator builds it (blocks by `index`, a tool's input
    from its `input_json_delta` pieces), as far as the stream went, and whether it reached `message_stop`. Events
    are the journal's `{event, data}`; an `error` event is the message's `error`. A tool input cut off mid-way
    stays the text it was."""
    message: dict[str, Any] = {"id": None, "type": "message", "role": "assistant", "model": None}
    blocks: dict[Any, dict[str, Any]] = {}
    partial: dict[Any, str] = {}  # a tool_use block's input JSON, as its pieces arrive
    error, stopped = None, False
    for event in events:
        data = event.get("data")
        if not isinstance(data, dict):
            continue
        kind = data.get("type") or event.get("event")
        if kind == "error":
            error = data.get("error") or data
        elif kind == "message_start":
            message |= {k: v for k, v in (data.get("message") or {}).items() if k != "content"}
        elif kind == "content_block_start":
            blocks[data.get("index", len(blocks))] = dict(data.get("content_block") or {})
        elif kind == "content_block_delta" and data.get("index") in blocks:
            block, delta = blocks[data["index"]], data.get("delta") or {}
            if delta.get("type") == "input_json_delta":
                partial[data["index"]] = partial.get(data["index"], "") + delta.get("partial_json", "")
            elif field := _DELTAS.get(delta.get("type") or ""):
                block[field] = block.get(field, "") + delta.get(field, "")
        elif kind == "message_delta":
            message |= data.get("delta") or {}
            message["usage"] = (message.get("usage") or {}) | (data.get("usage") or {})
        elif kind == "message_stop":
            stopped = True
    for index, text in partial.items():
        try:
            blocks[index]["input"] = loads(text.encode()) if text else {}
        except ValueError:
            blocks[index]["input"] = text
    message["content"] = list(blocks.values())
    if error is not None:
        message["error"] = error
    return message, stopped
