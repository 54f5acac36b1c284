"""The Gemini API and Vertex AI as their official clients call them, unmodified, against a real server: google-genai
(Python, and `@google/genai` under node) whole and streamed, a function-calling loop, JSON by a schema, thoughts,
token counts, embeddings, the model list, Google's errors and a retried 429; Vertex's paths for Gemini (with a
project, and in express mode) and for Claude through the anthropic SDK's `AnthropicVertex` (reference
providers-google.md)."""

from __future__ import annotations

import contextlib
import http.client
import json
import time
from collections.abc import Iterator
from typing import Any

import anthropic
import pytest
from google import genai
from google.genai import errors, types
from google.oauth2.credentials import Credentials
from pydantic import BaseModel

from tests import browser
from tests.conftest import Server, call, settled

VERSIONS = pytest.mark.parametrize(("where", "version"), [("", "v1"), ("", "v1beta"), ("/gemini", "v1beta")])
FLASH = "gemini-2.5-flash"


def client(server: Server, where: str = "", version: str | None = None, **options: Any) -> genai.Client:
    """google-genai pointed at the emulator, its key in `x-goog-api-key` as it always sends it."""
    http = types.HttpOptions(base_url=f"{server.base_url}{where}", api_version=version, **options)
    return genai.Client(api_key="test-key", http_options=http)


@pytest.fixture
def gemini(server: Server) -> Iterator[genai.Client]:
    made = client(server)
    yield made
    made.close()


def sse(server: Server, path: str, body: dict[str, Any], headers: dict[str, str] | None = None) -> tuple[str, str]:
    conn = http.client.HTTPConnection(server.host, server.port, timeout=10)
    try:
        sent = {"content-type": "application/json", "x-goog-api-key": "k"} | (headers or {})
        conn.request("POST", path, json.dumps(body), sent)
        response = conn.getresponse()
        return response.getheader("content-type", ""), response.read().decode()
    finally:
        conn.close()


@VERSIONS
def test_whole_and_streamed_say_the_same(server: Server, where: str, version: str) -> None:
    asked = "Why do cats purr?"
    with client(server, where, version) as made:
        whole = made.models.generate_content(model=FLASH, contents=asked)
        chunks = list(made.models.generate_content_stream(model=FLASH, contents=asked))
    assert whole.text and "".join(c.text or "" for c in chunks) == whole.text
    assert whole.candidates and whole.candidates[0].finish_reason == types.FinishReason.STOP
    assert [c.candidates[0].finish_reason for c in chunks if c.candidates][-1] == types.FinishReason.STOP
    assert all(c.candidates[0].finish_reason is None for c in chunks[:-1] if c.candidates)
    usage, last = whole.usage_metadata, chunks[-1].usage_metadata
    assert usage and last and usage.prompt_token_count == last.prompt_token_count
    assert usage.candidates_token_count == last.candidates_token_count and usage.total_token_count
    assert whole.response_id and whole.model_version == FLASH


def test_the_stream_is_data_lines_with_no_event_names_comments_or_done(server: Server) -> None:
    body = {"contents": [{"role": "user", "parts": [{"text": "Name a river in Spain"}]}]}
    kind, raw = sse(server, f"/v1beta/models/{FLASH}:streamGenerateContent?alt=sse", body)
    assert kind.startswith("text/event-stream")
    events = [e for e in raw.split("\r\n\r\n") if e]
    assert all(e.startswith("data: ") and "\n" not in e for e in events), raw[:300]
    chunks = [json.loads(e[6:]) for e in events]
    assert "[DONE]" not in raw and all(list(c)[:2] == ["candidates", "usageMetadata"] for c in chunks)
    assert [c["candidates"][0].get("finishReason") for c in chunks][-1] == "STOP"


def get_weather(city: str) -> str:
    """The weather now in a city.

    Args:
      city: The city's name.
    """
    return f"18 C and sunny in {city}"


def test_automatic_function_calling_runs_the_loop_to_its_end(gemini: genai.Client) -> None:
    config = types.GenerateContentConfig(tools=[get_weather])
    answer = gemini.models.generate_content(model=FLASH, contents="What is the weather in Paris?", config=config)
    history = answer.automatic_function_calling_history or []
    calls = [p.function_call for c in history for p in c.parts or [] if p.function_call]
    results = [p.function_response for c in history for p in c.parts or [] if p.function_response]
    assert [(c.name, c.args) for c in calls] == [("get_weather", {"city": "Paris"})]
    assert results and results[0].response == {"result": "18 C and sunny in Paris"}
    assert answer.text == "It is 18 °C and sunny in Paris."  # the scenario's second step: the loop came back


def test_a_chat_sends_the_call_back_and_streams_the_answer(gemini: genai.Client) -> None:
    """A manual loop: the call arrives whole in one streamed chunk, its result goes back as a function response."""
    declared = types.FunctionDeclaration(
        name="get_weather",
        description="The weather now in a city",
        parameters=types.Schema(type=types.Type.OBJECT, properties={"city": types.Schema(type=types.Type.STRING)}),
    )
    config = types.GenerateContentConfig(
        tools=[types.Tool(function_declarations=[declared])],
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
    )
    chat = gemini.chats.create(model=FLASH, config=config)
    chunks = list(chat.send_message_stream("What's the weather in Paris?"))
    calls = [call for chunk in chunks for call in chunk.function_calls or []]
    assert [(c.name, c.args) for c in calls] == [("get_weather", {"city": "Paris"})]
    result = types.Part.from_function_response(name="get_weather", response={"weather": "18 C, sunny"})
    final = chat.send_message(result)
    assert final.text == "It is 18 °C and sunny in Paris." and not final.function_calls
    assert len(chat.get_history()) == 4


def test_a_call_is_made_for_any_tool_when_the_mode_says_any(gemini: genai.Client) -> None:
    declared = types.FunctionDeclaration(
        name="book_table",
        description="Book a restaurant table",
        parameters_json_schema={
            "type": "object",
            "properties": {"guests": {"type": "integer"}, "time": {"type": "string"}},
            "required": ["guests", "time"],
        },
    )
    config = types.GenerateContentConfig(
        tools=[types.Tool(function_declarations=[declared])],
        tool_config=types.ToolConfig(
            function_calling_config=types.FunctionCallingConfig(mode=types.FunctionCallingConfigMode.ANY)
        ),
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
    )
    answer = gemini.models.generate_content(model=FLASH, contents="A table for four at eight, please", config=config)
    assert answer.function_calls and answer.function_calls[0].name == "book_table"
    args = answer.function_calls[0].args or {}
    assert isinstance(args.get("guests"), int) and isinstance(args.get("time"), str)


class Recipe(BaseModel):
    name: str
    minutes: int
    ingredients: list[str]


def test_json_by_a_response_schema_parses_into_its_model(gemini: genai.Client) -> None:
    config = types.GenerateContentConfig(response_mime_type="application/json", response_schema=Recipe)
    answer = gemini.models.generate_content(model=FLASH, contents="A quick pasta recipe", config=config)
    assert isinstance(answer.parsed, Recipe) and answer.parsed.name
    assert isinstance(json.loads(answer.text or ""), dict)
    streamed = "".join(
        c.text or "" for c in gemini.models.generate_content_stream(model=FLASH, contents="A salad", config=config)
    )
    Recipe.model_validate_json(streamed)


def test_thoughts_come_first_only_when_asked_for(gemini: genai.Client) -> None:
    shown = types.GenerateContentConfig(thinking_config=types.ThinkingConfig(include_thoughts=True))
    answer = gemini.models.generate_content(model=FLASH, contents="Is 91 a prime number?", config=shown)
    parts = answer.candidates[0].content.parts if answer.candidates and answer.candidates[0].content else []
    assert parts and parts[0].thought and parts[0].text and not parts[-1].thought
    assert parts[1].thought_signature, "the first part after the thoughts carries their signature"
    usage = answer.usage_metadata
    assert (
        usage
        and usage.thoughts_token_count
        and usage.total_token_count
        == ((usage.prompt_token_count or 0) + (usage.candidates_token_count or 0) + usage.thoughts_token_count)
    )
    chunks = list(gemini.models.generate_content_stream(model=FLASH, contents="Is 91 a prime number?", config=shown))
    thoughts = [
        c for c in chunks if c.candidates and c.candidates[0].content and c.candidates[0].content.parts[0].thought
    ]
    assert thoughts and chunks.index(thoughts[-1]) == len(thoughts) - 1, "every thought before the answer"
    hidden = gemini.models.generate_content(model=FLASH, contents="Is 91 a prime number?")
    assert hidden.candidates and not any(p.thought for p in hidden.candidates[0].content.parts or [])
    assert hidden.usage_metadata and hidden.usage_metadata.thoughts_token_count  # it thought all the same
    off = types.GenerateContentConfig(thinking_config=types.ThinkingConfig(thinking_budget=0))
    plain = gemini.models.generate_content(model=FLASH, contents="Is 91 a prime number?", config=off)
    assert plain.usage_metadata and not plain.usage_metadata.thoughts_token_count


def test_a_token_limit_ends_with_max_tokens(gemini: genai.Client) -> None:
    config = types.GenerateContentConfig(max_output_tokens=5, thinking_config=types.ThinkingConfig(thinking_budget=0))
    answer = gemini.models.generate_content(model=FLASH, contents="Tell me about the history of Rome", config=config)
    assert answer.candidates and answer.candidates[0].finish_reason == types.FinishReason.MAX_TOKENS
    assert answer.usage_metadata and answer.usage_metadata.candidates_token_count == 5


def test_several_candidates_each_sampled_afresh_whole_and_streamed(gemini: genai.Client) -> None:
    quick = types.ThinkingConfig(thinking_budget=0)
    config = types.GenerateContentConfig(candidate_count=3, max_output_tokens=40, thinking_config=quick)
    asked = "Suggest a name for a grey cat"
    answer = gemini.models.generate_content(model=FLASH, contents=asked, config=config)
    candidates = answer.candidates or []
    assert [c.index for c in candidates] == [0, 1, 2]
    texts = ["".join(p.text or "" for p in (c.content.parts if c.content else None) or []) for c in candidates]
    assert all(texts) and len(set(texts)) > 1, "each candidate sampled afresh"
    one_config = types.GenerateContentConfig(max_output_tokens=40, thinking_config=quick)
    alone = gemini.models.generate_content(model=FLASH, contents=asked, config=one_config)
    assert alone.text == texts[0], "the first candidate is the answer asked for alone"
    usage, one = answer.usage_metadata, alone.usage_metadata
    assert usage and one and usage.prompt_token_count == one.prompt_token_count
    assert (usage.candidates_token_count or 0) > (one.candidates_token_count or 0)
    streamed: dict[int, str] = {}
    finished: set[int] = set()
    last: Any = None
    for chunk in gemini.models.generate_content_stream(model=FLASH, contents=asked, config=config):
        for c in chunk.candidates or []:
            streamed[c.index or 0] = streamed.get(c.index or 0, "") + "".join(
                p.text or "" for p in c.content.parts or []
            )
            if c.finish_reason:
                finished.add(c.index or 0)
        last = chunk.usage_metadata
    assert [streamed[i] for i in range(3)] == texts and finished == {0, 1, 2}
    assert last and last.total_token_count == usage.total_token_count
    with pytest.raises(errors.ClientError) as refused:
        gemini.models.generate_content(
            model=FLASH, contents=asked, config=types.GenerateContentConfig(candidate_count=9)
        )
    assert refused.value.code == 400 and "candidateCount value of 9" in str(refused.value.message)


@pytest.mark.parametrize("asked", ["Tell me about owls", "Plan a three-day trip to Lisbon with a budget"])
def test_count_tokens_is_the_prompt_count_of_the_answer(gemini: genai.Client, asked: str) -> None:
    counted = gemini.models.count_tokens(model=FLASH, contents=asked)
    answer = gemini.models.generate_content(model=FLASH, contents=asked)
    assert counted.total_tokens and answer.usage_metadata
    assert counted.total_tokens == answer.usage_metadata.prompt_token_count


def test_embeddings_in_the_models_size_near_for_near_texts(gemini: genai.Client, server: Server) -> None:
    texts = ["The cat sat on the mat", "A cat was sitting on a mat", "Quarterly revenue rose by four percent"]
    made = gemini.models.embed_content(model="gemini-embedding-001", contents=texts)
    vectors = [e.values or [] for e in made.embeddings or []]
    assert [len(v) for v in vectors] == [3072] * 3

    def cosine(a: list[float], b: list[float]) -> float:
        return sum(x * y for x, y in zip(a, b, strict=True))

    assert cosine(vectors[0], vectors[1]) > cosine(vectors[0], vectors[2]) + 0.2
    short = gemini.models.embed_content(
        model="text-embedding-004", contents="hello", config=types.EmbedContentConfig(output_dimensionality=64)
    )
    assert short.embeddings and len(short.embeddings[0].values or []) == 64
    # `embedContent`, which raw-HTTP clients call: one `embedding`, the same vector as the batch's first
    body = {"content": {"parts": [{"text": texts[0]}]}}
    status, one = call(server.port, "POST", "/v1beta/models/gemini-embedding-001:embedContent", body, KEY)
    assert status == 200 and one["embedding"]["values"] == pytest.approx(vectors[0], abs=1e-6)


KEY = {"x-goog-api-key": "k"}


def test_the_model_list_and_one_model(gemini: genai.Client, server: Server) -> None:
    names = [m.name for m in gemini.models.list()]
    assert f"models/{FLASH}" in names and "models/gemini-embedding-001" in names
    one = gemini.models.get(model="gemini-2.5-pro")
    assert (
        one.name == "models/gemini-2.5-pro"
        and one.input_token_limit
        and "generateContent" in (one.supported_actions or [])
    )
    with pytest.raises(errors.ClientError) as missing:
        gemini.models.get(model="no-such-model")
    assert missing.value.code == 404 and missing.value.status == "NOT_FOUND"
    # `GET /v1/models` is also OpenAI's and Anthropic's: Google's key tells a Google client
    status, google = call(server.port, "GET", "/v1/models?key=abc")
    assert status == 200 and list(google) == ["models"]
    status, openai = call(server.port, "GET", "/v1/models", headers={"authorization": "Bearer sk"})
    assert status == 200 and openai["object"] == "list"


@pytest.mark.parametrize(
    ("headers", "query", "status"),
    [
        ({}, "", 403),
        ({}, "?key=abc", 200),
        ({"x-goog-api-key": "k"}, "", 200),
        ({"authorization": "Bearer t"}, "", 200),
    ],
    ids=["none", "query", "header", "bearer"],
)
def test_a_key_in_a_header_or_the_query_and_none_is_a_403(
    server: Server, headers: dict[str, str], query: str, status: int
) -> None:
    body = {"contents": [{"parts": [{"text": "hi"}]}]}
    got, answer = call(server.port, "POST", f"/v1beta/models/{FLASH}:generateContent{query}", body, headers)
    assert got == status
    if status == 403:
        assert answer["error"]["status"] == "PERMISSION_DENIED" and "unregistered callers" in answer["error"]["message"]


@pytest.mark.parametrize(
    ("contents", "words"),
    [
        ([{"role": "bot", "parts": [{"text": "x"}]}], "Please use a valid role: user, model."),
        ([{"role": "user", "parts": []}], "contents.parts must not be empty"),
        ([{"role": "user", "parts": [{}]}], "required oneof field 'data'"),
    ],
)
def test_a_bad_body_is_a_client_error_in_googles_words(gemini: genai.Client, contents: Any, words: str) -> None:
    with pytest.raises(errors.ClientError) as refused:
        gemini.models.generate_content(model=FLASH, contents=contents)
    assert refused.value.code == 400 and refused.value.status == "INVALID_ARGUMENT"
    assert words in (refused.value.message or "")


def test_a_rate_limit_says_when_to_retry_and_the_clients_retry_recovers(server: Server) -> None:
    limited = client(server, headers={"x-emulator-fault": "status=429; retry_after=3"})
    with limited, pytest.raises(errors.ClientError) as refused:
        limited.models.generate_content(model=FLASH, contents="hi")
    assert refused.value.code == 429 and refused.value.status == "RESOURCE_EXHAUSTED"
    details = refused.value.details["error"]["details"]
    assert {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "3s"} in details
    # The `flaky` scenario refuses twice, then answers: the SDK retries only when told to (it has no default).
    retry = types.HttpRetryOptions(attempts=3, initial_delay=0.05, max_delay=0.1, jitter=0)
    test = {"x-emulator-scenario": "flaky", "x-emulator-test-id": f"gemini-retry-{time.monotonic_ns()}"}
    with client(server, headers=test, retry_options=retry) as patient:
        assert patient.models.generate_content(model=FLASH, contents="hi").text == "third time lucky"
    test["x-emulator-test-id"] += "-once"
    with client(server, headers=test) as once, pytest.raises(errors.ClientError):
        once.models.generate_content(model=FLASH, contents="hi")


@pytest.mark.parametrize("status", [503, 500, 504])
def test_server_errors_whole_and_mid_stream(server: Server, status: int) -> None:
    kind = errors.ServerError
    with client(server, headers={"x-emulator-fault": f"status={status}"}) as refusing, pytest.raises(kind) as raised:
        list(refusing.models.generate_content_stream(model=FLASH, contents="hi"))
    assert raised.value.code == status
    breaking = client(server, headers={"x-emulator-fault": f"stream_error; after_events=2; status={status}"})
    with breaking, pytest.raises(kind) as mid:
        seen = []
        for chunk in breaking.models.generate_content_stream(model=FLASH, contents="Tell me about owls"):
            seen.append(chunk.text)
    assert len(seen) == 2 and mid.value.code == status


def test_vertex_paths_with_a_project_and_in_express_mode(server: Server, test_id: str) -> None:
    options = types.HttpOptions(base_url=server.base_url, headers={"x-emulator-test-id": test_id})
    token = Credentials(token="ya29.test")
    with genai.Client(vertexai=True, project="p", location="us-central1", credentials=token, http_options=options) as v:
        whole = v.models.generate_content(model=FLASH, contents="Why is the sea salty?")
        streamed = "".join(
            c.text or "" for c in v.models.generate_content_stream(model=FLASH, contents="Why is the sea salty?")
        )
        assert whole.text and streamed == whole.text
        assert v.models.count_tokens(model=FLASH, contents="Why is the sea salty?").total_tokens
        embedded = v.models.embed_content(model="gemini-embedding-001", contents="salt").embeddings or []
        assert len(embedded[0].values or []) == 3072
    with genai.Client(vertexai=True, api_key="express-key", http_options=options) as express:
        assert express.models.generate_content(model=FLASH, contents="Why is the sea salty?").text == whole.text
    paths = {e["path"] for e in settled(server.base_url, test_id)}
    assert f"/v1beta1/projects/p/locations/us-central1/publishers/google/models/{FLASH}:generateContent" in paths
    assert f"/v1beta1/publishers/google/models/{FLASH}:generateContent" in paths


def test_claude_on_vertex_through_anthropic_vertex(server: Server) -> None:
    with anthropic.AnthropicVertex(
        region="us-east5", project_id="p", access_token="ya29.test", base_url=f"{server.base_url}/v1", max_retries=0
    ) as vertex:
        asked: list[anthropic.types.MessageParam] = [{"role": "user", "content": "What is the weather in Paris?"}]
        weather: anthropic.types.ToolParam = {
            "name": "get_weather",
            "description": "The weather in a city",
            "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
        }
        made = vertex.messages.create(model="claude-sonnet-5", max_tokens=200, messages=asked, tools=[weather])
        assert made.id.startswith("msg_vrtx_01") and made.model == "claude-sonnet-5"
        used = [b for b in made.content if b.type == "tool_use"]
        assert used and used[0].id.startswith("toolu_vrtx_01") and used[0].input == {"city": "Paris"}
        with vertex.messages.stream(
            model="claude-sonnet-5", max_tokens=200, messages=[{"role": "user", "content": "hi"}]
        ) as s:
            final = s.get_final_message()
        assert final.content and final.stop_reason == "end_turn"
        counted = vertex.messages.count_tokens(model="claude-sonnet-5", messages=[{"role": "user", "content": "hi"}])
        assert counted.input_tokens == final.usage.input_tokens
        # Vertex's front end refuses a rate before Claude sees the request: in Google's shape, which the SDK maps
        # by its status.
        limited = vertex.with_options(default_headers={"x-emulator-fault": "status=429; retry_after=2"})
        with pytest.raises(anthropic.RateLimitError) as refused:
            limited.messages.create(
                model="claude-sonnet-5", max_tokens=20, messages=[{"role": "user", "content": "hi"}]
            )
        assert refused.value.body["error"]["status"] == "RESOURCE_EXHAUSTED"


JS = """
const { GoogleGenAI } = require("@google/genai");
(async () => {
  const ai = new GoogleGenAI({ apiKey: "k", httpOptions: { baseUrl: process.argv[1] } });
  const model = "gemini-2.5-flash";
  const whole = await ai.models.generateContent({ model, contents: "Why is the sky blue?" });
  let streamed = "";
  for await (const chunk of await ai.models.generateContentStream({ model, contents: "Why is the sky blue?" })) {
    streamed += chunk.text ?? "";
  }
  const tools = [{ functionDeclarations: [{ name: "get_weather", description: "The weather in a city",
    parametersJsonSchema: { type: "object", properties: { city: { type: "string" } } } }] }];
  const called = await ai.models.generateContent({
    model, contents: "What is the weather in Paris?", config: { tools } });
  const counted = await ai.models.countTokens({ model, contents: "Why is the sky blue?" });
  const vectors = await ai.models.embedContent({ model: "gemini-embedding-001", contents: ["one", "two"] });
  let refused = null;
  try {
    await ai.models.generateContent({ model, contents: "hi",
      config: { httpOptions: { headers: { "x-emulator-fault": "status=429; retry_after=2" } } } });
  } catch (e) { refused = e.status; }
  console.log(JSON.stringify({
    whole: whole.text, streamed, calls: called.functionCalls, counted: counted.totalTokens,
    prompt: whole.usageMetadata.promptTokenCount, sizes: vectors.embeddings.map((e) => e.values.length), refused,
  }));
})().catch((e) => { console.error(e); process.exit(1); });
"""
JS_GENAI = "3.6.1"


def test_the_js_client(server: Server) -> None:
    ran = browser.run_node(JS, server.base_url, pinned={"@google/genai": JS_GENAI})
    assert ran["whole"] and ran["streamed"] == ran["whole"]
    assert [(c["name"], c["args"]) for c in ran["calls"]] == [("get_weather", {"city": "Paris"})]
    assert ran["counted"] == ran["prompt"] and ran["sizes"] == [3072, 3072] and ran["refused"] == 429


def _report(server: Server, test_id: str, spec: str, retry: types.HttpRetryOptions | None) -> dict[str, Any]:
    """The client report after google-genai met the test's fault (twice) with these retry options."""
    status, _ = call(
        server.port, "POST", "/_emulator/faults", {"spec": spec, "times": 2}, {"x-emulator-test-id": test_id}
    )
    assert status == 201
    made = client(server, headers={"x-emulator-test-id": test_id}, retry_options=retry)
    with made, contextlib.suppress(errors.APIError):
        made.models.generate_content(model=FLASH, contents="Report on me")
    status, report = call(server.port, "GET", f"/_emulator/report?test_id={test_id}")
    assert status == 200
    return report  # type: ignore[no-any-return]


def test_the_client_report_judges_google_genai_by_googles_rules(server: Server, test_id: str) -> None:
    """By default the SDK makes one attempt: a 429 not retried is a finding. Told to retry, it backs off on its
    own clock and reads no `RetryInfo`: retrying sooner than it said is one. A 409 is not among the statuses
    Google's SDKs retry (OpenAI's and Anthropic's do)."""
    once = _report(server, f"{test_id}-once", "status=429", None)
    assert [f["rule"] for f in once["findings"]] == ["gave_up_on_retryable"]
    quick = types.HttpRetryOptions(attempts=3, initial_delay=0.05, max_delay=0.1, jitter=0)
    soon = _report(server, f"{test_id}-soon", "status=429; retry_after=2", quick)
    assert {f["rule"] for f in soon["findings"]} == {"retried_too_soon"}
    assert soon["calls"][0]["attempts"] == 3 and soon["calls"][0]["outcome"] == "answered"
    conflict = _report(server, f"{test_id}-409", "status=409", quick)
    assert conflict["findings"] == [] and conflict["calls"][0]["attempts"] == 1


def test_a_path_with_no_api_version_as_litellm_posts_it(server: Server) -> None:
    """LiteLLM's `gemini/…` with an `api_base` posts to `{api_base}/models/{model}:{method}`, inserting no version
    (reference §8), and sends `system_instruction`, `max_output_tokens` and `function_declarations` snake_case."""
    body = {
        "system_instruction": {"parts": [{"text": "Answer briefly."}]},
        "contents": [{"role": "user", "parts": [{"text": "What is the weather in Paris?"}]}],
        "tools": [{"function_declarations": [{"name": "get_weather", "parameters": {"type": "object"}}]}],
        "generationConfig": {"max_output_tokens": 200},
    }
    for where in ("", "/gemini"):
        status, answer = call(server.port, "POST", f"{where}/models/{FLASH}:generateContent", body, KEY)
        assert status == 200, answer
        (part,) = answer["candidates"][0]["content"]["parts"]
        assert part["functionCall"] == {"name": "get_weather", "args": {"city": "Paris"}}
    kind, raw = sse(server, f"/models/{FLASH}:streamGenerateContent?alt=sse", body)
    assert kind.startswith("text/event-stream") and '"functionCall"' in raw


def test_vertex_predict_embeds_as_its_older_models_answer(server: Server) -> None:
    """`:predict` (`text-embedding-004` on Vertex): `predictions` of `embeddings` with their statistics."""
    body: dict[str, Any] = {"instances": [{"content": "a tide pool"}, {"content": "quarterly revenue"}]}
    body |= {"parameters": {"outputDimensionality": 32}}
    path = "/v1/projects/p/locations/us-central1/publishers/google/models/text-embedding-004:predict"
    status, answer = call(server.port, "POST", path, body, {"authorization": "Bearer ya29.t"})
    assert status == 200, answer
    predictions = answer["predictions"]
    assert [len(p["embeddings"]["values"]) for p in predictions] == [32, 32]
    assert all(p["embeddings"]["statistics"]["token_count"] > 0 for p in predictions)
    assert predictions[0]["embeddings"]["statistics"]["truncated"] is False
    assert answer["metadata"]["billableCharacterCount"] == len("a tide pool") + len("quarterly revenue")
