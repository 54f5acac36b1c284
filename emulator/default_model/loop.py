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

from emulator.core.conversation import Message, Prompt, Tool
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
# The tool calls an agent writes as text: smolagents' "Calling tools:\n[{'id': …, 'type': 'function', 'function':
# {'name': …, 'arguments': {…}}}]" (its CodeAgent's one call is `python_interpreter`, whose arguments are the code),
# ReAct's "Action: name" and "Action Input: …", and the code a code agent runs ("result = name(…)").
_CALLING = re.compile(r"Calling tools:\s*(\[.*\])", re.S)
_ACTION = re.compile(r"^Action:\s*`?([\w.-]+)`?\s*$(?:\s*^Action Input:\s*(.+?)\s*$)?", re.M)
_CODE_CALL = re.compile(r"^\s*\w+\s*=\s*(\w+)\(", re.M)
_INTERPRETER = "python_interpreter"
# A ReAct prompt's own scratchpad (LangChain writes the steps into the user's message): the question, and each
# observation up to the next "Thought:".
_QUESTION = re.compile(r"^Question: (.+)$", re.M)
_SCRATCH_OBSERVATION = re.compile(r"^Observation:\s*(.*?)(?=^Thought:|\Z)", re.M | re.S)


def final(prompt: Prompt) -> Message | None:
    """The conversation's last turn, past the system messages a harness appends after it (Claude Code ends its
    messages with a `system` one listing its agent types) and past a hand-off (`handoffs`): the agent a task was
    handed to answers the turn before it, the user's question."""
    handed: frozenset[str] | None = None
    for m in reversed(prompt.messages):  # a loop, not a generator: on every default answer's path
        if m.role == "system" or m.role == "developer":
            continue
        if m.role == "tool" or m.role == "assistant" and m.tool_calls:
            handed = handoffs(prompt.messages) if handed is None else handed
            if m.tool_call_id in handed if m.role == "tool" else all(c.id in handed for c in m.tool_calls):
                continue
        return m
    return None


def handoffs(messages: Sequence[Message]) -> frozenset[str]:
    """The ids of the calls in `messages` that hand the conversation to another agent: of a tool named so
    (`handing_off`), or whose result names the agent it went to (the OpenAI Agents SDK's `{"assistant": "…"}`)."""
    named = {c.id for m in messages if m.role == "assistant" for c in m.tool_calls if handing_off(c.name)}
    named |= {m.tool_call_id for m in messages if m.role == "tool" and m.tool_call_id and _names_agent(m.text)}
    return frozenset(named)


def handing_off(name: str, description: str = "") -> bool:
    """Whether a tool of that name (`transfer_to_billing`, `handoffToWriter`) or description ("Handoff to the
    Billing agent…") hands the conversation to another agent."""
    return _HANDOFF_NAME.match(name[:128]) is not None or _HANDOFF_DESCRIPTION.match(description[:200]) is not None


def handed_off(prompt: Prompt) -> bool:
    """Whether the conversation was handed to another agent since the user last spoke: that agent answers, and
    does not hand it on again."""
    messages = prompt.messages
    asked = next((i for i in range(len(messages) - 1, -1, -1) if messages[i].role == "user"), -1)
    since = messages[asked + 1 :]
    return any(m.role == "assistant" and m.tool_calls for m in since) and bool(
        handoffs(since) & {c.id for m in since for c in m.tool_calls}
    )


_HANDOFF_NAME = re.compile(r"(?:transfer|hand_?off|hand_?over|delegate|route|escalate)_?to_?[A-Za-z]", re.I)
_HANDOFF_DESCRIPTION = re.compile(r"\s*(?:hand ?off|hand over|transfer|delegate|route)s?\b[^.]{0,40}\bagent\b", re.I)
_AGENT_RESULT = re.compile(r'\s*\{\s*"(?:assistant|agent)"\s*:\s*"[^"\n]{1,120}"\s*\}\s*')


def _names_agent(text: str) -> bool:
    return len(text) < 200 and _AGENT_RESULT.fullmatch(text) is not None


def observation(message: Message) -> bool:
    """Whether `message` is a tool result: a tool message, or a user message that opens "Observation:"."""
    return message.role == "tool" or message.role == "user" and OBSERVATION.match(message.text) is not None


def results(prompt: Prompt) -> list[tuple[str, str]]:
    """The tool results the conversation ends with (past the system messages a harness appends after them),
    each with the name of the tool whose call it answers."""
    messages = prompt.messages
    start = len(messages)
    while start and (observation(messages[start - 1]) or messages[start - 1].role in ("system", "developer")):
        start -= 1
    found = observed(messages, start)
    if any(m.role == "tool" for m in messages[start:]):
        handed = handoffs(messages)
        kept = [m.tool_call_id for m in messages[start:] if observation(m)]
        if len(kept) == len(found) and handed.intersection(kept):
            return [r for r, i in zip(found, kept, strict=True) if i not in handed]
    return found


def observed(messages: Sequence[Message], start: int = 0) -> list[tuple[str, str]]:
    """Every tool result in `messages[start:]`, past the assistant's steps between them, each with the name of the
    call it answers: a tool message's by its id, an "Observation:" message's the last call made before it
    (structured or written as text, `written_calls`); else "tool". Its text loses the "Observation:" an agent
    opens it with."""
    names: dict[str, str] = {}
    last = "tool"
    found = []
    for i, m in enumerate(messages):
        if m.role == "assistant":
            names.update((c.id, c.name) for c in m.tool_calls)
            calls = [name for name, _ in written_calls(m.text)] if m.text else []
            last = ([last, *(c.name for c in m.tool_calls), *calls])[-1]
        elif i >= start and observation(m):
            name = names.get(m.tool_call_id or "", "tool") if m.role == "tool" else last
            found.append((name, OBSERVATION.sub("", m.text, count=1).strip()))
    return found


def scratchpad(text: str) -> tuple[str, list[tuple[str, str]]] | None:
    """A ReAct prompt that carries its own steps (LangChain's: "Question: …", then Thought, Action, Action Input
    and Observation lines): its last question and the observations after it, each with the Action before it;
    None when `text` asks no "Question:"."""
    questions = list(_QUESTION.finditer(text))
    if not questions:
        return None
    scratch = text[questions[-1].end() :]
    found = []
    for observed_ in _SCRATCH_OBSERVATION.finditer(scratch):
        before = _ACTION.findall(scratch[: observed_.start()])
        found.append((before[-1][0] if before else "tool", observed_.group(1).strip()))
    return questions[-1].group(1).strip(), found


def written_calls(text: str) -> list[tuple[str, Any]]:
    """The calls an assistant message writes as text, in the order written: (name, arguments), arguments parsed
    where they can be (None for a call in code)."""
    made: list[tuple[str, Any]] = [(name, None) for name in _CODE_CALL.findall(code_of(text))]
    calling = _CALLING.search(text)
    if calling:
        try:
            listed = ast.literal_eval(calling.group(1))
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            listed = []
        for call in listed if isinstance(listed, list) else []:
            function = call.get("function", call) if isinstance(call, dict) else {}
            if not isinstance(function, dict) or not isinstance(function.get("name"), str):
                continue
            name, arguments = function["name"], function.get("arguments")
            if name != _INTERPRETER:
                made.append((name, arguments))
                continue
            # the interpreter stands for the calls its code makes, when the step's own code did not show them
            in_code = _CODE_CALL.findall(arguments) if isinstance(arguments, str) else []
            made += [(n, None) for n in in_code] or ([] if made else [(name, arguments)])
    for action in _ACTION.finditer(text):
        given = action.group(2)
        try:
            arguments = json.loads(given) if given else None
        except ValueError:
            arguments = given
        made.append((action.group(1), arguments))
    return made


def code_of(text: str) -> str:
    """A code agent's step as code: the `code` of a structured step (`{"thought": …, "code": …}`, which smolagents
    sends back followed by its "Calling tools:" line), else the text as written."""
    text = text.lstrip()
    if text.startswith("{"):
        try:
            step, _ = json.JSONDecoder().raw_decode(text)
        except ValueError:
            return text
        if isinstance(step, dict) and isinstance(step.get("code"), str):
            return str(step["code"])
    return text


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
