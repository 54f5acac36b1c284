"""Chat Completions: the request, parsed and validated into a `Prompt`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from emulator.core import identity
from emulator.core.conversation import EFFORTS, Message, Prompt, ResponseFormat, Tool, ToolCall, ToolChoice
from emulator.core.errors import InvalidRequest
from emulator.core.fields import Fields, bearer, stream_options_alone, wrong_type, wrong_value
from emulator.core.logprobs import MAX_TOP
from emulator.dialects.openai_chat import stored
from emulator.rules import profiles

ROLES = ("system", "developer", "user", "assistant", "tool")
PARTS = ("text", "image_url", "refusal")  # the seeds' content parts
OPEN_PARTS = (*PARTS, "file", "input_audio")  # OpenAI's
NAME = "openai_chat"  # as `Prompt.dialect` and profiles name it
TOP_ALONE = "The 'top_logprobs' parameter is only allowed when 'logprobs' is enabled."
AUTO, TEXT = ToolChoice(), ResponseFormat()  # the defaults, built once rather than per request


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
    messages = tuple(_message(m, rules.remote_media) for m in f.objects("messages", required=True))
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
        raise stream_options_alone()
    if rules.max_tools is not None and len(tools) > rules.max_tools:
        raise InvalidRequest(
            f"Invalid 'tools': array too long. Expected an array with maximum length {rules.max_tools}, "
            f"but got an array with length {len(tools)} instead.",
            param="tools",
            code="array_above_max_length",
        )
    logprobs = _logprobs(f) if rules.logprobs else None
    # OpenAI keeps a completion asked to (`store`, false by default) with its `metadata`: see `stored.py`
    echo = _stored(f) if rules.stored_responses and ("store" in f.data or "metadata" in f.data) else {}
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
    choice = _tool_choice(f, tools) if "tool_choice" in given else AUTO
    form, temperature, seed = given.get("response_format", TEXT), given.get("temperature"), given.get("seed")
    return Prompt(
        dialect=NAME,
        model=model,
        messages=messages,
        tools=tools,
        tool_choice=choice,
        parallel_tool_calls=given.get("parallel_tool_calls", True),
        max_tokens=max_tokens,
        effort=effort,
        reasoning_budget=budget,
        stop=given.get("stop", ()),
        stream=stream,
        include_usage=bool(options and options.get("include_usage", bool, False)),
        response_format=form,
        temperature=temperature,
        top_p=given.get("top_p"),
        seed=seed,
        cache_key=given.get("prompt_cache_key") or given.get("user"),
        api_key=bearer(headers),
        headers=headers,
        fingerprint=fingerprint,
        conversation=identity.key(model, messages, tools, choice, form, temperature, seed),
        profile=profile,
        choices=choices,
        logprobs=logprobs,
        echo=echo,
    )


def _stored(f: Fields) -> dict[str, Any]:
    return {"store": bool(f.get("store", bool, False)), "metadata": stored.metadata(f)}


def _logprobs(f: Fields) -> int | None:
    """How many `top_logprobs` a request asks for with its `logprobs` (0 to 20), None when it asks for none."""
    asked = f.get("logprobs", bool, False)
    top = f.get("top_logprobs", int)
    if top is not None and not asked:
        # OpenAI's words, as its API answered a client that sent `top_logprobs` alone (`code` null)
        raise InvalidRequest(TOP_ALONE, param="top_logprobs")
    if top is not None and not 0 <= top <= MAX_TOP:
        raise wrong_value("top_logprobs", top, f"an integer from 0 to {MAX_TOP}")
    return (top or 0) if asked else None


def _message(m: Fields, remote: bool = False) -> Message:
    role = m.choice("role", ROLES)
    if role is None:
        m.need("role", str)
    text, images = _content(m, required=role != "assistant", remote=remote)
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


def _content(m: Fields, *, required: bool, remote: bool = False) -> tuple[str, int]:
    """The text of `content` (a string or an array of parts) and how many images it holds. Where the profile takes
    `remote` media (OpenAI's), an image may be a URL and a part may be a file or audio: noted, never fetched."""
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
        kind = part.choice("type", OPEN_PARTS if remote else PARTS)
        if kind == "text":
            texts.append(part.need("text", str))
        elif kind == "refusal":
            texts.append(part.need("refusal", str))
        elif kind == "image_url":
            image = part.obj("image_url", required=True)
            assert image is not None
            url = image.need("url", str)
            if not url.startswith("data:") and not (remote and url.startswith(("https://", "http://"))):
                raise InvalidRequest(
                    f"Invalid '{image.at('url')}': remote image URLs are not supported; "
                    "send the image inline as a base64 data: URL.",
                    param=image.at("url"),
                    code="invalid_value",
                )
            images += 1
        elif kind in ("file", "input_audio"):
            part.obj(kind, required=True)
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
