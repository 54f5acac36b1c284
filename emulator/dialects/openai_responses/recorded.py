"""Responses: a recorded answer, whole or streamed, read back into a `Reply` (for replay)."""

from __future__ import annotations

from emulator.conversation import (
    FinishReason,
    Reply,
    ToolCall,
)
from emulator.sse import decode, loads

INCOMPLETE: dict[str, FinishReason] = {"max_output_tokens": "length", "content_filter": "content_filter"}


def read_response(body: bytes, stream: bool) -> Reply:
    """A recorded answer (a `Response`, or the stream whose terminal event carries it) back as a `Reply`,
    so that it can answer the same conversation in another dialect. `ValueError` when it is not one."""
    if stream:
        final = [
            e.json()["response"] for e in decode([body]) if e.event in ("response.completed", "response.incomplete")
        ]
        if not final:
            raise ValueError("the recorded stream has no response.completed or response.incomplete event")
        response = final[-1]
    else:
        response = loads(body)
    reasoning, text, calls = "", "", []
    for item in response["output"]:
        kind = item.get("type")
        if kind == "reasoning":
            parts = item.get("content") or item.get("summary") or ()
            reasoning += "".join(p.get("text", "") for p in parts)
        elif kind == "message":
            text += "".join(p.get("text", "") for p in item.get("content") or () if p.get("type") == "output_text")
        elif kind in ("function_call", "custom_tool_call"):
            arguments = item["arguments"] if kind == "function_call" else item["input"]
            calls.append(
                ToolCall(item["call_id"], item["name"], arguments, "function" if kind == "function_call" else "custom")
            )
    if response.get("status") == "incomplete":
        reason = (response.get("incomplete_details") or {}).get("reason") or ""
        finish: FinishReason = INCOMPLETE.get(reason, "length")
    elif response.get("status") == "completed":
        finish = "tool_calls" if calls else "stop"
    else:
        raise ValueError(f"the recorded response is {response.get('status')!r}, not completed")
    usage = response.get("usage")
    counts = None
    if usage:
        counts = {
            "input_tokens": usage.get("input_tokens", 0),
            "output_tokens": usage.get("output_tokens", 0),
            "cached_tokens": (usage.get("input_tokens_details") or {}).get("cached_tokens") or 0,
            "reasoning_tokens": (usage.get("output_tokens_details") or {}).get("reasoning_tokens") or 0,
        }
    return Reply(reasoning=reasoning, text=text, tool_calls=tuple(calls), finish_reason=finish, usage=counts)
