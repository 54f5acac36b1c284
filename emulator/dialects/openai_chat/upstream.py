"""A `Prompt` written as a Chat Completions request, for an upstream that answers in its place (`serve
--fallback-upstream`, `http/fallback.py`): what a request in another dialect becomes when the fallback speaks Chat.

What Chat has a field for goes: the conversation (system and developer prompts, tool calls and results), function
tools and the tool choice, the limits, stop sequences, sampling and the response format. Images are counted in a
`Prompt`, not kept, and a custom (freeform) tool has no Chat form: neither goes.
"""

from __future__ import annotations

from typing import Any

from emulator.core.conversation import Message, Prompt


def write_request(prompt: Prompt) -> dict[str, Any]:
    """The Chat Completions body asking what `prompt` asks, not streamed."""
    body: dict[str, Any] = {"model": prompt.model, "messages": [_message(m) for m in prompt.messages]}
    tools = [t for t in prompt.tools if t.kind == "function"]
    if tools:
        body["tools"] = [
            {
                "type": "function",
                "function": {
                    "name": t.name,
                    "description": t.description,
                    "parameters": dict(t.parameters or {"type": "object", "properties": {}}),
                },
            }
            for t in tools
        ]
        choice = prompt.tool_choice
        body["tool_choice"] = {"type": "function", "function": {"name": choice.name}} if choice.name else choice.mode
        if not prompt.parallel_tool_calls:
            body["parallel_tool_calls"] = False
    if prompt.max_tokens is not None:
        body["max_tokens"] = prompt.max_tokens
    if prompt.stop:
        body["stop"] = list(prompt.stop)
    for name in ("temperature", "top_p", "seed"):
        value = getattr(prompt, name)
        if value is not None:
            body[name] = value
    form = prompt.response_format
    if form.type == "json_object":
        body["response_format"] = {"type": "json_object"}
    elif form.type == "json_schema":
        schema = dict(form.schema or {})
        body["response_format"] = {"type": "json_schema", "json_schema": {"name": "answer", "schema": schema}}
    return body


def _message(m: Message) -> dict[str, Any]:
    if m.role == "tool":
        return {"role": "tool", "tool_call_id": m.tool_call_id or "", "content": m.text}
    if m.role == "assistant":
        said: dict[str, Any] = {"role": "assistant", "content": m.text or None}
        if m.tool_calls:
            said["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments or "{}"}}
                for c in m.tool_calls
            ]
        return said
    return {"role": "system" if m.role == "developer" else m.role, "content": m.text}
