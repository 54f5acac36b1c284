"""Provider profiles: what differs between the upstreams the seeds document, as data and a few functions.

A profile is chosen for the whole server (`emulator serve --profile inferel`) or per request by path
prefix (`/inferel/v1/chat/completions`); plain `/v1` uses the server's profile. The profiles differ
in the endpoints they serve, their documented models, Inferel's `model:pool` suffix and its prompt
cache (a `CacheModel`: the caches are `caches.py`'s), and Infercom's Chat Completions shapes, validation
and error bodies (seed 003). The dialects read these fields to render; this module knows no dialect.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import parse_qs

from emulator.core import ids
from emulator.core.conversation import Timing, Turn
from emulator.core.errors import Forbidden, InvalidRequest, NotFound, Unauthorized
from emulator.core.fields import bearer
from emulator.rules.caches import CacheModel

# One name a line: a tuple's targets, read by a module on an import cycle, are of a type mypyc cannot determine (and
# mypyc checks every module it compiles as one cycle, in an order that shifts as modules come and go).
CHAT = "openai_chat"
RESPONSES = "openai_responses"
MESSAGES = "anthropic_messages"
EMBEDDINGS = "openai_embeddings"
COMPLETIONS = "openai_completions"
OLLAMA_CHAT = "ollama_chat"
OLLAMA_GENERATE = "ollama_generate"
OLLAMA_EMBED = "ollama_embed"
GEMINI = "gemini"  # Gemini's generateContent (`dialects/gemini`)
GEMINI_EMBED = "gemini_embed"  # and its embedContent
GOOGLE = (GEMINI, GEMINI_EMBED)  # Google's dialects: a key in `x-goog-api-key` or `?key=`, errors as google.rpc's
BEDROCK_CONVERSE = "bedrock_converse"  # Bedrock Runtime's Converse (`dialects/bedrock`)
BEDROCK_INVOKE = "bedrock_invoke"  # and its InvokeModel, for Claude
AWS = (BEDROCK_CONVERSE, BEDROCK_INVOKE)  # SigV4-signed, errors named in `x-amzn-ErrorType`
VECTORS = (EMBEDDINGS, OLLAMA_EMBED, GEMINI_EMBED)  # the dialects that answer with vectors, not words
RETRY_MS = 250  # what each upstream retry adds to the answer's latency


@dataclass(frozen=True, slots=True)
class Profile:
    name: str
    dialects: tuple[str, ...]
    models: tuple[str, ...]
    pools: bool = False  # Inferel: a `model:pool` suffix picks a resource group
    cache: CacheModel | None = None  # Inferel: `prompt_cache_key` (else `user`) groups requests for caching
    upstream_retries: int = 0  # Inferel: transient upstream failures retried on alternative capacity
    doc: str = ""  # which seed documents it
    # --- what it keeps between calls (`answering/recall.py`); the seeds' upstreams keep nothing ---
    stored_responses: bool = False  # Responses' `store` (on by default), `previous_response_id`, `item_reference`
    threads: bool = False  # Messages' message threads (`thread`, the `message-threads-2026-08-12` beta)
    breakpoints: bool = False  # Anthropic's prompt cache: `cache_control` breakpoints written and read back
    # Images by URL or file id, files and PDF documents, as the public APIs take them (an image is never fetched:
    # it counts as an image seen); the seeds take base64 images only.
    remote_media: bool = False
    # Azure OpenAI: a deployment (its name in the path, `/openai/deployments/{name}/…`) is the model; any name is
    # deployed; answers carry its content filters' results (all safe).
    deployments: bool = False
    content_filters: bool = False
    keyless: bool = False  # Ollama: no key is asked for
    publishers: bool = False  # Vertex AI: the model in the path, `…/publishers/anthropic/models/{model}:rawPredict`
    id_mark: str = ""  # in Messages' ids after the prefix: Vertex's `msg_vrtx_01…`, `toolu_vrtx_01…`
    # --- Chat Completions shapes (Infercom, seed 003) ---
    reasoning_field: str = "reasoning_content"  # Infercom: `message.reasoning` / `delta.reasoning`
    # OpenAI: the model reasons but shows none of it (Chat: no reasoning field; Responses: a reasoning item
    # with a summary only when `reasoning.summary` asks); its tokens are still counted.
    hidden_reasoning: bool = False
    thinks_unasked: bool = True  # Messages without `thinking` think all the same (Inferam); Anthropic: no
    signatures: bool = False  # thinking blocks carry an opaque signature (Anthropic); Inferam's are empty
    stop_sequence: bool = False  # a matched stop sequence is reported (Anthropic); Inferam: always null
    headers: Mapping[str, str] = field(default_factory=dict)  # sent with every answer
    processing_ms: bool = False  # `openai-processing-ms`: how long the answer took to generate (OpenAI)
    system_fingerprint: str | None = None  # one backend name for every model (Infercom: `fastcoe`), else `fp_…`
    uuid_ids: bool = False  # completion ids as UUIDs (Infercom), not `chatcmpl-…`
    float_created: bool = False  # `created` with a fraction of a second (Infercom)
    whole_tool_calls: bool = False  # each streamed tool call in one chunk with id, type, name and arguments
    timing_usage: bool = False  # Infercom's usage: time to first token, tokens per second, start and end…
    stream_usage: bool = False  # the `choices: []` usage chunk ends every stream, asked for or not
    refusal: bool = True  # `refusal: null` in messages and the first delta, as OpenAI sends (Infercom: none)
    annotations: bool = False  # a Chat message's `annotations: []` (OpenAI's: its web search's citations go there)
    service_tier: str = ""  # the tier an answer says it ran on (OpenAI: `default`; Anthropic's usage: `standard`)
    finish_content: bool = False  # the chunk with `finish_reason` says `content: ""` (Infercom), not `{}`
    channels: bool = False  # a reasoning model's deltas name their channel: `analysis`, then `final` (Infercom)
    finish_reasons: tuple[str, ...] = ("stop", "length", "tool_calls", "content_filter")  # others become `stop`
    request_id: str = "x-request-id"  # the response header naming the request (Infercom: `inference-id`; Ollama: none)
    # how rate limits are reported: "openai", "infercom" (per minute and per day), or "none" (Ollama: no headers,
    # its 429 alone)
    rate_headers: str = "openai"
    nominal: Timing = Timing()  # the speed usage reports when a request sets no pacing
    # --- validation ---
    efforts: tuple[str, ...] | None = None  # the `reasoning_effort` values accepted; None: the dialect's own
    max_tools: int | None = None
    max_choices: int = 1  # `n` up to this many; 1: `n` is ignored
    logprobs: bool = False  # `logprobs` and `top_logprobs` answered (OpenAI); else ignored (Inferam, seed 000)
    top_k: tuple[int, int] | None = None  # the accepted range of `top_k`; None: ignored
    # model (or "*", any other) → how it thinks: "flag" (only with `chat_template_kwargs.enable_thinking`),
    # "effort" (honours `reasoning_effort`, default medium), "asked" (as asked, reasoning by default),
    # "off" (never); a model without a rule reasons by default and ignores the effort.
    thinking: Mapping[str, str] | None = None
    # --- errors: status → "text" (text/plain body) or "simple" (`{"error": "…"}`); others the dialect's JSON ---
    errors: Mapping[int, str] = field(default_factory=dict)
    error_messages: Mapping[int, str] = field(default_factory=dict)  # what a scripted error says by default

    @property
    def own(self) -> tuple[str, ...]:
        """Request fields this profile validates itself rather than as the dialect does."""
        return ("reasoning_effort",) if self.efforts is not None else ()


PROFILES = {
    "inferam": Profile(
        "inferam",
        (CHAT, RESPONSES, MESSAGES, EMBEDDINGS, COMPLETIONS),  # the last two: extensions no seed documents
        ("DeepSeek-V4.1-Flash-1017",),
        # The seeds' usage examples report cached tokens (1,792 of 2,048) and document no rule: OpenAI's automatic
        # prefix cache, which their counts fit (1,024 tokens at least, blocks of 128).
        cache=CacheModel(block=128, minimum=1024, ttl=600.0, keyless="~automatic"),
        doc="seeds 000 (Chat Completions), 001 (Responses), 004 (Messages)",
    ),
    "inferel": Profile(
        "inferel",
        (CHAT,),
        ("claude-sonnet-4.6",),
        pools=True,
        cache=CacheModel(),
        upstream_retries=2,
        doc="seed 002 (Chat Completions with prompt caching and pools)",
    ),
    "infercom": Profile(
        "infercom",
        (CHAT,),
        ("MiniMax-M2.7", "gpt-oss-120b", "gemma-4-31B-it"),
        doc="seed 003 (Chat Completions, an OpenAPI document)",
        reasoning_field="reasoning",
        system_fingerprint="fastcoe",
        uuid_ids=True,
        float_created=True,
        whole_tool_calls=True,
        timing_usage=True,
        stream_usage=True,
        refusal=False,
        finish_content=True,
        channels=True,
        finish_reasons=("stop", "length", "tool_calls"),  # its enum has no content_filter
        request_id="inference-id",
        rate_headers="infercom",
        nominal=Timing(ttft_ms=63, tokens_per_second=248.0),  # the seed's example response
        efforts=("low", "medium", "high"),
        max_tools=128,
        max_choices=8,
        top_k=(1, 100),
        thinking={"gemma-4-31B-it": "flag", "gpt-oss-120b": "effort"},
        errors={400: "text", 401: "text", 500: "text", 503: "text", 404: "simple", 408: "simple", 410: "simple"},
        error_messages={401: "unauthorized", 503: "Service Temporarily Unavailable"},
    ),
    "openai": Profile(
        "openai",
        (CHAT, RESPONSES, EMBEDDINGS, COMPLETIONS),
        ("gpt-5", "gpt-4.1"),
        doc="the public OpenAI API",
        hidden_reasoning=True,
        thinking={"gpt-4.1": "off", "gpt-4.1-mini": "off", "gpt-4o": "off", "gpt-4o-mini": "off", "*": "asked"},
        headers={"openai-version": "2020-10-01"},
        # Automatic prompt caching: a prompt's prefix seen before, from 1,024 tokens in steps of 128, for every
        # prompt (`prompt_cache_key` only routes it), kept in memory some ten minutes (the prompt caching guide).
        cache=CacheModel(block=128, minimum=1024, ttl=600.0, keyless="~automatic"),
        annotations=True,
        service_tier="default",
        processing_ms=True,
        stored_responses=True,
        remote_media=True,
        max_choices=128,  # the API reference's range for `n`
        logprobs=True,
    ),
    "anthropic": Profile(
        "anthropic",
        (MESSAGES,),
        ("claude-sonnet-5", "claude-opus-5", "claude-haiku-4-5"),  # none the anthropic SDK calls deprecated
        doc="the public Anthropic API",
        thinks_unasked=False,
        signatures=True,
        stop_sequence=True,
        threads=True,
        remote_media=True,
        breakpoints=True,
        service_tier="standard",
    ),
}
PROFILES["azure"] = replace(
    PROFILES["openai"],
    name="azure",
    doc="Azure OpenAI: deployments in the path, `api-version`, content filter results",
    headers={},
    processing_ms=False,
    service_tier="",
    request_id="apim-request-id",
    deployments=True,
    content_filters=True,
    # Azure's gateway answers these in its own shape (`{"error": {"code": "401", "message": …}}`)
    errors={401: "azure", 429: "azure"},
    error_messages={
        401: "Access denied due to missing subscription key. Make sure to include subscription key when making "
        "requests to an API.",
    },
)
PROFILES["ollama"] = Profile(
    "ollama",
    (OLLAMA_CHAT, OLLAMA_GENERATE, OLLAMA_EMBED),
    ("llama3.2", "nomic-embed-text"),
    doc="Ollama's native API (`/api/chat`, `/api/generate`, `/api/embed`): NDJSON, no key, any model pulled",
    thinks_unasked=False,
    keyless=True,
    request_id="",
    rate_headers="none",
)
PROFILES["gemini"] = Profile(
    "gemini",
    (GEMINI, GEMINI_EMBED),
    ("gemini-2.5-flash", "gemini-2.5-pro", "gemini-2.5-flash-lite", "gemini-3-pro-preview", "gemini-embedding-001"),
    doc="the Gemini API (google-genai): generateContent, streamGenerateContent, countTokens, embeddings, at "
    "/v1beta/models/{model}:{method} and /v1/…",
    thinks_unasked=True,  # 2.5 and later think by default, their thoughts shown only when asked for
    signatures=True,
    request_id="",  # no response header names the request
    rate_headers="none",  # a 429 says when to retry in its body (`RetryInfo`)
)
PROFILES["vertex"] = replace(
    PROFILES["anthropic"],
    name="vertex",
    dialects=(GEMINI, GEMINI_EMBED, MESSAGES),
    models=(*PROFILES["gemini"].models, *PROFILES["anthropic"].models),
    doc="Vertex AI: Gemini at …/publishers/google/models/{model}:{method}, Claude's Messages at "
    "…/publishers/anthropic/models/{model}:rawPredict",
    threads=False,
    publishers=True,
    id_mark="vrtx_",
    request_id="",
    rate_headers="none",
    # Its front end answers these before the model, in Google's shape (the anthropic SDK maps them by status).
    errors={401: "google", 403: "google", 404: "google", 429: "google"},
)
PROFILES["bedrock"] = replace(
    PROFILES["anthropic"],
    name="bedrock",
    dialects=AWS,
    models=(
        "anthropic.claude-sonnet-4-5-20250929-v1:0",
        "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        "anthropic.claude-haiku-4-5-20251001-v1:0",
        "amazon.nova-pro-v1:0",
        "meta.llama3-3-70b-instruct-v1:0",
    ),
    doc="Bedrock Runtime: Converse and ConverseStream, and Claude's InvokeModel, at /model/{modelId}/{operation}",
    threads=False,
    breakpoints=False,
    id_mark="bdrk_",
    request_id="x-amzn-requestid",
    rate_headers="none",
)
DEFAULT = "inferam"
DEPLOYMENTS = "/deployments/"


def deployed(path: str, body: Any) -> Any:
    """An Azure request's body with its deployment (in the path) as its model, as Azure reads it: the body's
    `model`, if any, is what the SDK put in the path, or is ignored."""
    if DEPLOYMENTS not in path or type(body) is not dict:
        return body
    name = path.split(DEPLOYMENTS, 1)[1].split("/", 1)[0]
    return {**body, "model": name}


def published(path: str, body: Any) -> Any:
    """A Vertex request's body with the model its path names (`…/models/{model}:rawPredict`), as Vertex reads it:
    the anthropic SDK takes `model` out of the body and puts it there. Claude's count keeps it in the body
    (`…/models/count-tokens:rawPredict`)."""
    if type(body) is not dict:
        return body
    name = path.rpartition("/models/")[2].partition(":")[0]
    return body if not name or name == "count-tokens" else {**body, "model": name}


def serves(profile: Profile, dialect: str, path: str) -> None:
    """Raise the profile's 404 when it does not serve this endpoint."""
    if dialect not in profile.dialects:
        raise NotFound(f"Invalid URL (POST {path}): the {profile.name} profile does not serve it.", code="unknown_url")


# What an upstream says to a request without credentials, where its profile has no words of its own. OpenAI's
# is its message's first two sentences (the rest points at its website), with `code: null`: a missing key,
# unlike a wrong one (`invalid_api_key`, wire-formats.md §4.1), has no code.
NO_KEY = {
    MESSAGES: "x-api-key header is required",  # Anthropic's
    # Google's, with status PERMISSION_DENIED (reference providers-google.md §5.2)
    GEMINI: "Method doesn't allow unregistered callers (callers without established identity). Please use API Key "
    "or other form of API consumer identity to call this API.",
    CHAT: "You didn't provide an API key. You need to provide your API key in an Authorization header using "
    "Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",  # OpenAI's
}


# A SigV4 `Authorization` as AWS's SDKs sign it (any credentials will do: its shape is checked, not its secret).
SIGV4 = re.compile(
    r"AWS4-HMAC-SHA256 Credential=[^/\s,]+/\d{8}/[\w-]+/[\w-]+/aws4_request,\s*"
    r"SignedHeaders=[a-z0-9;._-]+,\s*Signature=[0-9a-f]{64}"
)


def signed(headers: Mapping[str, str]) -> None:
    """Raise AWS's 403 for a request not signed with SigV4 (or a Bedrock API key, a bearer), or signed in a shape
    AWS refuses: the words are its gateway's."""
    authorization = headers.get("authorization", "").strip()
    if not authorization:
        raise Forbidden("Missing Authentication Token", code="MissingAuthenticationTokenException")
    if authorization.lower().startswith("bearer ") or (SIGV4.fullmatch(authorization) and headers.get("x-amz-date")):
        return
    raise Forbidden(
        "Authorization header requires 'Credential', 'Signature', 'SignedHeaders' and an 'X-Amz-Date' header, in "
        "AWS Signature Version 4's form.",
        code="IncompleteSignatureException",
    )


KEY_HEADERS = ("x-api-key", "api-key", "x-goog-api-key")  # Anthropic's, Azure's, Google's; OpenAI's is a bearer


def authenticate(profile: Profile, dialect: str, headers: Mapping[str, str], query: bytes = b"") -> None:
    """Raise the 401 that every upstream answers a request with no key at all (Google's: a 403); any key will do
    (Ollama asks for none). Google's key may come in the query string (`?key=`), as curl examples send it."""
    if dialect in AWS:
        signed(headers)
        return
    if profile.keyless or bearer(headers) or any(headers.get(name, "").strip() for name in KEY_HEADERS):
        return
    if dialect in GOOGLE:
        if b"key=" in query and any(parse_qs(query.decode("latin-1")).get("key", ())):
            return
        raise Forbidden(NO_KEY[GEMINI])
    raise Unauthorized(profile.error_messages.get(401) or NO_KEY.get(dialect, NO_KEY[CHAT]))


def effort(profile: Profile, model: str, asked: str | None, enable_thinking: bool | None) -> str | None:
    """The reasoning effort the model runs with, "none" for no thinking; a profile without per-model
    rules takes what was asked. Infercom: reasoning cannot be switched off on `gpt-oss-120b` (`none`
    and `off` are refused), Gemma thinks only when asked through its chat template."""
    if profile.efforts is not None and asked is not None and asked not in profile.efforts:
        if asked in ("none", "off"):
            raise InvalidRequest(
                f"Invalid 'reasoning_effort': '{asked}'. Reasoning cannot be switched off; 'low' is the minimum.",
                param="reasoning_effort",
                code="invalid_value",
            )
        raise InvalidRequest(
            f"Invalid 'reasoning_effort': '{asked}'. Allowed values are {', '.join(profile.efforts)}.",
            param="reasoning_effort",
            code="invalid_value",
        )
    if profile.thinking is None:
        return asked
    rule = profile.thinking.get(model, profile.thinking.get("*"))
    if rule == "flag":
        return None if enable_thinking else "none"
    if rule == "effort":
        return asked or "medium"
    if rule == "off":
        return "none"
    if rule == "asked":
        return asked
    return None  # reasons by default; the effort is accepted for compatibility and ignored


def answer_headers(profile: Profile, turn: Turn) -> dict[str, str]:
    """The headers the profile sends with every answer: OpenAI's version, and the time the answer took at
    its pacing (the request's, else the profile's nominal speed)."""
    headers = dict(profile.headers)
    if profile.processing_ms:
        pace = turn.timing or profile.nominal
        generating = turn.usage.output_tokens / pace.tokens_per_second if pace.tokens_per_second else 0.0
        headers["openai-processing-ms"] = str(max(1, round(pace.latency_ms + pace.ttft_ms + generating * 1000)))
    return headers


def request_id(profile: Profile | None, dialect: str, root: str, attempt: int = 0) -> dict[str, str]:
    """The header naming a response: Anthropic's `request-id: req_011…` (what its SDK reads), a profile's own
    (Infercom's `inference-id`, a UUID), else `x-request-id`. Every attempt at a request has its own, derived
    from `root` and the `attempt` number."""
    root = ids.nth(root, attempt)
    if dialect == MESSAGES:
        return {"request-id": ids.make("req_011", root, length=21)}
    if profile and not profile.request_id:  # Ollama names no response
        return {}
    if profile and profile.request_id != "x-request-id":
        return {profile.request_id: ids.uuid(root, profile.request_id)}
    return {"x-request-id": ids.make("req_", root)}


def base_model(profile: Profile, model: str) -> str:
    """The model without Inferel's `:pool` suffix, which routes to a resource group and is not a model."""
    return model.partition(":")[0] if profile.pools and ":" in model else model
