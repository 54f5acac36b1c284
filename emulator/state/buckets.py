"""Rate-limit buckets and prompt caches, as requests share them."""

from __future__ import annotations

from emulator.core.conversation import Prompt
from emulator.core.wire import Headers
from emulator.rules import caches, limits, profiles


class Buckets:
    """The rate-limit buckets of each (test id, key); `LocalBuckets` in this process, `RedisBuckets` in Redis."""

    async def take(self, scope: tuple[str, str], tokens: int, now: float) -> limits.Verdict:
        """Take a request and its tokens from the buckets of (test id, key)."""
        raise NotImplementedError

    async def report(self, scope: tuple[str, str], tokens: int, now: float, flavor: str) -> Headers:
        """Take from the buckets of (test id, key) that only report, and their headers in `flavor`."""
        raise NotImplementedError

    async def reset(self, test_id: str | None) -> None:
        """Fill the buckets again: one test's, or all."""
        raise NotImplementedError


class LocalBuckets(Buckets):
    def __init__(self, settings: limits.Limits, capacity: int) -> None:
        self.limiter = limits.Limiter(settings, capacity)

    async def take(self, scope: tuple[str, str], tokens: int, now: float) -> limits.Verdict:
        return self.limiter.take(scope, tokens, now)

    async def report(self, scope: tuple[str, str], tokens: int, now: float, flavor: str) -> Headers:
        return self.limiter.report(scope, tokens, now, flavor)

    async def reset(self, test_id: str | None) -> None:
        self.limiter.reset(test_id)


class Caches:
    """The profiles' prompt caches; `LocalCaches` in this process, `RedisCaches` in Redis."""

    async def cached_tokens(self, profile: profiles.Profile, prompt: Prompt, now: float) -> int:
        """Tokens of `prompt` the profile's prompt cache serves (0 for a profile without one)."""
        raise NotImplementedError

    async def breakpoints(self, prompt: Prompt, now: float) -> int:
        """Tokens of `prompt` Anthropic's cache reads (`caches.BreakpointCache`); its breakpoints written."""
        raise NotImplementedError

    async def reset(self) -> None:
        """Empty every cache (no test id scopes them)."""
        raise NotImplementedError


class LocalCaches(Caches):
    def __init__(self) -> None:
        self.by_profile = {p.name: caches.PromptCache(p.cache) for p in profiles.PROFILES.values() if p.cache}
        self.written = caches.BreakpointCache()

    async def cached_tokens(self, profile: profiles.Profile, prompt: Prompt, now: float) -> int:
        cache = self.by_profile.get(profile.name)
        return cache.cached_tokens(prompt, now) if cache else 0

    async def breakpoints(self, prompt: Prompt, now: float) -> int:
        return self.written.read(prompt, now)

    async def reset(self) -> None:
        for cache in self.by_profile.values():
            cache.reset()
        self.written.reset()
