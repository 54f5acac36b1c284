"""The emulator's protocols over uvicorn's (`emulator.server` says what they keep and why): on httptools (llhttp, in
C) where it is installed, doing uvicorn's per-request steps itself, compiled; else on h11. And uvicorn's
configuration, which names the protocol."""

from __future__ import annotations

import asyncio
import contextvars
import os
import socket
import time
import urllib.parse
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from emulator import logs
from emulator.server import ARRIVED, TRANSPORT, WHOLE, Rules
from emulator.server.turns import Flag, Outbox, _rest

try:
    import httptools
    from uvicorn.protocols.http.flow_control import HIGH_WATER_LIMIT, service_unavailable
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    from emulator.server.cycle import Cycle
except ImportError:  # no httptools: the h11 protocol, in pure Python, serves
    HttpToolsProtocol = None  # type: ignore[assignment, misc]


class Config(uvicorn.Config):
    """uvicorn's configuration, with the emulator's connection rules and its protocol: on httptools (llhttp,
    in C) where it is installed, else on h11; on uvloop where it is installed (uvicorn's `loop="auto"`).

    Without uvicorn's proxy-headers layer: nothing here reads the client's address that `X-Forwarded-For` would
    set (only the access log shows it), and the layer cost every request a coroutine and a walk of its headers
    (7,000 instructions, 4% of what the server spends around a handler that does nothing)."""

    def __init__(self, app: Any, rules: Rules = Rules(), **options: Any) -> None:
        defaults: dict[str, Any] = {"http": PROTOCOL, "timeout_keep_alive": rules.keep_alive, "proxy_headers": False}
        super().__init__(app, **(defaults | {"timeout_graceful_shutdown": rules.shutdown_grace} | options))
        self.rules = rules
        logs.setup()


class _Faultable:
    """What the emulator's protocols add to uvicorn's: the transport in every request's scope, and the
    `Rules` (the connection cap when a connection is made, the request deadline, which `overdue` keeps)."""

    rules: Rules
    waiting_since: float | None  # when this connection began owing us a whole request
    transport: asyncio.Transport
    loop: asyncio.AbstractEventLoop
    connections: set[Any]
    app: Any

    def _faultable(self, config: Config, wrap: bool = True) -> None:
        """The rules kept; with `wrap`, the app wrapped to find the transport in its scope (the httptools protocol
        puts it there itself, with no coroutine more a request)."""
        self.rules = config.rules
        self.waiting_since = None
        if not wrap:
            return
        inner = self.app

        async def app(scope: Any, receive: Any, send: Any) -> None:
            scope.setdefault("extensions", {})[TRANSPORT] = self.transport
            await inner(scope, receive, send)

        self.app = app

    def _capped(self, transport: asyncio.Transport) -> None:
        if len(self.connections) > self.rules.max_connections:
            transport.close()  # over the cap: closed before a byte is read
            logs.refused(len(self.connections) - 1, self.rules.max_connections)
            return
        self.waiting_since = time.monotonic()  # not the loop's time, which a busy loop's iteration leaves behind

    def _answered(self) -> None:
        if not self.transport.is_closing():
            self.waiting_since = time.monotonic()  # the next request's deadline runs from here

    def receiving(self) -> bool | None:
        """Whether a request is partly in (True), none has begun (False), or one is whole (None)."""
        raise NotImplementedError

    def overdue(self, now: float) -> bool:
        """Close the connection if its request is overdue; whether it was."""
        since = self.waiting_since
        if since is None or now - since < self.rules.request_timeout or self.transport.is_closing():
            return False
        partly = self.receiving()
        if partly is None:  # its request is in, the answer may be long
            return False
        if not partly and _waiting(self.transport):
            return False  # its bytes are here, not read yet: the server is behind, not the client
        if partly:  # begun, never finished
            self.transport.write(b"HTTP/1.1 408 Request Timeout\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
        self.transport.close()
        logs.overdue(self.rules.request_timeout)
        return True


def _waiting(transport: asyncio.Transport) -> bool:
    """Whether bytes from the client wait in the socket, unread: a loop too busy to read them yet. Closing a socket
    with unread bytes sends a reset, which a client sees in place of its answer, and the request was in time."""
    sock = transport.get_extra_info("socket")
    try:  # on a copy of its descriptor: uvloop's socket object does not read
        with socket.socket(fileno=os.dup(sock.fileno())) as peek:
            return bool(peek.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT))
    except (OSError, AttributeError):  # nothing waiting (EAGAIN), or no socket
        return False


class FaultableH11Protocol(_Faultable, H11Protocol):
    """uvicorn's h11 protocol, faultable (see `_Faultable`)."""

    def __init__(self, config: Config, *args: Any, **kwargs: Any) -> None:
        super().__init__(config, *args, **kwargs)
        self._faultable(config)

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._capped(transport)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE and self.conn.their_state is not h11.SEND_BODY:
            self.waiting_since = None  # the request is in (or the connection is ending): the deadline is met

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._answered()

    def receiving(self) -> bool | None:
        owing = self.conn.their_state
        if owing is not h11.IDLE and owing is not h11.SEND_BODY:
            return None
        return owing is h11.SEND_BODY or bool(self.conn.trailing_data[0])


class FaultableHttpToolsProtocol(_Faultable, HttpToolsProtocol):
    """uvicorn's httptools protocol, faultable (see `_Faultable`): llhttp parses in C what h11 parses in
    Python, a third of the time of a short answer (issue 19's profile)."""

    # uvicorn's, which the steps below use: named here for mypyc, which builds without uvicorn installed; untyped,
    # as compiled code would check a type on each assignment (uvicorn begins `headers` as None).
    url: Any
    headers: Any
    expect_100_continue: Any
    timeout_keep_alive_task: Any
    scope: Any
    cycle: Any
    parser: Any
    flow: Any
    timeout_keep_alive: Any  # uvicorn types it int; the emulator's rules give a float

    def __init__(self, config: Config, *args: Any, **kwargs: Any) -> None:
        super().__init__(config, *args, **kwargs)
        self._faultable(config, wrap=False)
        self.partly = False  # a request has begun and is not yet whole
        self.held = b""  # this connection's answers held for the outbox, not yet written
        self.outbox = Outbox.of(self.server_state, self.loop)
        # An app that says it may be started outside a task (`in_task`) is run in a callback once its request is whole.
        self.eager = getattr(self.app, "eager", False) is True
        self.heading = False  # within `on_headers_complete`
        self.due: tuple[Any, Any] | None = None  # the cycle and app to run once the request is whole

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._capped(transport)

    def data_received(self, data: bytes) -> None:
        if not self.partly and self.waiting_since is not None:
            self.partly = True  # bytes of a request: one is begun (llhttp says so only once it has a method)
        self._unset_keepalive_if_required()
        try:  # as uvicorn's
            self.parser.feed_data(data)
        except httptools.HttpParserError:
            self.logger.warning("Invalid HTTP request received.")
            self.send_400_response("Invalid HTTP request received.")
            return
        except httptools.HttpParserUpgrade:
            if self._should_upgrade():
                self.handle_websocket_upgrade()
            else:
                self._unsupported_upgrade_warning()
        if self.due is not None:  # its body is still coming: a task, which reads it as it comes, as uvicorn does
            cycle, app = self.due
            self.due = None
            super()._start_asgi_task(cycle, app)

    def _start_asgi_task(self, cycle: Any, app: Any) -> None:
        if self.heading and self.eager:  # the cycle just made: run when its request is whole (`on_message_complete`)
            self.due = cycle, app
        else:
            super()._start_asgi_task(cycle, app)

    def hold(self, answer: bytes) -> None:
        """A whole answer's bytes, written with the others of this turn of the loop (`Outbox`), or at once when this
        is the only connection: nothing else can be ready to go with it."""
        if len(self.connections) < 2:
            self.transport.write(answer)
            return
        if not self.held:
            self.outbox.add(self)
        self.held += answer

    def release(self) -> None:
        """Write what this connection holds. Before anything else is written on it or it closes: its next request
        begins (`on_headers_complete`), a 400, a shutdown, the keep-alive timer."""
        if self.held:
            answer, self.held = self.held, b""
            if not self.transport.is_closing():  # gone meanwhile (the client left): a closing transport drops it
                self.transport.write(answer)

    def send_400_response(self, msg: str) -> None:
        self.release()
        super().send_400_response(msg)

    def shutdown(self) -> None:
        self.release()
        super().shutdown()

    def timeout_keep_alive_handler(self) -> None:
        self.release()
        super().timeout_keep_alive_handler()

    # uvicorn's per-request and per-header steps, done here as uvicorn 0.55 does them, compiled: each was a Python
    # call a request or a header (with the cycle's own, 15 a plain request). tests/test_server.py drives them end to
    # end (`Expect: 100-continue`, a header's trailing blanks, pipelined requests, a body past the high-water mark,
    # a refused upgrade, an invalid request, the concurrency limit, the keep-alive timer).

    def on_message_begin(self) -> None:
        self.url, self.expect_100_continue, self.headers = b"", False, []
        self.scope = {
            "type": "http",
            "asgi": {"version": self.asgi_version, "spec_version": "2.3"},
            "http_version": "1.1",
            "server": self.server,
            "client": self.client,
            "scheme": self.scheme,
            "root_path": self.root_path,
            "headers": self.headers,
            "state": self.app_state.copy(),
        }

    def on_headers_complete(self) -> None:
        self.release()  # the previous answer goes before anything of this request's can
        parser, scope = self.parser, self.scope
        version = parser.get_http_version()
        scope["method"] = parser.get_method().decode("ascii")
        if version != "1.1":
            scope["http_version"] = version
        if parser.should_upgrade() and self._should_upgrade():
            return
        url: Any = httptools.parse_url(self.url)  # Any: its stubs type `query` bytes; it is None when there is none
        path = url.path.decode("ascii")
        root = self.root_path
        scope["path"] = root + (urllib.parse.unquote(path) if "%" in path else path)
        scope["raw_path"] = root.encode("ascii") + url.path
        scope["query_string"] = url.query or b""
        limit, app = self.limit_concurrency, self.app
        if limit is not None and (len(self.connections) >= limit or len(self.tasks) >= limit):
            app = service_unavailable
            self.logger.warning("Exceeded concurrency limit.")
        scope["extensions"] = {TRANSPORT: self.transport, WHOLE: {}}
        before = self.cycle
        keep_alive = version != "1.0" and parser.should_keep_alive()
        events = Flag()  # its four methods: uvicorn's `asyncio.Event` was five Python calls a request
        self.cycle = cycle = Cycle(
            scope,
            self.transport,
            self.flow,
            self.logger,
            self.access_logger,
            self.access_log,
            self.server_state.default_headers,
            events,
            self.expect_100_continue,
            keep_alive,
            self.on_response_complete,
        )
        cycle.hold = self.hold
        if before is None or before.response_complete:
            self.heading = True
            try:
                self._start_asgi_task(cycle, app)
            finally:
                self.heading = False
        else:  # pipelined: it waits for the answer before it, reading paused meanwhile
            self.flow.pause_reading()
            self.pipeline.appendleft((cycle, app))

    def on_url(self, url: bytes) -> None:
        self.url += url

    def on_header(self, name: bytes, value: bytes) -> None:
        name = name.lower()
        value = value.rstrip(b" \t")  # llhttp keeps trailing whitespace, which RFC 9110 section 5.5 excludes
        if name == b"expect" and value.lower() == b"100-continue":
            self.expect_100_continue = True
        self.headers.append((name, value))

    def _unset_keepalive_if_required(self) -> None:
        timer = self.timeout_keep_alive_task
        if timer is not None:
            timer.cancel()
            self.timeout_keep_alive_task = None

    def on_body(self, body: bytes) -> None:
        cycle = self.cycle
        if (self.parser.should_upgrade() and self._should_upgrade()) or cycle.response_complete:
            return
        if cycle.received(body) > HIGH_WATER_LIMIT:
            self.flow.pause_reading()
        cycle.message_event.set()

    def on_message_complete(self) -> None:
        cycle = self.cycle
        if (self.parser.should_upgrade() and self._should_upgrade()) or cycle.response_complete:
            return
        cycle.more_body = False
        cycle.message_event.set()
        # Stamped as the bytes are parsed, not when the app's task first runs: under a burst of requests the
        # tasks wait their turn, and a paced answer's first token is due from here (`player.Clock`).
        self.scope["extensions"][ARRIVED] = time.perf_counter()
        self.partly = False
        self.waiting_since = None  # the request is in: the deadline is met
        if self.due is not None:
            cycle, app = self.due
            self.due = None
            # In the loop's next turn, where a task's first step would run: the requests that came with this one are
            # read (and their arrival stamped) first. Run here at once, a burst of 1,000 paced streams had its last
            # read after 999 answers were made, and its first tokens came 170 ms late.
            self.loop.call_soon(self._run, cycle, app)

    def _run(self, cycle: Any, app: Any) -> None:
        """Run a request's app, its body in, in a plain callback: no task unless it waits for something (`in_task`)."""
        coroutine = cycle.run_asgi(app)
        context = contextvars.Context() if self.config.reset_contextvars else contextvars.copy_context()
        try:
            waiting = context.run(coroutine.send, None)
        except StopIteration:  # answered without waiting: the common answer, in process
            return
        except Exception as exc:  # uvicorn's own cycle failed (the app's errors it answers itself): as a task's would
            self.loop.call_exception_handler({"message": "Exception in the answer's cycle", "exception": exc})
            return
        task = self.loop.create_task(_rest(coroutine, waiting), context=context)
        task.add_done_callback(self.tasks.discard)
        self.tasks.add(task)

    def on_response_complete(self) -> None:
        self.server_state.total_requests += 1
        if not self.transport.is_closing():
            self._unset_keepalive_if_required()
            flow = self.flow
            if flow.read_paused:  # a Python call: only when reading was paused
                flow.resume_reading()
            if self.pipeline:  # the next pipelined request's turn
                cycle, app = self.pipeline.pop()
                self._start_asgi_task(cycle, app)
            else:
                self.timeout_keep_alive_task = self.loop.call_later(
                    self.timeout_keep_alive, self.timeout_keep_alive_handler
                )
        self._answered()

    def receiving(self) -> bool | None:
        return self.partly


PROTOCOL: type[_Faultable] = FaultableHttpToolsProtocol if HttpToolsProtocol is not None else FaultableH11Protocol
