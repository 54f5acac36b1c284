"""Ollama's native API as the `ollama` clients (PyPI and npm) call it, unmodified, with no key: chat and generate,
whole and as NDJSON streams, thinking, tools, `format`, embeddings, the model routes, and Ollama's errors
(reference providers-aws-azure-ollama.md §3)."""

from __future__ import annotations

import http.client
import json
import time
from typing import Any

import ollama
import pytest

from tests import browser
from tests.conftest import Server, call

HOSTS = pytest.mark.parametrize("where", ["", "/ollama"], ids=["root", "prefix"])
WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Get the current weather for a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}
COUNTS = ("total_duration", "load_duration", "prompt_eval_count", "prompt_eval_duration", "eval_count", "eval_duration")


def ndjson(server: Server, path: str, body: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    conn = http.client.HTTPConnection(server.host, server.port, timeout=10)
    try:
        conn.request("POST", path, json.dumps(body), {"content-type": "application/json"})
        response = conn.getresponse()
        kind, raw = response.getheader("content-type", ""), response.read().decode()
    finally:
        conn.close()
    assert raw.endswith("\n")
    return kind, [json.loads(line) for line in raw.splitlines()]


@HOSTS
def test_chat_whole_and_streamed_say_the_same(server: Server, where: str) -> None:
    asked = [{"role": "user", "content": "How do tides work?"}]
    with ollama.Client(host=f"{server.base_url}{where}") as client:
        whole = client.chat(model="llama3.2", messages=asked)
        pieces = list(client.chat(model="llama3.2", messages=asked, stream=True))
    assert whole.done and whole.done_reason == "stop" and whole.message.role == "assistant"
    assert "".join(p.message.content for p in pieces) == whole.message.content
    assert [p.done for p in pieces] == [False] * (len(pieces) - 1) + [True]
    assert pieces[-1].eval_count == whole.eval_count and whole.prompt_eval_count
    assert whole.total_duration == whole.load_duration + whole.prompt_eval_duration + whole.eval_duration


def test_the_stream_is_ndjson_in_ollamas_shape(server: Server) -> None:
    kind, lines = ndjson(server, "/api/chat", {"model": "llama3.2", "messages": [{"role": "user", "content": "hi"}]})
    assert kind == "application/x-ndjson"  # `stream` is on unless false
    assert all(list(line)[:3] == ["model", "created_at", "message"] for line in lines)
    assert all(line["created_at"].endswith("Z") and line["model"] == "llama3.2" for line in lines)
    last = lines[-1]
    assert last["done"] is True and last["done_reason"] == "stop" and set(COUNTS) <= set(last)
    assert last["message"] == {"role": "assistant", "content": ""}


def test_thinking_comes_first_and_a_tool_call_has_object_arguments(server: Server) -> None:
    asked = [{"role": "user", "content": "What is the weather like in Lisbon today?"}]
    result = {"role": "tool", "tool_name": "get_weather", "content": '{"temperature": 21, "sky": "clear"}'}
    with ollama.Client(host=server.base_url) as client:
        answer = client.chat(model="qwen3", messages=asked, tools=[WEATHER], think=True)
        streamed = list(client.chat(model="qwen3", messages=asked, tools=[WEATHER], think=True, stream=True))
        final = client.chat(model="qwen3", messages=[*asked, answer.message, result], tools=[WEATHER])
    assert answer.message.thinking
    (call_,) = answer.message.tool_calls or []
    assert call_.function.name == "get_weather" and call_.function.arguments == {"city": "Lisbon"}
    thinking = [p for p in streamed if p.message.thinking]
    assert thinking and streamed.index(thinking[-1]) < next(i for i, p in enumerate(streamed) if p.message.tool_calls)
    assert not final.message.tool_calls and final.message.content


def test_without_think_there_is_no_thinking(server: Server) -> None:
    with ollama.Client(host=server.base_url) as client:
        answer = client.chat(model="qwen3", messages=[{"role": "user", "content": "Hello"}])
    assert not answer.message.thinking


def test_format_json_and_a_schema_give_json(server: Server) -> None:
    asked = [{"role": "user", "content": "Describe a cat as JSON"}]
    schema: dict[str, Any] = {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}}}
    schema["required"] = ["name", "age"]
    with ollama.Client(host=server.base_url) as client:
        loose = json.loads(client.chat(model="llama3.2", messages=asked, format="json").message.content or "")
        shaped = json.loads(client.chat(model="llama3.2", messages=asked, format=schema).message.content or "")
    assert isinstance(loose, dict)
    assert isinstance(shaped["name"], str) and isinstance(shaped["age"], int)


def test_generate_with_a_system_prompt_and_a_token_limit(server: Server) -> None:
    asked = "Tell me about volcanoes"
    with ollama.Client(host=server.base_url) as client:
        whole = client.generate(model="llama3.2", prompt=asked, system="Be brief.")
        cut = client.generate(model="llama3.2", prompt=asked, options={"num_predict": 5})
        streamed = list(client.generate(model="llama3.2", prompt=asked, system="Be brief.", stream=True))
    assert whole.response and whole.done_reason == "stop"
    assert cut.done_reason == "length" and cut.eval_count == 5
    assert "".join(p.response for p in streamed) == whole.response


def test_embed_and_the_older_embeddings(server: Server) -> None:
    with ollama.Client(host=server.base_url) as client:
        both = client.embed(model="nomic-embed-text", input=["a harbour at dawn", "a harbour at dusk"])
        one = client.embeddings(model="nomic-embed-text", prompt="a harbour at dawn")
        large = client.embed(model="mxbai-embed-large", input="x")
    assert [len(v) for v in both.embeddings] == [768, 768] and len(large.embeddings[0]) == 1024
    assert list(one.embedding) == list(both.embeddings[0])
    assert abs(sum(x * x for x in both.embeddings[0]) - 1) < 1e-5  # unit length, as Ollama normalizes
    assert both.prompt_eval_count


def test_the_model_routes(server: Server) -> None:
    with ollama.Client(host=server.base_url) as client:
        listed = [m.model for m in client.list().models]
        shown = client.show("some-model-nobody-pulled:7b")
        embedding = client.show("nomic-embed-text")
        loaded = client.ps().models
    assert "llama3.2:latest" in listed
    assert shown.capabilities and "completion" in shown.capabilities
    assert embedding.capabilities == ["embedding"] and loaded == []
    assert call(server.port, "GET", "/api/version")[1] == {"version": "0.33.0"}
    conn = http.client.HTTPConnection(server.host, server.port, timeout=10)
    conn.request("GET", "/")
    assert conn.getresponse().read() == b"Ollama is running"
    conn.close()


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"messages": []}, "model is required"),
        ({"model": "m", "messages": [], "think": "hard"}, 'invalid think value: "hard"'),
    ],
)
def test_errors_are_ollamas_shape_and_the_client_raises_them(server: Server, body: dict[str, Any], words: str) -> None:
    status, answer = call(server.port, "POST", "/api/chat", body)
    assert status == 400 and list(answer) == ["error"] and words in answer["error"]


def test_a_fault_is_a_response_error_and_mid_stream_a_last_error_line(server: Server) -> None:
    hi = [{"role": "user", "content": "hi"}]
    refusing = ollama.Client(host=server.base_url, headers={"x-emulator-fault": "status=503"})
    with refusing as client, pytest.raises(ollama.ResponseError) as refused:
        client.chat(model="m", messages=hi, stream=False)
    assert refused.value.status_code == 503
    breaking = ollama.Client(host=server.base_url, headers={"x-emulator-fault": "stream_error; after_events=2"})
    with breaking as broken, pytest.raises(ollama.ResponseError) as mid:
        list(broken.chat(model="m", messages=hi, stream=True))
    assert mid.value.status_code == -1  # the client's mark for an error line in a stream


JS = """
const { Ollama } = require("ollama");
(async () => {
  const client = new Ollama({ host: process.argv[1] });
  const chat = await client.chat({ model: "llama3.2", messages: [{ role: "user", content: "Why is the sea salty?" }] });
  let streamed = "";
  const stream = await client.chat({
    model: "llama3.2", messages: [{ role: "user", content: "Why is the sea salty?" }], stream: true,
  });
  for await (const part of stream) streamed += part.message.content;
  const tools = await client.chat({
    model: "qwen3", messages: [{ role: "user", content: "What is the weather in Oslo?" }],
    tools: [JSON.parse(process.argv[2])],
  });
  const generated = await client.generate({ model: "llama3.2", prompt: "Name a river" });
  const vectors = await client.embed({ model: "nomic-embed-text", input: ["one", "two"] });
  const version = await client.version();
  console.log(JSON.stringify({
    chat: chat.message.content, streamed, calls: tools.message.tool_calls, generated: generated.response,
    sizes: vectors.embeddings.map((v) => v.length), version: version.version,
  }));
})().catch((e) => { console.error(e); process.exit(1); });
"""
JS_OLLAMA = "0.6.4"


def test_the_js_client(server: Server) -> None:
    ran = browser.run_node(JS, server.base_url, json.dumps(WEATHER), pinned={"ollama": JS_OLLAMA})
    assert ran["chat"] and ran["streamed"] == ran["chat"] and ran["generated"]
    function = ran["calls"][0]["function"]
    assert (function["name"], function["arguments"]) == ("get_weather", {"city": "Oslo"})
    assert ran["sizes"] == [768, 768] and ran["version"] == "0.33.0"


def test_no_request_id_and_no_rate_limit_headers_as_ollama_sends_none(server: Server) -> None:
    conn = http.client.HTTPConnection(server.host, server.port, timeout=10)
    body = json.dumps({"model": "llama3.2", "messages": [{"role": "user", "content": "hi"}], "stream": False})
    conn.request("POST", "/api/chat", body, {"content-type": "application/json"})
    response = conn.getresponse()
    response.read()
    conn.close()
    names = {name.lower() for name, _ in response.getheaders()}
    assert response.status == 200 and response.getheader("content-type") == "application/json"
    assert not {n for n in names if "ratelimit" in n or n.endswith("request-id")}, names


def test_the_first_line_waits_the_time_to_first_token(server: Server) -> None:
    """Ollama's first line is the first token (nothing opens its stream before it): paced, it comes after the time
    to the first token, the rest at the rate asked."""
    paced = {"x-emulator-timing": "ttft_ms=300; tokens_per_second=1000"}
    body = json.dumps({"model": "llama3.2", "messages": [{"role": "user", "content": "hi"}]})
    conn = http.client.HTTPConnection(server.host, server.port, timeout=10)
    started = time.monotonic()
    conn.request("POST", "/api/chat", body, {"content-type": "application/json"} | paced)
    response = conn.getresponse()
    first = response.readline()
    waited = time.monotonic() - started
    response.read()
    conn.close()
    assert json.loads(first)["message"]["content"] and waited >= 0.3
