"""A hand-off between OpenAI Agents SDK agents, unmodified, against a real server and no scenario: a triage agent
hands each question to the specialist of its domain (`transfer_to_…`), the specialist calls its own tool where the
question needs it and answers from the tool's result; the final output is about the task, never the transfer's
`{"assistant": "…"}`. A greeting gets an answer from the triage agent with no hand-off. Through the Chat
Completions model and the Responses model, once on the default profile and once on OpenAI's.

The SDK runs in a side venv of its own (`side_venv`), offline but for loopback, tracing off, printing each run as
a JSON line.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import side_venv
from tests.conftest import Server
from tests.test_agent_frameworks import PROFILES, run

AGENTS = """
import asyncio, json, os, sys
os.environ["OPENAI_AGENTS_DISABLE_TRACING"] = "1"
from openai import AsyncOpenAI
from agents import Agent, OpenAIChatCompletionsModel, OpenAIResponsesModel, Runner, function_tool
from agents import set_tracing_disabled

set_tracing_disabled(True)
base, model_name = sys.argv[1], sys.argv[2]
client = AsyncOpenAI(base_url=base, api_key="sk-test", max_retries=0)


@function_tool
def exchange_rate(base: str, quote: str) -> str:
    \"\"\"The current exchange rate between two currencies.\"\"\"
    return f"1 {base} = 11.52 {quote}"


@function_tool
def get_forecast(city: str) -> str:
    \"\"\"The weather forecast for a city for the next three days.\"\"\"
    return f"{city}: rain on Monday, then sun, highs of 14 C"


def agents(model):
    money = Agent(
        name="Currency Specialist", model=model, tools=[exchange_rate],
        handoff_description="Answers questions about currencies, money and exchange rates.",
        instructions="You answer currency questions. Use your tools.",
    )
    weather = Agent(
        name="Weather Specialist", model=model, tools=[get_forecast],
        handoff_description="Answers questions about the weather and forecasts.",
        instructions="You answer weather questions.",
    )
    return Agent(
        name="Triage", model=model, handoffs=[money, weather],
        instructions="Hand the user's question to the right specialist.",
    )


QUESTIONS = [
    "How many Norwegian kroner do I get for 100 euros at today's exchange rate?",
    "What's the weather forecast for Bergen this week?",
    "Why does the weather change so fast near mountains?",
    "Say hi",
]


async def main():
    for kind, made in (("chat", OpenAIChatCompletionsModel), ("responses", OpenAIResponsesModel)):
        triage = agents(made(model=model_name, openai_client=client))
        for question in QUESTIONS:
            result = await Runner.run(triage, question, max_turns=6)
            steps = [
                [type(item).__name__, getattr(getattr(item, "raw_item", None), "name", None)]
                for item in result.new_items if type(item).__name__ != "ReasoningItem"
            ]
            final = str(result.final_output)
            line = {"kind": kind, "question": question, "final": final, "agent": result.last_agent.name, "steps": steps}
            print(json.dumps(line))


asyncio.run(main())
"""


@pytest.fixture(scope="module")
def agents_python() -> Path:
    return side_venv.python("openai-agents-0.24.0", "openai-agents==0.24.0")


@pytest.mark.parametrize(("prefix", "model"), PROFILES)
def test_a_hand_off_ends_with_the_specialists_answer_about_the_task(
    server: Server, agents_python: Path, tmp_path: Path, prefix: str, model: str
) -> None:
    lines = run(agents_python, AGENTS, f"{server.base_url}{prefix}/v1", model, home=tmp_path)
    runs = {(line["kind"], line["question"].split()[1]): line for line in lines}
    assert len(runs) == len(lines) == 8, lines
    for kind in ("chat", "responses"):
        money, forecast, why, hi = (runs[kind, word] for word in ("many", "the", "does", "hi"))
        for line in (money, forecast, why, hi):
            assert "assistant" not in line["final"] and "transfer" not in line["final"], line
        assert money["agent"] == "Currency Specialist", money
        assert money["steps"] == [
            ["HandoffCallItem", "transfer_to_currency_specialist"],
            ["HandoffOutputItem", None],
            ["ToolCallItem", "exchange_rate"],
            ["ToolCallOutputItem", None],
            ["MessageOutputItem", None],
        ], money
        assert "1 EUR = 11.52 NOK" in money["final"], money  # 100 euros: euros are what the user has
        assert forecast["agent"] == "Weather Specialist" and ["ToolCallItem", "get_forecast"] in forecast["steps"]
        assert "Bergen: rain on Monday, then sun, highs of 14 C" in forecast["final"], forecast
        # In the specialist's domain with no value its tool needs: handed off, then answered in words.
        assert why["agent"] == "Weather Specialist" and why["steps"][-1] == ["MessageOutputItem", None], why
        assert "mountain" in why["final"].lower(), why
        assert hi["agent"] == "Triage" and hi["steps"] == [["MessageOutputItem", None]], hi
        assert len(hi["final"]) < 120, hi
