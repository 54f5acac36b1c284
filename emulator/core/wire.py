"""What goes back to the client, as plain values: a `Whole` answer sent at once, or a `Script` of steps
(writes, pauses, hang-ups) that `player` plays. Building them is pure; sending a `Whole` is two ASGI messages.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Any

JSON = b"application/json"
# A test's own scope: its call counts, journal entries and rate-limit buckets are its own, so parallel
# test runs against one server never see each other's state.
TEST_ID = "x-emulator-test-id"
Headers = list[tuple[bytes, bytes]]  # raw, as ASGI sends them
Pairs = Sequence[tuple[bytes, bytes]]  # raw headers, only read


def broken_off(events: Iterable[bytes], after: int | None, error: bytes) -> Iterator[bytes]:
    """A stream's first `after` events (None: none), then `error` and nothing more: a `stream_error` fault, in
    whatever frame the dialect says an error mid-stream."""
    yield from islice(events, after or 0)
    yield error


# --- the steps of a script: writes, pauses, hang-ups (the fault plan in `faults` makes them) ---------

GARBAGE = b"lskdu018973t09sylgasjkfg1][]'./.sdlv"  # WireMock's RANDOM_DATA_THEN_CLOSE bytes


@dataclass(frozen=True, slots=True)
class Pause:
    seconds: float


@dataclass(frozen=True, slots=True)
class Hangup:
    """Stop writing. `reset`: with a TCP RST; `after`: keep the socket open this long first (None: forever)."""

    reset: bool = False
    after: float | None = 0.0


@dataclass(frozen=True, slots=True)
class Raw:
    """Bytes written straight to the socket, before any status line. A value of its own, not a subclass of
    `bytes`: a class compiled by mypyc cannot subclass a built-in type."""

    data: bytes


Step = bytes | Raw | Pause | Hangup


class Pieces:
    """`steps` with each write cut into `size`-byte pieces, each followed by `gap` (a pause) if given: what a
    `slice` or `drip` fault plays. Cut as they are played, not up front: a one-byte drip of a story is 61,000
    pieces, and 200 clients that left such streams early kept the server busy for a second afterwards, freeing
    the pieces nobody was sent. Iterated as often as asked."""

    __slots__ = ("steps", "size", "gap")

    def __init__(self, steps: list[Step], size: int, gap: Pause | None) -> None:
        self.steps, self.size, self.gap = steps, size, gap

    def __iter__(self) -> Iterator[Step]:
        size, gap = self.size, self.gap
        for step in self.steps:
            if not isinstance(step, bytes):
                yield step
                continue
            for at in range(0, len(step), size):
                yield step[at : at + size]
                if gap is not None:
                    yield gap


Steps = Sequence[Step] | Pieces | Iterator[Step]  # a script's steps; an iterator's are made as they are played


async def body(receive: Callable[[], Awaitable[Mapping[str, Any]]], limit: int, declared: str = "") -> bytes | None:
    """A request's body, read off the ASGI channel and joined once at the end (joining as it comes copies a
    large upload over and over); None past `limit` bytes, decided by its declared `content-length` before a
    byte is read where it has one. `ConnectionError` when the client left before the body was whole."""
    if declared.isdigit() and int(declared) > limit:
        return None
    pieces, size = [], 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise ConnectionError("the client disconnected before sending the whole body")
        piece = message.get("body", b"")
        pieces.append(piece)
        size += len(piece)
        if size > limit:
            return None
        if not message.get("more_body"):
            return b"".join(pieces)


def raw(headers: Mapping[str, str]) -> Headers:
    return [(k.encode("latin-1"), v.encode("latin-1")) for k, v in headers.items()]


def text(headers: Pairs) -> dict[str, str]:
    """Raw headers by name, as text: `raw` undone."""
    return {k.decode("latin-1"): v.decode("latin-1") for k, v in headers}


@dataclass(slots=True, unsafe_hash=True)  # native, as conversation.py's values
class Whole:
    """An answer sent at once: status line, headers, body. An ASGI app, so any route can return one. `entry`
    is the journal entry its delivery completes."""

    status: int
    headers: Headers
    body: bytes
    entry: int | None = None

    def __init__(self, status: int, headers: Headers, body: bytes, entry: int | None = None) -> None:
        self.status = status
        self.headers = headers
        self.body = body
        self.entry = entry

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": self.status, "headers": self.headers})
        await send({"type": "http.response.body", "body": self.body})


def whole(
    body: bytes,
    headers: Mapping[str, str] = {},
    status: int = 200,
    content_type: bytes = JSON,
    entry: int | None = None,
    rates: Pairs = (),
) -> Whole:
    """`body` with `headers` (and `rates`, raw already), then its length and type, as Starlette's `Response`
    would have sent them."""
    length = b"%d" % len(body)
    sent = [*raw(headers), *rates, (b"content-length", length), (b"content-type", content_type)]
    return Whole(status, sent, body, entry)


@dataclass(slots=True, unsafe_hash=True)  # native, as conversation.py's values
class Script:
    """An answer played step by step: `latency` seconds, the status line (unless not `started`: a fault that
    answers nothing well-formed), then `steps`. `entry` is the journal entry told who ended a hang-up."""

    steps: Steps
    status: int
    headers: Headers
    latency: float = 0.0
    started: bool = True
    entry: int | None = None

    def __init__(
        self,
        steps: Steps,
        status: int,
        headers: Headers,
        latency: float = 0.0,
        started: bool = True,
        entry: int | None = None,
    ) -> None:
        self.steps = steps
        self.status = status
        self.headers = headers
        self.latency = latency
        self.started = started
        self.entry = entry


def silent(kind: str, entry: int | None = None) -> Script:
    """The faults that answer nothing well-formed: `empty`, `garbage`, `hang`, `reset`."""
    if kind == "hang":
        steps: list[Step] = [Hangup(after=None)]
    elif kind == "garbage":
        steps = [Raw(GARBAGE), Hangup()]
    else:
        steps = [Hangup(reset=kind == "reset")]
    return Script(steps, 0, [], started=False, entry=entry)
