"""A Gemini `GenerateContentRequest` read into a `Prompt` (reference providers-google.md §2).

The service parses proto3 JSON, which takes a field by its lowerCamel name or its proto (snake_case) name, and the
SDKs mix them in one body (`inlineData.mime_type`, `thinkingConfig.thinking_budget`): every field is read by
either (`_get`). The model and the stream are in the path (`models/{model}:streamGenerateContent`), which the
route puts into the body as `model` and `stream` before it is read (`placed`)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from emulator.core import identity
from emulator.core.conversation import AUTO, TEXT, Message, Prompt, ResponseFormat, Tool, ToolCall, ToolChoice
from emulator.core.errors import InvalidRequest
from emulator.core.sse import dumps
from emulator.rules import profiles

NAME = profiles.GEMINI
ROLES = ("user", "model")
# `thinkingLevel` as the effort the answer reasons with.
LEVELS = {"MINIMAL": "minimal", "LOW": "low", "MEDIUM": "medium", "HIGH": "high", "XHIGH": "xhigh"}
_METHOD = re.compile(r"/models/([^/:]+):(\w+)$")


def placed(path: str, body: Any) -> Any:
    """The body with the model and the method's stream flag the path names (`…/models/{model}:{method}`)."""
    found = _METHOD.search(path)
    if found is None or type(body) is not dict:
        return body
    return {**body, "model": found[1], "stream": found[2] == "streamGenerateContent"}


@lru_cache(maxsize=256)
def _snake(name: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower()


def _get(data: Mapping[str, Any], name: str) -> Any:
    """A field by its lowerCamel name, else by its proto name."""
    value = data.get(name)
    return data.get(_snake(name)) if value is None else value


def _object(data: Mapping[str, Any], name: str, at: str) -> Mapping[str, Any]:
    value = _get(data, name)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise _invalid(f"{at}.{_snake(name)}", f"Invalid value (type), expected an object, got {dumps(value)}")
    return value


def _list(data: Mapping[str, Any], name: str, at: str) -> list[Any]:
    value = _get(data, name)
    if value is None:
        return []
    if not isinstance(value, list):
        raise _invalid(f"{at}.{_snake(name)}", f"Invalid value (type), expected a list, got {dumps(value)}")
    return value


def _invalid(field: str, said: str) -> InvalidRequest:
    """Google's 400 for a field, as its proto parser words it; `param` keeps the field's path."""
    return InvalidRequest(f"Invalid value at '{field}', {said}", param=field, code="INVALID_ARGUMENT")


def parse_request(
    body: Any, headers: Mapping[str, str], fingerprint: str = "", profile: str = profiles.DEFAULT
) -> Prompt:
    if not isinstance(body, dict):
        raise InvalidRequest("Invalid JSON payload received. Expected an object.", code="INVALID_ARGUMENT")
    model = str(body.get("model") or "").removeprefix("models/")
    contents = _list(body, "contents", "")
    if not contents:
        raise InvalidRequest("* GenerateContentRequest.contents: contents is not specified\n", param="contents")
    messages = [*_system(body), *(m for i, c in enumerate(contents) for m in _content(c, i))]
    tools = tuple(_tools(body))
    config = _object(body, "generationConfig", "")
    thinking = _object(config, "thinkingConfig", "generation_config")
    budget = _get(thinking, "thinkingBudget")
    level = _get(thinking, "thinkingLevel")
    if budget is not None and level is not None:
        raise InvalidRequest("You can only set one of thinking budget and thinking level.", param="thinking_config")
    effort = "none" if budget == 0 else LEVELS.get(str(level).upper()) if level is not None else None
    shape = _format(config)
    choice = _choice(body)
    temperature, seed = _number(config, "temperature"), _get(config, "seed")
    stop = _list(config, "stopSequences", "generation_config")
    return Prompt(
        dialect=NAME,
        model=model,
        messages=tuple(messages),
        tools=tools,
        tool_choice=choice,
        max_tokens=_get(config, "maxOutputTokens"),
        effort=effort,
        reasoning_budget=budget if isinstance(budget, int) and budget > 0 else None,
        stop=tuple(s for s in stop if isinstance(s, str)),
        stream=body.get("stream") is True,
        response_format=shape,
        temperature=temperature,
        top_p=_number(config, "topP"),
        seed=seed if isinstance(seed, int) else None,
        api_key=headers.get("x-goog-api-key", "") or _bearer(headers),
        headers=headers,
        fingerprint=fingerprint,
        conversation=identity.key(model, tuple(messages), tools, choice, shape, temperature, seed),
        # Thoughts are in the answer only when asked for (`includeThoughts`); the model thinks all the same.
        echo={"include_thoughts": _get(thinking, "includeThoughts") is True},
        profile=profile,
    )


def _bearer(headers: Mapping[str, str]) -> str:
    scheme, _, token = headers.get("authorization", "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""


def _number(data: Mapping[str, Any], name: str) -> float | None:
    value = _get(data, name)
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _text(parts: list[Any]) -> str:
    return "".join(str(_get(p, "text") or "") for p in parts if isinstance(p, dict) and not _get(p, "thought"))


def _system(body: Mapping[str, Any]) -> list[Message]:
    system = _object(body, "systemInstruction", "")
    text = _text(_list(system, "parts", "system_instruction"))
    return [Message(role="system", text=text)] if text else []


def _content(content: Any, index: int) -> list[Message]:
    """One `Content` as messages: a `model` turn as the assistant's (its thoughts its reasoning, its function
    calls its tool calls), a `user` turn as the user's, each function response in it a tool result."""
    at = f"contents[{index}]"
    if not isinstance(content, dict):
        raise _invalid(at, f"Invalid value (type), expected an object, got {dumps(content)}")
    role = content.get("role") or "user"
    if role not in ROLES:
        raise InvalidRequest("Please use a valid role: user, model.", param=f"{at}.role")
    parts = _list(content, "parts", at)
    if not parts:
        raise InvalidRequest(f"* GenerateContentRequest.{at}.parts: contents.parts must not be empty.\n", param=at)
    images, calls, results = 0, [], []
    for number, part in enumerate(parts):
        if not isinstance(part, dict):
            raise _invalid(f"{at}.parts[{number}]", f"Invalid value (type), expected an object, got {dumps(part)}")
        if _get(part, "inlineData") is not None or _get(part, "fileData") is not None:
            images += 1
        call = _get(part, "functionCall")
        if isinstance(call, dict):
            name = str(call.get("name") or "")
            args = call.get("args")
            calls.append(ToolCall(str(call.get("id") or name), name, dumps(args if isinstance(args, dict) else {})))
        answered = _get(part, "functionResponse")
        if isinstance(answered, dict):
            name = str(answered.get("name") or "")
            results.append(Message(role="tool", text=dumps(answered.get("response") or {}), tool_call_id=name))
        elif not any(_get(part, k) is not None for k in _DATA):
            field = f"GenerateContentRequest.{at}.parts[{number}].data"
            raise InvalidRequest(f"* {field}: required oneof field 'data' must have one initialized field\n")
    if role == "model":
        reasoning = "".join(str(_get(p, "text") or "") for p in parts if isinstance(p, dict) and _get(p, "thought"))
        return [Message(role="assistant", text=_text(parts), reasoning=reasoning, tool_calls=tuple(calls))]
    text = _text(parts)
    return [*results, *([Message(role="user", text=text, images=images)] if text or images or not results else [])]


_DATA = ("text", "inlineData", "fileData", "functionCall", "functionResponse", "executableCode", "codeExecutionResult")


def _tools(body: Mapping[str, Any]) -> list[Tool]:
    tools = []
    for index, tool in enumerate(_list(body, "tools", "")):
        if not isinstance(tool, dict):
            raise _invalid(f"tools[{index}]", f"Invalid value (type), expected an object, got {dumps(tool)}")
        for declared in _list(tool, "functionDeclarations", f"tools[{index}]"):
            if not isinstance(declared, dict):
                continue
            schema = _get(declared, "parametersJsonSchema")
            if schema is None:
                schema = _lowered(_get(declared, "parameters"))
            description = str(declared.get("description") or "")
            tools.append(Tool(str(declared.get("name") or ""), description=description, parameters=schema))
    return tools


def _lowered(schema: Any) -> Any:
    """An OpenAPI `Schema` (upper-case types, `nullable`) as the JSON Schema the answer's arguments are made from."""
    if isinstance(schema, list):
        return [_lowered(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    made: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "type" and isinstance(value, str):
            made[key] = value.lower()
        elif key == "properties" and isinstance(value, dict):
            made[key] = {name: _lowered(s) for name, s in value.items()}
        elif key in ("items", "anyOf", "any_of"):
            made["anyOf" if key == "any_of" else key] = _lowered(value)
        else:
            made[key] = value
    return made


def _choice(body: Mapping[str, Any]) -> ToolChoice:
    """`toolConfig.functionCallingConfig`: `ANY` (and `VALIDATED` with one allowed name) must call, `NONE` never."""
    config = _object(_object(body, "toolConfig", ""), "functionCallingConfig", "tool_config")
    mode = str(config.get("mode") or "AUTO").upper()
    allowed = _get(config, "allowedFunctionNames") or []
    if mode == "NONE":
        return ToolChoice("none")
    if mode == "ANY":
        return ToolChoice("required", allowed[0] if len(allowed) == 1 else None)
    return AUTO


def _format(config: Mapping[str, Any]) -> ResponseFormat:
    """`responseMimeType: application/json` with its schema (`responseJsonSchema`, or the OpenAPI `responseSchema`)."""
    if _get(config, "responseMimeType") != "application/json":
        return TEXT
    schema = _get(config, "responseJsonSchema")
    if schema is None:
        schema = _lowered(_get(config, "responseSchema"))
    return ResponseFormat("json_schema", schema) if isinstance(schema, dict) else ResponseFormat("json_object")
