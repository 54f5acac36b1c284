"""Scenarios posted at run time (`POST /_emulator/scenarios`), by test id ("" for everyone), by name, newest last;
and the book each test id is answered from: its own, then everyone's, newest first, then the files' not shadowed."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from emulator import scenarios

Files = Callable[[], scenarios.Book]  # the book of the scenario files in service, as it stands


class Posted:
    """The posted scenarios this process holds, and the books made of them on demand; `LocalPosted` keeps them
    here, `redis.posted.RedisPosted` in Redis, caught up with as they change. `files` is the book of the scenario
    files in service."""

    def __init__(self, files: Files) -> None:
        self.files = files
        self.held: dict[str, dict[str, scenarios.Scenario]] = {}
        self.books: dict[str, scenarios.Book] = {}

    def book_for(self, test_id: str) -> scenarios.Book:
        """The scenarios a request of `test_id` is answered from: the files' alone until any are posted."""
        if not self.held:
            return self.files()
        book = self.books.get(test_id)
        if book is None:
            own = reversed(self.held.get(test_id, {}).values()) if test_id else ()
            everyone = reversed(self.held.get("", {}).values())
            composed: dict[str, scenarios.Scenario] = {}
            for scenario in (*own, *everyone, *self.files().scenarios):  # in the order they are tried
                composed.setdefault(scenario.name, scenario)  # the first of a name shadows the rest
            book = self.books[test_id] = scenarios.Book(tuple(composed.values()))
        return book

    async def refresh(self) -> None:
        """Catch up with what other worker processes posted: nothing, in one process."""

    async def post(self, test_id: str, posted: Sequence[scenarios.Scenario], sources: Sequence[Any] = ()) -> list[str]:
        """Add scenarios for `test_id` ("" for everyone); one of a name already posted there is replaced.
        `sources` are the scenarios as sent (JSON or YAML, decoded), one each: what Redis keeps."""
        raise NotImplementedError

    async def unpost(self, test_id: str, name: str) -> bool:
        """Remove a posted scenario; whether there was one."""
        raise NotImplementedError

    async def listing(self) -> list[dict[str, Any]]:
        """Every scenario loaded: posted ones (with their test id) first, then the files'."""
        await self.refresh()
        posted = [
            {"name": s.name, "source": "posted", "test_id": test_id or None}
            for test_id, held in self.held.items()
            for s in reversed(held.values())
        ]
        return posted + [{"name": s.name, "source": s.source, "test_id": None} for s in self.files().scenarios]

    async def reset(self, test_id: str | None) -> None:
        raise NotImplementedError


class LocalPosted(Posted):
    async def post(self, test_id: str, posted: Sequence[scenarios.Scenario], sources: Sequence[Any] = ()) -> list[str]:
        held = self.held.setdefault(test_id, {})
        for scenario in posted:
            held.pop(scenario.name, None)
            held[scenario.name] = scenario
        self.books.clear()
        return [s.name for s in posted]

    async def unpost(self, test_id: str, name: str) -> bool:
        found = self.held.get(test_id, {}).pop(name, None) is not None
        self.books.clear()
        return found

    async def reset(self, test_id: str | None) -> None:
        if test_id is None:
            self.held.clear()
        else:
            self.held.pop(test_id, None)
        self.books.clear()
