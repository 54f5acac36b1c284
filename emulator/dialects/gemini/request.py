"""A Gemini `GenerateContentRequest` read into a `Prompt` (reference providers-google.md §2).

The service parses proto3 JSON, which takes a field by its lowerCamel name or its proto (snake_case) name, and the
SDKs mix them in one body (`inlineData.mime_type`, `thinkingConfig.thinking_budget`): every field is read by
either (`proto.get`). The model and the stream are in the path (`models/{model}:streamGenerateContent`), which the
route puts into the body as `model` and `stream` before it is read (`placed`)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from emulator.core import identity, tokens
from emulator.core.conversation import AUTO, TEXT, Message, Prompt, ResponseFormat, Tool, ToolCall, ToolChoice
from emulator.core.errors import InvalidRequest
from emulator.core.fields import bearer
from emulator.core.sse import dumps
from emulator.dialects.gemini import proto
from emulator.rules import profiles

NAME = profiles.GEMINI
ROLES = ("user", "model")
MOST_CANDIDATES = 8  # `candidateCount`: the answers one request may ask for
# `thinkingLevel` as the effort the answer reasons with.
LEVELS = {"MINIMAL": "minimal", "LOW": "low", "MEDIUM": "medium", "HIGH": "high", "XHIGH": "xhigh"}
_METHOD = re.compile(r"/models/([^/:]+):(\w+)$")


def placed(path: str, body: Any) -> Any:
    """The body with the model and the method's stream flag the path names (`…/models/{model}:{method}`)."""
    found = _METHOD.search(path)
    if found is None or type(body) is not dict:
        return body
    return {**body, "model": found[1], "stream": found[2] == "streamGenerateContent"}


def model_of(body: Mapping[str, Any]) -> str:
    """The model the path named (`placed`), without the `models/` the SDKs' bodies and paths give it."""
    return str(body.get("model") or "").removeprefix("models/")


def count_tokens(body: Any, headers: Mapping[str, str], profile: str = profiles.DEFAULT) -> dict[str, Any]:
    """`countTokens`: its `contents` (Vertex adds `systemInstruction` and `tools`), or a whole
    `generateContentRequest`, counted as the answer's `promptTokenCount` counts them."""
    if isinstance(body, dict):
        wrapped = proto.get(body, "generateContentRequest")
        if isinstance(wrapped, dict):
            body = {**wrapped, "model": body.get("model")}
    total = tokens.prompt_tokens(parse_request(body, headers, "", profile))
    return {"totalTokens": total, "promptTokensDetails": [{"modality": "TEXT", "tokenCount": total}]}


def parse_request(
    body: Any, headers: Mapping[str, str], fingerprint: str = "", profile: str = profiles.DEFAULT
) -> Prompt:
    if not isinstance(body, dict):
        raise InvalidRequest("Invalid JSON payload received. Expected an object.", code="INVALID_ARGUMENT")
    model = model_of(body)
    contents = proto.list_of(body, "contents", "")
    if not contents:
        raise InvalidRequest("* GenerateContentRequest.contents: contents is not specified\n", param="contents")
    messages = [*_system(body), *(m for i, c in enumerate(contents) for m in _content(c, i))]
    tools = tuple(_tools(body))
    config = proto.object_of(body, "generationConfig", "")
    thinking = proto.object_of(config, "thinkingConfig", "generation_config")
    budget = proto.get(thinking, "thinkingBudget")
    level = proto.get(thinking, "thinkingLevel")
    if budget is not None and level is not None:
        raise InvalidRequest("You can only set one of thinking budget and thinking level.", param="thinking_config")
    effort = "none" if budget == 0 else LEVELS.get(str(level).upper()) if level is not None else None
    shape = _format(config)
    choice = _choice(body)
    temperature, seed = _number(config, "temperature"), proto.get(config, "seed")
    count = proto.get(config, "candidateCount")
    if count is not None and (not isinstance(count, int) or not 1 <= count <= MOST_CANDIDATES):
        raise InvalidRequest(  # Vertex's words for a value out of its range
            f"Unable to submit request because it has a candidateCount value of {count} but the supported range is "
            f"from 1 (inclusive) to {MOST_CANDIDATES + 1} (exclusive). Update the value and try again.",
            param="generation_config.candidate_count",
        )
    stop = proto.list_of(config, "stopSequences", "generation_config")
    return Prompt(
        dialect=NAME,
        model=model,
        messages=tuple(messages),
        tools=tools,
        tool_choice=choice,
        max_tokens=proto.get(config, "maxOutputTokens"),
        effort=effort,
        reasoning_budget=budget if isinstance(budget, int) and budget > 0 else None,
        stop=tuple(s for s in stop if isinstance(s, str)),
        stream=body.get("stream") is True,
        response_format=shape,
        temperature=temperature,
        top_p=_number(config, "topP"),
        seed=seed if isinstance(seed, int) else None,
        choices=count or 1,
        api_key=headers.get("x-goog-api-key", "") or bearer(headers),
        headers=headers,
        fingerprint=fingerprint,
        conversation=identity.key(model, tuple(messages), tools, choice, shape, temperature, seed),
        # Thoughts are in the answer only when asked for (`includeThoughts`); the model thinks all the same.
        echo={"include_thoughts": proto.get(thinking, "includeThoughts") is True},
        profile=profile,
    )


def _number(data: Mapping[str, Any], name: str) -> float | None:
    value = proto.get(data, name)
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _text(parts: list[Any]) -> str:
    return "".join(
        str(proto.get(p, "text") or "") for p in parts if isinstance(p, dict) and not proto.get(p, "thought")
    )


def _system(body: Mapping[str, Any]) -> list[Message]:
    system = proto.object_of(body, "systemInstruction", "")
    text = _text(proto.list_of(system, "parts", "system_instruction"))
    return [Message(role="system", text=text)] if text else []


def _content(content: Any, index: int) -> list[Message]:
    """One `Content` as messages: a `model` turn as the assistant's (its thoughts its reasoning, its function
    calls its tool calls), a `user` turn as the user's, each function response in it a tool result."""
    at = f"contents[{index}]"
    if not isinstance(content, dict):
        raise proto.invalid(at, f"Invalid value (type), expected an object, got {dumps(content)}")
    role = content.get("role") or "user"
    if role not in ROLES:
        raise InvalidRequest("Please use a valid role: user, model.", param=f"{at}.role")
    parts = proto.list_of(content, "parts", at)
    if not parts:
        raise InvalidRequest(f"* GenerateContentRequest.{at}.parts: contents.parts must not be empty.\n", param=at)
    images, calls, results = 0, [], []
    for number, part in enumerate(parts):
        if not isinstance(part, dict):
            raise proto.invalid(f"{at}.parts[{number}]", f"Invalid value (type), expected an object, got {dumps(part)}")
        if proto.get(part, "inlineData") is not None or proto.get(part, "fileData") is not None:
            images += 1
        call = proto.get(part, "functionCall")
        if isinstance(call, dict):
            name = str(call.get("name") or "")
            args = call.get("args")
            calls.append(ToolCall(str(call.get("id") or name), name, dumps(args if isinstance(args, dict) else {})))
        answered = proto.get(part, "functionResponse")
        if isinstance(answered, dict):
            name = str(answered.get("name") or "")
            results.append(Message(role="tool", text=dumps(answered.get("response") or {}), tool_call_id=name))
        elif not any(proto.get(part, k) is not None for k in _DATA):
            field = f"GenerateContentRequest.{at}.parts[{number}].data"
            raise InvalidRequest(f"* {field}: required oneof field 'data' must have one initialized field\n")
    if role == "model":
        reasoning = "".join(
            str(proto.get(p, "text") or "") for p in parts if isinstance(p, dict) and proto.get(p, "thought")
        )
        return [Message(role="assistant", text=_text(parts), reasoning=reasoning, tool_calls=tuple(calls))]
    text = _text(parts)
    return [*results, *([Message(role="user", text=text, images=images)] if text or images or not results else [])]


_DATA = ("text", "inlineData", "fileData", "functionCall", "functionResponse", "executableCode", "codeExecutionResult")


def _tools(body: Mapping[str, Any]) -> list[Tool]:
    tools = []
    for index, tool in enumerate(proto.list_of(body, "tools", "")):
        if not isinstance(tool, dict):
            raise proto.invalid(f"tools[{index}]", f"Invalid value (type), expected an object, got {dumps(tool)}")
        for declared in proto.list_of(tool, "functionDeclarations", f"tools[{index}]"):
            if not isinstance(declared, dict):
                continue
            schema = proto.get(declared, "parametersJsonSchema")
            if schema is None:
                schema = _lowered(proto.get(declared, "parameters"))
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
    config = proto.object_of(proto.object_of(body, "toolConfig", ""), "functionCallingConfig", "tool_config")
    mode = str(config.get("mode") or "AUTO").upper()
    allowed = proto.get(config, "allowedFunctionNames") or []
    if mode == "NONE":
        return ToolChoice("none")
    if mode == "ANY":
        return ToolChoice("required", allowed[0] if len(allowed) == 1 else None)
    return AUTO


def _format(config: Mapping[str, Any]) -> ResponseFormat:
    """`responseMimeType: application/json` with its schema (`responseJsonSchema`, or the OpenAPI `responseSchema`)."""
    if proto.get(config, "responseMimeType") != "application/json":
        return TEXT
    schema = proto.get(config, "responseJsonSchema")
    if schema is None:
        schema = _lowered(proto.get(config, "responseSchema"))
    return ResponseFormat("json_schema", schema) if isinstance(schema, dict) else ResponseFormat("json_object")
