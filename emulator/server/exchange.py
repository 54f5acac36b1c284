"""One request and its answer on a connection (`Exchange`): the ASGI `receive` and `send` an app is given, the
response head and body written as HTTP/1.1 frames them, and what the connection owes (a length, chunks, a close).
And `Flow`, a connection's reading and writing paused and resumed. Compiled with the connection.

The bytes are those uvicorn 0.55's httptools cycle writes for the same messages (tests/test_server.py holds them to
it, and the state after each message), with two ways of the emulator's own: a whole answer in one message
(`WHOLE`: head and body in one write) and a body already in given without waiting."""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Callable
from http import HTTPStatus
from typing import Any, Final

from emulator.server.rules import WHOLE
from emulator.server.turns import Flag

HIGH_WATER: Final = 65_536  # bytes of a request's body held before reading pauses (uvicorn's limit)

# `Final`, the names a request reads: compiled, any other module-level name is looked up in the module's dict at each
# use. RFC 9110, section 5.1: a field name is a token; section 5.5: a value has no control character but a tab.
_NOT_TOKEN: Final = re.compile(rb"[^!#$%&'*+\-.^_`|~0-9A-Za-z]")
_CONTROLS: Final = bytes([*range(0x09), *range(0x0A, 0x20), 0x7F])
# Header names checked, each as it goes out (lower-cased, a colon and a space after): an app sends the same few on
# every answer, so each is checked once.
_NAMES: Final[dict[bytes, bytes]] = {}
_LENGTH: Final = b"content-length: "
_ENCODING: Final = b"transfer-encoding: "
_CONNECTION: Final = b"connection: "
_CONTINUE = b"HTTP/1.1 100 Continue\r\n\r\n"
_log = logging.getLogger("emulator.server")


def _status_line(status: int) -> bytes:
    try:
        phrase = HTTPStatus(status).phrase.encode()
    except ValueError:
        phrase = b""
    return b"HTTP/1.1 %d %s\r\n" % (status, phrase)


STATUS_LINES: Final = {status: _status_line(status) for status in range(100, 600)}


def _named(name: bytes) -> bytes:
    """A header name as it goes out, once checked (`_NAMES`)."""
    if _NOT_TOKEN.search(name) is not None:
        raise RuntimeError("Invalid HTTP header name.")
    if len(_NAMES) >= 1024:  # names that vary without end: checked each time again
        _NAMES.clear()
    named = _NAMES[name] = name.lower() + b": "
    return named


class Flow:
    """A connection's reading, paused while a request's body waits unread, and its writing, paused while the peer
    reads slower than the server writes (the transport says so): a sender awaits `drain`."""

    def __init__(self, transport: Any) -> None:
        self.transport = transport
        self.read_paused = False
        self.write_paused = False
        self.writable = Flag()
        self.writable.set()

    async def drain(self) -> None:
        await self.writable.wait()

    def pause_reading(self) -> None:
        if not self.read_paused:
            self.read_paused = True
            self.transport.pause_reading()

    def resume_reading(self) -> None:
        if self.read_paused:
            self.read_paused = False
            self.transport.resume_reading()

    def pause_writing(self) -> None:
        if not self.write_paused:
            self.write_paused = True
            self.writable.clear()

    def resume_writing(self) -> None:
        if self.write_paused:
            self.write_paused = False
            self.writable.set()


class Exchange:
    """One request's scope, its body as it comes, and its answer as the app sends it.

    The connection (`emulator.server.connection`) makes one for each request, feeds it the body (`received`,
    `finished`), and is told through `done` when the answer is complete; `hold` takes a whole answer's bytes to
    write with the other connections' at the end of the loop's turn (`turns.Outbox`), and `logged` the access log's
    line for the answer's status, when the log is on."""

    def __init__(
        self,
        scope: dict[str, Any],
        transport: Any,
        flow: Flow,
        head: bytes,
        expect_continue: bool,
        keep_alive: bool,
        done: Callable[[], None],
        hold: Callable[[bytes], None] | None,
        logged: Callable[[dict[str, Any], int], None] | None,
    ) -> None:
        self.scope = scope
        self.transport = transport
        self.flow = flow
        self.head = head  # the lines every answer begins with (`date`), as bytes
        self.waiting_for_100_continue = expect_continue
        self.keep_alive = keep_alive
        self.done = done
        self.hold = hold
        self.logged = logged
        self.event = Flag()  # set when a body comes, the request is whole, the answer is complete, the client left
        self.disconnected = False
        self.body = bytearray()
        self.more_body = True
        self.response_started = False
        self.response_complete = False
        self.chunked: bool | None = None
        self.expected_length = 0
        self.until_close = False  # an HTTP/1.0 answer of no stated length: its body ends with the connection

    # --- what the connection tells it -------------------------------------------------------------------------

    def received(self, body: bytes) -> None:
        """A piece of the request's body, kept for `receive`; reading paused past the high-water mark."""
        self.body += body
        if len(self.body) > HIGH_WATER:
            self.flow.pause_reading()
        self.event.set()

    def finished(self) -> None:
        """The request is whole."""
        self.more_body = False
        self.event.set()

    def left(self) -> None:
        """The client closed the connection."""
        if not self.response_complete:
            self.disconnected = True
        self.event.set()

    # --- the app's side -----------------------------------------------------------------------------------------

    async def run(self, app: Any) -> None:
        """Run the app; what it leaves undone is answered as uvicorn answers it: its failure logged, and a 500
        when no response began (else the connection closed); a response never begun or never finished, likewise."""
        try:
            result = await app(self.scope, self.receive, self.send)
        except BaseException as exc:
            if not isinstance(exc, asyncio.CancelledError):  # a cut at shutdown is counted there, not a failure
                _log.error("Exception in ASGI application\n", exc_info=exc)
            if not self.response_started:
                await self.send_500()
            else:
                self.transport.close()
        else:
            if result is not None:
                _log.error("ASGI callable should return None, but returned '%s'.", result)
                self.transport.close()
            elif not self.response_started and not self.disconnected:
                _log.error("ASGI callable returned without starting response.")
                await self.send_500()
            elif not self.response_complete and not self.disconnected:
                _log.error("ASGI callable returned without completing response.")
                self.transport.close()
        finally:
            self.done = _nothing

    async def send_500(self) -> None:
        headers = [
            (b"content-type", b"text/plain; charset=utf-8"),
            (b"content-length", b"21"),
            (b"connection", b"close"),
        ]
        await self.send({"type": "http.response.start", "status": 500, "headers": headers})
        await self.send({"type": "http.response.body", "body": b"Internal Server Error"})

    async def receive(self) -> dict[str, Any]:
        if self.waiting_for_100_continue and not self.transport.is_closing():
            self.transport.write(_CONTINUE)
            self.waiting_for_100_continue = False
        if not self.disconnected and not self.response_complete:
            self.flow.resume_reading()
            event = self.event
            if not event.is_set():
                await event.wait()
            event.clear()
        if self.disconnected or self.response_complete:
            return {"type": "http.disconnect"}
        message = {"type": "http.request", "body": bytes(self.body), "more_body": self.more_body}
        self.body = bytearray()
        return message

    async def send(self, message: Any) -> None:
        kind = message["type"]
        if self.flow.write_paused and not self.disconnected:
            await self.flow.drain()
        if self.transport.is_closing() and not self.response_complete:
            self.disconnected = True  # closed under it (a 400 for what came after its request, the rules): said nothing
        if self.disconnected:
            return
        if kind == WHOLE:
            return self._whole(message["status"], message["headers"], message["body"])
        if not self.response_started:
            if kind != "http.response.start":
                raise RuntimeError(f"Expected ASGI message 'http.response.start', but got '{kind}'.")
            self.transport.write(self._head(message["status"], message.get("headers", ())))
        elif not self.response_complete:
            if kind != "http.response.body":
                raise RuntimeError(f"Expected ASGI message 'http.response.body', but got '{kind}'.")
            self._body(message.get("body", b""), message.get("more_body", False))
        else:
            raise RuntimeError(f"Unexpected ASGI message '{kind}' sent, after response already completed.")

    # --- the bytes ------------------------------------------------------------------------------------------------

    def _head(self, status: int, headers: Any) -> bytes:
        """The response head for `status` and `headers`, with what it owes recorded (started, a length, chunks,
        a close); refused, with nothing recorded, when a header's name or value is not one HTTP allows."""
        lines = [STATUS_LINES.get(status) or _status_line(status), self.head]
        chunked, length, keep_alive, said_close = self.chunked, self.expected_length, self.keep_alive, False
        unreadable: ValueError | None = None  # a content-length that is no number: raised once the head is begun
        count = 0
        for name, value in headers:
            named = _NAMES.get(name)
            if named is None:
                named = _named(name)
            count += 1
            if named == _LENGTH:
                if chunked is None:
                    try:
                        length = int(value.decode())
                    except ValueError as exc:
                        unreadable = exc
                    chunked = False
            elif named == _ENCODING:
                if value.lower() == b"chunked":
                    length, chunked = 0, True
            elif named == _CONNECTION and b"close" in [token.strip() for token in value.lower().split(b",")]:
                keep_alive, said_close = False, True
            lines.append(named)
            lines.append(value)
            lines.append(b"\r\n")
        if not keep_alive and not said_close:
            lines.append(b"connection: close\r\n")
            count += 1
        until_close = False
        if chunked is None and self.scope["method"] != "HEAD" and status not in (204, 304):
            if self.scope.get("http_version") == "1.0":  # 1.0 has no chunked coding: the body ends with the connection
                chunked, until_close = False, True  # (a 1.0 connection is never kept: `close` said above)
            else:
                chunked = True
                lines.append(b"transfer-encoding: chunked\r\n")
                count += 1
        lines.append(b"\r\n")
        head = b"".join(lines)
        # A value may hold no control character but a tab (RFC 9110, section 5.5). Every other part of the head is
        # the server's own or a checked name, so its only control characters are the CR LF that end its lines (the
        # status line's, the shared head's, each header's, the blank line): one deletion in C checks every value.
        ends = 2 + self.head.count(b"\n") + count
        if len(head.translate(None, _CONTROLS)) != len(head) - 2 * ends:
            raise RuntimeError("Invalid HTTP header value.")
        self.response_started = True
        self.waiting_for_100_continue = False
        self.chunked, self.expected_length, self.keep_alive = chunked, length, keep_alive
        if until_close:
            self.until_close = True
        if self.logged is not None:
            self.logged(self.scope, status)
        if unreadable is not None:
            raise unreadable
        return head

    def _body(self, body: bytes, more: bool) -> None:
        if self.scope["method"] == "HEAD":
            self.expected_length = 0
        elif self.chunked:
            framed = b"%x\r\n%s\r\n" % (len(body), body) if body else b""
            self.transport.write(framed if more else framed + b"0\r\n\r\n")
        elif self.until_close:
            self.transport.write(body)
        else:
            if len(body) > self.expected_length:
                raise RuntimeError("Response content longer than Content-Length")
            self.expected_length -= len(body)
            self.transport.write(body)
        if not more:
            if self.expected_length != 0:
                raise RuntimeError("Response content shorter than Content-Length")
            self._complete()

    def _whole(self, status: int, headers: Any, body: bytes) -> None:
        """A whole answer (`WHOLE`), head and body in one write: one system call, and one wake-up of a client
        waiting to read, where a start and a body message make two of each. Byte for byte what they write."""
        if self.response_started:
            raise RuntimeError(f"Unexpected ASGI message '{WHOLE}' sent, after the response started.")
        head = self._head(status, headers)
        if self.scope["method"] == "HEAD":
            body = b""
        elif self.chunked:
            body = b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body) if body else b"0\r\n\r\n"
        elif self.until_close:
            pass
        elif len(body) != self.expected_length:
            longer = len(body) > self.expected_length
            raise RuntimeError(f"Response content {'longer' if longer else 'shorter'} than Content-Length")
        self.expected_length = 0
        self._write(head + body)
        self._complete()

    def _write(self, answer: bytes) -> None:
        if self.keep_alive and self.hold is not None:
            self.hold(answer)
        else:  # written before the connection closes: what a closing transport is given is lost
            self.transport.write(answer)

    def _complete(self) -> None:
        self.response_complete = True
        self.event.set()
        if not self.keep_alive:
            self.transport.close()
        self.done()


def _nothing() -> None:
    """A finished exchange's `done`: what its connection does next is no longer its concern."""
