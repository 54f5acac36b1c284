"""smolagents' CodeAgent: "Thought:" and then Python between the delimiters its prompt names (`<code>` and
`</code>` by default, "```python" and "```" in markdown mode), which smolagents runs.

The tools are the `def name(arg: type) -> type:` stubs the prompt lists. A first step calls the one the task calls
for, with arguments from the task, and prints what it returns; after the observation (a user message opening
"Observation:" with the execution logs) the next step passes that result to `final_answer`. A task no tool fits
is answered at once. With structured outputs on, the step is one JSON object, `thought` and `code`.
"""

from __future__ import annotations

import json
import re
from typing import Any

from emulator.core.conversation import Message, Prompt, Tool
from emulator.default_model import loop
from emulator.default_model.asked import Asked
from emulator.default_model.react import TYPES

_STUB = re.compile(r'^\s*def (\w+)\(([^)\n]*)\)\s*->\s*[\w\[\], ]+:\s*\n\s*"""(.*?)"""', re.M | re.S)
_PARAM = re.compile(r"(\w+)\s*:\s*([\w\[\]]+)")
_TASK = "New task:"
SMOL_TYPES = TYPES | {"any": "string", "object": "object", "array": "array", "null": "null"}


def write(asked: Asked) -> str | None:
    opening, closing = asked.found[-1].group(1), asked.found[-1].group(2)
    thought, code = _step(asked)
    return f"Thought: {thought}\n{opening}\n{code}\n{closing}"


def structured(asked: Asked) -> str | None:
    """The step as smolagents' structured outputs take it: one JSON object with `thought` and `code`."""
    thought, code = _step(asked)
    return json.dumps({"thought": thought, "code": code}, ensure_ascii=False)


def _step(asked: Asked) -> tuple[str, str]:
    """This step's thought and code: call the tool the task calls for, or give the answer once there is one."""
    task, results = _task_and_results(asked.prompt)
    if results:
        return (
            "I have what the task asks for, so I give it as the final answer.",
            f"final_answer({asked.reported(results, task)!r})",
        )
    tools = [t for t in _tools("\n".join(asked.texts)) if t.name != "final_answer"]
    tool = asked.choose(tools, task)
    if tool is None:
        return "I can answer this directly, without a tool.", f"final_answer({asked.sentence(task)!r})"
    given = ", ".join(f"{k}={_literal(v)}" for k, v in asked.arguments(tool, task).items())
    return (
        f"I will use `{tool.name}` for this and print what it returns.",
        f"result = {tool.name}({given})\nprint(result)",
    )


def _literal(value: Any) -> str:
    """`value` (from JSON) as a Python literal."""
    if isinstance(value, (dict, list)):
        return repr(json.loads(json.dumps(value)))
    return repr(value)


def _task_and_results(prompt: Prompt) -> tuple[str, list[tuple[str, str]]]:
    """The task (the last "New task:" message, else the first user message), and what the code run since
    printed, by the tool it called."""
    messages = prompt.messages
    start = next((i for i in range(len(messages) - 1, -1, -1) if _is_task(messages[i])), -1)
    if start >= 0:
        task = messages[start].text.lstrip()[len(_TASK) :].strip()
    else:
        task = next((m.text.lstrip() for m in messages if m.role == "user" and not loop.observation(m)), "")
    results = [(name, _printed(said)) for name, said in loop.observed(messages, start + 1)]
    return task or prompt.last_user_text, results


def _is_task(message: Message) -> bool:
    return message.role in ("user", "tool") and message.text.lstrip().startswith(_TASK)


def _printed(observation: str) -> str:
    """What a step printed ("Execution logs:" …), else its last output."""
    logs, _, last = observation.partition("Last output from code snippet:")
    logs = logs.strip().removeprefix("Execution logs:").strip()
    return logs or last.strip()


def _tools(system: str) -> list[Tool]:
    tools = []
    for stub in _STUB.finditer(system):
        name, params, doc = stub.groups()
        properties = {p: {"type": SMOL_TYPES.get(kind.split("[")[0], "string")} for p, kind in _PARAM.findall(params)}
        for param in properties:  # "Args:\n    city: the city to look up"
            said = re.search(rf"^\s*{param}: (.+)$", doc, re.M)
            if said:
                properties[param]["description"] = said.group(1).strip()
        schema = {"type": "object", "properties": properties, "required": list(properties)}
        tools.append(Tool(name, description=doc.split("\n\n")[0].strip(), parameters=schema))
    return tools
