"""Each seed's own curl example, run by curl against its profile's prefix with only the base URL changed,
answers what that doc shows, in that provider's shape.

The commands are read from the seeds themselves (for Infercom, from its OpenAPI document's cURL code
sample), so a seed and this test cannot drift apart.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import Server

SEEDS = Path(__file__).parents[2] / "shared" / "seeds"
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
KEYS = {"INFERAM_API_KEY": "sk-inferam", "INFEREL_API_KEY": "sk-inferel", "INFERCOM_API_KEY": "sk-infercom"}

pytestmark = [
    pytest.mark.skipif(not SEEDS.is_dir(), reason="the seeds are not beside the project"),
    pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed"),
]


def from_text(name: str) -> str:
    """The `curl …` command of a text seed: from `curl ` to the line that closes its `-d '…'`."""
    text = (SEEDS / name).read_text()
    found = re.search(r"^curl .*?\}'$", text, re.S | re.M)
    assert found, f"no curl example in {name}"
    return found.group(0)


def from_openapi(name: str) -> str:
    document = yaml.safe_load((SEEDS / name).read_text())
    samples = document["paths"]["/chat/completions"]["post"]["x-codeSamples"]
    return str(next(s["source"] for s in samples if s["lang"] == "cURL"))


def sse(raw: str) -> list[Any]:
    return [line.removeprefix("data: ") for line in raw.splitlines() if line.startswith("data: ")]


def inferam_chat_stream(out: str) -> None:
    """Seed 000: `reasoning_content`, then `content`, then the usage chunk with `cached_tokens`, then `[DONE]`."""
    *chunks, done = sse(out)
    assert done == "[DONE]"
    parsed = [json.loads(c) for c in chunks]
    kinds = [
        k for c in parsed for choice in c["choices"] for k in ("reasoning_content", "content") if choice["delta"].get(k)
    ]
    assert kinds and kinds == sorted(kinds, key=["reasoning_content", "content"].index)  # reasoning first
    assert "reasoning_content" in kinds and "content" in kinds
    usage = parsed[-1]
    assert usage["choices"] == [] and "cached_tokens" in usage["usage"]["prompt_tokens_details"]
    assert usage["usage"]["completion_tokens_details"]["reasoning_tokens"] > 0


def inferam_responses(out: str) -> None:
    """Seed 001: a reasoning item with its text in `content`, the message, store false, reasoning_tokens 0."""
    response = json.loads(out)
    assert response["object"] == "response" and response["status"] == "completed" and response["store"] is False
    reasoning, message = response["output"]
    assert reasoning["type"] == "reasoning" and reasoning["content"][0]["type"] == "reasoning_text"
    assert message["type"] == "message" and message["content"][0]["text"]
    assert response["instructions"] == "You are a terse senior engineer."
    assert response["usage"]["output_tokens_details"]["reasoning_tokens"] == 0


def inferel_chat(out: str) -> None:
    """Seed 002: an OpenAI chat completion from the model asked for, with the cache figure in its usage."""
    completion = json.loads(out)
    assert completion["object"] == "chat.completion" and completion["model"] == "claude-sonnet-4.6"
    assert completion["choices"][0]["message"]["content"]
    assert completion["usage"]["prompt_tokens_details"]["cached_tokens"] == 0  # no cache key: nothing cached
    assert completion["usage"]["completion_tokens"] <= 300  # max_tokens


def infercom_chat(out: str) -> None:
    """Seed 003: a UUID id, a float `created`, `reasoning`, the timing-rich usage."""
    completion = json.loads(out)
    assert UUID.match(completion["id"]) and isinstance(completion["created"], float)
    assert completion["model"] == "MiniMax-M2.7" and completion["system_fingerprint"] == "fastcoe"
    message = completion["choices"][0]["message"]
    assert message["content"] and message["reasoning"]
    assert completion["usage"]["time_to_first_token"] > 0 and completion["usage"]["is_last_response"] is True


def inferam_messages(out: str) -> None:
    """Seed 004: a thinking block with an empty signature, the text, `end_turn`, `stop_sequence` null."""
    message = json.loads(out)
    assert message["type"] == "message" and message["role"] == "assistant"
    thinking, text = message["content"]
    assert thinking == thinking | {"type": "thinking", "signature": ""} and thinking["thinking"]
    assert text["type"] == "text" and text["text"]
    assert message["stop_reason"] == "end_turn" and message["stop_sequence"] is None
    assert set(message["usage"]) >= {"input_tokens", "output_tokens"}


CASES: list[tuple[str, Callable[[str], str], str, str, Callable[[str], None]]] = [
    ("000_db11a23fb20ba52d.txt", from_text, "https://api.inferam.ai/v1", "/inferam/v1", inferam_chat_stream),
    ("001_665abdf1d121f1c7.txt", from_text, "https://api.inferam.ai/v1", "/inferam/v1", inferam_responses),
    ("002_8258ddbe37c49dfc.txt", from_text, "https://inference.inferel.ai/v1", "/inferel/v1", inferel_chat),
    ("003_728f86709c3116e6.openapi.yaml", from_openapi, "https://api.infercom.ai/v1", "/infercom/v1", infercom_chat),
    ("004_99e9388de872c08d.txt", from_text, "https://api.inferam.ai/v1", "/inferam/v1", inferam_messages),
]


@pytest.mark.parametrize(("seed", "read", "base", "prefix", "check"), CASES, ids=[c[0][:3] for c in CASES])
def test_the_seeds_curl_example_answers_as_its_doc_shows(
    server: Server, seed: str, read: Callable[[str], str], base: str, prefix: str, check: Callable[[str], None]
) -> None:
    command = read(seed)
    assert command.count(base) == 1
    command = command.replace(base, f"{server.base_url}{prefix}")  # the one change
    env = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/tmp")} | KEYS
    done = subprocess.run(["bash", "-c", command], capture_output=True, text=True, env=env, timeout=30, check=False)
    assert done.returncode == 0, done.stderr
    check(done.stdout)
