"""ReAct as LangChain's and LlamaIndex's agents parse it: `Thought:` then `Action:` and `Action Input:` to call a
tool, or `Final Answer:` (LangChain) / `Answer:` (LlamaIndex) to finish.

The tools are read from the prompt: their names from "one of [a, b]", their descriptions from LangChain's
"name(args) - description" lines or LlamaIndex's "> Tool Name: / Tool Description: / Tool Args:" blocks. A first
turn calls the tool the question calls for, with arguments from the question; once an observation came back
(in the scratchpad LangChain writes into its prompt, or as "Observation:" messages), it answers from it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from emulator.conversation import Prompt, Tool
from emulator.default_model.protocols import Asked, choose, reported

_NAMES = re.compile(r"^Action:[^\n]*?\bone of \[?([^\]\n)]*)", re.M)
_LLAMA_TOOL = re.compile(r"^> Tool Name: (\S+)\nTool Description: (.*?)\nTool Args: ", re.M | re.S)
_QUESTION = re.compile(r"^Question: (.+)$", re.M)
_OBSERVATION = re.compile(r"^Observation:\s*(.*?)(?=^Thought:|\Z)", re.M | re.S)
_ACTION = re.compile(r"^Action:\s*`?([\w.-]+)", re.M)
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
        return f"{thought}I now know the final answer.\n{finish} {reported(results)}"
    tools = _tools(system)
    tool = choose(tools, task) if tools else None
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
    """The question, and the observations made since it was asked, each with the tool that made it."""
    results: list[tuple[str, str]] = []
    action, text = "tool", ""
    for m in prompt.messages:
        if m.role == "assistant":
            action = ([action, *_ACTION.findall(m.text)])[-1]
        elif m.role == "user" and m.text.lstrip().startswith("Observation:"):
            results.append((action, m.text.lstrip()[len("Observation:") :].strip()))
        elif m.role == "user":
            text, results = m.text, []
    questions = list(_QUESTION.finditer(text))
    if not questions:
        return text.strip(), results
    scratch = text[questions[-1].end() :]
    for observed in _OBSERVATION.finditer(scratch):
        before = _ACTION.findall(scratch[: observed.start()])
        results.append((before[-1] if before else "tool", observed.group(1).strip()))
    return questions[-1].group(1).strip(), results


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
