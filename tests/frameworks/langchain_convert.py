# mypy: ignore-errors
"""Run in a LangChain side venv (tests/test_agent_loops.py): `create_agent` with a currency converter of its
own, against the emulator at argv[1] with model argv[3], asked argv[2], through the chat model argv[4] names
(`openai`, the default: ChatOpenAI; `gemini`: ChatGoogleGenerativeAI; `bedrock`: ChatBedrockConverse); prints the
calls the tool got and the messages."""

import json
import sys

from langchain.agents import create_agent
from langchain_core.tools import tool

calls = []


@tool
def convert_currency(amount: float, from_currency: str, to_currency: str) -> str:
    """Convert an amount of money from one currency to another.

    Args:
        amount: How much money to convert.
        from_currency: ISO 4217 code of the currency to convert from.
        to_currency: ISO 4217 code of the currency to convert to.
    """
    calls.append({"amount": amount, "from_currency": from_currency, "to_currency": to_currency})
    return f"{amount} {from_currency} = {round(amount * 1.0712, 2)} {to_currency}"


family = sys.argv[4] if len(sys.argv) > 4 else "openai"
if family == "gemini":
    from langchain_google_genai import ChatGoogleGenerativeAI

    # max_retries=1: one attempt (0 means the SDK's default, its docs say)
    llm = ChatGoogleGenerativeAI(model=sys.argv[3], base_url=sys.argv[1], google_api_key="test-key", max_retries=1)
elif family == "bedrock":
    from langchain_aws import ChatBedrockConverse

    llm = ChatBedrockConverse(
        model=sys.argv[3],
        endpoint_url=sys.argv[1],
        region_name="us-east-1",
        aws_access_key_id="AKIDEXAMPLE",
        aws_secret_access_key="made-up",
    )
else:
    from langchain_openai import ChatOpenAI

    llm = ChatOpenAI(base_url=sys.argv[1], api_key="sk-test", model=sys.argv[3], max_retries=0)
agent = create_agent(llm, tools=[convert_currency])
state = agent.invoke({"messages": [{"role": "user", "content": sys.argv[2]}]})
print(
    json.dumps(
        {
            "calls": calls,
            "messages": [
                [
                    m.type,
                    m.content if isinstance(m.content, str) else str(m.content),
                    getattr(m, "tool_calls", None) or [],
                ]
                for m in state["messages"]
            ],
        }
    )
)
