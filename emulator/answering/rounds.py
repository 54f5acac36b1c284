"""A request's way round the stages of `stages`: `answer` reads it (stage 1), runs stages 2 to 6 (`_stages`), and
runs them again from 2 when its test's directions (`state.directions`: a fault, pacing, a scenario a test set for
its own requests) turn up on the way. It is the one place where a failure at any stage becomes the dialect's error
(`stages.refuse`).

Between the stages, the store is awaited for what requests share (`stages`' docstring says what). The directions
are looked up with the first thing the request takes from it (`_settle`, or `before_shape` on the common path), so
that a shared store makes one round trip for both.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from emulator import recordings
from emulator.answering import pairing, recall
from emulator.answering.compose import Source, calls_key, compose
from emulator.answering.model_checks import checked
from emulator.answering.reading import Endpoint, Receive, Request, aside_for, json_body, read
from emulator.answering.stages import RETRY_COUNT, Asked, decide, note, parse, pick, refuse, render, shape
from emulator.core import ids
from emulator.core.conversation import Prompt, Turn
from emulator.core.errors import StateUnavailable
from emulator.core.wire import TEST_ID, Script, Whole
from emulator.recordings import Library
from emulator.rules import caches, faults, profiles, validation
from emulator.state import LAST, Settings, State


async def answer(state: State, endpoint: Endpoint, scope: Mapping[str, Any], receive: Receive) -> Whole | Script:
    """A request through the stages, top to bottom; a failure at any of them is the dialect's error, here.

    What a test set for its own requests (a fault, pacing, a scenario: `state.directions`) is looked up with the first
    thing the request takes from the store, `before_shape` on the common path: a shared store then makes one round
    trip for both. Where the test has directions (or a shared store's posted scenarios changed), nothing was taken,
    and the stages run again from 2 with the headers they add, looking no more."""
    try:
        request = await read(endpoint, scope, receive, state.settings, state.aside)  # 1
    except Exception as error:
        return await refuse(state, endpoint, scope, None, None, error)
    going = _Going(request, state.directions.active)
    while True:
        try:
            return await _stages(state, endpoint, going)
        except _Again:
            continue
        except Exception as error:
            if going.look and not isinstance(error, StateUnavailable):  # refused before its directions were known
                going.look = False
                try:
                    added = await state.directions.look_up(*_look(going.request))
                except Exception as failed:
                    error = failed
                else:
                    if added is not None:
                        going.request = _directed(going.request, added)
                        continue
            return await refuse(state, endpoint, scope, going.request, going.prompt, error)


@dataclass(slots=True)
class _Going:
    """A request on its way through the stages: as read (with the headers its test's directions add, once known),
    whether those are still to be looked up, and its prompt once parsed."""

    request: Request
    look: bool
    prompt: Prompt | None = None

    def __init__(self, request: Request, look: bool, prompt: Prompt | None = None) -> None:  # compiled: not generated
        self.request = request
        self.look = look
        self.prompt = prompt


class _Again(Exception):
    """The request's directions were found on the way: the stages run again from 2, with them."""


def _look(request: Request) -> tuple[str, Mapping[str, str]]:
    return request.headers.get(TEST_ID, ""), request.headers


def _directed(request: Request, added: dict[str, str]) -> Request:
    return replace(request, headers=request.headers | added) if added else request


async def _settle(state: State, going: _Going) -> None:
    """Before the request takes anything else from the store: its directions looked up, if still to be; `_Again`
    when it must go round again with them."""
    if going.look:
        added = await state.directions.look_up(*_look(going.request))
        going.look = False
        if added is not None:
            going.request = _directed(going.request, added)
            raise _Again


async def _stages(state: State, endpoint: Endpoint, going: _Going) -> Whole | Script:
    """Stages 2 to 6 of a request read (`answer`)."""
    settings, profile = state.settings, endpoint.profile
    going.prompt = None
    request = going.request
    if profile.stored_responses or profile.threads:  # a public API that keeps answers: a fresh id each time
        await _settle(state, going)
        request = await _sequenced(state, request)
    away = aside_for(state.aside, len(request.raw))  # a large request's work: in a worker thread
    body = json_body(request.raw) if away is None else await away(json_body, request.raw)
    if endpoint.placing is not None:  # what the path says: Azure's deployment, Gemini's model
        body = endpoint.placing(request.path, body)
    held, lenient = endpoint.catalog, False  # a public profile's checks, and whether it is lenient
    let_by: tuple[str, ...] = ()  # what leniency let by
    if held is not None:
        lenient = settings.lenient or request.headers.get(validation.LENIENT_HEADER, "") not in ("", "0")
        let_by = validation.body(held, endpoint.checks, body, request.headers, lenient)
    recalled = None  # what the public API kept for this request (a stored response, a thread): see recall.py
    if recall.asks(endpoint.dialect, profile, body):
        recalled = await recall.recall(state, endpoint.dialect, profile, request.headers, request.fingerprint, body)
        body = recalled.body
    prompt, asked = parse(endpoint, request, body) if away is None else await away(parse, endpoint, request, body)  # 2
    going.prompt = prompt
    if held is not None:  # calls answered by their results, as the public APIs insist
        pairing.check(endpoint.name, body)
    matching = _matching(endpoint, request, prompt, state.library)
    book = state.book_for(prompt.headers.get(TEST_ID, ""))
    replayed = recalled.source if recalled else None  # a retry, given the answer kept for it
    source = replayed  # 3: in a worker thread for a large request, as its parse (a scenario's regex reads it all)
    if source is None:
        found = (book, state.library, request, matching, settings.strict)
        source = pick(*found) if away is None else await away(pick, *found)
    if state.fallback is not None and _defaulted(endpoint, source):  # a real model answers in the default's place
        await _settle(state, going)  # first: its directions may fault it, and a second round must not ask twice
        if not _failing(asked, settings):
            reply = await state.fallback(endpoint.dialect.NAME, prompt, body, request.headers)
            source = Source(nearest=source.nearest, upstream=reply)
    if source.recording:  # played as recorded, with nothing of ours added
        await _settle(state, going)
        played = source.recording
        recorded = note(endpoint, request, prompt, None, played.status, source=f"recording {played.source}")
        return recordings.script(source.recording, settings.replay_speed, await state.journal.open(recorded))
    if held is not None and not (asked.fault or settings.fault):  # a fault asked for answers before the model
        let_by += checked(held, endpoint, prompt, body, source, book, state, lenient, request.path)
    counted = calls_key(source.scenario, prompt)
    if counted:
        await _settle(state, going)
    calls = await state.counts.next_call(counted) if counted else 0
    turn = compose(prompt, source, state.writer, calls, state.created(), settings.replay_speed)
    fault, pace = decide(asked, turn, settings)  # 4
    identity = _identity(prompt)
    look = _look(request) if going.look else None
    before = await state.stores.before_shape(
        profile, prompt, identity, turn.usage.total_tokens, _flavor(endpoint), look
    )
    going.look = False
    if before.again is not None:
        going.request = _directed(request, before.again)
        raise _Again
    cached, attempt, verdict, rates = before.cached, before.attempt, before.verdict, before.rates
    if profile.rate_headers == "none":  # Ollama reports no limits: its 429 alone
        rates = ()
    if prompt.prefixes:  # Anthropic's breakpoints: what was read from its cache, what is written to it
        cached, turn = await _breakpoints(state, prompt, turn)
    shaped = shape(endpoint, request, prompt, turn, fault, pace, cached, attempt, verdict, rates, settings.seed)
    if recalled:
        await recall.keep(state, endpoint.dialect, recalled, prompt, shaped.turn, shaped.status)
    if prompt.echo.get("background") and not prompt.stream:  # queued at once: the pacing plays out as it is polled
        shaped = replace(shaped, turn=replace(shaped.turn, timing=None))
    noted = note(endpoint, request, prompt, shaped.turn, shaped.status, nearest=source.nearest, let_by=let_by)  # 5
    entry = await state.journal.open(noted)
    return render(endpoint, prompt, shaped, entry)  # 6


async def _breakpoints(state: State, prompt: Prompt, turn: Turn) -> tuple[int, Turn]:
    """The tokens Anthropic's cache serves the prompt, and the turn with what its breakpoints write to it."""
    usage = turn.usage
    read = min(await state.caches.breakpoints(prompt, time.time()), usage.input_tokens)
    written, hour = caches.written(prompt, read, usage.input_tokens)
    return read, replace(turn, usage=replace(usage, written_tokens=written, written_1h=hour))


# --- 1. read (reading.py), with the public APIs' own ids ----------------------------------------------------


async def _sequenced(state: State, request: Request) -> Request:
    """The request with its own root for ids: the public APIs mint a new response id per request, where the seeds'
    upstreams (and the first of a body here) derive it from the body. A repeat of a body by the same test id and key
    takes the next number of its sequence, kept in the state store (so workers agree, and a run is reproducible);
    a retry keeps the number it had (the same `idempotency-key`, or the SDK's `x-stainless-retry-count` above 0),
    so that a retried thread continues with the same answer."""
    headers = request.headers
    idempotency = headers.get("idempotency-key")
    retried = headers.get(RETRY_COUNT, "")
    retry = f"key\0{idempotency}" if idempotency else LAST if retried.isdigit() and int(retried) > 0 else None
    test_id, key = recall.scope(headers)
    number = await state.counts.issue((test_id, key, request.fingerprint), retry)
    return replace(request, fingerprint=ids.digest(request.fingerprint, "repeat", number)) if number else request


# --- 3 and 4: what pick and shape take from the request and the endpoint ------------------------------------


def _matching(endpoint: Endpoint, request: Request, prompt: Prompt, library: Library | None) -> Prompt:
    """The prompt recordings are matched by: the request's own, or, where the library's scrubbers change its
    body (a tool's chunk id, say), the prompt of the scrubbed body, as the recordings were scrubbed."""
    if library is None:
        return prompt
    if not library.scrubber.touches(request.raw.decode("utf-8", "replace")):
        return prompt
    scrubbed = json_body(library.scrubber.body(request.raw))
    return endpoint.dialect.parse_request(scrubbed, request.headers, request.fingerprint, endpoint.profile.name)


def _defaulted(endpoint: Endpoint, source: Source) -> bool:
    """Whether the default would answer words: no recording, scenario or kept answer does (vectors are not words)."""
    unanswered = source.scenario is None and source.recording is None and source.conversation is None
    return unanswered and source.replayed is None and endpoint.dialect.NAME not in profiles.VECTORS


def _failing(asked: Asked, settings: Settings) -> bool:
    """Whether the fault that applies answers before any words are seen (an error status, a hang-up): the fallback
    upstream is not asked for words nobody would read."""
    fault = asked.fault or settings.fault
    return fault is not None and fault.rate >= 1 and (fault.kind == "status" or faults.before_response(fault))


def _flavor(endpoint: Endpoint) -> str:
    """How the endpoint reports rate limits: Messages as Anthropic does, else as its profile says."""
    if endpoint.dialect.NAME == profiles.MESSAGES:
        return "anthropic"
    flavor = endpoint.profile.rate_headers
    return "openai" if flavor == "none" else flavor  # counted all the same, reported or not


def _identity(prompt: Prompt) -> tuple[str, str, str]:
    """(test id, API key, conversation): whose rate limits a request takes from, and what a retry repeats."""
    return prompt.headers.get(TEST_ID, ""), prompt.api_key, prompt.conversation
