"""Chat Completions: a recorded answer, whole or streamed, read back into a `Reply` (for replay), and a stream
of chunks folded into the `chat.completion` it makes (`fold`, which the inspector's `assembly` reads too)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from emulator.core.conversation import FINISH_REASONS, Reply, ToolCall
from emulator.core.sse import loads, parsed


def read_response(body: bytes, stream: bool) -> Reply:
    """A recorded answer (a `chat.completion`, or the SSE stream of its chunks) back as a `Reply`, so that
    it can answer the same conversation in another dialect; the first choice only. `ValueError` when
    the body is not one."""
    completion = fold(parsed(body))[0] if stream else loads(body)
    if "error" in completion:
        raise ValueError("the recorded answer is an error")
    choice = completion["choices"][0]
    message = choice["message"]
    calls = [(c["id"], c["function"]["name"], c["function"]["arguments"]) for c in message.get("tool_calls") or ()]
    reasoning = message.get("reasoning_content") or message.get("reasoning") or ""
    return _reply(reasoning, message.get("content") or "", calls, choice["finish_reason"], completion.get("usage"))


def fold(events: Iterable[Mapping[str, Any]]) -> tuple[dict[str, Any], bool]:
    """The `chat.completion` a stream's chunks make (its first choice; tool calls joined by `index`, the id and
    name coming once and the arguments in pieces, as the SDK joins them), as far as the stream went, and whether
    it reached `[DONE]`. Events are the journal's `{event, data}`; an error chunk is the completion's `error`."""
    message: dict[str, Any] = {"role": "assistant", "content": "", "reasoning_content": ""}
    choice: dict[str, Any] = {"index": 0, "message": message, "finish_reason": None}
    completion: dict[str, Any] = {"id": None, "object": "chat.completion", "model": None, "choices": [choice]}
    calls: dict[Any, dict[str, Any]] = {}
    done = False
    for event in events:
        data = event.get("data")
        if data == "[DONE]":
            done = True
        if not isinstance(data, dict):
            continue
        if "error" in data:
            completion["error"] = data["error"]
        for key in ("id", "model"):
            completion[key] = completion[key] or data.get(key)
        if data.get("usage"):
            completion["usage"] = data["usage"]
        for part in data.get("choices") or ():
            if part.get("index", 0) != 0:
                continue
            delta = part.get("delta") or {"content": part.get("text")}  # a legacy completion's chunk: its `text`
            message["content"] += delta.get("content") or ""
            message["reasoning_content"] += delta.get("reasoning_content") or delta.get("reasoning") or ""
            for piece in delta.get("tool_calls") or ():
                call = calls.setdefault(piece.get("index", len(calls)), _call())
                function = piece.get("function") or {}
                call["id"] = piece.get("id") or call["id"]
                call["function"]["name"] = call["function"]["name"] or function.get("name")
                call["function"]["arguments"] += function.get("arguments") or ""
            choice["finish_reason"] = part.get("finish_reason") or choice["finish_reason"]
    if calls:
        message["tool_calls"] = list(calls.values())
    return completion, done


def _call() -> dict[str, Any]:
    return {"id": None, "type": "function", "function": {"name": None, "arguments": ""}}


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
