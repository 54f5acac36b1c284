"""Per-client state bounded however many clients come: at most `capacity` keys (test ids, API keys,
conversations), the least recently used forgotten first, so a server that runs for weeks against CI runs
that each bring a new test id does not grow without end.

Past `capacity`, the least recently used go a sixty-fourth of it at a time (one key below 128). A dict finds its
first key by walking past the slots its deleted keys left, until it is rebuilt: forgetting one key per new one
walked tens of thousands of them at a capacity of 100,000 (a request with a new conversation many times slower than
before it was full); forgetting in batches walks them once a batch."""

from __future__ import annotations

from collections.abc import Callable
from itertools import islice
from typing import Any, Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")

CAPACITY = 100_000  # the default: far more clients than one run has, a few tens of MB at most


class Recent(Generic[K, V]):
    """A mapping whose order is the order of use; past `capacity` keys the least recently used go. Its keys are held
    in a dict of its own, not by subclassing dict, so that it compiles: its `count` and `use`, on every request, were
    two Python calls."""

    def __init__(self, capacity: int = CAPACITY) -> None:
        self.capacity = capacity
        self._held: dict[K, V] = {}

    def use(self, key: K, default: V) -> V:
        """The value at `key` (`default`, stored, when there is none), now the most recently used."""
        held = self._held
        value = held.pop(key, default)
        held[key] = value
        if len(held) > self.capacity:
            self._forget_oldest()
        return value

    def count(self, key: K) -> int:
        """How often `key` was counted before; count it once more (a `Recent` of counts)."""
        held: dict[K, Any] = self._held
        before: int = held.pop(key, 0)
        held[key] = before + 1
        if len(held) > self.capacity:
            self._forget_oldest()
        return before

    def _forget_oldest(self) -> None:
        held = self._held
        for key in list(islice(held, max(1, self.capacity // 64))):
            del held[key]

    def get(self, key: K) -> V | None:
        return self._held.get(key)

    def pop(self, key: K) -> V | None:
        return self._held.pop(key, None)

    def __setitem__(self, key: K, value: V) -> None:
        self._held[key] = value

    def __contains__(self, key: object) -> bool:
        return key in self._held

    def __len__(self) -> int:
        return len(self._held)

    def clear(self) -> None:
        self._held.clear()

    def forget(self, which: Callable[[K], bool]) -> None:
        """Forget the keys `which` is true of."""
        held = self._held
        for key in [k for k in held if which(k)]:
            del held[key]
