"""The journal and the metrics in Redis: entries written by a script that keeps the journal within its bounds,
read back by test id; each worker's counters published once it has answered, summed by `/metrics`."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Mapping
from typing import Any

from emulator import journal, metrics
from emulator.delivery import chunks, compact
from emulator.errors import StateUnavailable
from emulator.journal import Delivered, Entry, Note
from emulator.shared_redis.base import RedisState
from emulator.sse import encode, loads


class JournalState(RedisState):
    """The journal and the metrics of a `RedisState`."""

    def _journal_keys(self, test_id: str) -> list[str]:
        return [*self._journalled_at, self._key("journal:test:", test_id)]

    def _journalled(self, entry: Entry, delivered: Delivered | None) -> Any:
        """Write an entry's view (a new one when its id is 0); the script's answer, its id, awaited."""
        return self._run("journal", self._journal_keys(entry.test_id), self._journal_args(entry, delivered))

    def _journal_args(self, entry: Entry, delivered: Delivered | None) -> list[Any]:
        view = _kept(entry, delivered)
        del view["id"]  # the script gives a new entry its id: it is the field the view is kept under
        view["worker"] = self.worker
        settings = self.settings
        args = [encode([entry.status, view]), entry.id, settings.journal_size, settings.journal_bytes]
        return [*args, self._key("journal:test:"), entry.test_id]

    async def open(self, note: Note) -> int:
        """As `State.open`; but an answer sent whole (nothing streamed, paced, faulted or replayed: `_whole`) is
        journalled with its delivery, in `done`'s round trip, under a number of this process's until then."""
        self._client()
        entry = journal.noted(0, note, time.time())
        if _whole(note):
            self._unwritten -= 1
            entry_id = self._unwritten
        else:
            entry_id = int(await self._journalled(entry, None))
            entry = entry._replace(id=entry_id)
        self._open[entry_id] = entry
        if len(self._open) > self.settings.journal_size:  # one never delivered (a bug's): not kept for ever
            del self._open[next(iter(self._open))]
        return entry_id

    async def end(self, entry: int, ended: str) -> None:
        held = self._open.get(entry)
        if held is not None:  # its delivery writes it, with this
            self._open[entry] = held._replace(ended=ended)
            return
        client = self._client()
        try:
            raw = await client.hget(self._key("journal:entries"), str(entry))
            if raw is not None:
                planned, view = loads(raw)
                await client.hset(self._key("journal:entries"), str(entry), encode([planned, view | {"ended": ended}]))
        except StateUnavailable:
            pass  # the answer went out; the outage is logged and counted

    async def done(self, entry: int | None, delivered: Delivered, endpoint: str, profile: str) -> None:
        """As `State.done`; the store failing here is counted in its outage, never raised: the answer went out.
        This worker's counts are published once a write to Redis, however many answers it carries
        (`Batcher.send_once`): built as it is written, the publication holds each one's count."""
        self._client()
        held = self._open.pop(entry, None) if entry is not None else None
        self.meter.count(endpoint, profile, delivered, held and (held.source, held.kind, held.usage))
        published = self._publish()
        for step in [published] if held is None else [self._journalled(held, delivered), published]:
            try:
                await step
            except StateUnavailable:  # the answer went out; the outage is logged and counted
                continue  # (`contextlib.suppress` is Python calls: three a use)

    def _publication(self) -> tuple[list[str], list[Any]]:
        """The `publish` script's keys and arguments: this worker's counts as they stand, numbered, so that an older
        publication landing later does not replace them."""
        self._published += 1
        args = [self.worker, self._published, encode(metrics.snapshot(self.meter))]
        return list(self._counted_at), args

    def _publish(self) -> Awaitable[Any]:
        """Publish this worker's counts in this turn's write to Redis, once however many ask, as they stand when it
        is written; awaited, done."""
        return self._run_once("publish", self._publication)

    async def _views(self, test_id: str | None, since: int = 0) -> list[tuple[int | None, dict[str, Any]]]:
        """The journal's entries after id `since`, all or one test's, oldest first: (the status their note
        planned, their view)."""
        client = self._client()
        index = self._key("journal:ids") if test_id is None else self._key("journal:test:", test_id)
        ids = await client.zrangebyscore(index, f"({since}", "+inf")
        if not ids:
            return []
        found = []
        for entry_id, raw in zip(ids, await client.hmget(self._key("journal:entries"), ids), strict=True):
            if raw is not None:  # dropped meanwhile
                planned, view = loads(raw)
                found.append((planned, {"id": int(entry_id)} | view))
        return found

    async def entries(self, test_id: str | None = None) -> list[Entry]:
        return [_entry(planned, view) for planned, view in await self._views(test_id)]

    async def find(self, where: Mapping[str, str], since: int = 0, bodies: bool = True) -> list[dict[str, Any]]:
        found = []
        for planned, view in await self._views(where.get("test_id"), since):
            summary = {k: v for k, v in view.items() if k not in _NOT_LISTED}
            if journal.matches(summary, where):
                found.append(_shown(planned, view) if bodies else summary)
        return found

    async def entry(self, entry: int) -> dict[str, Any] | None:
        raw = await self._client().hget(self._key("journal:entries"), str(entry))
        if raw is None:
            return None
        planned, view = loads(raw)
        return _shown(planned, {"id": entry} | view)

    async def dropped(self) -> int:
        return int(await self._client().get(self._key("journal:dropped")) or 0)

    async def clear(self, test_id: str | None = None) -> None:
        if test_id is not None:
            keys = self._journal_keys(test_id)
            await self._run("forget_test", [keys[0], keys[1], keys[2], keys[4], keys[6]], [])
            return
        client = self._client()
        tests = [key async for key in client.scan_iter(match=self._key("journal:test:*"), count=1000)]
        await client.delete(*(self._key("journal:", name) for name in ("entries", "ids", "bytes", "tests")), *tests)

    async def metered(self) -> metrics.Meter:
        client = self._client()
        await self._publish()
        return metrics.total(loads(raw) for raw in await client.hvals(self._key("metrics")))


def _whole(note: Note) -> bool:
    """Whether a note's answer is sent whole, at once (`pipeline.render`'s first branch, or a refusal): not
    streamed, paced, faulted, nor a recording played as recorded."""
    return not (note.stream or note.fault or note.timing or (note.source or "").startswith("recording "))


# Under this key, a kept entry holds its request's headers and body and its answer as they went out, as text
# (bytes read as latin-1, so byte for byte); its full view is built from them as it is read, as the in-process
# journal builds it. Built as it was written, the view parsed every event of a stream, and both bodies' JSON,
# on every request: a third of a worker's time answering 64-token streams on Redis.
RAW = "raw"
_NOT_LISTED = (*journal.FULL_ONLY, RAW)


def _kept(entry: Entry, delivered: Delivered | None) -> dict[str, Any]:
    """What Redis keeps of an entry: its summary (what a listing shows and a filter compares) and `RAW`."""
    kept = journal.summary(entry, delivered)
    answer = None
    if delivered is not None:
        written = chunks(compact(delivered))  # one write per event, up to the journal's cap
        pairs = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in delivered.headers]
        sent = [(t, data.decode("latin-1")) for t, data in written]
        answer = [delivered.status, pairs, sent, delivered.size, delivered.ttft, delivered.duration]
    headers = {k: journal.mask(k, v) for k, v in entry.headers.items()}  # no credential kept: masking is idempotent
    kept[RAW] = {"headers": headers, "body": entry.body.decode("latin-1"), "answer": answer}
    return kept


def _shown(planned: int | None, kept: Mapping[str, Any]) -> dict[str, Any]:
    """A kept entry's full view, as `journal.view` shows it (a view kept whole by an older version, as it is)."""
    raw = kept.get(RAW)
    if raw is None:
        return dict(kept)
    summary = {k: v for k, v in kept.items() if k != RAW}
    entry = _entry(planned, kept)._replace(headers=raw["headers"], body=raw["body"].encode("latin-1"))
    delivered = None
    if raw["answer"] is not None:
        status, headers, sent, size, ttft, duration = raw["answer"]
        steps = tuple(data.encode("latin-1") for _, data in sent)
        times, marks = tuple(t for t, _ in sent), tuple(range(len(sent)))
        pairs = tuple((k.encode("latin-1"), v.encode("latin-1")) for k, v in headers)
        delivered = Delivered(status, pairs, steps, len(steps), size, ttft, duration, times, 0.0, marks)
    return journal.full(summary, entry, delivered)


def _entry(planned: int | None, view: Mapping[str, Any]) -> Entry:
    """A journal entry back from its view, for the client report: bodies and headers are not needed there."""
    usage = view.get("usage")
    fields = {name: view.get(name) for name in Entry._fields}
    tokens = usage and tuple(usage[name] for name in journal.TOKENS)
    lenient = tuple(view.get("lenient") or ())
    return Entry(**fields | {"status": planned, "headers": {}, "body": b"", "usage": tokens, "lenient": lenient})
