"""What goes back to the client, as plain values: a `Whole` answer sent at once, or a `Script` of steps
(writes, pauses, hang-ups) that `player` plays. Building them is pure; sending a `Whole` is two ASGI messages.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from emulator.faults import GARBAGE, Hangup, Raw, Step, Steps

JSON = b"application/json"
Headers = list[tuple[bytes, bytes]]  # raw, as ASGI sends them
Pairs = Sequence[tuple[bytes, bytes]]  # raw headers, only read


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
