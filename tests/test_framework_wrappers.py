"""Agent frameworks that wrap the task in prompts of their own, unmodified, against a real server and no scenario:
a CrewAI crew of two agents finishes both tasks with answers about them, a CrewAI agent calls its tool (natively,
and in CrewAI's ReAct text where a model has no function calling) and answers with its result, and AutoGen's
SelectorGroupChat gets a listed role from its selector every time and runs to its termination condition, its
agents answering the task. Each on the default profile and on OpenAI's with one of its models.

Each framework runs in a side venv of its own (`side_venv`), offline but for loopback, printing JSON lines.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import side_venv
from tests.conftest import Server
from tests.test_agent_frameworks import PROFILES, run

CREWAI = """
import json, sys
from crewai import LLM, Agent, Crew, Task
from crewai.tools import tool

base, model, with_tools = sys.argv[1], sys.argv[2], sys.argv[3] == "tools"

def llm(native=True):
    made = LLM(model=f"openai/{model}", base_url=base, api_key="sk-test", max_retries=0)
    if not native:  # as a provider without function calling: CrewAI's ReAct text format
        made.supports_function_calling = lambda: False
    return made

gardener = Agent(role="Allotment gardener", goal="Grow vegetables well", backstory="You tend a plot by a canal.",
                 llm=llm())
editor = Agent(role="Newsletter editor", goal="Write for the allotment society", backstory="You edit its newsletter.",
               llm=llm())
tasks = [
    Task(description="Find out how to protect tomato plants from late blight in a wet summer.",
         expected_output="Practical advice on tomato blight.", agent=gardener),
    Task(description="Write a short newsletter note about tomato blight for the allotment society.",
         expected_output="One paragraph.", agent=editor),
]
out = Crew(agents=[gardener, editor], tasks=tasks).kickoff()
print(json.dumps({"crew": "two tasks", "tasks": [t.raw for t in out.tasks_output], "final": out.raw}))

@tool("ferry_timetable")
def ferry_timetable(port: str) -> str:
    \"\"\"Lists today's ferry departures from a port.\"\"\"
    return "ferries at 07:15 and 16:50 to Mallaig"

for native in (True, False) if with_tools else ():
    clerk = Agent(role="Island travel clerk", goal="Tell travellers when boats leave",
                  backstory="You work at a ferry office.", llm=llm(native), tools=[ferry_timetable], max_iter=4)
    task = Task(description="When does the next ferry leave Armadale port today? Look it up in the timetable.",
                expected_output="The departure times of the ferries.", agent=clerk)
    out = Crew(agents=[clerk], tasks=[task]).kickoff()
    print(json.dumps({"crew": "native tools" if native else "react tools", "final": out.raw}))
"""

AUTOGEN = """
import asyncio, json, sys
from autogen_agentchat.agents import AssistantAgent
from autogen_agentchat.conditions import MaxMessageTermination, TextMentionTermination
from autogen_agentchat.teams import SelectorGroupChat
from autogen_ext.models.openai import OpenAIChatCompletionClient

base, model = sys.argv[1], sys.argv[2]
info = None if model.startswith("gpt") else {
    "vision": False, "function_calling": True, "json_output": True, "family": "unknown", "structured_output": True}
client = OpenAIChatCompletionClient(model=model, base_url=base, api_key="sk-test", model_info=info, max_retries=0)
TEAMS = [
    ("Plan a three-day walking trip in Lisbon on a small budget.", [
        ("planner", "Plans the trip: breaks it into an itinerary of days."),
        ("budget_keeper", "Estimates the costs and keeps the budget in check."),
        ("writer", "Writes the final travel guide for the reader."),
    ]),
    ("Explain why the sea is salty to a class of ten-year-olds.", [
        ("storyteller", "Tells a story that children enjoy."),
        ("geologist", "Knows rocks, rivers, minerals and why the sea is salty."),
    ]),
]

async def main():
    for task, roles in TEAMS:
        agents = [AssistantAgent(name, client, description=said) for name, said in roles]
        stop = MaxMessageTermination(len(roles) + 2) | TextMentionTermination("TERMINATE")
        team = SelectorGroupChat(agents, model_client=client, termination_condition=stop)
        result = await team.run(task=task)
        texts = [m for m in result.messages if type(m).__name__ == "TextMessage"]
        said = [{"source": m.source, "content": m.content} for m in texts]
        print(json.dumps({"task": task, "said": said, "stop": result.stop_reason}))

asyncio.run(main())
"""


@pytest.fixture(scope="module")
def crewai_python() -> Path:
    return side_venv.python("crewai-1.15.30", "crewai==1.15.30")


@pytest.fixture(scope="module")
def autogen_python() -> Path:
    return side_venv.python("autogen-0.7.5", "autogen-agentchat==0.7.5", "autogen-ext[openai]==0.7.5")


def words(text: str) -> set[str]:
    return {w.strip(".,:;!?*`'\"()").lower() for w in text.split()}


@pytest.mark.parametrize(("prefix", "model"), PROFILES)
def test_crewai_crew_answers_its_tasks_and_its_agent_uses_its_tool(
    server: Server, crewai_python: Path, tmp_path: Path, prefix: str, model: str
) -> None:
    # On OpenAI's profile too: CrewAI's tool messages carry the function's `name`, which the API takes.
    got = {
        line["crew"]: line
        for line in run(crewai_python, CREWAI, f"{server.base_url}{prefix}/v1", model, "tools", home=tmp_path)
    }
    first, second = got["two tasks"]["tasks"]
    for said in (first, second):
        assert {"tomato", "blight"} & words(said), said
        assert "criteria" not in said.lower() and "final answer" not in said.lower(), said
    assert "newsletter" in words(second) or "blight" in words(second), second
    for crew in ("native tools", "react tools"):
        assert "07:15 and 16:50" in got[crew]["final"], got[crew]


@pytest.mark.parametrize(("prefix", "model"), PROFILES)
def test_autogen_selector_group_chat_picks_listed_roles_and_runs_to_its_end(
    server: Server, autogen_python: Path, tmp_path: Path, prefix: str, model: str
) -> None:
    lisbon, sea = run(autogen_python, AUTOGEN, f"{server.base_url}{prefix}/v1", model, home=tmp_path)
    for team, first, subject in ((lisbon, "planner", {"lisbon", "trip"}), (sea, "geologist", {"sea", "salty"})):
        said = team["said"]
        assert said[0]["source"] == "user" and said[1]["source"] == first, said
        speakers = [s["source"] for s in said[1:]]
        assert all(a != b for a, b in zip(speakers, speakers[1:], strict=False)), speakers  # no one twice in a row
        assert "Maximum number of messages" in team["stop"] or "TERMINATE" in team["stop"], team["stop"]
        for turn in said[1:]:
            assert subject & words(turn["content"]), turn
    assert [s["source"] for s in lisbon["said"][1:4]] == ["planner", "budget_keeper", "writer"]
