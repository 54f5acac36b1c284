"""An error as the client gets it: the dialect's body in the profile's shape, with the headers that name it.

Every refusal and every scripted error status goes through `error_answer`, whichever stage raised it.
"""

from __future__ import annotations

from collections.abc import Mapping

from emulator.core import ids
from emulator.core.conversation import Fault
from emulator.core.errors import EmulatorError
from emulator.core.sse import encode
from emulator.core.wire import Whole, whole
from emulator.dialects import Dialect, anthropic_messages, gemini, openai_chat
from emulator.dialects.bedrock import converse
from emulator.dialects.ollama import chat as ollama_chat
from emulator.rules import profiles

TEXT = b"text/plain; charset=utf-8"
AWS_ERRORS = "http://internal.amazon.com/coral/com.amazon.bedrock/"  # the namespace after an AWS error's code


def error_answer(
    dialect: Dialect,
    error: EmulatorError,
    root: str = "",
    extra: Mapping[str, str] = {},
    profile: profiles.Profile | None = None,
) -> Whole:
    """`error` in `dialect`'s shape, or the profile's own (Infercom: text or `{"error": "…"}`, Azure's gateway:
    `{"error": {"code": "429", "message": …}}`, Vertex's front end: Google's); `root` seeds the
    request id (else the error does), `extra` adds headers (`retry-after`, rate limits)."""
    headers = dict(extra)
    root = root or ids.digest(error.status, error.message)
    if profile and profile.request_id not in ("x-request-id", ""):  # a profile that names every response (Infercom)
        headers.setdefault(profile.request_id, ids.uuid(root, profile.request_id))
    shape = profile.errors.get(error.status) if profile else None
    if shape == "text":  # Infercom: 400, 401, 500 and 503 answer in plain text
        return whole(error.message.encode(), headers, error.status, TEXT)
    if shape == "simple":  # Infercom's SimpleError: 404, 408 and 410
        return whole(encode({"error": error.message}), headers, error.status)
    if shape == "google":  # Vertex's front end, before Claude: Google's shape (reference providers-google.md §7)
        return whole(encode(gemini.render_error(error)), headers, error.status)
    if shape == "azure":  # Azure's gateway: the status as the code (reference providers-aws-azure-ollama.md §2.4)
        return whole(encode({"error": {"code": str(error.status), "message": error.message}}), headers, error.status)
    body = dialect.render_error(error)
    if dialect.NAME in profiles.AWS:  # AWS names the error in a header; botocore reads its code there
        headers.setdefault("x-amzn-errortype", f"{converse.error_code(error)}:{AWS_ERRORS}")
    if dialect.NAME == profiles.MESSAGES:  # Anthropic repeats the request id in the error body
        headers.setdefault("request-id", profiles.request_id(profile, dialect.NAME, root)["request-id"])
        body["request_id"] = headers["request-id"]
    return whole(encode(body), headers, error.status)


def retry_headers(fault: Fault) -> dict[str, str]:
    """What a scripted error tells the client about retrying it."""
    headers = {}
    if fault.retry_after is not None:
        headers["retry-after"] = f"{fault.retry_after:g}"
    if fault.retry_after_ms is not None:
        headers["retry-after-ms"] = str(fault.retry_after_ms)
    if fault.should_retry is not None:
        headers["x-should-retry"] = "true" if fault.should_retry else "false"
    return headers


# Where a path is Google's: its API versions (`/v1/` is OpenAI's and Anthropic's too), Vertex's publishers, a method.
GOOGLE_PATHS = ("/v1beta/", "/v1alpha/", "/v1beta1/", "/publishers/", "/gemini/")


# The methods Google's paths end in (`models/{model}:generateContent`); an OpenAI fine-tune's id has colons too.
GOOGLE_METHODS = frozenset(
    {"generateContent", "streamGenerateContent", "countTokens", "embedContent", "batchEmbedContents", "predict"}
    | {"rawPredict", "streamRawPredict"}
)


def google_method(path: str) -> bool:
    """Whether a path ends in one of Google's methods on a model (`…/models/{model}:generateContent`)."""
    return "/models/" in path and path.rpartition(":")[2] in GOOGLE_METHODS


def google(path: str, headers: Mapping[str, str], query: bytes = b"") -> bool:
    """Whether a request is a Google client's: on one of Google's paths, or with its key (`x-goog-api-key`, or
    `?key=`: `GET /v1/models` is OpenAI's, Anthropic's and Google's list alike)."""
    return (
        any(mark in path for mark in GOOGLE_PATHS)
        or google_method(path)
        or "x-goog-api-key" in headers
        or query.startswith(b"key=")
        or b"&key=" in query
    )


def dialect_for(path: str, headers: Mapping[str, str], query: bytes = b"") -> Dialect:
    """The dialect to answer a path no endpoint owns in: Google's for its paths and keys (`google`), Bedrock's for its
    paths and SigV4 signatures, Anthropic's for a Messages path or a client that sends its headers, else OpenAI's."""
    if path.startswith(("/api/", "/ollama/")):  # Ollama's `{"error": "…"}`
        return ollama_chat
    if google(path, headers, query):
        return gemini
    if path.startswith(("/model/", "/bedrock/")) or headers.get("authorization", "").startswith("AWS4-"):
        return converse
    anthropic = path.startswith("/v1/messages") or "anthropic-version" in headers or "x-api-key" in headers
    return anthropic_messages if anthropic else openai_chat
