"""Chat Completions: a recorded answer, whole or streamed, read back into a `Reply` (for replay)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from emulator.conversation import (
    FINISH_REASONS,
    Reply,
    ToolCall,
)
from emulator.sse import decode, loads


def read_response(body: bytes, stream: bool) -> Reply:
    """A recorded answer (a `chat.completion`, or the SSE stream of its chunks) back as a `Reply`, so that
    it can answer the same conversation in another dialect; the first choice only. `ValueError` when
    the body is not one."""
    if not stream:
        completion = loads(body)
        choice = completion["choices"][0]
        message = choice["message"]
        calls = [(c["id"], c["function"]["name"], c["function"]["arguments"]) for c in message.get("tool_calls") or ()]
        reasoning = message.get("reasoning_content") or message.get("reasoning") or ""
        return _reply(reasoning, message.get("content") or "", calls, choice["finish_reason"], completion.get("usage"))
    reasoning, text, finish, usage = "", "", None, None
    pieces: dict[int, list[str]] = {}  # index → [id, name, arguments]
    for event in decode([body]):
        if event.data == "[DONE]":
            break
        chunk = event.json()
        if "error" in chunk:
            raise ValueError("the recorded stream ends in an error")
        usage = chunk.get("usage") or usage
        for choice in chunk.get("choices") or ():
            if choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta") or {}
            reasoning += delta.get("reasoning_content") or delta.get("reasoning") or ""
            text += delta.get("content") or ""
            for call in delta.get("tool_calls") or ():
                entry = pieces.setdefault(call.get("index", len(pieces)), ["", "", ""])
                function = call.get("function") or {}
                entry[0] = call.get("id") or entry[0]
                entry[1] = function.get("name") or entry[1]
                entry[2] += function.get("arguments") or ""
            finish = choice.get("finish_reason") or finish
    return _reply(reasoning, text, [tuple(pieces[i]) for i in sorted(pieces)], finish, usage)


def _reply(reasoning: str, text: str, calls: list[Any], finish: Any, usage: Mapping[str, Any] | None) -> Reply:
    if finish not in FINISH_REASONS:
        raise ValueError(f"the recorded answer did not finish (finish_reason {finish!r})")
    counts = None
    if usage:
        counts = {
            "input_tokens": usage.get("prompt_tokens", 0),
            "output_tokens": usage.get("completion_tokens", 0),
            "cached_tokens": (usage.get("prompt_tokens_details") or {}).get("cached_tokens") or 0,
            "reasoning_tokens": (usage.get("completion_tokens_details") or {}).get("reasoning_tokens") or 0,
        }
    tool_calls = tuple(ToolCall(id, name, arguments) for id, name, arguments in calls)
    return Reply(reasoning=reasoning, text=text, tool_calls=tool_calls, finish_reason=finish, usage=counts)
