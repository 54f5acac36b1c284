"""Per-client state bounded however many clients come: at most `capacity` keys (test ids, API keys,
conversations), the least recently used forgotten first, so a server that runs for weeks against CI runs
that each bring a new test id does not grow without end.

Past `capacity`, the least recently used go a sixty-fourth of it at a time (one key below 128). A dict finds its
first key by walking past the slots its deleted keys left, until it is rebuilt: forgetting one key per new one
walked tens of thousands of them at a capacity of 100,000 (7.5 µs a request with a new conversation, against 0.6
before it was full); forgetting in batches walks them once a batch."""

from __future__ import annotations

from collections.abc import Callable
from itertools import islice
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")

CAPACITY = 100_000  # the default: far more clients than one run has, a few tens of MB at most


class Recent(dict[K, V], Generic[K, V]):
    """A dict whose order is the order of use; past `capacity` keys the least recently used goes."""

    def __init__(self, capacity: int = CAPACITY) -> None:
        super().__init__()
        self.capacity = capacity

    def use(self, key: K, default: V) -> V:
        """The value at `key` (`default`, stored, when there is none), now the most recently used."""
        value = self.pop(key, default)
        self[key] = value
        if len(self) > self.capacity:
            self._forget_oldest()
        return value

    def count(self: Recent[K, int], key: K) -> int:
        """How often `key` was counted before; count it once more."""
        before = self.pop(key, 0)
        self[key] = before + 1
        if len(self) > self.capacity:
            self._forget_oldest()
        return before

    def _forget_oldest(self) -> None:
        for key in list(islice(self, max(1, self.capacity // 64))):
            del self[key]

    def forget(self, which: Callable[[K], bool]) -> None:
        """Forget the keys `which` is true of."""
        for key in [k for k in self if which(k)]:
            del self[key]
