"""What the server's connections (`emulator.server`) do with a turn of the event loop: the whole answers made in it
written together at its end (`Outbox`), and an app run outside any task until it first waits (`in_task`, with the
task that then carries it on, `_rest`); and the `Flag` it gives each request's cycle in place of an `asyncio.Event`.
Compiled with the connection."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Generator
from typing import Any, Protocol


class Held(Protocol):
    """A connection that holds answers for the outbox, and writes them when told."""

    def release(self) -> None: ...


async def in_task() -> None:
    """Be in a task from here on. A connection runs an app that says it may (its `eager` attribute) in a
    plain callback once its request is whole, outside any task, and gives it one only when it first waits: no task at
    all for an answer made at once (a task, its scheduling and its registration were a cost on every request). What
    needs the current task (anyio, sniffio, `asyncio.timeout`, so Starlette's routes, httpx and redis-py) awaits this
    first."""
    if asyncio.current_task() is None:
        await _Turn()


class _Turn:
    """A turn of the loop asked for (a bare `yield`, as `asyncio.sleep(0)`): outside a task, it hands on to one."""

    def __await__(self) -> Generator[None, None, None]:
        yield


async def _rest(coroutine: Coroutine[Any, Any, None], waiting: Any) -> None:
    """The rest of a coroutine begun in a callback (`connection.Connection._run`), which waited on `waiting`."""
    await _Resumed(coroutine, waiting)


class _Resumed:
    """A coroutine already started, driven on by the task that awaits this: what it yields goes up to the task, what
    the task sends or throws goes down to it (`yield from`, begun where the coroutine last yielded)."""

    def __init__(self, coroutine: Coroutine[Any, Any, None], waiting: Any) -> None:
        self.coroutine, self.waiting = coroutine, waiting

    def __await__(self) -> Generator[Any, None, None]:
        coroutine, waiting = self.coroutine, self.waiting
        # The turn it asked for to be in a task (None) is this very step, the task's first. A later None (a bare
        # `yield`, `asyncio.sleep(0)`) goes up to the task, which gives the loop its turn, as a future it waits on.
        handoff = waiting is None
        sent: Any = None
        while True:
            try:
                if handoff:
                    handoff, sent = False, None
                else:
                    sent = yield waiting
            except BaseException as exc:  # the task cancelled, or the future failed: thrown in where it waited
                try:
                    waiting = coroutine.throw(exc)
                except StopIteration:
                    return
            else:
                try:
                    waiting = coroutine.send(sent)
                except StopIteration:
                    return


class Outbox:
    """The whole answers of one turn of the loop, written together at its end.

    On loopback, a write wakes the client waiting to read it, and a wake-up of a client asleep on the other core costs
    the writer more than the write (an interrupt to that core, in `sock_def_readable`). Answers written one by one as
    each is made wake the load generator once each; held until the loop has made all it can in this turn, the first
    write wakes it and the others find it awake (bench/README.md has what it saved).

    One per server (in what its connections share, `connection.Shared`). The held bytes go out
    in the loop's next turn of ready callbacks, before it waits for more; a connection writes what it holds itself
    before anything else can go on it (`Held.release`), so the order on a connection is kept."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.holding: list[Held] = []

    def add(self, connection: Held) -> None:
        if not self.holding:
            self.loop.call_soon(self.send)
        self.holding.append(connection)

    def send(self) -> None:
        holding, self.holding = self.holding, []
        for connection in holding:
            connection.release()


class Flag:
    """What a request's exchange is told by its connection (a body came, the request is whole, the client left) and
    waits on, and a connection's writer waits on to drain: `asyncio.Event`'s four methods, with its behaviour,
    compiled with the connection (an `asyncio.Event`'s methods were five Python calls a request)."""

    def __init__(self) -> None:
        self.on = False
        self.waiters: list[asyncio.Future[bool]] = []

    def is_set(self) -> bool:
        return self.on

    def set(self) -> None:
        if not self.on:
            self.on = True
            for waiter in self.waiters:
                if not waiter.done():
                    waiter.set_result(True)

    def clear(self) -> None:
        self.on = False

    async def wait(self) -> bool:
        if self.on:
            return True
        waiter = asyncio.get_running_loop().create_future()
        self.waiters.append(waiter)
        try:
            await waiter
            return True
        finally:
            self.waiters.remove(waiter)
