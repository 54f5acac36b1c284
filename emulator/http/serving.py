"""An answering endpoint (chat completions, responses, messages, count_tokens) as a raw ASGI app: the pipeline run
for its request (`answering/rounds.py`), and what it answers sent, whole or played (`player.py`). `app.py` routes to it.

Compiled in the wheel, as the stages it runs are: as a Python closure in `app.py` it was a Python call a request,
and its steps (the clock, the scope's extensions, the delivery's record, the awaits) interpreted."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any

from emulator.answering.reading import Endpoint
from emulator.core.errors import StateUnavailable
from emulator.core.wire import Script, Whole
from emulator.dialects.error_bodies import error_answer
from emulator.http import player
from emulator.journal import at_once
from emulator.server import ARRIVED, WHOLE, in_task
from emulator.state import State

Run = Callable[[State, Endpoint, Any, Any], Awaitable[Whole | Script]]


class Answering:
    """The ASGI app of one answering endpoint: `run` (the pipeline) for `endpoint`, over `state`."""

    def __init__(self, state: State, endpoint: Endpoint, run: Run) -> None:
        self.state, self.endpoint, self.run = state, endpoint, run
        self.labels = (endpoint.name, endpoint.profile.name)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        arrived = time.perf_counter()
        state, endpoint = self.state, self.endpoint
        try:
            answer = await self.run(state, endpoint, scope, receive)
        except StateUnavailable as error:  # the shared state failed, even to journal the refusal: a 503, unjournalled
            answer = error_answer(endpoint.dialect, error, profile=endpoint.profile)
        extensions = scope.get("extensions", {})
        arrived = extensions.get(ARRIVED, arrived)  # the whole request was in (`emulator/server/`)
        labels = self.labels
        if isinstance(answer, Script):
            await in_task()  # it paces and waits: in a task, as any stream is
            await player.deliver(answer, scope, receive, send, state, arrived, labels)
            return
        # The common answer, sent here: no coroutine more on the hot path (what `Whole.__call__` does).
        status, headers, body = answer.status, answer.headers, answer.body
        whole = WHOLE in extensions  # our protocol writes it in one go (`server.WHOLE`)
        if not whole:  # under another server, a start and a body: the start goes first
            await send({"type": "http.response.start", "status": status, "headers": headers})
        delivered = at_once(status, headers, body, time.perf_counter() - arrived)
        # A client with its answer finds its entry complete, on any worker: completed before the body goes, or, in
        # process and whole, just after it, with nothing between that waits (the store is this process's, and the
        # protocol writes at once or holds), so that the client is not kept waiting on the journal (one on a single
        # connection waits on every step before the write).
        after = whole and state.in_process
        if not after:
            await state.journal.done(answer.entry, delivered, *labels)
        if whole:
            await send({"type": WHOLE, "status": status, "headers": headers, "body": body})
        else:
            await send({"type": "http.response.body", "body": body})
        if after:
            await state.journal.done(answer.entry, delivered, *labels)
