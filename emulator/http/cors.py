"""CORS on the emulated API routes, as the public APIs answer a page's calls: a web page on another origin (a
front-end dev server, the SDKs' `dangerouslyAllowBrowser`) may call them.

Only the API's own paths (`/v1/…`, `/PROFILE/v1/…`, with a test's `/_t/ID` before them) answer CORS: never the
admin API (`/_emulator/…`), `/metrics` or the inspector, whose preflights stay refused, so that a page a user opens
cannot read the journal or post scenarios (their Host and Origin checks, `http/admin.py`).

Which origins: loopback ones by default (`http://localhost:5173`, `http://127.0.0.1:3000`, `http://[::1]:8080`, any
port, http or https), and those `--cors-origin` names (`*`: any). A preflight from one is answered 204 with what it
asked for; from any other, 403 with no CORS headers, saying how to allow it. An answer to an allowed origin names it
in `Access-Control-Allow-Origin` and exposes the headers the SDKs read (the request id, `retry-after`, the rate
limits).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping, Sequence
from typing import Any
from urllib.parse import urlsplit

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Send = Callable[[Message], Awaitable[None]]

LOOPBACK = ("localhost", "127.0.0.1", "[::1]", "::1")
METHODS = b"GET, POST, DELETE, OPTIONS"
# What a client's code reads of an answer: the SDKs' request ids and retry hints, and the rate limits.
EXPOSED = (
    b"x-request-id, request-id, inference-id, retry-after, retry-after-ms, openai-version, openai-processing-ms, "
    b"openai-organization, x-ratelimit-limit-requests, x-ratelimit-limit-tokens, x-ratelimit-remaining-requests, "
    b"x-ratelimit-remaining-tokens, x-ratelimit-reset-requests, x-ratelimit-reset-tokens, "
    b"anthropic-ratelimit-requests-limit, anthropic-ratelimit-requests-remaining, anthropic-ratelimit-requests-reset, "
    b"anthropic-ratelimit-tokens-limit, anthropic-ratelimit-tokens-remaining, anthropic-ratelimit-tokens-reset, "
    b"anthropic-ratelimit-input-tokens-limit, anthropic-ratelimit-input-tokens-remaining, "
    b"anthropic-ratelimit-input-tokens-reset, anthropic-ratelimit-output-tokens-limit, "
    b"anthropic-ratelimit-output-tokens-remaining, anthropic-ratelimit-output-tokens-reset, x-emulator-source"
)
MAX_AGE = b"600"


class Cors:
    """The origins allowed, and what a request from one gets."""

    def __init__(self, origins: Sequence[str], profiles: Sequence[str]) -> None:
        self.any = "*" in origins
        self.origins = frozenset(o.rstrip("/").lower() for o in origins if o != "*")
        # Azure's (`/openai/deployments/…`, `/azure/openai/…`), Ollama's (`/api/…`, `/ollama/api/…`), Google's
        # (`/v1beta/models/…`, Vertex's `/v1beta1/…`, under `/gemini` and `/vertex`) and Bedrock's paths too
        self.prefixes = (
            *(f"/{name}/" for name in profiles),
            *("/openai/", "/azure/", "/api/", "/ollama/", "/v1beta/", "/v1alpha/", "/v1beta1/", "/model/"),
        )

    def api(self, path: str) -> bool:
        """Whether `path` is one of the emulated APIs' (after a test's scope is taken off it)."""
        return path.startswith("/v1/") or path.startswith(self.prefixes)

    def allows(self, origin: str) -> bool:
        if self.any or origin.lower() in self.origins:
            return True
        try:
            parts = urlsplit(origin)
        except ValueError:
            return False
        host = (parts.hostname or "").lower()
        return parts.scheme in ("http", "https") and (host in LOOPBACK or f"[{host}]" in LOOPBACK)

    async def preflight(self, scope: Scope, origin: str, send: Send) -> None:
        """The answer to `OPTIONS`: 204 with what the preflight asked for, or 403 for an origin not allowed."""
        if not self.allows(origin):
            body = (
                f"CORS: the origin {origin} is not allowed; loopback origins are, and `emulator serve "
                f"--cors-origin {origin}` allows this one.\n"
            ).encode()
            headers = [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode())]
            await send({"type": "http.response.start", "status": 403, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
        asked = dict(scope["headers"]).get(b"access-control-request-headers", b"")
        headers = [
            *self._named(origin),
            (b"access-control-allow-methods", METHODS),
            (b"access-control-allow-headers", asked or b"*"),
            (b"access-control-max-age", MAX_AGE),
            (b"content-length", b"0"),
        ]
        await send({"type": "http.response.start", "status": 204, "headers": headers})
        await send({"type": "http.response.body", "body": b""})

    def sending(self, origin: str, send: Send) -> Send:
        """`send`, with the CORS headers added to the answer's start (or its whole, the server's own message)."""
        extra = [*self._named(origin), (b"access-control-expose-headers", EXPOSED)]

        async def sent(message: Message) -> None:
            if "headers" in message:
                message["headers"] = [*message["headers"], *extra]
            await send(message)

        return sent

    @staticmethod
    def _named(origin: str) -> list[tuple[bytes, bytes]]:
        return [(b"access-control-allow-origin", origin.encode("latin-1", "replace")), (b"vary", b"origin")]


def origin_of(scope: Scope) -> str | None:
    """The request's `Origin`, if it sent one (a browser's cross-origin call does)."""
    for name, value in scope["headers"]:
        if name == b"origin":
            return str(value.decode("latin-1"))
    return None
