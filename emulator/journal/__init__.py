"""The request journal: every request the emulator answered, with its body and, once delivered, its answer.

An entry is opened before any delay or fault runs, so that a client that timed out is still visible
(WireMock's rule), and completed when delivery ends. Bodies are kept by reference, as the bytes that came and
went, and decoded only when an entry is read: journalling stays cheap on the answering path. The journal is
bounded in entries and in bytes, the oldest going first, and counts what it dropped.

Layer: above the sources (scenarios, recordings, the default model), the dialects, the rules and the core. Its
other modules: `delivery` (an answer as it went out), `findings` (the client report), `transcript`, `assembly` and
`previews` (what the inspector reads into entries).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Final, NamedTuple

from emulator.core.conversation import Usage
from emulator.core.sse import loads
from emulator.journal.delivery import BODY_CAP as BODY_CAP
from emulator.journal.delivery import Delivered as Delivered
from emulator.journal.delivery import at_once as at_once
from emulator.journal.delivery import chunks, compact, events, frames, lines, ms

CAPACITY = 10_000
MAX_BYTES = 256 * 1024 * 1024  # bodies the journal holds, requests' and answers' together
LONG = 1024  # characters of any text a client sent that an entry keeps: the journal is bounded in bytes too
TEXT = 4096  # characters of a body that is not JSON (or was cut) shown as `body_text`
SECRET = ("authorization", "x-api-key", "api-key", "x-goog-api-key", "proxy-authorization", "cookie", "x-admin-token")


Tokens = tuple[int, int, int, int]  # an answer's usage as the journal keeps it, in the order of `TOKENS`
TOKENS = ("input_tokens", "output_tokens", "cached_tokens", "reasoning_tokens")


def tokens(usage: Usage) -> Tokens:
    return (usage.input_tokens, usage.output_tokens, usage.cached_tokens, usage.reasoning_tokens)


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
    endpoint: str = ""  # chat_completions, responses, messages, count_tokens
    profile: str = ""  # the profile that answered
    timing: str | None = None  # the pacing, in header grammar
    headers: Mapping[str, str] = {}  # the request's, by reference: credentials are masked when read
    body: bytes = b""  # the request's body, by reference
    usage: Tokens | None = None  # the answer's tokens
    lenient: tuple[str, ...] = ()  # what a public profile would have refused, had leniency not let it by


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
    endpoint: str = ""
    profile: str = ""
    timing: str | None = None
    headers: Mapping[str, str] = {}
    body: bytes = b""
    usage: Tokens | None = None
    lenient: tuple[str, ...] = ()
    ended: str | None = None  # who ended a broken connection first: "client" or "server"


# What the journal stores: plain tuples, each entry's fields in `Entry`'s order and each answer's in `Delivered`'s,
# their headers as two fields, the names and the values. The garbage collector stops tracking a plain tuple that holds
# nothing it could walk, where it walks a named tuple or a dict on every collection of its generation: a request
# left six tracked objects behind for as long as the journal kept it. It stops one level of tuples a collection,
# the innermost first (it finds them after the tuple that holds them): headers as pairs, a third level, were walked
# until a full collection, and a full collection of those was the p99 of a loaded server (a long pause, every second
# or two); as names and values, a record is let go by the collection after the first. (Made in two loops the core
# compiles: flattening them into one tuple (`chain`), or `zip(*pairs)`, cost more an answer.)
# Each record's header names are one tuple shared by every record with the same names in the same order (`_shared`),
# and its values one text or bytes, joined (`_joined`): a request's and an answer's headers were 20-40 objects a
# record, each freed 10,000 answers later, out of the processor's caches (the journal full, each answer's eviction
# frees one). Those frees, and the memory they kept, were a large share of the server's CPU an answer.
# Entries and answers are built back only as the journal is read.
Record = tuple[Any, ...]
_tuple = tuple.__new__
_HEADERS = Entry._fields.index("headers")  # in a record, the names there and the values after: a field more
_BODY = Entry._fields.index("body") + 1
_SENT = Delivered._fields.index("headers")
_TEST_ID, _SOURCE, _KIND = (Entry._fields.index(f) for f in ("test_id", "source", "kind"))
_USAGE = Entry._fields.index("usage") + 1
_SIZE = Delivered._fields.index("size") + 1
# The records are built field by field (`Journal.add`, `Journal.complete`), for these layouts:
assert (_HEADERS, _BODY, len(Note._fields), len(Entry._fields)) == (22, 24, 24, 27)
assert (_SENT, _SIZE, len(Delivered._fields)) == (1, 5, 10)
Counted = tuple[str | None, str | None, Tokens | None]  # what `/metrics` counts of an entry: source, fault, tokens


def _entry(record: Record) -> Entry:
    names = record[_HEADERS]
    headers = dict(zip(names, _values(names, record[_HEADERS + 1], "\0"), strict=True))
    return _tuple(Entry, (*record[:_HEADERS], headers, *record[_BODY:]))


def _apart(pairs: Sequence[tuple[bytes, bytes]]) -> tuple[tuple[bytes, ...], Any]:
    """Name and value pairs as the names (`_shared`) and the values (`_joined`): a level of tuples less, and two
    objects a record where there were two a header (see `Record`)."""
    names = tuple([name for name, _ in pairs])  # native loops, compiled
    return _shared(names), _joined(tuple([value for _, value in pairs]), b"\0")


_NAMES: Final[dict[tuple[Any, ...], tuple[Any, ...]]] = {}


def _shared(names: tuple[Any, ...]) -> tuple[Any, ...]:
    """The one tuple kept for these header names in this order: clients and answers repeat theirs."""
    found = _NAMES.get(names)
    if found is None:
        if len(_NAMES) >= 4096:  # names that vary without end (a client's own headers): kept per record again
            _NAMES.clear()
        found = _NAMES[names] = names
    return found


def _joined(values: tuple[Any, ...], nul: Any) -> Any:
    """Header values (texts, or bytes with `nul` as bytes) as one, NUL between them; as they are when one holds a
    NUL itself (`/_t/%00…`)."""
    joined = nul.join(values)
    return joined if joined.count(nul) == len(values) - 1 else values


def _values(names: tuple[Any, ...], kept: Any, nul: Any) -> tuple[Any, ...]:
    """The values `_joined` kept for `names`."""
    return kept if isinstance(kept, tuple) else tuple(kept.split(nul)) if names else ()


class Journal:
    def __init__(self, capacity: int = CAPACITY, max_bytes: int = MAX_BYTES) -> None:
        self._entries: deque[Record] = deque()
        self._answers: dict[int, Record] = {}  # a `Delivered`, by its entry's id
        self._capacity, self._max_bytes = capacity, max_bytes
        self._bytes = 0
        self._next = 1
        self.dropped = 0  # entries that went to make room

    def add(self, note: Note) -> int:
        """Journal a request under the next id, now; that id."""
        n, entry_id = bounded(note), self._next
        self._next += 1
        headers, body = n[20], n[21]
        names, values = _shared(tuple(headers)), _joined(tuple(headers.values()), "\0")
        # `Entry`'s fields one by one, the headers as two (`Record`): slices and a starred display cost more.
        # fmt: off
        record = (
            entry_id, time.time(), n[0], n[1], n[2], n[3], n[4], n[5], n[6], n[7], n[8], n[9], n[10], n[11], n[12],
            n[13], n[14], n[15], n[16], n[17], n[18], n[19], names, values, body, n[22], n[23], None,
        )
        # fmt: on
        self._entries.append(record)
        self._bytes += len(body)
        if len(self._entries) > self._capacity or self._bytes > self._max_bytes:
            self._make_room()
        return entry_id

    def complete(self, entry_id: int, delivered: Delivered) -> Counted | None:
        """Keep how a request's answer went out; what `/metrics` counts of its entry, if the journal still holds
        it."""
        entries = self._entries
        record = entries[-1] if entries and entries[-1][0] == entry_id else self._find(entry_id)  # mostly the last
        if record is None:
            return None
        d = compact(delivered)
        names, values = _apart(d[1])
        self._answers[entry_id] = (d[0], names, values, d[2], d[3], d[4], d[5], d[6], d[7], d[8], d[9])  # as in `add`
        self._bytes += d[4]
        if self._bytes > self._max_bytes:
            self._make_room()
        return record[_SOURCE], record[_KIND], record[_USAGE]

    def end(self, entry_id: int, ended: str) -> None:
        """Note who ended a request's connection: the client (it gave up) or the server (the fault ran out)."""
        for i in range(len(self._entries) - 1, -1, -1):
            if self._entries[i][0] == entry_id:
                self._entries[i] = (*self._entries[i][:-1], ended)
                return

    def entries(self, test_id: str | None = None) -> list[Entry]:
        return [_entry(e) for e in self._entries if test_id is None or e[_TEST_ID] == test_id]

    def find(self, where: Mapping[str, str], since: int = 0, bodies: bool = True) -> list[dict[str, Any]]:
        """Entries after id `since` whose fields equal the given values (as text), oldest first; with their
        bodies and answers, or (`bodies` false) only what a list shows."""
        found = []
        test_id = where.get("test_id")
        for record in self._after(since):
            if test_id is not None and record[_TEST_ID] != test_id:  # the common filter, before any entry is built
                continue
            entry, delivered = _entry(record), self._delivered(record[0])
            listed = summary(entry, delivered)
            if matches(listed, where):
                found.append(full(listed, entry, delivered) if bodies else listed)
        return found

    def get(self, entry_id: int) -> dict[str, Any] | None:
        """One entry in full, or None if it is not (or no longer) in the journal."""
        record = self._find(entry_id)
        if record is None:
            return None
        return view(_entry(record), self._delivered(entry_id))

    def clear(self, test_id: str | None = None) -> None:
        """Forget every entry, or one test's."""
        kept = deque(e for e in self._entries if test_id is not None and e[_TEST_ID] != test_id)
        self._answers = {e[0]: self._answers[e[0]] for e in kept if e[0] in self._answers}
        self._entries = kept
        self._bytes = sum(_size(e, self._answers.get(e[0])) for e in kept)

    def _delivered(self, entry_id: int) -> Delivered | None:
        found = self._answers.get(entry_id)
        if found is None:
            return None
        names = found[_SENT]
        headers = tuple(zip(names, _values(names, found[_SENT + 1], b"\0"), strict=True))
        return _tuple(Delivered, (*found[:_SENT], headers, *found[_SENT + 2 :]))

    def _find(self, entry_id: int) -> Record | None:
        """The entry of that id, looked for from the newest: the one being completed is almost always there."""
        for i in range(len(self._entries) - 1, -1, -1):
            record = self._entries[i]
            if record[0] <= entry_id:
                return record if record[0] == entry_id else None
        return None

    def _after(self, since: int) -> Iterator[Record]:
        if not since:
            return iter(self._entries)
        first = next((i for i in range(len(self._entries) - 1, -1, -1) if self._entries[i][0] <= since), -1)
        return (self._entries[i] for i in range(first + 1, len(self._entries)))

    def _make_room(self) -> None:
        """Drop the oldest entries until the journal is within its count and its bytes (keeping the newest)."""
        while len(self._entries) > 1 and (len(self._entries) > self._capacity or self._bytes > self._max_bytes):
            gone = self._entries.popleft()
            self._bytes -= _size(gone, self._answers.pop(gone[0], None))
            self.dropped += 1


def bounded(note: Note) -> Note:
    """`note` with its client-sent texts and body cut to their bounds."""
    if len(note.model or "") + len(note.test_id) + len(note.fault or "") + len(note.idempotency or "") > LONG:
        note = _shortened(note)
    if len(note.body) > BODY_CAP:
        note = note._replace(body=note.body[: BODY_CAP + 1])  # one byte past the cap: marks it cut
    return note


def noted(entry_id: int, note: Note, at: float) -> Entry:
    """The entry journalling `note` under `entry_id` at time `at`, its client-sent texts and body cut to their
    bounds. Built as the tuple it is, with every field given (`ended` not yet known): through `Entry(…)`, a
    Python-level `__new__`, it took half again as long."""
    return _tuple(Entry, (entry_id, at, *bounded(note), None))


def _size(record: Record, delivered: Record | None) -> int:
    return len(record[_BODY]) + (delivered[_SIZE] if delivered else 0)


def source_kind(source: str | None) -> str | None:
    """What kind of source answered: `scenario`, `recording`, `default` or `fallback` (the fallback upstream, a real
    model: `--fallback-upstream`) (None: the request was refused)."""
    if source is None:
        return None
    if source == "default" or source == "fallback":
        return source
    return "recording" if source.startswith("recording ") else "scenario"


def view(entry: Entry, delivered: Delivered | None) -> dict[str, Any]:
    """An entry in full, as the journal's API shows it: what a shared store keeps of it."""
    return full(summary(entry, delivered), entry, delivered)


FULL_ONLY = ("headers", "body", "body_text", "response")  # what a full view adds to the summary


def matches(summary: Mapping[str, Any], where: Mapping[str, str]) -> bool:
    """Whether an entry's fields equal the given values, as text (the journal's filter)."""
    return all(str(summary.get(k)) == v for k, v in where.items())


def summary(entry: Entry, delivered: Delivered | None) -> dict[str, Any]:
    """An entry's fields, bodies aside: what the inspector's list shows and what filters compare."""
    fields: dict[str, Any] = dict(zip(Entry._fields, entry, strict=True))  # not `_asdict()`, a Python call
    del fields["headers"], fields["body"], fields["usage"]
    usage = entry.usage
    fields["source_kind"] = kind = source_kind(entry.source)
    fields["deterministic"] = kind != "fallback"  # a real model's answer is not the same twice
    fields["lenient"] = list(entry.lenient)  # as JSON has it, here as in a shared store
    fields["usage"] = usage and dict(zip(TOKENS, usage, strict=True))
    fields["truncated"] = len(entry.body) > BODY_CAP or bool(delivered and delivered.cut)
    fields["ttft_ms"] = ms(delivered.ttft) if delivered else None
    fields["duration_ms"] = ms(delivered.duration) if delivered else None
    if delivered and delivered.status is not None:
        fields["status"] = delivered.status  # what was sent; the note's is what was planned
    return fields


def full(listed: dict[str, Any], entry: Entry, delivered: Delivered | None) -> dict[str, Any]:
    """A summary with the request's headers (credentials masked) and body, and the answer as it went out."""
    shown = listed | {"headers": {k: mask(k, v) for k, v in entry.headers.items()}} | _body(entry.body)
    shown["response"] = _answer(delivered) if delivered else None
    return shown


def _answer(delivered: Delivered) -> dict[str, Any]:
    headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in delivered.headers}
    answer: dict[str, Any] = {"status": delivered.status, "headers": headers}
    kind = headers.get("content-type", "")
    if kind.startswith("text/event-stream"):
        answer["events"] = list(events(chunks(delivered)))
    elif kind.startswith("application/x-ndjson"):  # Ollama's streams: a JSON object a line
        answer["events"] = list(lines(chunks(delivered)))
    elif kind.startswith("application/vnd.amazon.eventstream"):  # Bedrock's: AWS's binary frames
        answer["events"] = list(frames(chunks(delivered)))
    else:
        answer |= _body(b"".join(data for _, data in chunks(delivered)), delivered.cut)
    answer |= {"ttft_ms": ms(delivered.ttft), "duration_ms": ms(delivered.duration)}
    return answer


def _body(raw: bytes, cut: bool = False) -> dict[str, Any]:
    """`body`, parsed, when it is whole JSON; else `body` null and `body_text`, its first characters."""
    if not cut and len(raw) <= BODY_CAP:
        try:
            return {"body": loads(raw) if raw else None}
        except (ValueError, UnicodeError, RecursionError):
            pass
    text = raw[:TEXT].decode("utf-8", "replace")
    more = len(raw) - TEXT
    return {"body": None, "body_text": text + (f"…[{more} more bytes]" if more > 0 else "")}


def mask(name: str, value: str) -> str:
    """A header's value as the journal shows it: a credential cut to a hint of its last four characters."""
    if name in SECRET or "token" in name or "secret" in name:
        scheme, _, rest = value.partition(" ") if value.lower().startswith("bearer ") else ("", "", value)
        return f"{scheme} {key_hint(rest)}".strip() if rest else value
    return value


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
