"""Ollama's embeddings: `POST /api/embed` (`input`: a string or strings; `{"model", "embeddings": [[…]], …}`) and
the older `POST /api/embeddings` (`prompt`: one string; `{"embedding": […]}`), with the vectors of
`core.vectors` (unit length, as Ollama normalizes them), in the model's size where it is a known embedding model."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from emulator.core import identity, tokens, vectors
from emulator.core.conversation import Message, Prompt, Reply, Turn
from emulator.core.errors import EmulatorError, InvalidRequest
from emulator.core.fields import Fields, bearer
from emulator.core.sse import encode, loads
from emulator.dialects.ollama import common
from emulator.dialects.ollama.common import KEEPALIVE as KEEPALIVE
from emulator.dialects.ollama.common import MALFORMED as MALFORMED
from emulator.dialects.ollama.common import NDJSON
from emulator.dialects.ollama.common import OPENS as OPENS
from emulator.rules import profiles

NAME = profiles.OLLAMA_EMBED
STREAM_HEADERS = NDJSON
# The vector sizes of the embedding models Ollama's library lists most; any other model: nomic-embed-text's.
SIZES = {"nomic-embed-text": 768, "mxbai-embed-large": 1024, "all-minilm": 384, "snowflake-arctic-embed": 1024}
SIZE = 768


def parse_request(
    body: Any, headers: Mapping[str, str], fingerprint: str = "", profile: str = profiles.DEFAULT
) -> Prompt:
    f = Fields(body)
    model = common.model(f)
    legacy = "input" not in f.data and "prompt" in f.data  # `/api/embeddings`
    given = f.data.get("prompt") if legacy else f.data.get("input")
    inputs = _inputs(given)
    messages = tuple(Message("user", text=text) for text in inputs)
    size = SIZES.get(model.partition(":")[0], SIZE)
    echo = {
        "inputs": inputs,
        "tokens": tuple(tokens.count(text) for text in inputs),
        "size": size,
        "dimensions": f.count("dimensions"),
        "legacy": legacy,
    }
    return Prompt(
        dialect=NAME,
        model=model,
        messages=messages,
        api_key=bearer(headers),
        headers=headers,
        fingerprint=fingerprint,
        conversation=identity.conversation(Prompt(NAME, f"{model}\0{NAME}", messages)),
        echo=echo,
        profile=profile,
    )


def _inputs(given: Any) -> tuple[str, ...]:
    if isinstance(given, str):
        return (given,)
    if isinstance(given, list) and all(isinstance(i, str) for i in given):
        return tuple(given)
    raise InvalidRequest("invalid input type", param="input")  # Ollama's words


def render(prompt: Prompt, turn: Turn) -> dict[str, Any]:
    echo = prompt.echo
    made = vectors.answer(turn.text, echo["inputs"], prompt.model, echo["size"], echo["dimensions"])
    if echo.get("legacy"):
        return {"embedding": made[0] if made else []}
    timing = common.metrics(turn)
    return {"model": turn.model, "embeddings": made} | {
        "total_duration": timing["load_duration"] + timing["prompt_eval_duration"],
        "load_duration": timing["load_duration"],
        "prompt_eval_count": turn.usage.input_tokens,
    }


def render_stream(prompt: Prompt, turn: Turn) -> list[bytes]:
    """Nothing streams: the body, as the one piece a transport fault may break."""
    return [encode(render(prompt, turn))]


def render_error(error: EmulatorError) -> dict[str, Any]:
    return common.render_error(error)


def read_response(body: bytes, stream: bool) -> Reply:
    loads(body)
    return Reply()
