"""A `Prompt` written as an Anthropic Messages request, for an upstream that answers in its place (`serve
--fallback-upstream`, `http/fallback.py`): what a request in another dialect becomes when the fallback speaks
Messages.

The system and developer prompts become `system`; tool results, user turns with `tool_result` blocks (consecutive
ones joined, as Messages alternates roles); function tools, the tool choice, `max_tokens` (which Messages requires:
`DEFAULT_MAX_TOKENS` when the request set none), stop sequences and sampling go. Images are counted in a `Prompt`,
not kept, and a custom (freeform) tool has no Messages form: neither goes.
"""

from __future__ import annotations

from typing import Any

from emulator.core.conversation import Message, Prompt

DEFAULT_MAX_TOKENS = 4096


def write_request(prompt: Prompt) -> dict[str, Any]:
    """The Messages body asking what `prompt` asks, not streamed."""
    system = "\n\n".join(m.text for m in prompt.messages if m.role in ("system", "developer") and m.text)
    turns: list[dict[str, Any]] = []
    for m in prompt.messages:
        if m.role in ("system", "developer"):
            continue
        role, blocks = _blocks(m)
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"] += blocks
        else:
            turns.append({"role": role, "content": blocks})
    body: dict[str, Any] = {
        "model": prompt.model,
        "max_tokens": prompt.max_tokens or DEFAULT_MAX_TOKENS,
        "messages": turns,
    }
    if system:
        body["system"] = system
    tools = [t for t in prompt.tools if t.kind == "function"]
    if tools:
        body["tools"] = [
            {
                "name": t.name,
                "description": t.description,
                "input_schema": dict(t.parameters or {"type": "object", "properties": {}}),
            }
            for t in tools
        ]
        choice = prompt.tool_choice
        if choice.name:
            body["tool_choice"] = {"type": "tool", "name": choice.name}
        else:
            body["tool_choice"] = {"type": {"auto": "auto", "none": "none", "required": "any"}[choice.mode]}
        if not prompt.parallel_tool_calls and choice.mode != "none":
            body["tool_choice"]["disable_parallel_tool_use"] = True
    if prompt.stop:
        body["stop_sequences"] = list(prompt.stop)
    for name in ("temperature", "top_p"):
        value = getattr(prompt, name)
        if value is not None:
            body[name] = value
    return body


def _blocks(m: Message) -> tuple[str, list[dict[str, Any]]]:
    """A message's role in Messages and its content blocks."""
    if m.role == "tool":
        return "user", [{"type": "tool_result", "tool_use_id": m.tool_call_id or "", "content": m.text}]
    blocks: list[dict[str, Any]] = [{"type": "text", "text": m.text}] if m.text else []
    if m.role == "assistant":
        blocks += [
            {"type": "tool_use", "id": c.id, "name": c.name, "input": c.parsed_arguments() or {}} for c in m.tool_calls
        ]
    return m.role if m.role == "assistant" else "user", blocks or [{"type": "text", "text": ""}]
