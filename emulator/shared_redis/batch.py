"""Commands that concurrent requests send in the same turn of the event loop, sent to Redis as one pipeline: one
write and one read for all of them, where redis-py's cost per call (a pooled connection, a timed write, a
read) was most of a worker's time on Redis (issue 32).

A command is queued with a future; the first one queued in a turn schedules the flush for the next turn, when
every request that ran in this one has queued its own. Each command gets its own reply, or its own error: a
script Redis does not hold (NOSCRIPT, after a restart) is the caller's to load; a failure of the store fails each
command of the batch as the outage guard would have failed it alone.

Each command is packed by `packing`'s connections, for arguments of the types the state sends (text, bytes, whole
numbers) in one join: redis-py's packer (an encoder call and three joins an argument) was a third of a worker's time
on Redis once the calls were batched."""

from __future__ import annotations

import asyncio
from typing import Any

from emulator.errors import StateUnavailable
from emulator.shared_redis.outage import Outage, is_outage

_PLAIN = (str, bytes, int)  # the types `packing` packs itself (not bool, float, memoryview: redis-py's packer)


def packing(connection_class: type[Any]) -> type[Any]:
    """A connection class like `connection_class` whose commands of plain arguments are packed in one join."""

    class Packing(connection_class):  # type: ignore[misc]
        def pack_command(self, *args: Any) -> list[bytes]:
            name = args[0]
            if type(name) is not str or " " in name or any(type(arg) not in _PLAIN for arg in args):
                return super().pack_command(*args)  # type: ignore[no-any-return]
            encoding, errors = self.encoder.encoding, self.encoder.encoding_errors
            parts = [b"*%d\r\n" % len(args)]
            for arg in args:
                kind = type(arg)
                raw = arg if kind is bytes else arg.encode(encoding, errors) if kind is str else b"%d" % arg
                parts += (b"$%d\r\n" % len(raw), raw, b"\r\n")
            return [b"".join(parts)]

    Packing.__name__ = Packing.__qualname__ = f"Packing{connection_class.__name__}"
    return Packing


class Batcher:
    """Gathers the commands of one turn of the event loop into one pipeline on `client` (an outage-guarded
    `Client`, whose pipelines go through the guard)."""

    def __init__(self, client: Any, outage: Outage) -> None:
        self.client = client
        self.outage = outage
        self._queued: list[tuple[tuple[Any, ...], asyncio.Future[Any]]] = []
        self._tasks: set[asyncio.Task[None]] = set()  # batches in flight, held until done

    def send(self, *command: Any) -> asyncio.Future[Any]:
        """Queue `command`; the future of its reply."""
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        if not self._queued:
            loop.call_soon(self._flush)
        self._queued.append((command, future))
        return future

    def _flush(self) -> None:
        queued, self._queued = self._queued, []
        task = asyncio.get_running_loop().create_task(self._execute(queued))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _execute(self, queued: list[tuple[tuple[Any, ...], asyncio.Future[Any]]]) -> None:
        try:
            async with self.client.pipeline(transaction=False) as pipe:
                for command, _ in queued:
                    pipe.execute_command(*command)
                replies = await pipe.execute(raise_on_error=False)
        except Exception as exc:  # the guard made a failure of the store `StateUnavailable`: each command's
            if isinstance(exc, StateUnavailable):
                self.outage.failed += len(queued) - 1  # the guard counted the batch once
            down = isinstance(exc, StateUnavailable)
            for _, future in queued:
                if not future.done():
                    future.set_exception(StateUnavailable(self.outage.reason) if down else exc)
            return
        except BaseException:  # cancelled (the loop ends): so are the commands
            for _, future in queued:
                future.cancel()
            raise
        for (_, future), reply in zip(queued, replies, strict=True):
            if future.done():  # its caller gave up (cancelled)
                continue
            if isinstance(reply, Exception):
                future.set_exception(self.outage.failure(reply) if is_outage(reply) else reply)
            else:
                future.set_result(reply)
