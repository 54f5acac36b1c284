"""ReAct as LangChain's and LlamaIndex's agents parse it: `Thought:` then `Action:` and `Action Input:` to call a
tool, or `Final Answer:` (LangChain) / `Answer:` (LlamaIndex) to finish.

The tools are read from the prompt: their names from "one of [a, b]", their descriptions from LangChain's
"name(args) - description" lines, LlamaIndex's "> Tool Name: / Tool Description: / Tool Args:" blocks or
CrewAI's "Tool Name: / Tool Arguments: / Tool Description:" ones. A first turn calls the tool the question calls
for, with arguments from the question; once an observation came back (in the scratchpad LangChain writes into its
prompt, or as "Observation:" messages), it answers from it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from emulator.core.conversation import Message, Prompt, Tool
from emulator.default_model import loop
from emulator.default_model.asked import Asked

_NAMES = re.compile(r"^Action:[^\n]*?\bone (?:\w+ )?of \[?([^\]\n)]*)", re.M)
# CrewAI's tool blocks: "Tool Name: …", "Tool Arguments: {JSON Schema}", "Tool Description: …".
_CREW_TOOL = re.compile(r"^Tool Name: (\S+)\nTool Arguments: ", re.M)
_CREW_DESCRIPTION = re.compile(r"\s*Tool Description: ([^\n]*)")
_LLAMA_TOOL = re.compile(r"^> Tool Name: (\S+)\nTool Description: (.*?)\nTool Args: ", re.M | re.S)
_PARAMS = re.compile(r"(\w+)\s*:\s*([\w\[\], ]+?)\s*(?:=\s*[^,)]*)?(?:,|$)")
TYPES = {"str": "string", "string": "string", "int": "integer", "integer": "integer", "float": "number"}
TYPES |= {"number": "number", "bool": "boolean", "boolean": "boolean", "list": "array", "dict": "object"}


def write(asked: Asked) -> str | None:
    system = "\n".join(asked.texts)
    task, results = _task_and_results(asked.prompt)
    finish = "Final Answer:" if "Final Answer:" in system else "Answer:"
    opened = asked.prompt.last_user_text.rstrip().endswith("Thought:")
    thought = " " if opened else "Thought: "
    if results:
        return f"{thought}I now know the final answer.\n{finish} {asked.reported(results, task)}"
    tools = _tools(system)
    tool = asked.choose(tools, task)
    if tool is None:
        return f"{thought}I can answer without using any tools.\n{finish} {asked.sentence(task)}"
    arguments = asked.arguments(tool, task)
    properties = (tool.parameters or {}).get("properties", {})
    if re.search(r"Action Input:[^\n]*JSON", system) or len(properties) != 1 or not arguments:
        given = json.dumps(arguments, ensure_ascii=False)
    else:
        given = str(next(iter(arguments.values())))
    return f"{thought}I need to use {tool.name} to answer this.\nAction: {tool.name}\nAction Input: {given}"


def _task_and_results(prompt: Prompt) -> tuple[str, list[tuple[str, str]]]:
    """The question, and the observations made since it was asked, each with the tool that made it: those in
    the scratchpad of the question's own message, then those in "Observation:" messages after it."""
    messages = prompt.messages
    start = next(
        (i for i in range(len(messages) - 1, -1, -1) if _asks(messages[i], messages[i - 1] if i else None)), -1
    )
    text = messages[start].text if start >= 0 else ""
    results = [*_in_steps(messages[start + 1 :]), *loop.observed(messages, start + 1)]
    pad = loop.scratchpad(text)
    if pad is None:
        return text.strip(), results
    return pad[0], [*pad[1], *results]


def _asks(message: Message, before: Message | None = None) -> bool:
    """Whether `message` asks the question: a user message, not an observation, nor the nudge a framework sends after
    a step that holds its observation ("analyse the tool result, then give the final answer": CrewAI's)."""
    if message.role != "user" or loop.observation(message):
        return False
    stepped = before is not None and before.role == "assistant" and "\nObservation:" in before.text
    return not (stepped and _NUDGE.search(message.text))


_NUDGE = re.compile(r"\b(?:tool|action)(?:'s)? (?:result|output)|\bfinal answer\b", re.I)
_STEP_OBSERVATION = re.compile(r"^Observation:\s*(.*?)\s*(?=^Thought:|\Z)", re.M | re.S)


def _in_steps(messages: Sequence[Message]) -> list[tuple[str, str]]:
    """The observations a framework writes into the assistant's own steps (CrewAI appends "Observation: …" to the
    step that called the tool), each with the Action before it."""
    found = []
    for m in messages:
        if m.role != "assistant" or "Observation:" not in m.text:
            continue
        for seen in _STEP_OBSERVATION.finditer(m.text):
            before = [name for name, _ in loop.written_calls(m.text[: seen.start()])]
            found.append((before[-1] if before else "tool", seen.group(1)))
    return found


def _tools(system: str) -> list[Tool]:
    """The tools the prompt offers, with a JSON Schema of their arguments where it gives one."""
    named = _NAMES.search(system)
    names = [n.strip(" `'\"") for n in named.group(1).split(",")] if named else []
    tools = {}
    for block in _LLAMA_TOOL.finditer(system):
        try:
            schema, _ = json.JSONDecoder().raw_decode(system, block.end())
        except ValueError:
            schema = None
        tools[block.group(1)] = Tool(block.group(1), description=block.group(2).strip(), parameters=_object(schema))
    for block in _CREW_TOOL.finditer(system):
        try:
            schema, end = json.JSONDecoder().raw_decode(system, block.end())
        except ValueError:
            schema, end = None, block.end()
        described = _CREW_DESCRIPTION.match(system, end)
        said = described.group(1).strip() if described else ""
        tools[block.group(1)] = Tool(block.group(1), description=said, parameters=_object(schema))
    for name in names:
        if name and name not in tools:
            tools[name] = _described(name, system)
    return [t for t in tools.values() if not names or t.name in names]


def _described(name: str, system: str) -> Tool:
    """A LangChain tool from its line: "name(a: str, b: int) - description", "name - description", "name: …"."""
    line = re.search(rf"^{re.escape(name)}(\([^\n]*?\))?\s*[-:]\s*(.*)$", system, re.M)
    if line is None:
        return Tool(name, parameters=_single())
    properties = {
        param: {"type": TYPES.get(kind.split("[")[0].strip(), "string")}
        for param, kind in _PARAMS.findall((line.group(1) or "")[1:-1])
    }
    schema = {"type": "object", "properties": properties, "required": list(properties)} if properties else _single()
    return Tool(name, description=line.group(2).strip(), parameters=schema)


def _single() -> dict[str, Any]:
    return {"type": "object", "properties": {"input": {"type": "string"}}, "required": ["input"]}


def _object(schema: Any) -> Mapping[str, Any]:
    if isinstance(schema, dict) and isinstance(schema.get("properties"), dict):
        return schema
    return _single()
