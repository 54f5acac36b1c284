"""What the public APIs keep, in Redis: a key a value, with the store's time to live; lists of keys as Redis
lists; each test id's keys in an index, so that its reset forgets them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from emulator.core.sse import encode, loads
from emulator.state.kept import Bounds, Kept, Scope
from emulator.state.redis.link import RedisLink


class RedisKept(Kept):
    def __init__(self, link: RedisLink, bounds: Bounds) -> None:
        self.link, self.bounds = link, bounds

    def _at(self, scope: Scope, key: str) -> str:
        return self.link.key("kept:", "\0".join((*scope, key)))

    def _list_at(self, scope: Scope, listing: str) -> str:
        return self.link.key("list:", "\0".join((*scope, listing)))

    def _index(self, test_id: str) -> str:
        return self.link.key("kept-index:", test_id)

    async def recall(self, scope: Scope, keys: Sequence[str]) -> list[Any]:
        found = await self.link.client().mget([self._at(scope, key) for key in keys])
        return [None if held is None else loads(held) for held in found]

    async def keep(self, scope: Scope, values: Mapping[str, Any]) -> None:
        bounds, index = self.bounds, self._index(scope[0])
        async with self.link.client().pipeline(transaction=False) as pipe:
            for key, value in values.items():
                encoded = encode(value)
                if len(encoded) <= bounds.size:  # as `Store.put`: a value larger than the whole store is not kept
                    pipe.set(self._at(scope, key), encoded, px=_ms(bounds.ttl))
                    pipe.sadd(index, self._at(scope, key))
            pipe.pexpire(index, _ms(bounds.ttl))
            await pipe.execute()

    async def claim(self, scope: Scope, key: str, value: Any) -> Any:
        encoded, at = encode(value), self._at(scope, key)
        client = self.link.client()
        held = await client.set(at, encoded, nx=True, get=True, px=_ms(self.bounds.ttl))
        if held is None:
            await client.sadd(self._index(scope[0]), at)
        return loads(held if isinstance(held, bytes) else encoded)

    async def forget(self, scope: Scope, key: str) -> bool:
        return bool(await self.link.client().delete(self._at(scope, key)))

    async def enlist(self, scope: Scope, listing: str, item: str) -> None:
        at, bounds = self._list_at(scope, listing), self.bounds
        async with self.link.client().pipeline(transaction=True) as pipe:
            pipe.lrem(at, 0, item)
            pipe.rpush(at, item)
            pipe.ltrim(at, -bounds.entries, -1)
            pipe.pexpire(at, _ms(bounds.ttl))
            pipe.sadd(self._index(scope[0]), at)  # forgotten with the test's kept values
            await pipe.execute()

    async def enlisted(self, scope: Scope, listing: str) -> list[str]:
        return [item.decode() for item in await self.link.client().lrange(self._list_at(scope, listing), 0, -1)]

    async def delist(self, scope: Scope, listing: str, item: str) -> None:
        await self.link.client().lrem(self._list_at(scope, listing), 0, item)

    async def reset(self, test_id: str | None) -> None:
        if test_id is None:
            await self.link.unlink_matching("kept:*", "list:*", "kept-index:*")
            return
        client, index = self.link.client(), self._index(test_id)
        stored = await client.smembers(index)
        await client.delete(index, *stored)


def _ms(seconds: float) -> int:
    return max(1, round(seconds * 1000))
