"""Responses: a recorded answer, whole or streamed, read back into a `Reply` (for replay), and a stream of
events folded into the `response` it makes (`fold`, which the inspector's `assembly` reads too)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from emulator.core.conversation import FinishReason, Reply, ToolCall
from emulator.core.sse import loads, parsed

INCOMPLETE: dict[str, FinishReason] = {"max_output_tokens": "length", "content_filter": "content_filter"}
TERMINAL = ("response.completed", "response.incomplete", "response.failed")
# Where a delta's text goes: the item's list of parts, and the part a delta starts when none was announced.
_DELTAS = {
    "response.output_text.delta": ("content", "content_index", "output_text"),
    "response.reasoning_text.delta": ("content", "content_index", "reasoning_text"),
    "response.reasoning_summary_text.delta": ("summary", "summary_index", "summary_text"),
}
_PARTS = {
    "response.content_part.added": ("content", "content_index"),
    "response.reasoning_summary_part.added": ("summary", "summary_index"),
}
_PIECES = {"response.function_call_arguments.delta": "arguments", "response.custom_tool_call_input.delta": "input"}


def read_response(body: bytes, stream: bool) -> Reply:
    """A recorded answer (a `Response`, or the stream whose terminal event carries it) back as a `Reply`,
    so that it can answer the same conversation in another dialect. `ValueError` when it is not one."""
    response = fold(parsed(body))[0] if stream else loads(body)
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


def fold(events: Iterable[Mapping[str, Any]]) -> tuple[dict[str, Any], bool]:
    """The `response` a stream's events make, and whether it finished (`response.completed` or `.incomplete`).
    The terminal event's `response` is the last word; before it, the output is built item by item as the SDK
    builds it (`output_item.added`, parts and deltas by index, `output_item.done` replacing the item), so a
    stream cut off reads as far as it went. Events are the journal's `{event, data}`; an `error` event is the
    response's `error`."""
    response: dict[str, Any] = {"id": None, "object": "response", "status": None, "output": []}
    items: dict[Any, dict[str, Any]] = {}  # output_index → item
    finished, terminal = False, None
    for event in events:
        data = event.get("data")
        if not isinstance(data, dict):
            continue
        name = str(event.get("event") or data.get("type") or "")
        if name in ("response.created", "response.in_progress"):
            response |= {k: v for k, v in (data.get("response") or {}).items() if k != "output"}
        elif name in TERMINAL:
            terminal, finished = dict(data.get("response") or {}), name != "response.failed"
        elif name == "error":
            response["error"] = data.get("error") or data
        elif name in ("response.output_item.added", "response.output_item.done"):
            items[data.get("output_index", len(items))] = dict(data.get("item") or {})
        elif (item := _item(items, data)) is None:
            continue
        elif name in _PARTS:
            key, index = _PARTS[name]
            _part(item, key, data.get(index, 0), dict(data.get("part") or {}))
        elif name in _DELTAS:
            key, index, kind = _DELTAS[name]
            part = _part(item, key, data.get(index, 0), {"type": kind, "text": ""})
            part["text"] = part.get("text", "") + data.get("delta", "")
        elif name in _PIECES:
            item[_PIECES[name]] = item.get(_PIECES[name], "") + data.get("delta", "")
    response["output"] = list(items.values())
    if terminal is not None:
        response |= terminal if terminal.get("output") else {k: v for k, v in terminal.items() if k != "output"}
    return response, finished


def _item(items: Mapping[Any, dict[str, Any]], data: Mapping[str, Any]) -> dict[str, Any] | None:
    """The output item a part or delta belongs to: by its `output_index`, else by its `item_id`."""
    if data.get("output_index") in items:
        return items[data["output_index"]]
    return next((i for i in items.values() if i.get("id") is not None and i.get("id") == data.get("item_id")), None)


def _part(item: dict[str, Any], key: str, index: Any, new: dict[str, Any]) -> dict[str, Any]:
    """The item's part at `index` in its `key` list (`content` or `summary`), `new` if there is none yet."""
    parts: list[dict[str, Any]] = list(item.get(key) or ())
    item[key] = parts
    if not isinstance(index, int) or index < 0:
        index = len(parts)
    while len(parts) <= index:
        parts.append(dict(new))
    part = parts[index] = dict(parts[index])
    return part
