"""Agent frameworks, unmodified, against a real server and no scenario: smolagents' CodeAgent finishes with a final
answer that uses its tool's result (code in tags, and in structured outputs), DSPy's Predict, ChainOfThought and
ReAct parse what the default answers, and aider's diff format edits the file it was asked to. Each once on the
default profile and once on the public profile it targets (OpenAI's, with one of its models).

Each framework runs in a side venv of its own (`side_venv`: its pins clash with the test venv's openai), offline
but for loopback, printing what it got as JSON lines.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests import side_venv
from tests.conftest import Server

RUN_TIMEOUT = 600
PROFILES = [pytest.param("", "m", id="inferam"), pytest.param("/openai", "gpt-4.1", id="openai")]

SMOLAGENTS = """
import json, sys
from smolagents import CodeAgent, OpenAIServerModel, tool

@tool
def train_departures(station: str) -> str:
    \"\"\"Lists the next trains leaving a railway station.

    Args:
        station: the station's name
    \"\"\"
    return "the 14:05 to Ghent, platform 3"

retries = {"max_retries": 0}
model = OpenAIServerModel(model_id=sys.argv[2], api_base=sys.argv[1], api_key="sk-test", client_kwargs=retries)
for structured in (False, True):
    agent = CodeAgent(
        tools=[train_departures], model=model, max_steps=4, verbosity_level=0,
        use_structured_outputs_internally=structured,
    )
    final = agent.run("When does the next train leave the station at Bruges?")
    steps = [getattr(s, "model_output", None) for s in agent.memory.steps if getattr(s, "model_output", None)]
    print(json.dumps({"structured": structured, "final": str(final), "steps": steps}))
"""

DSPY = """
import json, sys
from typing import Literal
import dspy

lm = dspy.LM(f"openai/{sys.argv[2]}", api_base=sys.argv[1], api_key="sk-test", cache=False, num_retries=0)
dspy.configure(lm=lm)

class Sort(dspy.Signature):
    \"\"\"Sort a customer email into a queue.\"\"\"
    email: str = dspy.InputField()
    queue: Literal["billing", "shipping", "returns"] = dspy.OutputField()
    urgent: bool = dspy.OutputField()
    words: int = dspy.OutputField()
    topics: list[str] = dspy.OutputField()

def opening_hours(museum: str) -> str:
    \"\"\"Opening hours of a museum.\"\"\"
    return "9:30 to 17:00, closed on Mondays"

def check(name, run):
    try:
        print(json.dumps({"module": name, "got": run().toDict()}, default=str))
    except Exception as exc:
        print(json.dumps({"module": name, "error": f"{type(exc).__name__}: {exc}"[:2000]}))

check("Predict", lambda: dspy.Predict(Sort)(email="My parcel never arrived and shipping was paid twice."))
check("ChainOfThought", lambda: dspy.ChainOfThought("question -> answer")(question="Why do onions make eyes water?"))
check("ReAct", lambda: dspy.ReAct("question -> answer", tools=[opening_hours], max_iters=4)(
    question="When is the Rijksmuseum museum open?"))
"""


def run(python: Path, script: str, *args: str, home: Path) -> list[dict[str, Any]]:
    """`script` run from a file (smolagents reads its tools' source) in `home`: the JSON lines it printed."""
    (home / "run.py").write_text(script)
    done = subprocess.run(
        [str(python), str(home / "run.py"), *args],
        capture_output=True,
        timeout=RUN_TIMEOUT,
        check=False,
        env=side_venv.offline(home),
        cwd=home,
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-3000:]
    return [json.loads(line) for line in done.stdout.decode().splitlines() if line.startswith("{")]


@pytest.fixture(scope="module")
def smolagents_python() -> Path:
    return side_venv.python("smolagents-1.26.0", "smolagents[openai]==1.26.0")


@pytest.fixture(scope="module")
def dspy_python() -> Path:
    return side_venv.python("dspy-3.4.1", "dspy==3.4.1")


@pytest.fixture(scope="module")
def aider_python() -> Path:
    return side_venv.python("aider-chat-0.86.2", "aider-chat==0.86.2")


@pytest.mark.parametrize(("prefix", "model"), PROFILES)
def test_smolagents_code_agent_finishes_with_its_tools_result(
    server: Server, smolagents_python: Path, tmp_path: Path, prefix: str, model: str
) -> None:
    tagged, structured = run(smolagents_python, SMOLAGENTS, f"{server.base_url}{prefix}/v1", model, home=tmp_path)
    for got in (tagged, structured):
        assert "the 14:05 to Ghent, platform 3" in got["final"]
    first = tagged["steps"][0]
    assert first.startswith("Thought:") and "<code>" in first and "train_departures(" in first
    assert "train_departures(" in json.loads(structured["steps"][0])["code"]  # structured outputs: thought and code


@pytest.mark.parametrize(("prefix", "model"), PROFILES)
def test_dspy_predict_chain_of_thought_and_react_parse(
    server: Server, dspy_python: Path, tmp_path: Path, prefix: str, model: str
) -> None:
    seen = {
        line["module"]: line for line in run(dspy_python, DSPY, f"{server.base_url}{prefix}/v1", model, home=tmp_path)
    }
    assert list(seen) == ["Predict", "ChainOfThought", "ReAct"], seen
    for name, line in seen.items():
        assert "error" not in line, f"{name}: {line.get('error')}"
    sort = seen["Predict"]["got"]
    assert sort["queue"] == "shipping" and isinstance(sort["urgent"], bool) and isinstance(sort["words"], int)
    assert isinstance(sort["topics"], list)
    thought = seen["ChainOfThought"]["got"]
    assert thought["reasoning"] and thought["answer"]
    react = seen["ReAct"]["got"]
    assert react["trajectory"]["tool_name_0"] == "opening_hours" and "9:30 to 17:00" in react["answer"]


@pytest.mark.parametrize(("prefix", "model"), PROFILES)
def test_aider_diff_format_edits_the_named_file(
    server: Server, aider_python: Path, tmp_path: Path, prefix: str, model: str
) -> None:
    source = tmp_path / "inventory.py"
    source.write_text("STOCK = {'apples': 3}\n\n\ndef count(item):\n    return STOCK.get(item, 0)\n")
    aider = aider_python.parent / "aider"
    done = subprocess.run(
        [
            str(aider),
            *("--model", f"openai/{model}", "--openai-api-base", f"{server.base_url}{prefix}/v1"),
            *("--openai-api-key", "sk-test", "--edit-format", "diff", "--yes-always", "--no-git"),
            *("--no-check-update", "--analytics-disable", "--no-show-model-warnings", "--no-pretty"),
            *("--no-fancy-input", "--no-auto-commits", "--no-show-release-notes", "--no-stream"),
            *("--message", "Add a function that checks whether a number is prime to inventory.py", "inventory.py"),
        ],
        capture_output=True,
        timeout=RUN_TIMEOUT,
        check=False,
        env=side_venv.offline(tmp_path),
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
    )
    said = (done.stdout + done.stderr).decode(errors="replace")
    assert done.returncode == 0, said[-3000:]
    edited = source.read_text()
    assert "Applied edit to inventory.py" in said, said[-3000:]
    assert edited.startswith("STOCK = {'apples': 3}\n") and "def count(item):" in edited
    assert "def is_prime(" in edited, edited
    compile(edited, "inventory.py", "exec")
