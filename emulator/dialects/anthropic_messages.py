"""Anthropic Messages (`POST /v1/messages`, `/v1/messages/count_tokens`), as Inferam serves it (seed 004).

Parse and validate the request into a `Prompt`; render a `Turn` as a `message` (thinking blocks, then
text, then tool_use) or as the named SSE events of wire-formats.md §3.2: message_start,
content_block_start / ping / content_block_delta / content_block_stop per block, message_delta with
the stop reason and cumulative usage, message_stop. `event:` lines are required: the Python SDK
skips data without one and Claude Code reads nothing without them (agent-clients.md).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from emulator import ids, profiles, tokens
from emulator.conversation import (
    FinishReason,
    Message,
    Prompt,
    Reply,
    ResponseFormat,
    Tool,
    ToolCall,
    ToolChoice,
    Turn,
)
from emulator.errors import EmulatorError, InvalidRequest, UpstreamError
from emulator.fields import Fields, wrong_type
from emulator.sse import decode, dumps, frame, loads

ROLES = ("user", "assistant", "system")  # `system` entries inside `messages`: Claude Code sends them
BLOCKS = ("text", "image", "tool_use", "tool_result", "thinking")  # "Other block types get a 400" (seed)
EFFORTS = ("low", "medium", "high", "xhigh", "max")  # output_config.effort, as the seed lists them
STOP_REASONS: dict[FinishReason, str] = {
    "stop": "end_turn",  # a matched stop sequence too: the seed ends it as end_turn, stop_sequence null
    "length": "max_tokens",
    "tool_calls": "tool_use",
    # Anthropic's `refusal` is the stop reason when its safety classifiers cut the output off: the
    # same event that Chat Completions (what Inferam translates from) reports as `content_filter`.
    "content_filter": "refusal",
}
# Anthropic's `error.type` by HTTP status (wire-formats.md §4.2); a status not listed falls back by class.
ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    409: "conflict_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    504: "timeout_error",
    529: "overloaded_error",
}


# --- request -------------------------------------------------------------------------------------


def parse_request(body: Any, headers: Mapping[str, str], fingerprint: str = "", profile: str = "inferam") -> Prompt:
    """Validate a Messages body into a `Prompt`; any bad field raises `InvalidRequest` naming it.

    Unknown top-level fields (metadata, context_management, top_k…) and `cache_control` markers are
    accepted and ignored: Claude Code sends all of them on every request (agent-clients.md).
    """
    return _prompt(body, headers, fingerprint, counting=False, profile=profile)


def count_tokens(body: Any, headers: Mapping[str, str]) -> dict[str, int]:
    """`{"input_tokens": N}` for a count_tokens body, from the one token model, so it equals the
    `input_tokens` that `/v1/messages` reports for the same body (no cache read: nothing is cached)."""
    return {"input_tokens": tokens.prompt_tokens(_prompt(body, headers, "", counting=True))}


def _prompt(
    body: Any, headers: Mapping[str, str], fingerprint: str, *, counting: bool, profile: str = profiles.DEFAULT
) -> Prompt:
    f = Fields(body)
    model = f.need("model", str)
    # count_tokens takes no max_tokens (message_count_tokens_params.py); /v1/messages requires it.
    max_tokens = None if counting else f.count("max_tokens")
    if max_tokens is None and not counting:
        f.need("max_tokens", int)
    system = _system(f)
    entries = f.objects("messages", required=True)
    if not entries:
        raise InvalidRequest(
            "Invalid 'messages': empty array. At least one message is required.", param="messages", code="empty_array"
        )
    messages = tuple(m for entry in entries for m in _message(entry))
    tools = tuple(_tool(t) for t in f.objects("tools"))
    tool_choice, parallel = _tool_choice(f, tools)
    effort, budget = _thinking(f, max_tokens, profiles.PROFILES[profile].thinks_unasked)
    return Prompt(
        dialect=NAME,
        model=model,
        messages=system + messages,
        tools=tools,
        tool_choice=tool_choice,
        parallel_tool_calls=parallel,
        max_tokens=max_tokens,
        effort=effort,
        reasoning_budget=budget,
        stop=_stop_sequences(f),
        stream=bool(f.get("stream", bool, False)),
        response_format=_output_format(f),
        temperature=f.number("temperature", 0, 1),
        top_p=f.number("top_p", 0, 1),
        api_key=_api_key(headers),
        headers=headers,
        fingerprint=fingerprint,
        profile=profile,
    )


def _api_key(headers: Mapping[str, str]) -> str:
    """`x-api-key` (Claude Code, curl) or `Authorization: Bearer` (the Python SDK 2.14, ANTHROPIC_AUTH_TOKEN)."""
    if headers.get("x-api-key"):
        return headers["x-api-key"].strip()
    scheme, _, token = headers.get("authorization", "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""


def _system(f: Fields) -> tuple[Message, ...]:
    value = f.data.get("system")
    if value is None:
        return ()
    if isinstance(value, str):
        return (Message("system", value),) if value else ()
    if not isinstance(value, list):
        raise wrong_type("system", "a string or an array of text blocks", value)
    texts = [_text_block(b) for b in f.objects("system")]
    return (Message("system", "\n".join(texts)),)


def _text_block(block: Fields) -> str:
    kind = block.choice("type", ("text",))
    if kind is None:
        block.need("type", str)
    return block.need("text", str)


def _message(m: Fields) -> list[Message]:
    """One `messages[]` entry as canonical messages: a user turn's `tool_result` blocks become `tool`
    messages, in order, before the turn's own text (Chat Completions' shape for the same history)."""
    role = m.choice("role", ROLES)
    if role is None:
        m.need("role", str)
    content = m.data.get("content")
    if isinstance(content, str):
        return [Message(role, content)]  # type: ignore[arg-type]
    if not isinstance(content, list):
        if content is None:
            m.need("content", str)
        raise wrong_type(m.at("content"), "a string or an array of content blocks", content)
    texts: list[str] = []
    reasoning: list[str] = []
    calls: list[ToolCall] = []
    results: list[Message] = []
    images = 0
    for block in m.objects("content"):
        kind = block.choice("type", BLOCKS)
        if kind is None:
            block.need("type", str)
        if kind == "text":
            texts.append(block.need("text", str))
        elif kind == "image":
            _image(block)
            images += 1
        elif kind == "thinking":
            _only_in(block, role, "assistant")
            reasoning.append(block.need("thinking", str))
            block.get("signature", str)  # ours is always "" (seed); any string comes back unchecked
        elif kind == "tool_use":
            _only_in(block, role, "assistant")
            arguments = json.dumps(block.need("input", dict), ensure_ascii=False)
            calls.append(ToolCall(id=block.need("id", str), name=block.need("name", str), arguments=arguments))
        else:
            _only_in(block, role, "user")
            results.append(_tool_result(block))
    message = Message(
        role,  # type: ignore[arg-type]
        text="\n".join(texts),
        reasoning="\n".join(reasoning),
        tool_calls=tuple(calls),
        images=images,
    )
    if results and not (texts or images):
        return results
    return [*results, message]


def _only_in(block: Fields, role: str | None, allowed: str) -> None:
    if role != allowed:
        kind = block.data["type"]
        raise InvalidRequest(
            f"Invalid '{block.path}': `{kind}` blocks can only be in `{allowed}` messages, not in `{role}` messages.",
            param=block.path,
            code="invalid_value",
        )


def _image(block: Fields) -> None:
    source = block.obj("source", required=True)
    assert source is not None
    kind = source.need("type", str)
    if kind != "base64":
        raise InvalidRequest(
            f"Invalid value for '{source.at('type')}': {kind!r}. Only base64 image sources are supported; "
            "send the image inline with `media_type` and `data`.",
            param=source.at("type"),
            code="invalid_value",
        )
    source.choice("media_type", ("image/jpeg", "image/png", "image/gif", "image/webp"))
    source.need("media_type", str)
    source.need("data", str)


def _tool_result(block: Fields) -> Message:
    call_id = block.need("tool_use_id", str)
    block.get("is_error", bool)
    content = block.data.get("content")
    if content is None or isinstance(content, str):
        return Message("tool", content or "", tool_call_id=call_id)
    if not isinstance(content, list):
        raise wrong_type(block.at("content"), "a string or an array of text and image blocks", content)
    texts, images = [], 0
    for part in block.objects("content"):
        kind = part.choice("type", ("text", "image"))
        if kind is None:
            part.need("type", str)
        if kind == "text":
            texts.append(part.need("text", str))
        else:
            _image(part)
            images += 1
    return Message("tool", "\n".join(texts), tool_call_id=call_id, images=images)


def _tool(t: Fields) -> Tool:
    kind = t.get("type", str, "custom")
    if kind != "custom":
        raise InvalidRequest(
            f"Invalid value for '{t.at('type')}': {kind!r}. Anthropic server tools such as web search "
            "don't run here; only client tools with an `input_schema` are supported.",
            param=t.at("type"),
            code="invalid_value",
        )
    schema = t.obj("input_schema", required=True)
    assert schema is not None
    return Tool(
        name=t.need("name", str),
        description=t.get("description", str, "") or "",
        parameters=schema.data,
    )


def _tool_choice(f: Fields, tools: tuple[Tool, ...]) -> tuple[ToolChoice, bool]:
    """The canonical choice, and whether calls may come in parallel (`disable_parallel_tool_use`)."""
    choice = f.obj("tool_choice")
    if choice is None:
        return ToolChoice(), True
    kind = choice.choice("type", ("auto", "any", "tool", "none"))
    if kind is None:
        choice.need("type", str)
    parallel = not choice.get("disable_parallel_tool_use", bool, False)
    if kind == "tool":
        name = choice.need("name", str)
        if name not in {t.name for t in tools}:
            raise InvalidRequest(
                f"Invalid value for '{choice.at('name')}': no tool named '{name}' was given in 'tools'.",
                param=choice.at("name"),
                code="invalid_value",
            )
        return ToolChoice("required", name), parallel
    mode = {"auto": "auto", "any": "required", "none": "none"}[kind or "auto"]
    return ToolChoice(mode), parallel  # type: ignore[arg-type]


def _thinking(f: Fields, max_tokens: int | None, unasked: bool) -> tuple[str | None, int | None]:
    """`(effort, reasoning_budget)`: `disabled` turns thinking off, `enabled` caps it at `budget_tokens`,
    `adaptive` (Claude Code) leaves the model's default; `output_config.effort` sets the effort. Without
    `thinking`, the model thinks if it does `unasked` (Inferam's), not otherwise (Anthropic's)."""
    config = f.obj("output_config")
    effort = config.choice("effort", EFFORTS) if config else None
    thinking = f.obj("thinking")
    if thinking is None:
        return (effort if unasked else "none"), None
    kind = thinking.choice("type", ("enabled", "disabled", "adaptive"))
    if kind is None:
        thinking.need("type", str)
    if kind == "disabled":
        return "none", None
    if kind == "enabled":
        # Anthropic wants at least 1024 and less than max_tokens; like Inferam's Chat Completions
        # `thinking_budget`, the budget is capped by the output limit rather than refused.
        budget = thinking.count("budget_tokens")
        if budget is None:
            thinking.need("budget_tokens", int)
        assert budget is not None
        return effort, budget if max_tokens is None else min(budget, max_tokens)
    return effort, None


def _stop_sequences(f: Fields) -> tuple[str, ...]:
    value = f.data.get("stop_sequences")
    if value is None:
        return ()
    if isinstance(value, list) and all(isinstance(s, str) for s in value):
        return tuple(s for s in value if s)
    raise wrong_type("stop_sequences", "an array of strings", value)


def _output_format(f: Fields) -> ResponseFormat:
    """`output_config.format` (structured outputs; Claude Code's session-title request sends one)."""
    config = f.obj("output_config")
    spec = config.obj("format") if config else None
    if spec is None:
        return ResponseFormat()
    kind = spec.choice("type", ("json_schema",))
    if kind is None:
        spec.need("type", str)
    return ResponseFormat("json_schema", spec.need("schema", dict))


# --- response ------------------------------------------------------------------------------------


def _usage(turn: Turn) -> dict[str, int]:
    """Anthropic's usage: `input_tokens` excludes the tokens read from cache (the seed's Usage section)."""
    usage = turn.usage
    return {
        "input_tokens": max(usage.input_tokens - usage.cached_tokens, 0),
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": usage.cached_tokens,
        "output_tokens": usage.output_tokens,
    }


def _tool_id(call: ToolCall) -> str:
    """`toolu_01…`, derived from the canonical id so it is the same in every rendering of the turn."""
    return call.id if call.id.startswith("toolu_") else ids.make("toolu_01", call.id, length=22)


def _tool_input(arguments: str) -> tuple[dict[str, Any], str]:
    """A call's `input` object, and the JSON text whose `input_json_delta` pieces rebuild it.

    Complete arguments stream as they are. Arguments cut short by `max_tokens` stream as the cut text,
    and `input` is what the SDK's partial parser (jiter, `partial_mode=True`) makes of it; text that is
    not JSON at all (a freeform tool's input) is wrapped as `{"input": text}`.
    """
    try:
        value = json.loads(arguments, parse_constant=_no_constant) if arguments else {}
    except ValueError:
        value = _partial_object(arguments)
    if isinstance(value, dict):
        return value, arguments
    wrapped = {"input": arguments}
    return wrapped, dumps(wrapped)


def _no_constant(name: str) -> Any:
    raise ValueError(name)


_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")
_NUMBER_START = re.compile(r"-?(?:0|[1-9]\d*)?(?:\.\d*)?(?:[eE][+-]?\d*)?")
_LITERALS = ("true", "false", "null")


def _partial_object(text: str) -> dict[str, Any] | None:
    """The object a prefix of a JSON object text stands for, as jiter's partial mode reads it: values
    cut short (a string, `tru`, `12.`) and keys without a value are dropped, open containers closed.
    None if `text` is not such a prefix."""
    stack: list[str] = []
    key_next = False  # in an object, the next string is a key
    safe: tuple[int, str] | None = None  # the last cut after which the text parses once closed
    i, n = 0, len(text)

    def closers() -> str:
        return "".join("}" if c == "{" else "]" for c in reversed(stack))

    while i < n:
        c = text[i]
        if c in " \t\r\n" or c == ":":
            i += 1
        elif not stack and safe is not None:
            return None  # text after the top-level value
        elif c in "{[":
            if not stack and c != "{":
                return None
            stack.append(c)
            key_next = c == "{"
            i += 1
            safe = (i, closers())
        elif c in "}]":
            if not stack:
                return None
            stack.pop()
            i += 1
            key_next = False
            safe = (i, closers())
        elif c == ",":
            key_next = bool(stack) and stack[-1] == "{"
            i += 1
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            if j >= n:
                break  # a string cut short: dropped, with its key
            i = j + 1
            if key_next:
                key_next = False
            else:
                safe = (i, closers())
        else:
            token = re.match(r"[^\s,:\]}]*", text[i:])
            word = token.group() if token else ""
            if i + len(word) < n:  # a complete scalar
                if not (word in _LITERALS or _NUMBER.fullmatch(word)):
                    return None
                safe = (i + len(word), closers())
            elif word in _LITERALS or _NUMBER.fullmatch(word):
                safe = (n, closers())  # at the end but whole: jiter keeps `1` of a cut `12`
            elif not (any(lit.startswith(word) for lit in _LITERALS) or _NUMBER_START.fullmatch(word)):
                return None
            i += len(word)
    if safe is None:
        return None
    try:
        value = json.loads(text[: safe[0]] + safe[1], parse_constant=_no_constant)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _signature(profile: profiles.Profile, turn: Turn) -> str:
    """Anthropic signs each thinking block (an opaque base64 string); Inferam's signatures are empty (seed)."""
    return (
        "Eq" + "".join(ids.make("", turn.id, "signature", i, length=32) for i in range(6)) if profile.signatures else ""
    )


def _stop(profile: profiles.Profile, turn: Turn) -> dict[str, Any]:
    """`stop_reason` and `stop_sequence`: Anthropic names the stop sequence that ended the text; Inferam
    ends it as `end_turn` with `stop_sequence` null (seed)."""
    if profile.stop_sequence and turn.stop_sequence is not None:
        return {"stop_reason": "stop_sequence", "stop_sequence": turn.stop_sequence}
    return {"stop_reason": STOP_REASONS[turn.finish_reason], "stop_sequence": None}


def _blocks(profile: profiles.Profile, turn: Turn) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    if turn.reasoning:
        blocks.append({"type": "thinking", "thinking": turn.reasoning, "signature": _signature(profile, turn)})
    if turn.text:
        blocks.append({"type": "text", "text": turn.text})
    for call in turn.tool_calls:
        blocks.append(
            {"type": "tool_use", "id": _tool_id(call), "name": call.name, "input": _tool_input(call.arguments)[0]}
        )
    return blocks


def _message_head(turn: Turn) -> dict[str, Any]:
    return {
        "id": ids.make("msg_01", turn.id, length=22),
        "type": "message",
        "role": "assistant",
        "model": turn.model,
    }


def render(prompt: Prompt, turn: Turn) -> dict[str, Any]:
    """The `message` object for a non-streamed request."""
    profile = profiles.PROFILES[prompt.profile]
    return _message_head(turn) | {
        "content": _blocks(profile, turn),
        **_stop(profile, turn),
        "usage": _usage(turn),
    }


def _event(data: dict[str, Any]) -> bytes:
    return frame(dumps(data), data["type"])


def render_stream(prompt: Prompt, turn: Turn) -> list[bytes]:
    """Every SSE event of the streamed answer, in order; a fault ends it with `event: error` instead."""
    profile = profiles.PROFILES[prompt.profile]
    usage = _usage(turn)
    # message_start reports one output token so far, as Anthropic's does; message_delta then
    # carries the cumulative totals, which the SDK's accumulator writes over the start values.
    start = _message_head(turn) | {"content": [], "stop_reason": None, "stop_sequence": None}
    start["usage"] = usage | {"output_tokens": 1}
    events = [_event({"type": "message_start", "message": start})]
    index = 0

    def block(opening: dict[str, Any], deltas: list[dict[str, Any]]) -> None:
        nonlocal index
        events.append(_event({"type": "content_block_start", "index": index, "content_block": opening}))
        if index == 0:
            events.append(PING)  # Anthropic sends one ping, right after the first block opens
        events.extend(_event({"type": "content_block_delta", "index": index, "delta": d}) for d in deltas)
        events.append(_event({"type": "content_block_stop", "index": index}))
        index += 1

    if turn.reasoning:
        thoughts = [{"type": "thinking_delta", "thinking": p} for p in tokens.split(turn.reasoning)]
        block(
            {"type": "thinking", "thinking": "", "signature": ""},
            [*thoughts, {"type": "signature_delta", "signature": _signature(profile, turn)}],
        )
    if turn.text:
        block({"type": "text", "text": ""}, [{"type": "text_delta", "text": p} for p in tokens.split(turn.text)])
    for call in turn.tool_calls:
        # Claude Code takes a tool's input only from input_json_delta (agent-clients.md), so the
        # opening block's `input` is always empty and the JSON follows in pieces, an empty one first.
        text = _tool_input(call.arguments)[1]
        pieces = [{"type": "input_json_delta", "partial_json": p} for p in ["", *tokens.split(text)]]
        block({"type": "tool_use", "id": _tool_id(call), "name": call.name, "input": {}}, pieces)
    if index == 0:
        events.append(PING)
    events.append(
        _event(
            {
                "type": "message_delta",
                "delta": _stop(profile, turn),
                "usage": usage,
            }
        )
    )
    events.append(_event({"type": "message_stop"}))
    fault = turn.fault
    if fault and fault.kind == "stream_error":  # the stream breaks off with an error event, and nothing after it
        error = UpstreamError.of(fault)
        return events[: fault.after_events or 0] + [render_stream_error(error)]
    return events


PING = frame(dumps({"type": "ping"}), "ping")
NAME = "anthropic_messages"  # as `Prompt.dialect` and profiles name it
# A frame cut short, as its clients parse it: broken JSON.
MALFORMED = b'event: content_block_delta\ndata: {"type": "content_block_delta", "index": 0, "delta": {"te\n\n'
KEEPALIVE = PING  # what Anthropic sends during long pauses


def error_type(error: EmulatorError) -> str:
    """Anthropic's `error.type`: a scripted code that names one, else by status (wire-formats.md §4.2)."""
    if error.code is not None and error.code in ERROR_TYPES.values():
        return error.code
    return ERROR_TYPES.get(error.status, "api_error" if error.status >= 500 else "invalid_request_error")


def render_error(error: EmulatorError) -> dict[str, Any]:
    """Anthropic's error body: `{"type": "error", "error": {"type", "message"}}`; the message names the field."""
    return {"type": "error", "error": {"type": error_type(error), "message": error.message}}


def render_stream_error(error: EmulatorError) -> bytes:
    """An error after the stream started: `event: error`, which the SDK raises as `APIStatusError`."""
    return _event(render_error(error))


# --- reading a recorded answer -----------------------------------------------------------------------

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
