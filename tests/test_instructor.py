"""instructor against the default answer: its JSON, MD_JSON, TOOLS and PARALLEL_TOOLS modes and `create_iterable`
extract a `Person` from it, parsed by instructor itself, under the default profile (`/v1`) and OpenAI's
(`/openai/v1`).

instructor 1.17 needs `jiter<0.15` and the pinned openai `jiter>=0.16`, so the two cannot share the test venv:
the test builds a side venv with instructor and the openai it picks, cached like the agent CLIs
(`$XDG_CACHE_HOME` or `~/.cache`, then `emulator-tests/instructor-<version>`; under a lock, so concurrent runs
install once), and runs a small script there against the live server. It is skipped, with pip's words, only
when that install fails.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests import side_venv
from tests.conftest import Server

INSTRUCTOR = "1.17.0"
RUN_TIMEOUT = 120
QUESTION = "Extract the person: Jason is 25 years old."
# And prompts that say less plainly what they want: the full name and the age each holds, in every mode
# (PARALLEL_TOOLS sends `tool_choice: auto`, so its single tool is called because the prompt is an extraction).
PROMPTS = {
    QUESTION: {"name": "Jason", "age": 25},
    "Our new hire, Amara Okafor, turned 41 last week.": {"name": "Amara Okafor", "age": 41},
    "Pull out the person from this note: Dmitri Volkov, aged 58, retired in Riga.": {
        "name": "Dmitri Volkov",
        "age": 58,
    },
    "Signed: Lucia Ferreira, 29, Lisbon office.": {"name": "Lucia Ferreira", "age": 29},
}
# Run in the side venv: each mode's people as one JSON line, or the error that stopped it.
SCRIPT = """
import json, sys
from typing import Iterable

import instructor, openai
from pydantic import BaseModel


class Person(BaseModel):
    name: str
    age: int


base_url, question, model = sys.argv[1], sys.argv[2], sys.argv[3]
client = openai.OpenAI(base_url=base_url, api_key="sk-test", max_retries=0)
messages = [{"role": "user", "content": question}]


def extract(mode, **options):
    patched = instructor.from_openai(client, mode=getattr(instructor.Mode, mode))
    if options.pop("iterable", False):
        return list(patched.chat.completions.create_iterable(response_model=Person, **options))
    if mode == "PARALLEL_TOOLS":
        return list(patched.chat.completions.create(response_model=Iterable[Person], **options))
    return [patched.chat.completions.create(response_model=Person, **options)]


for name, mode, options in [
    ("JSON", "JSON", {}),
    ("MD_JSON", "MD_JSON", {}),
    ("TOOLS", "TOOLS", {}),
    ("PARALLEL_TOOLS", "PARALLEL_TOOLS", {}),
    ("create_iterable", "TOOLS", {"iterable": True}),
]:
    try:
        people = extract(mode, model=model, messages=messages, max_retries=0, **options)
        print(json.dumps({"mode": name, "people": [p.model_dump() for p in people]}))
    except Exception as exc:
        print(json.dumps({"mode": name, "error": f"{type(exc).__name__}: {exc}"[:2000]}))
"""


@pytest.fixture(scope="session")
def instructor_python() -> Path:
    """The python of a venv with instructor (and an openai it accepts), built on first use."""
    return side_venv.python(f"instructor-{INSTRUCTOR}", f"instructor=={INSTRUCTOR}")


@pytest.mark.parametrize(("prefix", "model"), [("", "m"), ("/openai", "gpt-4.1")], ids=["default", "openai"])
@pytest.mark.parametrize("question", list(PROMPTS))
def test_instructor_extracts_a_person_in_every_mode(
    server: Server, instructor_python: Path, question: str, prefix: str, model: str
) -> None:
    """Under the default profile and under OpenAI's, which the openai client instructor wraps targets (with one
    of its models: it refuses what the public API refuses)."""
    run = subprocess.run(
        [str(instructor_python), "-c", SCRIPT, f"{server.base_url}{prefix}/v1", question, model],
        capture_output=True,
        timeout=RUN_TIMEOUT,
        check=False,
        env={"PATH": os.environ.get("PATH", os.defpath), "HOME": str(Path.home())},
    )
    assert run.returncode == 0, run.stderr.decode(errors="replace")
    seen = {line["mode"]: line for line in map(json.loads, run.stdout.decode().splitlines())}
    assert list(seen) == ["JSON", "MD_JSON", "TOOLS", "PARALLEL_TOOLS", "create_iterable"], seen
    for mode, line in seen.items():
        assert "error" not in line, f"{mode}: {line.get('error')}"
        first, *others = line["people"]
        assert first == PROMPTS[question], mode  # what the question says, where the schema fits it
        assert all(isinstance(p["name"], str) and isinstance(p["age"], int) for p in others), mode
