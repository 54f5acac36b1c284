"""The answer of a journal entry as its client assembled it, in any of the dialects, whole or streamed:
`{text, reasoning, tool_calls, usage, finish_reason, id, model, error, complete}`.

A stream is first folded into the body it makes, by its dialect's `fold` (the one replay reads recorded
streams with), the way the SDKs join one: Chat Completions deltas by tool call `index`; Responses deltas by
output item, the terminal event's `response` the last word; Messages deltas by content block `index`,
`input_json_delta` pieces making a tool's input; Gemini's chunks part after part. Then it is read as a body sent
whole. `complete` says whether the stream reached its end (`[DONE]`, `response.completed`/`incomplete`,
`message_stop`, a `finishReason`): a stream cut off is assembled as far as it went, which is what the client had
read when it broke. An error (an error status's body, or one in the stream) is `error`, `{message, type}`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from emulator.dialects.anthropic_messages import recorded as messages
from emulator.dialects.bedrock import converse
from emulator.dialects.gemini import recorded as gemini
from emulator.dialects.ollama import common as ollama
from emulator.dialects.openai_chat import recorded as chat
from emulator.dialects.openai_responses import recorded as responses
from emulator.journal.transcript import parsed

Assembled = dict[str, Any]
CONVERSE = ("messageStart", "contentBlockStart", "contentBlockDelta", "contentBlockStop", "messageStop", "metadata")
# A dialect's `fold`: a stream's events made into the body it would have been whole, and whether it ended.
Fold = Callable[[Iterable[Mapping[str, Any]]], tuple[dict[str, Any], bool]]


def assemble(answer: Mapping[str, Any] | None) -> Assembled | None:
    """The answer (a journal view's `response`) as the client assembled it; None while it is being delivered."""
    if answer is None:
        return None
    out: Assembled = {"text": "", "reasoning": "", "tool_calls": [], "usage": None, "finish_reason": None}
    out |= {"id": None, "model": None, "error": None, "complete": True}
    if "events" in answer:
        folded, out["complete"] = _fold(answer["events"])(answer["events"])
        _whole(out, folded)
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
    """A body sent whole: a Chat completion, a Gemini response, a Response, a Message, a token count or an error."""
    _ids(out, body)
    if isinstance(body.get("error"), dict | str):
        out["error"] = _error(body["error"])
    if isinstance(body.get("choices"), list) and body["choices"]:
        choice = body["choices"][0]
        message = choice.get("message") or {}
        out["text"] = message.get("content") or choice.get("text") or ""  # a legacy completion's `text`
        out["reasoning"] = message.get("reasoning_content") or message.get("reasoning") or ""
        for call in message.get("tool_calls") or ():
            function = call.get("function") or {}
            out["tool_calls"].append(_tool(call.get("id"), function.get("name"), function.get("arguments")))
        out["finish_reason"] = choice.get("finish_reason")
    elif isinstance(body.get("candidates"), list):
        _gemini(out, body)
    elif isinstance(body.get("output"), dict):  # Bedrock's Converse
        _converse(out, body)
    elif isinstance(body.get("output"), list):
        _response(out, body)
    elif isinstance(body.get("content"), list):
        for block in body["content"]:
            _block(out, block, out["tool_calls"])
        out["finish_reason"] = body.get("stop_reason")
    elif "input_tokens" in body and "usage" not in body:  # count_tokens
        out["usage"] = {"input_tokens": body["input_tokens"]}
    elif body.get("object") == "list" and isinstance(body.get("data"), list):  # embeddings: what, not the numbers
        out["text"] = _vectors(body["data"])
        out["usage"] = body.get("usage")
    elif isinstance(body.get("message"), dict) or isinstance(body.get("response"), str):  # Ollama's chat, generate
        _ollama(out, body)
    elif isinstance(body.get("embeddings"), list) or isinstance(
        body.get("embedding"), list | dict
    ):  # Ollama's, Gemini's
        listed = body.get("embeddings") or [body["embedding"]]
        values = [v.get("values") if isinstance(v, dict) else v for v in listed]  # Gemini's `{"values": […]}`
        out["text"] = _vectors([{"embedding": v} for v in values])
    elif "totalTokens" in body:  # Gemini's countTokens
        out["usage"] = {"input_tokens": body["totalTokens"]}


def _converse(out: Assembled, body: Mapping[str, Any]) -> None:
    """A Bedrock Converse answer: its message's blocks (reasoning, text, tool uses), stop reason and usage."""
    for block in (body["output"].get("message") or {}).get("content") or ():
        use = block.get("toolUse")
        if isinstance(use, dict):
            out["tool_calls"].append(_tool(use.get("toolUseId"), use.get("name"), use.get("input")))
        elif isinstance(block.get("reasoningContent"), dict):
            out["reasoning"] += str((block["reasoningContent"].get("reasoningText") or {}).get("text") or "")
        else:
            out["text"] += str(block.get("text") or "")
    out["finish_reason"] = body.get("stopReason")
    if isinstance(body.get("usage"), dict):
        out["usage"] = body["usage"]


def _gemini(out: Assembled, body: Mapping[str, Any]) -> None:
    """A Gemini `GenerateContentResponse`: its first candidate's parts (thoughts, text, function calls), its finish
    reason and usage."""
    candidate = body["candidates"][0] if body["candidates"] else {}
    for part in (candidate.get("content") or {}).get("parts") or ():
        call = part.get("functionCall")
        if isinstance(call, dict):
            out["tool_calls"].append(_tool(call.get("id"), call.get("name"), call.get("args")))
        elif part.get("thought"):
            out["reasoning"] += str(part.get("text") or "")
        else:
            out["text"] += str(part.get("text") or "")
    out["finish_reason"] = candidate.get("finishReason")
    out["id"], out["model"] = body.get("responseId"), body.get("modelVersion")
    usage = body.get("usageMetadata")
    if isinstance(usage, dict):
        out["usage"] = usage


def _ollama(out: Assembled, body: Mapping[str, Any]) -> None:
    """An Ollama answer: `message` (chat) or `response` (generate), its thinking, tool calls and counts."""
    message = body.get("message")
    said = message if isinstance(message, dict) else body
    out["text"] = str(said.get("content", said.get("response", "")) or "")
    out["reasoning"] = str(said.get("thinking") or "")
    for call in said.get("tool_calls") or ():
        function = call.get("function") or {}
        out["tool_calls"].append(_tool(call.get("id"), function.get("name"), function.get("arguments")))
    out["finish_reason"] = body.get("done_reason")
    if "eval_count" in body:
        out["usage"] = {"input_tokens": body.get("prompt_eval_count"), "output_tokens": body.get("eval_count")}


def _vectors(data: list[Any]) -> str:
    """Embeddings in words: how many, and of how many dimensions (a base64 vector: four bytes a number)."""
    first = data[0].get("embedding") if data and isinstance(data[0], dict) else None
    size = len(first) if isinstance(first, list) else len(first) * 3 // 16 if isinstance(first, str) else 0
    kind = "base64" if isinstance(first, str) else "float"
    return f"{len(data)} embedding{'s' if len(data) != 1 else ''} of {size} dimensions ({kind})"


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


def _tool(call_id: Any, name: Any, arguments: Any) -> dict[str, Any]:
    raw = arguments if isinstance(arguments, str) else None
    return {"id": call_id, "name": str(name or "?"), "arguments": parsed(arguments) if raw != "" else {}, "raw": raw}


def _fold(events: Sequence[Mapping[str, Any]]) -> Fold:
    """The `fold` of the dialect whose events these are: Chat's chunks carry `choices`, Responses' events are
    `response.*`, Messages' `message_*` and `content_block_*`. A stream of nothing else (an error alone) reads as
    Chat's."""
    for event in events:
        data = event.get("data")
        name = str(event.get("event") or (data.get("type") if isinstance(data, dict) else "") or "")
        if name.startswith("response."):
            return responses.fold
        if name.startswith(("message_", "content_block_")):
            return messages.fold
        if isinstance(data, dict) and "choices" in data:
            return chat.fold
        if isinstance(data, dict) and "candidates" in data:
            return gemini.fold
        if name in CONVERSE or event.get("exception"):  # Bedrock's frames
            return converse.fold
        if isinstance(data, dict) and ("done" in data or isinstance(data.get("error"), str)):  # Ollama's lines
            return ollama.fold
    return chat.fold


def _ids(out: Assembled, body: Mapping[str, Any]) -> None:
    out["id"] = out["id"] or body.get("id")
    out["model"] = out["model"] or body.get("model")
    if body.get("usage"):
        out["usage"] = body["usage"]


def _error(error: Any) -> dict[str, Any]:
    if isinstance(error, dict):
        return {
            "message": str(error.get("message", error)),
            "type": error.get("type") or error.get("status") or error.get("code"),
        }
    return {"message": str(error), "type": None}
