"""The answering path: a request's way through the server, as named stages in the order it takes them.

1. `read` the request and its body (`reading.py`, the shell: it awaits the client);
2. `parse` the body into a `Prompt`, and what the request's headers ask of the emulator (fault, pacing);
3. `pick` where the answer comes from: a scenario the request names, a recording of this very request, a
   recording of the same conversation, a matching scenario, the default; `answer.compose` makes its `Turn`;
4. `shape` it: fault, pacing, upstream retries, rate limits, and the headers it is sent with;
5. `note` it for the journal;
6. `render` what to send: a `Whole`, or a `Script` with its pacing and faults, which the shell delivers
   (`player.deliver`), completing the journal entry when a hang-up ends it.

`answering.answer` runs them top to bottom (and round again when a test's directions turn up on the way) and is
the one place where a failure at any stage becomes the dialect's error (`refused`, here). Stages 2 to 6 are pure
functions over plain values: no web framework, server or event loop. Between them `rounds` awaits the state's
store, for what requests share: call counts, chaos attempts, prompt caches, rate limits and the journal; and, where
the profile keeps them (`recall.py`), stored responses and threads: recalled into the body before 2, kept once 4
has shaped the answer. The token-counting endpoints take stages 1 and 5 only (`counting.py`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from emulator import journal, recordings
from emulator.answering.compose import Source
from emulator.answering.reading import Endpoint, Request
from emulator.core import identity, ids
from emulator.core.conversation import Fault, Prompt, Timing, Turn, frozen
from emulator.core.errors import EmulatorError, InternalError, InvalidRequest, UpstreamError, model_output_message
from emulator.core.sse import encode
from emulator.core.wire import JSON, TEST_ID, Pairs, Script, Whole, raw, silent, text, whole
from emulator.dialects import Dialect
from emulator.dialects.error_bodies import error_answer, retry_headers
from emulator.journal import Note, findings, key_hint
from emulator.recordings import Library
from emulator.rules import faults, limits, profiles
from emulator.rules.faults import FAULT_HEADER, TIMING_HEADER
from emulator.rules.profiles import Profile
from emulator.scenarios import Book
from emulator.state import Settings, State

RETRY_COUNT = "x-stainless-retry-count"  # the openai and anthropic SDKs' count of a call's retries


@frozen
class Asked:
    """The fault and pacing a request's headers ask for (`x-emulator-fault`, `x-emulator-timing`)."""

    fault: Fault | None = None
    pace: Timing | None = None


NOTHING_ASKED = Asked()


@dataclass(slots=True, unsafe_hash=True)  # native, as conversation.py's values
class Shaped:
    """Stage 4's answer: the turn with its fault and pacing decided, its headers, and the status line it
    will send (None: none at all, a fault that answers nothing well-formed)."""

    turn: Turn
    headers: dict[str, str]
    status: int | None
    rates: Pairs = ()  # the rate-limit headers, raw: their names and limits were encoded once, at start

    def __init__(self, turn: Turn, headers: dict[str, str], status: int | None, rates: Pairs = ()) -> None:
        self.turn = turn
        self.headers = headers
        self.status = status
        self.rates = rates


async def refuse(
    state: State,
    endpoint: Endpoint,
    scope: Mapping[str, Any],
    request: Request | None,
    prompt: Prompt | None,
    error: Exception,
) -> Whole:
    """The dialect's error for a failure at any stage (of answering or counting), noted in the journal; anything but
    an `EmulatorError` is a bug of ours, still answered in the dialect's shape."""
    profile = endpoint.profile
    if not isinstance(error, EmulatorError):
        return error_answer(endpoint.dialect, _internal(error), profile=profile)
    asked = request or Request(scope["method"], scope["path"], {}, b"", "")
    entry = await state.journal.open(note(endpoint, asked, prompt, None, error.status))
    return replace(error_answer(endpoint.dialect, error, profile=profile), entry=entry)


# --- 2. parse ---------------------------------------------------------------------------------------------


def parse(endpoint: Endpoint, request: Request, body: Any) -> tuple[Prompt, Asked]:
    """The body (as read, or as `memory.recall` made it) as the dialect's `Prompt`, and the fault and pacing
    the request's headers ask for."""
    profile = endpoint.profile
    prompt = endpoint.dialect.parse_request(body, request.headers, request.fingerprint, profile.name)
    if profile.pools:  # `model:pool` routes to a resource group; the model is the part before, the pool no part
        model = profiles.base_model(profile, prompt.model)  # of the conversation
        prompt = replace(prompt, model=model, conversation=identity.conversation(prompt, model))
    return prompt, _asked(request.headers)


def _asked(headers: Mapping[str, str]) -> Asked:
    """The fault and timing the request's headers ask for, in the same grammar as `--fault` and `--timing`."""
    fault_spec, timing_spec = headers.get(FAULT_HEADER), headers.get(TIMING_HEADER)
    if not fault_spec and not timing_spec:
        return NOTHING_ASKED
    try:
        fault = faults.fault(faults.split_spec(fault_spec), FAULT_HEADER) if fault_spec else None
        pace = faults.timing(faults.split_spec(timing_spec), TIMING_HEADER) if timing_spec else None
    except faults.FaultError as exc:
        raise InvalidRequest(f"Invalid emulator header: {exc}", code="invalid_emulator_header") from None
    return Asked(fault, pace)


# --- 3. pick ----------------------------------------------------------------------------------------------


def pick(book: Book, library: Library | None, request: Request, prompt: Prompt, strict: bool) -> Source:
    """Where the answer comes from: a scenario the request names (header or model) first; then a recording
    of this very request, then one of the same conversation in any dialect (a miss is an error when replay
    is `strict`); then the first scenario that matches; else the default."""
    if library and not book.named(prompt):
        hit = library.find(request.method, request.path, request.raw)
        if hit:
            return Source(recording=hit, tier="exact")
        found = library.answer(prompt)
        if found:
            return Source(conversation=found, tier="conversation")
        found = library.session(prompt)
        if found:
            return Source(conversation=found, tier="tool-results-differ")
        if strict:
            raise recordings.miss(library, request.method, request.path, request.raw)
        scenario = book.pick(prompt)
        if scenario is None:  # recordings are loaded, and the default answers: say what came closest
            nearest = library.nearest_words(request.method, request.path, request.raw)
            library.warn_once(prompt.conversation, nearest)
            return Source(nearest=nearest)
        return Source(scenario=scenario)
    return Source(scenario=book.pick(prompt))


# --- 4. shape ---------------------------------------------------------------------------------------------


def decide(asked: Asked, turn: Turn, settings: Settings) -> tuple[Fault | None, Timing | None]:
    """The fault and pacing that apply: the request's header wins over the scenario, the scenario over the CLI."""
    return asked.fault or turn.fault or settings.fault, asked.pace or turn.timing or settings.timing


def chancy(fault: Fault, profile: Profile) -> bool:
    """Whether the fault strikes by chance, so that the attempt counts: it has a `rate`, or the profile retries
    upstream failures (Inferel) and may absorb it."""
    return fault.rate < 1 or (fault.at == "upstream" and profile.upstream_retries > 0)


def shape(
    endpoint: Endpoint,
    request: Request,
    prompt: Prompt,
    turn: Turn,
    fault: Fault | None,
    pace: Timing | None,
    cached: int,
    attempt: int,
    verdict: limits.Verdict | None,
    rates: Pairs,
    seed: int,
) -> Shaped:
    """The turn as it will be sent: the prompt cache's share of its input (`cached` tokens); its fault, which
    strikes with its `rate` as the seed, the request and its `attempt` decide, and which a profile that retries
    upstream failures may absorb at the cost of latency; a 429 when the rate limit's `verdict` refuses it;
    and the headers: the request id (of this attempt), the source, the rate limits and the profile's own."""
    dialect, profile = endpoint.dialect, endpoint.profile
    if cached:
        usage = turn.usage
        turn = replace(
            turn, usage=replace(usage, cached_tokens=max(min(cached, usage.input_tokens), usage.cached_tokens))
        )
    if fault and chancy(fault, profile):
        fault, pace = _by_chance(fault, pace, profile, seed, prompt.conversation, attempt)
    if verdict is not None and not verdict.allowed:
        wait = verdict.retry_after
        spent = Fault("status", status=429, message=verdict.message, retry_after=math.ceil(wait))
        fault = replace(spent, retry_after_ms=math.ceil(wait * 1000))
    if fault is not turn.fault or pace is not turn.timing:
        turn = replace(turn, fault=fault, timing=pace)
    headers = profiles.request_id(profile, dialect.NAME, request.fingerprint, _nth(request, attempt))
    headers["x-emulator-source"] = turn.source
    if turn.match:
        headers[recordings.MATCH_HEADER] = turn.match
    if profile.headers or profile.processing_ms:
        headers |= profiles.answer_headers(profile, turn)
    status = (
        fault.status if fault and _fails(fault, prompt, dialect) else None if faults.before_response(fault) else 200
    )
    return Shaped(turn, headers, status, rates)


def _by_chance(
    fault: Fault, pace: Timing | None, profile: Profile, seed: int, request: str, attempt: int
) -> tuple[Fault | None, Timing | None]:
    """Whether a chancy fault strikes this attempt, and whether the profile's own retries absorbed it: the
    client then waits while the provider retries."""
    if not faults.strikes(fault, seed, request, attempt):
        return None, pace
    saved, retries = faults.absorbed(fault, profile.upstream_retries, seed, request, attempt)
    if retries:
        late = (pace.latency_ms if pace else 0) + retries * profiles.RETRY_MS
        pace = replace(pace or Timing(), latency_ms=late)
    return (None if saved else fault), pace


def _nth(request: Request, attempt: int) -> int:
    """Which attempt at the request this is, for its request id: the client's count of its retries
    (`x-stainless-retry-count`) when it sends one, else how often this server has seen the same test id,
    key and conversation (`attempt`)."""
    retried = request.headers.get(RETRY_COUNT, "")
    return int(retried) if retried.isdigit() else attempt


def _fails(fault: Fault, prompt: Prompt, dialect: Dialect) -> bool:
    """Whether the fault is the HTTP answer itself, an error status sent before anything streamed."""
    kind = fault.kind
    return (
        kind == "status"
        or (kind == "stream_error" and not prompt.stream)
        or (kind == "model_output" and dialect.NAME != profiles.CHAT)  # Chat's own answer; elsewhere a 500
    )


# --- 5. note ----------------------------------------------------------------------------------------------


def note(
    endpoint: Endpoint,
    request: Request,
    prompt: Prompt | None,
    turn: Turn | None,
    status: int | None,
    source: str | None = None,
    nearest: str | None = None,
    let_by: tuple[str, ...] = (),
) -> Note:
    """The journal's note of a request, taken before any of its answer is delivered (WireMock's rule), so that
    a client that timed out is still seen. Its source is the turn's, or `source` for an answer played as
    recorded (None: refused). The request's headers and body go by reference: the journal decodes them when
    read."""
    headers = request.headers
    attempt = headers.get(RETRY_COUNT, "")
    fault = turn.fault if turn else None
    retry_after = retryable = None
    if fault and fault.kind == "status":  # what the client is told to wait: retry-after-ms, else retry-after
        retry_after = fault.retry_after_ms / 1000 if fault.retry_after_ms is not None else fault.retry_after
        retryable = findings.retryable(fault.status, fault.should_retry, endpoint.dialect.NAME in profiles.GOOGLE)
    return _tuple(  # every field given: `Note(…)`, a Python-level `__new__`, was half of this function, compiled
        Note,
        (
            request.method,
            request.path,
            prompt.model if prompt else None,
            key_hint(prompt.api_key) if prompt else "",
            bool(prompt and prompt.stream),
            turn.source if turn else source,
            faults.describe(fault) if fault else None,
            status,
            int(attempt) if attempt.isdigit() else None,
            headers.get(TEST_ID, ""),
            prompt.conversation[:16] if prompt else "",  # a retry is the same conversation again
            fault.kind if fault else None,
            retry_after,
            retryable,
            headers.get("idempotency-key"),
            turn.match if turn else "exact" if source and source.startswith("recording ") else None,
            nearest,
            endpoint.name,
            endpoint.profile.name,
            faults.describe(turn.timing) if turn and turn.timing else None,
            headers,
            request.raw,
            journal.tokens(turn.usage) if turn else None,
            let_by,
        ),
    )


_tuple = tuple.__new__


# --- 6. render ---------------------------------------------------------------------------------------------


def render(endpoint: Endpoint, prompt: Prompt, shaped: Shaped, entry: int) -> Whole | Script:
    """What to send: the answer whole when nothing is to be played; else a script of its events (or its body)
    paced, broken by its transport fault, or the fault's error status, or nothing well-formed at all."""
    dialect = endpoint.dialect
    turn, headers, rates = shaped.turn, shaped.headers, shaped.rates
    fault, pace = turn.fault, turn.timing
    if not fault and not pace and not prompt.stream:  # the common answer: nothing to decide, nothing to play
        return whole(encode(dialect.render(prompt, turn)), headers, entry=entry, rates=rates)
    if fault and _fails(fault, prompt, dialect):  # nothing streamed yet: the failure is the HTTP answer
        return _failed(endpoint, turn, fault, pace, headers | text(rates), entry)
    if fault and faults.before_response(fault):  # no status line at all
        return silent(fault.kind, entry)
    transport_fault = fault if fault and fault.kind not in ("stream_error", "model_output") else None
    if prompt.stream:
        events = dialect.render_stream(prompt, turn)
        headers = headers | dialect.STREAM_HEADERS
    else:
        body = encode(dialect.render(prompt, turn))
        if not transport_fault and not pace:  # a fault the body carries (Chat's model_output): nothing to play
            return whole(body, headers, entry=entry, rates=rates)
        events = [body]
        headers = headers | {"content-type": JSON.decode(), "content-length": str(len(body))}
    seed = ids.number(turn.id)
    steps = faults.plan(events, transport_fault, pace, dialect.KEEPALIVE, dialect.MALFORMED, seed, dialect.OPENS)
    return Script(steps, 200, [*raw(headers), *rates], latency=pace.latency_ms / 1000 if pace else 0.0, entry=entry)


def _failed(
    endpoint: Endpoint, turn: Turn, fault: Fault, pace: Timing | None, headers: dict[str, str], entry: int
) -> Whole | Script:
    """An error status as the fault scripts it, in the profile's words where it has some; after its latency."""
    profile = endpoint.profile
    if fault.kind == "model_output":
        fault = replace(fault, message=model_output_message(fault, bool(turn.tool_calls)))
    if fault.message is None and fault.status in profile.error_messages:  # the profile's own wording
        fault = replace(fault, message=profile.error_messages[fault.status])
    failed = error_answer(endpoint.dialect, UpstreamError.of(fault), turn.id, headers | retry_headers(fault), profile)
    if not pace or not pace.latency_ms:
        return replace(failed, entry=entry)
    return Script([failed.body], failed.status, failed.headers, latency=pace.latency_ms / 1000, entry=entry)


def _internal(exc: Exception) -> InternalError:
    return InternalError(f"The emulator failed: {type(exc).__name__}: {exc}")
