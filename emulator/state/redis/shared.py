"""`SharedState`: the store interface over Redis (see the package's doc): counters, buckets and prompt caches;
the posted scenarios and the tests' directions; stored responses and threads; reset."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Any

from emulator import scenarios
from emulator.core.conversation import Prompt
from emulator.core.sse import encode, loads
from emulator.core.wire import Headers
from emulator.rules import limits, profiles
from emulator.rules.faults import FAULT_HEADER, TIMING_HEADER
from emulator.rules.validation import LENIENT_HEADER
from emulator.state import LAST, Before, CallKey, Directions, Look
from emulator.state.kept import Scope
from emulator.state.redis.base import IDLE
from emulator.state.redis.journal import JournalState

CacheLookup = tuple[list[str], list[Any], int]  # the cache script's keys and arguments, the tokens of a block
# Ids, versions and the metrics go on across a reset.
_tuple = tuple.__new__  # a named tuple built as the tuple it is: its `__new__` is a Python call
KEPT_ACROSS_RESET = ("journal:next", "journal:dropped", "posted:version", "metrics", "metrics:sequence")


class SharedState(JournalState):
    """A `State` whose shared part lives in Redis (see the package's doc)."""

    # --- counters, buckets, caches ---------------------------------------------------------------------------

    async def next_call(self, key: CallKey) -> int:
        test_id, scenario, api_key = key
        return await self._count(self._key("calls:", test_id), f"{scenario}\0{api_key}")

    async def next_attempt(self, request: tuple[str, str, str]) -> int:
        return await self._count(self._looked[2], "\0".join(request))

    async def issue(self, sequence: tuple[str, str, str], retry: str | None) -> int:
        test_id, api_key, digest = sequence
        field = f"{api_key}\0{digest}"
        asked = "" if retry is None else field + retry
        return int(await self._run("issue", [self._key("issued:", test_id)], [field, asked, IDLE, LAST]))

    async def take(self, scope: tuple[str, str], tokens: int, now: float) -> limits.Verdict:
        return await self._take(scope, tokens, now, self.settings.limits.enforce)

    async def report(self, scope: tuple[str, str], tokens: int, now: float, flavor: str) -> Headers:
        return limits.headers(flavor, await self._take(scope, tokens, now, False), now)

    async def _take(self, scope: tuple[str, str], tokens: int, now: float, enforce: bool) -> limits.Verdict:
        args = self._bucket_args(scope, tokens, now, enforce)
        return self._verdict(await self._run("buckets", [self._key("buckets:", scope[0])], args))

    def _bucket_args(self, scope: tuple[str, str], tokens: int, now: float, enforce: bool) -> list[Any]:
        return [scope[1], repr(now), tokens, int(enforce), IDLE, self._plan]

    def _verdict(self, out: bytes) -> limits.Verdict:
        """The buckets' verdict from the script's answer: each level, the bucket that refused, the wait."""
        n = len(self._buckets)
        levels = self._verdicts.unpack(out)
        spent, wait = int(levels[n]), levels[n + 1]
        buckets = {}
        for (name, size, rate), level in zip(self._buckets, levels[:n], strict=True):
            buckets[name] = limits.bucket(size, level, rate)
        return _tuple(limits.Verdict, (spent == 0, buckets, wait, self._buckets[spent - 1][0] if spent else None))

    async def cached_tokens(self, profile: profiles.Profile, prompt: Prompt, now: float) -> int:
        looked = self._cache_lookup(profile, prompt, now)
        if looked is None:
            return 0
        keys, args, block = looked
        return int(await self._run("cache", keys, args)) * block

    def _cache_lookup(self, profile: profiles.Profile, prompt: Prompt, now: float) -> CacheLookup | None:
        """The cache script's keys and arguments for `prompt`, and the tokens a block holds; None when the profile
        keeps no cache for it."""
        model, key = profile.cache, prompt.cache_key
        if model is None or not key:
            return None
        blocks = profiles.prefix_blocks(prompt, model.block)
        keys = [self._key("cache:", profile.name, ":", key), self._key("cache-seen:", profile.name, ":", key)]
        return keys, [repr(now), repr(model.ttl), model.capacity, *blocks], model.block

    async def before_shape(
        self,
        profile: profiles.Profile,
        prompt: Prompt,
        identity: tuple[str, str, str],
        tokens: int,
        flavor: str,
        look: Look | None = None,
    ) -> Before:
        """As `State.before_shape`, in one round trip: the directions looked up, the attempt, the buckets and the
        prompt cache, by one script, called once for every request of this turn (`_gathered`)."""
        now = time.time() if profile.cache or self.limited else 0.0
        enforce = self.limited and self.settings.limits.enforce
        test_id, sent = look or ("", {})
        args = [int(look is not None), test_id, int(FAULT_HEADER in sent), "\0".join(identity)]
        if self.limited:
            args += (7, self._key("buckets:", identity[0]), *self._bucket_args(identity[:2], tokens, now, enforce))
        else:
            args.append(0)
        looked = self._cache_lookup(profile, prompt, now)
        if looked is None:
            args.append(0)
        else:
            args += (2 + len(looked[1]), *looked[0], *looked[1])
        attempt, out, hits, *again = await self._gathered("before", self._before_head, args)
        if again:
            return Before(0, 0, again=await self._added(again[0], sent))
        cached = int(hits) * looked[2] if looked is not None else 0
        if not self.limited:
            return _tuple(Before, (cached, int(attempt), None, (), None))  # as the tuple it is: `Before(…)` is Python
        verdict = self._verdict(out)
        rates = limits.headers(flavor, verdict, now)
        return _tuple(Before, (cached, int(attempt), verdict if enforce else None, rates, None))

    def _before_head(self) -> tuple[Sequence[str], Sequence[Any]]:
        return self._looked, (self._version or b"", IDLE)

    # --- posted scenarios and the tests' directions --------------------------------------------------------

    async def refresh(self) -> None:
        await self._catch_up(await self._client().get(self._key("posted:version")) or b"0")

    async def _catch_up(self, version: bytes) -> bool:
        """Hold the posted scenarios of `version`, unless they are held already: each parsed again only when it
        changed. Whether they were not."""
        if version == self._version:
            return False
        async with self._client().pipeline(transaction=True) as pipe:  # the scenarios and their version, as one
            pipe.get(self._key("posted:version"))
            pipe.hgetall(self._key("posted"))
            current, held = await pipe.execute()  # the version None (none posted yet) as "0"
        parsed, found = {}, []
        for field, value in held.items():
            stamp, _, source = value.partition(b"\n")
            known = self._parsed.get(field)
            if known is None or known[0] != stamp:
                known = (stamp, scenarios.parse(loads(source))[0])
            parsed[field] = known
            found.append((tuple(map(int, stamp.split())), field.decode().partition("\0")[0], known[1]))
        posted: dict[str, dict[str, scenarios.Scenario]] = {}
        for _, test_id, scenario in sorted(found, key=lambda f: f[0]):  # oldest first, as `State.post` keeps them
            posted.setdefault(test_id, {})[scenario.name] = scenario
        self._posted, self._parsed, self._books = posted, parsed, {}
        self._version = current or b"0"
        return True

    async def post(self, test_id: str, posted: Sequence[scenarios.Scenario], sources: Sequence[Any] = ()) -> list[str]:
        if len(sources) != len(posted):
            raise ValueError("a shared state keeps posted scenarios as sent: give each one's source")
        args = [
            arg for s, source in zip(posted, sources, strict=True) for arg in (f"{test_id}\0{s.name}", encode(source))
        ]
        await self._run("post", [self._key("posted"), self._key("posted:version")], args)
        await self.refresh()
        return [s.name for s in posted]

    async def unpost(self, test_id: str, name: str) -> bool:
        removed = await self._run("unpost", [self._key("posted"), self._key("posted:version")], [f"{test_id}\0{name}"])
        await self.refresh()
        return bool(removed)

    async def listing(self) -> list[dict[str, Any]]:
        await self.refresh()
        return await super().listing()

    @property
    def directed(self) -> bool:
        """Always: another worker may have been told, so every request looks (`headers_for`)."""
        return True

    async def direct(self, test_id: str, directions: Directions) -> None:
        await self._client().hset(self._key("directions"), test_id, encode(asdict(directions)))

    async def undirect(self, test_id: str) -> bool:
        return bool(await self._client().hdel(self._key("directions"), test_id))

    async def directions(self, test_id: str) -> Directions | None:
        mine, everyone = await self._client().hmget(self._key("directions"), [test_id, ""])
        held = mine or everyone
        return None if held is None else Directions(**loads(held))

    async def headers_for(self, test_id: str, sent: Mapping[str, str]) -> dict[str, str]:
        """As `State.headers_for`, a fault's `times` counted down in Redis; and the posted scenarios are brought up
        to date on the way."""
        return await self._added(await self._direct(test_id, sent), sent)

    async def look_up(self, test_id: str, sent: Mapping[str, str]) -> dict[str, str] | None:
        """As `State.look_up`: None unless the test has directions or the posted scenarios moved on."""
        found = await self._direct(test_id, sent)
        moved = found[0] != self._version
        added = await self._added(found, sent)
        return added if found[1] is not None or moved else None

    def _direct(self, test_id: str, sent: Mapping[str, str]) -> Any:
        """The `direct` script's answer (the posted scenarios' version, the directions, whether a fault struck);
        awaited."""
        return self._run("direct", list(self._looked[:2]), [test_id, int(FAULT_HEADER in sent)])

    async def _added(self, found: Sequence[Any], sent: Mapping[str, str]) -> dict[str, str]:
        """The headers the `direct` script's answer adds to those `sent`; the posted scenarios caught up with."""
        version, held, struck = found
        await self._catch_up(version)
        if held is None:
            return {}
        directions = loads(held)
        added = {FAULT_HEADER: directions["spec"]} if struck else {}
        if directions.get("timing") and TIMING_HEADER not in sent:
            added[TIMING_HEADER] = directions["timing"]
        if directions.get("scenario") and scenarios.SCENARIO_HEADER not in sent:
            added[scenarios.SCENARIO_HEADER] = directions["scenario"]
        if directions.get("lenient"):
            added[LENIENT_HEADER] = "1"
        return added

    # --- stored responses and threads ------------------------------------------------------------------------

    def _kept_at(self, scope: Scope, key: str) -> str:
        return self._key("kept:", "\0".join((*scope, key)))

    async def recall(self, scope: Scope, keys: Sequence[str]) -> list[Any]:
        found = await self._client().mget([self._kept_at(scope, key) for key in keys])
        return [None if held is None else loads(held) for held in found]

    async def keep(self, scope: Scope, values: Mapping[str, Any]) -> None:
        bounds, index = self.settings.kept, self._key("kept-index:", scope[0])
        async with self._client().pipeline(transaction=False) as pipe:
            for key, value in values.items():
                encoded = encode(value)
                if len(encoded) <= bounds.size:  # as `Store.put`: a value larger than the whole store is not kept
                    pipe.set(self._kept_at(scope, key), encoded, px=_ms(bounds.ttl))
                    pipe.sadd(index, self._kept_at(scope, key))
            pipe.pexpire(index, _ms(bounds.ttl))
            await pipe.execute()

    async def claim(self, scope: Scope, key: str, value: Any) -> Any:
        encoded, kept = encode(value), self._kept_at(scope, key)
        client = self._client()
        held = await client.set(kept, encoded, nx=True, get=True, px=_ms(self.settings.kept.ttl))
        if held is None:
            await client.sadd(self._key("kept-index:", scope[0]), kept)
        return loads(held if isinstance(held, bytes) else encoded)

    async def forget(self, scope: Scope, key: str) -> bool:
        return bool(await self._client().delete(self._kept_at(scope, key)))

    def _list_at(self, scope: Scope, listing: str) -> str:
        return self._key("list:", "\0".join((*scope, listing)))

    async def enlist(self, scope: Scope, listing: str, item: str) -> None:
        at, bounds = self._list_at(scope, listing), self.settings.kept
        async with self._client().pipeline(transaction=True) as pipe:
            pipe.lrem(at, 0, item)
            pipe.rpush(at, item)
            pipe.ltrim(at, -bounds.entries, -1)
            pipe.pexpire(at, _ms(bounds.ttl))
            pipe.sadd(self._key("kept-index:", scope[0]), at)  # forgotten with the test's kept values
            await pipe.execute()

    async def enlisted(self, scope: Scope, listing: str) -> list[str]:
        return [item.decode() for item in await self._client().lrange(self._list_at(scope, listing), 0, -1)]

    async def delist(self, scope: Scope, listing: str, item: str) -> None:
        await self._client().lrem(self._list_at(scope, listing), 0, item)

    # --- metrics and reset -------------------------------------------------------------------------------------

    async def reset(self, test_id: str | None = None) -> None:
        client = self._client()
        if test_id is None:
            kept = {self._key(name).encode() for name in KEPT_ACROSS_RESET}
            found = [k async for k in client.scan_iter(match=self._key("*"), count=1000) if k not in kept]
            if found:
                await client.unlink(*found)
            await client.incr(self._key("posted:version"))
            await self.refresh()
            return
        await self.clear(test_id)
        index = self._key("kept-index:", test_id)
        caches = [k async for k in client.scan_iter(match=self._key("cache*"), count=1000)]
        held = [f for f in await client.hkeys(self._key("posted")) if f.startswith(f"{test_id}\0".encode())]
        async with client.pipeline(transaction=False) as pipe:
            pipe.delete(self._key("calls:", test_id), self._key("buckets:", test_id), self._key("attempts"), *caches)
            pipe.hdel(self._key("directions"), test_id)
            pipe.smembers(index)
            pipe.delete(index, self._key("issued:", test_id))
            stored = (await pipe.execute())[2]
        if stored:
            await client.delete(*stored)
        if held:
            await self._run("unpost", [self._key("posted"), self._key("posted:version")], held)
        await self.refresh()


def _ms(seconds: float) -> int:
    return max(1, round(seconds * 1000))
