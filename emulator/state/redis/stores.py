"""The stores in Redis, as one set (`RedisStores`): what a request's shape needs of several of them taken in one
round trip, `/health`."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from emulator.core.conversation import Prompt
from emulator.rules import limits, profiles
from emulator.rules.faults import FAULT_HEADER
from emulator.state.posted import Files
from emulator.state.redis.counters import RedisBuckets, RedisCaches, RedisCounts
from emulator.state.redis.directions import RedisDirected
from emulator.state.redis.kept import RedisKept
from emulator.state.redis.link import IDLE, RedisLink
from emulator.state.redis.posted import RedisPosted
from emulator.state.redis.records import RedisRecords
from emulator.state.stores import Stores
from emulator.state.values import Before, Look, Settings

_tuple = tuple.__new__  # a named tuple built as the tuple it is: its `__new__` is a Python call


class RedisStores(Stores):
    """Every store over one `RedisLink` to `settings.state` (a redis:// URL)."""

    in_process = False  # its coroutines wait on Redis (and redis-py's calls go into a task first: `outage.guarded`)

    def __init__(self, settings: Settings, files: Files) -> None:
        if settings.state is None:
            raise ValueError("RedisStores needs settings.state, a redis:// URL")
        self.link = link = RedisLink(settings.state)
        self.limits = settings.limits
        self.limited = bool(settings.limits)
        self.counts = self._counts = RedisCounts(link)
        self.buckets = self._buckets = RedisBuckets(link, settings.limits)
        self.caches = self._caches = RedisCaches(link)
        self.journal = RedisRecords(link, settings.journal_size, settings.journal_bytes)
        self.kept = RedisKept(link, settings.kept)
        self.posted = self._posted = RedisPosted(link, files)
        self.directions = self._directions = RedisDirected(link, self._posted)
        self._looked = (
            link.key("posted:version"),
            link.key("directions"),
            link.key("attempts"),
            link.key("attempts:before"),
        )
        self._generation = settings.max_clients  # requests the attempts' current generation holds

    async def before_shape(
        self,
        profile: profiles.Profile,
        prompt: Prompt,
        identity: tuple[str, str, str],
        tokens: int,
        flavor: str,
        look: Look | None = None,
    ) -> Before:
        """In one round trip: the directions looked up, the attempt, the buckets and the prompt cache, by one
        script, called once for every request of this turn (`RedisLink.gathered`)."""
        now = time.time() if profile.cache or self.limited else 0.0
        enforce = self.limited and self.limits.enforce
        test_id, sent = look or ("", {})
        args = [int(look is not None), test_id, int(FAULT_HEADER in sent), "\0".join(identity)]
        if self.limited:
            bucket_at = self.link.key("buckets:", identity[0])
            args += (7, bucket_at, *self._buckets.args(identity[:2], tokens, now, enforce))
        else:
            args.append(0)
        looked = self._caches.lookup(profile, prompt, now)
        if looked is None:
            args.append(0)
        else:
            args += (2 + len(looked[1]), *looked[0], *looked[1])
        attempt, out, hits, *again = await self.link.gathered("before", self._before_head, args)
        if again:
            return Before(0, 0, again=await self._directions.added(again[0], sent))
        cached = looked[2].served(int(hits)) if looked is not None else 0
        if not self.limited:
            return _tuple(Before, (cached, int(attempt), None, (), None))  # as the tuple it is: `Before(…)` is Python
        verdict = self._buckets.verdict(out)
        rates = limits.headers(flavor, verdict, now)
        return _tuple(Before, (cached, int(attempt), verdict if enforce else None, rates, None))

    def _before_head(self) -> tuple[Sequence[str], Sequence[Any]]:
        return self._looked, (self._posted.version or b"", IDLE, self._generation)

    async def health(self) -> str:
        return await self.link.health()

    async def close(self) -> None:
        await self.link.close()
