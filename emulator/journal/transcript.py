"""A journal entry's request as a person reads it: the body folded by messages (`{system, messages, tools}`, each
message `{role, parts}`), in any of the dialects, and the answer's headers that matter (rate limits, the
request id, retry advice). The answer itself is `assembly`'s. It reads the journal's full view of an entry
(`journal.view`). Pure: no I/O, and nothing it reads can raise (a body of the wrong shape reads as what of it
has the expected shape).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from emulator.core.sse import dumps, loads

Part = dict[str, Any]  # one piece of a message: {"type": text | image | tool_call | tool_result | reasoning | other}
Message = dict[str, Any]  # {"role", "parts": [Part]}
# The answer headers a person looks for: the rate limits, the request's id, when to retry.
HEADERS = ("retry-after", "retry-after-ms", "x-should-retry", "x-request-id", "request-id", "inference-id")
HEADER_PREFIXES = ("x-ratelimit-", "anthropic-ratelimit-", "ratelimit")
IMAGE_TYPES = ("image_url", "image", "input_image")
RESULT_TYPES = ("tool_result", "function_call_output", "custom_tool_call_output")


def request(view: Mapping[str, Any]) -> dict[str, Any]:
    """The request's body folded by messages: `{system, messages, tools}` (each message `{role, parts}`)."""
    body = view.get("body")
    if not isinstance(body, dict):
        return {"system": None, "messages": [], "tools": []}
    system: list[str] = []
    if isinstance(body.get("system"), str | list):  # Messages
        system.append(_text(body["system"]))
    if isinstance(body.get("instructions"), str):  # Responses
        system.append(body["instructions"])
    google = body.get("systemInstruction", body.get("system_instruction"))
    if isinstance(google, dict):  # Gemini's
        system.append("".join(str(p.get("text") or "") for p in google.get("parts") or () if isinstance(p, dict)))
    if isinstance(body.get("messages"), list):
        messages = [_message(m) for m in body["messages"] if isinstance(m, dict)]
    elif isinstance(body.get("contents"), list):
        messages = [_content(c) for c in body["contents"] if isinstance(c, dict)]
    elif isinstance(body.get("input"), str):
        messages = [{"role": "user", "parts": [_plain(body["input"])]}]
    elif _inputs(body.get("input")):  # embeddings: each input, in order
        messages = [{"role": "user", "parts": [_plain(_input(i))]} for i in _inputs(body["input"])]
    elif isinstance(body.get("prompt"), str | list):  # a legacy completion
        messages = [{"role": "user", "parts": [_plain(_input(p))]} for p in _inputs(body["prompt"]) or [body["prompt"]]]
    else:
        items = body.get("input")
        messages = _items(items if isinstance(items, list) else [])
    listed = body.get("tools") or (body.get("toolConfig") or {}).get("tools") or ()  # Converse's in `toolConfig`
    tools = [name for t in listed if isinstance(t, dict) for name in _tool_names(t)]
    return {"system": "\n\n".join(s for s in system if s) or None, "messages": messages, "tools": tools}


def _message(m: Mapping[str, Any]) -> Message:
    """A Chat or Messages message: its content (a string or blocks), a Chat assistant's tool calls, a Chat tool
    message's result."""
    role = str(m.get("role", "?"))
    parts = _parts(m.get("content"))
    for call in m.get("tool_calls") or ():
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict):
            parts.append(_call(call.get("id"), function.get("name"), function.get("arguments")))
    if role == "tool":
        return {"role": "tool", "parts": [_result(m.get("tool_call_id"), _text(m.get("content")))]}
    return {"role": role, "parts": parts}


def _parts(content: Any) -> list[Part]:
    if isinstance(content, str):
        return [_plain(content)] if content else []
    parts: list[Part] = []
    for block in content if isinstance(content, list) else ():
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind is None and block:  # Bedrock's Converse: a block is its one key
            parts.append(_converse(block))
        elif kind in ("text", "input_text", "output_text"):
            parts.append(_plain(str(block.get("text", ""))))
        elif kind in IMAGE_TYPES:
            parts.append({"type": "image", "detail": _image_hint(block)})
        elif kind == "tool_use":
            parts.append(_call(block.get("id"), block.get("name"), block.get("input")))
        elif kind == "tool_result":
            parts.append(_result(block.get("tool_use_id"), _text(block.get("content")), bool(block.get("is_error"))))
        elif kind in ("thinking", "redacted_thinking"):
            parts.append({"type": "reasoning", "text": str(block.get("thinking", "[redacted]"))})
        else:
            parts.append({"type": "other", "kind": str(kind)})
    return parts


def _converse(block: Mapping[str, Any]) -> Part:
    """A Converse content block: text, media, a tool use or result, reasoning."""
    if isinstance(block.get("text"), str):
        return _plain(block["text"])
    use, result = block.get("toolUse"), block.get("toolResult")
    if isinstance(use, dict):
        return _call(use.get("toolUseId"), use.get("name"), use.get("input"))
    if isinstance(result, dict):
        said = [dumps(c["json"]) if "json" in c else str(c.get("text", "")) for c in result.get("content") or ()]
        return _result(result.get("toolUseId"), "".join(said), result.get("status") == "error")
    if isinstance(block.get("reasoningContent"), dict):
        return {"type": "reasoning", "text": str((block["reasoningContent"].get("reasoningText") or {}).get("text"))}
    media = next((k for k in ("image", "document", "video", "audio") if k in block), None)
    if media is not None:
        return {"type": "image", "detail": str((block[media] or {}).get("format") or media)[:60]}
    return {"type": "other", "kind": next(iter(block))}


def _inputs(given: Any) -> list[Any]:
    """Embeddings' (or a legacy completion's) inputs, when given as a list: strings or token arrays; else none."""
    if not isinstance(given, list) or not given or isinstance(given[0], dict):
        return []
    return [given] if all(isinstance(i, int) for i in given) else given


def _input(given: Any) -> str:
    if isinstance(given, list):
        return "tokens: " + " ".join(map(str, given))
    return given if isinstance(given, str) else ""


def _items(items: Iterable[Any]) -> list[Message]:
    """Responses input items as messages: consecutive function calls and reasoning join the assistant message
    before them, as the output they were."""
    messages: list[Message] = []
    for item in items:
        if not isinstance(item, dict):
            continue
        kind = item.get("type", "message")
        if kind == "message" or "role" in item:
            messages.append({"role": str(item.get("role", "user")), "parts": _parts(item.get("content"))})
            continue
        if kind in ("function_call", "custom_tool_call"):
            arguments = item.get("arguments", item.get("input"))
            part = _call(item.get("call_id"), item.get("name"), arguments)
        elif kind in RESULT_TYPES:
            part = _result(item.get("call_id"), _text(item.get("output")))
        elif kind == "reasoning":
            part = {"type": "reasoning", "text": _text(item.get("summary") or item.get("content"))}
        else:
            part = {"type": "other", "kind": str(kind)}
        role = "tool" if kind in RESULT_TYPES else "assistant"
        if messages and messages[-1]["role"] == role and role == "assistant":
            messages[-1]["parts"].append(part)
        else:
            messages.append({"role": role, "parts": [part]})
    return messages


def _plain(text: str) -> Part:
    return {"type": "text", "text": text}


def _call(call_id: Any, name: Any, arguments: Any) -> Part:
    return {"type": "tool_call", "id": call_id, "name": str(name or "?"), "arguments": parsed(arguments)}


def _result(call_id: Any, content: str, error: bool = False) -> Part:
    return {"type": "tool_result", "id": call_id, "content": content, "error": error}


def _tool_names(tool: Mapping[str, Any]) -> list[str]:
    """A tool's name; a Gemini tool's, each of its function declarations'."""
    if isinstance(tool.get("toolSpec"), dict):  # Converse's
        return [str(tool["toolSpec"].get("name") or "?")]
    declared = tool.get("functionDeclarations", tool.get("function_declarations"))
    if isinstance(declared, list):
        return [str(d.get("name") or "?") for d in declared if isinstance(d, dict)]
    function = tool.get("function")
    return [str((function.get("name") if isinstance(function, dict) else None) or tool.get("name") or tool.get("type"))]


def _content(content: Mapping[str, Any]) -> Message:
    """A Gemini `Content`: a `model` turn as the assistant's; its parts' text, thoughts, images, calls and results."""
    role = "assistant" if content.get("role") == "model" else str(content.get("role") or "user")
    parts: list[Part] = []
    for part in content.get("parts") or ():
        if not isinstance(part, dict):
            continue
        call = part.get("functionCall", part.get("function_call"))
        answered = part.get("functionResponse", part.get("function_response"))
        media = part.get("inlineData", part.get("inline_data")) or part.get("fileData", part.get("file_data"))
        if isinstance(call, dict):
            parts.append(_call(call.get("id"), call.get("name"), call.get("args")))
        elif isinstance(answered, dict):
            parts.append(_result(answered.get("id") or answered.get("name"), _text(str(answered.get("response")))))
        elif isinstance(media, dict):
            parts.append({"type": "image", "detail": str(media.get("mimeType", media.get("mime_type")) or "")[:60]})
        elif part.get("thought"):
            parts.append({"type": "reasoning", "text": str(part.get("text") or "")})
        else:
            parts.append(_plain(str(part.get("text") or "")))
    return {"role": role, "parts": parts}


def _image_hint(block: Mapping[str, Any]) -> str:
    """What an image is, without its bytes: its media type or where it is, cut short."""
    source = block.get("source") or block.get("image_url") or ""
    if isinstance(source, dict):
        source = source.get("media_type") or source.get("url") or source.get("type") or ""
    text = str(source or block.get("file_id") or "")
    return text.split(";")[0][:60] if text.startswith("data:") else text[:60]


def _text(content: Any) -> str:
    """The text of a content value: a string, or the text blocks of a list joined (images as placeholders)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        pieces = []
        for block in content:
            if isinstance(block, dict):
                kind = block.get("type")
                pieces.append("[image]" if kind in IMAGE_TYPES else str(block.get("text", "")))
            elif isinstance(block, str):
                pieces.append(block)
        return "".join(pieces)
    return "" if content is None else str(content)


def parsed(arguments: Any) -> Any:
    """Tool call arguments as a value: a JSON text parsed, anything else (a freeform input, a JSON text cut off
    mid-way) as it came."""
    if isinstance(arguments, str):
        try:
            return loads(arguments.encode())
        except (ValueError, UnicodeError, RecursionError):
            return arguments
    return arguments


def headers(answer: Mapping[str, Any]) -> dict[str, str]:
    """The answer's headers that matter to a person reading it: rate limits, the request id, retry advice."""
    found = answer.get("headers") or {}
    return {k: v for k, v in found.items() if k in HEADERS or k.startswith(HEADER_PREFIXES)}
