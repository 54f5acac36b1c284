"""OpenAI Chat Completions (`POST /v1/chat/completions`), as Inferam serves it (seed 000).

Parse and validate the request into a `Prompt`; render a `Turn` as a `chat.completion` or as the SSE
stream of `chat.completion.chunk`s (reference wire-formats.md §1.2): a role chunk, `reasoning_content`
deltas, content deltas, tool-call deltas (index, id and name first, argument fragments after), the
chunk that carries `finish_reason`, the usage chunk with `choices: []` when asked for, `[DONE]`.
The request's profile (`Prompt.profile`) reshapes it: Infercom's (seed 003) `reasoning` field, UUID ids,
float `created`, timing-rich usage, whole tool calls, `n` choices and its extra validation.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from functools import lru_cache
from typing import Any

from emulator import ids, profiles, tokens
from emulator.conversation import (
    EFFORTS,
    FINISH_REASONS,
    Message,
    Prompt,
    Reply,
    ResponseFormat,
    Tool,
    ToolCall,
    ToolChoice,
    Turn,
    Usage,
)
from emulator.errors import EmulatorError, InvalidRequest, UpstreamError, model_output_message, openai_body
from emulator.fields import Fields, bearer, wrong_type, wrong_value
from emulator.sse import comment, decode, dumps, frame, loads, quote

ROLES = ("system", "developer", "user", "assistant", "tool")
DONE = frame("[DONE]")
NAME = "openai_chat"  # as `Prompt.dialect` and profiles name it
# A frame cut short, as its clients parse it: broken JSON.
MALFORMED = b'data: {"id": "chatcmpl-", "object": "chat.completion.chunk", "choices": [{"delta": {"content": "unt\n\n'
KEEPALIVE = comment("keep-alive")  # an SSE comment: clients skip it, idle timers see bytes
AUTO, TEXT = ToolChoice(), ResponseFormat()  # the defaults, built once rather than per request


# --- request -------------------------------------------------------------------------------------


def parse_request(
    body: Any, headers: Mapping[str, str], fingerprint: str = "", profile: str = profiles.DEFAULT
) -> Prompt:
    """Validate a request body into a `Prompt`; any bad field raises `InvalidRequest` naming it.

    Fields Inferam ignores (n, logprobs, best_of, logit_bias, engine-specific sampling) are ignored;
    a profile may check more of them (Infercom: `top_k`, `n`, at most 128 tools, its efforts).
    """
    rules = profiles.PROFILES[profile]
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
    given = {key: _OPTIONAL[key](f) for key in f.data if key in _OPTIONAL and key not in rules.own}
    tools = given.get("tools", ())
    stream = given.get("stream", False)
    options = given.get("stream_options")
    if options is not None and not stream:
        raise InvalidRequest(
            "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
            param="stream_options",
            code="invalid_value",
        )
    if rules.max_tools is not None and len(tools) > rules.max_tools:
        raise InvalidRequest(
            f"Invalid 'tools': array too long. Expected an array with maximum length {rules.max_tools}, "
            f"but got an array with length {len(tools)} instead.",
            param="tools",
            code="array_above_max_length",
        )
    choices = f.count("n") or 1 if rules.max_choices > 1 else 1
    if choices > rules.max_choices:
        raise wrong_value("n", choices, f"an integer from 1 to {rules.max_choices}")
    if rules.top_k is not None and (top_k := f.get("top_k", int)) is not None:
        low, high = rules.top_k
        if not low <= top_k <= high:
            raise wrong_value("top_k", top_k, f"an integer from {low} to {high}")
    effort = given.get("reasoning_effort")
    if rules.thinking is not None or rules.efforts is not None:  # the profile's efforts and thinking rules
        effort = f.get("reasoning_effort", str) if rules.efforts is not None else effort
        kwargs = f.obj("chat_template_kwargs")
        flag = kwargs.get("enable_thinking", bool) if kwargs else None
        effort = profiles.effort(rules, model, effort, flag)
    max_tokens = given.get("max_completion_tokens") or given.get("max_tokens")
    budget = given.get("thinking_budget")
    if budget is not None and max_tokens is not None:
        budget = min(budget, max_tokens)  # "no larger than the output limit": capped, not refused
    return Prompt(
        dialect=NAME,
        model=model,
        messages=messages,
        tools=tools,
        tool_choice=_tool_choice(f, tools) if "tool_choice" in given else AUTO,
        parallel_tool_calls=given.get("parallel_tool_calls", True),
        max_tokens=max_tokens,
        effort=effort,
        reasoning_budget=budget,
        stop=given.get("stop", ()),
        stream=stream,
        include_usage=bool(options and options.get("include_usage", bool, False)),
        response_format=given.get("response_format", TEXT),
        temperature=given.get("temperature"),
        top_p=given.get("top_p"),
        seed=given.get("seed"),
        cache_key=given.get("prompt_cache_key") or given.get("user"),
        api_key=bearer(headers),
        headers=headers,
        fingerprint=fingerprint,
        profile=profile,
        choices=choices,
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
        reasoning=m.get("reasoning_content", str, "") or _string(m.data.get("reasoning")),
        tool_calls=calls,
        tool_call_id=m.need("tool_call_id", str) if role == "tool" else None,
        images=images,
    )


def _string(value: Any) -> str:
    """Infercom's assistant messages carry their reasoning as `reasoning`, a string; other shapes are ignored."""
    return value if isinstance(value, str) else ""


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


def _start(turn: Turn) -> float:
    """When generation started, with a seeded fraction of a second: `created` is whole seconds."""
    return turn.created + ids.number(turn.id, "start") % 1_000_000 / 1_000_000


def _ttft(profile: profiles.Profile, turn: Turn) -> float:
    """Seconds to the first token: the turn's pacing, else the profile's nominal speed."""
    return ((turn.timing and turn.timing.ttft_ms) or profile.nominal.ttft_ms) / 1000


def _timing_usage(profile: profiles.Profile, choices: list[Turn]) -> dict[str, Any]:
    """Infercom's usage (seed 003's `Usage`): token counts and the timings of a generation paced as the
    turn's timing says (else at the profile's nominal speed), so the figures agree with one another."""
    turn = choices[0]
    usage = turn.usage
    completion = sum(t.usage.output_tokens for t in choices)
    ttft = _ttft(profile, turn)
    rate = (turn.timing and turn.timing.tokens_per_second) or profile.nominal.tokens_per_second
    after_first = max(0, usage.output_tokens - 1)
    latency = ttft + after_first / rate
    start = _start(turn)
    total = usage.input_tokens + completion
    return {
        "acceptance_rate": 1 + ids.number(turn.id, "acceptance") % 3_000_000 / 1_000_000,
        "completion_tokens": completion,
        "completion_tokens_after_first_per_sec": rate if after_first else 0.0,
        "completion_tokens_after_first_per_sec_first_ten": rate if after_first else 0.0,
        "completion_tokens_after_first_per_sec_graph": rate if after_first else 0.0,
        "completion_tokens_per_sec": completion / latency,
        "end_time": start + latency,
        "is_last_response": True,
        "prompt_tokens": usage.input_tokens,
        "prompt_tokens_details": {"cached_tokens": usage.cached_tokens},
        "start_time": start,
        "stop_reason": _finish_reason(profile, turn),
        "time_to_first_token": ttft,
        "time_to_first_token_graph": ttft,
        "total_latency": latency,
        "total_tokens": total,
        "total_tokens_per_sec": total / latency,
    }


def _usage_for(profile: profiles.Profile, choices: list[Turn]) -> dict[str, Any]:
    if profile.timing_usage:
        return _timing_usage(profile, choices)
    return _usage(choices[0].usage)


@lru_cache(maxsize=256)
def _system_fingerprint(model: str) -> str:
    return ids.make("fp_", model, length=10)


def _head(profile: profiles.Profile, turn: Turn, kind: str) -> dict[str, Any]:
    created: float = turn.created
    if profile.float_created:  # the first token's time: after the generation started
        created = _start(turn) + _ttft(profile, turn)
    return {
        "id": ids.uuid(turn.id) if profile.uuid_ids else ids.make("chatcmpl-", turn.id, length=29),
        "object": kind,
        "created": created,
        "model": turn.model,
        "system_fingerprint": profile.system_fingerprint or _system_fingerprint(turn.model),
    }


def _finish_reason(profile: profiles.Profile, turn: Turn) -> str:
    """The turn's finish reason, where the profile has it; else `stop` (Infercom has no `content_filter`)."""
    return turn.finish_reason if turn.finish_reason in profile.finish_reasons else "stop"


def _call(call: ToolCall) -> dict[str, Any]:
    return {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": call.arguments}}


def _shown(profile: profiles.Profile, turn: Turn) -> Turn:
    """The turn as the profile shows it: OpenAI's models reason unseen (their tokens still counted)."""
    return replace(turn, reasoning="") if profile.hidden_reasoning and turn.reasoning else turn


def _no_content(turn: Turn) -> str | None:
    """`content` before any text: null when reasoning or tool calls come instead, as DeepSeek-style servers send."""
    return None if turn.reasoning or turn.tool_calls else ""


def render(prompt: Prompt, turn: Turn) -> dict[str, Any]:
    """The `chat.completion` object for a non-streamed request, in the profile's shape."""
    if turn.fault and turn.fault.kind == "model_output":
        return _model_output_error(turn)
    profile = profiles.PROFILES[prompt.profile]
    choices = _choices(profile, prompt, turn)
    return _head(profile, turn, "chat.completion") | {
        "choices": [_choice(profile, i, t) for i, t in enumerate(choices)],
        "usage": _usage_for(profile, choices),
    }


def _choices(profile: profiles.Profile, prompt: Prompt, turn: Turn) -> list[Turn]:
    """One turn per choice (`n`), as the profile shows them: the alternatives, or the one turn repeated."""
    turns = [turn, *turn.alternatives] if turn.alternatives else [turn] * prompt.choices
    return [_shown(profile, t) for t in turns]


def _choice(profile: profiles.Profile, index: int, turn: Turn) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": turn.text or _no_content(turn)}
    if profile.refusal:
        message["refusal"] = None
    if turn.reasoning:
        message[profile.reasoning_field] = turn.reasoning
    if turn.tool_calls:
        message["tool_calls"] = [_call(c) for c in turn.tool_calls]
    return {"index": index, "message": message, "logprobs": None, "finish_reason": _finish_reason(profile, turn)}


def render_stream(prompt: Prompt, turn: Turn) -> list[bytes]:
    """Every SSE event of the streamed answer, `[DONE]` included, in order."""
    if turn.fault and turn.fault.kind == "model_output":  # nothing was generated well enough to stream
        return [frame(dumps(_model_output_error(turn)))]
    profile = profiles.PROFILES[prompt.profile]
    choices = _choices(profile, prompt, turn)
    include_usage = prompt.include_usage or profile.stream_usage
    # Infercom's chunks carry no `usage` key until the last one (seed 003's examples).
    null_usage = include_usage and not profile.stream_usage
    head_fields = dumps(_head(profile, turn, "chat.completion.chunk"))[:-1]
    tail = ',"logprobs":null,"finish_reason":%s}]' + (',"usage":null}' if null_usage else "}")
    open_tail = tail % "null"
    events = []
    for index, choice in enumerate(choices):  # `n`: each choice streamed whole, one after another
        head = head_fields + f',"choices":[{{"index":{index},"delta":'
        events += _choice_events(profile, choice, head, tail, open_tail)
    if include_usage:
        usage = {"choices": [], "usage": _usage_for(profile, choices)}
        events.append(frame(dumps(_head(profile, turn, "chat.completion.chunk") | usage)))
    fault = turn.fault
    if fault and fault.kind == "stream_error":  # the stream breaks off: no finish chunk, no usage, no [DONE]
        error = UpstreamError.of(fault)
        return events[: fault.after_events or 0] + [render_stream_error(error)]
    events.append(DONE)
    return events


def _choice_events(profile: profiles.Profile, turn: Turn, head: str, tail: str, open_tail: str) -> list[bytes]:
    """The chunks of one choice: role, reasoning, content, tool calls, and the one with `finish_reason`."""

    def chunk(delta: dict[str, Any]) -> bytes:
        return frame(head + dumps(delta) + open_tail)

    def text_chunks(key: str, text: str, channel: str) -> list[bytes]:
        # The hot loop of every stream: one delta per token, spliced as text rather than dumped.
        named = f',"channel":"{channel}"' if profile.channels and turn.reasoning else ""
        start, end = f'{head}{{"{key}":', f"{named}}}{open_tail}\n\n"
        return [f"data: {start}{quote(piece)}{end}".encode() for piece in tokens.split(text)]

    first: dict[str, Any] = {"role": "assistant", "content": _no_content(turn)}
    if turn.reasoning:
        first[profile.reasoning_field] = ""
    elif profile.refusal:
        first["refusal"] = None
    events = [chunk(first)]
    events += text_chunks(profile.reasoning_field, turn.reasoning, "analysis")
    events += text_chunks("content", turn.text, "final")
    for index, call in enumerate(turn.tool_calls):
        if profile.whole_tool_calls:  # id, type and function on every entry: the call in one chunk
            events.append(chunk({"tool_calls": [{"index": index} | _call(call)]}))
            continue
        opening = {"index": index} | _call(call)
        opening["function"] = {"name": call.name, "arguments": ""}
        events.append(chunk({"tool_calls": [opening]}))
        events += [
            chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
            for piece in tokens.split(call.arguments)
        ]
    # Infercom's last content chunk says `content: ""` beside the finish reason (seed 003's example).
    last = '{"content":""}' if profile.finish_content else "{}"
    events.append(frame(head + last + tail % dumps(_finish_reason(profile, turn))))
    return events


def _model_output_error(turn: Turn) -> dict[str, Any]:
    """Infercom's `ModelOutputError` (seed 003), answered with status 200 "when unsuccessful tool calling or
    structured response generation": the raw output the model produced rides along in `model_output`."""
    fault = turn.fault
    assert fault is not None
    if fault.output is not None:
        output = fault.output
    else:  # the answer broken off halfway: a tool call's JSON, else the text
        raw = (
            dumps({"name": turn.tool_calls[0].name, "arguments": turn.tool_calls[0].arguments})
            if turn.tool_calls
            else turn.text
        )
        output = raw[: max(1, len(raw) // 2)]
    return {
        "error": {
            "code": fault.code,
            "message": model_output_message(fault, bool(turn.tool_calls)),
            "model_output": output,
            "param": None,
            "type": "model_output_error",
        }
    }


def render_error(error: EmulatorError) -> dict[str, Any]:
    return openai_body(error)


def render_stream_error(error: EmulatorError) -> bytes:
    """An error after the stream started: a `data:` line whose `error` the SDK raises as `APIError`."""
    return frame(dumps(render_error(error)))


# --- reading a recorded answer -----------------------------------------------------------------------


def read_response(body: bytes, stream: bool) -> Reply:
    """A recorded answer (a `chat.completion`, or the SSE stream of its chunks) back as a `Reply`, so that
    it can answer the same conversation in another dialect; the first choice only. `ValueError` when
    the body is not one."""
    if not stream:
        completion = loads(body)
        choice = completion["choices"][0]
        message = choice["message"]
        calls = [(c["id"], c["function"]["name"], c["function"]["arguments"]) for c in message.get("tool_calls") or ()]
        reasoning = message.get("reasoning_content") or message.get("reasoning") or ""
        return _reply(reasoning, message.get("content") or "", calls, choice["finish_reason"], completion.get("usage"))
    reasoning, text, finish, usage = "", "", None, None
    pieces: dict[int, list[str]] = {}  # index → [id, name, arguments]
    for event in decode([body]):
        if event.data == "[DONE]":
            break
        chunk = event.json()
        if "error" in chunk:
            raise ValueError("the recorded stream ends in an error")
        usage = chunk.get("usage") or usage
        for choice in chunk.get("choices") or ():
            if choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta") or {}
            reasoning += delta.get("reasoning_content") or delta.get("reasoning") or ""
            text += delta.get("content") or ""
            for call in delta.get("tool_calls") or ():
                entry = pieces.setdefault(call.get("index", len(pieces)), ["", "", ""])
                function = call.get("function") or {}
                entry[0] = call.get("id") or entry[0]
                entry[1] = function.get("name") or entry[1]
                entry[2] += function.get("arguments") or ""
            finish = choice.get("finish_reason") or finish
    return _reply(reasoning, text, [tuple(pieces[i]) for i in sorted(pieces)], finish, usage)


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
