"""The journal and the metrics in Redis: entries written by a script that keeps the journal within its bounds,
read back by test id; each worker's counters published once it has answered, summed by `/metrics`."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Mapping, Sequence
from itertools import accumulate, pairwise
from typing import Any

from emulator import journal
from emulator.core.errors import StateUnavailable
from emulator.core.sse import encode, loads
from emulator.journal import Delivered, Entry, Note
from emulator.journal.delivery import chunks, compact
from emulator.state import metrics
from emulator.state.records import Records
from emulator.state.redis.link import RedisLink, retrieved


class RedisRecords(Records):
    """The journal and the metrics in Redis, over `link`; at most `capacity` entries and `max_bytes` of bodies."""

    def __init__(self, link: RedisLink, capacity: int, max_bytes: int) -> None:
        self.link = link
        self.capacity, self.max_bytes = capacity, max_bytes
        self.meter = metrics.Meter()  # this process's counters, published to Redis as it answers
        self._staged = 0  # this process's records staged, numbered
        self._open: dict[int, Entry] = {}  # journal entries opened here and not yet delivered
        self._unwritten = 0  # the last number given an entry not yet written (negative: Redis gives the ids)
        self._published = 0  # this process's publications of its counts, numbered
        key = link.key
        self._journalled_at = tuple(key("journal:", name) for name in ("order", "bytes", "dropped", "next"))
        self._counted_at = (key("metrics"), key("metrics:sequence"))
        self._entry_at, self._tests_at = key("journal:entry:"), key("journal:test:")  # then an id

    def _journalled(self, entry: Entry, delivered: Delivered | None) -> asyncio.Future[Any]:
        """Write an entry's record (a new one when its id is 0): staged under a name of this process's, then, in
        this turn's one call of the journal script however many entries the turn writes (`_gathered`), given its
        id and its place; the future of its id (0: an entry to complete that is no longer held)."""
        link = self.link
        link.client()
        record = _record(entry, delivered, link.worker)
        self._staged += 1
        staged = f"{link.staging}{self._staged}"
        link.batch.send("SET", staged, record, "PX", STAGED).add_done_callback(retrieved)  # its failure: the call's
        return link.gathered("journal", self._journal_head, (staged, len(record), entry.id, entry.test_id))

    def _journal_head(self) -> tuple[Sequence[str], Sequence[Any]]:
        return self._journalled_at, (self.capacity, self.max_bytes, self._entry_at, self._tests_at)

    async def open(self, note: Note) -> int:
        """As `Records.open`; but an answer sent whole (nothing streamed, paced, faulted or replayed: `_whole`) is
        journalled with its delivery, in `done`'s round trip, under a number of this process's until then."""
        self.link.client()
        entry = journal.noted(0, note, time.time())
        if _whole(note):
            self._unwritten -= 1
            entry_id = self._unwritten
        else:
            entry_id = int(await self._journalled(entry, None))
            if entry_id < 0:  # its record was refused, and the refusal counted (`Outage`): a 503, as any
                raise StateUnavailable("Redis refused the journal's record")
            entry = entry._replace(id=entry_id)
        self._open[entry_id] = entry
        if len(self._open) > self.capacity:  # one never delivered (a bug's): not kept for ever
            del self._open[next(iter(self._open))]
        return entry_id

    async def end(self, entry: int, ended: str) -> None:
        held = self._open.get(entry)
        if held is not None:  # its delivery writes it, with this
            self._open[entry] = held._replace(ended=ended)
            return
        client = self.link.client()
        try:
            at = self._entry_at + str(entry)
            record = _read(await client.get(at))
            if record is not None:
                fields, tail = record
                fields[_ENDED] = ended
                await client.set(at, b"".join((encode(fields), b"\n", tail)), xx=True)  # unless dropped meanwhile
        except StateUnavailable:
            pass  # the answer went out; the outage is logged and counted

    async def done(self, entry: int | None, delivered: Delivered, endpoint: str, profile: str) -> None:
        """As `Records.done`; the store failing here is counted in its outage, never raised: the answer went out.
        This worker's counts are published once a write to Redis, however many answers it carries
        (`Batcher.send_once`): built as it is written, the publication holds each one's count."""
        self.link.client()
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
        args = [self.link.worker, self._published, encode(metrics.snapshot(self.meter))]
        return list(self._counted_at), args

    def _publish(self) -> Awaitable[Any]:
        """Publish this worker's counts in this turn's write to Redis, once however many ask, as they stand when it
        is written; awaited, done."""
        return self.link.run_once("publish", self._publication)

    async def _views(self, test_id: str | None, since: int = 0) -> list[Kept]:
        """The journal's entries after id `since`, all or one test's, oldest first, as `_kept` reads them."""
        client = self.link.client()
        if not test_id:  # everyone's, or those of no test id (which have no index of their own)
            held = await client.zrangebyscore(self.link.key("journal:order"), f"({since}", "+inf")
            split = [member.split(b" ", 2) for member in held]
            ids = [entry_id for entry_id, _, test in split if test_id is None or not test]
        else:
            ids = await client.zrangebyscore(self._tests_at + test_id, f"({since}", "+inf")
        if not ids:
            return []
        found = zip(ids, await client.mget([self._entry_at + i.decode() for i in ids]), strict=True)
        return [kept for entry_id, raw in found if (kept := _kept(int(entry_id), raw)) is not None]

    async def entries(self, test_id: str | None = None) -> list[Entry]:
        return [entry._replace(headers={}, body=b"") for entry, _, _ in await self._views(test_id)]

    async def find(self, where: Mapping[str, str], since: int = 0, bodies: bool = True) -> list[dict[str, Any]]:
        found = []
        for entry, delivered, worker in await self._views(where.get("test_id"), since):
            listed = journal.summary(entry, delivered) | {"worker": worker}
            if journal.matches(listed, where):
                found.append(journal.full(listed, entry, delivered) if bodies else listed)
        return found

    async def entry(self, entry: int) -> dict[str, Any] | None:
        kept = _kept(entry, await self.link.client().get(self._entry_at + str(entry)))
        if kept is None:
            return None
        held, delivered, worker = kept
        return journal.full(journal.summary(held, delivered) | {"worker": worker}, held, delivered)

    async def dropped(self) -> int:
        return int(await self.link.client().get(self.link.key("journal:dropped")) or 0)

    async def clear(self, test_id: str | None = None) -> None:
        if test_id is not None:
            keys = [*self._journalled_at[:2], self._tests_at + test_id]
            await self.link.run("forget_test", keys, [self._entry_at, test_id])
            return
        client = self.link.client()
        found = [
            key
            for each in ("test:*", "entry:*", "staged:*")
            async for key in client.scan_iter(match=self.link.key("journal:", each), count=1000)
        ]
        names = ("order", "bytes", *_BEFORE)
        await client.delete(*(self.link.key("journal:", name) for name in names), *found)

    async def metered(self) -> metrics.Meter:
        client = self.link.client()
        await self._publish()
        return metrics.total(loads(raw) for raw in await client.hvals(self.link.key("metrics")))


def _whole(note: Note) -> bool:
    """Whether a note's answer is sent whole, at once (`pipeline.render`'s first branch, or a refusal): not
    streamed, paced, faulted, nor a recording played as recorded."""
    return not (note.stream or note.fault or note.timing or (note.source or "").startswith("recording "))


# What Redis keeps of an entry, under its key (`journal:entry:ID`): a line of JSON, then the request's body and the
# answer's bytes as they were sent. The JSON holds the entry's fields in `Entry`'s order (the request's headers with
# credentials masked, its body's length in place of the body), then its answer (`_answer`) and the worker that
# journalled it. The views are built from it as the journal is read, as the in-process journal builds them from its
# records. (Built as they were written, a summary of some thirty keys and the full view's parts, they were a tenth of
# a worker's time on Redis; the bodies as JSON text, escaped, a sixth of its time answering 200-event streams.)
Kept = tuple[Entry, Delivered | None, str]  # an entry read back: it, its answer, the worker that journalled it
_HEADERS, _BODY, _ENDED = (Entry._fields.index(name) for name in ("headers", "body", "ended"))
_LENGTH = len(Entry._fields) + 2
_BEFORE = ("entries", "ids", "tests")  # the journal's keys as it was kept before records: cleared too
STAGED = 60_000  # milliseconds a staged record is kept, should its script never run (the connection lost between)


def _record(entry: Entry, delivered: Delivered | None, worker: str) -> bytes:
    """An entry's record, as Redis keeps it."""
    fields: list[Any] = list(entry)
    fields[_HEADERS] = {k: journal.mask(k, v) for k, v in entry.headers.items()}  # masking is idempotent
    fields[_BODY] = len(entry.body)
    if delivered is None:
        fields += (None, worker)
        return b"".join((encode(fields), b"\n", entry.body))
    sent, answer = _answer(delivered)
    fields += (answer, worker)
    return b"".join((encode(fields), b"\n", entry.body, *sent))


def _answer(delivered: Delivered) -> tuple[list[bytes], list[Any]]:
    """What a record keeps of an answer: the bytes of each event as it was written (one write per event, up to the
    journal's cap), and its status, headers, where each event ends and when it was written."""
    written = chunks(compact(delivered))
    sent = [data for _, data in written]
    pairs = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in delivered.headers]
    ends = list(accumulate(map(len, sent)))
    times = [t for t, _ in written]
    return sent, [delivered.status, pairs, ends, times, delivered.size, delivered.ttft, delivered.duration]


def _read(raw: bytes | None) -> tuple[list[Any], bytes] | None:
    """A record's fields and the bytes after them; None when there is none, or it is another version's."""
    if raw is None:
        return None
    head, line, tail = raw.partition(b"\n")
    if not line or not head.startswith(b"["):
        return None
    fields = loads(head)
    return (fields, tail) if len(fields) == _LENGTH else None


def _kept(entry_id: int, raw: bytes | None) -> Kept | None:
    """An entry, its answer and its worker, back from its record (None: not held)."""
    record = _read(raw)
    if record is None:
        return None
    (*fields, answer, worker), tail = record
    fields[0] = entry_id  # a new entry's was 0: the script gave it the id it is kept under
    fields[_HEADERS] = dict(fields[_HEADERS])
    size = fields[_BODY]
    fields[_BODY] = tail[:size]
    usage, lenient = fields[_BODY + 1], fields[_BODY + 2]
    fields[_BODY + 1], fields[_BODY + 2] = usage and tuple(usage), tuple(lenient)
    delivered = None
    if answer is not None:
        status, headers, ends, times, total, ttft, duration = answer
        steps = tuple(tail[size + start : size + end] for start, end in pairwise([0, *ends]))
        pairs = tuple((k.encode("latin-1"), v.encode("latin-1")) for k, v in headers)
        marks = tuple(range(len(steps)))
        delivered = Delivered(status, pairs, steps, len(steps), total, ttft, duration, tuple(times), 0.0, marks)
    return Entry(*fields), delivered, worker
