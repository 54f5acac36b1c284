"""Commands that concurrent requests send in the same turn of the event loop, written to Redis together on a
connection of this worker's own, and their replies read back in order as they come.

A command is queued with a future; the first one queued in a turn schedules the write for the next turn, when
every request that ran in this one has queued its own. Each command gets its own reply, or its own error: a script
Redis does not hold (NOSCRIPT, after a restart) is the caller's to load; a failure of the store (refused, closed,
no reply within the timeout, full) fails each command still waiting as the outage guard fails one alone, and the
next write connects again.

Why not redis-py's pipeline: its cost per pipeline (a pooled connection, the packer's encoder call and three joins
an argument, a timed write, a timed read and a response callback a reply) was most of a worker's time on Redis.
Here a turn's commands are one join and one write; the replies are parsed by hiredis (which redis-py uses too)
as they arrive, and a turn's write does not wait for the replies of the one before (Redis answers a connection's
commands in order). redis-py keeps every other command: the set-up, the journal's reads, reset.

The connection is made as redis-py makes it from the `--state` URL (`parse_url`: host and port, or a unix socket;
TLS for rediss://, with its `ssl_*` options; the user and password; the database), and its `socket_timeout` and
`socket_connect_timeout` are the waits; other client options of the URL do not apply to it."""

from __future__ import annotations

import asyncio
import collections
from collections.abc import Callable
from typing import Any

import hiredis
import redis
from redis.asyncio.connection import RedisSSLContext, SSLConnection, parse_url

from emulator.core.errors import StateUnavailable
from emulator.state.redis.outage import CONNECT_TIMEOUT, TIMEOUT, Outage, is_outage

# What an error reply's first word makes of it (redis-py's own classes: `is_outage` and the callers read them).
_ERRORS = {
    "NOSCRIPT": redis.exceptions.NoScriptError,
    "OOM": redis.exceptions.OutOfMemoryError,
    "READONLY": redis.exceptions.ReadOnlyError,
    "TRYAGAIN": redis.exceptions.TryAgainError,
}


_HEADS = [b"$%d\r\n" % n for n in range(1024)]  # the head of a bulk string of each length: formatted once
_SMALL = [b"$%d\r\n%d\r\n" % (len(str(n)), n) for n in range(1024)]  # each small whole number, packed


def pack(command: tuple[Any, ...]) -> bytes:
    """`command` (text, bytes, whole numbers, floats) as Redis reads it, byte for byte as redis-py packs it; a
    bool or anything else is refused (`redis.DataError`), as redis-py refuses it. Compiled, with the heads and the
    small numbers packed once: formatting each was a visible share of a worker's CPU on Redis."""
    parts = [b"*%d\r\n" % len(command)]
    for arg in command:
        if isinstance(arg, str):
            raw = arg.encode()
        elif isinstance(arg, bytes):
            raw = arg
        elif isinstance(arg, int) and not isinstance(arg, bool):
            if 0 <= arg < 1024:
                parts.append(_SMALL[arg])
                continue
            raw = str(arg).encode()
        elif isinstance(arg, float):
            raw = repr(arg).encode()
        else:
            kind = type(arg).__name__
            raise redis.DataError(f"Invalid input of type: '{kind}'. Convert to a bytes, string, int or float first.")
        size = len(raw)
        parts.append(_HEADS[size] if size < 1024 else b"$%d\r\n" % size)
        parts.append(raw)
        parts.append(b"\r\n")
    return b"".join(parts)


def _error(reply: hiredis.ReplyError) -> redis.RedisError:
    """An error reply as redis-py raises it."""
    message = str(reply)
    return _ERRORS.get(message.partition(" ")[0], redis.ResponseError)(message)


class _Sent:
    """One write's commands still waiting for their replies, in order."""

    __slots__ = ("futures", "at", "probe", "deadline")

    def __init__(self, futures: list[asyncio.Future[Any]], probe: bool, deadline: float) -> None:
        self.futures = futures
        self.at = 0  # the next reply is the reply of futures[at]
        self.probe = probe  # the command that tries a store that stopped answering (`Outage.admit`)
        self.deadline = deadline


class _Wire(asyncio.Protocol):
    """One connection to Redis: what was written on it, waiting for its replies, oldest first; each reply read
    as it comes and given to its command. Past the oldest write's deadline, or once the connection is lost, every
    command still waiting fails as the store's failure, and the connection is not written to again."""

    def __init__(self, outage: Outage) -> None:
        self.outage = outage
        self.transport: asyncio.Transport | None = None  # None: not yet made, or lost
        self._reader = hiredis.Reader()
        self._sent: collections.deque[_Sent] = collections.deque()
        self._timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def write(self, data: bytes, sent: _Sent) -> None:
        """Write commands; their replies are read as they come."""
        assert self.transport is not None
        self.transport.write(data)
        self._sent.append(sent)
        if self._timer is None:
            self._timer = asyncio.get_running_loop().call_at(sent.deadline, self._expire)

    def data_received(self, data: bytes) -> None:
        self._reader.feed(data)
        outage = self.outage
        while (reply := self._reader.gets()) is not False:
            sent = self._sent[0]
            future = sent.futures[sent.at]
            sent.at += 1
            if not future.done():  # else its caller gave up (cancelled)
                if type(reply) is hiredis.ReplyError:
                    error = _error(reply)
                    future.set_exception(outage.failure(error) if is_outage(error) else error)
                else:
                    future.set_result(reply)
            if sent.at == len(sent.futures):
                self._sent.popleft()
                if sent.probe:
                    outage.probing = False
                outage.success()

    def connection_lost(self, exc: Exception | None) -> None:
        self.drop(redis.ConnectionError(f"Connection to Redis lost: {exc}" if exc else "Connection closed by server."))

    def _expire(self) -> None:
        self._timer = None
        if not self._sent:
            return
        loop = asyncio.get_running_loop()
        if loop.time() < self._sent[0].deadline:
            self._timer = loop.call_at(self._sent[0].deadline, self._expire)
        else:
            self.drop(redis.TimeoutError("Timeout reading from Redis"))  # its late replies are no one's

    def drop(self, error: Exception) -> None:
        """Close the connection, and fail every command waiting on it with `error`."""
        transport, self.transport = self.transport, None
        if transport is not None:
            transport.abort()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        waiting, self._sent = self._sent, collections.deque()
        for sent in waiting:
            fail(self.outage, sent, error)


def fail(outage: Outage, sent: _Sent, error: Exception) -> None:
    """Fail the commands of `sent` still waiting, as the store's failure (counted in `outage` once a command)."""
    if sent.probe:
        outage.probing = False
    for future in sent.futures[sent.at :]:
        if not future.done():
            future.set_exception(outage.failure(error))


class Batcher:
    """Gathers the commands of one turn of the event loop into one write on this process's connection to Redis
    at `url` (made at the first write, and again at the first after it was lost), through `outage`, as the
    outage-guarded client's pipelines were."""

    def __init__(self, url: str, outage: Outage) -> None:
        self.outage = outage
        self._options: dict[str, Any] = dict(parse_url(url))
        self.timeout = float(self._options.get("socket_timeout") or TIMEOUT)
        self._queued: list[bytes] = []
        self._futures: list[asyncio.Future[Any]] = []
        self._once: dict[str, tuple[Callable[[], tuple[Any, ...]], asyncio.Future[Any], bool]] = {}
        self._flushing = False  # this turn's write is scheduled
        self._wire: _Wire | None = None
        self._unsent: list[tuple[bytes, _Sent]] = []  # held while the connection is made
        self._connecting: asyncio.Task[None] | None = None

    def send(self, *command: Any) -> asyncio.Future[Any]:
        """Queue `command`; the future of its reply."""
        future = self._scheduled()
        self._queued.append(pack(command))
        self._futures.append(future)
        return future

    def send_once(self, name: str, build: Callable[[], tuple[Any, ...]], ahead: bool = False) -> asyncio.Future[Any]:
        """Queue the command `build` makes as the turn's commands are written, once in the write however many
        callers ask for it by `name` in this turn, after the others (or `ahead` of them): the future of its one
        reply."""
        held = self._once.get(name)
        if held is not None:
            return held[1]
        future = self._scheduled()
        self._once[name] = (build, future, ahead)
        return future

    def _scheduled(self) -> asyncio.Future[Any]:
        """A future for a command of this turn's write, which is scheduled for the next turn if it is not yet."""
        loop = asyncio.get_running_loop()
        if not self._flushing:
            self._flushing = True
            loop.call_soon(self._flush)
        return loop.create_future()

    def close(self) -> None:
        """Close the connection; what waits on it fails as the store's closing."""
        if self._connecting is not None:
            self._connecting.cancel()
        if self._wire is not None:
            self._wire.drop(redis.ConnectionError("Connection closed by the emulator."))

    def _flush(self) -> None:
        queued, futures = self._queued, self._futures
        for build, future, ahead in self._once.values():  # built now, with all of this turn's counts in
            at = 0 if ahead else len(queued)
            queued.insert(at, pack(build()))
            futures.insert(at, future)
        data = b"".join(queued)
        self._queued, self._futures, self._once, self._flushing = [], [], {}, False
        try:
            probe = self.outage.admit()
        except StateUnavailable as exc:  # another command is trying a store that stopped answering
            self.outage.failed += len(futures) - 1  # admitted or refused as one, counted by command
            for future in futures:
                future.set_exception(StateUnavailable(str(exc)))
            return
        loop = asyncio.get_running_loop()
        sent = _Sent(futures, probe, loop.time() + self.timeout)
        wire = self._wire
        if wire is not None and wire.transport is not None:
            wire.write(data, sent)
            return
        self._unsent.append((data, sent))
        if self._connecting is None:
            self._connecting = loop.create_task(self._connect())

    async def _connect(self) -> None:
        """Connect, log in, and write what was held meanwhile; or fail it, as the store's failure."""
        options, loop = self._options, asyncio.get_running_loop()
        wire = _Wire(self.outage)
        try:
            async with asyncio.timeout(options.get("socket_connect_timeout") or CONNECT_TIMEOUT):
                if "path" in options:
                    await loop.create_unix_connection(lambda: wire, options["path"])
                else:
                    tls = _context(options) if options.get("connection_class") is SSLConnection else None
                    host, port = options.get("host", "localhost"), options.get("port", 6379)
                    await loop.create_connection(lambda: wire, host, port, ssl=tls)
                await _hello(wire, options, self.timeout)
        except BaseException as exc:
            self._connecting = None
            wire.drop(redis.ConnectionError("Connection closed by the emulator."))
            unsent, self._unsent = self._unsent, []
            slow = isinstance(exc, TimeoutError)
            error = (redis.TimeoutError if slow else redis.ConnectionError)(f"Error connecting to Redis: {exc}")
            for _, sent in unsent:
                fail(self.outage, sent, error)
            if not isinstance(exc, Exception):
                raise
            return
        self._connecting, self._wire = None, wire
        unsent, self._unsent = self._unsent, []
        for data, sent in unsent:
            wire.write(data, sent)


async def _hello(wire: _Wire, options: dict[str, Any], timeout: float) -> None:
    """Log in and pick the database on a new connection, as the URL says; an error reply raises."""
    commands: list[tuple[Any, ...]] = []
    if options.get("password") is not None:
        user, password = options.get("username"), options["password"]
        commands.append(("AUTH", password) if user is None else ("AUTH", user, password))
    if options.get("db"):
        commands.append(("SELECT", options["db"]))
    if commands:
        loop = asyncio.get_running_loop()
        futures = [loop.create_future() for _ in commands]
        wire.write(b"".join(map(pack, commands)), _Sent(futures, False, loop.time() + timeout))
        for future in futures:
            await future


def _context(options: dict[str, Any]) -> Any:
    """The TLS context a rediss:// URL's `ssl_*` options make, as redis-py makes it."""
    found = {name.removeprefix("ssl_"): value for name, value in options.items() if name.startswith("ssl_")}
    found.setdefault("cert_reqs", "required")
    found.setdefault("check_hostname", True)
    return RedisSSLContext(**found).get()
