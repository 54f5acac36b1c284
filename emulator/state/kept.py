"""What the public APIs keep between calls (stored responses, message threads), bounded however long the server
runs: at most `entries` values and `size` bytes, the oldest out first, each for `ttl` seconds.

Values are bytes (JSON the caller encoded): the store counts exactly what it holds, hands out nothing a caller
could change in place, and a shared store for several worker processes would keep the same bytes. Each value
lives in a scope, (test id, API key), as the public APIs keep a response or a thread per organisation; a test's
reset forgets its own scopes. Time is a number the caller passes (`now`): no clock here.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

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
