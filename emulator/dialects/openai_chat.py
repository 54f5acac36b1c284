"""OpenAI Chat Completions (`POST /v1/chat/completions`), as Inferam serves it (seed 000).

Parse and validate the request into a `Prompt`; render a `Turn` as a `chat.completion` or as the SSE
stream of `chat.completion.chunk`s (reference wire-formats.md §1.2): a role chunk, `reasoning_content`
deltas, content deltas, tool-call deltas (index, id and name first, argument fragments after), the
chunk that carries `finish_reason`, the usage chunk with `choices: []` when asked for, `[DONE]`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any

from emulator import ids, tokens
from emulator.conversation import (
    EFFORTS,
    Message,
    Prompt,
    ResponseFormat,
    Tool,
    ToolCall,
    ToolChoice,
    Turn,
    Usage,
)
from emulator.errors import EmulatorError, InvalidRequest, UpstreamError, openai_body
from emulator.fields import Fields, bearer, wrong_type, wrong_value
from emulator.sse import comment, dumps, frame, quote

ROLES = ("system", "developer", "user", "assistant", "tool")
DONE = frame("[DONE]")
NAME = "openai_chat"  # as `Prompt.dialect` and profiles name it
# A frame cut short, as its clients parse it: broken JSON.
MALFORMED = b'data: {"id": "chatcmpl-", "object": "chat.completion.chunk", "choices": [{"delta": {"content": "unt\n\n'
KEEPALIVE = comment("keep-alive")  # an SSE comment: clients skip it, idle timers see bytes


# --- request -------------------------------------------------------------------------------------


def parse_request(body: Any, headers: Mapping[str, str], fingerprint: str = "") -> Prompt:
    """Validate a request body into a `Prompt`; any bad field raises `InvalidRequest` naming it.

    Fields Inferam ignores (n, logprobs, best_of, logit_bias, engine-specific sampling) are ignored.
    """
    f = Fields(body)
    model = f.need("model", str)
    messages = tuple(_message(m) for m in f.objects("messages", required=True))
    if not messages:
        raise InvalidRequest(
            "Invalid 'messages': empty array. Expected an array with minimum length 1.",
            param="messages",
            code="empty_array",
        )
    # Only the optional fields the body has are read: most requests send few of them.
    given = {key: _OPTIONAL[key](f) for key in f.data if key in _OPTIONAL}
    tools = given.get("tools", ())
    stream = given.get("stream", False)
    options = given.get("stream_options")
    if options is not None and not stream:
        raise InvalidRequest(
            "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
            param="stream_options",
            code="invalid_value",
        )
    max_tokens = given.get("max_completion_tokens") or given.get("max_tokens")
    budget = given.get("thinking_budget")
    if budget is not None and max_tokens is not None:
        budget = min(budget, max_tokens)  # "no larger than the output limit": capped, not refused
    return Prompt(
        dialect=NAME,
        model=model,
        messages=messages,
        tools=tools,
        tool_choice=_tool_choice(f, tools) if "tool_choice" in given else ToolChoice(),
        parallel_tool_calls=given.get("parallel_tool_calls", True),
        max_tokens=max_tokens,
        effort=given.get("reasoning_effort"),
        reasoning_budget=budget,
        stop=given.get("stop", ()),
        stream=stream,
        include_usage=bool(options and options.get("include_usage", bool, False)),
        response_format=given.get("response_format", ResponseFormat()),
        temperature=given.get("temperature"),
        top_p=given.get("top_p"),
        seed=given.get("seed"),
        cache_key=given.get("prompt_cache_key") or given.get("user"),
        api_key=bearer(headers),
        headers=headers,
        fingerprint=fingerprint,
    )


def _message(m: Fields) -> Message:
    role = m.choice("role", ROLES)
    if role is None:
        m.need("role", str)
    text, images = _content(m, required=role != "assistant")
    calls = tuple(_tool_call(c) for c in m.objects("tool_calls")) if role == "assistant" else ()
    return Message(
        role=role,  # type: ignore[arg-type]
        text=text,
        reasoning=m.get("reasoning_content", str, "") or "",
        tool_calls=calls,
        tool_call_id=m.need("tool_call_id", str) if role == "tool" else None,
        images=images,
    )


def _content(m: Fields, *, required: bool) -> tuple[str, int]:
    """The text of `content` (a string or an array of parts) and how many images it holds."""
    content = m.data.get("content")
    if content is None:
        if required:
            m.need("content", str)
        return "", 0
    if isinstance(content, str):
        return content, 0
    if not isinstance(content, list):
        raise wrong_type(m.at("content"), "a string or an array of content parts", content)
    texts, images = [], 0
    for part in m.objects("content"):
        kind = part.choice("type", ("text", "image_url", "refusal"))
        if kind == "text":
            texts.append(part.need("text", str))
        elif kind == "refusal":
            texts.append(part.need("refusal", str))
        elif kind == "image_url":
            image = part.obj("image_url", required=True)
            assert image is not None
            url = image.need("url", str)
            if not url.startswith("data:"):
                raise InvalidRequest(
                    f"Invalid '{image.at('url')}': remote image URLs are not supported; "
                    "send the image inline as a base64 data: URL.",
                    param=image.at("url"),
                    code="invalid_value",
                )
            images += 1
        else:
            raise wrong_value(part.at("type"), None, ("text", "image_url"))
    return "\n".join(texts), images


def _tool_call(c: Fields) -> ToolCall:
    kind = c.choice("type", ("function",), "function")
    function = c.obj("function", required=True)
    assert function is not None and kind is not None
    return ToolCall(id=c.need("id", str), name=function.need("name", str), arguments=function.need("arguments", str))


def _tool(t: Fields) -> Tool:
    if t.choice("type", ("function",)) is None:
        t.need("type", str)
    function = t.obj("function", required=True)
    assert function is not None
    return Tool(
        name=function.need("name", str),
        description=function.get("description", str, "") or "",
        parameters=function.get("parameters", dict),
    )


def _tool_choice(f: Fields, tools: tuple[Tool, ...]) -> ToolChoice:
    value = f.data.get("tool_choice")
    if value is None:
        return ToolChoice()
    if isinstance(value, str):
        mode = f.choice("tool_choice", ("auto", "none", "required"))
        return ToolChoice(mode)  # type: ignore[arg-type]
    named = f.obj("tool_choice")
    assert named is not None
    named.choice("type", ("function",))
    function = named.obj("function", required=True)
    assert function is not None
    name = function.need("name", str)
    if name not in {t.name for t in tools}:
        raise InvalidRequest(
            f"Invalid value for '{function.at('name')}': no function named '{name}' was given in 'tools'.",
            param=function.at("name"),
            code="invalid_value",
        )
    return ToolChoice("required", name)


def _stop(f: Fields) -> tuple[str, ...]:
    value = f.data.get("stop")
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(s, str) for s in value):
        return tuple(s for s in value if s)
    raise wrong_type("stop", "a string or an array of strings", value)


def _response_format(f: Fields) -> ResponseFormat:
    rf = f.obj("response_format")
    if rf is None:
        return ResponseFormat()
    kind = rf.choice("type", ("text", "json_object", "json_schema"))
    if kind == "json_schema":
        spec = rf.obj("json_schema", required=True)
        assert spec is not None
        spec.need("name", str)
        return ResponseFormat("json_schema", spec.get("schema", dict))
    if kind is None:
        rf.need("type", str)
    return ResponseFormat(kind)  # type: ignore[arg-type]


_OPTIONAL: dict[str, Callable[[Fields], Any]] = {
    "tools": lambda f: tuple(_tool(t) for t in f.objects("tools")),
    "tool_choice": lambda f: f.data["tool_choice"],  # read once the tools are known
    "stream": lambda f: bool(f.get("stream", bool, False)),
    "stream_options": lambda f: f.obj("stream_options"),
    "max_completion_tokens": lambda f: f.count("max_completion_tokens"),
    "max_tokens": lambda f: f.count("max_tokens"),
    "thinking_budget": lambda f: f.count("thinking_budget", low=0),
    "presence_penalty": lambda f: f.number("presence_penalty", -2, 2),
    "frequency_penalty": lambda f: f.number("frequency_penalty", -2, 2),
    "parallel_tool_calls": lambda f: bool(f.get("parallel_tool_calls", bool, True)),
    "reasoning_effort": lambda f: f.choice("reasoning_effort", EFFORTS),
    "stop": _stop,
    "response_format": _response_format,
    "temperature": lambda f: f.number("temperature", 0, 2),
    "top_p": lambda f: f.number("top_p", 0, 1),
    "seed": lambda f: f.get("seed", int),
    "prompt_cache_key": lambda f: f.get("prompt_cache_key", str),
    "user": lambda f: f.get("user", str),
}


# --- response ------------------------------------------------------------------------------------


def _usage(usage: Usage) -> dict[str, Any]:
    return {
        "prompt_tokens": usage.input_tokens,
        "completion_tokens": usage.output_tokens,
        "total_tokens": usage.total_tokens,
        "prompt_tokens_details": {"cached_tokens": usage.cached_tokens},
        "completion_tokens_details": {"reasoning_tokens": usage.reasoning_tokens},
    }


@lru_cache(maxsize=256)
def _system_fingerprint(model: str) -> str:
    return ids.make("fp_", model, length=10)


def _head(turn: Turn, kind: str) -> dict[str, Any]:
    return {
        "id": ids.make("chatcmpl-", turn.id, length=29),
        "object": kind,
        "created": turn.created,
        "model": turn.model,
        "system_fingerprint": _system_fingerprint(turn.model),
    }


def _call(call: ToolCall) -> dict[str, Any]:
    return {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": call.arguments}}


def _no_content(turn: Turn) -> str | None:
    """`content` before any text: null when reasoning or tool calls come instead, as DeepSeek-style servers send."""
    return None if turn.reasoning or turn.tool_calls else ""


def render(prompt: Prompt, turn: Turn) -> dict[str, Any]:
    """The `chat.completion` object for a non-streamed request."""
    message: dict[str, Any] = {"role": "assistant", "content": turn.text or _no_content(turn), "refusal": None}
    if turn.reasoning:
        message["reasoning_content"] = turn.reasoning
    if turn.tool_calls:
        message["tool_calls"] = [_call(c) for c in turn.tool_calls]
    return _head(turn, "chat.completion") | {
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": turn.finish_reason}],
        "usage": _usage(turn.usage),
    }


def render_stream(prompt: Prompt, turn: Turn) -> list[bytes]:
    """Every SSE event of the streamed answer, `[DONE]` included, in order."""
    # Every chunk shares its head and tail, so they are encoded once and each delta is spliced in.
    head = dumps(_head(turn, "chat.completion.chunk"))[:-1] + ',"choices":[{"index":0,"delta":'
    tail = ',"logprobs":null,"finish_reason":%s}]' + (',"usage":null}' if prompt.include_usage else "}")
    open_tail = tail % "null"

    def chunk(delta: dict[str, Any]) -> bytes:
        return frame(head + dumps(delta) + open_tail)

    def text_chunks(key: str, text: str) -> list[bytes]:
        # The hot loop of every stream: one delta per token, spliced as text rather than dumped.
        start, end = f'{head}{{"{key}":', f"}}{open_tail}\n\n"
        return [f"data: {start}{quote(piece)}{end}".encode() for piece in tokens.split(text)]

    first: dict[str, Any] = {"role": "assistant", "content": _no_content(turn)}
    if turn.reasoning:
        first["reasoning_content"] = ""
    else:
        first["refusal"] = None
    events = [chunk(first)]
    events += text_chunks("reasoning_content", turn.reasoning)
    events += text_chunks("content", turn.text)
    for index, call in enumerate(turn.tool_calls):
        opening = {"index": index} | _call(call)
        opening["function"] = {"name": call.name, "arguments": ""}
        events.append(chunk({"tool_calls": [opening]}))
        events += [
            chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
            for piece in tokens.split(call.arguments)
        ]
    events.append(frame(head + "{}" + tail % dumps(turn.finish_reason)))
    if prompt.include_usage:
        usage_chunk = _head(turn, "chat.completion.chunk") | {"choices": [], "usage": _usage(turn.usage)}
        events.append(frame(dumps(usage_chunk)))
    fault = turn.fault
    if fault and fault.kind == "stream_error":  # the stream breaks off: no finish chunk, no usage, no [DONE]
        error = UpstreamError.of(fault)
        return events[: fault.after_events or 0] + [render_stream_error(error)]
    events.append(DONE)
    return events


def render_error(error: EmulatorError) -> dict[str, Any]:
    return openai_body(error)


def render_stream_error(error: EmulatorError) -> bytes:
    """An error after the stream started: a `data:` line whose `error` the SDK raises as `APIError`."""
    return frame(dumps(render_error(error)))
