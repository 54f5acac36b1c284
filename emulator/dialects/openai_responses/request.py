"""Responses: the request, parsed and validated into a `Prompt`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from emulator.core import identity, ids, sealed, tokens
from emulator.core.conversation import EFFORTS, Message, Prompt, ResponseFormat, Tool, ToolCall, ToolChoice
from emulator.core.errors import InvalidRequest
from emulator.core.fields import Fields, bearer, wrong_type, wrong_value
from emulator.core.logprobs import MAX_TOP
from emulator.rules import profiles

ROLES = ("user", "assistant", "system", "developer")
# Items the model produced: a run of them in `input` is one assistant turn.
MODEL_ITEMS = ("reasoning", "function_call", "custom_tool_call")
ITEM_TYPES = ("message", *MODEL_ITEMS, "function_call_output", "custom_tool_call_output", "compaction")
# Inferam can't run hosted tools and drops them from the request (seed 001).
CLIENT_TOOLS = ("function", "custom")
PARTS = ("input_text", "output_text", "input_image", "refusal")  # the seed's content parts
OPEN_PARTS = (*PARTS, "input_file")  # OpenAI's
NAME = "openai_responses"  # as `Prompt.dialect` and profiles name it
LOGPROBS = "message.output_text.logprobs"  # in `include`: the output text's token logprobs
ENCRYPTED = "reasoning.encrypted_content"  # in `include`: reasoning items carry their reasoning, sealed


def parse_request(body: Any, headers: Mapping[str, str], fingerprint: str = "", profile: str = "inferam") -> Prompt:
    """Validate a request body into a `Prompt`; any bad field raises `InvalidRequest` naming it."""
    f = Fields(body)
    model = f.need("model", str)
    stores = profiles.PROFILES[profile].stored_responses
    if "previous_response_id" in f and not stores:
        raise InvalidRequest(
            "Invalid 'previous_response_id': this server keeps no conversation state (store is always false). "
            "Send the whole conversation in 'input'.",
            param="previous_response_id",
            code="invalid_value",
        )
    rules = profiles.PROFILES[profile]
    messages = _input(f, rules.hidden_reasoning, rules.remote_media)
    instructions = f.get("instructions", str)
    if instructions:
        messages = [Message("system", instructions), *messages]
    tools_raw = [t for t in f.objects("tools") if t.need("type", str) in CLIENT_TOOLS]
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
        # A profile that stores responses (OpenAI's) has `input` with the stored conversation already in it
        # (`answering/recall.py`); the seeds' upstreams store nothing, whatever `store` says (seed 001).
        "store": bool(f.get("store", bool, True)) if stores else False,
        "previous_response_id": f.get("previous_response_id", str) if stores else None,
    }
    form = _format(text)
    included = _include(f) if profiles.PROFILES[profile].logprobs else ()
    top = f.get("top_logprobs", int) if LOGPROBS in included else None
    if top is not None and not 0 <= top <= MAX_TOP:
        raise wrong_value("top_logprobs", top, f"an integer from 0 to {MAX_TOP}")
    if included:
        echo |= {"include": included, "top_logprobs": top}
    if stores and f.get("background", bool, False):  # OpenAI's background mode: answered at once, polled after
        if not echo["store"]:
            # written in the API's style: no public source quotes this refusal
            raise InvalidRequest("Background mode requires 'store' to be true.", param="background")
        echo["background"] = True
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
        response_format=form,
        temperature=echo["temperature"],
        top_p=echo["top_p"],
        cache_key=echo["prompt_cache_key"] or echo["user"],
        api_key=bearer(headers),
        headers=headers,
        fingerprint=fingerprint,
        conversation=identity.key(model, messages, tools, choice, form, echo["temperature"], None),
        echo=echo,
        logprobs=(top or 0) if LOGPROBS in included else None,
    )


def count_tokens(body: Any, headers: Mapping[str, str], profile: str) -> dict[str, Any]:
    """`POST /v1/responses/input_tokens`: the input tokens a Responses body would take, by the one token model, so
    that it equals the `input_tokens` its answer reports. Every field is optional (the SDK's `count()` may send
    none): no `input` counts the instructions and tools alone."""
    f = Fields(body)
    given = f.data.get("input")
    filled = {**f.data, "model": f.get("model", str) or "", "input": [] if given is None else given}
    prompt = parse_request(filled, headers, "", profile)
    return {"object": "response.input_tokens", "input_tokens": tokens.prompt_tokens(prompt)}


def compact(body: Any, headers: Mapping[str, str], profile: str, root: str, created: int) -> dict[str, Any]:
    """`POST /v1/responses/compact`: the conversation compacted, as the API's `CompactedResponse` holds it: every
    user message as it was, then one `compaction` item whose `encrypted_content` seals the rest (the model's turns,
    its calls and their results), which a later request sends back in `input` and this server reads whole. The SDK
    types `output` as output items, whose messages are the assistant's: its strict mode refuses the user messages
    the API's own reference says are there."""
    f = Fields(body)
    given = f.data.get("input")
    filled = {**f.data, "model": f.get("model", str) or "", "input": [] if given is None else given}
    prompt = parse_request(filled, headers, "", profile)
    output: list[dict[str, Any]] = []
    rest: list[str] = []
    for at, m in enumerate(prompt.messages):
        if m.role == "user":
            content = [{"type": "input_text", "text": m.text}]
            output.append(
                {
                    "id": ids.make("msg_", root, at),
                    "type": "message",
                    "role": "user",
                    "status": "completed",
                    "content": content,
                }
            )
            continue
        said = m.text or "".join(f"{c.name}({c.arguments})" for c in m.tool_calls)
        if said:
            rest.append(f"{m.role}: {said}")
    summary = "\n".join(rest)
    sealed_rest = sealed.seal(summary, root, created)
    output.append({"id": ids.make("cmp_", root), "type": "compaction", "encrypted_content": sealed_rest})
    written = tokens.count(summary)
    read = tokens.prompt_tokens(prompt)
    usage = {
        "input_tokens": read,
        "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
        "output_tokens": written,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": read + written,
    }
    return {
        "id": ids.make("resp_", root),
        "object": "response.compaction",
        "created_at": created,
        "output": output,
        "usage": usage,
    }


def _include(f: Fields) -> tuple[str, ...]:
    """What `include` asks for beside the answer, as given (OpenAI's; Inferam ignores the field, seed 001)."""
    value = f.get("include", list) or []
    for i, entry in enumerate(value):
        if not isinstance(entry, str):
            raise wrong_type(f"include[{i}]", "a string", entry)
    return tuple(value)


def _input(f: Fields, sealed_reasoning: bool = False, remote: bool = False) -> list[Message]:
    """The conversation `input` holds; a reasoning item's `encrypted_content` is read where the profile seals its
    reasoning (OpenAI's), and ignored elsewhere (Inferam's reasoning is text, seed 001)."""
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
        if kind == "compaction":  # what `/v1/responses/compact` made of the conversation before: read back whole
            turn = None
            messages.append(Message("assistant", text=_unsealed(item, item.need("encrypted_content", str))))
            continue
        role = item.choice("role", ROLES) if kind == "message" else None
        if kind in MODEL_ITEMS or role == "assistant":
            if turn is None:
                turn = {"text": [], "reasoning": [], "calls": []}
                messages.append(Message("assistant"))  # replaced when the run ends
            _gather(item, kind, turn, sealed_reasoning)
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
            text, images = _content(item, remote=remote)
            messages.append(Message(role, text=text, images=images))  # type: ignore[arg-type]
        else:  # a tool's output
            output = item.data.get("output")
            if not isinstance(output, (str, list)):
                raise wrong_type(item.at("output"), "a string or an array of content parts", output)
            text = output if isinstance(output, str) else _content(item, "output", remote)[0]
            messages.append(Message("tool", text=text, tool_call_id=item.need("call_id", str)))
    return messages


def _gather(item: Fields, kind: str | None, turn: dict[str, Any], sealed_reasoning: bool) -> None:
    if kind == "reasoning":
        parts = item.objects("content") or item.objects("summary")
        token = item.get("encrypted_content", str) if sealed_reasoning else None
        turn["reasoning"].append(
            _unsealed(item, token) if token is not None else "".join(p.need("text", str) for p in parts)
        )
    elif kind == "function_call":
        turn["calls"].append(ToolCall(item.need("call_id", str), item.need("name", str), item.need("arguments", str)))
    elif kind == "custom_tool_call":
        call = ToolCall(item.need("call_id", str), item.need("name", str), item.need("input", str), "custom")
        turn["calls"].append(call)
    else:
        turn["text"].append(_content(item)[0])


def _unsealed(item: Fields, token: str) -> str:
    """The reasoning a returned item's `encrypted_content` holds; anything this server did not seal is refused in the
    public API's words (`invalid_encrypted_content`, `param` null, the token shown by its ends)."""
    text = sealed.unseal(token)
    if text is None:
        raise InvalidRequest(
            f"The encrypted content {sealed.shown(token)} could not be verified.", code="invalid_encrypted_content"
        )
    return text


def _content(item: Fields, key: str = "content", remote: bool = False) -> tuple[str, int]:
    """The text of a content field (a string or an array of parts) and how many images it holds. Where the profile
    takes `remote` media (OpenAI's), an image may be a URL or a file id and a part may be a file: never fetched."""
    content = item.data.get(key)
    if isinstance(content, str):
        return content, 0
    if not isinstance(content, list):
        if content is None:
            item.need(key, str)
        raise wrong_type(item.at(key), "a string or an array of content parts", content)
    texts, images = [], 0
    for part in item.objects(key):
        kind = part.choice("type", OPEN_PARTS if remote else PARTS)
        if kind in ("input_text", "output_text"):
            texts.append(part.need("text", str))
        elif kind == "refusal":
            texts.append(part.need("refusal", str))
        elif kind == "input_image":
            url, file_id = part.get("image_url", str), part.get("file_id", str)
            if remote and (file_id is not None or (url or "").startswith(("https://", "http://"))):
                images += 1
                continue
            if url is None or not url.startswith("data:"):
                raise InvalidRequest(
                    f"Invalid '{part.at('image_url')}': only base64 data: URLs are supported; "
                    "remote image URLs and file ids are not.",
                    param=part.at("image_url"),
                    code="invalid_value",
                )
            images += 1
        elif kind == "input_file":
            named = part.get("file_id", str) or part.get("file_url", str) or part.get("file_data", str)
            if not named:
                part.need("file_id", str)
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


def _effort(profile: str, model: str, asked: str | None) -> str | None:
    rules = profiles.PROFILES[profile]
    return profiles.effort(rules, model, asked, None) if rules.thinking is not None else asked
