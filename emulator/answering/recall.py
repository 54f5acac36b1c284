"""What the public APIs keep between calls: OpenAI's stored responses and Anthropic's message threads, under the
profiles that promise them (`Profile.stored_responses`, `Profile.threads`); the seeds' upstreams keep nothing.

Two steps of the answering path (`answering.answer`), around its pure stages:
- `recall`, before the body is parsed: a request that goes on from kept state (`previous_response_id`,
  `item_reference`, a thread's `continue`) becomes the body it stands for, the kept conversation in it, so that
  a scenario's `steps` and the default answer see the whole conversation;
- `keep`, once the answer is shaped: what the answer leaves is kept (a stored response and its output items,
  a thread's next message).
And `stored`, the routes that read and remove a stored response. All of it lives in the state's store
(`state.kept`: `recall`, `keep`, `claim`, `forget`), scoped by test id and API key.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from emulator.answering.compose import Source
from emulator.core import ids
from emulator.core.conversation import Prompt, Turn, frozen
from emulator.core.errors import EmulatorError, InvalidRequest
from emulator.core.fields import Fields, bearer
from emulator.core.sse import encode, loads
from emulator.core.wire import TEST_ID, Whole, whole
from emulator.dialects import Dialect, anthropic_messages, openai_chat, openai_responses
from emulator.dialects.anthropic_messages import threads
from emulator.dialects.error_bodies import error_answer
from emulator.dialects.openai_chat import stored as chats
from emulator.dialects.openai_responses import stored as responses
from emulator.rules import profiles
from emulator.rules.profiles import Profile
from emulator.state import State
from emulator.state.kept import Scope

EVENT_STREAM = {"cache-control": "no-cache"}
# A fault that spoils the answer itself: nothing is kept. Others break its delivery; the server finished it.
SPOILT = ("stream_error", "model_output")


@frozen
class Recalled:
    """What `recall` found for a request: where in the store it keeps, the body it stands for, the thread it
    asks for, and, for a retry of a thread's continue already answered, that answer."""

    scope: Scope
    body: dict[str, Any]
    thread: threads.Ask | None = None
    source: Source | None = None
    history: int = 0  # Responses: how many of the body's input items a stored response's conversation gave


def asks(dialect: Dialect, profile: Profile, body: Any) -> bool:
    """Whether a request may read or leave kept state: one with a `thread`, or, where responses are stored, a
    Responses request to be stored or that names stored state. A look that costs next to nothing on every other
    request."""
    if type(body) is not dict:
        return False
    if dialect.NAME == profiles.MESSAGES:
        return body.get("thread") is not None
    if dialect.NAME == profiles.CHAT:  # a completion to be stored (`store: true`; false by default)
        return profile.stored_responses and body.get("store") is True
    return dialect.NAME == profiles.RESPONSES and profile.stored_responses and responses.asks(body)


def scope(headers: Mapping[str, str]) -> Scope:
    """(test id, API key): whose kept state a request reads and leaves."""
    return headers.get(TEST_ID, ""), headers.get("x-api-key", "").strip() or bearer(headers)


async def recall(
    state: State, dialect: Dialect, profile: Profile, headers: Mapping[str, str], fingerprint: str, body: dict[str, Any]
) -> Recalled:
    """The body a request stands for, with the kept state it names put in; refused in the public API's words
    when that state is not kept (unknown, expired, deleted, or another key's)."""
    where = scope(headers)
    if dialect.NAME == profiles.MESSAGES:
        return await _thread(state, profile, headers, fingerprint, body, where)
    if dialect.NAME == profiles.CHAT:  # nothing to recall: the completion is kept once answered
        return Recalled(where, body)
    previous, named = responses.references(body)
    keys = [f"response:{previous}"] if previous else []
    found = await state.kept.recall(where, [*keys, *(f"item:{item}" for item in named)]) if keys or named else []
    if previous and found[0] is None:
        raise responses.previous_not_found(previous)
    if named:
        body = responses.resolved(body, dict(zip(named, found[len(keys) :], strict=True)))
    if not previous:
        return Recalled(where, body)
    # The request's own input is checked as sent first, so that a refusal names the index the client gave.
    dialect.parse_request(body, headers, fingerprint, profile.name)
    history = responses.conversation(found[0])
    return Recalled(where, {**body, "input": [*history, *responses.listed(body["input"])]}, history=len(history))


async def _thread(
    state: State, profile: Profile, headers: Mapping[str, str], fingerprint: str, body: dict[str, Any], where: Scope
) -> Recalled:
    ask = threads.ask(body, headers, profile.threads)
    if ask.previous is None:
        return Recalled(where, body, ask)
    thread, held = await state.kept.recall(where, [f"thread:{ask.previous}", f"continued:{ask.previous}"])
    if thread is None:
        raise threads.refusal("thread_not_found", ask.previous)
    if body.get("messages"):  # checked with the thread's tools, but as sent, so that a refusal names its index
        anthropic_messages.parse_request(threads.continued(body, thread, history=False), headers, "", profile.name)
    source = None
    if held is not None:
        if not threads.same_call(held, headers, fingerprint):
            raise threads.refusal("thread_already_continued", ask.previous)
        (answered,) = await state.kept.recall(where, [f"thread:{held['reply']}"])
        if answered is not None:
            reply = anthropic_messages.read_response(encode(answered["reply"]), False)
            source = Source(replayed=(answered["source"], answered["root"], reply))
    return Recalled(where, threads.continued(body, thread), ask, source)


async def keep(
    state: State, dialect: Dialect, recalled: Recalled, prompt: Prompt, turn: Turn, status: int | None
) -> None:
    """Keep what an answer leaves, once it is shaped: a stored response (unless `store` is false) and its output
    items; a thread's new message, the message it continued marked as such (a `continue` that lost the race to
    another call is refused after all). Only an answer the server finished: a 200 whose fault, if any, breaks its
    delivery and not the answer; and not an answer given again."""
    if status != 200 or (turn.fault and turn.fault.kind in SPOILT) or recalled.source:
        return
    ask, where = recalled.thread, recalled.scope
    if ask is None and not prompt.echo.get("store"):
        return
    answer = (
        openai_responses.finished(prompt, turn) if dialect.NAME == profiles.RESPONSES else dialect.render(prompt, turn)
    )
    if dialect.NAME == profiles.CHAT:
        made = chats.kept(answer, recalled.body["messages"], prompt.echo.get("metadata", {}))
        await state.kept.keep(where, {chats.key(answer["id"]): made})
        await state.kept.enlist(where, chats.LISTING, answer["id"])
        return
    if ask is None:  # the conversation's items, the request's own with the ids and shapes `input_items` lists
        history, given = recalled.body["input"][: recalled.history], recalled.body["input"][recalled.history :]
        items = [*history, *responses.input_items(given, prompt.fingerprint)]
        output = responses.sealed_output(answer["output"], turn.reasoning, turn.id, turn.created)
        kept: dict[str, Any] = {f"response:{answer['id']}": {"response": answer, "input": items, "output": output}}
        if prompt.echo.get("background"):  # its progress, as the pacing plays out: read when it is polled
            progress = responses.schedule(turn.timing, turn.usage.output_tokens, time.time())
            events = [event.decode() for event in openai_responses.render_stream(prompt, turn)]  # to stream again
            kept[f"response:{answer['id']}"] |= {"background": progress, "events": events}
        await state.kept.keep(where, kept | {f"item:{item['id']}": item for item in output})
        return
    if ask.previous is not None:
        mine = threads.claim(prompt.headers, prompt.fingerprint, answer["id"])
        held = await state.kept.claim(where, f"continued:{ask.previous}", mine)
        if held != mine and not threads.same_call(held, prompt.headers, prompt.fingerprint):
            raise threads.refusal("thread_already_continued", ask.previous)
    await state.kept.keep(where, {f"thread:{answer['id']}": threads.kept(recalled.body, answer, turn.source, turn.id)})


async def stored(
    state: State,
    profile: Profile,
    method: str,
    response_id: str,
    headers: Mapping[str, str],
    query: Mapping[str, str],
    items: bool = False,
) -> Whole:
    """`GET /v1/responses/{id}` (the response as created; in background mode, as far as its pacing got), `GET
    /v1/responses/{id}/input_items` (a page of its conversation's items), `POST /v1/responses/{id}/cancel` and
    `DELETE /v1/responses/{id}`, as the public API answers them."""
    try:
        profiles.authenticate(profile, openai_responses.NAME, headers)
        where, key = scope(headers), f"response:{response_id}"
        if method == "DELETE":
            if not await state.kept.forget(where, key):
                raise responses.response_not_found(response_id)
            body = responses.deleted(response_id)
        else:
            (found,) = await state.kept.recall(where, [key])
            if found is None:
                raise responses.response_not_found(response_id)
            if query.get("stream", "false") != "false":
                return _streamed_again(found, query, profile, state.settings.seed, response_id)
            if method == "POST":  # cancel: a background response not yet answered stops where it is
                found = responses.cancelled(found, time.time())
                await state.kept.keep(where, {key: found})
            body = responses.page(found["input"], query) if items else responses.polled(found, time.time())
    except EmulatorError as error:
        return error_answer(openai_responses, error, profile=profile)
    root = ids.digest(state.settings.seed, method, response_id, items)
    return whole(encode(body), profiles.request_id(profile, openai_responses.NAME, root) | dict(profile.headers))


async def stored_chat(
    state: State,
    profile: Profile,
    method: str,
    completion_id: str | None,
    headers: Mapping[str, str],
    query: Sequence[tuple[str, str]],
    body: bytes = b"",
    messages: bool = False,
) -> Whole:
    """Stored chat completions, as the public API answers them: `GET /v1/chat/completions` (a page of the kept
    ones), `GET …/{id}` (one), `POST …/{id}` (its metadata replaced), `DELETE …/{id}`, `GET …/{id}/messages`."""
    asked = dict(query)
    try:
        profiles.authenticate(profile, openai_chat.NAME, headers)
        where = scope(headers)
        if completion_id is None:
            listed = await state.kept.enlisted(where, chats.LISTING)
            held = [h for h in await state.kept.recall(where, [chats.key(i) for i in listed]) if h is not None]
            answer = chats.listing(held, asked, chats.metadata_filter(query))
        else:
            answer = await _one_chat(state, where, method, completion_id, asked, body, messages)
    except EmulatorError as error:
        return error_answer(openai_chat, error, profile=profile)
    root = ids.digest(state.settings.seed, method, completion_id or "", messages)
    return whole(encode(answer), profiles.request_id(profile, openai_chat.NAME, root) | dict(profile.headers))


async def _one_chat(
    state: State, where: Scope, method: str, completion_id: str, query: Mapping[str, str], body: bytes, listed: bool
) -> dict[str, Any]:
    at = chats.key(completion_id)
    if method == "DELETE":
        if not await state.kept.forget(where, at):
            raise chats.not_found(completion_id)
        await state.kept.delist(where, chats.LISTING, completion_id)
        return chats.deleted(completion_id)
    (held,) = await state.kept.recall(where, [at])
    if held is None:
        raise chats.not_found(completion_id)
    if listed:
        return chats.page(held["messages"], query, "asc")
    if method == "POST":  # the metadata replaced, as `update` sends it (`metadata: null` clears it)
        held = {**held, "metadata": chats.metadata(Fields(_body(body)))}
        await state.kept.keep(where, {at: held})
    return chats.shown(held)


def _body(raw: bytes) -> Any:
    try:
        return loads(raw)
    except ValueError:
        raise InvalidRequest("We could not parse the JSON body of your request.", code="invalid_json") from None


def _streamed_again(
    found: Mapping[str, Any], query: Mapping[str, str], profile: Profile, seed: int, response_id: str
) -> Whole:
    """`GET /v1/responses/{id}?stream=true&starting_after=N`: a background response's events after the N-th, as the
    SDK's `responses.stream(response_id=…)` resumes a stream; a response not made in background mode has none."""
    if "events" not in found:
        # written in the API's style: no public source quotes this refusal
        raise InvalidRequest("Only responses created with 'background' set to true can be streamed.", param="stream")
    after = query.get("starting_after", "-1")
    if not after.lstrip("-").isdigit():
        raise InvalidRequest(f"Invalid 'starting_after': {after!r}. Expected an integer.", param="starting_after")
    root = ids.digest(seed, "stream", response_id, after)
    headers = profiles.request_id(profile, openai_responses.NAME, root) | dict(profile.headers) | EVENT_STREAM
    body = "".join(found["events"][max(-1, int(after)) + 1 :]).encode()
    return whole(body, headers, content_type=b"text/event-stream; charset=utf-8")
