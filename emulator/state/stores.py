"""What requests share, as one set of stores: each behind its own interface (`Counts`, `Buckets`, `Caches`,
`Records`, `Kept`, `Directed`, `Posted`), in this process (`LocalStores`) or in Redis (`redis.RedisStores`).

Beside the stores, what a set of them does as one: `before_shape`, what a request's shape needs of several stores
taken at once (in Redis, in one round trip), and `reset`, `health` and `close`."""

from __future__ import annotations

import time

from emulator.core.conversation import Prompt
from emulator.rules import limits, profiles
from emulator.state.buckets import Buckets, Caches, LocalBuckets, LocalCaches
from emulator.state.counts import Counts, LocalCounts
from emulator.state.directions import Directed, LocalDirected
from emulator.state.kept import Kept, LocalKept
from emulator.state.posted import Files, LocalPosted, Posted
from emulator.state.records import LocalRecords, Records
from emulator.state.values import Before, Look, Settings

_tuple = tuple.__new__  # a named tuple built as the tuple it is: its `__new__` is a Python call


class Stores:
    """The stores requests share, and what they do as one."""

    # Whether its coroutines never wait, so that a request can be answered outside any task (`server.in_task`).
    in_process = True
    counts: Counts
    buckets: Buckets
    caches: Caches
    journal: Records
    kept: Kept
    directions: Directed
    posted: Posted

    async def before_shape(
        self,
        profile: profiles.Profile,
        prompt: Prompt,
        identity: tuple[str, str, str],
        tokens: int,
        flavor: str,
        look: Look | None = None,
    ) -> Before:
        """What requests share that a request's shape needs, taken at once: the tokens of `prompt` the profile's
        prompt cache serves, this attempt's number at `identity` (test id, key, conversation), and, where limits
        are set, `tokens` taken from the buckets of (test id, key): the verdict where they are enforced, and the
        rate-limit headers in `flavor`. First, given `look`, the test's directions, as `Directed.look_up` does: if
        it finds any, nothing is taken (`Before.again`)."""
        raise NotImplementedError

    async def reset(self, test_id: str | None = None) -> None:
        """Forget call counts, journal entries, rate-limit levels, posted scenarios, directions, stored responses
        and threads (all, or one test's); prompt caches and chaos attempts, which no test id scopes, all of them.
        Each store forgets its own, in process or in Redis."""
        await self.counts.reset(test_id)
        await self.journal.clear(test_id)
        await self.caches.reset()
        await self.buckets.reset(test_id)
        await self.kept.reset(test_id)
        await self.directions.reset(test_id)
        await self.posted.reset(test_id)

    async def health(self) -> str:
        """The stores' state as `/health` reports it: "ok", or (in Redis, failing) "unreachable"."""
        return "ok"

    async def close(self) -> None:
        """Let go of what the stores hold open (in Redis, this process's connections)."""


class LocalStores(Stores):
    """The stores in this process: plain values, bounded however many clients come."""

    def __init__(self, settings: Settings, files: Files) -> None:
        self.limits = settings.limits
        self.limited = bool(settings.limits)
        self.counts = self._counts = LocalCounts(settings.max_clients)
        self.buckets = self._buckets = LocalBuckets(settings.limits, settings.max_clients)
        self.caches = self._caches = LocalCaches()
        self.journal = LocalRecords(settings.journal_size, settings.journal_bytes)
        self.kept = LocalKept(settings.kept, settings.max_clients)
        self.directions = LocalDirected()
        self.posted = LocalPosted(files)

    async def before_shape(
        self,
        profile: profiles.Profile,
        prompt: Prompt,
        identity: tuple[str, str, str],
        tokens: int,
        flavor: str,
        look: Look | None = None,
    ) -> Before:
        if look is not None and (added := await self.directions.look_up(*look)) is not None:
            return Before(0, 0, again=added)
        # The stores' own values, read directly: awaiting each store's coroutine made one of each, on every request.
        now = time.time() if profile.cache or self.limited else 0.0
        cache = self._caches.by_profile.get(profile.name) if profile.cache else None
        cached = cache.cached_tokens(prompt, now) if cache else 0
        attempt = self._counts.attempts.count(identity)
        if not self.limited:
            return _tuple(Before, (cached, attempt, None, (), None))
        limiter = self._buckets.limiter
        if self.limits.enforce:
            verdict = limiter.take(identity[:2], tokens, now)
            return Before(cached, attempt, verdict, limits.headers(flavor, verdict, now))
        return _tuple(Before, (cached, attempt, None, limiter.report(identity[:2], tokens, now, flavor), None))
