"""OpenAI Responses (`POST /v1/responses`), stateless, as Inferam serves it to Codex (seed 001).

Parse `input` (a string or a list of items) into a `Prompt`; render a `Turn` as a `Response` or as the
event stream of wire-formats.md §2.2: `event:` and `data:` lines, `sequence_number` from 0 in steps of
1, created, in_progress, each output item opened, streamed and closed, then exactly one terminal event
(`response.completed`, `response.incomplete` or `response.failed`), after which the body ends.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from emulator import ids, profiles, tokens
from emulator.conversation import (
    EFFORTS,
    FinishReason,
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
from emulator.errors import EmulatorError, InvalidRequest, UpstreamError, openai_body
from emulator.fields import Fields, bearer, wrong_type, wrong_value
from emulator.sse import comment, decode, dumps, frame, loads

ROLES = ("user", "assistant", "system", "developer")
# Items the model produced: a run of them in `input` is one assistant turn.
MODEL_ITEMS = ("reasoning", "function_call", "custom_tool_call")
ITEM_TYPES = ("message", *MODEL_ITEMS, "function_call_output", "custom_tool_call_output")
# Inferam can't run hosted tools and drops them from the request (seed 001).
CLIENT_TOOLS = ("function", "custom")
NAME = "openai_responses"  # as `Prompt.dialect` and profiles name it
# A frame cut short, as its clients parse it: broken JSON.
MALFORMED = b'event: response.output_text.delta\ndata: {"type": "response.output_text.delta", "delta": "unt\n\n'
KEEPALIVE = comment("keep-alive")  # an SSE comment: clients skip it, idle timers see bytes


# --- request -------------------------------------------------------------------------------------


def parse_request(body: Any, headers: Mapping[str, str], fingerprint: str = "", profile: str = "inferam") -> Prompt:
    """Validate a request body into a `Prompt`; any bad field raises `InvalidRequest` naming it."""
    f = Fields(body)
    model = f.need("model", str)
    if "previous_response_id" in f:
        raise InvalidRequest(
            "Invalid 'previous_response_id': this server keeps no conversation state (store is always false). "
            "Send the whole conversation in 'input'.",
            param="previous_response_id",
            code="invalid_value",
        )
    messages = _input(f)
    instructions = f.get("instructions", str)
    if instructions:
        messages = [Message("system", instructions), *messages]
    tools_raw = [t for t in f.objects("tools") if t.get("type", str) in CLIENT_TOOLS]
    tools = tuple(_tool(t) for t in tools_raw)
    reasoning = f.obj("reasoning")
    text = f.obj("text")
    choice, choice_echo = _tool_choice(f, tools)
    echo = {
        "instructions": instructions,
        "tools": [_tool_echo(t) for t in tools_raw],
        "tool_choice": choice_echo,
        "max_output_tokens": f.count("max_output_tokens"),
        "reasoning": {
            "effort": reasoning and reasoning.get("effort", str),
            "summary": reasoning and reasoning.get("summary", str),
        },
        "text": {"format": text.data.get("format") if text and text.obj("format") else {"type": "text"}},
        "temperature": f.number("temperature", 0, 2),
        "top_p": f.number("top_p", 0, 1),
        "parallel_tool_calls": f.get("parallel_tool_calls", bool, True),
        "metadata": f.get("metadata", dict, {}),
        "prompt_cache_key": f.get("prompt_cache_key", str),
        "user": f.get("user", str),
    }
    return Prompt(
        dialect=NAME,
        profile=profile,
        model=model,
        messages=tuple(messages),
        tools=tools,
        tool_choice=choice,
        parallel_tool_calls=bool(echo["parallel_tool_calls"]),
        max_tokens=echo["max_output_tokens"],
        effort=_effort(profile, model, reasoning.choice("effort", EFFORTS) if reasoning else None),
        stream=bool(f.get("stream", bool, False)),
        response_format=_format(text),
        temperature=echo["temperature"],
        top_p=echo["top_p"],
        cache_key=echo["prompt_cache_key"] or echo["user"],
        api_key=bearer(headers),
        headers=headers,
        fingerprint=fingerprint,
        echo=echo,
    )


def _input(f: Fields) -> list[Message]:
    value = f.data.get("input")
    if value is None:
        f.need("input", str)
    if isinstance(value, str):
        return [Message("user", value)]
    if not isinstance(value, list):
        raise wrong_type("input", "a string or an array of input items", value)
    messages: list[Message] = []
    turn: dict[str, Any] | None = None  # the assistant turn being gathered from consecutive model items
    for item in f.objects("input"):
        kind = item.choice("type", ITEM_TYPES, "message")
        role = item.choice("role", ROLES) if kind == "message" else None
        if kind in MODEL_ITEMS or role == "assistant":
            if turn is None:
                turn = {"text": [], "reasoning": [], "calls": []}
                messages.append(Message("assistant"))  # replaced when the run ends
            _gather(item, kind, turn)
            messages[-1] = Message(
                "assistant",
                text="".join(turn["text"]),
                reasoning="\n".join(turn["reasoning"]),
                tool_calls=tuple(turn["calls"]),
            )
            continue
        turn = None
        if kind == "message":
            if role is None:
                item.need("role", str)
            text, images = _content(item)
            messages.append(Message(role, text=text, images=images))  # type: ignore[arg-type]
        else:  # a tool's output
            output = item.data.get("output")
            if not isinstance(output, (str, list)):
                raise wrong_type(item.at("output"), "a string or an array of content parts", output)
            text = output if isinstance(output, str) else _content(item, "output")[0]
            messages.append(Message("tool", text=text, tool_call_id=item.need("call_id", str)))
    return messages


def _gather(item: Fields, kind: str | None, turn: dict[str, Any]) -> None:
    if kind == "reasoning":
        parts = item.objects("content") or item.objects("summary")
        turn["reasoning"].append("".join(p.need("text", str) for p in parts))
    elif kind == "function_call":
        turn["calls"].append(ToolCall(item.need("call_id", str), item.need("name", str), item.need("arguments", str)))
    elif kind == "custom_tool_call":
        call = ToolCall(item.need("call_id", str), item.need("name", str), item.need("input", str), "custom")
        turn["calls"].append(call)
    else:
        turn["text"].append(_content(item)[0])


def _content(item: Fields, key: str = "content") -> tuple[str, int]:
    """The text of a content field (a string or an array of parts) and how many images it holds."""
    content = item.data.get(key)
    if isinstance(content, str):
        return content, 0
    if not isinstance(content, list):
        if content is None:
            item.need(key, str)
        raise wrong_type(item.at(key), "a string or an array of content parts", content)
    texts, images = [], 0
    for part in item.objects(key):
        kind = part.choice("type", ("input_text", "output_text", "input_image", "refusal"))
        if kind in ("input_text", "output_text"):
            texts.append(part.need("text", str))
        elif kind == "refusal":
            texts.append(part.need("refusal", str))
        elif kind == "input_image":
            url = part.get("image_url", str)
            if url is None or not url.startswith("data:"):
                raise InvalidRequest(
                    f"Invalid '{part.at('image_url')}': only base64 data: URLs are supported; "
                    "remote image URLs and file ids are not.",
                    param=part.at("image_url"),
                    code="invalid_value",
                )
            images += 1
        else:
            part.need("type", str)
    return "\n".join(texts), images


def _tool(t: Fields) -> Tool:
    if t.get("type", str) == "custom":
        return Tool(name=t.need("name", str), kind="custom", description=t.get("description", str, "") or "")
    return Tool(
        name=t.need("name", str),
        description=t.get("description", str, "") or "",
        parameters=t.get("parameters", dict),
    )


def _tool_echo(t: Fields) -> dict[str, Any]:
    """The tool as the Response object lists it: the request's own fields, with the ones the type requires."""
    if t.data["type"] == "custom":
        return {"type": "custom", "name": t.data["name"]} | {
            k: t.data[k] for k in ("description", "format") if k in t.data
        }
    return {
        "type": "function",
        "name": t.data["name"],
        "description": t.data.get("description"),
        "parameters": t.data.get("parameters"),
        "strict": t.data.get("strict"),
    }


def _tool_choice(f: Fields, tools: tuple[Tool, ...]) -> tuple[ToolChoice, Any]:
    value = f.data.get("tool_choice")
    if value is None:
        return ToolChoice(), "auto"
    if isinstance(value, str):
        return ToolChoice(f.choice("tool_choice", ("auto", "none", "required"))), value  # type: ignore[arg-type]
    choice = f.obj("tool_choice")
    assert choice is not None
    kind = choice.need("type", str)
    if kind not in CLIENT_TOOLS:  # a hosted tool, an allowed-tools list: nothing to force here
        return ToolChoice(), "auto"
    name = choice.need("name", str)
    if name not in {t.name for t in tools}:
        raise wrong_value(choice.at("name"), name, "the name of a tool given in 'tools'")
    return ToolChoice("required", name), {"type": kind, "name": name}


def _format(text: Fields | None) -> ResponseFormat:
    spec = text.obj("format") if text else None
    if spec is None:
        return ResponseFormat()
    kind = spec.choice("type", ("text", "json_object", "json_schema"))
    if kind == "json_schema":
        spec.need("name", str)
        return ResponseFormat("json_schema", spec.need("schema", dict))
    if kind is None:
        spec.need("type", str)
    return ResponseFormat(kind)  # type: ignore[arg-type]


# --- response ------------------------------------------------------------------------------------


def _effort(profile: str, model: str, asked: str | None) -> str | None:
    rules = profiles.PROFILES[profile]
    return profiles.effort(rules, model, asked, None) if rules.thinking is not None else asked


def _items(prompt: Prompt, turn: Turn) -> list[dict[str, Any]]:
    """The finished output items, in order: reasoning, message, then each tool call. OpenAI shows no raw
    reasoning: its item has a summary only when `reasoning.summary` asks for one."""
    items: list[dict[str, Any]] = []
    if turn.reasoning:
        shown = not profiles.PROFILES[prompt.profile].hidden_reasoning
        summarised = shown or prompt.echo.get("reasoning", {}).get("summary")
        item: dict[str, Any] = {"id": ids.make("rs_", turn.id), "type": "reasoning"}
        item["summary"] = [{"type": "summary_text", "text": turn.reasoning}] if summarised else []
        if shown:
            item["content"] = [{"type": "reasoning_text", "text": turn.reasoning}]
        items.append(item | {"encrypted_content": None, "status": "completed"})
    if turn.text:
        items.append(
            {
                "id": ids.make("msg_", turn.id),
                "type": "message",
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": turn.text, "annotations": [], "logprobs": []}],
            }
        )
    for call in turn.tool_calls:
        if call.kind == "custom":
            items.append(
                {
                    "id": ids.make("ctc_", turn.id, call.id),
                    "type": "custom_tool_call",
                    "status": "completed",
                    "call_id": call.id,
                    "name": call.name,
                    "input": call.arguments,
                }
            )
        else:
            items.append(
                {
                    "id": ids.make("fc_", turn.id, call.id),
                    "type": "function_call",
                    "status": "completed",
                    "call_id": call.id,
                    "name": call.name,
                    "arguments": call.arguments,
                }
            )
    if turn.finish_reason in ("length", "content_filter") and items:
        items[-1]["status"] = "incomplete"
    return items


def _status(turn: Turn) -> tuple[str, dict[str, str] | None]:
    if turn.finish_reason == "length":
        return "incomplete", {"reason": "max_output_tokens"}
    if turn.finish_reason == "content_filter":
        return "incomplete", {"reason": "content_filter"}
    return "completed", None


def _response(
    prompt: Prompt, turn: Turn, status: str, output: list[dict[str, Any]], *, usage: bool = True
) -> dict[str, Any]:
    echo = prompt.echo
    u = turn.usage
    return {
        "id": ids.make("resp_", turn.id),
        "object": "response",
        "created_at": turn.created,
        "status": status,
        "error": None,
        "incomplete_details": None,
        "instructions": echo.get("instructions"),
        "max_output_tokens": echo.get("max_output_tokens"),
        "model": turn.model,
        "output": output,
        "parallel_tool_calls": echo.get("parallel_tool_calls", True),
        "previous_response_id": None,
        "reasoning": echo.get("reasoning", {"effort": None, "summary": None}),
        "store": False,  # stateless: always false (seed 001)
        "temperature": echo.get("temperature"),
        "text": echo.get("text", {"format": {"type": "text"}}),
        "tool_choice": echo.get("tool_choice", "auto"),
        "tools": echo.get("tools", []),
        "top_p": echo.get("top_p"),
        "truncation": "disabled",
        "usage": {
            "input_tokens": u.input_tokens,
            "input_tokens_details": {"cached_tokens": u.cached_tokens, "cache_write_tokens": 0},
            "output_tokens": u.output_tokens,
            "output_tokens_details": {"reasoning_tokens": _reasoning_tokens(prompt, u)},
            "total_tokens": u.total_tokens,
        }
        if usage
        else None,
        "user": echo.get("user"),
        "metadata": echo.get("metadata", {}),
    }


def _reasoning_tokens(prompt: Prompt, usage: Usage) -> int:
    """OpenAI's count; Inferam always reports 0, its reasoning being in `output_tokens` (seed 001)."""
    return usage.reasoning_tokens if profiles.PROFILES[prompt.profile].hidden_reasoning else 0


def render(prompt: Prompt, turn: Turn) -> dict[str, Any]:
    """The `Response` object for a non-streamed request."""
    status, details = _status(turn)
    return _response(prompt, turn, status, _items(prompt, turn)) | {"incomplete_details": details}


def render_stream(prompt: Prompt, turn: Turn) -> list[bytes]:
    """Every SSE event of the streamed answer, in order, numbered from 0."""
    payloads: list[dict[str, Any]] = []
    done: list[tuple[int, dict[str, Any]]] = []  # (position of its output_item.done, item), for response.failed

    def emit(kind: str, **fields: Any) -> None:
        payloads.append({"type": kind, **fields})

    started = _response(prompt, turn, "in_progress", [], usage=False)
    emit("response.created", response=started)
    emit("response.in_progress", response=started)
    for index, item in enumerate(_items(prompt, turn)):
        at = {"item_id": item["id"], "output_index": index}
        emit("response.output_item.added", output_index=index, item=_opened(item))
        if item["type"] == "reasoning":
            _stream_reasoning(emit, at, item)
        elif item["type"] == "message":
            text = item["content"][0]["text"]
            part = {"type": "output_text", "text": "", "annotations": [], "logprobs": []}
            emit("response.content_part.added", **at, content_index=0, part=part)
            for piece in tokens.split(text):
                emit("response.output_text.delta", **at, content_index=0, delta=piece, logprobs=[])
            emit("response.output_text.done", **at, content_index=0, text=text, logprobs=[])
            emit("response.content_part.done", **at, content_index=0, part=part | {"text": text})
        elif item["type"] == "function_call":
            for piece in tokens.split(item["arguments"]):
                emit("response.function_call_arguments.delta", **at, delta=piece)
            emit("response.function_call_arguments.done", **at, arguments=item["arguments"])
        else:
            for piece in tokens.split(item["input"]):
                emit("response.custom_tool_call_input.delta", **at, delta=piece)
            emit("response.custom_tool_call_input.done", **at, input=item["input"])
        emit("response.output_item.done", output_index=index, item=item)
        done.append((len(payloads), item))

    fault = turn.fault
    if fault and fault.kind == "stream_error":
        cut = fault.after_events or 0
        payloads = payloads[:cut]
        error = UpstreamError.of(fault)
        if fault.event == "error":  # the flat `error` event of the SDK's type; nothing follows it
            emit("error", code=error.code, message=error.message, param=None)
        else:
            failed = _response(prompt, turn, "failed", [item for end, item in done if end <= cut], usage=False)
            emit("response.failed", response=failed | {"error": {"code": error.code, "message": error.message}})
    else:
        status, details = _status(turn)
        final = _response(prompt, turn, status, [item for _, item in done]) | {"incomplete_details": details}
        emit(f"response.{status}", response=final)
    return [frame(dumps(p | {"sequence_number": n}), p["type"]) for n, p in enumerate(payloads)]


def _opened(item: dict[str, Any]) -> dict[str, Any]:
    """An output item as `output_item.added` announces it: in progress, its content still empty."""
    reasoning: dict[str, Any] = {"summary": [], "content": []} if "content" in item else {"summary": []}
    empty: dict[str, dict[str, Any]] = {"reasoning": reasoning, "message": {"content": []}}
    blank = {"function_call": {"arguments": ""}, "custom_tool_call": {"input": ""}}
    opened = item | empty.get(item["type"], {}) | blank.get(item["type"], {}) | {"status": "in_progress"}
    return opened


# The events that stream one part of a reasoning item (opened, its text in deltas, the text done, closed),
# and the key that numbers the part.
SUMMARY_EVENTS = (
    "reasoning_summary_part.added",
    "reasoning_summary_text.delta",
    "reasoning_summary_text.done",
    "reasoning_summary_part.done",
    "summary_index",
)
REASONING_EVENTS = (
    "content_part.added",
    "reasoning_text.delta",
    "reasoning_text.done",
    "content_part.done",
    "content_index",
)


def _stream_reasoning(emit: Any, at: dict[str, Any], item: dict[str, Any]) -> None:
    """Reasoning streams twice: as its summary (what the seed documents) and as raw reasoning text; each
    only where the item has it."""
    for parts, events in ((item["summary"], SUMMARY_EVENTS), (item.get("content", ()), REASONING_EVENTS)):
        added, delta, done, closed, index = events
        for part in parts:
            text, opened = part["text"], part | {"text": ""}
            emit(f"response.{added}", **at, **{index: 0}, part=opened)
            for piece in tokens.split(text):
                emit(f"response.{delta}", **at, **{index: 0}, delta=piece)
            emit(f"response.{done}", **at, **{index: 0}, text=text)
            emit(f"response.{closed}", **at, **{index: 0}, part=opened | {"text": text})


def render_error(error: EmulatorError) -> dict[str, Any]:
    return openai_body(error)


# --- reading a recorded answer -----------------------------------------------------------------------

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
