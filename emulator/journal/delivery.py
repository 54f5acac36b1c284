"""An answer as it went out (`Delivered`), as the journal keeps it (`compact`) and reads it back: what was written
and when (`chunks`), and, of a stream, its server-sent events (`events`).

The shell builds a `Delivered` as it delivers (`at_once` for an answer sent whole, `written` for a script's writes);
the journal keeps it by reference and reads it only when an entry is read.
"""

from __future__ import annotations

import base64
import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator, Sequence
from itertools import accumulate
from typing import Any, NamedTuple

from emulator.core.sse import loads
from emulator.dialects.bedrock import eventstream

BODY_CAP = 1024 * 1024  # bytes of one body an entry keeps; past it, the body is cut and marked
Chunks = Iterable[tuple[float, bytes]]  # what went out: (seconds since the request arrived, bytes)


class Delivered(NamedTuple):
    """How an answer went out, as the shell saw it: its status line (None: none was sent) and headers, what it
    wrote, the time to its first body byte and to its end (seconds since the request arrived), and the bytes
    written (`size`). `chunks` reads it back.

    What it wrote is kept as it was sent, by reference, and read back only when the journal is read: the
    first `writes` of `steps` (a script's writes, its pauses and hang-up left out). `times` (on
    `time.perf_counter`, from `arrived`) says when the writes from each of `marks` on began: a script's
    first, and its first after each pause. An answer sent whole has one write and no `times`.

    Its fields are tuples, bytes and numbers, so that the journal's copy of it (a plain tuple, see `Record`)
    is one the garbage collector stops tracking: a pause object per token of every paced stream the journal
    held was walked by every full collection."""

    status: int | None
    headers: Sequence[tuple[bytes, bytes]]
    steps: Sequence[bytes]
    writes: int
    size: int
    ttft: float | None
    duration: float
    times: tuple[float, ...] | None = None
    arrived: float = 0.0
    marks: tuple[int, ...] | None = None

    @property
    def cut(self) -> bool:
        return self.size > BODY_CAP


def chunks(delivered: Delivered) -> list[tuple[float, bytes]]:
    """What `delivered` wrote, when (seconds since the request arrived), up to `BODY_CAP` bytes."""
    written = delivered.steps[: delivered.writes]
    if delivered.times is None or delivered.marks is None:
        times = [delivered.duration] * delivered.writes
    else:  # each write at the time of the last mark at or before it
        marks, at = delivered.marks, delivered.times
        times = [at[bisect_right(marks, i) - 1] - delivered.arrived for i in range(len(written))]
    kept, size = [], 0
    for t, data in zip(times, written, strict=True):
        size += len(data)
        if size > BODY_CAP:
            break
        kept.append((t, data))
    return kept


# An answer written in more pieces than this, of fewer bytes each on average, is kept merged (`compact`): a
# stream writes an event at a time (a hundred bytes and more), a slice or drip fault a few bytes at a time.
MERGED_FROM, SMALL_WRITE = 64, 32
_EVENT_END = re.compile(rb"(?:\r\n|\n)(?:\r\n|\n)")  # what ends a server-sent event, as `events` splits them


def compact(delivered: Delivered) -> Delivered:
    """`delivered` as the journal keeps it: an answer written in many small pieces (a one-byte drip is a write
    and a mark per byte, some 76 bytes of objects per byte sent) merged into one write per server-sent event,
    each at the time of its last piece, and cut at `BODY_CAP` where `chunks` would cut it. What the journal
    shows from it is the same: the body, and each event's time (that of the write that completed it)."""
    writes = delivered.writes
    if writes < MERGED_FROM or delivered.size >= SMALL_WRITE * writes:
        return delivered
    steps = delivered.steps[:writes]
    ends = list(accumulate(map(len, steps)))
    kept = bisect_right(ends, BODY_CAP)  # as `chunks`: the write that goes past the cap, and all after, are not
    data = b"".join(steps[:kept])
    ending = {bisect_left(ends, found.end()) for found in _EVENT_END.finditer(data)}  # writes that end an event
    last = sorted({*ending, kept - 1} if kept else ending)  # the last piece of each merged write
    starts = [0, *(j + 1 for j in last[:-1])] if last else []
    merged = tuple(data[ends[i - 1] if i else 0 : ends[j]] for i, j in zip(starts, last, strict=True))
    marks, times = delivered.marks, delivered.times
    if marks is not None and times is not None:  # each merged write at the time of its last piece
        times, marks = tuple(times[bisect_right(marks, j) - 1] for j in last), tuple(range(len(merged)))
    return delivered._replace(steps=merged, writes=len(merged), times=times, marks=marks)


def at_once(status: int, headers: Sequence[tuple[bytes, bytes]], body: bytes, took: float) -> Delivered:
    """An answer sent whole, `took` seconds after its request arrived. Built as the tuple it is (see `add`).

    Its body kept as a copy of its own size: orjson's bytes hold the 4 KB it allocated to write in, whatever the
    length, so that a journal of 10,000 plain answers held 40 MB of them, where it needs 5."""
    kept = memoryview(body).tobytes()
    return _tuple(Delivered, (status, tuple(headers), (kept,), 1, len(body), took, took, None, 0.0, None))


_tuple = tuple.__new__


def events(chunks: Chunks) -> Iterator[dict[str, Any]]:
    """Server-sent events from the chunks that carried them: `{t, event?, data}` with `t` the milliseconds
    from the request's arrival to the chunk that completed the event, and `data` parsed when it is JSON. A
    comment (a keep-alive) is `{t, comment}`; bytes left over when the stream ended are `{t, partial}`."""
    pending, t = b"", 0.0
    for t, data in chunks:
        if pending[-1:] == b"\r" and data[:1] == b"\n":  # a CRLF split between two chunks
            pending, data = pending[:-1], b"\r" + data
        # Each byte is read once as it arrives, so the events do not depend on where the chunks were cut.
        pending += data.replace(b"\r\n", b"\n")
        *done, pending = pending.split(b"\n\n")
        for block in done:
            if block:
                yield {"t": ms(t)} | _event(block.decode("utf-8", "replace"))
    if pending:
        yield {"t": ms(t), "partial": pending.decode("utf-8", "replace")}


def lines(chunks: Chunks) -> Iterator[dict[str, Any]]:
    """NDJSON lines (Ollama's streams) from the chunks that carried them, as `events` gives SSE's: `{t, data}`,
    `data` parsed when it is JSON; bytes left over when the stream ended are `{t, partial}`."""
    pending, t = b"", 0.0
    for t, data in chunks:
        pending += data
        *done, pending = pending.split(b"\n")
        for line in done:
            if line.strip():
                text = line.decode("utf-8", "replace")
                try:
                    yield {"t": ms(t), "data": loads(line)}
                except (ValueError, RecursionError):
                    yield {"t": ms(t), "data": text}
    if pending:
        yield {"t": ms(t), "partial": pending.decode("utf-8", "replace")}


def frames(chunks: Chunks) -> Iterator[dict[str, Any]]:
    """AWS event-stream messages (Bedrock's streams) from the chunks that carried them, as `events` gives SSE's:
    `{t, event, data}`, an exception's `{t, exception, data}`. A `chunk` of InvokeModel's stream is the Anthropic
    event it carries (`{"bytes": <its JSON, base64>}`), named by its type. Bytes left over are `{t, partial}`."""
    pending, t = b"", 0.0
    for t, data in chunks:
        done, pending = eventstream.cut(pending + data)
        for headers, payload in done:
            try:
                parsed: Any = loads(payload)
            except (ValueError, RecursionError):
                parsed = payload.decode("utf-8", "replace")
            if headers.get(":message-type") != "event":
                yield {"t": ms(t), "exception": headers.get(":exception-type", ""), "data": parsed}
                continue
            kind = headers.get(":event-type", "")
            if kind == "chunk" and isinstance(parsed, dict) and isinstance(parsed.get("bytes"), str):
                try:
                    parsed = loads(base64.b64decode(parsed["bytes"]))
                    kind = str(parsed.get("type") or kind)
                except (ValueError, RecursionError):
                    pass
            yield {"t": ms(t), "event": kind, "data": parsed}
    if pending:
        yield {"t": ms(t), "partial": pending.hex()}


def _event(block: str) -> dict[str, Any]:
    found: dict[str, Any] = {}
    data = []
    for line in block.split("\n"):
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "data":
            data.append(value)
        elif name == "event":
            found["event"] = value
        elif not name:
            found["comment"] = value
    if data:
        text = "\n".join(data)
        try:
            found["data"] = loads(text.encode())
        except (ValueError, UnicodeError, RecursionError):
            found["data"] = text
    return found


def ms(seconds: float | None) -> float | None:
    """Seconds as the journal shows them: milliseconds, to the microsecond."""
    return None if seconds is None else round(seconds * 1000, 3)
