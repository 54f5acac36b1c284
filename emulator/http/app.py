"""The Starlette app: wires each route to its handler, and nothing else.

The answering endpoints (chat completions, responses, messages, count_tokens, embeddings and legacy completions,
under every profile's prefix; Azure's deployment paths and Ollama's `/api/…`) run the answering path
(`answering/rounds.py`, through the stages of `answering/stages.py`) and deliver what it answers (`player.py`); the
model lists, the admin routes and error rendering live in modules of their own.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.routing import Route, request_response
from starlette.types import ASGIApp, Receive, Scope, Send

from emulator.answering import counting, recall, rounds
from emulator.answering.reading import Endpoint
from emulator.core.errors import MethodNotAllowed, NotFound, StateUnavailable
from emulator.core.wire import TEST_ID, Whole
from emulator.dialects import (
    anthropic_messages,
    gemini,
    openai_chat,
    openai_completions,
    openai_embeddings,
    openai_responses,
)
from emulator.dialects.bedrock import converse, invoke
from emulator.dialects.error_bodies import dialect_for, error_answer
from emulator.dialects.gemini import embed as gemini_embed
from emulator.dialects.ollama import chat as ollama_chat
from emulator.dialects.ollama import embed as ollama_embed
from emulator.dialects.ollama import generate as ollama_generate
from emulator.http import admin, azure, fallback, models, ollama
from emulator.http.cors import Cors, origin_of
from emulator.http.serving import Answering, Run
from emulator.rules import profiles
from emulator.server import in_task
from emulator.state import Settings, State

__all__ = ["Settings", "create_app"]

_TEST_ID = TEST_ID.encode()
SCOPED = "/_t/"  # `/_t/{test_id}/v1/…`: a test's scope in the path


def create_app(settings: Settings = Settings()) -> Starlette:
    """The emulator as an ASGI app; its state (scenarios, recordings, …) is built once, here: in this process,
    or, given `settings.state`, with what requests share in Redis (`ConnectionError` when it does not answer)."""
    if settings.state is None:
        state = State(settings)
    else:
        from emulator.state import redis

        state = redis.shared_state(settings)
    state.aside = asyncio.to_thread  # a large request's parse and pick, in a worker thread (`answering.reading`)
    if settings.fallback_upstream:  # a real model in the default's place (`--fallback-upstream`)
        state.fallback = fallback.Fallback(settings)
    routes = []
    for prefix, profile in [("", state.profile), *((f"/{p.name}", p) for p in profiles.PROFILES.values())]:
        routes += [
            _answering(f"{prefix}/v1/chat/completions", state, Endpoint(openai_chat, profile)),
            _answering(f"{prefix}/v1/responses", state, Endpoint(openai_responses, profile)),
            _answering(f"{prefix}/v1/embeddings", state, Endpoint(openai_embeddings, profile)),
            _answering(f"{prefix}/v1/completions", state, Endpoint(openai_completions, profile)),
            # `?beta=true` too: a query string
            _answering(f"{prefix}/v1/messages", state, Endpoint(anthropic_messages, profile)),
            _answering(
                f"{prefix}/v1/messages/count_tokens",
                state,
                Endpoint(anthropic_messages, profile, "count_tokens"),
                counting.count,
            ),
            Route(f"{prefix}/v1/models", models.listing(state, profile), methods=["GET"]),
            Route(f"{prefix}/v1/models/{{model_id}}", models.retrieve(state, profile), methods=["GET"]),
            Route(f"{prefix}/v1/models/{{model_id}}", models.deleting(state, profile), methods=["DELETE"]),
        ]
        if profile.stored_responses:  # elsewhere these paths are not served: 404, as before
            routes += [
                _answering(
                    f"{prefix}/v1/responses/input_tokens",
                    state,
                    Endpoint(openai_responses, profile, "input_tokens"),
                    counting.count,
                ),
                _answering(
                    f"{prefix}/v1/responses/compact",
                    state,
                    Endpoint(openai_responses, profile, "compact"),
                    counting.count,
                ),
                Route(f"{prefix}/v1/responses/{{response_id}}", _stored(state, profile), methods=["GET", "DELETE"]),
                Route(f"{prefix}/v1/responses/{{response_id}}/input_items", _stored(state, profile, items=True)),
                Route(f"{prefix}/v1/responses/{{response_id}}/cancel", _stored(state, profile), methods=["POST"]),
                Route(f"{prefix}/v1/chat/completions", _stored_chat(state, profile), methods=["GET"]),
                Route(
                    f"{prefix}/v1/chat/completions/{{completion_id}}",
                    _stored_chat(state, profile),
                    methods=["GET", "POST", "DELETE"],
                ),
                Route(f"{prefix}/v1/chat/completions/{{completion_id}}/messages", _stored_chat(state, profile, True)),
            ]
    routes += _azure(state) + _ollama(state) + _google(state) + _bedrock(state)
    routes += admin.routes(state)
    answering = {route.path: route.endpoint.app for route in routes if isinstance(route.endpoint, _Endpoint)}
    handlers = {HTTPException: _http_error, StateUnavailable: _unavailable}
    cors = Cors(settings.cors_origins, tuple(profiles.PROFILES))
    app = _App(answering, cors, routes=routes, exception_handlers=handlers)
    app.state.emulator = state
    return app


def _answering(path: str, state: State, endpoint: Endpoint, run: Run = rounds.answer, versioned: bool = False) -> Route:
    """A POST route that runs `run` (the pipeline) for `endpoint`, in raw ASGI: no Request object is made
    (`serving.Answering`, compiled in the wheel); behind Azure's `api-version` check when `versioned`."""
    app: ASGIApp = Answering(state, endpoint, run)
    return Route(path, _Endpoint(azure.Versioned(app) if versioned else app), methods=["POST"])


def _ollama(state: State) -> list[Route]:
    """Ollama's native API, at the root (where `OLLAMA_HOST` points) and under `/ollama`."""
    profile = profiles.PROFILES["ollama"]
    routes = []
    for base in ("", "/ollama"):
        routes += [
            _answering(f"{base}/api/chat", state, Endpoint(ollama_chat, profile)),
            _answering(f"{base}/api/generate", state, Endpoint(ollama_generate, profile)),
            _answering(f"{base}/api/embed", state, Endpoint(ollama_embed, profile)),
            _answering(f"{base}/api/embeddings", state, Endpoint(ollama_embed, profile)),
            Route(f"{base}/api/tags", ollama.tags(state), methods=["GET", "HEAD"]),
            Route(f"{base}/api/ps", ollama.ps, methods=["GET"]),
            Route(f"{base}/api/show", ollama.show, methods=["POST"]),
            Route(f"{base}/api/version", ollama.version, methods=["GET", "HEAD"]),
            Route(f"{base}/", ollama.running, methods=["GET", "HEAD"]),
        ]
    return routes


# The SDKs' default (v1), the docs' and older SDKs', the previews'; and none, as LiteLLM posts to `{api_base}/models/…`
GEMINI_VERSIONS = ("/v1", "/v1beta", "/v1alpha", "")
VERTEX_VERSIONS = ("/v1", "/v1beta1")  # LiteLLM's and the anthropic SDK's, google-genai's


def _google(state: State) -> list[Route]:
    """Google's paths (reference providers-google.md §1.2, §1.3, §7): the Gemini API's at the root (where a
    client's `base_url` points) and under `/gemini`; Vertex AI's (its projects' paths, and express mode's without
    one; Claude's `rawPredict`) at the root and under `/vertex`. Each is `…/models/{model}:{method}`. Under its
    prefix a family is its profile's, strict; at the root only when `--profile` names it (`strict_at`)."""
    routes = []
    for name, versions, publishers in (("gemini", GEMINI_VERSIONS, ("",)), ("vertex", VERTEX_VERSIONS, VERTEX)):
        profile = profiles.PROFILES[name]
        for base in ("", f"/{name}"):
            strict = strict_at(state, base, name)
            generate, embed = Endpoint(gemini, profile, strict=strict), Endpoint(gemini_embed, profile, strict=strict)
            counting_endpoint = Endpoint(gemini, profile, "count_tokens", strict)
            for version in versions:
                for where in publishers:
                    at = f"{base}{version}{where}/models"
                    routes += [
                        _answering(f"{at}/{{model}}:generateContent", state, generate),
                        _answering(f"{at}/{{model}}:streamGenerateContent", state, generate),
                        _answering(f"{at}/{{model}}:countTokens", state, counting_endpoint, counting.count),
                        _answering(f"{at}/{{model}}:embedContent", state, embed),
                        _answering(f"{at}/{{model}}:batchEmbedContents", state, embed),
                        _answering(f"{at}/{{model}}:predict", state, embed),  # Vertex's older embedding models
                    ]
                if name == "gemini":
                    if version:  # the model list and get, under an API version (`/models` alone is no one's)
                        listing = f"{base}{version}/models"
                        routes += [
                            Route(listing, models.listing(state, profile), methods=["GET"]),
                            Route(f"{listing}/{{model_id}}", models.retrieve(state, profile), methods=["GET"]),
                        ]
                    continue
                listed = f"{base}{version}/publishers/google/models"
                claude = f"{base}{version}{PROJECT}/publishers/anthropic/models"
                messages = Endpoint(anthropic_messages, profile, strict=strict)
                routes += [
                    Route(listed, models.listing(state, profile), methods=["GET"]),
                    Route(f"{listed}/{{model_id}}", models.retrieve(state, profile), methods=["GET"]),
                    _answering(
                        f"{claude}/count-tokens:rawPredict",
                        state,
                        Endpoint(anthropic_messages, profile, "count_tokens", strict),
                        counting.count,
                    ),
                    _answering(f"{claude}/{{model}}:rawPredict", state, messages),
                    _answering(f"{claude}/{{model}}:streamRawPredict", state, messages),
                ]
    return routes


def _bedrock(state: State) -> list[Route]:
    """Bedrock Runtime's paths (reference providers-aws-azure-ollama.md §1.1), at the root (boto3's `endpoint_url`,
    `AnthropicBedrock(base_url=…)`) and under `/bedrock`: `/model/{modelId}/{operation}`, the model id an ARN with
    its `/` encoded as often as not."""
    profile = profiles.PROFILES["bedrock"]
    routes = []
    for base in ("", "/bedrock"):
        at, strict = f"{base}{MODEL}", strict_at(state, base, "bedrock")
        talks, invokes = Endpoint(converse, profile, strict=strict), Endpoint(invoke, profile, strict=strict)
        counts = Endpoint(converse, profile, "count_tokens", strict)
        routes += [
            _answering(f"{at}/converse", state, talks),
            _answering(f"{at}/converse-stream", state, talks),
            _answering(f"{at}/invoke", state, invokes),
            _answering(f"{at}/invoke-with-response-stream", state, invokes),
            _answering(f"{at}/count-tokens", state, counts, counting.count),
        ]
    return routes


def strict_at(state: State, base: str, name: str) -> bool:
    """Whether a family's paths under `base` get its public profile's checks (its catalog's models and fields):
    under its own prefix (`/gemini`, as `/openai` is the openai profile's), and at the root when `--profile`
    names it. At the root of another profile they answer any model, as the default profile does."""
    return bool(base) or state.profile.name == name


MODEL = "/model/{model:path}"  # Bedrock's: everything up to the operation, slashes and all
PROJECT = "/projects/{project}/locations/{location}"
VERTEX = (f"{PROJECT}/publishers/google", "/publishers/google")  # with a project, and in express mode
_MODEL = re.compile(r"/models/[^/]+:(\w+)$")
_PROJECT = re.compile(r"/projects/[^/]+/locations/[^/]+/")


def templated(path: str) -> str:
    """A Google or Bedrock path as its route is written (`/v1beta/models/{model}:generateContent`,
    `/model/{model:path}/converse`), where the app finds its endpoint by the exact path; any other path as it is."""
    if "/model/" in path:  # Bedrock's `/model/{modelId}/{operation}`
        head, _, rest = path.partition("/model/")
        return f"{head}{MODEL}/{rest.rpartition('/')[2]}"
    if ":" not in path:
        return path
    if "/projects/" in path:
        path = _PROJECT.sub(PROJECT + "/", path)
    return path if path.endswith("/count-tokens:rawPredict") else _MODEL.sub(r"/models/{model}:\1", path)


def _versioned(handler: Callable[[Request], Awaitable[Any]]) -> ASGIApp:
    """A route handler (a Request in, a `Whole` out: an ASGI app, as Starlette's responses are) behind Azure's
    `api-version` check."""
    return azure.Versioned(request_response(handler))


def _azure(state: State) -> list[Route]:
    """Azure OpenAI's paths, at the root (what `AzureOpenAI(azure_endpoint=…)` calls) and under `/azure`:
    deployments, Responses and models, each with an `api-version`; and its v1 API at `/azure/openai/v1/…`, which
    takes none (the plain `OpenAI` client's base URL; `/openai/v1/…` at the root is the `openai` profile's)."""
    profile = profiles.PROFILES["azure"]
    chat, responses = Endpoint(openai_chat, profile), Endpoint(openai_responses, profile)
    embeddings, completions = Endpoint(openai_embeddings, profile), Endpoint(openai_completions, profile)
    routes = []
    for base in ("/openai", "/azure/openai"):
        deployment = f"{base}/deployments/{{deployment}}"
        routes += [
            _answering(f"{deployment}/chat/completions", state, chat, versioned=True),
            _answering(f"{deployment}/embeddings", state, embeddings, versioned=True),
            _answering(f"{deployment}/completions", state, completions, versioned=True),
            _answering(f"{base}/responses", state, responses, versioned=True),
            Route(f"{base}/models", _versioned(models.listing(state, profile)), methods=["GET"]),
            Route(
                f"{base}/responses/{{response_id}}",
                _versioned(_stored(state, profile)),
                methods=["GET", "DELETE"],
            ),
        ]
    v1 = "/azure/openai/v1"
    routes += [
        _answering(f"{v1}/chat/completions", state, chat),
        _answering(f"{v1}/embeddings", state, embeddings),
        _answering(f"{v1}/completions", state, completions),
        _answering(f"{v1}/responses", state, responses),
        Route(f"{v1}/models", models.listing(state, profile), methods=["GET"]),
    ]
    return routes


def _stored(state: State, profile: profiles.Profile, items: bool = False) -> Callable[[Request], Awaitable[Whole]]:
    """A route that reads (or deletes) a stored response: `recall.stored` with what it needs of the request."""

    async def handle(request: Request) -> Whole:
        response_id = request.path_params["response_id"]
        return await recall.stored(
            state, profile, request.method, response_id, request.headers, request.query_params, items
        )

    return handle


def _stored_chat(
    state: State, profile: profiles.Profile, messages: bool = False
) -> Callable[[Request], Awaitable[Whole]]:
    """A route over stored chat completions: `recall.stored_chat` with what it needs of the request."""

    async def handle(request: Request) -> Whole:
        body = await request.body() if request.method == "POST" else b""
        completion_id = request.path_params.get("completion_id")
        query = request.query_params.multi_items()
        return await recall.stored_chat(
            state, profile, request.method, completion_id, request.headers, query, body, messages
        )

    return handle


async def _http_error(request: Request, exc: Exception) -> Whole:
    """A path or a method no route serves: a 404 or 405 in the shape of the API the client speaks."""
    assert isinstance(exc, HTTPException)
    method, path = request.method, request.url.path
    dialect = dialect_for(path, request.headers, request.scope.get("query_string", b""))
    profile = profiles.PROFILES.get(path.split("/")[1])  # `/infercom/v1/…`: that profile's error shapes
    if exc.status_code == 405:
        return error_answer(dialect, MethodNotAllowed(f"Method {method} is not allowed for {path}."), profile=profile)
    return error_answer(dialect, NotFound(f"Invalid URL ({method} {path}).", code="unknown_url"), profile=profile)


async def _unavailable(request: Request, exc: Exception) -> Whole:
    """The shared state failed under an admin route or a stored response's: a 503 in the client's shape, and no
    traceback (the outage is logged once, by the store)."""
    assert isinstance(exc, StateUnavailable)
    path = request.url.path
    dialect = dialect_for(path, request.headers, request.scope.get("query_string", b""))
    return error_answer(dialect, exc, profile=profiles.PROFILES.get(path.split("/")[1]))


class _App(Starlette):
    """Starlette, which finds a POST to an answering endpoint by its exact path, before its middleware and
    router; everything else takes Starlette's way.

    Those layers were a large share of a short answer's time in process, and give it nothing: the endpoint answers its
    own errors in its dialect's shape; one it did not foresee reaches the server (`server.exchange`), which logs it
    and answers 500 as Starlette's error middleware would; a path or a method it does not serve is Starlette's to
    refuse.
    """

    eager = True  # it may be started outside a task: see `server.in_task`

    def __init__(self, answering: Mapping[str, ASGIApp], cors: Cors, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.answering = answering
        self.cors = cors

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            if scope["path"].startswith(SCOPED):
                scope = scoped(scope)
            origin = origin_of(scope)
            if origin is not None and self.cors.api(scope["path"]):  # a page's call (`cors.py`)
                if scope["method"] == "OPTIONS":
                    await self.cors.preflight(scope, origin, send)
                    return
                if self.cors.allows(origin):
                    send = self.cors.sending(origin, send)
        endpoint = None
        if scope["type"] == "http" and scope["method"] == "POST":
            endpoint = self.answering.get(scope["path"]) or self.answering.get(templated(scope["path"]))
        if endpoint is None or scope.get("root_path"):  # mounted under a prefix: Starlette knows the route
            await in_task()  # Starlette's ways (anyio, threads for plain functions) need one
            await super().__call__(scope, receive, send)
            return
        scope["app"] = self
        await endpoint(scope, receive, send)


def scoped(scope: Scope) -> Scope:
    """A request to `/_t/{test_id}/…` as the request to `/…` with `x-emulator-test-id: {test_id}`: a test's
    scope in the base URL, for apps that let a base URL be set but no header. Everything after this sees the
    path without it."""
    test_id, _, rest = scope["path"][len(SCOPED) :].partition("/")
    path = "/" + rest
    headers = [(k, v) for k, v in scope["headers"] if k != _TEST_ID]
    headers.append((_TEST_ID, test_id.encode("latin-1", "replace")))  # the path is decoded already
    return {**scope, "path": path, "raw_path": path.encode(), "headers": headers}


class _Endpoint:
    """An ASGI app for a route: Starlette hands a class instance the raw scope, with no Request made."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.app(scope, receive, send)
