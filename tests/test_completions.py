"""`POST /v1/completions` (legacy): the bytes against the reference's capture (the stream's chunks, the body's
fields), the openai SDK unmodified, `echo`, `logprobs`, several prompts and `n`, and the API's refusals."""

from __future__ import annotations

import http.client
import json
from typing import Any

import openai
import pytest

from tests import browser
from tests.conftest import Server, call

INSTRUCT = "gpt-3.5-turbo-instruct"
AUTH = {"authorization": "Bearer sk-test"}
PREFIXES = pytest.mark.parametrize("prefix", ["", "/openai"], ids=["default", "openai"])


def sdk(server: Server, prefix: str, strict: bool = True) -> openai.OpenAI:
    """The openai SDK; strict validation only for whole answers: its `Completion` type, which it also parses each
    stream chunk into, has a `finish_reason` that may not be null, and the real API's chunks carry null."""
    return openai.OpenAI(
        base_url=f"{server.base_url}{prefix}/v1", api_key="sk-test", max_retries=0, _strict_response_validation=strict
    )


def sse(server: Server, body: dict[str, Any]) -> list[str]:
    conn = http.client.HTTPConnection(server.host, server.port, timeout=10)
    try:
        conn.request("POST", "/openai/v1/completions", json.dumps(body), {"content-type": "application/json"} | AUTH)
        response = conn.getresponse()
        assert response.status == 200
        assert response.getheader("content-type", "").startswith("text/event-stream")
        raw = response.read().decode()
    finally:
        conn.close()
    assert raw.endswith("\n\n")
    return [event.removeprefix("data: ") for event in raw.split("\n\n") if event]


def test_the_whole_answer_has_the_specs_fields_in_order(server: Server) -> None:
    status, body = call(server.port, "POST", "/openai/v1/completions", {"model": INSTRUCT, "prompt": "Hi"}, AUTH)
    assert status == 200
    assert list(body) == ["id", "object", "created", "model", "choices", "usage"]
    assert body["id"].startswith("cmpl-") and body["object"] == "text_completion" and body["model"] == INSTRUCT
    (choice,) = body["choices"]
    assert list(choice) == ["text", "index", "logprobs", "finish_reason"]
    assert choice["logprobs"] is None and choice["index"] == 0
    assert body["usage"]["completion_tokens"] <= 16  # `max_tokens` defaults to 16
    assert choice["finish_reason"] == ("length" if body["usage"]["completion_tokens"] == 16 else "stop")
    assert body["usage"]["total_tokens"] == body["usage"]["prompt_tokens"] + body["usage"]["completion_tokens"]


def test_the_stream_is_chunks_as_the_captured_one_then_done(server: Server) -> None:
    """reference §5.2: every chunk a `text_completion` (id, object, created, choices, model), text pieces with a
    null finish reason, then one with empty text and the finish reason, then `[DONE]`."""
    events = sse(server, {"model": INSTRUCT, "prompt": "Describe a harbour", "stream": True, "max_tokens": 20})
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    assert all(list(c) == ["id", "object", "created", "choices", "model"] for c in chunks)
    assert len({c["id"] for c in chunks}) == 1 and all(c["object"] == "text_completion" for c in chunks)
    assert all(c["choices"][0]["finish_reason"] is None for c in chunks[:-1])
    last = chunks[-1]["choices"][0]
    assert last["text"] == "" and last["finish_reason"] in ("stop", "length")
    assert all(list(c["choices"][0]) == ["text", "index", "logprobs", "finish_reason"] for c in chunks)


def test_the_stream_ends_with_usage_when_asked(server: Server) -> None:
    body = {"model": INSTRUCT, "prompt": "x", "stream": True, "stream_options": {"include_usage": True}}
    events = sse(server, body)
    usage = json.loads(events[-2])
    assert usage["choices"] == [] and set(usage["usage"]) == {"prompt_tokens", "completion_tokens", "total_tokens"}


@PREFIXES
def test_the_sdk_streams_the_same_text_it_gets_whole(server: Server, prefix: str) -> None:
    prompt = "Explain why bread rises"
    with sdk(server, prefix) as client:
        whole = client.completions.create(model=INSTRUCT, prompt=prompt, max_tokens=40, seed=3)
    with sdk(server, prefix, strict=False) as client:
        stream = client.completions.create(model=INSTRUCT, prompt=prompt, max_tokens=40, seed=3, stream=True)
        pieces = [c.choices[0].text for c in stream if c.choices]
    assert "".join(pieces) == whole.choices[0].text
    assert whole.choices[0].text.startswith("\n\n")  # a completion starts a paragraph after the prompt


def test_echo_puts_the_prompt_first_and_logprobs_cover_every_token(server: Server) -> None:
    with sdk(server, "/openai") as client:
        answer = client.completions.create(model=INSTRUCT, prompt="Once upon", echo=True, logprobs=3, max_tokens=12)
    choice = answer.choices[0]
    assert choice.text.startswith("Once upon")
    probabilities = choice.logprobs
    assert probabilities is not None and probabilities.tokens and probabilities.text_offset
    assert "".join(probabilities.tokens) == choice.text
    offsets = [0]
    for token in probabilities.tokens[:-1]:
        offsets.append(offsets[-1] + len(token))
    assert probabilities.text_offset == offsets
    assert len(probabilities.token_logprobs or []) == len(probabilities.tokens)
    for token, logprob, top in zip(
        probabilities.tokens, probabilities.token_logprobs or [], probabilities.top_logprobs or [], strict=True
    ):
        assert logprob <= 0 and 1 <= len(top) <= 3 and top[token] == logprob


def test_several_prompts_and_n_give_a_choice_each_in_order(server: Server) -> None:
    prompts = ["Name a planet", "Name a composer", "Name a mountain"]
    with sdk(server, "/openai") as client:
        answer = client.completions.create(model=INSTRUCT, prompt=prompts, n=2, echo=True, max_tokens=8)
    assert [c.index for c in answer.choices] == list(range(6))
    for choice in answer.choices:
        assert choice.text.startswith(prompts[choice.index // 2])  # prompt by prompt, n each
    assert answer.usage is not None and answer.usage.prompt_tokens == sum((len(p) + 3) // 4 for p in prompts)


def test_a_stop_sequence_ends_the_text(server: Server) -> None:
    with sdk(server, "/openai") as client:
        full = client.completions.create(model=INSTRUCT, prompt="List three colours", max_tokens=60).choices[0].text
        word = full.split()[3]
        cut = client.completions.create(model=INSTRUCT, prompt="List three colours", max_tokens=60, stop=[word])
    assert cut.choices[0].finish_reason == "stop"
    assert word not in cut.choices[0].text and full.startswith(cut.choices[0].text)


REFUSALS = [
    ({"model": "gpt-4.1"}, 404, "This is a chat model and not supported in the v1/completions endpoint."),
    ({"model": "no-such-model"}, 404, "does not exist"),
    ({"logprobs": 6}, 400, "Expected a value <= 5"),
    ({"n": 3, "best_of": 2}, 400, "best_of (2) must be greater than or equal to n (3)."),
    ({"stream": True, "best_of": 3}, 400, "best_of cannot be used with stream"),
    ({"stop": ["a", "b", "c", "d", "e"]}, 400, "Expected an array with maximum length 4"),
    ({"prompt": {"text": "x"}}, 400, "Invalid type for 'prompt'"),
    ({"stream_options": {"include_usage": True}}, 400, "only allowed when 'stream' is enabled"),
    ({"top_k": 3}, 400, "Unrecognized request argument supplied: top_k"),
]


@pytest.mark.parametrize(("change", "status", "words"), REFUSALS)
def test_the_public_profile_refuses_as_the_api_does(
    server: Server, change: dict[str, Any], status: int, words: str
) -> None:
    got, answer = call(server.port, "POST", "/openai/v1/completions", {"model": INSTRUCT, "prompt": "x"} | change, AUTH)
    assert got == status, answer
    assert words in answer["error"]["message"]
    assert set(answer["error"]) == {"message", "type", "param", "code"}


def test_a_chat_request_for_a_completions_model_points_to_completions(server: Server) -> None:
    body = {"model": INSTRUCT, "messages": [{"role": "user", "content": "x"}]}
    status, answer = call(server.port, "POST", "/openai/v1/chat/completions", body, AUTH)
    assert status == 404
    assert answer["error"]["message"].endswith("Did you mean to use v1/completions?")


def test_faults_reach_the_sdk_as_its_errors(server: Server) -> None:
    with sdk(server, "", strict=False) as client:
        with pytest.raises(openai.InternalServerError):
            client.completions.create(model="m", prompt="x", extra_headers={"x-emulator-fault": "status=500"})
        stream = client.completions.create(
            model="m", prompt="x", stream=True, extra_headers={"x-emulator-fault": "stream_error; after_events=2"}
        )
        with pytest.raises(openai.APIError):
            for _ in stream:
                pass


JS = """
const { OpenAI } = require("openai");
(async () => {
  const client = new OpenAI({ baseURL: process.argv[1], apiKey: "k", maxRetries: 0 });
  const whole = await client.completions.create({ model: "gpt-3.5-turbo-instruct", prompt: "Say hi", max_tokens: 20 });
  let streamed = "";
  const stream = await client.completions.create({
    model: "gpt-3.5-turbo-instruct", prompt: "Say hi", max_tokens: 20, stream: true,
  });
  for await (const chunk of stream) if (chunk.choices.length) streamed += chunk.choices[0].text;
  const vectors = await client.embeddings.create({
    model: "text-embedding-3-small", input: ["a", "b"], dimensions: 16,
  });
  console.log(JSON.stringify({
    whole: whole.choices[0].text, streamed, sizes: vectors.data.map((d) => d.embedding.length),
    norm: vectors.data[0].embedding.reduce((sum, x) => sum + x * x, 0),
  }));
})().catch((e) => { console.error(e); process.exit(1); });
"""


def test_the_js_sdks_completions_and_embeddings(server: Server) -> None:
    """The JS SDK: a completion whole and streamed, and embeddings in its default base64, decoded by it."""
    ran = browser.run_node(JS, f"{server.base_url}/openai/v1")
    assert ran["whole"] and ran["streamed"] == ran["whole"]
    assert ran["sizes"] == [16, 16] and abs(ran["norm"] - 1) < 1e-5
