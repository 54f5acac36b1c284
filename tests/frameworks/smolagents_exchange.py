# mypy: ignore-errors
"""Run in the smolagents side venv (tests/test_agent_loops.py): a ToolCallingAgent with an exchange-rate tool
of its own, against the emulator at argv[1], asked argv[2]; prints the answer, the calls the tool got, the steps."""

import json
import sys

from smolagents import OpenAIServerModel, ToolCallingAgent, tool


@tool
def get_exchange_rate(base: str, quote: str) -> str:
    """Get the exchange rate between two currencies.

    Args:
        base: The currency to convert from, as an ISO 4217 code.
        quote: The currency to convert to, as an ISO 4217 code.
    """
    calls.append({"base": base, "quote": quote})
    return f"1 {base} = 0.8731 {quote}"


calls = []
model = OpenAIServerModel(model_id="gpt-4o", api_base=sys.argv[1], api_key="sk-test")
agent = ToolCallingAgent(
    tools=[get_exchange_rate], model=model, max_steps=4, verbosity_level=int(sys.argv[3]) if len(sys.argv) > 3 else 0
)
answer = agent.run(sys.argv[2])
print(json.dumps({"answer": str(answer), "calls": calls, "steps": len(agent.memory.steps)}))
