"""uvicorn's request-response cycle for the httptools protocol (`emulator.server`), with the emulator's fast ways:
a response head written in a few calls into C, a whole answer in one write (`WHOLE`), a body already in given
without awaiting an event. Each gives the bytes and the state uvicorn's own way gives (tests/test_server.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from uvicorn.protocols.http.httptools_impl import HEADER_RE, HEADER_VALUE_RE, STATUS_LINE, RequestResponseCycle

from emulator.server import WHOLE


class Cycle(RequestResponseCycle):
    """uvicorn's request-response cycle, which writes a response's status line and headers in a few calls
    into C where uvicorn's own loop runs two regular expressions and a dozen steps of Python per header:
    an answer's sixteen-odd headers (its ids, rate limits, the profile's own) cost a sixth of its
    instructions that way (issue 19).

    The same checks and the same bytes as uvicorn's: every name and every value is searched with uvicorn's
    own expressions, joined (a tab, allowed in values, keeps values apart); `content-length` sets the length
    owed, and no length means chunked. Whatever the fast way does not cover takes uvicorn's: the access
    log, a write paused, names not in lower case or given twice, `connection` or `transfer-encoding` among
    them. The protocol (`emulator.server`) makes each cycle one of these by its class, before its task first runs.

    The protocol also gives it `hold`, which takes a whole answer's bytes to write with the other connections' at the
    end of the loop's turn (`emulator.server.Outbox`); without it (a cycle made alone) they are written at once.
    """

    hold: Callable[[bytes], None] | None = None

    async def send(self, message: Any) -> None:
        kind = message["type"]
        if kind == WHOLE:
            return await self._whole(message)
        if kind != "http.response.start" or self.response_started or self.access_log:
            return await super().send(message)
        head = self._head(message["status"], message.get("headers", ()))
        if head is None:
            return await super().send(message)  # uvicorn's own way names the fault
        self.transport.write(head)

    async def receive(self) -> Any:
        """uvicorn's `receive`, without awaiting an event already set (a body already in, the common case): the
        same message, and reading resumed where it was paused, as uvicorn does."""
        if self.waiting_for_100_continue or self.disconnected or self.response_complete:
            return await super().receive()
        event = self.message_event
        if not event.is_set():
            return await super().receive()
        self.flow.resume_reading()  # where a large body paused it
        event.clear()
        message = {"type": "http.request", "body": bytes(self.body), "more_body": self.more_body}
        self.body = bytearray()
        return message

    async def _whole(self, message: Any) -> None:
        """A whole answer (`WHOLE`), head and body in one write: one system call, and one wake-up of a client
        waiting to read, where the two messages make two of each. Byte for byte what they write."""
        status, headers, body = message["status"], message["headers"], message["body"]
        head = None if self.response_started or self.access_log else self._head(status, headers)
        if head is None:  # uvicorn's way: the start, then the body
            await super().send({"type": "http.response.start", "status": status, "headers": headers})
            return await super().send({"type": "http.response.body", "body": body})
        if self.chunked_encoding:  # no length given: the body goes as a chunk, uvicorn's way
            self.transport.write(head)
            return await super().send({"type": "http.response.body", "body": body})
        if self.scope["method"] == "HEAD":
            body, self.expected_content_length = b"", 0
        elif len(body) != self.expected_content_length:
            longer = len(body) > self.expected_content_length
            raise RuntimeError(f"Response content {'longer' if longer else 'shorter'} than Content-Length")
        if self.keep_alive and self.hold is not None:
            self.hold(head + body)
        else:  # written before the connection closes: what a closing transport is given is lost
            self.transport.write(head + body)
        self.expected_content_length = 0
        self.response_complete = True
        self.message_event.set()
        if not self.keep_alive:
            self.transport.close()
        self.on_response()

    def _head(self, status: int, headers: Any) -> bytes | None:
        """The response head, as uvicorn writes it, with what it owes recorded (started, the length, chunked); None
        (nothing recorded) where uvicorn's own way must take it."""
        given = dict(headers)
        if (
            len(given) != len(headers)
            or b"connection" in given
            or b"transfer-encoding" in given
            or self.flow.write_paused
            or self.disconnected
        ):
            return None
        names = b"".join(given)
        if names != names.lower() or HEADER_RE.search(names) or HEADER_VALUE_RE.search(b"\t".join(given.values())):
            return None
        self.response_started = True
        self.waiting_for_100_continue = False
        lines = [*self.default_headers, *headers]
        length = given.get(b"content-length")
        if length is not None:
            self.expected_content_length = int(length)
            self.chunked_encoding = False
        if not self.keep_alive:
            lines.append(_CLOSE)
        if length is None and self.scope["method"] != "HEAD" and status not in (204, 304):
            self.chunked_encoding = True
            lines.append(_CHUNKED)
        block = b"\r\n".join(map(b": ".join, lines))
        return b"".join((STATUS_LINE[status], block, b"\r\n\r\n" if lines else b"\r\n"))


_CHUNKED, _CLOSE = (b"transfer-encoding", b"chunked"), (b"connection", b"close")
