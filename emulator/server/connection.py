"""One HTTP/1.1 connection (`Connection`): an asyncio protocol of the emulator's own, parsing with httptools (llhttp,
in C), compiled in the wheel. It makes each request's `Exchange`, runs the app on it, answers pipelined requests in
order, and keeps the connection rules (`emulator.server` says which and why).

And `Shared`, what every connection of one server reads and counts: the app, the rules, the open connections and
running answers, the head every answer begins with, the outbox, the access log."""

from __future__ import annotations

import asyncio
import contextvars
import logging
import os
import socket
import sys
import time
import urllib.parse
from collections import deque
from collections.abc import Callable
from typing import Any, Final

import httptools

from emulator.server import logs
from emulator.server.exchange import Exchange, Flow
from emulator.server.rules import ARRIVED, ENDED, SPARE_DESCRIPTORS, TRANSPORT, WHOLE, Rules
from emulator.server.turns import Outbox, _rest

_log = logging.getLogger("emulator.server")
# The most bytes a request's URL and headers may hold: the real APIs answer a larger head 431 (so do the proxies in
# front of them, at 8 to 64 KiB); a client's largest (an agent's cookies and tracing headers) is a few KiB.
MAX_HEAD: Final = 64 * 1024
_STUCK = b"HTTP/1.1 408 Request Timeout\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"


class Shared:
    """What the connections of one server share."""

    def __init__(
        self,
        app: Any,
        rules: Rules,
        loop: asyncio.AbstractEventLoop,
        logged: Callable[[dict[str, Any], int], None] | None,
        state: dict[str, Any],
    ) -> None:
        self.app = app
        self.rules = rules
        self.loop = loop
        self.logged = logged  # the access log's line for an answer, or None when it is off
        self.state = state  # the lifespan's state, copied into each request's scope
        self.eager = getattr(app, "eager", False) is True  # the app may be run outside a task (`turns.in_task`)
        self.connections: set[Connection] = set()
        self.tasks: set[asyncio.Task[None]] = set()
        self.head = b""  # the lines every answer begins with (a `date`), kept by the server each second
        self.outbox = Outbox(loop)
        self.answered = 0
        self.room = _room()  # connections the process's descriptor limit lets it hold


class Connection:
    """An HTTP/1.1 connection: requests parsed as they come, answered one at a time in order.

    The app of a request whose body is whole when its head is read, and which says it may (`Shared.eager`), is run
    in a callback in the loop's next turn, outside any task until it first waits (`turns.in_task`); any other runs
    in a task at once, reading its body as it comes. A request read while another is answered (pipelined) waits,
    reading paused, for the answer before it."""

    def __init__(self, shared: Shared) -> None:
        self.shared = shared
        self.rules = shared.rules
        self.loop = shared.loop
        self.parser = httptools.HttpRequestParser(self)
        self.transport: Any = None
        self.flow: Any = None
        self.server: tuple[str, int] | None = None
        self.client: tuple[str, int] | None = None
        self.url = b""
        self.headers: list[tuple[bytes, bytes]] = []
        self.expect_continue = False
        self.scope: dict[str, Any] = {}
        self.reading: Exchange | None = None  # the request being read, whole or not
        self.answering: Exchange | None = None  # the request whose app runs
        self.waiting: deque[Exchange] = deque()  # pipelined: read, their apps not yet run
        self.due: Exchange | None = None  # to run once its request is whole, in a callback
        self.partly = False  # a request has begun and is not yet whole
        self.since: float | None = None  # when this connection began owing a whole request
        self.stuck: float | None = None  # when its writes began to wait on the peer
        self.keep_alive_timer: asyncio.TimerHandle | None = None
        self.held = b""  # whole answers held for the outbox, not yet written
        self.refused = False  # bytes llhttp refused came after requests still owed answers: a 400 once they have them
        self.head_bytes = 0  # of the request line's URL and the headers of the request being read
        self.ended = False  # the client half-closed: it sends nothing more

    # --- asyncio's protocol -----------------------------------------------------------------------------------

    def connection_made(self, transport: Any) -> None:
        shared = self.shared
        self.transport = transport
        self.flow = Flow(transport)
        shared.connections.add(self)
        self.server = _address(transport.get_extra_info("sockname"))
        self.client = _address(transport.get_extra_info("peername"))
        if len(shared.connections) > self.rules.max_connections:
            transport.close()  # over the cap: closed before a byte is read
            logs.refused(len(shared.connections) - 1, self.rules.max_connections)
            return
        if len(shared.connections) >= shared.room:  # the next ones the system refuses, with no word to anyone
            logs.full(len(shared.connections), shared.room + SPARE_DESCRIPTORS)
        self.since = time.monotonic()  # not the loop's time, which a busy loop's iteration leaves behind

    def connection_lost(self, exc: Exception | None) -> None:
        self.shared.connections.discard(self)
        for exchange in (self.answering, self.reading, *self.waiting):
            if exchange is not None:
                exchange.left()
        self.flow.resume_writing()  # a sender waiting to drain learns that the client left
        self._stop_timer()
        if exc is None:
            self.transport.close()

    def eof_received(self) -> bool:
        """The client sends nothing more (half-closed, as `nc -N` and some uploaders end): the answers owed for
        its whole requests still go out, streams included, without waiting on the client (`ENDED`), then the
        connection closes; a request it never finished is owed nothing."""
        self.ended = True
        reading = self.reading
        if reading is not None:
            if reading is self.answering:
                return False  # closed: its app learns the client left
            self.waiting.remove(reading)
        for exchange in (self.answering, *self.waiting):
            if exchange is not None:
                exchange.scope["extensions"][ENDED] = True
                exchange.event.set()  # what waits on `receive` for the client to leave looks at the flag
        return self.answering is not None  # True: the transport stays open for the answers

    def pause_writing(self) -> None:
        self.flow.pause_writing()
        self.stuck = time.monotonic()

    def resume_writing(self) -> None:
        self.flow.resume_writing()
        self.stuck = None

    def data_received(self, data: bytes) -> None:
        if self.reading is None:
            self.partly = True  # bytes of a request: one is begun (llhttp says so only once it has a method)
        self._stop_timer()
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            _log.warning("Unsupported upgrade request.")  # no WebSocket here: the request is answered as any
        except httptools.HttpParserError:
            if self.head_bytes > MAX_HEAD:  # the real APIs' answer to a head that large
                self._refuse(b"Request header fields too large.", b"431 Request Header Fields Too Large")
                return
            _log.warning("Invalid HTTP request received.")
            broken = self.reading
            if broken is not None and broken is not self.answering:
                self.waiting.remove(broken)  # pipelined, never whole: nothing owed for it
            if self.answering is None or broken is self.answering:
                self._refuse(b"Invalid HTTP request received.")
            else:  # the requests before it are owed their answers first, then the 400 and the close
                self.refused = True
                self.flow.pause_reading()
            return
        due = self.due
        if due is not None:  # its body is still coming: a task, which reads it as it comes
            self.due = None
            self._start(due)

    # --- llhttp's callbacks --------------------------------------------------------------------------------------

    def on_message_begin(self) -> None:
        self.url, self.expect_continue, self.headers, self.head_bytes = b"", False, [], 0
        self.scope = {
            "type": "http",
            "asgi": {"version": "3.0", "spec_version": "2.3"},
            "http_version": "1.1",
            "server": self.server,
            "client": self.client,
            "scheme": "http",
            "root_path": "",
            "headers": self.headers,
            "state": self.shared.state.copy(),
        }

    def on_url(self, url: bytes) -> None:
        self.url += url
        self.head_bytes += len(url)
        if self.head_bytes > MAX_HEAD:
            raise ValueError("request head too large")  # llhttp stops; `data_received` answers 431

    def on_header(self, name: bytes, value: bytes) -> None:
        self.head_bytes += len(name) + len(value) + 4
        if self.head_bytes > MAX_HEAD:
            raise ValueError("request head too large")
        name = name.lower()
        value = value.rstrip(b" \t")  # llhttp keeps trailing whitespace, which RFC 9110 section 5.5 excludes
        if name == b"expect" and value.lower() == b"100-continue":
            self.expect_continue = True
        self.headers.append((name, value))

    def on_headers_complete(self) -> None:
        self.release()  # the previous answer goes before anything of this request's can
        parser, scope, shared = self.parser, self.scope, self.shared
        version = parser.get_http_version()
        scope["method"] = parser.get_method().decode("ascii")
        if version != "1.1":
            scope["http_version"] = version
        target = _TARGETS.get(self.url)
        if target is None:
            target = _target(self.url)
        scope["path"], scope["raw_path"], scope["query_string"] = target
        scope["extensions"] = {TRANSPORT: self.transport, WHOLE: {}}
        keep_alive = version != "1.0" and parser.should_keep_alive()
        exchange = Exchange(
            scope,
            self.transport,
            self.flow,
            shared.head,
            self.expect_continue,
            keep_alive,
            self.answered,
            self.hold,
            shared.logged,
        )
        self.reading = exchange
        if self.answering is None:
            self.answering = exchange
            if shared.eager:
                self.due = exchange  # run once its request is whole (`on_message_complete`)
            else:
                self._start(exchange)
        else:  # pipelined: it waits for the answer before it, reading paused meanwhile
            self.flow.pause_reading()
            self.waiting.append(exchange)

    def on_body(self, body: bytes) -> None:
        exchange = self.reading
        if exchange is not None and not exchange.response_complete:
            exchange.received(body)

    def on_message_complete(self) -> None:
        exchange = self.reading
        self.reading = None
        self.partly = False
        if exchange is None:
            return
        # Stamped as the bytes are parsed, not when the app first runs: under a burst of requests the answers wait
        # their turn, and a paced answer's first token is due from here (`player.Clock`).
        exchange.scope["extensions"][ARRIVED] = time.perf_counter()
        if exchange is self.answering:
            self.since = None  # the request is in: the deadline is met
        if not exchange.response_complete:
            exchange.finished()
        if self.due is exchange:
            self.due = None
            # In the loop's next turn, where a task's first step would run: the requests that came with this one are
            # read (and their arrival stamped) first. Run here at once, a burst of paced streams had its last read
            # after all the others' answers were made, and its first tokens came late.
            self.loop.call_soon(self._run, exchange)

    # --- answers -------------------------------------------------------------------------------------------------

    def _start(self, exchange: Exchange) -> None:
        """Run the app on `exchange` in a task of its own."""
        task = self.loop.create_task(exchange.run(self.shared.app))
        task.add_done_callback(self.shared.tasks.discard)
        self.shared.tasks.add(task)

    def _run(self, exchange: Exchange) -> None:
        """Run the app on `exchange`, its body in, in a plain callback: no task unless it waits (`turns.in_task`)."""
        coroutine = exchange.run(self.shared.app)
        context = contextvars.copy_context()
        try:
            waiting = context.run(coroutine.send, None)
        except StopIteration:  # answered without waiting: the common answer, in process
            return
        except Exception as exc:  # the exchange itself failed (the app's errors it answers itself): as a task's would
            self.loop.call_exception_handler({"message": "Exception in the answer's exchange", "exception": exc})
            return
        task = self.loop.create_task(_rest(coroutine, waiting), context=context)
        task.add_done_callback(self.shared.tasks.discard)
        self.shared.tasks.add(task)

    def answered(self) -> None:
        """The answer being made is complete: the next pipelined request's turn, or the keep-alive timer's."""
        self.shared.answered += 1
        self.answering = None
        if self.transport.is_closing():
            return
        self._stop_timer()
        self.flow.resume_reading()
        if self.waiting:
            exchange = self.answering = self.waiting.popleft()
            whole = not exchange.more_body
            self.since = None if whole else time.monotonic()  # its request's deadline runs from here
            if whole and self.shared.eager:
                self.loop.call_soon(self._run, exchange)
            else:
                self._start(exchange)
            return
        if self.refused:
            self._refuse(b"Invalid HTTP request received.")
            return
        if self.ended:  # the client said it sends no more: nothing more to answer
            self._idle()
            return
        self.since = time.monotonic()  # the next request's deadline runs from here
        self.keep_alive_timer = self.loop.call_later(self.rules.keep_alive, self._idle)

    def hold(self, answer: bytes) -> None:
        """A whole answer's bytes, written with the others of this turn of the loop (`Outbox`), or at once when this
        is the only connection: nothing else can be ready to go with it."""
        if len(self.shared.connections) < 2:
            if not self.transport.is_closing():
                self.transport.write(answer)
            return
        if not self.held:
            self.shared.outbox.add(self)
        self.held += answer

    def release(self) -> None:
        """Write what this connection holds. Before anything else is written on it or it closes: its next request
        begins (`on_headers_complete`), a 400, a shutdown, the keep-alive timer."""
        if self.held:
            answer, self.held = self.held, b""
            if not self.transport.is_closing():  # gone meanwhile (the client left): a closing transport drops it
                self.transport.write(answer)

    # --- closing ------------------------------------------------------------------------------------------------

    def _refuse(self, message: bytes, status: bytes = b"400 Bad Request") -> None:
        """A 400 for bytes llhttp cannot parse (or `status`), and the connection closed."""
        self.release()
        self.transport.write(
            b"HTTP/1.1 %s\r\n%scontent-type: text/plain; charset=utf-8\r\ncontent-length: %d\r\n"
            b"connection: close\r\n\r\n%s" % (status, self.shared.head, len(message), message)
        )
        self.transport.close()

    def _idle(self) -> None:
        self.keep_alive_timer = None
        self.release()
        if not self.transport.is_closing():
            self.transport.close()

    def _stop_timer(self) -> None:
        timer = self.keep_alive_timer
        if timer is not None:
            timer.cancel()
            self.keep_alive_timer = None

    def shutdown(self) -> None:
        """The server is stopping: closed now if no answer is being made, else once it is."""
        self.release()
        answering = self.answering
        if answering is None or answering.response_complete:
            self.transport.close()
        else:
            answering.keep_alive = False

    def overdue(self, now: float) -> bool:
        """Close the connection if its request is overdue or its writes have waited on the peer too long; whether
        it was closed."""
        if self.transport.is_closing():
            return False
        stuck = self.stuck
        if stuck is not None and now - stuck >= self.rules.write_timeout:
            self.transport.abort()  # what it holds unsent is dropped, not kept for a peer that does not read
            logs.stuck(self.rules.write_timeout)
            return True
        since = self.since
        if since is None or now - since < self.rules.request_timeout:
            return False
        if not self.partly and _waiting(self.transport):
            return False  # its bytes are here, not read yet: the server is behind, not the client
        answering = self.answering
        if self.partly and (answering is None or not answering.response_started):
            self.transport.write(_STUCK)  # begun, never finished
        self.transport.close()
        logs.overdue(self.rules.request_timeout)
        return True


# A request target's path (decoded), raw path and query, by the target's bytes: clients ask the same few. Short ones
# only, so that what it holds stays small whatever a client sends.
_TARGETS: Final[dict[bytes, tuple[str, bytes, bytes]]] = {}
_KEPT: Final = 512  # bytes of the longest target kept


def _target(url: bytes) -> tuple[str, bytes, bytes]:
    """The path (percent-decoded), raw path and query string of a request target, kept in `_TARGETS`."""
    parsed: Any = httptools.parse_url(url)  # Any: its stubs type `query` bytes; it is None when there is none
    raw = parsed.path
    path = raw.decode("ascii")
    target = (urllib.parse.unquote(path) if "%" in path else path), raw, parsed.query or b""
    if len(url) <= _KEPT:
        if len(_TARGETS) >= 1024:  # targets that vary without end (queries, ids in paths): parsed each time again
            _TARGETS.clear()
        _TARGETS[url] = target
    return target


def _room() -> int:
    """Connections this process can hold at once: its limit on open descriptors, less what it needs besides."""
    try:
        import resource
    except ImportError:  # not a POSIX system
        return sys.maxsize
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return sys.maxsize if soft == resource.RLIM_INFINITY else max(soft - SPARE_DESCRIPTORS, 1)


def _address(found: Any) -> tuple[str, int] | None:
    """A socket's address as ASGI's scope gives it: (host, port), or None (a Unix socket, say)."""
    if isinstance(found, (list, tuple)) and len(found) >= 2:
        return str(found[0]), int(found[1])
    return None


def _waiting(transport: Any) -> bool:
    """Whether bytes from the client wait in the socket, unread: a loop too busy to read them yet. Closing a socket
    with unread bytes sends a reset, which a client sees in place of its answer, and the request was in time."""
    sock = transport.get_extra_info("socket")
    try:  # on a copy of its descriptor: uvloop's socket object does not read
        with socket.socket(fileno=os.dup(sock.fileno())) as peek:
            return bool(peek.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT))
    except (OSError, AttributeError):  # nothing waiting (EAGAIN), or no socket
        return False
