"""DSPy's adapters: the ChatAdapter's `[[ ## field ## ]]` sections ending in `[[ ## completed ## ]]`, and its
JSONAdapter's one object, with exactly the output fields the system prompt lists, in its order, each typed as
listed (str, int, float, bool, Literal[…], lists and objects by the JSON Schema the prompt gives).

ChainOfThought's `reasoning` is the default's thinking; ReAct's `next_tool_name` picks the listed tool the question
calls for, `next_tool_args` its arguments from the question, and `finish` once the trajectory holds an
observation; a str answer after observations gives what they returned.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping
from typing import Any

from emulator.core.conversation import Tool
from emulator.default_model import options, prose, question
from emulator.default_model.asked import Asked

_FIELD = re.compile(r"^\d+\. `(\w+)` \((.*)\):(.*)$", re.M)
_SCHEMA_NOTE = re.compile(r"^\{(\w+)\}\s+# note: the value you produce must adhere to the JSON schema: (.+)$", re.M)
_SECTION = re.compile(r"^\[\[ ## (\w+) ## \]\]\s*$", re.M)
_TOOL = re.compile(r"^\s*\(\d+\) (\w+), whose description is <desc>(.*?)</desc>\. It takes arguments (\{.*\})", re.M)
SCALARS: dict[str, dict[str, Any]] = {"int": {"type": "integer"}, "float": {"type": "number"}}
SCALARS |= {"bool": {"type": "boolean"}, "str": {"type": "string"}}
_LIST_OF_TEXT = re.compile(r"(?:list|List|tuple|Tuple)\[str(?:,\.\.\.)?\]")
ANSWERS = ("answer", "response", "output", "result", "summary", "text", "reply", "completion")


def chat(asked: Asked) -> str | None:
    values = _values(asked)
    if values is None:
        return None
    sections = [f"[[ ## {name} ## ]]\n{_shown(value)}" for name, value in values.items()]
    return "\n\n".join([*sections, "[[ ## completed ## ]]"])


def json_fields(asked: Asked) -> str | None:
    values = _values(asked)
    return None if values is None else json.dumps(values, ensure_ascii=False, indent=2)


def _shown(value: Any) -> str:
    """A value as the ChatAdapter parses it: text as it is, True/False, numbers, JSON for lists and objects."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return str(value)
    return json.dumps(value, ensure_ascii=False)


def _values(asked: Asked) -> dict[str, Any] | None:
    system = "\n".join(asked.texts[:-1]) or asked.texts[-1]
    outputs = _fields(system, "Your output fields are:")
    if not outputs:
        return None
    notes = dict(_SCHEMA_NOTE.findall(system))
    inputs = _sections(asked.prompt.last_user_text)
    observed = [(inputs.get(f"tool_name_{k[12:]}", "tool"), v) for k, v in inputs.items() if k[:12] == "observation_"]
    observed = [(name, result) for name, result in observed if name != "finish"]
    inputs_named = {k: v for k, v in inputs.items() if k in _fields(system, "Your input fields are:")}
    given = [v for k, v in inputs_named.items() if k != "trajectory"]
    task = given[0] if given else asked.prompt.last_user_text
    said = "\n".join(given) or task
    values: dict[str, Any] = {}
    for name, kind in outputs.items():
        values[name] = _value(asked, name, kind, notes.get(name), (task, said), observed, system, values)
    return values


def _fields(system: str, heading: str) -> dict[str, str]:
    """The fields listed under `heading` ("Your output fields are:"), name → type as written."""
    start = system.find(heading)
    if start < 0:
        return {}
    listed = system[start + len(heading) :]
    stop = re.search(r"^(?!\d+\. |Constraints:|    )\S", listed, re.M)
    return dict((m.group(1), m.group(2)) for m in _FIELD.finditer(listed[: stop.start() if stop else None]))


def _sections(text: str) -> dict[str, str]:
    """The `[[ ## name ## ]]` sections of a message, name → text."""
    marks = list(_SECTION.finditer(text))
    if not marks:  # a message with no markers (a user who typed the question plainly): no sections
        return {}
    ends = [m.start() for m in marks[1:]] + [len(text)]
    said = {m.group(1): text[m.end() : end].strip() for m, end in zip(marks, ends, strict=True)}
    if marks:  # the last section runs on into DSPy's reminder of the output format
        last = marks[-1].group(1)
        said[last] = re.split(r"\n\nRespond with ", said[last], maxsplit=1)[0].strip()
    return said


def _value(
    asked: Asked,
    name: str,
    kind: str,
    note: str | None,
    inputs: tuple[str, str],
    observed: list[tuple[str, str]],
    system: str,
    before: Mapping[str, Any],
) -> Any:
    """A field's value: `inputs` are the task (the first input field) and all the input fields' text."""
    task, said = inputs
    if name == "next_tool_name":
        return _next_tool(asked, kind, task, observed, system)
    if name == "next_tool_args":
        return _next_args(asked, before.get("next_tool_name", "finish"), task, system)
    if kind.startswith("Literal["):
        listed = _options(kind)
        return options.pick(listed, said, asked.writer.rng(asked.prompt.root, "literal", name)) if listed else ""
    if _LIST_OF_TEXT.fullmatch(kind.replace(" ", "")) and (found := options.phrases(said)):
        return found  # `topics`, `keywords`: the noun phrases the input names
    if kind == "str":
        return _text(asked, name, task, observed)
    schema = SCALARS.get(kind)
    if schema is None and note:
        try:
            schema = json.loads(note)
        except ValueError:
            schema = None
    if schema is None:
        return _text(asked, name, task, observed)
    return asked.value(schema, task, name)


def _text(asked: Asked, name: str, task: str, observed: list[tuple[str, str]]) -> str:
    if name in ("reasoning", "rationale", "next_thought", "thought"):
        q = question.read(task)
        if observed:
            return f"The tools have answered: {prose.shown(observed)}. That is enough to answer."
        return prose.thinking(q, prose.slots(q), asked.dice, 2)
    if observed and (name in ANSWERS or name.endswith("answer")):
        return asked.reported(observed, task)
    return asked.sentence(task)


def _options(kind: str) -> list[str]:
    try:
        listed = ast.literal_eval(f"[{kind[len('Literal[') : -1]}]")
    except (ValueError, SyntaxError):
        return []
    return [str(o) for o in listed]


def _tools(system: str) -> dict[str, Tool]:
    tools = {}
    for name, description, arguments in _TOOL.findall(system):
        try:
            properties = ast.literal_eval(arguments)
        except (ValueError, SyntaxError):
            properties = {}
        schema = {"type": "object", "properties": properties, "required": list(properties)}
        tools[name] = Tool(name, description=description, parameters=schema)
    return tools


def _next_tool(asked: Asked, kind: str, task: str, observed: list[tuple[str, str]], system: str) -> str:
    options = _options(kind) if kind.startswith("Literal[") else []
    if observed or not options:
        return "finish"
    tools = [t for n, t in _tools(system).items() if n in options and n != "finish"]
    tool = asked.choose(tools, task)
    return tool.name if tool else "finish"


def _next_args(asked: Asked, tool_name: str, task: str, system: str) -> dict[str, Any]:
    tool = _tools(system).get(tool_name)
    if tool is None or tool_name == "finish":
        return {}
    return asked.arguments(tool, task)
