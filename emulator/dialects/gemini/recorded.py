"""A recorded Gemini answer, whole or streamed, read back as the `Reply` it said (for replay in any dialect)."""

from __future__ import annotations

from typing import Any

from emulator.core.conversation import FinishReason, Reply, ToolCall
from emulator.core.sse import dumps, loads

# Gemini's finish reasons as the one model's: a call ends with STOP too; the blocking ones are a content filter.
REASONS: dict[str, FinishReason] = {"STOP": "stop", "MAX_TOKENS": "length"}


def read_response(body: bytes, stream: bool) -> Reply:
    """The thoughts, text and function calls of every chunk (one, when whole), the last finish reason and usage."""
    if stream:
        # Split as bytes: a text's own U+0085 or U+2028 is a line break to `str.splitlines`, not to SSE.
        chunks = [loads(line[5:].strip()) for line in body.splitlines() if line.startswith(b"data:")]
    else:
        chunks = [loads(body)]
    reasoning, text, calls = [], [], []
    finish: str | None = None
    usage: dict[str, Any] = {}
    for chunk in chunks:
        if "error" in chunk:
            raise ValueError(f"the recorded stream broke off with an error: {chunk['error']}")
        for candidate in chunk.get("candidates") or [{}]:
            for part in (candidate.get("content") or {}).get("parts") or []:
                call = part.get("functionCall")
                if call is not None:
                    name = str(call.get("name") or "")
                    calls.append(ToolCall(str(call.get("id") or ""), name, dumps(call.get("args") or {})))
                elif part.get("thought"):
                    reasoning.append(str(part.get("text") or ""))
                else:
                    text.append(str(part.get("text") or ""))
            finish = candidate.get("finishReason") or finish
        usage = chunk.get("usageMetadata") or usage
    if finish is None:
        raise ValueError("the recorded answer has no finish reason: it broke off")
    reason: FinishReason = "tool_calls" if calls and finish == "STOP" else REASONS.get(finish, "content_filter")
    thoughts = int(usage.get("thoughtsTokenCount") or 0)
    counted = {
        "input_tokens": int(usage.get("promptTokenCount") or 0),
        "output_tokens": int(usage.get("candidatesTokenCount") or 0) + thoughts,
        "reasoning_tokens": thoughts,
        "cached_tokens": int(usage.get("cachedContentTokenCount") or 0),
    }
    return Reply("".join(reasoning), "".join(text), tuple(calls), reason, counted)
