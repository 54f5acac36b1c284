"""OpenAI's embeddings (`POST /v1/embeddings`), as the API reference and the SDKs have them (reference
providers-aws-azure-ollama.md §4; docs/embeddings.md).

A request's inputs (a string, strings, token ids, arrays of token ids) are read as one user message each, so that
scenarios match them and the journal shows them; the answer is a `list` of one `embedding` per input, in order,
each the input's vector in the model's space (`core.vectors`: texts that share words lie close), as float numbers or
as base64 of little-endian float32s (`encoding_format`, which both openai SDKs ask for and decode), cut to
`dimensions` where the model takes that. A scenario's text, when one answers, is what every input is embedded as;
a recording of this very request answers with its own vectors.

Nothing streams: an answer is one body, which transport faults break as they break any other.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from emulator.core import identity, tokens, vectors
from emulator.core.conversation import Message, Prompt, Reply, Turn
from emulator.core.errors import EmulatorError, InvalidRequest, PerRequestLimit, openai_body
from emulator.core.fields import Fields, bearer
from emulator.core.sse import EVENT_STREAM, encode, loads
from emulator.rules import catalog, profiles

NAME = "openai_embeddings"
STREAM_HEADERS = EVENT_STREAM
OPENS = True  # nothing streams
KEEPALIVE = b""  # nothing streams
MALFORMED = b'{"object": "list", "data": [{"object": "embedding", "index": 0, "embedding": [0.1, '
FORMATS = ("float", "base64")
MOST_INPUTS = 2048
MOST_TOKENS = 300_000  # in one request, all inputs together
SIZE = 1536  # the vector of a model no catalog knows: text-embedding-3-small's
CONTEXT = 8192  # the most tokens one input may have, where no catalog says
INVALID_INPUT = "'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference."
Input = str | list[int]


def parse_request(
    body: Any, headers: Mapping[str, str], fingerprint: str = "", profile: str = profiles.DEFAULT
) -> Prompt:
    """Validate an embeddings request into a `Prompt` of one user message per input; the inputs themselves, their
    tokens, the vector's size and the encoding go in its `echo`."""
    f = Fields(body)
    model = f.need("model", str)
    inputs = _inputs(f.data.get("input"))
    encoding = f.choice("encoding_format", FORMATS, "float")
    asked = f.count("dimensions")
    known = catalog.catalog("openai")
    entry = known.get(model) if known else None
    size = entry.dimensions if entry and entry.dimensions else SIZE
    counts = tuple(len(i) if isinstance(i, list) else tokens.count(i) for i in inputs)
    total = sum(counts)
    if total > MOST_TOKENS:  # the API's words, with its own error type
        raise PerRequestLimit(
            f"Requested {total} tokens, max {MOST_TOKENS} tokens per request", code="max_tokens_per_request"
        )
    messages = tuple(Message("user", text=_shown(i)) for i in inputs)
    echo = {"inputs": inputs, "tokens": counts, "encoding_format": encoding, "size": size, "dimensions": asked}
    return Prompt(
        dialect=NAME,
        model=model,
        messages=messages,
        api_key=bearer(headers) or headers.get("api-key", ""),
        headers=headers,
        fingerprint=fingerprint,
        conversation=_conversation(model, messages),
        echo=echo,
        profile=profile,
    )


def _conversation(model: str, messages: tuple[Message, ...]) -> str:
    """The request's conversation key: its model and inputs, told apart from a chat of the same words."""
    return identity.conversation(Prompt(NAME, f"{model}\0{NAME}", messages))


def _inputs(given: Any) -> tuple[Input, ...]:
    """The inputs as a tuple of strings and token arrays; the API's one refusal for any other shape."""
    if type(given) is str:
        if not given:
            raise InvalidRequest(INVALID_INPUT, param="input")
        return (given,)
    if type(given) is not list or not 0 < len(given) <= MOST_INPUTS:
        raise InvalidRequest(INVALID_INPUT, param="input")
    if all(type(i) is int for i in given):  # one text, as token ids
        return (_token_ids(given),)
    found: list[Input] = []
    for item in given:
        if type(item) is str and item:
            found.append(item)
        elif type(item) is list and item:
            found.append(_token_ids(item))
        else:
            raise InvalidRequest(INVALID_INPUT, param="input")
    return tuple(found)


def _token_ids(given: list[Any]) -> list[int]:
    if not all(type(i) is int and i >= 0 for i in given):
        raise InvalidRequest(INVALID_INPUT, param="input")
    return given


def _shown(given: Input) -> str:
    """An input as its message's text: itself, or its token ids in words."""
    return given if isinstance(given, str) else "tokens: " + " ".join(map(str, given))


def input_tokens(prompt: Prompt) -> int:
    """The tokens a request's inputs count: `usage.prompt_tokens`."""
    return sum(prompt.echo.get("tokens", ()))


def render(prompt: Prompt, turn: Turn) -> dict[str, Any]:
    """The `list` of one `embedding` per input, in the encoding asked for, and the tokens it counted."""
    echo = prompt.echo
    inputs: tuple[Input, ...] = echo.get("inputs") or tuple(m.text for m in prompt.messages)
    encoding, size, dimensions = echo.get("encoding_format", "float"), echo.get("size", SIZE), echo.get("dimensions")
    data = []
    for index, values in enumerate(vectors.answer(turn.text, inputs, prompt.model, size, dimensions)):
        encoded = vectors.as_base64(values) if encoding == "base64" else values
        data.append({"object": "embedding", "index": index, "embedding": encoded})
    counted = turn.usage.input_tokens
    usage = {"prompt_tokens": counted, "total_tokens": counted}
    return {"object": "list", "data": data, "model": prompt.model, "usage": usage}


def render_stream(prompt: Prompt, turn: Turn) -> list[bytes]:
    """Nothing streams: the body, as the one piece a transport fault may break."""
    return [encode(render(prompt, turn))]


def render_error(error: EmulatorError) -> dict[str, Any]:
    return openai_body(error)


def read_response(body: bytes, stream: bool) -> Reply:
    """A recorded answer: its vectors are its own, replayed as recorded; for the conversation, nothing is said."""
    loads(body)  # a recording that is not JSON is not an answer
    return Reply()
