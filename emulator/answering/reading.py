"""Stage 1 of a request's way (`stages`, `counting`): the route's `Endpoint`, and the `Request` as read off the
ASGI channel, its body then parsed as JSON within bounds. The one stage that awaits the client."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from emulator.core import ids, wire
from emulator.core.errors import InvalidRequest, PayloadTooLarge
from emulator.core.sse import deeper_than, loads
from emulator.dialects import Dialect
from emulator.rules import catalog, profiles, validation
from emulator.rules.profiles import Profile
from emulator.state import Settings

MAX_NESTING = 128  # levels of arrays and objects a request body may nest
ENDPOINT_NAMES = {
    profiles.CHAT: "chat_completions",
    profiles.RESPONSES: "responses",
    profiles.MESSAGES: "messages",
    profiles.EMBEDDINGS: "embeddings",
    profiles.COMPLETIONS: "completions",
    profiles.OLLAMA_CHAT: "ollama_chat",
    profiles.OLLAMA_GENERATE: "ollama_generate",
    profiles.OLLAMA_EMBED: "ollama_embed",
    profiles.GEMINI: "generate_content",
    profiles.GEMINI_EMBED: "embed_content",
    profiles.BEDROCK_CONVERSE: "converse",
    profiles.BEDROCK_INVOKE: "invoke_model",
}
Receive = Callable[[], Awaitable[Mapping[str, Any]]]


@dataclass(frozen=True, slots=True)
class Endpoint:
    """What a route answers with, fixed when the app is built: a dialect, as a profile speaks it."""

    dialect: Dialect
    profile: Profile
    name: str = ""  # in the journal and the metrics: chat_completions, responses, messages, count_tokens
    strict: bool = True  # whether a public profile's catalog checks it (`catalog`)
    catalog: catalog.Catalog | None = field(init=False, default=None)  # the public profiles': what they check
    checks: str = field(init=False, default="")  # the name its checks know it by (`validation.checked_as`)
    placing: Placing | None = field(init=False, default=None)  # what the path adds to the body (`placing`)

    def __post_init__(self) -> None:
        if not self.name:
            object.__setattr__(self, "name", ENDPOINT_NAMES[self.dialect.NAME])
        object.__setattr__(self, "catalog", catalog.catalog(self.profile.name) if self.strict else None)
        object.__setattr__(self, "checks", validation.checked_as(self.dialect.NAME, self.name, self.profile.name))
        object.__setattr__(self, "placing", placing(self.dialect, self.profile))


Placing = Callable[[str, Any], Any]


def placing(dialect: Dialect, profile: Profile) -> Placing | None:
    """What puts into a body what its path says, as the API reads it, where the path says something: Azure's
    deployment (`/openai/deployments/{name}/…`) as the model; Gemini's model and method
    (`…/models/{model}:streamGenerateContent`), and Vertex's for Claude. None where the body says it all."""
    if profile.deployments:
        return profiles.deployed
    placed: Placing | None = getattr(dialect, "placed", None)
    if placed is None and profile.publishers:  # Vertex: Claude's model in the path
        return profiles.published
    return placed


@dataclass(slots=True, unsafe_hash=True)  # native, as conversation.py's hot values are: see its docstring
class Request:
    """What stage 1 read: the method, the path, the headers by name, the body, and the request's identity (the
    seed's digest of its path and body: the root of the answer's ids)."""

    method: str
    path: str
    headers: dict[str, str]
    raw: bytes
    fingerprint: str

    def __init__(self, method: str, path: str, headers: dict[str, str], raw: bytes, fingerprint: str) -> None:
        self.method = method
        self.path = path
        self.headers = headers
        self.raw = raw
        self.fingerprint = fingerprint


async def read(
    endpoint: Endpoint, scope: Mapping[str, Any], receive: Receive, settings: Settings, aside: Aside | None = None
) -> Request:
    """The request as sent, refused before its body is read when the profile does not serve the endpoint
    or no key came with it; its body read straight off the ASGI channel, refused past the size limit."""
    dialect, profile = endpoint.dialect, endpoint.profile
    path = scope["path"]
    profiles.serves(profile, dialect.NAME, path)
    # By name, the last of a repeated header winning; ASGI header names are lower-case already.
    headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
    profiles.authenticate(profile, dialect.NAME, headers, scope.get("query_string", b""))
    limit = settings.max_body_bytes
    try:
        body = await wire.body(receive, limit, headers.get("content-length", ""))
    except ConnectionError:
        raise InvalidRequest("The client disconnected before sending the whole body.") from None
    if body is None:
        raise PayloadTooLarge(f"The request body is larger than the limit of {limit} bytes.")
    away, seed = aside_for(aside, len(body)), settings.seed
    fingerprint = ids.digest(seed, path, body) if away is None else await away(ids.digest, seed, path, body)
    return Request(scope["method"], path, headers, body, fingerprint)


# Bytes of a request's body past which the work in proportion to it (its digest, its parse, its conversation's key)
# runs in a worker thread: a 29 MB body held the loop half a second, and nothing else was answered meanwhile.
LARGE = 1 << 20
Aside = Callable[..., Awaitable[Any]]  # `asyncio.to_thread`, as the HTTP layer gives it


def aside_for(aside: Aside | None, size: int) -> Aside | None:
    """Where the work in proportion to a body of `size` bytes runs: `aside` (a worker thread: the state's, which
    the HTTP layer sets) past `LARGE`, else None, in the loop's turn (no coroutine more for a small request). The
    thread holds the interpreter as the loop does, but hands it over every few milliseconds
    (`sys.getswitchinterval`), so that the loop answers the other requests between."""
    return aside if size > LARGE else None


def json_body(raw: bytes) -> Any:
    """The body as JSON, or the dialect's 400: not JSON, or nested past `MAX_NESTING`."""
    try:
        body = loads(raw)
    except (ValueError, UnicodeError, RecursionError) as exc:  # RecursionError: nested past the parser's depth
        raise InvalidRequest(
            "We could not parse the JSON body of your request. The API expects a JSON payload, "
            f"but what was sent was not valid JSON ({exc}).",
            code="invalid_json",
        ) from None
    # Nesting is bounded so that no later step (keys, schemas, echoes) recurses past Python's stack; only a
    # body with enough brackets to nest that deep is walked.
    if raw.count(b"[") + raw.count(b"{") > MAX_NESTING and deeper_than(body, MAX_NESTING):
        raise InvalidRequest(f"The request body nests arrays and objects more than {MAX_NESTING} levels deep.")
    return body
