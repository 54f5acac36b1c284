# mypy: ignore-errors
"""Run in the langchain-classic side venv (tests/test_agent_loops.py): LangChain's text ReAct agent
(`create_react_agent` with `AgentExecutor`), a prompt of our own in its Thought / Action / Action Input /
Observation / Final Answer form, and one tool (argv[3]: `local_time` or `public_holiday`), against the emulator at
argv[1] with model argv[4], asked argv[2]. Prints the inputs the tool got, each step and the final answer."""

import json
import sys

from langchain_classic.agents import AgentExecutor, create_react_agent
from langchain_core.prompts import PromptTemplate
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI

PROMPT = """You answer questions, and you may use these tools to find out what you need:

{tools}

Set out your work exactly like this:

Question: the question to answer
Thought: what to do next, and why
Action: the action to take, one of [{tool_names}]
Action Input: the input to give that action
Observation: what the action gave back
... (Thought, Action, Action Input and Observation may come several times)
Thought: I now know the final answer
Final Answer: the answer to the question as it was asked

Begin.

Question: {input}
Thought:{agent_scratchpad}"""

calls = []


@tool
def local_time(city: str) -> str:
    """Tell the current local time in a city, given the city's name."""
    calls.append(city)
    return f"In {city} it is 06:40 on a Tuesday morning"


@tool
def public_holiday(date: str) -> str:
    """Say whether a date (YYYY-MM-DD) is a public holiday in the user's country, and which."""
    calls.append(date)
    return f"{date} is Liberation Day, a public holiday"


tools = {"local_time": local_time, "public_holiday": public_holiday}
llm = ChatOpenAI(base_url=sys.argv[1], api_key="sk-test", model=sys.argv[4], max_retries=0)
agent = create_react_agent(llm, [tools[sys.argv[3]]], PromptTemplate.from_template(PROMPT))
executor = AgentExecutor(
    agent=agent,
    tools=[tools[sys.argv[3]]],
    max_iterations=4,
    return_intermediate_steps=True,
    handle_parsing_errors=False,
)
state = executor.invoke({"input": sys.argv[2]})
steps = [
    {"tool": action.tool, "input": action.tool_input, "log": action.log, "observation": observation}
    for action, observation in state["intermediate_steps"]
]
print(json.dumps({"calls": calls, "steps": steps, "output": state["output"]}))
