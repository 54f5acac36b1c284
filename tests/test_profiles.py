"""Provider profiles so far: path prefixes, Inferel's `model:pool` and its deterministic prompt cache."""

from __future__ import annotations

import time
from typing import Any

import openai
import pytest

from emulator import profiles
from emulator.app import Settings
from emulator.conversation import Message, Prompt
from emulator.profiles import CacheModel, PromptCache
from tests.conftest import Server

LONG = "Explain the difference between a process and a thread, with examples. " * 8  # > one 64-token block
# The seed's example request (002_8258ddbe37c49dfc.txt), verbatim but for the base URL.
INFEREL_SEED = {
    "model": "claude-sonnet-4.6",
    "messages": [
        {"role": "system", "content": "You are a concise assistant."},
        {"role": "user", "content": "What is an inference platform?"},
    ],
    "temperature": 0.7,
    "max_tokens": 300,
}


def prompt(text: str, key: str | None = "k") -> Prompt:
    return Prompt(dialect="t", model="m", messages=(Message("user", text),), cache_key=key)


def test_cache_counts_whole_blocks_of_a_repeated_prefix() -> None:
    cache = PromptCache(CacheModel(block=4, capacity=100, ttl=60))  # 16-character blocks
    whole = 4 * len(profiles._prefix_blocks(prompt("a" * 40), 4))  # the role and separators count too
    assert whole >= 8
    assert cache.cached_tokens(prompt("a" * 40), now=0) == 0
    assert cache.cached_tokens(prompt("a" * 40), now=1) == whole  # every whole block of the same prefix
    assert cache.cached_tokens(prompt("a" * 40 + "b" * 20), now=2) <= whole  # the new tail is not cached yet
    assert cache.cached_tokens(prompt("a" * 40, key="other"), now=3) == 0  # caches are per key
    assert cache.cached_tokens(prompt("a" * 40, key=None), now=4) == 0  # no key, no cache
    assert cache.cached_tokens(prompt("b" + "a" * 39), now=5) == 0  # a different prefix shares nothing
    assert cache.cached_tokens(prompt("a" * 40), now=200) == 0  # expired after its ttl


def test_cache_capacity_evicts_the_oldest_blocks() -> None:
    cache = PromptCache(CacheModel(block=4, capacity=2, ttl=60))
    cache.cached_tokens(prompt("a" * 48), now=0)  # three blocks; only the last two are kept
    assert cache.cached_tokens(prompt("a" * 48), now=1) == 0  # the first block is gone, so no prefix hits


def test_pool_suffix_is_routed_not_a_model() -> None:
    inferel, inferam = profiles.PROFILES["inferel"], profiles.PROFILES["inferam"]
    assert profiles.base_model(inferel, "claude-sonnet-4.6:pool") == "claude-sonnet-4.6"
    assert profiles.base_model(inferam, "a:b") == "a:b"


def test_inferel_seed_example_and_prompt_caching(server: Server) -> None:
    with openai.OpenAI(base_url=f"{server.base_url}/inferel/v1", api_key="k", max_retries=0) as client:
        seed = client.chat.completions.create(**INFEREL_SEED)  # type: ignore[call-overload]
        assert seed.object == "chat.completion" and seed.model == "claude-sonnet-4.6"
        assert (
            seed.usage is not None
            and seed.usage.total_tokens == seed.usage.prompt_tokens + seed.usage.completion_tokens
        )
        messages: Any = [{"role": "user", "content": LONG}]
        first = client.chat.completions.create(
            model="claude-sonnet-4.6:gpu", messages=messages, prompt_cache_key="conv-1"
        )
        again = client.chat.completions.create(
            model="claude-sonnet-4.6",
            messages=messages,
            prompt_cache_key="conv-1",
            stream=True,
            stream_options={"include_usage": True},
        )
        usage = list(again)[-1].usage
        by_user = client.chat.completions.create(model="claude-sonnet-4.6", messages=messages, user="conv-1")
    assert first.model == "claude-sonnet-4.6"  # the pool is not part of the model
    assert first.usage is not None and first.usage.prompt_tokens_details is not None
    assert first.usage.prompt_tokens_details.cached_tokens == 0
    assert usage is not None and usage.prompt_tokens_details is not None
    assert usage.prompt_tokens_details.cached_tokens == 128  # two whole 64-token blocks of the repeated prefix
    assert by_user.usage is not None and by_user.usage.prompt_tokens_details.cached_tokens == 128  # `user` falls back


def test_profiles_serve_only_their_endpoints(server: Server) -> None:
    with openai.OpenAI(base_url=f"{server.base_url}/inferel/v1", api_key="k", max_retries=0) as client:
        with pytest.raises(openai.NotFoundError, match="inferel profile does not serve it"):
            client.responses.create(model="m", input="hi")
        assert "claude-sonnet-4.6" in [m.id for m in client.models.list()]
    with openai.OpenAI(base_url=f"{server.base_url}/inferam/v1", api_key="k", max_retries=0) as client:
        assert client.responses.create(model="plain-text", input="hi").output_text.startswith("Hello")


def test_server_profile_applies_to_plain_v1(make_server: Any) -> None:
    server = make_server(Settings(profile="inferel"))
    with server.openai() as client:
        first = client.chat.completions.create(model="x:pool", messages=[{"role": "user", "content": LONG}], user="u")
        again = client.chat.completions.create(model="x:pool", messages=[{"role": "user", "content": LONG}], user="u")
        with pytest.raises(openai.NotFoundError):
            client.responses.create(model="m", input="hi")
    assert first.model == "x" and again.usage is not None and again.usage.prompt_tokens_details.cached_tokens == 128


def test_inferel_retries_upstream_failures_before_the_client_sees_them(server: Server) -> None:
    def ask(prefix: str, spec: str, i: int = 0) -> tuple[int, float]:
        with openai.OpenAI(base_url=f"{server.base_url}{prefix}/v1", api_key="k", max_retries=0) as client:
            started = time.monotonic()
            try:
                client.chat.completions.create(
                    model="m", messages=[{"role": "user", "content": f"q{i}"}], extra_headers={"x-emulator-fault": spec}
                )
                return 200, time.monotonic() - started
            except openai.APIStatusError as exc:
                return exc.status_code, time.monotonic() - started

    status, took = ask("/inferel", "status=503; at=upstream")  # every upstream try fails: the error, later
    assert status == 503 and took >= 2 * profiles.RETRY_MS / 1000 * 0.9
    status, took = ask("/inferam", "status=503; at=upstream")  # no retries behind Inferam: at once
    assert status == 503 and took < 0.4
    status, _ = ask("/inferel", "status=503")  # at the edge: the client gets it
    assert status == 503
    upstream = [ask("/inferel", "status=503; at=upstream; rate=0.5", i)[0] for i in range(16)]
    edge = [ask("/inferel", "status=503; rate=0.5", i)[0] for i in range(16)]
    assert upstream.count(503) < edge.count(503)  # most upstream failures are absorbed by the retries
