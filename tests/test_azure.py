"""Azure OpenAI as the openai SDKs' `AzureOpenAI` clients use it, unmodified, with `azure_endpoint` at the
emulator's root (or `/azure`): deployments in the path, `api-version`, `api-key` or Entra tokens, Azure's content
filter results and its gateway's error bodies (reference providers-aws-azure-ollama.md §2)."""

from __future__ import annotations

import asyncio
import http.client
import json
from typing import Any

import openai
import pytest

from tests import browser
from tests.conftest import Server, call

VERSION = "2024-10-21"
ENDPOINTS = pytest.mark.parametrize("where", ["", "/azure"], ids=["root", "azure"])
USER: Any = [{"role": "user", "content": "What is a lighthouse for?"}]


def azure(server: Server, where: str = "", strict: bool = True, **options: Any) -> openai.AzureOpenAI:
    """The SDK's Azure client; strict validation except for streams: Azure opens a stream with a chunk whose
    `object` is "" (its prompt's filter results), which the SDK's strict mode refuses from Azure itself."""
    settings: dict[str, Any] = {"api_key": "azure-key", "api_version": VERSION, "max_retries": 0} | options
    return openai.AzureOpenAI(
        azure_endpoint=f"{server.base_url}{where}", _strict_response_validation=strict, **settings
    )


@ENDPOINTS
def test_chat_on_a_deployment_answers_with_its_name_and_the_filter_results(server: Server, where: str) -> None:
    with azure(server, where) as client:
        raw = client.chat.completions.with_raw_response.create(model="my-gpt", messages=USER)
        answer = raw.parse()
    assert str(raw.http_request.url).endswith(
        f"{where}/openai/deployments/my-gpt/chat/completions?api-version={VERSION}"
    )
    assert raw.http_request.headers["api-key"] == "azure-key"
    assert raw.headers["apim-request-id"]  # Azure names its answers so
    assert answer.model == "my-gpt" and answer.choices[0].message.content
    (prompt,) = answer.model_extra["prompt_filter_results"]
    assert prompt["prompt_index"] == 0
    assert prompt["content_filter_results"]["jailbreak"] == {"filtered": False, "detected": False}
    results = answer.choices[0].model_extra["content_filter_results"]
    assert {k: v["severity"] for k, v in results.items() if "severity" in v} == dict.fromkeys(
        ("hate", "self_harm", "sexual", "violence"), "safe"
    )


def test_a_stream_opens_with_the_prompts_filter_chunk_and_says_what_whole_says(server: Server) -> None:
    with azure(server) as client:
        whole = client.chat.completions.create(model="dep", messages=USER, seed=1).choices[0].message.content
    conn = http.client.HTTPConnection(server.host, server.port, timeout=10)
    body = json.dumps({"messages": USER, "stream": True, "seed": 1})
    conn.request("POST", f"/openai/deployments/dep/chat/completions?api-version={VERSION}", body, {"api-key": "k"})
    events = [e.removeprefix("data: ") for e in conn.getresponse().read().decode().split("\n\n") if e]
    conn.close()
    first = json.loads(events[0])
    assert first["id"] == "" and first["object"] == "" and first["choices"] == [] and first["prompt_filter_results"]
    with azure(server, strict=False) as client:
        stream = client.chat.completions.create(model="dep", messages=USER, seed=1, stream=True)
        streamed = "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
    assert streamed == whole


def test_a_fixed_deployment_wins_over_the_bodys_model(server: Server) -> None:
    with azure(server, azure_deployment="fixed-dep") as client:
        raw = client.chat.completions.with_raw_response.create(model="ignored-model", messages=USER)
    assert "/openai/deployments/fixed-dep/chat/completions" in str(raw.http_request.url)
    assert raw.parse().model == "fixed-dep"


def test_embeddings_completions_responses_and_models(server: Server) -> None:
    with azure(server, strict=False) as client:
        vectors = client.embeddings.create(model="emb-dep", input=["harbour", "lighthouse"])
    assert [len(v.embedding) for v in vectors.data] == [1536, 1536]
    with azure(server) as client:
        floats = client.embeddings.create(model="emb-dep", input="x", encoding_format="float", dimensions=8)
        completion = client.completions.create(model="instruct-dep", prompt="Say hello")
        response = client.responses.create(model="resp-dep", input="Say hello")
        again = client.responses.retrieve(response.id)
        listed = [m.id for m in client.models.list()]
    assert len(floats.data[0].embedding) == 8
    assert completion.choices[0].text and completion.model_extra["prompt_filter_results"]
    assert response.output_text and again.id == response.id
    assert "gpt-4o" in listed


def test_the_async_client_and_an_entra_token(server: Server) -> None:
    async def ask() -> str:
        async with openai.AsyncAzureOpenAI(
            azure_endpoint=server.base_url,
            azure_ad_token_provider=lambda: "entra-token",
            api_version=VERSION,
            max_retries=0,
            _strict_response_validation=True,
        ) as client:
            raw = await client.chat.completions.with_raw_response.create(model="dep", messages=USER)
            assert raw.http_request.headers["authorization"] == "Bearer entra-token"
            return raw.parse().choices[0].message.content or ""

    assert asyncio.run(ask())


@pytest.mark.parametrize(
    ("query", "status", "error"),
    [
        ("", 404, {"code": "404", "message": "Resource not found"}),
        ("?api-version=banana", 400, {"code": "BadRequest", "message": "API version not supported"}),
    ],
)
def test_the_gateway_wants_an_api_version(server: Server, query: str, status: int, error: dict[str, str]) -> None:
    path = f"/openai/deployments/dep/chat/completions{query}"
    assert call(server.port, "POST", path, {"messages": USER}, {"api-key": "k"}) == (status, {"error": error})


def test_no_key_is_the_gateways_401(server: Server) -> None:
    status, body = call(server.port, "POST", f"/openai/deployments/dep/chat/completions?api-version={VERSION}", {})
    assert status == 401
    assert body["error"]["code"] == "401" and "subscription key" in body["error"]["message"]


def test_refusals_and_faults_reach_the_sdk_as_its_errors(server: Server) -> None:
    with azure(server) as client:
        with pytest.raises(openai.BadRequestError, match="Unrecognized request argument supplied: bogus"):
            client.chat.completions.create(model="dep", messages=USER, extra_body={"bogus": 1})
        with pytest.raises(openai.RateLimitError) as limited:
            client.chat.completions.create(model="dep", messages=USER, extra_headers={"x-emulator-fault": "status=429"})
    assert limited.value.code == "429"  # Azure's gateway: the status as the code


def test_the_v1_api_takes_no_version(server: Server) -> None:
    with openai.OpenAI(base_url=f"{server.base_url}/azure/openai/v1", api_key="k", max_retries=0) as client:
        answer = client.chat.completions.create(model="a-deployment", messages=USER)
    assert answer.model == "a-deployment"


JS = """
const { AzureOpenAI } = require("openai");
(async () => {
  const client = new AzureOpenAI({ endpoint: process.argv[1], apiKey: "k", apiVersion: "2024-10-21", maxRetries: 0 });
  const chat = await client.chat.completions.create({ model: "js-dep", messages: [{ role: "user", content: "hi" }] });
  const vectors = await client.embeddings.create({ model: "js-emb", input: ["a tide", "a pool"] });
  const stream = await client.chat.completions.create({
    model: "js-dep", messages: [{ role: "user", content: "hi" }], stream: true,
  });
  let streamed = "";
  for await (const chunk of stream) if (chunk.choices.length) streamed += chunk.choices[0].delta.content || "";
  const response = await client.responses.create({ model: "js-dep", input: "hello" });
  console.log(JSON.stringify({
    chat: chat.choices[0].message.content, model: chat.model, filters: chat.prompt_filter_results.length,
    sizes: vectors.data.map((d) => d.embedding.length), streamed, responses: response.output_text,
  }));
})().catch((e) => { console.error(e); process.exit(1); });
"""


def test_the_js_sdks_azure_client(server: Server) -> None:
    ran = browser.run_node(JS, server.base_url)
    assert ran["chat"] and ran["model"] == "js-dep" and ran["filters"] == 1
    assert ran["sizes"] == [1536, 1536]  # base64, decoded by the SDK
    assert ran["streamed"] == ran["chat"] and ran["responses"]
