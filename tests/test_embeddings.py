"""`POST /v1/embeddings`: the answer's bytes against the reference's example, the openai SDK unmodified (its
default base64 and float), the API's refusals in its words, and vectors whose geometry means something: a query
finds the passage about its topic, and one text has one vector in every call and process."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import openai
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.core import vectors
from emulator.dialects import openai_embeddings
from tests import side_venv
from tests.conftest import Server, call

# LangChain's vector store computes its cosines with numpy, which the agent loops' venv does without.
RETRIEVAL = ("langchain-retrieval-1.7.4", "langchain-openai==1.7.4", "numpy==2.4.6")

SMALL, LARGE, ADA = "text-embedding-3-small", "text-embedding-3-large", "text-embedding-ada-002"
PREFIXES = pytest.mark.parametrize("prefix", ["", "/openai"], ids=["default", "openai"])

# A corpus of this project's own: one passage per topic, and questions that name the topic in other words.
PASSAGES = {
    "lighthouse": "A lighthouse keeper trims the lamp's wick each evening so the beam can warn ships off the rocks.",
    "sourdough": "Sourdough needs a live starter of flour and water; feed it daily and let the dough prove slowly.",
    "glacier": "Glaciers carve valleys as the ice creeps downhill, dragging boulders that scrape the bedrock.",
    "mortgage": "A fixed-rate mortgage keeps the same monthly payment, while a variable loan follows the bank's rate.",
    "violin": "Violinists rosin the bow hair so it grips the strings; without rosin the violin barely sounds.",
    "compost": "Compost heaps turn kitchen scraps and leaves into soil when microbes get air, moisture and warmth.",
    "eclipse": "During a solar eclipse the moon passes between the sun and the earth and casts a moving shadow.",
    "vaccine": "A vaccine trains the immune system with a harmless piece of a virus, so antibodies are ready later.",
    "chess": "In chess, castling moves the king two squares toward a rook, which then jumps over to the king's side.",
    "kubernetes": "Kubernetes schedules containers onto nodes and restarts pods whose health checks keep failing.",
    "marathon": "Marathon runners build mileage over months and taper in the final weeks before the 42 km race.",
    "honeybee": "Worker honeybees forage nectar, return to the hive and dance to tell sisters where flowers bloom.",
}
QUESTIONS = [
    ("Why do lighthouses shine a beam at night?", "lighthouse"),
    ("What does a keeper of a lighthouse do?", "lighthouse"),
    ("how do I keep a sourdough starter alive", "sourdough"),
    ("Which valleys were carved by glaciers?", "glacier"),
    ("does my mortgage payment change with a variable rate", "mortgage"),
    ("why put rosin on a violin bow", "violin"),
    ("How does composting kitchen scraps work?", "compost"),
    ("What happens in a solar eclipse?", "eclipse"),
    ("how do vaccines help immune systems", "vaccine"),
    ("Explain castling in chess", "chess"),
    ("what restarts failing pods in kubernetes", "kubernetes"),
    ("How should I taper before a marathon race?", "marathon"),
    ("why do honeybees dance in the hive", "honeybee"),
    ("Where does honey come from? Bees and nectar", "honeybee"),
]


def sdk(server: Server, prefix: str, strict: bool = True) -> openai.OpenAI:
    """The openai SDK; strict validation only for float answers: the SDK validates a base64 answer against its
    float type before decoding it, so strict mode fails on the real API's base64 answer too."""
    return openai.OpenAI(
        base_url=f"{server.base_url}{prefix}/v1", api_key="sk-test", max_retries=0, _strict_response_validation=strict
    )


def test_the_answer_has_the_references_fields_in_order(server: Server) -> None:
    status, body = call(server.port, "POST", "/openai/v1/embeddings", {"model": SMALL, "input": "a tide pool"}, AUTH)
    assert status == 200
    # OpenAI's order (its API reference's example). The reference note's §4.2 example puts `model` before `data`: it
    # is the canned answer of the capture server the note's author wrote, not the API's; the SDKs read either.
    assert list(body) == ["object", "data", "model", "usage"]
    assert body["object"] == "list" and body["model"] == SMALL
    assert list(body["data"][0]) == ["object", "index", "embedding"]
    assert body["data"][0]["object"] == "embedding" and body["data"][0]["index"] == 0
    assert list(body["usage"]) == ["prompt_tokens", "total_tokens"]
    assert body["usage"]["prompt_tokens"] == body["usage"]["total_tokens"] == 3  # 11 characters, 4 a token


def test_base64_is_little_endian_float32_as_the_references_example() -> None:
    # providers-aws-azure-ollama.md §4.2: "AAAAPwAAgL4AAAA+" is [0.5, -0.25, 0.125]
    assert vectors.as_base64([0.5, -0.25, 0.125]) == "AAAAPwAAgL4AAAA+"


@PREFIXES
def test_the_sdks_default_base64_decodes_to_unit_vectors_of_the_models_size(server: Server, prefix: str) -> None:
    with sdk(server, prefix, strict=False) as client:
        raw = client.embeddings.with_raw_response.create(model=LARGE, input=["first text", "second one", "third"])
        sent = json.loads(raw.http_request.content)
        answer = raw.parse()
    assert sent["encoding_format"] == "base64"  # the SDK asks for base64 and decodes it
    assert [d.index for d in answer.data] == [0, 1, 2]
    for item in answer.data:
        values = list(item.embedding)
        assert len(values) == 3072
        assert math.isclose(sum(x * x for x in values), 1.0, rel_tol=1e-5)


@PREFIXES
def test_float_dimensions_and_token_arrays_through_the_strict_sdk(server: Server, prefix: str) -> None:
    with sdk(server, prefix) as client:
        floats = client.embeddings.create(model=SMALL, input="shorter please", dimensions=64, encoding_format="float")
        full = client.embeddings.create(model=SMALL, input="shorter please", encoding_format="float")
        ids = client.embeddings.create(model=SMALL, input=[[101, 2023, 7], [9, 9]], encoding_format="float")
    short = floats.data[0].embedding
    assert len(short) == 64 and math.isclose(sum(x * x for x in short), 1.0, rel_tol=1e-5)
    head = full.data[0].embedding[:64]  # a shortened vector is the full one's head, made unit length
    norm = math.sqrt(sum(x * x for x in head))
    assert all(math.isclose(a, b / norm, rel_tol=1e-4, abs_tol=1e-6) for a, b in zip(short, head, strict=True))
    assert len(ids.data) == 2 and ids.usage.prompt_tokens == 5  # a token array counts its ids


AUTH = {"authorization": "Bearer sk-test"}
REFUSALS = [
    ({"input": ""}, 400, "'$.input' is invalid", "input"),
    ({"input": []}, 400, "'$.input' is invalid", "input"),
    ({"input": ["fine", ""]}, 400, "'$.input' is invalid", "input"),
    ({"input": ["x"] * 2049}, 400, "'$.input' is invalid", "input"),
    ({"input": [1, "mixed"]}, 400, "'$.input' is invalid", "input"),
    ({"input": {"text": "x"}}, 400, "'$.input' is invalid", "input"),
    ({"input": "x", "dimensions": 0}, 400, "integer below minimum value", "dimensions"),
    ({"input": "x", "dimensions": 2000}, 400, "more than this model's 1536", "dimensions"),
    ({"input": "x", "model": ADA, "dimensions": 8}, 400, "This model does not support specifying dimensions.", None),
    ({"input": "x", "encoding_format": "int8"}, 400, "'encoding_format'", "encoding_format"),
    ({"input": "x", "truncate": True}, 400, "Unrecognized request argument supplied: truncate", "truncate"),
    ({"input": "x", "model": "text-embedding-4-huge"}, 404, "does not exist", None),
    ({"input": "x", "model": "gpt-4.1"}, 404, "not an embeddings model", "model"),
    ({"input": "word " * 7000}, 400, "maximum context length is 8192 tokens, however you requested 8750", "input"),
]


@pytest.mark.parametrize(("change", "status", "words", "param"), REFUSALS)
def test_the_public_profile_refuses_as_the_api_does(
    server: Server, change: dict[str, Any], status: int, words: str, param: str | None
) -> None:
    body = {"model": SMALL, **change}
    got, answer = call(server.port, "POST", "/openai/v1/embeddings", body, AUTH)
    assert got == status, answer
    error = answer["error"]
    assert words in error["message"], error
    assert set(error) == {"message", "type", "param", "code"}
    if param:
        assert error["param"] == param


def test_too_many_tokens_in_one_request_has_the_apis_own_type(server: Server) -> None:
    inputs = ["z" * 32000] * 40  # 8,000 tokens each: 320,000 in all
    status, answer = call(server.port, "POST", "/openai/v1/embeddings", {"model": SMALL, "input": inputs}, AUTH)
    assert status == 400
    assert answer["error"] == {
        "message": "Requested 320000 tokens, max 300000 tokens per request",
        "type": "max_tokens_per_request",
        "param": None,
        "code": "max_tokens_per_request",
    }


def test_the_default_profile_embeds_for_any_model(server: Server) -> None:
    with sdk(server, "") as client:
        answer = client.embeddings.create(model="my-local-embedder", input="anything", encoding_format="float")
    assert len(answer.data[0].embedding) == openai_embeddings.SIZE


def test_a_query_finds_the_passage_about_its_topic(server: Server) -> None:
    """Retrieval over a corpus of our own, through the server: the nearest passage is the question's topic."""
    names = list(PASSAGES)
    with sdk(server, "/openai") as client:
        stored = client.embeddings.create(model=SMALL, input=list(PASSAGES.values()), encoding_format="float").data
        asked = client.embeddings.create(model=SMALL, input=[q for q, _ in QUESTIONS], encoding_format="float").data
    right = 0
    for (_, topic), query in zip(QUESTIONS, asked, strict=True):
        scores = [vectors.cosine(query.embedding, p.embedding) for p in stored]
        right += names[scores.index(max(scores))] == topic
    assert right >= len(QUESTIONS) - 1, f"{right} of {len(QUESTIONS)}"


def test_related_texts_are_closer_than_unrelated_ones() -> None:
    def near(a: str, b: str) -> float:
        return vectors.cosine(vectors.embed(a, SMALL, 1536), vectors.embed(b, SMALL, 1536))

    assert near("embedding vectors", "embeddings of a vector") > near("embedding vectors", "a cat on a mat") + 0.2
    assert near("running shoes", "shoes for runners") > near("running shoes", "tax return deadline") + 0.2
    assert near("recieve the parcel", "receive the parcel") > 0.4  # a typo shares most of its trigrams
    assert abs(near("glacier ice", "mortgage rates")) < 0.15


@settings(max_examples=50, deadline=None)
@given(text=st.text(min_size=1, max_size=200), size=st.sampled_from([1536, 3072]), cut=st.integers(1, 1536))
def test_every_vector_is_unit_length_and_shortens_to_its_head(text: str, size: int, cut: int) -> None:
    full = vectors.embed(text, SMALL, size)
    short = vectors.embed(text, SMALL, size, cut)
    assert len(full) == size and len(short) == cut
    assert math.isclose(sum(x * x for x in full), 1.0, rel_tol=1e-9)
    head_norm = math.sqrt(sum(x * x for x in full[:cut]))
    if head_norm:
        assert all(math.isclose(a, b / head_norm, abs_tol=1e-12) for a, b in zip(short, full[:cut], strict=True))


def test_one_text_has_one_vector_in_every_call_and_process(server: Server) -> None:
    text = "The same words, wherever they are embedded."
    body = {"model": SMALL, "input": text}
    first = call(server.port, "POST", "/openai/v1/embeddings", body, AUTH)[1]["data"][0]["embedding"]
    again = call(server.port, "POST", "/v1/embeddings", body, AUTH)[1]["data"][0]["embedding"]
    assert first == again
    script = (
        "import json, sys; from emulator.core import vectors;"
        f"print(json.dumps(vectors.as_float32(vectors.embed({text!r}, {SMALL!r}, 1536))))"
    )
    for seed in ("1", "2"):  # another interpreter, another string hash: the same numbers
        env = {**os.environ, "PYTHONHASHSEED": seed}
        out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True)
        assert json.loads(out.stdout) == first


def test_a_fault_asked_for_is_raised_as_the_sdk_raises_it(server: Server) -> None:
    with sdk(server, "/openai") as client:
        with pytest.raises(openai.RateLimitError):
            client.embeddings.create(
                model=SMALL, input="x", encoding_format="float", extra_headers={"x-emulator-fault": "status=429"}
            )
        with pytest.raises(openai.APIConnectionError):
            client.embeddings.create(
                model=SMALL, input="x", encoding_format="float", extra_headers={"x-emulator-fault": "reset"}
            )


def test_a_scenario_matched_on_the_input_decides_what_it_is_embedded_as(server: Server) -> None:
    """A scenario that answers an embeddings request embeds each input as its `text`: here, two wordings the
    test wants treated as one."""
    scenario = {"name": "alias", "match": {"last_user": {"contains": "automobile"}}, "reply": {"text": "car"}}
    scoped = {"x-emulator-test-id": "embeddings-alias"}
    assert call(server.port, "POST", "/_emulator/scenarios", scenario, scoped)[0] == 201
    body = {"model": SMALL, "input": "automobile"}
    status, answer = call(server.port, "POST", "/openai/v1/embeddings", body, AUTH | scoped)
    assert status == 200
    assert answer["data"][0]["embedding"] == vectors.as_float32(vectors.embed("car", SMALL, 1536))


def test_a_langchain_retrieval_pipeline_puts_the_right_passage_in_the_chat_prompt(server: Server) -> None:
    """LangChain's in-memory vector store over `OpenAIEmbeddings`, with no scenario: the question retrieves its
    passage, which reaches the chat request's prompt."""
    python = side_venv.python(*RETRIEVAL)
    script = Path(__file__).parent / "frameworks" / "langchain_retrieval.py"
    question = "what keeps a violin bow gripping the strings?"
    passages = json.dumps(list(PASSAGES.values()))
    out = side_venv.run(python, script, f"{server.base_url}/_t/retrieval/openai/v1", question, passages)
    ran = json.loads(out.strip().splitlines()[-1])
    assert ran["retrieved"] == PASSAGES["violin"]
    assert ran["answer"]
    with urllib.request.urlopen(f"{server.base_url}/_emulator/requests?test_id=retrieval") as response:
        entries = json.load(response)["requests"]
    paths = sorted({e["path"] for e in entries})
    assert paths == ["/openai/v1/chat/completions", "/openai/v1/embeddings"], paths
    (asked,) = [e for e in entries if e["path"].endswith("/chat/completions")]
    assert PASSAGES["violin"] in json.dumps(asked["body"])


def test_a_scenario_gives_the_vectors_themselves(server: Server) -> None:
    """A scenario's text that is JSON numbers is the vector (one for every input, or one per input in turn)."""
    scoped = {"x-emulator-test-id": "embeddings-vectors"}
    scenario = {
        "name": "fixed",
        "match": {"last_user": {"contains": "pinned"}},
        "reply": {"text": "[[0.6, 0.8], [1, 0]]"},
    }
    assert call(server.port, "POST", "/_emulator/scenarios", scenario, scoped)[0] == 201
    body = {"model": SMALL, "input": ["pinned one", "pinned two", "pinned three"]}
    status, answer = call(server.port, "POST", "/openai/v1/embeddings", body, AUTH | scoped)
    assert status == 200
    assert [d["embedding"] for d in answer["data"]] == [[0.6, 0.8], [1.0, 0.0], [0.6, 0.8]]
