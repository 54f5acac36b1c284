"""Messages: a recorded answer, whole or streamed, read back into a `Reply` (for replay)."""

from __future__ import annotations

from typing import Any

from emulator.conversation import (
    FinishReason,
    Reply,
    ToolCall,
)
from emulator.dialects.anthropic_messages.rendering import STOP_REASONS
from emulator.sse import decode, dumps, loads

FINISH_REASONS: dict[str, FinishReason] = {v: k for k, v in STOP_REASONS.items()} | {"stop_sequence": "stop"}


def read_response(body: bytes, stream: bool) -> Reply:
    """A recorded answer (a `message`, or the event stream that builds one) back as a `Reply`, so that it
    can answer the same conversation in another dialect. `ValueError` when it is not one."""
    message = _folded(body) if stream else loads(body)
    reasoning, text, calls = "", "", []
    for block in message["content"]:
        if block["type"] == "thinking":
            reasoning += block["thinking"]
        elif block["type"] == "text":
            text += block["text"]
        elif block["type"] == "tool_use":
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


def _folded(body: bytes) -> dict[str, Any]:
    """The `message` a Messages event stream builds, as the SDK's accumulator would build it."""
    message: dict[str, Any] = {}
    partial: dict[int, str] = {}  # a tool_use block's input JSON, as its pieces arrive
    for event in decode([body]):
        data = event.json()
        kind = data.get("type")
        if kind == "error":
            raise ValueError("the recorded stream ends in an error")
        if kind == "message_start":
            message = dict(data["message"], content=[])
        elif kind == "content_block_start":
            message["content"].append(dict(data["content_block"]))
        elif kind == "content_block_delta":
            block, delta = message["content"][data["index"]], data["delta"]
            if delta["type"] == "text_delta":
                block["text"] += delta["text"]
            elif delta["type"] == "thinking_delta":
                block["thinking"] += delta["thinking"]
            elif delta["type"] == "input_json_delta":
                partial[data["index"]] = partial.get(data["index"], "") + delta["partial_json"]
        elif kind == "message_delta":
            message.update(data.get("delta") or {})
            message["usage"] = (message.get("usage") or {}) | (data.get("usage") or {})
    for index, text in partial.items():
        message["content"][index]["input"] = loads(text.encode()) if text else {}
    return message
