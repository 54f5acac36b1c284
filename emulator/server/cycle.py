"""uvicorn's request-response cycle for the httptools protocol (`emulator.server`), with the emulator's fast ways:
a response head written in a few calls into C, a whole answer in one write (`WHOLE`), a body already in given
without awaiting an event; compiled with the protocol, which makes its cycles of this class. Each gives the bytes
and the state uvicorn's own way gives (tests/test_server.py)."""

from __future__ import annotations

import logging
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
    them. The protocol (`emulator.server`) makes each cycle one of these, with a `Flag` for its event.

    The protocol also gives it `hold`, which takes a whole answer's bytes to write with the other connections' at the
    end of the loop's turn (`emulator.server.Outbox`); without it (a cycle made alone) they are written at once.

    Its state begins as uvicorn 0.55's does, and `run_asgi` does what uvicorn's does, here so that they are compiled:
    uvicorn's were two Python calls a request, and its `asyncio.Event` a third (tests/test_server.py holds the state
    to uvicorn's own cycle's).
    """

    hold: Callable[[bytes], None] | None = None
    # uvicorn's, which the steps below use: named here for mypyc, which builds without uvicorn installed; untyped,
    # as compiled code would check a type on each assignment.
    scope: Any
    transport: Any
    flow: Any
    logger: Any
    message_event: Any
    on_response: Any
    disconnected: Any
    keep_alive: Any
    waiting_for_100_continue: Any
    body: Any
    more_body: Any
    response_started: Any
    response_complete: Any
    chunked_encoding: Any
    expected_content_length: Any
    access_log: Any
    default_headers: Any

    def __init__(
        self,
        scope: Any,
        transport: Any,
        flow: Any,
        logger: logging.Logger,
        access_logger: logging.Logger,
        access_log: bool,
        default_headers: list[tuple[bytes, bytes]],
        message_event: Any,
        expect_100_continue: bool,
        keep_alive: bool,
        on_response: Callable[[], None],
    ) -> None:
        self.scope, self.transport, self.flow = scope, transport, flow
        self.logger, self.access_logger, self.access_log = logger, access_logger, access_log
        self.default_headers, self.message_event, self.on_response = default_headers, message_event, on_response
        self.disconnected, self.keep_alive, self.waiting_for_100_continue = False, keep_alive, expect_100_continue
        self.body, self.more_body = bytearray(), True  # the request's
        self.response_started, self.response_complete = False, False
        self.chunked_encoding: bool | None = None
        self.expected_content_length = 0

    def received(self, body: bytes) -> int:
        """A piece of the request's body, kept for `receive`; how many bytes it keeps now."""
        self.body += body
        return len(self.body)

    async def run_asgi(self, app: Any) -> None:
        """Run the app; what it leaves undone is answered as uvicorn answers it: its failure logged, and a 500
        when no response began (else the connection closed); a response never begun or never finished, likewise."""
        try:
            result = await app(self.scope, self.receive, self.send)
        except BaseException as exc:
            self.logger.error("Exception in ASGI application\n", exc_info=exc)
            if not self.response_started:
                await self.send_500_response()
            else:
                self.transport.close()
        else:
            if result is not None:
                self.logger.error("ASGI callable should return None, but returned '%s'.", result)
                self.transport.close()
            elif not self.response_started and not self.disconnected:
                self.logger.error("ASGI callable returned without starting response.")
                await self.send_500_response()
            elif not self.response_complete and not self.disconnected:
                self.logger.error("ASGI callable returned without completing response.")
                self.transport.close()
        finally:
            self.on_response = _nothing

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
        flow = self.flow
        if flow.read_paused:  # where a large body paused it (a Python call: only when it did)
            flow.resume_reading()
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


def _nothing() -> None:
    """A finished cycle's `on_response`: what its connection does next is no longer its concern."""
