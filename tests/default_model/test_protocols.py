"""The agent protocols the default speaks (`protocols`): each recognised by its markers and written the way its
framework parses it, the same through Chat, Responses and Messages, streamed or not. The prompts are this
project's own, written in each framework's shape; the parsers here follow each framework's rules."""

from __future__ import annotations

import ast
import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.core import identity
from emulator.core.conversation import Prompt
from emulator.default_model import protocols
from emulator.default_model.generate import Writer, default_reply
from emulator.dialects import anthropic_messages, openai_chat, openai_responses

WRITER = Writer(0)


def prompts(system: str, turns: list[tuple[str, str]]) -> list[Prompt]:
    """The same conversation parsed from each dialect's body, streamed and not: `turns` are (role, text)."""
    chat = [{"role": "system", "content": system}] if system else []
    chat += [{"role": r, "content": t} for r, t in turns]
    messages = [{"role": r, "content": t} for r, t in turns]
    bodies: list[tuple[Any, dict[str, Any]]] = [
        (openai_chat, {"model": "m", "messages": chat}),
        (openai_responses, {"model": "m", "input": messages} | ({"instructions": system} if system else {})),
        (
            anthropic_messages,
            {"model": "m", "max_tokens": 4000, "messages": messages} | ({"system": system} if system else {}),
        ),
    ]
    made = []
    for dialect, body in bodies:
        for stream in (False, True):
            prompt = dialect.parse_request(body | {"stream": stream}, {})
            made.append(replace(prompt, conversation=identity.conversation(prompt)))
    return made


def said(system: str, *turns: tuple[str, str]) -> str:
    """The default's text for the conversation, checked to be the same in every dialect, streamed or not."""
    texts = {default_reply(p, WRITER).text for p in prompts(system, list(turns))}
    assert len(texts) == 1, texts
    return texts.pop()


def recognised(system: str, user: str) -> str | None:
    found = protocols.recognise(prompts(system, [("user", user)])[0])
    return found[0].name if found else None


# --- ReAct --------------------------------------------------------------------------------------------------

LANGCHAIN = """Answer the following questions as best you can. You have access to the following tools:

lookup_population(country: str) - Returns the number of people living in a country.
convert_units(value: float, unit: str) - Converts a measurement into metric units.

Use the following format:

Question: the input question you must answer
Thought: you should always think about what to do
Action: the action to take, should be one of [lookup_population, convert_units]
Action Input: the input to the action
Observation: the result of the action
... (this Thought/Action/Action Input/Observation can repeat N times)
Thought: I now know the final answer
Final Answer: the final answer to the original input question

Begin!

Question: How many people live in Portugal?
Thought:"""

LLAMA = """You are designed to help with a variety of tasks.

## Tools
You have access to the following tools:
> Tool Name: moon_phase
Tool Description: Tells the phase of the moon on a given date.
Tool Args: {"properties": {"day": {"title": "Day", "type": "string"}}, "required": ["day"], "type": "object"}

> Tool Name: tide_table
Tool Description: Gives high and low tide times for a harbour.
Tool Args: {"properties": {"harbour": {"type": "string"}}, "required": ["harbour"], "type": "object"}

## Output Format
Please answer in the same language as the question and use the following format:

```
Thought: The current language of the user is: English. I need to use a tool to help me answer the question.
Action: tool name (one of moon_phase, tide_table) if using a tool.
Action Input: the input to the tool, in a JSON format representing the kwargs (e.g. {"input": "hello world"})
```

Please ALWAYS start with a Thought.

If this format is used, the tool will respond in the following format:

```
Observation: tool response
```

```
Thought: I can answer without using any more tools. I'll use the user's language to answer
Answer: [your answer here (In the same language as the user's question)]
```
"""

LANGCHAIN_ACTION = re.compile(r"Action\s*\d*\s*:[\s]*(.*?)[\s]*Action\s*\d*\s*Input\s*\d*\s*:[\s]*(.*)", re.S)


def test_react_langchain_calls_the_tool_the_question_needs_then_answers_from_its_observation() -> None:
    first = said("", ("user", LANGCHAIN))
    action = LANGCHAIN_ACTION.search(first)
    assert action and action.group(1) == "lookup_population" and "Final Answer:" not in first
    assert not first.startswith("Thought:")  # the prompt ends in "Thought:": the model goes on from it
    scratch = f"{LANGCHAIN}{first}\nObservation: 10.4 million (2024 census)\nThought: "
    second = said("", ("user", scratch))
    assert "Final Answer:" in second and not LANGCHAIN_ACTION.search(second)
    assert "10.4 million" in second.split("Final Answer:")[1]


def test_react_llamaindex_answers_in_json_kwargs_then_with_answer_after_an_observation_message() -> None:
    question = "When is high tide at the harbour of Brixham?"
    first = said(LLAMA, ("user", question))
    found = re.search(r"Thought: (.*?)\nAction: ([^\n() ]+).*?\nAction Input: .*?(\{.*\})", first, re.S)
    assert found and found.group(2) == "tide_table" and set(json.loads(found.group(3))) == {"harbour"}
    second = said(LLAMA, ("user", question), ("assistant", first), ("user", "Observation: high tide 06:42, low 12:58"))
    answer = re.search(r"Thought:(.*?)Answer:(.*?)(?:$)", second, re.S)
    assert answer and "06:42" in answer.group(2) and "Action:" not in second


def test_react_answers_at_once_when_no_tool_fits() -> None:
    text = said("", ("user", LANGCHAIN.replace("How many people live in Portugal?", "Tell me a joke about owls.")))
    assert "Final Answer:" in text and "Action:" not in text


# --- smolagents' CodeAgent ----------------------------------------------------------------------------------

SMOL = """You are an expert assistant who can solve any task using code blobs.
At each step, in the 'Thought:' sequence, you should first explain your reasoning towards solving the task.
Then write the code in simple Python.
The code sequence must be opened with '{open}', and closed with '{close}'.
In the end you have to return a final answer using the `final_answer` tool.
Above example were using notional tools. You only have access to these tools:
{open}
def parcel_status(tracking_number: string) -> string:
    \"\"\"Tells where a parcel is, by its tracking number.

    Args:
        tracking_number: the carrier's tracking number
    \"\"\"

def final_answer(answer: any) -> any:
    \"\"\"Provides a final answer to the given problem.

    Args:
        answer: The final answer to the problem
    \"\"\"
{close}
"""


@pytest.mark.parametrize(("opening", "closing"), [("<code>", "</code>"), ("```python", "```")])
def test_code_agent_calls_a_listed_tool_in_the_delimiters_named_then_final_answer(opening: str, closing: str) -> None:
    system = SMOL.format(open=opening, close=closing)
    task = "New task:\nWhere is my parcel with tracking number ZX4471?"
    first = said(system, ("user", task))
    assert first.startswith("Thought: ")
    code = re.search(rf"{re.escape(opening)}(.*?){re.escape(closing)}", first, re.S)
    assert code, first
    tree = ast.parse(code.group(1))
    called = [n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
    assert "parcel_status" in called and "final_answer" not in called
    seen = "Observation:\nExecution logs:\nIn transit, due Friday\nLast output from code snippet:\nNone"
    second = said(system, ("user", task), ("assistant", first), ("user", seen))
    code = re.search(rf"{re.escape(opening)}(.*?){re.escape(closing)}", second, re.S)
    assert code and "final_answer(" in code.group(1) and "In transit, due Friday" in code.group(1)
    ast.parse(code.group(1))


def test_code_agent_after_a_structured_step_names_the_tool_that_step_called() -> None:
    """With structured outputs, smolagents sends each step back as its JSON (`thought`, `code`) followed by a
    "Calling tools:" line: the final answer names the tool the code called, not the interpreter."""
    system = SMOL.format(open="<code>", close="</code>")
    task = "New task:\nHas the parcel RT-2290 left the depot yet?"
    step = json.dumps({"thought": "I look it up.", "code": "status = parcel_status('RT-2290')\nprint(status)"})
    calling = "[{'id': 'call_1', 'type': 'function', 'function': {'name': 'python_interpreter'}}]"
    sent = f"{step}\nCalling tools:\n{calling}"
    seen = "Observation:\nExecution logs:\nLeft the depot at 07:10\nLast output from code snippet:\nNone"
    second = said(system, ("user", task), ("assistant", sent), ("user", seen))
    code = re.search(r"<code>(.*?)</code>", second, re.S)
    assert code and "parcel_status" in code.group(1) and "Left the depot at 07:10" in code.group(1), second


# --- DSPy ---------------------------------------------------------------------------------------------------

DSPY = """Your input fields are:
1. `ticket` (str):
Your output fields are:
1. `reasoning` (str):
2. `priority` (Literal['low', 'high', 'urgent']):
3. `minutes` (int): minutes to resolve
4. `confidence` (float):
5. `escalate` (bool):
6. `labels` (list[str]):
All interactions will be structured in the following way, with the appropriate values filled in.

[[ ## ticket ## ]]
{ticket}

[[ ## reasoning ## ]]
{reasoning}

[[ ## priority ## ]]
{priority}        # note: the value you produce must exactly match (no extra characters) one of: low; high; urgent

[[ ## minutes ## ]]
{minutes}        # note: the value you produce must be a single int value

[[ ## confidence ## ]]
{confidence}        # note: the value you produce must be a single float value

[[ ## escalate ## ]]
{escalate}        # note: the value you produce must be True or False

[[ ## labels ## ]]
{labels}        # note: the value you produce must adhere to the JSON schema: {"type": "array"}

[[ ## completed ## ]]
In adhering to this structure, your objective is:
        Triage a support ticket."""
DSPY_USER = """[[ ## ticket ## ]]
The checkout page is down for every customer, this is urgent.

Respond with the corresponding output fields, starting with the field `[[ ## reasoning ## ]]`, then
`[[ ## priority ## ]]`, and then ending with the marker for `[[ ## completed ## ]]`."""


def sections(text: str) -> dict[str, str]:
    """The ChatAdapter's reading: a header line opens a section, which runs to the next."""
    found: dict[str, list[str]] = {"": []}
    name = ""
    for line in text.splitlines():
        header = re.match(r"\[\[ ## (\w+) ## \]\]", line.strip())
        if header:
            name = header.group(1)
            found[name] = []
        else:
            found[name].append(line)
    return {k: "\n".join(v).strip() for k, v in found.items() if k}


def test_dspy_chat_fields_in_order_typed_and_completed() -> None:
    text = said(DSPY, ("user", DSPY_USER))
    got = sections(text)
    assert list(got) == ["reasoning", "priority", "minutes", "confidence", "escalate", "labels", "completed"]
    assert got["priority"] == "urgent"  # the option the ticket names
    assert int(got["minutes"]) >= 0 and isinstance(float(got["confidence"]), float)
    assert got["escalate"] in ("True", "False") and all(isinstance(x, str) for x in json.loads(got["labels"]))
    assert got["reasoning"] and "[[" not in got["reasoning"]


def test_dspy_fields_are_written_when_the_user_message_has_no_markers() -> None:
    """A DSPy system prompt with a user message typed plainly, no `[[ ## … ## ]]` in it, raised ValueError in
    the field reader (a 500 from the server); the output fields are written all the same, from the message."""
    text = said(DSPY, ("user", "My invoice was charged twice this month, please help."))
    assert "[[ ## completed ## ]]" in text, text


def test_dspy_json_mode_has_exactly_the_listed_keys_typed() -> None:
    system = DSPY.replace("All interactions will", "Outputs will be a JSON object.\nAll interactions will")
    user = DSPY_USER.split("\n\nRespond")[0] + (
        "\n\nRespond with a JSON object in the following order of fields: `reasoning`, then `priority`, then "
        "`minutes`, then `confidence`, then `escalate`, then `labels`."
    )
    for prompt in prompts(system, [("user", user)]):
        prompt = replace(prompt, response_format=replace(prompt.response_format, type="json_object"))
        value = json.loads(default_reply(prompt, WRITER).text)
        assert list(value) == ["reasoning", "priority", "minutes", "confidence", "escalate", "labels"]
        assert value["priority"] in ("low", "high", "urgent") and isinstance(value["minutes"], int)
        assert isinstance(value["escalate"], bool) and isinstance(value["labels"], list)


DSPY_REACT = """Your input fields are:
1. `question` (str):
2. `trajectory` (str):
Your output fields are:
1. `next_thought` (str):
2. `next_tool_name` (Literal['weather_now', 'define_word', 'finish']):
3. `next_tool_args` (dict[str, Any]):
All interactions will be structured in the following way, with the appropriate values filled in.

[[ ## next_tool_args ## ]]
{next_tool_args}        # note: the value you produce must adhere to the JSON schema: {"type": "object"}

[[ ## completed ## ]]
In adhering to this structure, your objective is:
        When selecting the next_tool_name and its next_tool_args, the tool must be one of:

        (1) weather_now, whose description is <desc>Weather in a city.</desc>. It takes arguments {'city': {}}.
        (2) define_word, whose description is <desc>Define a word.</desc>. It takes arguments {'word': {}}.
        (3) finish, whose description is <desc>Marks the task as complete.</desc>. It takes arguments {}."""


def test_dspy_react_picks_the_listed_tool_then_finishes_after_an_observation() -> None:
    user = "[[ ## question ## ]]\nWhat is the weather in Oslo today?\n\n[[ ## trajectory ## ]]\n\n\nRespond."
    first = sections(said(DSPY_REACT, ("user", user)))
    assert first["next_tool_name"] == "weather_now" and set(json.loads(first["next_tool_args"])) == {"city"}
    trajectory = (
        "[[ ## thought_0 ## ]]\nI look it up.\n\n[[ ## tool_name_0 ## ]]\nweather_now\n\n[[ ## tool_args_0 ## ]]\n"
        '{"city": "Oslo"}\n\n[[ ## observation_0 ## ]]\n-3 °C and snowing'
    )
    later = user.replace("[[ ## trajectory ## ]]\n", f"[[ ## trajectory ## ]]\n{trajectory}")
    second = sections(said(DSPY_REACT, ("user", later)))
    assert second["next_tool_name"] == "finish" and json.loads(second["next_tool_args"]) == {}
    assert "-3 °C and snowing" in second["next_thought"]


# --- aider --------------------------------------------------------------------------------------------------

FILES = (
    "I have *added these files to the chat* so you can go ahead and edit them.\n\n"
    "shapes/area.py\n```\ndef square(side):\n    return side * side\n```\n"
)
AIDER = {
    "aider-diff": "Describe each change with a *SEARCH/REPLACE block*:\n<<<<<<< SEARCH\n=======\n>>>>>>> REPLACE\n",
    "aider-whole": "You MUST use this *file listing* format, with the entire content of the updated file.",
    "aider-udiff": "Write changes as unified diffs like `diff -U0`.\nTo make a new file, diff from `--- /dev/null`.",
}
REQUEST = "Add a function that computes the factorial of a number to shapes/area.py"


def edited(fmt: str) -> str:
    return said(AIDER[fmt], ("user", FILES), ("assistant", "Ok."), ("user", REQUEST))


def test_aider_search_replace_block_applies_to_the_named_file() -> None:
    text = edited("aider-diff")
    block = re.search(r"^(\S+)\n```\w*\n<<<<<<< SEARCH\n(.*?)^=======\n(.*?)^>>>>>>> REPLACE\n```", text, re.M | re.S)
    assert block and block.group(1) == "shapes/area.py"
    before = "def square(side):\n    return side * side\n"
    assert before.count(block.group(2)) == 1 and block.group(2)
    after = before.replace(block.group(2), block.group(3), 1)
    assert after.startswith(before.rstrip()) and "def factorial" in after
    compile(after, "area.py", "exec")


def test_aider_whole_file_lists_the_file_with_the_new_code() -> None:
    listing = re.search(r"^(\S+)\n```[^\n]*\n(.*?)^```", edited("aider-whole"), re.M | re.S)
    assert listing and listing.group(1) == "shapes/area.py"
    assert listing.group(2).startswith("def square(side):") and "def factorial" in listing.group(2)
    compile(listing.group(2), "area.py", "exec")


def test_aider_unified_diff_hunk_applies_to_the_file() -> None:
    diff = re.search(r"```diff\n--- (\S+)\n\+\+\+ (\S+)\n@@ \.\.\. @@\n(.*?)```", edited("aider-udiff"), re.S)
    assert diff and diff.group(1) == diff.group(2) == "shapes/area.py"
    lines = diff.group(3).splitlines()
    assert all(x[:1] in "+- " for x in lines)
    minus = "".join(x[1:] + "\n" for x in lines if x[:1] in "- ")
    plus = "".join(x[1:] + "\n" for x in lines if x[:1] in "+ ")
    before = "def square(side):\n    return side * side\n"
    assert minus in before and "def factorial" in before.replace(minus, plus)


# --- JSON with the keys named, answers in tags ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("ask", "keys"),
    [
        ("Respond with a JSON object with keys title, year and is_classic.", ["title", "year", "is_classic"]),
        (
            'Return JSON with the keys "city", "population_count", "landmarks".',
            ["city", "population_count", "landmarks"],
        ),
        ("Answer as JSON using exactly these fields: `verdict`, `reason`.", ["verdict", "reason"]),
    ],
)
def test_json_with_the_keys_named_has_exactly_those_keys(ask: str, keys: list[str]) -> None:
    value = json.loads(said(ask, ("user", "Tell me about the film Metropolis by Fritz Lang.")))
    assert list(value) == keys
    for key in keys:
        if key.startswith("is_"):
            assert isinstance(value[key], bool)
        elif key.endswith(("year", "count")):  # nothing here says: null, not a number made up
            assert value[key] is None or isinstance(value[key], int)
        elif key == "landmarks":
            assert isinstance(value[key], list)
        elif key == "title":
            assert value[key] == "Metropolis"


def test_json_keys_asked_in_the_user_message_and_fenced_when_asked() -> None:
    text = said("", ("user", "List a fruit. Reply in a ```json code block with the keys name and colour."))
    block = re.fullmatch(r"```json\n(.*)\n```", text, re.S)
    assert block and list(json.loads(block.group(1))) == ["name", "colour"]


@pytest.mark.parametrize(
    ("system", "tags"),
    [
        ("Put your final answer within <answer></answer> tags.", ["answer"]),
        ("Think in <scratchpad> tags first, then write the reply in <reply> tags.", ["scratchpad", "reply"]),
        ("Wrap the summary you give in <summary> and </summary>.", ["summary"]),
    ],
)
def test_answers_in_the_tags_named(system: str, tags: list[str]) -> None:
    text = said(system, ("user", "Why do cats purr?"))
    found = re.findall(r"<(\w+)>(.*?)</\1>", text, re.S)
    assert [t for t, _ in found] == tags and all(body.strip() for _, body in found)


def test_plain_prompts_and_agents_tag_talk_are_no_protocol() -> None:
    assert recognised("", "Why is the sea salty?") is None
    assert recognised("You are a helpful assistant.", "Explain JSON in two sentences.") is None
    assert recognised("Tool results may include <system-reminder> tags.", "What does this repo do?") is None
    assert recognised("", "What is a JSON key?") is None


@pytest.mark.parametrize(
    ("system", "user", "name"),
    [
        (LLAMA, "When is high tide in Brixham?", "react"),
        ("", LANGCHAIN, "react"),
        (SMOL.format(open="<code>", close="</code>"), "New task:\nx", "smolagents-code"),
        (DSPY, DSPY_USER, "dspy-chat"),
        (AIDER["aider-diff"], REQUEST, "aider-diff"),
        (AIDER["aider-whole"], REQUEST, "aider-whole"),
        (AIDER["aider-udiff"], REQUEST, "aider-udiff"),
        ("Give the result in <result> tags.", "Why?", "xml-tags"),
        ("Respond in JSON with keys a and b.", "Why?", "json-keys"),
    ],
)
def test_each_protocol_is_recognised_by_its_markers(system: str, user: str, name: str) -> None:
    assert recognised(system, user) == name


def test_the_table_is_read_once_and_names_a_writer_for_each_entry() -> None:
    assert protocols.table() is protocols.table()
    names = [e.name for e in protocols.table()]
    assert len(set(names)) == len(names) and set(names) <= set(protocols.writers())


def test_a_request_with_claude_codes_tools_speaks_no_text_protocol() -> None:
    """Claude Code's and Codex's prompts talk of tags, JSON and diffs of their own: with tools offered, tags,
    keys, ReAct, code blocks and aider's edits are not what is asked."""
    tools = json.loads((Path(__file__).parent.parent / "agents" / "claude-code-tools.json").read_text())["tools"]
    for system in ("Put your final answer in <answer> tags.", "Reply in JSON with keys a and b.", SMOL, LLAMA):
        body = {"model": "m", "max_tokens": 100, "system": system, "tools": tools}
        body |= {"messages": [{"role": "user", "content": "What does this project do?"}]}
        assert protocols.recognise(anthropic_messages.parse_request(body, {})) is None


# --- the recogniser's cost on a long system prompt -----------------------------------------------------------


def _long_system(tail: str = "") -> str:
    """A 68,000-character system prompt of an agent without tools: prose, a tag or a word of JSON here and there
    (each on its own line, as in Claude Code's), none asking for an answer in tags or keys; then `tail`."""
    lines = []
    for i in range(1200):
        if i % 25 == 0:
            lines.append(f"Wrap notes for step {i} in the <note> element when you keep them.")
        elif i % 40 == 0:
            lines.append(f"Settings for step {i} are stored as JSON in the project's configuration.")
        else:
            lines.append(f"Step {i}: read the request, keep the change small and explain what you changed and why.")
    return "\n".join(lines)[:68000] + tail


def _best_of(runs: int, work: Any) -> float:
    """The shortest of `runs` timings of `work()`: the least disturbed by whatever else the machine does."""
    import time

    best = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - started)
    return best


def test_the_recogniser_reads_a_long_system_prompt_in_a_fraction_of_a_whole_text_search() -> None:
    """xml-tags and json-keys are searched only on the lines that hold a tag and where "json" stands
    (protocols.txt's `line` and `start`): searched over the whole text at every position, as before, they took
    about seven times as long on 68,000 characters (10 ms). The baseline is that whole-text search, timed here."""
    system = _long_system()
    prompt = openai_chat.parse_request(
        {"model": "m", "messages": [{"role": "system", "content": system}, {"role": "user", "content": "Hi there"}]}, {}
    )
    entries = [e for e in protocols.table() if e.name in ("xml-tags", "json-keys", "json-asked")]
    assert [e.line or e.start for e in entries] and all(e.line or e.start for e in entries)
    whole = "\n".join(protocols.texts(prompt))

    def searched_whole() -> None:
        for entry in entries:
            for pattern in entry.required:
                pattern.search(whole)

    assert protocols.recognise(prompt) is None
    # Interleaved, so that both see whatever load the machine has at the time, and the quickest of each kept.
    timings = [(_best_of(1, searched_whole), _best_of(1, lambda: protocols.recognise(prompt))) for _ in range(9)]
    baseline, took = min(t[0] for t in timings), min(t[1] for t in timings)
    assert took < baseline / 3, (took, baseline)


@pytest.mark.parametrize(
    ("tail", "name"),
    [
        ("\nPut your final answer in <answer></answer> tags.", "xml-tags"),
        ("\nRespond in json with the keys:\n- title\n- year", "json-keys"),
    ],
)
def test_a_protocol_asked_for_at_the_end_of_a_long_system_prompt_is_found_as_a_whole_text_search_finds_it(
    tail: str, name: str
) -> None:
    system = _long_system(tail)
    prompt = openai_chat.parse_request(
        {"model": "m", "messages": [{"role": "system", "content": system}, {"role": "user", "content": "Hi there"}]}, {}
    )
    found = protocols.recognise(prompt)
    assert found is not None and found[0].name == name
    entry, matches = found
    assert [m.span() for m in matches] == [m.span() for p in entry.required if (m := p.search(system))]


# Words a user of these frameworks types, and the frameworks' own markers, for the property below: plain
# `st.text()` seldom writes "haiku" beside "```" (a haiku about no word at all raised KeyError).
PIECES = (
    "write a haiku about",
    "why",
    "what is",
    "how do I",
    "compare",
    "vs",
    "list 3 names",
    "email",
    "story",
    "python",
    "sql",
    "function",
    "```",
    "«",
    "[[ ## ticket ## ]]",
    "Thought:",
    "Action:",
    "Observation:",
    '{"a": 1}',
    "<tool>",
    "</tool>",
    "##",
    "*",
    "?",
    "!",
    ":",
    "\n",
    "",
    "Final Answer:",
)


@settings(max_examples=300, deadline=None)
@given(
    system=st.sampled_from([LANGCHAIN, LLAMA, SMOL, DSPY, DSPY_REACT, ""]),
    words=st.lists(st.sampled_from(PIECES) | st.text(max_size=8), max_size=12),
)
def test_any_message_under_any_protocol_gets_an_answer_never_a_crash(system: str, words: list[str]) -> None:
    """Under each framework's system prompt (or none), whatever the user typed is answered: a crash here is a
    500 from the server (DSPy's reader with no markers, a haiku about symbols only)."""
    turns = [("user", " ".join(words))]
    text = said(system, *turns) if system else said("You are helpful.", *turns)
    assert isinstance(text, str)
