"""Counts, rate-limit buckets and prompt caches in Redis: counters in hashes, the buckets' and the caches'
arithmetic in Lua scripts (as `limits.Limiter` and `caches.PromptCache` do it in a process)."""

from __future__ import annotations

import struct
from typing import Any

from emulator.core.conversation import Prompt
from emulator.core.wire import Headers
from emulator.rules import caches, limits, profiles
from emulator.state.buckets import Buckets, Caches
from emulator.state.counts import Counts
from emulator.state.redis.link import IDLE, RedisLink
from emulator.state.values import LAST, CallKey

CacheLookup = tuple[list[str], list[Any], caches.CacheModel]  # the cache script's keys and arguments, its model
_tuple = tuple.__new__  # a named tuple built as the tuple it is: its `__new__` is a Python call


class RedisCounts(Counts):
    def __init__(self, link: RedisLink) -> None:
        self.link = link
        self.attempts_at = link.key("attempts")

    async def next_call(self, key: CallKey) -> int:
        test_id, scenario, api_key = key
        return await self.link.count(self.link.key("calls:", test_id), f"{scenario}\0{api_key}")

    async def next_attempt(self, request: tuple[str, str, str]) -> int:
        return await self.link.count(self.attempts_at, "\0".join(request))

    async def issue(self, sequence: tuple[str, str, str], retry: str | None) -> int:
        test_id, api_key, digest = sequence
        field = f"{api_key}\0{digest}"
        asked = "" if retry is None else field + retry
        return int(await self.link.run("issue", [self.link.key("issued:", test_id)], [field, asked, IDLE, LAST]))

    async def reset(self, test_id: str | None) -> None:
        if test_id is None:
            await self.link.unlink_matching("attempts", "attempts:before", "calls:*", "issued:*")
            return
        key = self.link.key
        gone = (key("attempts"), key("attempts:before"), key("calls:", test_id), key("issued:", test_id))
        await self.link.client().delete(*gone)


class RedisBuckets(Buckets):
    """Each (test id, key)'s levels and when they were read, as packed doubles, taken by one Lua script."""

    def __init__(self, link: RedisLink, settings: limits.Limits) -> None:
        self.link = link
        self.enforce = settings.enforce
        self.sizes = limits.sizes(settings)
        # The buckets as the script takes them: size, rate and whether it counts tokens, for each, packed as doubles;
        # and the script's answer, each level, the bucket that refused and the wait, as doubles.
        plan = [float(x) for name, size, rate in self.sizes for x in (size, rate, name == "tokens_per_minute")]
        self.plan = struct.pack(f"<{len(plan)}d", *plan)
        self._verdicts = struct.Struct(f"<{len(self.sizes) + 2}d")

    async def take(self, scope: tuple[str, str], tokens: int, now: float) -> limits.Verdict:
        return await self._take(scope, tokens, now, self.enforce)

    async def report(self, scope: tuple[str, str], tokens: int, now: float, flavor: str) -> Headers:
        return limits.headers(flavor, await self._take(scope, tokens, now, False), now)

    async def _take(self, scope: tuple[str, str], tokens: int, now: float, enforce: bool) -> limits.Verdict:
        args = self.args(scope, tokens, now, enforce)
        return self.verdict(await self.link.run("buckets", [self.link.key("buckets:", scope[0])], args))

    def args(self, scope: tuple[str, str], tokens: int, now: float, enforce: bool) -> list[Any]:
        """The buckets script's arguments for a request of `tokens` at (test id, key)."""
        return [scope[1], repr(now), tokens, int(enforce), IDLE, self.plan]

    def verdict(self, out: bytes) -> limits.Verdict:
        """The buckets' verdict from the script's answer: each level, the bucket that refused, the wait."""
        n = len(self.sizes)
        levels = self._verdicts.unpack(out)
        spent, wait = int(levels[n]), levels[n + 1]
        buckets = {}
        for (name, size, rate), level in zip(self.sizes, levels[:n], strict=True):
            buckets[name] = limits.bucket(size, level, rate)
        return _tuple(limits.Verdict, (spent == 0, buckets, wait, self.sizes[spent - 1][0] if spent else None))

    async def reset(self, test_id: str | None) -> None:
        if test_id is not None:
            await self.link.client().delete(self.link.key("buckets:", test_id))
            return
        await self.link.unlink_matching("buckets:*")


class RedisCaches(Caches):
    """Per cache key, the prefix blocks in the order last seen and when, kept by a Lua script."""

    def __init__(self, link: RedisLink) -> None:
        self.link = link

    async def cached_tokens(self, profile: profiles.Profile, prompt: Prompt, now: float) -> int:
        looked = self.lookup(profile, prompt, now)
        if looked is None:
            return 0
        keys, args, model = looked
        return model.served(int(await self.link.run("cache", keys, args)))

    def lookup(self, profile: profiles.Profile, prompt: Prompt, now: float) -> CacheLookup | None:
        """The cache script's keys and arguments for `prompt`, and the cache's model (what its hits serve); None
        when the profile keeps no cache for it."""
        model = profile.cache
        key = model.key(prompt) if model is not None else ""
        if model is None or not key or not model.reaches(prompt):
            return None
        blocks = caches.prefix_blocks(prompt, model.block)
        keys = [self.link.key("cache:", profile.name, ":", key), self.link.key("cache-seen:", profile.name, ":", key)]
        return keys, [repr(now), repr(model.ttl), model.capacity, *blocks], model

    async def breakpoints(self, prompt: Prompt, now: float) -> int:
        """Anthropic's cache, one key per prefix written (expiring with its lifetime), by `lua/breakpoints.lua`."""
        if not any(life for _, _, life in prompt.prefixes):
            return 0
        keys = [self.link.key("cache-bp:", digest) for digest, _, _ in prompt.prefixes]
        args: list[Any] = []
        for _, tokens, life in prompt.prefixes:
            kept = life and tokens >= caches.BREAKPOINT_LEAST
            args += (tokens, round(life * 1000) if kept else 0)
        return int(await self.link.run("breakpoints", keys, args))

    async def reset(self) -> None:
        await self.link.unlink_matching("cache*")
