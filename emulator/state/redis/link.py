"""The link every store in Redis shares: this process's client (made after the fork), the keys under the prefix,
the scripts and their calls, gathered by turn of the event loop; a counter; and `/health`, which asks Redis."""

from __future__ import annotations

import asyncio
import os
import platform
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import redis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from emulator.core.errors import StateUnavailable
from emulator.state.redis.address import address, ping
from emulator.state.redis.batch import Batcher
from emulator.state.redis.outage import CONNECT_TIMEOUT, HEALTH_TIMEOUT, TIMEOUT, Client, Outage
from emulator.state.redis.scripts import SCRIPTS

# This process's id, kept up to date by a hook that runs in a forked child: `os.getpid()` is a system call, and a
# request asked it four times, a visible share of a worker's CPU on Redis.
_PROCESS = [os.getpid()]
os.register_at_fork(after_in_child=lambda: _PROCESS.__setitem__(0, os.getpid()))

POOL = 64  # connections to Redis a worker opens at most for commands other than the scripts (those go on one)
IDLE = 86_400  # seconds a counter or a bucket is kept unused: a bucket left that long is full again


class RedisLink:
    """This process's way to Redis, for every store there (see the package's doc). The client is made in the
    process that first uses it: a worker, after the fork; building the link checks that Redis answers, or raises
    `Unreachable`."""

    def __init__(self, url: str) -> None:
        self.address = address(url)
        ping(self.address)
        self.worker = ""  # host:pid of the process serving, once it serves: in the journal and the metrics
        self.staging = ""  # the prefix of this process's staged journal records (`RedisRecords`)
        # Any: redis-py types each reply as what either of its clients (sync, async) might return, bytes or str
        self._redis: Any = None
        self._pid = 0
        self._scripts: dict[str, Any] = {}
        self.batch: Batcher
        self._gathering: dict[str, _Gathering] = {}  # by script: what its callers gave this turn, until it is written
        self.outage = Outage(self.address.shown)

    # --- plumbing ------------------------------------------------------------------------------------------

    def client(self) -> Any:
        """This process's client: made on first use, and again in a process forked after that."""
        if self._redis is None or self._pid != _PROCESS[0]:
            options: dict[str, Any] = {"socket_timeout": TIMEOUT, "socket_connect_timeout": CONNECT_TIMEOUT}
            # One try more for a connection found closed (Redis restarted since it was pooled), none for a timeout,
            # and no backoff: the caller answers 503 at once rather than wait seconds for the store.
            retry = Retry(NoBackoff(), 1, supported_errors=(redis.ConnectionError,))
            # A burst of commands beyond the pool's connections waits for one (within the timeout): redis-py's
            # default pool refused the 101st at once ("Too many connections"), a 503 for a burst of Responses
            # requests storing their answers, or of first requests catching up with the posted scenarios.
            options |= {"max_connections": POOL, "timeout": TIMEOUT}
            pool = redis.asyncio.BlockingConnectionPool.from_url(self.address.connect, retry=retry, **options)
            self._redis = Client(connection_pool=pool)  # the URL's options win
            self._redis.auto_close_connection_pool = True
            self._redis.outage = self.outage
            self._pid = _PROCESS[0]
            self.worker = f"{platform.node()}:{self._pid}"
            self.staging = self.key("journal:staged:", self.worker, ":")  # the journal's records, before their id
            self._scripts = {name: self._redis.register_script(lua) for name, lua in SCRIPTS.items()}
            self.batch = Batcher(self.address.connect, self.outage)
        return self._redis

    async def close(self) -> None:
        """Close this process's connections (at the end of the loop they were made in)."""
        if self._redis is not None and self._pid == _PROCESS[0]:
            self.batch.close()
            await self._redis.aclose()
        self._redis = None

    def key(self, *parts: str) -> str:
        return f"{self.address.prefix}:{''.join(parts)}"

    async def run(self, script: str, keys: Sequence[str], args: Sequence[Any]) -> Any:
        """Run a script, in the write of this turn of the event loop (`Batcher`); loaded first if Redis does not
        hold it."""
        self.client()
        command = ("EVALSHA", self._scripts[script].sha, len(keys), *keys, *args)
        try:
            return await self.batch.send(*command)
        except redis.exceptions.NoScriptError:
            return await self._reloaded(script, command)

    def run_once(self, script: str, build: Callable[[], tuple[Sequence[str], Sequence[Any]]]) -> Awaitable[Any]:
        """Run a script once in this turn's write however many ask, with the keys and arguments `build` makes as
        the write is made (`Batcher.send_once`); queued at once: awaited, its reply."""
        self.client()
        sha = self._scripts[script].sha

        def command() -> tuple[Any, ...]:
            keys, args = build()
            return ("EVALSHA", sha, len(keys), *keys, *args)

        return self._once(self.batch.send_once(script, command), script, command)

    async def _once(self, reply: Awaitable[Any], script: str, command: Callable[[], tuple[Any, ...]]) -> Any:
        try:
            return await reply
        except redis.exceptions.NoScriptError:
            return await self._reloaded(script, command())

    async def _reloaded(self, script: str, command: tuple[Any, ...]) -> Any:
        """`command` again, in the next write, behind the script's load: once in it, however many commands found
        the script missing (after a restart of Redis, every request in flight does)."""
        loaded = self.loaded_ahead(script)
        again = self.batch.send(*command)
        await loaded
        return await again

    def loaded_ahead(self, script: str) -> asyncio.Future[Any]:
        """The script loaded in the next write, ahead of its other commands, once however many ask."""
        source = self._scripts[script].script
        return self.batch.send_once(f"SCRIPT LOAD {script}", lambda: ("SCRIPT", "LOAD", source), ahead=True)

    def gathered(
        self, script: str, head: Callable[[], tuple[Sequence[str], Sequence[Any]]], args: Sequence[Any]
    ) -> asyncio.Future[Any]:
        """`args` for `script`, in one call of it with those of every caller in this turn, after the keys and the
        arguments `head` makes as the write is made; the future of this caller's part of its answer (such a script
        answers a list, an item a caller, in order). One call where there were as many as requests: Redis parses
        one command and enters the script once, and what every caller shares is done once."""
        self.client()
        gathering = self._gathering.get(script)
        if gathering is None:
            gathering = self._gathering[script] = _Gathering()
            reply = self.batch.send_once(script, lambda: self._gathered_command(script, gathering, head))
            reply.add_done_callback(lambda done: self._gathered_replied(script, gathering, done))
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        gathering.args += args
        gathering.futures.append(future)
        return future

    def _gathered_command(
        self, script: str, gathering: _Gathering, head: Callable[[], tuple[Sequence[str], Sequence[Any]]]
    ) -> tuple[Any, ...]:
        """The command of a turn's gathering, made as its write is: callers after it go in the next."""
        del self._gathering[script]
        keys, leading = head()
        gathering.command = ("EVALSHA", self._scripts[script].sha, len(keys), *keys, *leading, *gathering.args)
        return gathering.command

    def _gathered_replied(self, script: str, gathering: _Gathering, reply: asyncio.Future[Any]) -> None:
        """Each caller's part of the answer, or the failure to each; when Redis had lost the script, the same call
        once more behind its load (as `_reloaded`, without a task: its reply comes back here)."""
        error = asyncio.CancelledError() if reply.cancelled() else reply.exception()
        if isinstance(error, redis.exceptions.NoScriptError) and not gathering.again:
            gathering.again = True
            self.loaded_ahead(script).add_done_callback(retrieved)  # its failure is the call's, reported by it
            again = self.batch.send(*gathering.command)
            again.add_done_callback(lambda done: self._gathered_replied(script, gathering, done))
            return
        parts = None if error is not None else reply.result()
        for i, future in enumerate(gathering.futures):
            if future.done():  # its caller gave up (cancelled)
                continue
            if parts is None:
                future.set_exception(error or StateUnavailable(f"the {script} script failed"))
            else:
                future.set_result(parts[i])

    async def count(self, key: str, field: str) -> int:
        """The count at `field` of the hash `key` before this one; counted once more, kept a day unused."""
        async with self.client().pipeline(transaction=False) as pipe:
            pipe.hincrby(key, field, 1)
            pipe.expire(key, IDLE)
            counted, _ = await pipe.execute()
        return int(counted) - 1

    async def unlink_matching(self, *patterns: str) -> None:
        """Delete every key under the prefix that matches one of `patterns` (glob-style, after the prefix)."""
        client = self.client()
        found = [k for pattern in patterns async for k in client.scan_iter(match=self.key(pattern), count=1000)]
        if found:
            await client.unlink(*found)

    async def health(self) -> str:
        """ "ok", or "unreachable" while the store fails (asked with a PING, within `HEALTH_TIMEOUT`)."""
        try:
            await asyncio.wait_for(self.client().ping(), HEALTH_TIMEOUT)
        except StateUnavailable:
            return "unreachable"
        except TimeoutError as exc:
            self.outage.failure(exc)
            return "unreachable"
        return "unreachable" if self.outage.down else "ok"


class _Gathering:
    """What the callers of one script in one turn gave (`RedisLink.gathered`): its arguments, their futures, and
    the command once made."""

    __slots__ = ("args", "futures", "command", "again")

    def __init__(self) -> None:
        self.args: list[Any] = []
        self.futures: list[asyncio.Future[Any]] = []
        self.command: tuple[Any, ...] = ()
        self.again = False  # made once more, behind the script's load


def retrieved(future: asyncio.Future[Any]) -> None:
    """A future whose failure another reports: marked as read, so that asyncio does not log it."""
    if not future.cancelled():
        future.exception()
