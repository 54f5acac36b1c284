"""Tools by relevance under `tool_choice: auto`: the ones the question names, never one that acts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from emulator.core.conversation import Message, Prompt, Tool, ToolCall, ToolChoice
from emulator.default_model import relevance
from emulator.default_model.generate import Writer, default_reply
from emulator.default_model.question import read
from emulator.dialects import anthropic_messages, openai_responses

AGENTS = Path(__file__).parent / "agents"  # tool lists captured from the agents' own requests
CITY = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
WEATHER = Tool("current_conditions", description="Current weather conditions for a city. Celsius.", parameters=CITY)
FORECAST = Tool("get_forecast", description="The weather forecast for the next days.", parameters=CITY)
TICKET = Tool("open_ticket", description="Open a support ticket.", parameters={"type": "object"})
ORDINARY = [
    "Why is my Go map iteration order random?",
    "What are the benefits of unit tests?",
    "How do I reverse a list in Python?",
    "Write a Python function that checks whether a string is a palindrome",
    "Explain the difference between TCP and UDP.",
]


def prompt(text: str, *tools: Tool, **fields: Any) -> Prompt:
    messages = fields.pop("messages", (Message("user", text),))
    return Prompt(dialect="t", model="m", messages=messages, tools=tools, conversation=f"c {text}", **fields)


def test_a_tool_the_question_names_is_called_with_what_the_question_says() -> None:
    reply = default_reply(prompt("What's the weather in Paris?", TICKET, WEATHER), Writer(0))
    (call,) = reply.tool_calls
    assert call.name == "current_conditions" and json.loads(call.arguments) == {"city": "Paris"}
    assert reply.text == ""


def test_two_relevant_tools_are_both_called_when_parallel_calls_are_allowed() -> None:
    both = relevance.relevant(prompt("Weather in Oslo, please", WEATHER, TICKET, FORECAST), read("Weather in Oslo"))
    assert [t.name for t in both] == ["current_conditions", "get_forecast"]
    one = prompt("Weather in Oslo", WEATHER, FORECAST, parallel_tool_calls=False)
    assert [t.name for t in relevance.relevant(one, read("Weather in Oslo"))] == ["current_conditions"]


@pytest.mark.parametrize(
    ("text", "fields"),
    [
        ("Open the pod bay doors", {}),  # "open" is the tool's verb, not a noun the question shares with it
        ("Tell me a joke", {}),
        ("What's the weather in Paris?", {"tool_choice": ToolChoice("none")}),
        (
            "What's the weather in Paris?",
            {
                "messages": (
                    Message("user", "What's the weather in Paris?"),
                    Message("assistant", tool_calls=(ToolCall("c1", "current_conditions", '{"city": "Paris"}'),)),
                    Message("tool", "18 C, sunny", tool_call_id="c1"),
                )
            },
        ),
    ],
    ids=["verb-only", "no-shared-noun", "choice-none", "after-a-result"],
)
def test_no_tool_is_called_without_a_shared_noun_or_when_the_user_did_not_speak_last(
    text: str, fields: dict[str, Any]
) -> None:
    assert default_reply(prompt(text, WEATHER, TICKET, **fields), Writer(0)).tool_calls == ()


@pytest.mark.parametrize(
    "tool",
    [
        Tool("weather_shell", description="Weather in a shell."),
        Tool("exec_weather", description="Weather."),
        Tool("WriteWeather", description="Weather file."),
        Tool("weather", description="Runs a weather command."),
        Tool("weather", description="Weather.", parameters={"type": "object", "properties": {"path": {}}}),
        Tool("weather", description="Weather.", parameters={"type": "object", "properties": {"command": {}}}),
        Tool("weather", kind="custom", description="Weather as freeform text."),
    ],
    ids=["shell", "exec", "write", "description-runs", "path", "command", "custom"],
)
def test_a_tool_that_executes_or_writes_is_never_called_by_relevance(tool: Tool) -> None:
    assert relevance.acts(tool)
    assert default_reply(prompt("What's the weather in Paris?", tool), Writer(0)).tool_calls == ()


def agent_prompts() -> list[tuple[str, Prompt]]:
    """The five ordinary prompts as Claude Code and Codex (both of its tool lists) would send them."""
    claude = json.loads((AGENTS / "claude-code-tools.json").read_text())["tools"]
    codex = json.loads((AGENTS / "codex-tools.json").read_text())
    made = []
    for text in ORDINARY:
        body: dict[str, Any] = {"model": "m", "max_tokens": 100, "messages": [{"role": "user", "content": text}]}
        made.append((f"claude-code: {text}", anthropic_messages.parse_request(body | {"tools": claude}, {})))
        for model in ("gpt-5", "gpt-5.5"):
            body = {"model": model, "input": text, "tools": codex[model], "tool_choice": "auto"}
            made.append((f"codex {model}: {text}", openai_responses.parse_request(body, {})))
    return made


@pytest.mark.parametrize(("name", "asked"), agent_prompts(), ids=[name for name, _ in agent_prompts()])
def test_the_agents_real_tool_lists_get_no_call_for_ordinary_prompts(name: str, asked: Prompt) -> None:
    assert asked.tool_choice.mode == "auto" and len(asked.tools) > 5
    reply = default_reply(asked, Writer(0))
    assert reply.tool_calls == () and reply.text


@pytest.mark.parametrize("model", ["gpt-5", "gpt-5.5"])
def test_what_a_tool_describes_as_this_sessions_own_is_not_a_subject_the_user_names(model: str) -> None:
    """Codex's `get_goal` gets "the current goal for this thread": a question about threads is not about it."""
    codex = json.loads((AGENTS / "codex-tools.json").read_text())[model]
    body = {"model": model, "input": "When should I use a thread pool?", "tools": codex, "tool_choice": "auto"}
    reply = default_reply(openai_responses.parse_request(body, {}), Writer(0))
    assert reply.tool_calls == () and reply.text
    # A noun of the description's own subject still counts.
    lookup = Tool("session_notes", description="Notes kept for this thread about the user's garden.", parameters={})
    assert relevance.relevant(prompt("What's in my garden notes?", lookup), read("What's in my garden notes?"))
