"""The Starlette app: routes, one handler for every dialect, and error rendering in one place.

This is the only module that awaits the client. Everything it calls is synchronous code over frozen
data: the dialect parses and renders, the answerer picks and shapes the answer.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from emulator import ids, scenarios
from emulator.answer import Answerer
from emulator.conversation import Prompt, Turn
from emulator.dialects import anthropic_messages, openai_chat, openai_responses
from emulator.errors import (
    EmulatorError,
    InternalError,
    InvalidRequest,
    MethodNotAllowed,
    NotFound,
    PayloadTooLarge,
    UpstreamError,
)
from emulator.generate import Writer
from emulator.sse import encode, loads

DEFAULT_MODELS = ("DeepSeek-V4.1-Flash-1017",)
MODELS_CREATED = 1760659200  # 2025-10-17, the date in the documented model's name
JSON = "application/json"


class Dialect(Protocol):
    def parse_request(self, body: Any, headers: Mapping[str, str], fingerprint: str = "") -> Prompt: ...
    def render(self, prompt: Prompt, turn: Turn) -> dict[str, Any]: ...
    def render_stream(self, prompt: Prompt, turn: Turn) -> list[bytes]: ...
    def render_error(self, error: EmulatorError) -> dict[str, Any]: ...


@dataclass(frozen=True)
class Settings:
    """What `emulator serve` configures; every field has a default that suits tests."""

    scenarios: Sequence[Path] = field(default_factory=tuple)
    seed: int = 0
    frozen_time: int | None = None  # `created` for every response; None follows the real clock
    max_body_bytes: int = 32 * 1024 * 1024


def create_app(settings: Settings = Settings()) -> Starlette:
    """The emulator as an ASGI app; scenario files are read and validated once, here."""
    book = scenarios.load(settings.scenarios)
    answerer = Answerer(book, Writer(settings.seed), Counter())
    models = tuple(dict.fromkeys(DEFAULT_MODELS + book.models))

    def clock() -> int:
        return settings.frozen_time if settings.frozen_time is not None else int(time.time())

    def endpoint(dialect: Dialect) -> Any:
        async def handle(request: Request) -> Response:
            try:
                raw = await _read_body(request, settings.max_body_bytes)
                fingerprint = ids.digest(settings.seed, request.scope["path"], raw)
                headers = dict(request.headers.items())  # ASGI header names are lower-case already
                prompt = dialect.parse_request(_json(raw), headers, fingerprint)
                turn = answerer(prompt, clock())
            except EmulatorError as error:
                return _error(dialect, error)
            except Exception as exc:  # a bug of ours: still an answer in the dialect's shape
                return _error(dialect, InternalError(f"The emulator failed: {type(exc).__name__}: {exc}"))
            headers = _request_id(dialect, fingerprint) | {"x-emulator-source": turn.source}
            if turn.fault and not prompt.stream:  # nothing streamed yet: the failure is the HTTP answer
                fault = UpstreamError(turn.fault.status, turn.fault.message, code=turn.fault.code)
                return _error(dialect, fault, fingerprint)
            if prompt.stream:
                return StreamingResponse(
                    _play(dialect.render_stream(prompt, turn)),
                    media_type="text/event-stream; charset=utf-8",
                    headers=headers | {"cache-control": "no-cache"},
                )
            return Response(encode(dialect.render(prompt, turn)), media_type=JSON, headers=headers)

        return handle

    async def list_models(request: Request) -> Response:
        if _anthropic(request):  # the Anthropic SDK and Claude Code's model discovery (wire-formats.md §3.5)
            created = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(MODELS_CREATED))
            listed = [
                {"type": "model", "id": m, "display_name": m, "created_at": created, "lifecycle": "active"}
                for m in models
            ]
            # `has_more: false`, or the SDK's auto-pagination keeps asking with `?after_id=`.
            page = {"data": listed, "has_more": False, "first_id": models[0], "last_id": models[-1]}
            request_id = _request_id(anthropic_messages, ids.digest(settings.seed, str(request.url)))
            return Response(encode(page), media_type=JSON, headers=request_id)
        data = [{"id": m, "object": "model", "created": MODELS_CREATED, "owned_by": "emulator"} for m in models]
        return Response(encode({"object": "list", "data": data}), media_type=JSON)

    async def count_tokens(request: Request) -> Response:
        dialect = anthropic_messages
        try:
            raw = await _read_body(request, settings.max_body_bytes)
            headers = {k.lower(): v for k, v in request.headers.items()}
            counted = dialect.count_tokens(_json(raw), headers)
        except EmulatorError as error:
            return _error(dialect, error)
        except Exception as exc:  # a bug of ours: still an answer in the dialect's shape
            return _error(dialect, InternalError(f"The emulator failed: {type(exc).__name__}: {exc}"))
        fingerprint = ids.digest(settings.seed, request.scope["path"], raw)
        return Response(encode(counted), media_type=JSON, headers=_request_id(dialect, fingerprint))

    async def health(request: Request) -> Response:
        return Response(encode({"status": "ok", "scenarios": len(book.scenarios)}), media_type=JSON)

    async def reset(request: Request) -> Response:
        answerer.reset()
        return Response(encode({"reset": True}), media_type=JSON)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        method, path = request.method, request.url.path
        dialect: Dialect = anthropic_messages if _anthropic(request) else openai_chat
        if exc.status_code == 405:
            return _error(dialect, MethodNotAllowed(f"Method {method} is not allowed for {path}."))
        return _error(dialect, NotFound(f"Invalid URL ({method} {path}).", code="unknown_url"))

    routes = [
        Route("/v1/chat/completions", endpoint(openai_chat), methods=["POST"]),
        Route("/v1/responses", endpoint(openai_responses), methods=["POST"]),
        Route("/v1/messages", endpoint(anthropic_messages), methods=["POST"]),  # `?beta=true` too: a query
        Route("/v1/messages/count_tokens", count_tokens, methods=["POST"]),
        Route("/v1/models", list_models, methods=["GET"]),
        Route("/health", health, methods=["GET"]),
        Route("/emulator/reset", reset, methods=["POST"]),
    ]
    app = Starlette(routes=routes, exception_handlers={HTTPException: http_error})
    app.state.book = book
    app.state.answerer = answerer
    return app


async def _read_body(request: Request, limit: int) -> bytes:
    """The whole body, refused past `limit` bytes, read straight off the ASGI channel (the hot path)."""
    declared = request.headers.get("content-length", "")
    body, more = b"", True
    too_large = declared.isdigit() and int(declared) > limit
    while more and not too_large:
        message = await request.receive()
        if message["type"] == "http.disconnect":
            raise InvalidRequest("The client disconnected before sending the whole body.")
        body += message.get("body", b"")
        more = message.get("more_body", False)
        too_large = len(body) > limit
    if too_large:
        raise PayloadTooLarge(f"The request body is larger than the limit of {limit} bytes.")
    return body


def _json(raw: bytes) -> Any:
    try:
        return loads(raw)
    except (ValueError, UnicodeError) as exc:
        raise InvalidRequest(
            "We could not parse the JSON body of your request. The API expects a JSON payload, "
            f"but what was sent was not valid JSON ({exc}).",
            code="invalid_json",
        ) from None


def _anthropic(request: Request) -> bool:
    """Whether to answer in Anthropic's shape: a Messages path, or a client that sends its headers."""
    headers = request.headers
    return request.url.path.startswith("/v1/messages") or "anthropic-version" in headers or "x-api-key" in headers


def _request_id(dialect: Dialect, root: str) -> dict[str, str]:
    """The request id header: Anthropic's `request-id: req_011…` (what its SDK reads), else `x-request-id`."""
    if dialect is anthropic_messages:
        return {"request-id": ids.make("req_011", root, length=21)}
    return {"x-request-id": ids.make("req_", root)}


def _error(dialect: Dialect, error: EmulatorError, root: str = "") -> Response:
    body = dialect.render_error(error)
    headers = {}
    if dialect is anthropic_messages:  # Anthropic repeats the request id in the error body
        headers = _request_id(dialect, root or ids.digest(error.status, error.message))
        body["request_id"] = headers["request-id"]
    return Response(encode(body), status_code=error.status, media_type=JSON, headers=headers)


async def _play(events: list[bytes]) -> AsyncIterator[bytes]:
    for event in events:
        yield event
