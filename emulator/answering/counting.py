"""`/v1/messages/count_tokens`, `/v1/responses/input_tokens`, `/v1/responses/compact`, Gemini's `:countTokens` and
Bedrock's CountTokens: a request read (`reading.py`), checked as its public API checks it, and counted (or
compacted); a recording of this very request answers as recorded. Stage 5 of the answering path (`stages.note`)
journals it, and a failure is the dialect's error, as for an answer (`stages.refuse`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from emulator import recordings
from emulator.answering import recall
from emulator.answering.model_checks import known
from emulator.answering.reading import Endpoint, Receive, Request, json_body, read
from emulator.answering.stages import note, refuse
from emulator.core.sse import encode
from emulator.core.wire import TEST_ID, Script, Whole, whole
from emulator.dialects import anthropic_messages, gemini, openai_responses
from emulator.dialects.bedrock import converse, invoke
from emulator.rules import profiles, validation
from emulator.state import State


async def count(state: State, endpoint: Endpoint, scope: Mapping[str, Any], receive: Receive) -> Whole | Script:
    """The count, or the dialect's error: the body parsed and checked once, then counted (a Responses body with
    the stored conversation it names)."""
    request: Request | None = None
    try:
        request = await read(endpoint, scope, receive, state.settings, state.aside)
        library = state.library
        hit = library.find(request.method, request.path, request.raw) if library else None
        if hit:
            recorded = note(endpoint, request, None, None, hit.status, source=f"recording {hit.source}")
            return recordings.script(hit, state.settings.replay_speed, await state.journal.open(recorded))
        body = json_body(request.raw)
        if endpoint.placing is not None:  # Gemini's model, in the path
            body = endpoint.placing(request.path, body)
        if endpoint.catalog is not None:  # unknown fields, required ones, the model
            lenient = state.settings.lenient or request.headers.get(validation.LENIENT_HEADER, "") not in ("", "0")
            validation.body(endpoint.catalog, endpoint.checks, body, request.headers, lenient)
            model = _model(body)
            book = state.book_for(request.headers.get(TEST_ID, ""))
            if model and not (lenient or endpoint.catalog.get(model) or known(model, book, state)):
                raise validation.unknown_model(endpoint.checks, model, request.path)  # as the endpoint it counts for
        counted = await _counted(state, endpoint, request, body)
    except Exception as error:
        return await refuse(state, endpoint, scope, request, None, error)
    entry = await state.journal.open(note(endpoint, request, None, None, 200, source="default"))
    headers = profiles.request_id(endpoint.profile, endpoint.dialect.NAME, request.fingerprint)
    if endpoint.dialect.NAME == profiles.RESPONSES:
        headers |= endpoint.profile.headers
    return whole(encode(counted), headers, entry=entry)


def _model(body: Any) -> str:
    """The model a count names: in the body, or the path (Gemini's `models/…`, Bedrock's `modelId`)."""
    if not isinstance(body, dict):
        return ""
    model = body.get("model") or body.get("modelId")
    return model.removeprefix("models/") if isinstance(model, str) else ""


async def _counted(state: State, endpoint: Endpoint, request: Request, body: Any) -> dict[str, Any]:
    """The count of `body`, as parsed (and checked) by `count`."""
    if endpoint.dialect.NAME == profiles.MESSAGES:
        return anthropic_messages.count_tokens(body, request.headers, endpoint.profile.name)
    if endpoint.dialect.NAME == profiles.GEMINI:
        return gemini.count_tokens(body, request.headers, endpoint.profile.name)
    if endpoint.dialect.NAME == profiles.BEDROCK_CONVERSE:  # Bedrock's CountTokens, of either operation's body
        if isinstance(body, dict) and "invokeModel" in (body.get("input") or {}):
            return invoke.count_tokens(body, request.headers, endpoint.profile.name)
        return converse.count_tokens(body, request.headers, endpoint.profile.name)
    profile = endpoint.profile
    if recall.asks(endpoint.dialect, profile, body):  # `previous_response_id`, `item_reference`: what they stand for
        given = body.get("input")
        filled = {**body, "model": body.get("model") or "", "input": [] if given is None else given}
        body = (await recall.recall(state, endpoint.dialect, profile, request.headers, "", filled)).body
    if endpoint.name == "compact":
        return openai_responses.compact(body, request.headers, profile.name, request.fingerprint, state.created())
    return openai_responses.count_tokens(body, request.headers, profile.name)
