"""Where an agent loop stands, read from the conversation: the tool results it ends with (tool messages, or user
messages an agent writes its observations in), the calls already made (structured, or written as text by
agents that keep no tool messages), and the tool that finishes the loop.

The default answers from results once there are some, calls the finishing tool with that answer when the
request forces a tool, and never makes the same call (tool and arguments) twice in one conversation.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Sequence
from typing import Any

from emulator.conversation import Message, Prompt, Tool
from emulator.default_model.mentions import OBSERVATION

# Tools that end an agent's loop by giving its answer (smolagents' `final_answer`, pydantic-ai's
# `final_result`, and the names agent frameworks commonly give theirs).
_FINISHING = """final_answer finalanswer final_result final_response finish done submit respond answer give_answer
    return_answer submit_answer final_output"""
FINISHING = frozenset(_FINISHING.split())
_GIVES_ANSWER = re.compile(
    r"\b(?:(?:gives?|provides?|returns?|submits?|sends?|delivers?) (?:the|a|your) final (?:answer|response|result)"
    r"|final answer to the (?:task|problem|question|user)|(?:respond|reply) to the user with)",
    re.I,
)
# The tool calls an agent writes as text (smolagents' ToolCallingAgent: "Calling tools:\n[{'id': …, 'type':
# 'function', 'function': {'name': …, 'arguments': {…}}}]"), and ReAct's "Action: name".
_CALLING = re.compile(r"Calling tools:\s*(\[.*\])", re.S)
_ACTION = re.compile(r"^Action:\s*`?([\w.-]+)`?\s*$(?:\s*^Action Input:\s*(.+?)\s*$)?", re.M)


def final(prompt: Prompt) -> Message | None:
    """The conversation's last turn, past the system messages a harness appends after it (Claude Code ends its
    messages with a `system` one listing its agent types)."""
    return next((m for m in reversed(prompt.messages) if m.role not in ("system", "developer")), None)


def observation(message: Message) -> bool:
    """Whether `message` is a tool result: a tool message, or a user message that opens "Observation:"."""
    return message.role == "tool" or message.role == "user" and OBSERVATION.match(message.text) is not None


def results(prompt: Prompt) -> list[tuple[str, str]]:
    """The tool results the conversation ends with, each with the name of the tool whose call it answers."""
    names = {c.id: c.name for m in prompt.messages if m.role == "assistant" for c in m.tool_calls}
    found = []
    messages = prompt.messages
    for i in range(len(messages) - 1, -1, -1):
        m = messages[i]
        if not observation(m):
            break
        if m.role == "tool":
            found.append((names.get(m.tool_call_id or "", "tool"), m.text))
        else:
            text = OBSERVATION.sub("", m.text, count=1).strip()
            found.append((_written_call_name(messages[:i]), text))
    return found[::-1]


def _written_call_name(before: Sequence[Message]) -> str:
    for m in reversed(before):
        if m.role == "assistant":
            calls = written_calls(m.text)
            if calls:
                return calls[-1][0]
            return m.tool_calls[-1].name if m.tool_calls else "tool"
    return "tool"


def written_calls(text: str) -> list[tuple[str, Any]]:
    """The calls an assistant message writes as text: (name, arguments), arguments parsed where they can be."""
    made: list[tuple[str, Any]] = []
    calling = _CALLING.search(text)
    if calling:
        try:
            listed = ast.literal_eval(calling.group(1))
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            listed = []
        for call in listed if isinstance(listed, list) else []:
            function = call.get("function", call) if isinstance(call, dict) else {}
            if isinstance(function, dict) and isinstance(function.get("name"), str):
                made.append((function["name"], function.get("arguments")))
    for action in _ACTION.finditer(text):
        given = action.group(2)
        try:
            arguments = json.loads(given) if given else None
        except ValueError:
            arguments = given
        made.append((action.group(1), arguments))
    return made


def made(prompt: Prompt) -> frozenset[tuple[str, str]]:
    """Every call the conversation holds, as (tool name, canonical JSON of its arguments)."""
    calls = set()
    for m in prompt.messages:
        if m.role != "assistant":
            continue
        for c in m.tool_calls:
            calls.add((c.name, _canonical(c.arguments)))
        for name, arguments in written_calls(m.text) if m.text else ():
            calls.add((name, _canonical(arguments)))
    return frozenset(calls)


def call_key(name: str, arguments: Any) -> tuple[str, str]:
    return name, _canonical(arguments)


def _canonical(arguments: Any) -> str:
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            return str(arguments).strip()
    try:
        return json.dumps(arguments, sort_keys=True, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(arguments)


def earlier_arguments(prompt: Prompt) -> dict[str, Any]:
    """The arguments earlier calls of the conversation passed, by parameter name (the latest wins): what a
    repeated call keeps where the conversation names nothing new."""
    kept: dict[str, Any] = {}
    for m in prompt.messages:
        if m.role != "assistant":
            continue
        listed: list[Any] = [c.arguments for c in m.tool_calls]
        listed += [arguments for _, arguments in written_calls(m.text)] if m.text else []
        for arguments in listed:
            if isinstance(arguments, str):
                try:
                    arguments = json.loads(arguments)
                except ValueError:
                    continue
            if isinstance(arguments, dict):
                kept.update(arguments)
    return kept


def finishing(tools: Sequence[Tool]) -> Tool | None:
    """The tool that gives the loop's answer: one named so, or the only one whose description says it does."""
    for tool in tools:
        if tool.kind == "function" and tool.name.lower().replace("-", "_") in FINISHING:
            return tool
    saying = [t for t in tools if t.kind == "function" and _GIVES_ANSWER.search(t.description[:600])]
    return saying[0] if len(saying) == 1 else None
