"""Gemini's embeddings (reference providers-google.md §6): `:embedContent` (one `content`; `{"embedding": {"values":
[…]}}`) and `:batchEmbedContents` (`requests`, each a content; `{"embeddings": [{"values": […]}, …]}`, in order),
which the SDKs call even for one text. Vertex puts each request's options in `embedContentConfig`; the Gemini API at
the request's top. The vectors are `core.vectors`', in the model's size, cut to `outputDimensionality`."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from emulator.core import identity, tokens, vectors
from emulator.core.conversation import Message, Prompt, Reply, Turn
from emulator.core.errors import EmulatorError, InvalidRequest
from emulator.core.fields import bearer
from emulator.core.sse import EVENT_STREAM, dumps, encode, loads
from emulator.dialects.gemini import proto, rendering
from emulator.dialects.gemini.request import model_of
from emulator.dialects.gemini.request import placed as placed
from emulator.rules import profiles

NAME = profiles.GEMINI_EMBED
OPENS, KEEPALIVE, MALFORMED = False, rendering.KEEPALIVE, rendering.MALFORMED
STREAM_HEADERS = EVENT_STREAM
# The vector sizes of Google's embedding models (their model cards); any other model: gemini-embedding-001's.
SIZES = {"gemini-embedding-001": 3072, "text-embedding-004": 768, "text-embedding-005": 768, "embedding-001": 768}
SIZE = 3072


def parse_request(
    body: Any, headers: Mapping[str, str], fingerprint: str = "", profile: str = profiles.DEFAULT
) -> Prompt:
    if not isinstance(body, dict):
        raise InvalidRequest("Invalid JSON payload received. Expected an object.")
    model = model_of(body)
    if "instances" in body:  # Vertex's `:predict`
        return _predicted(body, headers, fingerprint, profile, model)
    batch = "requests" in body
    asked = proto.list_of(body, "requests", "") if batch else [body]
    if batch and not asked:
        raise InvalidRequest("* BatchEmbedContentsRequest.requests: requests is not specified\n", param="requests")
    inputs, sizes = [], set()
    for index, one in enumerate(asked):
        at = f"requests[{index}]" if batch else ""
        if not isinstance(one, dict):
            raise proto.invalid(at, f"Invalid value (type), expected an object, got {dumps(one)}")
        content = proto.object_of(one, "content", at)
        if not content:
            raise InvalidRequest(f"* EmbedContentRequest.{at + '.' if at else ''}content: content is not specified\n")
        parts = proto.list_of(content, "parts", f"{at}.content" if at else "content")
        inputs.append("".join(str(proto.get(p, "text") or "") for p in parts if isinstance(p, dict)))
        options = proto.object_of(one, "embedContentConfig", at) or one
        dimensions = proto.get(options, "outputDimensionality")
        sizes.add(dimensions if isinstance(dimensions, int) and not isinstance(dimensions, bool) else None)
    return _prompt(
        model,
        inputs,
        sizes.pop() if len(sizes) == 1 else None,
        "batch" if batch else "one",
        headers,
        fingerprint,
        profile,
    )


def _predicted(
    body: Mapping[str, Any], headers: Mapping[str, str], fingerprint: str, profile: str, model: str
) -> Prompt:
    """Vertex's `:predict` for its older embedding models (`text-embedding-004`, `-005`), as LiteLLM and the
    Vertex SDKs call it: `instances` of `{"content"}`, `parameters.outputDimensionality` (reference §6)."""
    instances = proto.list_of(body, "instances", "")
    if not instances:
        raise InvalidRequest("* PredictRequest.instances: instances is not specified\n", param="instances")
    inputs = [str(i.get("content") or "") if isinstance(i, dict) else str(i) for i in instances]
    dimensions = proto.get(proto.object_of(body, "parameters", ""), "outputDimensionality")
    size = dimensions if isinstance(dimensions, int) and not isinstance(dimensions, bool) else None
    return _prompt(model, inputs, size, "predict", headers, fingerprint, profile)


def _prompt(
    model: str,
    inputs: list[str],
    dimensions: int | None,
    form: str,
    headers: Mapping[str, str],
    fingerprint: str,
    profile: str,
) -> Prompt:
    messages = tuple(Message("user", text=text) for text in inputs)
    echo = {"inputs": tuple(inputs), "size": SIZES.get(model, SIZE), "dimensions": dimensions, "form": form}
    return Prompt(
        dialect=NAME,
        model=model,
        messages=messages,
        api_key=headers.get("x-goog-api-key", "") or bearer(headers),
        headers=headers,
        fingerprint=fingerprint,
        conversation=identity.conversation(Prompt(NAME, f"{model}\0{NAME}", messages)),
        echo=echo,
        profile=profile,
    )


def render(prompt: Prompt, turn: Turn) -> dict[str, Any]:
    echo = prompt.echo
    made = vectors.answer(turn.text, echo["inputs"], prompt.model, echo["size"], echo["dimensions"])
    if echo["form"] == "batch":
        return {"embeddings": [{"values": values} for values in made]}
    if echo["form"] == "predict":
        counted = [tokens.count(text) for text in echo["inputs"]]
        predictions = [
            {"embeddings": {"values": values, "statistics": {"token_count": count, "truncated": False}}}
            for values, count in zip(made, counted, strict=True)
        ]
        return {"predictions": predictions, "metadata": {"billableCharacterCount": sum(map(len, echo["inputs"]))}}
    return {"embedding": {"values": made[0] if made else []}}


def render_stream(prompt: Prompt, turn: Turn) -> Iterator[bytes]:
    """Nothing streams: the body, as the one piece a transport fault may break."""
    yield encode(render(prompt, turn))


def render_error(error: EmulatorError) -> dict[str, Any]:
    return rendering.render_error(error)


def read_response(body: bytes, stream: bool) -> Reply:
    """A recorded answer: its vectors are its own, replayed as recorded; for the conversation, nothing is said."""
    loads(body)  # a recording that is not JSON is not an answer
    return Reply()
