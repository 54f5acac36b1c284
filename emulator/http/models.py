"""`GET /v1/models`, `GET /v1/models/{id}` and `DELETE /v1/models/{id}`: the profile's models, in the shape of the
API the client speaks (OpenAI's list and model object, Anthropic's page and `ModelInfo`, or Google's `models` and
`Model`). The three share `/v1/models`: a Google client is told by its key (`x-goog-api-key`, `?key=`) and answered
with the `gemini` profile's models; an Anthropic one by its headers (`error_bodies.dialect_for`).

The public profiles list their catalogs (`catalog/*.yaml`: every alias and snapshot, with its date, and for
Anthropic its display name and limits), then the models `--model` and the scenarios name; the seeds' profiles,
their documented models and the scenarios'. A model none of these names is the provider's 404.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request

from emulator import recordings
from emulator.core import ids
from emulator.core.errors import EmulatorError, NotFound, UpstreamError
from emulator.core.sse import encode
from emulator.core.wire import Script, Whole, whole
from emulator.dialects.error_bodies import dialect_for, error_answer
from emulator.journal import at_once
from emulator.rules import catalog, profiles, validation
from emulator.rules.catalog import Model
from emulator.rules.profiles import Profile
from emulator.state import State

CREATED = 1760659200  # 2025-10-17, the date in the seeds' documented model's name: every model not in a catalog
LINES = ("haiku", "sonnet", "opus", "fable", "mythos")  # Anthropic's model lines (`ModelLine`)
Page = Callable[[dict[str, Model], str, str | None], dict[str, Any]]  # the models, the dialect's name, the id


def listing(state: State, profile: Profile) -> Callable[[Request], Awaitable[Whole | Script]]:
    """The route handler for one profile's model list."""
    return _route(state, profile, lambda models, style, _: page(models, style))


def retrieve(state: State, profile: Profile) -> Callable[[Request], Awaitable[Whole | Script]]:
    """The route handler for one of the profile's models, by id; the provider's 404 for any other."""

    def one(models: dict[str, Model], style: str, wanted: str | None) -> dict[str, Any]:
        wanted = (wanted or "").removeprefix("models/")
        model = models.get(wanted)
        if model is None:
            raise _unknown(style, wanted)
        return info(model, style)

    return _route(state, profile, one)


def deleting(state: State, profile: Profile) -> Callable[[Request], Awaitable[Whole | Script]]:
    """`DELETE /v1/models/{id}`, which deletes a fine-tuned model: there are none here, so an unknown id is OpenAI's
    404, and a model of the profile's own is refused, as the API refuses deleting a model you do not own."""

    def one(models: dict[str, Model], style: str, wanted: str | None) -> dict[str, Any]:
        if (wanted or "") not in models:
            raise _unknown(style, wanted or "")
        raise UpstreamError(  # our words: no public source quotes this refusal
            403, f"You cannot delete the model '{wanted}': only fine-tuned models your organization owns can be."
        )

    return _route(state, profile, one)


def _unknown(style: str, wanted: str) -> EmulatorError:
    if style == profiles.GEMINI:  # our words: the generateContent 404's, for a model that no method serves
        return NotFound(
            f"models/{wanted} is not found for API version v1beta. Call ListModels to see the list of available models."
        )
    return validation.unknown_model("messages" if style == profiles.MESSAGES else "models", wanted)


def known(state: State, profile: Profile) -> dict[str, Model]:
    """The models the profile lists, by id, in order: its catalog's (or its documented ones), `--model`'s, the
    scenarios'."""
    held = catalog.catalog(profile.name)
    models = dict(held.models) if held else {m: Model(m) for m in profile.models}
    extra = (*state.settings.models, *state.book.models) if held else state.book.models
    for name in extra:
        models.setdefault(name, Model(name))
    return models


def _route(state: State, profile: Profile, answer: Page) -> Callable[[Request], Awaitable[Whole | Script]]:
    models = known(state, profile)
    gemini = profiles.PROFILES["gemini"]
    # A Google client's list is the Gemini API's, wherever it asks.
    google = (profile, models) if profiles.GEMINI in profile.dialects else (gemini, known(state, gemini))

    async def handle(request: Request) -> Whole | Script:
        arrived = time.perf_counter()
        answered = await _answer(request)
        if isinstance(answered, Whole):  # counted for `/metrics`
            took = time.perf_counter() - arrived
            delivered = at_once(answered.status, answered.headers, answered.body, took)
            await state.journal.done(None, delivered, "models", profile.name)
        return answered

    async def _answer(request: Request) -> Whole | Script:
        path, query = request.scope["path"], request.scope.get("query_string", b"")
        dialect = dialect_for(path, request.headers, query)
        style = dialect.NAME
        serving, listed = google if style == profiles.GEMINI else (profile, models)
        try:
            profiles.authenticate(serving, style, request.headers, query)
            hit = state.library.find(request.method, path, b"") if state.library else None
            if hit:
                return recordings.script(hit, state.settings.replay_speed)
            body = answer(listed, style, request.path_params.get("model_id"))
        except EmulatorError as error:
            return error_answer(dialect, error, profile=serving)
        root = ids.digest(state.settings.seed, str(request.url))
        headers = profiles.request_id(profile, style, root) if style == profiles.MESSAGES else {}
        if profile.request_id not in ("x-request-id", ""):  # a profile that names every response (Infercom)
            headers[profile.request_id] = ids.uuid(root)
        return whole(encode(body), headers)

    return handle


def page(models: dict[str, Model], style: str) -> dict[str, object]:
    listed = [info(m, style) for m in models.values()]
    if style == profiles.GEMINI:  # no `nextPageToken`: the last page (the SDKs' pagers stop)
        return {"models": listed}
    if style == profiles.MESSAGES:  # the Anthropic SDK and Claude Code's model discovery (wire-formats.md §3.5)
        listed.sort(key=lambda m: m["created_at"], reverse=True)  # the most recent first, as Anthropic lists them
        # `has_more: false`, or the SDK's auto-pagination keeps asking with `?after_id=`.
        first, last = (listed[0]["id"], listed[-1]["id"]) if listed else (None, None)
        return {"data": listed, "has_more": False, "first_id": first, "last_id": last}
    return {"object": "list", "data": listed}


def info(model: Model, style: str) -> dict[str, Any]:
    """One model as the API describes it: OpenAI's model object, Anthropic's `ModelInfo`, or Google's `Model`."""
    if style == profiles.GEMINI:
        return _google(model)
    created = model.created or CREATED
    if style != profiles.MESSAGES:
        owner = "system" if model.created else "emulator"  # the API's owner of its own models
        return {"id": model.id, "object": "model", "created": created, "owned_by": owner}
    line = next((name for name in LINES if f"-{name}-" in f"-{model.id}-"), None)
    return {
        "type": "model",
        "id": model.id,
        "display_name": model.name or model.id,
        "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(created)),
        "lifecycle": "active",
        "line": line,
        "max_input_tokens": model.context or None,
        "max_tokens": model.output or None,
    }


# What Google's `Model` says of a generating model and of an embedding one (the fields google-genai reads,
# reference providers-google.md §3.2; the figures are Gemini 2.5 Flash's and gemini-embedding-001's model cards).
GENERATES = {
    "inputTokenLimit": 1_048_576,
    "outputTokenLimit": 65_536,
    "supportedGenerationMethods": ["generateContent", "countTokens", "createCachedContent", "batchGenerateContent"],
    "temperature": 1,
    "topP": 0.95,
    "topK": 64,
    "maxTemperature": 2,
    "thinking": True,
}
EMBEDS = {
    "inputTokenLimit": 2048,
    "outputTokenLimit": 1,
    "supportedGenerationMethods": ["embedContent", "countTextTokens", "countTokens", "asyncBatchEmbedContent"],
}


def _google(model: Model) -> dict[str, Any]:
    name = model.name or " ".join(word.capitalize() for word in model.id.split("-"))
    facts = EMBEDS if "embedding" in model.id else GENERATES
    return {"name": f"models/{model.id}", "version": "001", "displayName": name, "description": name} | facts
