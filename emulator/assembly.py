"""The answer of a journal entry as its client assembled it, in any of the three dialects, whole or streamed:
`{text, reasoning, tool_calls, usage, finish_reason, id, model, error, complete}`.

A stream is joined the way the SDKs join it: Chat Completions deltas by tool call `index` (the id and name
come once, the arguments in pieces); Responses deltas by output item, each item's `output_item.done` being
the last word on it and the terminal event's `response` on usage and status; Messages deltas by content
block `index`, `input_json_delta` pieces making a tool's input. `complete` says whether the stream reached its
end (`[DONE]`, `response.completed`/`incomplete`, `message_stop`): a stream cut off is assembled as far as it
went, which is what the client had read when it broke. An error (an error status's body, or one in the
stream) is `error`, `{message, type}`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from emulator.transcript import parsed

Assembled = dict[str, Any]
TERMINAL = ("response.completed", "response.incomplete", "response.failed")


def assemble(answer: Mapping[str, Any] | None) -> Assembled | None:
    """The answer (a journal view's `response`) as the client assembled it; None while it is being delivered."""
    if answer is None:
        return None
    out: Assembled = {"text": "", "reasoning": "", "tool_calls": [], "usage": None, "finish_reason": None}
    out |= {"id": None, "model": None, "error": None, "complete": True}
    if "events" in answer:
        out["complete"] = False
        calls: dict[Any, dict[str, Any]] = {}
        for event in answer["events"]:
            data = event.get("data")
            if data == "[DONE]":
                out["complete"] = True
            elif isinstance(data, dict):
                _event(out, calls, str(event.get("event") or data.get("type") or ""), data)
        out["tool_calls"] = [_finished(c) for c in calls.values()]
        out["reasoning"] = out["reasoning"] or out.pop("raw_reasoning", "")  # a summary, else the raw text
        out.pop("raw_reasoning", None)
        return out
    body = answer.get("body")
    if isinstance(body, dict):
        _whole(out, body)
    elif answer.get("body_text"):
        out["error"] = {"message": answer["body_text"], "type": None}
    if out["error"] is None and (answer.get("status") or 200) >= 400:  # an error body of a shape not read above
        out["error"] = {"message": f"HTTP {answer.get('status')}: {body!r}"[:300], "type": None}
    return out


def _whole(out: Assembled, body: Mapping[str, Any]) -> None:
    """A body sent whole: a Chat completion, a Response, a Message, a token count or an error."""
    _ids(out, body)
    if isinstance(body.get("error"), dict | str):
        out["error"] = _error(body["error"])
    if isinstance(body.get("choices"), list) and body["choices"]:
        choice = body["choices"][0]
        message = choice.get("message") or {}
        out["text"] = message.get("content") or ""
        out["reasoning"] = message.get("reasoning_content") or message.get("reasoning") or ""
        for call in message.get("tool_calls") or ():
            function = call.get("function") or {}
            out["tool_calls"].append(_tool(call.get("id"), function.get("name"), function.get("arguments")))
        out["finish_reason"] = choice.get("finish_reason")
    elif isinstance(body.get("output"), list):
        _response(out, body)
    elif isinstance(body.get("content"), list):
        for block in body["content"]:
            _block(out, block, out["tool_calls"])
        out["finish_reason"] = body.get("stop_reason")
    elif "input_tokens" in body and "usage" not in body:  # count_tokens
        out["usage"] = {"input_tokens": body["input_tokens"]}


def _response(out: Assembled, body: Mapping[str, Any]) -> None:
    """A Responses `response` object, sent whole or as a stream's terminal event."""
    text, reasoning, calls = [], [], []
    for item in body.get("output") or ():
        kind = item.get("type")
        if kind == "message":
            text += [c.get("text", "") for c in item.get("content") or () if c.get("type") == "output_text"]
        elif kind == "reasoning":  # its summary, what Codex shows; else its raw text
            reasoning += [p.get("text", "") for p in item.get("summary") or item.get("content") or ()]
        elif kind in ("function_call", "custom_tool_call"):
            calls.append(_tool(item.get("call_id"), item.get("name"), item.get("arguments", item.get("input"))))
    out["text"], out["reasoning"], out["tool_calls"] = "".join(text), "".join(reasoning), calls
    details = body.get("incomplete_details") or {}
    out["finish_reason"] = details.get("reason") or body.get("status")
    if body.get("error"):
        out["error"] = _error(body["error"])


def _block(out: Assembled, block: Mapping[str, Any], calls: list[dict[str, Any]]) -> None:
    kind = block.get("type")
    if kind == "text":
        out["text"] += block.get("text", "")
    elif kind == "thinking":
        out["reasoning"] += block.get("thinking", "")
    elif kind in ("tool_use", "server_tool_use"):
        calls.append(_tool(block.get("id"), block.get("name"), block.get("input")))


def _event(out: Assembled, calls: dict[Any, dict[str, Any]], name: str, data: Mapping[str, Any]) -> None:
    """One streamed event's part of the answer, in whichever dialect sent it."""
    if "choices" in data or name == "" and "error" not in data:  # Chat Completions
        _ids(out, data)
        for choice in data.get("choices") or ():
            if choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta") or {}
            out["text"] += delta.get("content") or ""
            out["reasoning"] += delta.get("reasoning_content") or delta.get("reasoning") or ""
            for piece in delta.get("tool_calls") or ():
                call = calls.setdefault(piece.get("index", 0), _tool(None, None, ""))
                function = piece.get("function") or {}
                call["id"] = call["id"] or piece.get("id")
                call["name"] = call["name"] if call["name"] != "?" else function.get("name") or "?"
                call["raw"] += function.get("arguments") or ""
            out["finish_reason"] = choice.get("finish_reason") or out["finish_reason"]
        if data.get("usage"):
            out["usage"] = data["usage"]
    elif name == "error" or "error" in data and len(data) <= 2:  # Messages' or Responses' error event, Chat's
        out["error"] = _error(data.get("error") or data)
    elif name.startswith("response."):
        _responses_event(out, calls, name, data)
    else:
        _messages_event(out, calls, name, data)


def _responses_event(out: Assembled, calls: dict[Any, dict[str, Any]], name: str, data: Mapping[str, Any]) -> None:
    if name == "response.created":
        _ids(out, data.get("response") or {})
    elif name == "response.output_text.delta":
        out["text"] += data.get("delta", "")
    elif name == "response.reasoning_summary_text.delta":
        out["reasoning"] += data.get("delta", "")
    elif name == "response.reasoning_text.delta":
        out["raw_reasoning"] = out.get("raw_reasoning", "") + data.get("delta", "")
    elif name in ("response.output_item.added", "response.output_item.done"):
        item = data.get("item") or {}
        if item.get("type") in ("function_call", "custom_tool_call"):
            call = calls.setdefault(item.get("id"), _tool(item.get("call_id"), item.get("name"), ""))
            if name.endswith(".done"):
                call["raw"] = item.get("arguments", item.get("input", call["raw"]))
    elif name in ("response.function_call_arguments.delta", "response.custom_tool_call_input.delta"):
        if data.get("item_id") in calls:
            calls[data["item_id"]]["raw"] += data.get("delta", "")
    elif name in TERMINAL:
        response = data.get("response") or {}
        out["usage"] = response.get("usage")
        details = response.get("incomplete_details") or {}
        out["finish_reason"] = details.get("reason") or response.get("status")
        out["complete"] = name != "response.failed"
        if response.get("error"):
            out["error"] = _error(response["error"])


def _messages_event(out: Assembled, calls: dict[Any, dict[str, Any]], name: str, data: Mapping[str, Any]) -> None:
    if name == "message_start":
        message = data.get("message") or {}
        _ids(out, message)
        out["usage"] = message.get("usage")
    elif name == "content_block_start":
        block = data.get("content_block") or {}
        if block.get("type") in ("tool_use", "server_tool_use"):
            calls[data.get("index")] = _tool(block.get("id"), block.get("name"), "")
        else:
            _block(out, block, [])
    elif name == "content_block_delta":
        delta = data.get("delta") or {}
        out["text"] += delta.get("text", "")
        out["reasoning"] += delta.get("thinking", "")
        if data.get("index") in calls:
            calls[data["index"]]["raw"] += delta.get("partial_json", "")
    elif name == "message_delta":
        out["finish_reason"] = (data.get("delta") or {}).get("stop_reason")
        out["usage"] = (out["usage"] or {}) | (data.get("usage") or {})
    elif name == "message_stop":
        out["complete"] = True


def _tool(call_id: Any, name: Any, arguments: Any) -> dict[str, Any]:
    raw = arguments if isinstance(arguments, str) else None
    return {"id": call_id, "name": str(name or "?"), "arguments": parsed(arguments), "raw": raw}


def _finished(call: dict[str, Any]) -> dict[str, Any]:
    """A streamed tool call once its pieces are in: its arguments parsed from the text they made."""
    return call | {"arguments": parsed(call["raw"]) if call["raw"] else {}}


def _ids(out: Assembled, body: Mapping[str, Any]) -> None:
    out["id"] = out["id"] or body.get("id")
    out["model"] = out["model"] or body.get("model")
    if body.get("usage"):
        out["usage"] = body["usage"]


def _error(error: Any) -> dict[str, Any]:
    if isinstance(error, dict):
        return {"message": str(error.get("message", error)), "type": error.get("type") or error.get("code")}
    return {"message": str(error), "type": None}
