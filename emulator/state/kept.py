"""What the public APIs keep between calls (stored responses, message threads), bounded however long the server
runs: at most `entries` values and `size` bytes, the oldest out first, each for `ttl` seconds.

Values are bytes (JSON the caller encoded): the store counts exactly what it holds, hands out nothing a caller
could change in place, and a shared store for several worker processes would keep the same bytes. Each value
lives in a scope, (test id, API key), as the public APIs keep a response or a thread per organisation; a test's
reset forgets its own scopes. Time is a number the caller passes (`now`) to the `Store`; `Kept`, the store's
interface as requests share it, reads the clock.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from emulator.core.recent import Recent
from emulator.core.sse import encode, loads

Scope = tuple[str, str]  # (test id, API key)


@dataclass(frozen=True, slots=True)
class Bounds:
    entries: int = 10_000
    size: int = 64 * 1024 * 1024  # bytes, of values
    # The public API keeps a stored response for 30 days; scaled to a test run, an hour.
    ttl: float = 3600.0


DEFAULT = Bounds()


class Store:
    """Values by (scope, key), in the order they were kept: one kept again moves to the end."""

    def __init__(self, bounds: Bounds = DEFAULT) -> None:
        self.bounds = bounds
        self.size = 0  # bytes held
        self._held: OrderedDict[tuple[str, str, str], tuple[float, bytes]] = OrderedDict()  # → (expiry, value)

    def __len__(self) -> int:
        return len(self._held)

    def get(self, scope: Scope, key: str, now: float) -> bytes | None:
        """The value kept under `key`, None when there is none or it expired."""
        at = (scope[0], scope[1], key)
        held = self._held.get(at)
        if held is None:
            return None
        if held[0] <= now:
            self._drop(at)
            return None
        return held[1]

    def put(self, scope: Scope, key: str, value: bytes, now: float) -> bool:
        """Keep `value` under `key` from `now` for the time to live; the oldest go past the bounds. False, and
        nothing kept, for a value larger than the whole store."""
        if len(value) > self.bounds.size:
            return False
        at = (scope[0], scope[1], key)
        self._drop(at)
        self._held[at] = (now + self.bounds.ttl, value)
        self.size += len(value)
        # Every value lives equally long, so the oldest expire first: the expired are all at the front.
        while self._held and (
            next(iter(self._held.values()))[0] <= now
            or len(self._held) > self.bounds.entries
            or self.size > self.bounds.size
        ):
            self._drop(next(iter(self._held)))
        return True

    def add(self, scope: Scope, key: str, value: bytes, now: float) -> bytes:
        """Keep `value` under `key` unless a value is kept there already: what is kept there now (a value too
        large to keep is returned all the same)."""
        held = self.get(scope, key, now)
        if held is not None:
            return held
        self.put(scope, key, value, now)
        return value

    def delete(self, scope: Scope, key: str, now: float) -> bool:
        """Forget the value under `key`; whether there was one (not expired)."""
        return self.get(scope, key, now) is not None and self._drop((scope[0], scope[1], key))

    def clear(self, test_id: str | None = None) -> None:
        """Forget everything, or everything kept under one test id."""
        if test_id is None:
            self._held.clear()
            self.size = 0
            return
        for at in [at for at in self._held if at[0] == test_id]:
            self._drop(at)

    def _drop(self, at: tuple[str, str, str]) -> bool:
        held = self._held.pop(at, None)
        if held is None:
            return False
        self.size -= len(held[1])
        return True


class Kept:
    """What the public APIs keep as requests share it: JSON values by key, and lists of keys (stored chat
    completions, in the order made), in a scope; `LocalKept` in this process, `redis.kept.RedisKept` in Redis."""

    async def recall(self, scope: Scope, keys: Sequence[str]) -> list[Any]:
        """The values kept under `keys` in `scope`, each None when none is (or it expired)."""
        raise NotImplementedError

    async def keep(self, scope: Scope, values: Mapping[str, Any]) -> None:
        """Keep JSON values by key in `scope`, for the store's time to live; the oldest go past its bounds."""
        raise NotImplementedError

    async def claim(self, scope: Scope, key: str, value: Any) -> Any:
        """Keep `value` under `key` unless a value is kept there already: what is kept there now."""
        raise NotImplementedError

    async def forget(self, scope: Scope, key: str) -> bool:
        """Forget the value kept under `key`; whether there was one."""
        raise NotImplementedError

    async def enlist(self, scope: Scope, listing: str, item: str) -> None:
        """Add `item` at the end of the list `listing` in `scope`, for the store's time to live; at most the store's
        `entries` items, the oldest out first."""
        raise NotImplementedError

    async def enlisted(self, scope: Scope, listing: str) -> list[str]:
        """The items of the list `listing` in `scope`, oldest first (the values they name may be gone since)."""
        raise NotImplementedError

    async def delist(self, scope: Scope, listing: str, item: str) -> None:
        """Take `item` out of the list `listing` in `scope`."""
        raise NotImplementedError

    async def reset(self, test_id: str | None) -> None:
        """Forget what one test kept, or everything."""
        raise NotImplementedError


class LocalKept(Kept):
    def __init__(self, bounds: Bounds, capacity: int) -> None:
        self.bounds = bounds
        self.store = Store(bounds)
        self.lists: Recent[tuple[str, str, str], dict[str, float]] = Recent(capacity)  # item -> its expiry

    async def recall(self, scope: Scope, keys: Sequence[str]) -> list[Any]:
        now = time.monotonic()
        return [None if (held := self.store.get(scope, key, now)) is None else loads(held) for key in keys]

    async def keep(self, scope: Scope, values: Mapping[str, Any]) -> None:
        now = time.monotonic()
        for key, value in values.items():
            self.store.put(scope, key, encode(value), now)

    async def claim(self, scope: Scope, key: str, value: Any) -> Any:
        return loads(self.store.add(scope, key, encode(value), time.monotonic()))

    async def forget(self, scope: Scope, key: str) -> bool:
        return self.store.delete(scope, key, time.monotonic())

    async def enlist(self, scope: Scope, listing: str, item: str) -> None:
        held = self.lists.use((*scope, listing), {})
        now = time.monotonic()
        held.pop(item, None)
        held[item] = now + self.bounds.ttl
        while held and (len(held) > self.bounds.entries or next(iter(held.values())) <= now):
            del held[next(iter(held))]

    async def enlisted(self, scope: Scope, listing: str) -> list[str]:
        now = time.monotonic()
        return [item for item, expiry in (self.lists.get((*scope, listing)) or {}).items() if expiry > now]

    async def delist(self, scope: Scope, listing: str, item: str) -> None:
        (self.lists.get((*scope, listing)) or {}).pop(item, None)

    async def reset(self, test_id: str | None) -> None:
        self.store.clear(test_id)
        self.lists.forget(lambda key: test_id is None or key[0] == test_id)
