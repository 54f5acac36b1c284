"""The Starlette app: routes, one handler for every dialect, and error rendering in one place.

This is the only module that awaits the client. Everything it calls is synchronous code over frozen
data: the dialect parses and renders, the answerer picks and shapes the answer.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from emulator import faults, ids, limits, player, profiles, recordings, report, scenarios
from emulator.answer import TEST_ID, Answerer, finish
from emulator.conversation import Fault, Prompt, Timing, Turn
from emulator.dialects import anthropic_messages, openai_chat, openai_responses
from emulator.errors import (
    EmulatorError,
    InternalError,
    InvalidRequest,
    MethodNotAllowed,
    NotFound,
    PayloadTooLarge,
    UpstreamError,
    model_output_message,
)
from emulator.faults import Step
from emulator.generate import Writer
from emulator.journal import Entry, Journal, key_hint
from emulator.player import Played
from emulator.sse import encode, loads

MODELS_CREATED = 1760659200  # 2025-10-17, the date in the documented model's name
JSON = "application/json"
JSON_BYTES = JSON.encode()
FAULT_HEADER = "x-emulator-fault"
TIMING_HEADER = "x-emulator-timing"
# Which dialect reads a recording back, by its path from /v1/ on: for replay in another dialect.
READERS = {"/v1/chat/completions": openai_chat, "/v1/responses": openai_responses, "/v1/messages": anthropic_messages}
# A plain answer, sent as it is: its raw headers and its body (status 200).
Plain = tuple[list[tuple[bytes, bytes]], bytes]


class Dialect(Protocol):
    NAME: str
    KEEPALIVE: bytes  # what the dialect's upstream sends during a long pause
    MALFORMED: bytes  # a frame its clients parse, with broken JSON in it

    def parse_request(
        self, body: Any, headers: Mapping[str, str], fingerprint: str = "", profile: str = profiles.DEFAULT
    ) -> Prompt: ...
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
    fault: Fault | None = None  # for every request (`--fault`); a scenario's or a header's wins
    timing: Timing | None = None  # for every request (`--timing`)
    limits: limits.Limits = limits.Limits()  # per API key; none by default: no 429s unless asked
    profile: str = profiles.DEFAULT  # the upstream plain /v1 stands in for; /NAME/v1 picks another
    recordings: Sequence[Path] = field(default_factory=tuple)  # cassettes (files or directories) to replay
    replay_speed: float = 1.0  # scales the recorded gaps: 0 replays as fast as possible
    strict: bool = False  # replay only: a request no recording matches is an error naming the nearest one


def create_app(settings: Settings = Settings()) -> Starlette:
    """The emulator as an ASGI app; scenario files are read and validated once, here."""
    book = scenarios.load(settings.scenarios)
    library = recordings.load(settings.recordings, READERS) if settings.recordings else None
    answerer = Answerer(book, Writer(settings.seed), Counter())
    journal = Journal()
    repeats = faults.Attempts()  # (test id, key, request) → attempts, for chaos
    limiter = limits.Limiter(settings.limits) if settings.limits else None
    caches = {p.name: profiles.PromptCache(p.cache) for p in profiles.PROFILES.values() if p.cache}
    default = profiles.PROFILES[settings.profile]

    def clock() -> int:
        return settings.frozen_time if settings.frozen_time is not None else int(time.time())

    def endpoint(dialect: Dialect, profile: profiles.Profile) -> _Endpoint:
        cache = caches.get(profile.name)

        async def handle(scope: Scope, receive: Receive, send: Send) -> None:
            """The hot path, in raw ASGI: no Request object, and a plain answer sent as two messages."""
            answer = await respond(scope, receive)
            if isinstance(answer, tuple):
                await send({"type": "http.response.start", "status": 200, "headers": answer[0]})
                await send({"type": "http.response.body", "body": answer[1]})
            else:
                await answer(scope, receive, send)

        async def respond(scope: Scope, receive: Receive) -> Plain | ASGIApp:
            method, path = scope["method"], scope["path"]
            headers: dict[str, str] = {}
            prompt: Prompt | None = None
            try:
                profiles.serves(profile, dialect.NAME, path)
                received = _headers(scope)
                profiles.authenticate(profile, dialect.NAME, received)
                raw = await _read_body(receive, received.get("content-length", ""), settings.max_body_bytes)
                fingerprint = ids.digest(settings.seed, path, raw)
                headers = received
                prompt = dialect.parse_request(_json(raw), headers, fingerprint, profile.name)
                if profile.pools:  # `model:pool` routes to a resource group; the model is the part before
                    prompt = replace(prompt, model=profiles.base_model(profile, prompt.model))
                fault, pace = _overrides(headers, settings)
                turn = None
                if library and not book.named(prompt):  # an explicit scenario, then a recording, then the rest
                    hit = library.find(method, path, raw)
                    if hit:
                        _log(method, path, headers, prompt, None, None, hit.status)
                        return recordings.played(hit, settings.replay_speed)
                    turn = _recorded(library, prompt)
                    if turn is None and settings.strict:
                        raise recordings.miss(library, method, path, raw)
                turn = turn or answerer(prompt, clock())
                if prompt.choices > 1:  # `n` (Infercom): the other choices
                    turn = replace(turn, alternatives=answerer.alternatives(prompt, turn, clock()))
                if cache:  # the profile's prompt cache decides how much of the input was cached
                    cached = min(cache.cached_tokens(prompt, time.time()), turn.usage.input_tokens)
                    turn = replace(turn, usage=replace(turn.usage, cached_tokens=max(cached, turn.usage.cached_tokens)))
                turn, rate_headers = _shape(dialect, profile, prompt, turn, fault, pace)
            except EmulatorError as error:
                _log(method, path, headers, prompt, None, None, error.status)
                return _error(dialect, error, profile=profile)
            except Exception as exc:  # a bug of ours: still an answer in the dialect's shape
                failed = InternalError(f"The emulator failed: {type(exc).__name__}: {exc}")
                return _error(dialect, failed, profile=profile)
            out = _request_id(dialect, fingerprint, profile)
            out["x-emulator-source"] = turn.source
            out |= rate_headers
            if profile.headers or profile.processing_ms:
                out |= profiles.answer_headers(profile, turn)
            return _respond(method, path, dialect, profile, prompt, turn, out, headers)

        return _Endpoint(handle)

    def _shape(
        dialect: Dialect,
        profile: profiles.Profile,
        prompt: Prompt,
        turn: Turn,
        fault: Fault | None,
        pace: Timing | None,
    ) -> tuple[Turn, dict[str, str]]:
        """The turn with its fault and pacing decided, and the rate-limit headers to send.

        The request's header wins over the scenario, the scenario over the CLI; a fault with a `rate`
        strikes as the seed, the request and its attempt decide; a profile that retries upstream failures
        (Inferel) may absorb one, at the cost of latency; a spent rate limit answers 429.
        """
        test_id = prompt.headers.get(TEST_ID, "")
        fault = fault or turn.fault or settings.fault
        pace = pace or turn.timing or settings.timing
        if fault and (fault.rate < 1 or (fault.at == "upstream" and profile.upstream_retries)):
            scope = (test_id, prompt.api_key, prompt.fingerprint)
            attempt = repeats.next(scope)
            if not faults.strikes(fault, settings.seed, prompt.fingerprint, attempt):
                fault = None
            else:
                saved, retries = faults.absorbed(
                    fault, profile.upstream_retries, settings.seed, prompt.fingerprint, attempt
                )
                if retries:  # the client waits while the provider retries
                    late = (pace.latency_ms if pace else 0) + retries * profiles.RETRY_MS
                    pace = replace(pace or Timing(), latency_ms=late)
                fault = None if saved else fault
        if fault is not turn.fault or pace is not turn.timing:
            turn = replace(turn, fault=fault, timing=pace)
        if not limiter:
            return turn, {}
        now = time.time()
        verdict = limiter.take((test_id, prompt.api_key), turn.usage.total_tokens, now)
        if dialect is anthropic_messages:
            rate_headers = limits.anthropic_headers(verdict, now)
        elif profile.rate_headers == "infercom":
            rate_headers = limits.infercom_headers(verdict, now)
        else:
            rate_headers = limits.openai_headers(verdict)
        if not verdict.allowed:
            wait = verdict.retry_after
            spent = Fault("status", status=429, message=verdict.message, retry_after=math.ceil(wait))
            turn = replace(turn, fault=replace(spent, retry_after_ms=math.ceil(wait * 1000)))
        return turn, rate_headers

    def _respond(
        method: str,
        path: str,
        dialect: Dialect,
        profile: profiles.Profile,
        prompt: Prompt,
        turn: Turn,
        out: dict[str, str],
        headers: dict[str, str],
    ) -> Plain | ASGIApp:
        """The answer, as the turn's fault and timing shape it; journalled before any of it runs."""
        fault, pace = turn.fault, turn.timing
        if not fault and not pace and not prompt.stream:  # the common answer: nothing to decide, nothing to play
            _log(method, path, headers, prompt, turn, None, 200)
            return _plain(out, encode(dialect.render(prompt, turn)))
        failing = fault and (
            fault.kind == "status"
            or (fault.kind == "stream_error" and not prompt.stream)
            or (fault.kind == "model_output" and dialect is not openai_chat)  # Chat's own answer; elsewhere a 500
        )
        silent = faults.before_response(fault)
        status = fault.status if fault and failing else None if silent else 200
        entry = _log(method, path, headers, prompt, turn, fault, status)

        def ended(who: str) -> None:
            journal.end(entry.id, who)

        steps: list[Step]
        if fault and failing:  # nothing streamed yet: the failure is the HTTP answer
            if fault.kind == "model_output":
                fault = replace(fault, message=model_output_message(fault, bool(turn.tool_calls)))
            if fault.message is None and fault.status in profile.error_messages:  # the profile's own wording
                fault = replace(fault, message=profile.error_messages[fault.status])
            error = UpstreamError.of(fault)
            response = _error(dialect, error, turn.id, out | _retry_headers(fault), profile)
            if not pace or not pace.latency_ms:
                return response
            return Played(
                [bytes(response.body)], response.status_code, response.headers, latency=pace.latency_ms / 1000
            )
        if fault and silent:  # no status line at all
            return player.before_response(fault.kind, ended)
        transport_fault = fault if fault and fault.kind not in ("stream_error", "model_output") else None
        if prompt.stream:
            events = dialect.render_stream(prompt, turn)
            out |= {"content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache"}
        else:
            body = encode(dialect.render(prompt, turn))
            if not transport_fault and not pace:  # a fault the body carries (Chat's model_output): nothing to play
                return _plain(out, body)
            events = [body]
            out |= {"content-type": JSON, "content-length": str(len(body))}
        steps = faults.plan(events, transport_fault, pace, dialect.KEEPALIVE, dialect.MALFORMED, ids.number(turn.id))
        return Played(steps, 200, out, latency=pace.latency_ms / 1000 if pace else 0.0, on_end=ended)

    def _recorded(library: recordings.Library, prompt: Prompt) -> Turn | None:
        """The same conversation recorded in any dialect, its answer rendered afresh at the recorded pace."""
        found = library.answer(prompt)
        if found is None:
            return None
        recording, reply = found
        reply = replace(reply, timing=recordings.pace(recording, settings.replay_speed))
        return finish(prompt, reply, created=clock(), source=f"recording {recording.source}")

    def _log(
        method: str,
        path: str,
        headers: Mapping[str, str],
        prompt: Prompt | None,
        turn: Turn | None,
        fault: Fault | None,
        status: int | None,
    ) -> Entry:
        attempt = headers.get("x-stainless-retry-count", "")
        retry_after = None
        if fault and fault.kind == "status":  # what the client is told to wait: retry-after-ms, else retry-after
            retry_after = fault.retry_after_ms / 1000 if fault.retry_after_ms is not None else fault.retry_after
        return journal.add(
            method=method,
            path=path,
            model=prompt.model if prompt else None,
            key=key_hint(prompt.api_key) if prompt else "",
            stream=bool(prompt and prompt.stream),
            source=turn.source if turn else None,
            fault=faults.describe(fault) if fault else None,
            status=status,
            attempt=int(attempt) if attempt.isdigit() else None,
            test_id=headers.get(TEST_ID, ""),
            request=prompt.fingerprint[:16] if prompt else "",
            kind=fault.kind if fault else None,
            retry_after=retry_after,
            retryable=report.retryable(fault.status, fault.should_retry) if fault and fault.kind == "status" else None,
        )

    def list_models(profile: profiles.Profile) -> Any:
        models = tuple(dict.fromkeys(profile.models + book.models))

        async def handle(request: Request) -> Any:
            dialect: Dialect = anthropic_messages if _anthropic(request) else openai_chat
            try:
                profiles.authenticate(profile, dialect.NAME, request.headers)
            except EmulatorError as error:
                return _error(dialect, error, profile=profile)
            hit = library.find("GET", request.scope["path"], b"") if library else None
            if hit:
                return recordings.played(hit, settings.replay_speed)
            response = _models(request, models)
            if profile.request_id != "x-request-id":  # a profile that names every response (Infercom)
                response.headers[profile.request_id] = ids.uuid(ids.digest(settings.seed, str(request.url)))
            return response

        return handle

    def _models(request: Request, models: tuple[str, ...]) -> Response:
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

    def count_tokens(profile: profiles.Profile) -> Any:
        async def handle(request: Request) -> Any:
            return await _count_tokens(request, profile)

        return handle

    async def _count_tokens(request: Request, profile: profiles.Profile) -> Any:
        dialect = anthropic_messages
        try:
            profiles.serves(profile, profiles.MESSAGES, request.scope["path"])
            profiles.authenticate(profile, profiles.MESSAGES, request.headers)
            raw = await _read_body(request.receive, request.headers.get("content-length", ""), settings.max_body_bytes)
            hit = library.find("POST", request.scope["path"], raw) if library else None
            if hit:
                return recordings.played(hit, settings.replay_speed)
            counted = dialect.count_tokens(_json(raw), dict(request.headers.items()))
        except EmulatorError as error:
            return _error(dialect, error)
        except Exception as exc:  # a bug of ours: still an answer in the dialect's shape
            return _error(dialect, InternalError(f"The emulator failed: {type(exc).__name__}: {exc}"))
        fingerprint = ids.digest(settings.seed, request.scope["path"], raw)
        return Response(encode(counted), media_type=JSON, headers=_request_id(dialect, fingerprint))

    async def health(request: Request) -> Response:
        return Response(encode({"status": "ok", "scenarios": len(book.scenarios)}), media_type=JSON)

    async def reset(request: Request) -> Response:
        test_id = _test_id(request)
        answerer.reset(test_id)
        journal.clear(test_id)
        for cache in caches.values():
            cache.reset()
        if limiter:
            limiter.reset(test_id)
        repeats.clear()
        return Response(encode({"reset": True, "test_id": test_id}), media_type=JSON)

    async def client_report(request: Request) -> Response:
        return Response(encode(report.grade(journal.entries(_test_id(request)))), media_type=JSON)

    async def requests(request: Request) -> Response:
        if request.method == "DELETE":
            journal.clear(_test_id(request))
            return Response(encode({"cleared": True}), media_type=JSON)
        return Response(encode({"requests": journal.find(dict(request.query_params))}), media_type=JSON)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        method, path = request.method, request.url.path
        dialect: Dialect = anthropic_messages if _anthropic(request) else openai_chat
        profile = profiles.PROFILES.get(path.split("/")[1])  # `/infercom/v1/…`: that profile's error shapes
        if exc.status_code == 405:
            return _error(dialect, MethodNotAllowed(f"Method {method} is not allowed for {path}."), profile=profile)
        return _error(dialect, NotFound(f"Invalid URL ({method} {path}).", code="unknown_url"), profile=profile)

    routes = []
    for prefix, profile in [("", default), *((f"/{p.name}", p) for p in profiles.PROFILES.values())]:
        routes += [
            Route(f"{prefix}/v1/chat/completions", endpoint(openai_chat, profile), methods=["POST"]),
            Route(f"{prefix}/v1/responses", endpoint(openai_responses, profile), methods=["POST"]),
            # `?beta=true` too: a query string
            Route(f"{prefix}/v1/messages", endpoint(anthropic_messages, profile), methods=["POST"]),
            Route(f"{prefix}/v1/messages/count_tokens", count_tokens(profile), methods=["POST"]),
            Route(f"{prefix}/v1/models", list_models(profile), methods=["GET"]),
        ]
    routes += [
        Route("/health", health, methods=["GET"]),
        Route("/_emulator/reset", reset, methods=["POST"]),
        Route("/_emulator/requests", requests, methods=["GET", "DELETE"]),
        Route("/_emulator/report", client_report, methods=["GET"]),
    ]
    answering = {route.path: route.endpoint.app for route in routes if isinstance(route.endpoint, _Endpoint)}
    app = _App(answering, routes=routes, exception_handlers={HTTPException: http_error})
    app.state.book = book
    app.state.answerer = answerer
    app.state.library = library
    return app


class _App(Starlette):
    """Starlette, which finds a POST to an answering endpoint (chat completions, responses, messages) by its
    exact path, before its middleware and router; everything else takes Starlette's way.

    Those layers cost 6 µs of a 24 µs haiku answer in process, and give it nothing: the endpoint answers its
    own errors in its dialect's shape; one it did not foresee reaches uvicorn, which logs it and answers 500
    as Starlette's error middleware would; a path or a method it does not serve is Starlette's to refuse.
    """

    def __init__(self, answering: Mapping[str, ASGIApp], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.answering = answering

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        endpoint = self.answering.get(scope["path"]) if scope["type"] == "http" and scope["method"] == "POST" else None
        if endpoint is None or scope.get("root_path"):  # mounted under a prefix: Starlette knows the route
            await super().__call__(scope, receive, send)
            return
        scope["app"] = self
        await endpoint(scope, receive, send)


class _Endpoint:
    """An ASGI app for a route: Starlette hands a class instance the raw scope, with no Request made."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.app(scope, receive, send)


def _plain(headers: Mapping[str, str], body: bytes) -> Plain:
    """A JSON answer with `headers`, as Starlette's `Response` would have sent it: its raw header list and body."""
    raw = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in headers.items()]
    return [*raw, (b"content-type", JSON_BYTES), (b"content-length", b"%d" % len(body))], body


def _headers(scope: Scope) -> dict[str, str]:
    """The request's headers by name, the last of a repeated one winning, as `dict(Request.headers)` has them
    (ASGI header names are lower-case already)."""
    return {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}


async def _read_body(receive: Receive, declared: str, limit: int) -> bytes:
    """The whole body, refused past `limit` bytes, read straight off the ASGI channel (the hot path)."""
    body, more = b"", True
    too_large = declared.isdigit() and int(declared) > limit
    while more and not too_large:
        message = await receive()
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


def _request_id(dialect: Dialect, root: str, profile: profiles.Profile | None = None) -> dict[str, str]:
    """The request id header: Anthropic's `request-id: req_011…` (what its SDK reads), a profile's own
    (Infercom's `inference-id`, a UUID), else `x-request-id`."""
    if dialect is anthropic_messages:
        return {"request-id": ids.make("req_011", root, length=21)}
    if profile and profile.request_id != "x-request-id":
        return {profile.request_id: ids.uuid(root, profile.request_id)}
    return {"x-request-id": ids.make("req_", root)}


def _test_id(request: Request) -> str | None:
    """The test scope an admin call names: `x-emulator-test-id`, or `?test_id=`; None for everything."""
    return request.headers.get(TEST_ID) or request.query_params.get("test_id")


def _overrides(headers: Mapping[str, str], settings: Settings) -> tuple[Fault | None, Timing | None]:
    """The fault and timing a request asks for in its headers (the same grammar as `--fault`)."""
    fault_spec, timing_spec = headers.get(FAULT_HEADER), headers.get(TIMING_HEADER)
    try:
        fault = faults.fault(faults.split_spec(fault_spec), FAULT_HEADER) if fault_spec else None
        pace = faults.timing(faults.split_spec(timing_spec), TIMING_HEADER) if timing_spec else None
    except faults.FaultError as exc:
        raise InvalidRequest(f"Invalid emulator header: {exc}", code="invalid_emulator_header") from None
    return fault, pace


def _retry_headers(fault: Fault) -> dict[str, str]:
    headers = {}
    if fault.retry_after is not None:
        headers["retry-after"] = f"{fault.retry_after:g}"
    if fault.retry_after_ms is not None:
        headers["retry-after-ms"] = str(fault.retry_after_ms)
    if fault.should_retry is not None:
        headers["x-should-retry"] = "true" if fault.should_retry else "false"
    return headers


def _error(
    dialect: Dialect,
    error: EmulatorError,
    root: str = "",
    extra: Mapping[str, str] = {},
    profile: profiles.Profile | None = None,
) -> Response:
    headers = dict(extra)
    if profile and profile.request_id != "x-request-id":  # a profile that names every response (Infercom)
        headers.setdefault(
            profile.request_id, ids.uuid(root or ids.digest(error.status, error.message), profile.request_id)
        )
    shape = profile.errors.get(error.status) if profile else None
    if shape == "text":  # Infercom: 400, 401, 500 and 503 answer in plain text
        return Response(error.message, status_code=error.status, media_type="text/plain", headers=headers)
    if shape == "simple":  # Infercom's SimpleError: 404, 408 and 410
        return Response(encode({"error": error.message}), status_code=error.status, media_type=JSON, headers=headers)
    body = dialect.render_error(error)
    if dialect is anthropic_messages:  # Anthropic repeats the request id in the error body
        headers.setdefault(
            "request-id", _request_id(dialect, root or ids.digest(error.status, error.message))["request-id"]
        )
        body["request_id"] = headers["request-id"]
    return Response(encode(body), status_code=error.status, media_type=JSON, headers=headers)
