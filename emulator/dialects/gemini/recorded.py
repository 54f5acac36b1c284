"""A recorded Gemini answer, whole or streamed, read back as the `Reply` it said (for replay in any dialect); a
stream's chunks folded into the `GenerateContentResponse` they make (`fold`, which the inspector's `assembly` reads
too)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from emulator.core.conversation import FinishReason, Reply, ToolCall
from emulator.core.sse import dumps, loads

# Gemini's finish reasons as the one model's: a call ends with STOP too; the blocking ones are a content filter.
REASONS: dict[str, FinishReason] = {"STOP": "stop", "MAX_TOKENS": "length"}


def fold(events: Iterable[Mapping[str, Any]]) -> tuple[dict[str, Any], bool]:
    """The response a stream's chunks make, as the SDKs join them (each chunk's parts after the last's, a text
    part run into the one before it when both are thoughts or both are not; the last finish reason and usage), as
    far as the stream went, and whether it reached a finish reason. Events are the journal's `{event, data}`; an
    error chunk is the response's `error`."""
    parts: list[dict[str, Any]] = []
    candidate: dict[str, Any] = {"content": {"parts": parts, "role": "model"}}
    response: dict[str, Any] = {"candidates": [candidate]}
    for event in events:
        data = event.get("data")
        if not isinstance(data, dict):
            continue
        if "error" in data:
            response["error"] = data["error"]
        for key in ("usageMetadata", "modelVersion", "responseId"):
            if data.get(key):
                response[key] = data[key]
        for given in data.get("candidates") or ():
            if given.get("index", 0) != 0:
                continue
            for part in (given.get("content") or {}).get("parts") or ():
                last = parts[-1] if parts else None
                if last is not None and _runs_on(last, part):
                    last["text"] += part["text"]
                else:
                    parts.append(dict(part))
            if given.get("finishReason"):
                candidate["finishReason"] = given["finishReason"]
    return response, "finishReason" in candidate


def _runs_on(last: Mapping[str, Any], part: Mapping[str, Any]) -> bool:
    """Whether a text part continues the one before it: both text, both thoughts or both not, and not the first
    after the thoughts (which carries their signature)."""
    both = "text" in last and "text" in part and not part.get("thoughtSignature")
    return both and bool(part.get("thought")) == bool(last.get("thought"))


def read_response(body: bytes, stream: bool) -> Reply:
    """The thoughts, text and function calls of every chunk (one, when whole), the last finish reason and usage."""
    if stream:
        # Split as bytes: a text's own U+0085 or U+2028 is a line break to `str.splitlines`, not to SSE.
        chunks = [{"data": loads(line[5:].strip())} for line in body.splitlines() if line.startswith(b"data:")]
        response, _ = fold(chunks)
    else:
        response = loads(body)
    if "error" in response:
        raise ValueError(f"the recorded answer is an error: {response['error']}")
    reasoning, text, calls = [], [], []
    candidate = (response.get("candidates") or [{}])[0]
    for part in (candidate.get("content") or {}).get("parts") or []:
        call = part.get("functionCall")
        if call is not None:
            name = str(call.get("name") or "")
            calls.append(ToolCall(str(call.get("id") or ""), name, dumps(call.get("args") or {})))
        elif part.get("thought"):
            reasoning.append(str(part.get("text") or ""))
        else:
            text.append(str(part.get("text") or ""))
    finish = candidate.get("finishReason")
    if finish is None:
        raise ValueError("the recorded answer has no finish reason: it broke off")
    usage = response.get("usageMetadata") or {}
    reason: FinishReason = "tool_calls" if calls and finish == "STOP" else REASONS.get(finish, "content_filter")
    thoughts = int(usage.get("thoughtsTokenCount") or 0)
    counted = {
        "input_tokens": int(usage.get("promptTokenCount") or 0),
        "output_tokens": int(usage.get("candidatesTokenCount") or 0) + thoughts,
        "reasoning_tokens": thoughts,
        "cached_tokens": int(usage.get("cachedContentTokenCount") or 0),
    }
    return Reply("".join(reasoning), "".join(text), tuple(calls), reason, counted)
