"""The embedded default: answers shaped like the question, tools it names, summed-up results, JSON for a schema."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.core.conversation import Message, Prompt, ResponseFormat, Tool, ToolCall, ToolChoice
from emulator.core.errors import InvalidRequest
from emulator.default_model.generate import Writer, default_reply
from emulator.dialects import openai_chat
from tests.test_instances import DEEP, SCHEMAS


def prompt(**fields: object) -> Prompt:
    return Prompt(dialect="t", model="m", messages=(Message("user", "hi"),), fingerprint="f", **fields)  # type: ignore[arg-type]


def test_default_reply_reasons_by_effort_and_is_deterministic() -> None:
    writer = Writer(0)
    low, high = default_reply(prompt(effort="low"), writer), default_reply(prompt(effort="max"), writer)
    assert low.reasoning.count(".") == 2 and high.reasoning.count(".") == 3  # "hi": all there is to think
    why = [default_reply(asked("Why does bread go stale?", effort=e), writer).reasoning for e in ("minimal", "max")]
    assert [r.count(".") for r in why] == [1, 4] and all("bread" in r for r in why)
    assert default_reply(prompt(effort="none"), writer).reasoning == ""
    assert default_reply(prompt(), writer) == default_reply(prompt(), Writer(0))
    bread = asked("Why does bread go stale?")
    assert default_reply(bread, writer) == default_reply(bread, Writer(0)) != default_reply(bread, Writer(1))


def test_default_reply_calls_the_required_tool() -> None:
    tools = (Tool("a", parameters=SCHEMAS[0]), Tool("b", parameters=SCHEMAS[1]))
    reply = default_reply(prompt(tools=tools, tool_choice=ToolChoice("required", "b")), Writer(0))
    (call,) = reply.tool_calls
    assert call.name == "b"
    jsonschema.validate(json.loads(call.arguments), SCHEMAS[1])
    assert default_reply(prompt(tools=tools, tool_choice=ToolChoice("required")), Writer(0)).tool_calls[0].name == "a"
    assert default_reply(prompt(tools=tools), Writer(0)).tool_calls == ()


def test_default_reply_answers_json_when_asked() -> None:
    reply = default_reply(prompt(response_format=ResponseFormat("json_schema", SCHEMAS[7])), Writer(0))
    jsonschema.validate(json.loads(reply.text), SCHEMAS[7])
    assert isinstance(
        json.loads(default_reply(prompt(response_format=ResponseFormat("json_object")), Writer(0)).text), dict
    )


def test_a_bad_schema_in_a_tool_is_the_clients_400() -> None:
    tools = (Tool("deep", parameters=DEEP),)
    with pytest.raises(InvalidRequest) as caught:
        default_reply(prompt(tools=tools, tool_choice=ToolChoice("required")), Writer(0))
    assert caught.value.param == "tools"
    assert caught.value.message.startswith("Invalid schema for function 'deep': items.minItems: forces an instance")
    with pytest.raises(InvalidRequest) as caught:
        default_reply(
            prompt(response_format=ResponseFormat("json_schema", {"type": "integer", "multipleOf": -2})), Writer(0)
        )
    assert caught.value.param == "response_format"


def asked(text: str, **fields: object) -> Prompt:
    messages = fields.pop("messages", (Message("user", text),))
    return Prompt(dialect="t", model="m", messages=messages, conversation=f"c {text}", **fields)  # type: ignore[arg-type]


def code_block(text: str, fence: str) -> str:
    assert f"```{fence}\n" in text, text
    return text.split(f"```{fence}\n", 1)[1].split("\n```", 1)[0]


def test_the_answer_names_the_questions_subject_and_reasons_about_it() -> None:
    reply = default_reply(asked("Why is my Go map iteration order random?"), Writer(0))
    assert "Go map iteration order" in reply.text and "Go map iteration order" in reply.reasoning
    assert "\n\n" in reply.text and "**" in reply.text  # prose: paragraphs, Markdown emphasis
    told = default_reply(asked("Tell me about rate limits."), Writer(0)).text
    assert "rate limits" in told.lower() and 150 <= len(told.split()) <= 400  # an explanation, in paragraphs
    short = default_reply(asked("Who invented the telephone?"), Writer(0)).text
    assert "telephone" in short and "\n" not in short and 10 <= len(short.split()) <= 50
    assert default_reply(asked("hello"), Writer(0)).text.endswith("?")  # a greeting back


def test_a_list_question_gets_a_list_and_a_how_question_numbered_steps() -> None:
    listed = default_reply(asked("List five uses of Redis"), Writer(0)).text
    assert "five uses of Redis" in listed
    assert sum(line.startswith("- **") for line in listed.splitlines()) == 5
    steps = default_reply(asked("How do I repot a root-bound fern?"), Writer(0)).text
    assert steps.splitlines()[0] in (
        "Here is a simple way to repot a root-bound fern:",
        "You can repot a root-bound fern in a few steps:",
        "Here are the steps to repot a root-bound fern:",
    )
    assert all(f"\n{n}. **" in steps for n in (1, 2, 3))
    # A how-to in a programming language is answered as a model would: with the code that does it.
    coded = default_reply(asked("How do I reverse my list in Python?"), Writer(0)).text
    assert "```python\n" in coded and "def reverse_list(" in coded


@pytest.mark.parametrize(
    ("text", "fence"),
    [
        ("Write a Python function that checks whether a string is a palindrome", "python"),
        ("Write a function to reverse a string", "python"),
        ("Write a Go function to reverse a string", "go"),
        ("Can you write a TypeScript function that sums prices?", "typescript"),
        ("Write a SQL query for the newest orders", "sql"),
    ],
)
def test_a_request_for_code_gets_a_fenced_block_in_the_language_named(text: str, fence: str) -> None:
    code = code_block(default_reply(asked(text), Writer(0)).text, fence)
    if fence == "python":
        compile(code, "<answer>", "exec")  # it is Python
    assert code.strip()


def test_tool_results_are_summed_up_quoting_them_shortened() -> None:
    call = ToolCall("c1", "current_conditions", '{"city": "Paris"}')
    history = (Message("user", "What's the weather in Paris?"), Message("assistant", tool_calls=(call,)))
    one = default_reply(asked("", messages=(*history, Message("tool", "18 C,\n sunny", tool_call_id="c1"))), Writer(0))
    assert "`current_conditions`" in one.text and "18 C, sunny" in one.text and not one.tool_calls
    long = "word " * 400
    two = (*history, Message("tool", long, tool_call_id="c1"), Message("tool", "", tool_call_id="zz"))
    text = default_reply(asked("", messages=two), Writer(0)).text
    assert "- `current_conditions`: word word" in text and "…" in text and len(text) < 600
    assert "- `tool`: nothing" in text  # a result whose call is not in the history


PERSON = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
    "required": ["name"],
}


def test_a_schema_in_the_prompt_gets_an_instance_raw_for_json_object_fenced_when_asked() -> None:
    system = Message("system", f"Answer with JSON matching this schema: {json.dumps(PERSON)}")
    user = Message("user", "Jason is 25 years old.")
    raw = default_reply(asked("", messages=(system, user), response_format=ResponseFormat("json_object")), Writer(0))
    assert json.loads(raw.text) == {"name": "Jason", "age": 25}
    fenced_ask = Message("user", "Jason is 25 years old. Return the JSON within a ```json codeblock.")
    fenced = default_reply(asked("", messages=(system, fenced_ask)), Writer(0)).text
    assert fenced.startswith("```json\n") and fenced.endswith("\n```")
    jsonschema.validate(json.loads(fenced[8:-4]), PERSON)
    unfit = Message("system", 'Match {"properties": {"x": {"type": "integer", "minimum": 5, "maximum": 1}}}')
    fallback = default_reply(
        asked("", messages=(unfit, user), response_format=ResponseFormat("json_object")), Writer(0)
    )
    assert list(json.loads(fallback.text)) == ["answer"]  # a schema in prose that fits nothing: not a 400


WEATHER = Tool("current_conditions", description="Current weather conditions for a city.", parameters=PERSON)


@settings(max_examples=300, deadline=None)
@given(
    text=st.text(max_size=120)
    | st.sampled_from(["", "```json", '{"a": ' * 3000, "How do I ?", "Write a function", "9" * 5000])
)
def test_any_question_gets_an_answer_never_a_crash(text: str) -> None:
    for form in (ResponseFormat(), ResponseFormat("json_object")):
        reply = default_reply(asked(text, tools=(WEATHER,), response_format=form), Writer(0))
        assert reply.text or reply.tool_calls
        assert reply.reasoning


def test_the_readme_shows_the_defaults_real_answer() -> None:
    """The default answer the README shows ("Point a client at it") is what the default says to that question,
    so it cannot drift from it."""
    readme = (Path(__file__).parent.parent / "README.md").read_text()
    shown = readme.split("With no scenario for it", 1)[1].split("```text\n", 1)[1].split("\n```", 1)[0]
    body = {"model": "DeepSeek-V4.1-Flash-1017", "messages": [{"role": "user", "content": README_QUESTION}]}
    reply = default_reply(openai_chat.parse_request(body, {}), Writer(0))
    assert shown == f"{reply.reasoning}\n{reply.text}"


README_QUESTION = "Why is my Go map iteration order random?"
