"""Agent frameworks, unmodified, against a real `emulator serve` with no scenario: their tool loops (smolagents'
ToolCallingAgent, LangChain's `create_agent` and its text ReAct agent) get the values the question names as
arguments and end with an answer built from the tool's result.

Each runs in a side venv of its own (tests/side_venv.py), once on its native dialect under the default
profile (`/v1`) and once under the public profile it targets (`/openai/v1`), its telemetry off and only
loopback to talk to. The tools are the scripts' own (tests/frameworks/), which record the arguments they got.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests import side_venv
from tests.conftest import Server

SCRIPTS = Path(__file__).parent / "frameworks"
SMOLAGENTS = ("smolagents-1.26.0", "smolagents[openai]==1.26.0")  # the same venv as test_agent_frameworks
LANGCHAIN = ("langchain-1.5.0", "langchain==1.5.0", "langchain-openai==1.7.4")
# LangChain's text ReAct agent left `langchain` at 1.0 for `langchain-classic`.
LANGCHAIN_CLASSIC = ("langchain-classic-1.0.8", "langchain-classic==1.0.8", "langchain-openai==1.7.4")
LANGCHAIN_GEMINI = ("langchain-google-genai-4.4.2", "langchain==1.5.0", "langchain-google-genai==4.4.2")
LANGCHAIN_BEDROCK = ("langchain-aws-1.9.1", "langchain==1.5.0", "langchain-aws==1.9.1")
PROFILES = pytest.mark.parametrize("prefix", ["", "/openai"], ids=["default", "openai"])


@pytest.fixture(scope="module")
def smolagents_python() -> Path:
    return side_venv.python(*SMOLAGENTS)


@pytest.fixture(scope="module")
def langchain_python() -> Path:
    return side_venv.python(*LANGCHAIN)


@PROFILES
@pytest.mark.parametrize(
    ("question", "base", "quote"),
    [
        ("What is 40 Canadian dollars in Mexican pesos?", "CAD", "MXN"),
        ("Convert 15 Swiss francs to Danish kroner", "CHF", "DKK"),
    ],
)
def test_smolagents_tool_calling_agent_finishes_with_final_answer_from_the_result(
    server: Server, smolagents_python: Path, prefix: str, question: str, base: str, quote: str
) -> None:
    """`tool_choice: required`, results as "Observation:" user messages: one call with the question's
    currencies, then `final_answer` quoting what the tool returned; no step repeated, no `max_steps`."""
    out = side_venv.run(
        smolagents_python, SCRIPTS / "smolagents_exchange.py", f"{server.base_url}{prefix}/v1", question
    )
    ran: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    assert ran["calls"] == [{"base": base, "quote": quote}], ran
    assert f"1 {base} = 0.8731 {quote}" in ran["answer"], ran
    assert ran["steps"] == 3, ran  # the task, the tool's step, the final answer's step


@PROFILES
@pytest.mark.parametrize(
    ("question", "amount", "source", "target"),
    [
        ("How much is 120 euros in Polish zloty?", 120, "EUR", "PLN"),
        ("What do 75 British pounds come to in Norwegian kroner?", 75, "GBP", "NOK"),
        ("Change $2,500 into Japanese yen for me", 2500, "USD", "JPY"),
    ],
)
def test_a_langchain_agent_passes_the_questions_values_and_answers_from_the_result(
    server: Server, langchain_python: Path, prefix: str, question: str, amount: int, source: str, target: str
) -> None:
    """LangChain's `create_agent` (auto tool choice): the tool gets the amount and both currencies the question
    names, in order, once; the last message is the answer, quoting the tool's result."""
    out = side_venv.run(
        langchain_python, SCRIPTS / "langchain_convert.py", f"{server.base_url}{prefix}/v1", question, "gpt-4o"
    )
    ran: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    assert ran["calls"] == [{"amount": amount, "from_currency": source, "to_currency": target}], ran
    kinds = [m[0] for m in ran["messages"]]
    assert kinds == ["human", "ai", "tool", "ai"], ran
    assert ran["messages"][2][1] in ran["messages"][3][1], ran  # the answer quotes the result


@pytest.mark.parametrize(
    ("question", "amount", "source", "target"),
    [
        ("How much is 300 Swedish kronor in Czech koruna?", 300, "SEK", "CZK"),
        ("Turn 48 Australian dollars into Singapore dollars", 48, "AUD", "SGD"),
    ],
)
@pytest.mark.parametrize(
    ("family", "model"),
    [("gemini", "gemini-2.5-flash"), ("bedrock", "anthropic.claude-sonnet-4-5-20250929-v1:0")],
)
def test_a_langchain_gemini_or_bedrock_agent_runs_its_tool_loop_to_an_answer(
    server: Server, family: str, model: str, question: str, amount: int, source: str, target: str
) -> None:
    """ChatGoogleGenerativeAI (on google-genai, at the Gemini API's root URL) and ChatBedrockConverse (on boto3's
    Converse, at its endpoint URL) under `create_agent`: the tool gets the question's values, and the answer
    quotes its result."""
    python = side_venv.python(*(LANGCHAIN_GEMINI if family == "gemini" else LANGCHAIN_BEDROCK))
    out = side_venv.run(python, SCRIPTS / "langchain_convert.py", server.base_url, question, model, family)
    ran: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    assert ran["calls"] == [{"amount": amount, "from_currency": source, "to_currency": target}], ran
    assert [m[0] for m in ran["messages"]] == ["human", "ai", "tool", "ai"], ran
    assert ran["messages"][2][1] in ran["messages"][3][1], ran


@pytest.fixture(scope="module")
def react_python() -> Path:
    return side_venv.python(*LANGCHAIN_CLASSIC)


@PROFILES
@pytest.mark.parametrize(
    ("question", "tool", "value"),
    [
        ("What time is it in Wellington right now?", "local_time", "Wellington"),
        ("Is 25 April 2026 a public holiday here?", "public_holiday", "2026-04-25"),
    ],
)
def test_a_langchain_react_agent_acts_on_the_questions_value_and_answers_from_the_observation(
    server: Server, react_python: Path, prefix: str, question: str, tool: str, value: str
) -> None:
    """LangChain's text ReAct agent (`create_react_agent`, `AgentExecutor`: no tools in the request, a prompt in
    Thought / Action / Action Input / Observation form, stop at "Observation"): one Action on the tool with the
    value the question names, then a Final Answer quoting the observation."""
    out = side_venv.run(
        react_python, SCRIPTS / "langchain_react.py", f"{server.base_url}{prefix}/v1", question, tool, "gpt-4.1"
    )
    ran: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    assert ran["calls"] == [value], ran
    (step,) = ran["steps"]
    assert step["tool"] == tool and f"Action: {tool}\nAction Input: {value}" in step["log"], ran
    assert step["observation"] in ran["output"], ran  # the final answer quotes what the tool returned
