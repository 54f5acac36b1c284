"""The bundled scenarios (`scenarios/`, carried in the wheel as `emulator/bundled/scenarios`): each answers its own
demo's prompt, and a user's own question, however close to a demo's, reaches the default."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from emulator import scenarios
from emulator.core.conversation import Message, Prompt, Tool
from emulator.http.app import Settings
from tests.conftest import BUNDLED, Server

BOOK = scenarios.load([BUNDLED])
WEATHER = (Tool("get_weather", description="The current weather in a city."),)
CODEX = (Tool("exec_command"), Tool("apply_patch", kind="custom"), Tool("view_image"))
CLAUDE_CODE = (Tool("Bash"), Tool("Read"), Tool("Write"), Tool("Edit"), Tool("Glob"), Tool("Grep"))
ANSWERS = (Tool("search_docs"), Tool("lookup_order"), Tool("issue_refund"))


def picked(text: str, tools: tuple[Tool, ...] = (), model: str = "gpt-4o-mini") -> str | None:
    prompt = Prompt(dialect="t", model=model, messages=(Message("user", text),), tools=tools, fingerprint="f")
    scenario = BOOK.pick(prompt)
    return scenario.name if scenario else None


@pytest.mark.parametrize(
    ("text", "tools", "name"),
    [  # the prompts the README, the docs, the tests and the agent CLI demos send
        ("What is the weather in Paris?", WEATHER, "weather-agent"),
        ("What's the weather in Paris?", WEATHER, "weather-agent"),
        ("what is the weather in paris", WEATHER, "weather-agent"),
        ("Compare the weather in Paris and Tokyo", WEATHER, "parallel-tools"),
        ("create a file named hello.txt containing hi", CODEX, "codex-create-file"),
        ("create a file named hello.txt containing hi", CLAUDE_CODE, "claude-code-create-file"),
        ("create a file named hello.txt containing hi, then read it back", CODEX, "codex-create-and-read"),
        ("create a file named hello.txt containing hi, then read it back", CLAUDE_CODE, "claude-code-create-and-read"),
        # Claude Code sends its reminders in the same user message, before the prompt
        (
            "<system-reminder>\nAs you answer, use the context.\n</system-reminder>\n"
            "create a file named hello.txt containing hi",
            CLAUDE_CODE,
            "claude-code-create-file",
        ),
    ],
)
def test_each_demo_prompt_gets_its_scenario(text: str, tools: tuple[Tool, ...], name: str) -> None:
    assert picked(text, tools) == name


@pytest.mark.parametrize(
    ("text", "tools"),
    [  # users' own questions, each near a demo's words
        ("What is the weather in Lyon?", WEATHER),
        ("What's the weather like in Paris next week, and should I pack an umbrella?", WEATHER),
        ("Is the weather in Paris good for a picnic on Saturday?", WEATHER),
        ("How does the weather affect refund requests for outdoor events?", WEATHER),
        ("Compare the weather in Oslo and Lisbon", WEATHER),
        ("Compare the refund policies of the basic and premium plans", ANSWERS),
        ("Write an essay comparing Kant and Hume on causation", ANSWERS),
        ("Compare our refund rate in March and April", WEATHER + ANSWERS),
        ("Create a file named refunds.csv with last month's refunds", CODEX),
        ("create a file for the essay draft and read it back to me", CLAUDE_CODE),
        ("Create a file named hello.txt containing hello world", CODEX),
        ("Please create a file", CLAUDE_CODE),
        ("Write me an essay on the history of Paris", ()),
        ("Write a haiku about refunds", ()),
        ("Count the words in this essay", ()),
    ],
)
def test_a_users_own_question_is_left_to_the_default(text: str, tools: tuple[Tool, ...]) -> None:
    assert picked(text, tools) is None


def test_the_scenarios_without_a_match_answer_only_by_name() -> None:
    unmatched = [s.name for s in BOOK.scenarios if s.match is None]
    assert sorted(unmatched) == ["counter", "essay", "haiku"]
    assert all(picked("Write an essay, a haiku, and count to three", WEATHER, model=m) is None for m in ("m", "gpt-5"))
    assert picked("anything", model="essay") == "essay"


@pytest.fixture
def served(make_server: Callable[[Settings], Server]) -> Server:
    """What `emulator serve` serves from the checkout: the bundled scenarios alone."""
    return make_server(Settings(scenarios=(BUNDLED,)))


WEATHER_FUNCTION: Any = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The current weather in a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}


def test_the_weather_in_lyon_reaches_the_default_in_every_dialect(served: Server) -> None:
    """The finding: served from the checkout, this was answered by `weather-agent` with `{"city": "Paris"}`."""
    question = "What is the weather in Lyon?"
    with served.openai() as gpt:
        chat = gpt.chat.completions.with_raw_response.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": question}], tools=[WEATHER_FUNCTION]
        )
        function: Any = {"type": "function", **WEATHER_FUNCTION["function"]}
        responses = gpt.responses.with_raw_response.create(model="gpt-5", input=question, tools=[function])
    with served.anthropic() as claude:
        tool = WEATHER_FUNCTION["function"]
        messages = claude.messages.with_raw_response.create(
            model="claude-sonnet-4-6",
            max_tokens=400,
            messages=[{"role": "user", "content": question}],
            tools=[{"name": tool["name"], "description": tool["description"], "input_schema": tool["parameters"]}],
        )
    assert [r.headers["x-emulator-source"] for r in (chat, responses, messages)] == ["default"] * 3
    chat_calls = chat.parse().choices[0].message.tool_calls or []
    arguments = [json.loads(c.function.arguments) for c in chat_calls if c.type == "function"]
    arguments += [json.loads(o.arguments) for o in responses.parse().output if o.type == "function_call"]
    arguments += [b.input for b in messages.parse().content if b.type == "tool_use"]
    assert arguments and all(a == {"city": "Lyon"} for a in arguments)  # the question's city, by relevance


def test_the_weather_demo_still_runs_its_loop(served: Server) -> None:
    history: Any = [{"role": "user", "content": "What is the weather in Paris?"}]
    with served.openai() as gpt:
        first = gpt.chat.completions.with_raw_response.create(model="any", messages=history, tools=[WEATHER_FUNCTION])
        assert first.headers["x-emulator-source"] == "weather-agent"
        message = first.parse().choices[0].message
        assert message.tool_calls and json.loads(message.tool_calls[0].function.arguments) == {"city": "Paris"}
        history += [
            message.model_dump(exclude_none=True),
            {"role": "tool", "tool_call_id": message.tool_calls[0].id, "content": "18 C"},
        ]
        second = gpt.chat.completions.create(model="any", messages=history, tools=[WEATHER_FUNCTION])
    assert second.choices[0].message.content == "It is 18 °C and sunny in Paris."
