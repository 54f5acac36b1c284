"""Messages: the request, parsed and validated into a `Prompt`."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from emulator.core import identity, tokens
from emulator.core.conversation import Message, Prompt, ResponseFormat, Tool, ToolCall, ToolChoice
from emulator.core.errors import InvalidRequest
from emulator.core.fields import Fields, wrong_type
from emulator.core.sse import dumps
from emulator.rules import profiles

ROLES = ("user", "assistant", "system")  # `system` entries inside `messages`: Claude Code sends them
BLOCKS = ("text", "image", "tool_use", "tool_result", "thinking")  # "Other block types get a 400" (seed)
OPEN_BLOCKS = (*BLOCKS, "document")  # Anthropic's: PDF and text documents too
SOURCES = ("base64",)  # the seed's image sources
OPEN_SOURCES = ("base64", "url", "file")  # Anthropic's: an image by URL or file id, never fetched
EFFORTS = ("low", "medium", "high", "xhigh", "max")  # output_config.effort, as the seed lists them
NAME = "anthropic_messages"  # as `Prompt.dialect` and profiles name it
STRUCTURED_OUTPUTS = "structured-outputs-2025-11-13"  # the beta that allows the top-level `output_format`


def parse_request(body: Any, headers: Mapping[str, str], fingerprint: str = "", profile: str = "inferam") -> Prompt:
    """Validate a Messages body into a `Prompt`; any bad field raises `InvalidRequest` naming it.

    Unknown top-level fields (metadata, context_management, top_k…) and `cache_control` markers are
    accepted and ignored: Claude Code sends all of them on every request (agent-clients.md).
    """
    return _prompt(body, headers, fingerprint, counting=False, profile=profile)


def count_tokens(body: Any, headers: Mapping[str, str], profile: str = profiles.DEFAULT) -> dict[str, int]:
    """`{"input_tokens": N}` for a count_tokens body, from the one token model, so it equals the
    `input_tokens` that `/v1/messages` reports for the same body (no cache read: nothing is cached)."""
    return {"input_tokens": tokens.prompt_tokens(_prompt(body, headers, "", counting=True, profile=profile))}


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
    remote = profiles.PROFILES[profile].remote_media
    messages = tuple(m for entry in entries for m in _message(entry, remote))
    tools = tuple(_tool(t) for t in f.objects("tools"))
    tool_choice, parallel = _tool_choice(f, tools)
    effort, budget = _thinking(f, max_tokens, profiles.PROFILES[profile].thinks_unasked)
    everything, form, temperature = system + messages, _output_format(f, headers), f.number("temperature", 0, 1)
    return Prompt(
        dialect=NAME,
        model=model,
        messages=everything,
        tools=tools,
        tool_choice=tool_choice,
        parallel_tool_calls=parallel,
        max_tokens=max_tokens,
        effort=effort,
        reasoning_budget=budget,
        stop=_stop_sequences(f),
        stream=bool(f.get("stream", bool, False)),
        response_format=form,
        temperature=temperature,
        top_p=f.number("top_p", 0, 1),
        api_key=_api_key(headers),
        headers=headers,
        fingerprint=fingerprint,
        conversation=identity.key(model, everything, tools, tool_choice, form, temperature, None),
        profile=profile,
        prefixes=_prefixes(f.data, model, _api_key(headers)) if profiles.PROFILES[profile].breakpoints else (),
    )


HOUR, FIVE_MINUTES = 3600.0, 300.0  # a breakpoint's lifetimes: `cache_control.ttl` "1h", or the default "5m"


def _prefixes(body: Mapping[str, Any], model: str, key: str) -> tuple[tuple[str, int, float], ...]:
    """The prompt's prefixes as Anthropic's cache sees them, in its order (tools, system, messages): at the end of
    each tool, system block and message, a digest of everything up to it (the `cache_control` markers left out, so
    that moving a breakpoint keeps what came before; the key and model in it: a cache is an organization's, per
    model), its tokens, and the lifetime of a breakpoint ending there (0 where none does)."""
    system = body.get("system")
    items = [
        *(body.get("tools") or ()),
        *(system if type(system) is list else [system] if system else []),
        *(body.get("messages") or ()),
    ]
    digest = hashlib.blake2b(f"{key}\x1f{model}".encode(), digest_size=16)
    size, prefixes = tokens.REPLY_PRIMING, []
    for at, item in enumerate(items):
        plain, life = _unmarked(item)
        digest.update(dumps(plain).encode())
        size += _item_tokens(plain, first_system=at == len(body.get("tools") or ()))
        prefixes.append((digest.hexdigest(), size, life))
    return tuple(prefixes)


def _item_tokens(item: Any, first_system: bool) -> int:
    """An item's tokens by the one token model, as `tokens.prompt_tokens` counts what it parses into: a tool's name,
    description and schema; a message's overhead and its blocks; a tool result a message of its own; an image at
    its flat price."""
    if type(item) is str:
        return tokens.MESSAGE_OVERHEAD + tokens.count(item)
    if type(item) is not dict:
        return tokens.count(dumps(item))
    if "input_schema" in item or "name" in item and "role" not in item and "type" not in item:
        schema = item.get("input_schema")
        text = f"{item.get('name', '')}{item.get('description', '')}"
        return tokens.count(text) + (tokens.count(dumps(schema)) if schema else 0)
    if "role" not in item:  # a system block
        return (tokens.MESSAGE_OVERHEAD if first_system else 0) + _block_tokens(item)
    content = item.get("content")
    if type(content) is str:
        return tokens.MESSAGE_OVERHEAD + tokens.count(content)
    blocks = content if type(content) is list else []
    return tokens.MESSAGE_OVERHEAD + sum(_block_tokens(b) for b in blocks)


def _block_tokens(block: Any) -> int:
    if type(block) is not dict:
        return 0
    kind = block.get("type")
    if kind == "text":
        return tokens.count(str(block.get("text", "")))
    if kind == "image":
        return tokens.IMAGE_TOKENS
    if kind == "thinking":
        return tokens.count(str(block.get("thinking", "")))
    if kind == "tool_use":
        return tokens.count(str(block.get("name", ""))) + tokens.count(dumps(block.get("input", {})))
    if kind == "tool_result":
        inner = block.get("content")
        if type(inner) is str:
            return tokens.MESSAGE_OVERHEAD + tokens.count(inner)
        return tokens.MESSAGE_OVERHEAD + sum(_block_tokens(b) for b in inner or () if type(b) is dict)
    return tokens.count(dumps(block))


def _unmarked(item: Any) -> tuple[Any, float]:
    """An item without its `cache_control` markers (its own, its blocks', a tool result's blocks'), and the longest
    lifetime they asked for (0 for none)."""
    if type(item) is not dict:
        return item, 0.0
    life = _life(item.get("cache_control"))
    plain = {k: v for k, v in item.items() if k != "cache_control"}
    content = plain.get("content")
    if type(content) is list:
        blocks = []
        for block in content:
            inner, asked = _unmarked(block)
            blocks.append(inner)
            life = max(life, asked)
        plain["content"] = blocks
    return plain, life


def _life(marker: Any) -> float:
    if type(marker) is not dict:
        return 0.0
    return HOUR if marker.get("ttl") == "1h" else FIVE_MINUTES


def _api_key(headers: Mapping[str, str]) -> str:
    """`x-api-key` (Claude Code, curl) or `Authorization: Bearer` (the Python SDK 2.14, ANTHROPIC_AUTH_TOKEN)."""
    if headers.get("x-api-key"):
        return headers["x-api-key"].strip()
    scheme, _, token = headers.get("authorization", "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""


def betas(headers: Mapping[str, str]) -> list[str]:
    """The betas the `anthropic-beta` header turns on (comma-separated, as the SDKs join them)."""
    return [b.strip() for b in headers.get("anthropic-beta", "").split(",")]


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


def _message(m: Fields, remote: bool = False) -> list[Message]:
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
        kind = block.choice("type", OPEN_BLOCKS if remote else BLOCKS)
        if kind is None:
            block.need("type", str)
        if kind == "text":
            texts.append(block.need("text", str))
        elif kind == "image":
            _image(block, remote)
            images += 1
        elif kind == "document":
            _only_in(block, role, "user")
            block.obj("source", required=True)
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
            results.append(_tool_result(block, remote))
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


def _image(block: Fields, remote: bool = False) -> None:
    source = block.obj("source", required=True)
    assert source is not None
    kind = source.need("type", str)
    if remote and kind in OPEN_SOURCES:
        if kind != "base64":
            source.need("url" if kind == "url" else "file_id", str)
            return
    elif kind not in SOURCES:
        raise InvalidRequest(
            f"Invalid value for '{source.at('type')}': {kind!r}. Only base64 image sources are supported; "
            "send the image inline with `media_type` and `data`.",
            param=source.at("type"),
            code="invalid_value",
        )
    source.choice("media_type", ("image/jpeg", "image/png", "image/gif", "image/webp"))
    source.need("media_type", str)
    source.need("data", str)


def _tool_result(block: Fields, remote: bool = False) -> Message:
    call_id = block.need("tool_use_id", str)
    block.get("is_error", bool)
    content = block.data.get("content")
    if content is None or isinstance(content, str):
        return Message("tool", content or "", tool_call_id=call_id)
    if not isinstance(content, list):
        raise wrong_type(block.at("content"), "a string or an array of text and image blocks", content)
    texts, images = [], 0
    for part in block.objects("content"):
        kind = part.choice("type", ("text", "image", "document") if remote else ("text", "image"))
        if kind is None:
            part.need("type", str)
        if kind == "text":
            texts.append(part.need("text", str))
        elif kind == "document":
            part.obj("source", required=True)
        else:
            _image(part, remote)
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


def _output_format(f: Fields, headers: Mapping[str, str]) -> ResponseFormat:
    """`output_config.format` (structured outputs; Claude Code's session-title request sends one), or the
    top-level `output_format` of the structured-outputs beta (LiteLLM sends it), which only its beta header
    allows: without it, a 400 that names the field rather than an answer in prose."""
    config = f.obj("output_config")
    spec = config.obj("format") if config else None
    if "output_format" in f:
        if STRUCTURED_OUTPUTS not in betas(headers):
            raise InvalidRequest(
                f"output_format: Extra inputs are not permitted. Send the header 'anthropic-beta: "
                f"{STRUCTURED_OUTPUTS}' with it, or use 'output_config.format'.",
                param="output_format",
            )
        if spec is not None:
            raise InvalidRequest(
                "Both 'output_format' and 'output_config.format' were given; send only one of them.",
                param="output_format",
            )
        spec = f.obj("output_format")
    if spec is None:
        return ResponseFormat()
    kind = spec.choice("type", ("json_schema",))
    if kind is None:
        spec.need("type", str)
    return ResponseFormat("json_schema", spec.need("schema", dict))
