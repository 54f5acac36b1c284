"""Inferam reports cached tokens as its seeds' usage examples show them (Chat's `prompt_tokens_details.cached_tokens`,
Responses' `input_tokens_details.cached_tokens`, Messages' `cache_read_input_tokens` with `input_tokens` the rest):
a prefix of 1,024 tokens or more seen before is served from the cache in blocks of 128, as OpenAI's automatic cache.
The cache is one per test id, so tests sharing a server share none."""

from __future__ import annotations

import uuid
from typing import Any

import anthropic
import openai

from emulator.core.wire import TEST_ID
from tests.conftest import Server

MODEL = "DeepSeek-V4.1-Flash-1017"


def manual(topic: str) -> str:
    """A long system prompt, different for every topic (each test's own)."""
    return " ".join(
        f"Step {i} of the {topic} procedure: check valve {i * 3} and log reading {i % 7}." for i in range(150)
    )


def scoped(server: Server) -> tuple[openai.OpenAI, anthropic.Anthropic, str]:
    scope = {TEST_ID: uuid.uuid4().hex}
    gpt = openai.OpenAI(base_url=f"{server.base_url}/v1", api_key="k", max_retries=0, default_headers=scope)
    claude = anthropic.Anthropic(base_url=server.base_url, api_key="k", max_retries=0, default_headers=scope)
    return gpt, claude, scope[TEST_ID]


def test_a_repeated_long_prefix_is_served_from_the_cache_on_every_endpoint(server: Server) -> None:
    gpt, claude, _ = scoped(server)
    with gpt, claude:
        system = manual("boiler")
        asked: Any = [{"role": "system", "content": system}, {"role": "user", "content": "What is step 4?"}]
        first = gpt.chat.completions.create(model=MODEL, messages=asked)
        again = gpt.chat.completions.create(model=MODEL, messages=[asked[0], {"role": "user", "content": "Step 9?"}])
        assert first.usage and first.usage.prompt_tokens > 1024
        assert first.usage.prompt_tokens_details and first.usage.prompt_tokens_details.cached_tokens == 0
        details = again.usage.prompt_tokens_details if again.usage else None
        assert details and details.cached_tokens and details.cached_tokens >= 1024 and details.cached_tokens % 128 == 0
        said = gpt.responses.create(model=MODEL, instructions=system, input="And step 12?")
        assert said.usage and said.usage.input_tokens_details.cached_tokens >= 1024
        made = claude.messages.create(
            model=MODEL, max_tokens=200, system=system, messages=[{"role": "user", "content": "Step 20?"}]
        )
        read = made.usage.cache_read_input_tokens or 0
        assert read >= 1024 and read % 128 == 0 and made.usage.cache_creation_input_tokens == 0
        counted = claude.messages.count_tokens(
            model=MODEL, system=system, messages=[{"role": "user", "content": "Step 20?"}]
        )
        assert made.usage.input_tokens + read == counted.input_tokens, "input_tokens is what the cache did not serve"


def test_short_prompts_and_other_tests_are_not_served_from_it(server: Server) -> None:
    gpt, claude, _ = scoped(server)
    other, other_claude, _ = scoped(server)
    with gpt, claude, other, other_claude:
        short: Any = [{"role": "user", "content": "A short question about valves, asked twice."}]
        for _ in range(2):
            answer = gpt.chat.completions.create(model=MODEL, messages=short)
            assert answer.usage and answer.usage.prompt_tokens_details
            assert answer.usage.prompt_tokens_details.cached_tokens == 0
        long: Any = [{"role": "system", "content": manual("turbine")}, {"role": "user", "content": "Step 2?"}]
        gpt.chat.completions.create(model=MODEL, messages=long)
        elsewhere = other.chat.completions.create(model=MODEL, messages=long)  # another test id: its own cache
        assert elsewhere.usage and elsewhere.usage.prompt_tokens_details
        assert elsewhere.usage.prompt_tokens_details.cached_tokens == 0
