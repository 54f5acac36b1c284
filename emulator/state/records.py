"""The journal as requests share it: entries opened and completed as requests are answered, read back by the
admin API and the inspector; and the counters `/metrics` shows, counted as answers are done."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from emulator.journal import Delivered, Entry, Journal, Note
from emulator.state import metrics


class Records:
    """The store's interface; `LocalRecords` in this process, `redis.records.RedisRecords` in Redis. `meter` holds
    this process's counters."""

    meter: metrics.Meter

    async def open(self, note: Note) -> int:
        """Journal a request now, before its answer is delivered; its entry's id."""
        raise NotImplementedError

    async def end(self, entry: int, ended: str) -> None:
        """Note who ended a request's broken connection first: "client" or "server"."""
        raise NotImplementedError

    async def done(self, entry: int | None, delivered: Delivered, endpoint: str, profile: str) -> None:
        """An answer went out (`delivered`): complete its journal entry, and count it for `/metrics` by what the
        entry says of it (`endpoint` and `profile` name an answer that has none)."""
        raise NotImplementedError

    async def entries(self, test_id: str | None = None) -> list[Entry]:
        raise NotImplementedError

    async def find(self, where: Mapping[str, str], since: int = 0, bodies: bool = True) -> list[dict[str, Any]]:
        """Journal entries after id `since` whose fields equal the given values (as text), oldest first."""
        raise NotImplementedError

    async def entry(self, entry: int) -> dict[str, Any] | None:
        """One journal entry in full, if the journal still holds it."""
        raise NotImplementedError

    async def dropped(self) -> int:
        """Journal entries dropped to make room."""
        raise NotImplementedError

    async def clear(self, test_id: str | None = None) -> None:
        """Forget the journal: all of it, or one test's."""
        raise NotImplementedError

    async def metered(self) -> metrics.Meter:
        """What `/metrics` shows: this process's counters (in Redis, every worker's summed)."""
        raise NotImplementedError


class LocalRecords(Records):
    def __init__(self, capacity: int, max_bytes: int) -> None:
        self.journal = Journal(capacity, max_bytes)
        self.meter = metrics.Meter()

    async def open(self, note: Note) -> int:
        return self.journal.add(note)

    async def end(self, entry: int, ended: str) -> None:
        self.journal.end(entry, ended)

    async def done(self, entry: int | None, delivered: Delivered, endpoint: str, profile: str) -> None:
        found = self.journal.complete(entry, delivered) if entry is not None else None
        self.meter.count(endpoint, profile, delivered, found)

    async def entries(self, test_id: str | None = None) -> list[Entry]:
        return self.journal.entries(test_id)

    async def find(self, where: Mapping[str, str], since: int = 0, bodies: bool = True) -> list[dict[str, Any]]:
        return self.journal.find(where, since, bodies)

    async def entry(self, entry: int) -> dict[str, Any] | None:
        return self.journal.get(entry)

    async def dropped(self) -> int:
        return self.journal.dropped

    async def clear(self, test_id: str | None = None) -> None:
        self.journal.clear(test_id)

    async def metered(self) -> metrics.Meter:
        return self.meter
