"""Provider profiles so far: path prefixes, Inferel's `model:pool` and its deterministic prompt cache."""

from __future__ import annotations

import json
import time
from typing import Any

import anthropic
import openai
import pytest

from emulator.core.conversation import Message, Prompt
from emulator.http.app import Settings
from emulator.rules import caches, profiles
from emulator.rules.caches import CacheModel, PromptCache
from tests.conftest import Server
from tests.test_app_chat import post

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
    whole = 4 * len(caches.prefix_blocks(prompt("a" * 40), 4))  # the role and separators count too
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

    status, slow = ask("/inferel", "status=503; at=upstream")  # every upstream try fails: the error, later
    assert status == 503 and slow >= 2 * profiles.RETRY_MS / 1000 * 0.9
    status, fast = ask("/inferam", "status=503; at=upstream")  # no retries behind Inferam: at once
    # Against the retried request measured just before: both pay the same overhead, whatever the machine's load.
    assert status == 503 and fast < slow - profiles.RETRY_MS / 1000
    status, _ = ask("/inferel", "status=503")  # at the edge: the client gets it
    assert status == 503
    upstream = [ask("/inferel", "status=503; at=upstream; rate=0.5", i)[0] for i in range(16)]
    edge = [ask("/inferel", "status=503; rate=0.5", i)[0] for i in range(16)]
    assert upstream.count(503) < edge.count(503)  # most upstream failures are absorbed by the retries


# --- credentials: every upstream refuses a request that brings no key, in its own shape --------------------

OPENAI_NO_KEY = "You didn't provide an API key."
NO_KEY_ROWS = [
    # (path, body, what the answer must be: OpenAI's JSON, Anthropic's JSON, or Infercom's text/plain)
    ("/v1/chat/completions", {"model": "m", "messages": [{"role": "user", "content": "hi"}]}, "openai"),
    ("/inferam/v1/responses", {"model": "m", "input": "hi"}, "openai"),
    (
        "/inferam/v1/messages",
        {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]},
        "anthropic",
    ),
    ("/inferel/v1/chat/completions", {"model": "m", "messages": [{"role": "user", "content": "hi"}]}, "openai"),
    ("/infercom/v1/chat/completions", {"model": "m", "messages": [{"role": "user", "content": "hi"}]}, "text"),
    ("/openai/v1/responses", {"model": "gpt-4.1", "input": "hi"}, "openai"),
    (
        "/anthropic/v1/messages/count_tokens",
        {"model": "claude-haiku-4-5", "messages": [{"role": "user", "content": "hi"}]},
        "anthropic",
    ),
]


@pytest.mark.parametrize(("path", "body", "shape"), NO_KEY_ROWS, ids=[r[0] for r in NO_KEY_ROWS])
def test_a_request_without_a_key_is_a_401_in_the_providers_shape(
    server: Server, path: str, body: dict[str, Any], shape: str
) -> None:
    status, headers, raw = post(server, path, json.dumps(body).encode(), {"authorization": ""})
    assert status == 401
    if shape == "text":
        assert headers["content-type"].startswith("text/plain") and raw == b"unauthorized"
    elif shape == "anthropic":
        error = json.loads(raw)
        assert error["type"] == "error" and error["error"]["type"] == "authentication_error"
        assert error["error"]["message"] == "x-api-key header is required"
    else:
        error = json.loads(raw)["error"]
        assert error["message"].startswith(OPENAI_NO_KEY) and error["type"] == "invalid_request_error"
        assert error["code"] is None  # no key at all; a wrong key would be `invalid_api_key` (wire-formats §4.1)
    keyed = {"x-api-key": "any", "anthropic-version": "2023-06-01"}  # Anthropic's API wants its version too
    assert post(server, path, json.dumps(body).encode(), keyed)[0] == 200  # any key will do


def test_the_sdks_raise_their_authentication_errors(server: Server) -> None:
    no_key = {"Authorization": ""}  # the SDK insists on a key of its own: send none all the same
    with openai.OpenAI(base_url=f"{server.base_url}/v1", api_key="k", default_headers=no_key, max_retries=0) as client:
        with pytest.raises(openai.AuthenticationError, match=OPENAI_NO_KEY):
            client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
        with pytest.raises(openai.AuthenticationError):
            client.models.list()
    omitted: Any = {"Authorization": anthropic.Omit()}  # no key at all, which the SDK allows only explicitly
    claude = anthropic.Anthropic(base_url=server.base_url, api_key=None, default_headers=omitted, max_retries=0)
    with claude, pytest.raises(anthropic.AuthenticationError, match="x-api-key header is required"):
        claude.messages.create(model="m", max_tokens=5, messages=[{"role": "user", "content": "hi"}])


# --- the public APIs' own behaviour: the `openai` and `anthropic` profiles ------------------------------------


def openai_at(server: Server, prefix: str) -> openai.OpenAI:
    return openai.OpenAI(
        base_url=f"{server.base_url}{prefix}/v1", api_key="k", max_retries=0, _strict_response_validation=True
    )


def test_openai_models_reason_unseen_and_count_it(server: Server) -> None:
    question: Any = [{"role": "user", "content": "Why is the sky blue?"}]
    with openai_at(server, "/openai") as client:
        raw = client.chat.completions.with_raw_response.create(model="gpt-5", messages=question)
        completion = raw.parse()
        chunks = list(
            client.chat.completions.create(
                model="gpt-5", messages=question, stream=True, stream_options={"include_usage": True}
            )
        )
        plain = client.chat.completions.create(model="gpt-4.1", messages=question)
        low = client.chat.completions.create(model="gpt-5", messages=question, reasoning_effort="minimal")
    message = completion.choices[0].message
    assert message.content and not (message.model_extra or {})  # no reasoning_content, nothing extra
    assert completion.usage and completion.usage.completion_tokens_details
    thought = completion.usage.completion_tokens_details.reasoning_tokens or 0
    assert thought > 0 and completion.usage.completion_tokens > thought
    assert raw.headers["openai-version"] == "2020-10-01" and int(raw.headers["openai-processing-ms"]) >= 1
    deltas = [c.choices[0].delta for c in chunks if c.choices]
    assert "".join(d.content or "" for d in deltas) and not any(d.model_extra for d in deltas)
    assert chunks[-1].usage and chunks[-1].usage.completion_tokens_details
    assert (chunks[-1].usage.completion_tokens_details.reasoning_tokens or 0) > 0
    assert plain.usage and plain.usage.completion_tokens_details
    assert plain.usage.completion_tokens_details.reasoning_tokens == 0  # gpt-4.1 does not reason
    assert low.usage and low.usage.completion_tokens_details
    assert 0 < (low.usage.completion_tokens_details.reasoning_tokens or 0) < thought  # the effort is honoured


def test_openai_responses_summarise_reasoning_only_when_asked(server: Server) -> None:
    with openai_at(server, "/openai") as client:
        hidden = client.responses.create(model="gpt-5", input="Why is the sky blue?")
        with client.responses.stream(
            model="gpt-5", input="Why is the sky blue?", reasoning={"summary": "auto"}
        ) as stream:
            kinds = {event.type for event in stream}
            summarised = stream.get_final_response()
    item = hidden.output[0]
    assert item.type == "reasoning" and item.summary == [] and item.content is None
    assert hidden.usage and hidden.usage.output_tokens_details.reasoning_tokens > 0
    first = summarised.output[0]
    assert first.type == "reasoning" and first.summary and first.summary[0].text
    assert "response.reasoning_summary_text.delta" in kinds and "response.reasoning_text.delta" not in kinds
    with openai_at(server, "/inferam") as client:  # Inferam: raw reasoning shown, reasoning_tokens always 0
        inferam = client.responses.create(model="m", input="Why is the sky blue?")
    assert inferam.output[0].content and inferam.usage and inferam.usage.output_tokens_details.reasoning_tokens == 0


def test_anthropic_models_think_only_when_asked_and_sign_their_thinking(server: Server) -> None:
    question: Any = [{"role": "user", "content": "Why is the sky blue?"}]
    with anthropic.Anthropic(base_url=f"{server.base_url}/anthropic", api_key="k", max_retries=0) as claude:
        plain = claude.messages.create(model="claude-sonnet-5", max_tokens=400, messages=question)
        thinking: Any = {"type": "enabled", "budget_tokens": 1024}  # a budget: Claude 4.5's thinking, not Sonnet 5's
        thought = claude.messages.create(
            model="claude-haiku-4-5", max_tokens=2000, messages=question, thinking=thinking
        )
        with claude.messages.stream(
            model="claude-haiku-4-5", max_tokens=2000, messages=question, thinking=thinking
        ) as stream:
            streamed = stream.get_final_message()
    assert [b.type for b in plain.content] == ["text"]
    assert thought.content[0].type == "thinking" and thought.content[0].signature.startswith("Eq")
    assert streamed.content[0].type == "thinking" and streamed.content[0].signature.startswith("Eq")
    assert len(thought.content[0].signature) == len(streamed.content[0].signature) == 194
    with anthropic.Anthropic(base_url=f"{server.base_url}/inferam", api_key="k", max_retries=0) as claude:
        inferam = claude.messages.create(model="m", max_tokens=400, messages=question)
    assert inferam.content[0].type == "thinking" and inferam.content[0].signature == ""  # thinks unasked, unsigned


@pytest.mark.parametrize(
    ("prefix", "reason", "sequence"), [("/anthropic", "stop_sequence", "!!"), ("/inferam", "end_turn", None)]
)
def test_a_matched_stop_sequence_is_named_by_anthropic_only(
    server: Server, prefix: str, reason: str, sequence: str | None
) -> None:
    question: Any = [{"role": "user", "content": "hi"}]
    with anthropic.Anthropic(base_url=f"{server.base_url}{prefix}", api_key="k", max_retries=0) as claude:
        message = claude.messages.create(
            model="paced", max_tokens=100, messages=question, stop_sequences=["!!", "more"]
        )
        with claude.messages.stream(
            model="paced", max_tokens=100, messages=question, stop_sequences=["!!", "more"]
        ) as stream:
            streamed = stream.get_final_message()
    assert message.content[-1].type == "text" and message.content[-1].text == "Twenty characters"
    assert (message.stop_reason, message.stop_sequence) == (streamed.stop_reason, streamed.stop_sequence)
    assert (message.stop_reason, message.stop_sequence) == (reason, sequence)


def test_cache_keeps_a_bounded_number_of_keys() -> None:
    cache = PromptCache(CacheModel(block=4, capacity=100, ttl=60, keys=2))
    for key in ("a", "b", "a", "c"):  # "b" is now the least recently used key: forgotten
        cache.cached_tokens(prompt("x" * 40, key=key), now=0)
    assert cache.cached_tokens(prompt("x" * 40, key="a"), now=1) > 0
    assert cache.cached_tokens(prompt("x" * 40, key="b"), now=1) == 0
