"""The request journal: every request the emulator answered, recorded before any delay or fault runs,
so that a client that timed out is still visible (WireMock's rule). Bounded; newest last."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Mapping
from typing import Any, NamedTuple

CAPACITY = 10_000
LONG = 1024  # characters of any text a client sent that an entry keeps: the journal is bounded in bytes too


class Note(NamedTuple):
    """What the answering path knows of a request when it journals it (stage 5); the journal adds the rest."""

    method: str
    path: str
    model: str | None
    key: str  # the API key's last four characters, never the key
    stream: bool
    source: str | None  # the scenario that answered, or "default"; None when the request was refused
    fault: str | None  # the fault, in header grammar
    status: int | None  # the HTTP status sent (200 also when a stream then failed); None: no response
    attempt: int | None  # the SDKs' `x-stainless-retry-count`
    test_id: str  # `x-emulator-test-id`, or ""
    request: str = ""  # the request's identity: a retry of it has the same
    kind: str | None = None  # the fault's kind
    retry_after: float | None = None  # what the answer told the client to wait, in seconds
    retryable: bool | None = None  # whether an error status should be retried (`x-should-retry`, else the status)
    idempotency: str | None = None  # the client's `idempotency-key`: equal on every attempt at one call
    tier: str | None = None  # how a recording matched: exact, conversation, tool-results-differ
    nearest: str | None = None  # recordings loaded, none matched, the default answered: the closest, in words


class Entry(NamedTuple):
    """One journalled request: its id and time, its `Note`, and how its connection ended. A named tuple, not a
    dataclass: one is built for every request, and a tuple builds in a fifth of the time (bench/throughput.py)."""

    id: int
    time: float
    method: str
    path: str
    model: str | None
    key: str
    stream: bool
    source: str | None
    fault: str | None
    status: int | None
    attempt: int | None
    test_id: str
    request: str = ""
    kind: str | None = None
    retry_after: float | None = None
    retryable: bool | None = None
    idempotency: str | None = None
    tier: str | None = None
    nearest: str | None = None
    ended: str | None = None  # who ended a broken connection first: "client" or "server"


class Journal:
    def __init__(self, capacity: int = CAPACITY) -> None:
        self._entries: deque[Entry] = deque(maxlen=capacity)
        self._next = 1

    def add(self, note: Note) -> int:
        """Journal a request under the next id, now; that id. The entry is built as the tuple it is, with every
        field given (`ended` not yet known): through `Entry(…)`, a Python-level `__new__`, it took half again
        as long."""
        if len(note.model or "") + len(note.test_id) + len(note.fault or "") + len(note.idempotency or "") > LONG:
            note = _shortened(note)
        entry = tuple.__new__(Entry, (self._next, time.time(), *note, None))
        self._next += 1
        self._entries.append(entry)
        return entry.id

    def end(self, entry_id: int, ended: str) -> None:
        """Note who ended a request's connection: the client (it gave up) or the server (the fault ran out)."""
        for i in range(len(self._entries) - 1, -1, -1):
            if self._entries[i].id == entry_id:
                self._entries[i] = self._entries[i]._replace(ended=ended)
                return

    def entries(self, test_id: str | None = None) -> list[Entry]:
        return [e for e in self._entries if test_id is None or e.test_id == test_id]

    def find(self, where: Mapping[str, str]) -> list[dict[str, Any]]:
        """Entries whose fields equal the given values (as text), oldest first."""
        return [e._asdict() for e in self._entries if all(str(getattr(e, k, None)) == v for k, v in where.items())]

    def clear(self, test_id: str | None = None) -> None:
        """Forget every entry, or one test's."""
        if test_id is None:
            self._entries.clear()
        else:
            self._entries = deque((e for e in self._entries if e.test_id != test_id), maxlen=self._entries.maxlen)


def _shortened(note: Note) -> Note:
    """A note whose client-sent texts are cut to LONG characters, marked: 1,000 requests with a 1 MB model name
    held a gigabyte."""
    return note._replace(
        model=_cut(note.model),
        test_id=_cut(note.test_id) or "",
        fault=_cut(note.fault),
        idempotency=_cut(note.idempotency),
    )


def _cut(text: str | None) -> str | None:
    return f"{text[:LONG]}…[{len(text) - LONG} more]" if text and len(text) > LONG else text


def key_hint(key: str) -> str:
    return f"…{key[-4:]}" if key else ""
