"""The client of the shared state, each command (and each pipeline) through the `Outage`: a failure of the
store (down, paused, full, loading) becomes `StateUnavailable`, a 503, and the log says so once per outage."""

from __future__ import annotations

import logging
import time
from typing import Any

import redis
import redis.asyncio

from emulator.core.errors import StateUnavailable
from emulator.server.turns import in_task

# Seconds a command may take before the store counts as unreachable (a paused Redis never answers), unless the URL
# says otherwise (`?socket_timeout=`): long enough for a whole journal read, short beside a client's timeout.
TIMEOUT = 2.0
CONNECT_TIMEOUT = 1.0
HEALTH_TIMEOUT = 0.5  # `/health` answers within this, whatever the store does
# What a store that is down or full answers, besides a connection refused or a timeout: its refusals in words.
REFUSALS = ("OOM", "MISCONF", "LOADING", "BUSY", "READONLY", "MASTERDOWN", "EXECABORT", "TRYAGAIN")
_log = logging.getLogger("emulator.state")


class Outage:
    """Whether the store is failing, since when, and how many operations met it so: the log says so once when an
    outage begins and once when it ends, with the count, never a traceback per request. While the store does not
    answer in time (paused), one command at a time tries it (the probe) and the others fail at once, so that it
    does not hold every request for the timeout; a refused connection or a full store fail fast of themselves. It
    ends at the first success a `QUIET` second after the last failure: a full Redis still answers reads, and a read
    between two refused writes is no recovery."""

    QUIET = 1.0

    def __init__(self, shown: str) -> None:
        self.shown = shown
        self.since: float | None = None  # when the outage began (`time.monotonic`); None: the store answers
        self.last = 0.0  # the last failure the store itself gave
        self.failed = 0  # operations that failed since it began
        self.reason = ""
        self.probing = False
        self.slow = False  # the last failure was a timeout: the store holds what it is sent

    @property
    def down(self) -> bool:
        return self.since is not None

    def admit(self) -> bool:
        """Let a command try the store: whether it is the probe of an outage; `StateUnavailable` at once when
        another command is probing."""
        if self.since is None or not self.slow:
            return False
        if self.probing:
            self.failed += 1
            raise StateUnavailable(self.reason)
        self.probing = True
        return True

    def failure(self, exc: BaseException) -> StateUnavailable:
        """Count a failure the store gave; the error to answer with."""
        now = time.monotonic()
        self.reason = _reason(exc)
        self.slow = isinstance(exc, (redis.TimeoutError, TimeoutError))
        if self.since is None:
            self.since, self.failed = now, 0
            _log.warning(
                "the state store %s is unreachable (%s): answering 503 until it is back",
                self.shown,
                self.reason,
            )
        self.last = now
        self.failed += 1
        return StateUnavailable(self.reason)

    def success(self) -> None:
        if self.since is not None and time.monotonic() - self.last >= self.QUIET:
            took, failed = time.monotonic() - self.since, self.failed
            self.since = None
            _log.warning(
                "the state store %s is back after %.1f s; %d state operations failed meanwhile",
                self.shown,
                took,
                failed,
            )


def _reason(exc: BaseException) -> str:
    """A store's failure in a few words: its class and its message, on one line."""
    # Of a pipeline's failure, what Redis said, not the command it names (its keys and arguments).
    text = " ".join(str(exc).rpartition("caused error: ")[2].split())[:200]
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


_REFUSED = (redis.exceptions.OutOfMemoryError, redis.exceptions.ReadOnlyError, redis.exceptions.TryAgainError)


def is_outage(exc: BaseException) -> bool:
    """Whether a command's failure is the store's (down, paused, full, loading) rather than a bug of ours."""
    if isinstance(exc, redis.exceptions.NoScriptError):  # not loaded yet: redis-py loads it and tries again
        return False
    if isinstance(exc, (redis.ConnectionError, redis.TimeoutError, OSError, *_REFUSED)):
        return True
    if isinstance(exc, RuntimeError) and "closed" in str(exc):  # uvloop's word for a connection Redis dropped
        return True
    # A pipeline names the command first: "Command # 1 (HINCRBY …) of pipeline caused error: OOM command not …".
    said = str(exc).rpartition("caused error: ")[2].lstrip()
    return isinstance(exc, redis.ResponseError) and said.startswith(REFUSALS)


class Client(redis.asyncio.Redis):
    """redis-py's client, each command (and each pipeline) through the `Outage`: a failure of the store raises
    `StateUnavailable`, whatever state method sent it."""

    outage: Outage

    async def execute_command(self, *args: Any, **options: Any) -> Any:
        return await guarded(self.outage, super().execute_command(*args, **options))  # type: ignore[no-untyped-call]

    def pipeline(self, transaction: bool = True, shard_hint: str | None = None) -> Any:
        pipe = Pipeline(self.connection_pool, self.response_callbacks, transaction, shard_hint)
        pipe.outage = self.outage
        return pipe


class Pipeline(redis.asyncio.client.Pipeline):
    outage: Outage

    async def execute(self, raise_on_error: bool = True) -> Any:
        return await guarded(self.outage, super().execute(raise_on_error))


async def guarded(outage: Outage, command: Any) -> Any:
    """Await a command through `outage`, in a task: redis-py times its commands by the current task, and a request
    is begun outside any (`server.in_task`; the scripts' own connection, `batch`, needs none)."""
    await in_task()
    try:
        probe = outage.admit()
    except StateUnavailable:
        command.close()  # never awaited: the store is not asked
        raise
    try:
        result = await command
    except Exception as exc:
        if is_outage(exc):
            raise outage.failure(exc) from None
        raise
    finally:
        if probe:
            outage.probing = False
    outage.success()
    return result
