"""uvicorn, with a protocol of our own: it lets the app reach the socket for transport faults, and it keeps
the connection rules no client can talk its way around.

uvicorn answers a 500 when an app fails before its headers, so a reset, an empty response or garbage
cannot be made through ASGI alone. The protocol hands the connection's transport to the app in the
scope's extensions (`emulator.transport`); `player.py` uses it to write raw bytes, abort or reset.

The rules (`Rules`), because uvicorn alone keeps idle and half-sent connections open for ever (its
keep-alive timer starts only after a first response, and every byte resets it), and its concurrency
limit answers a plain-text 503 where the server is meant to be a faithful upstream:
- a whole request must arrive within `request_timeout` seconds of the connection's start, or of the end
  of the previous response, whatever trickles in meanwhile (checked once a second, for all connections);
- an idle keep-alive connection closes after `keep_alive` seconds (uvicorn's own timer);
- past `max_connections` open at once, a new connection is closed at once;
- at shutdown, answers still running get `shutdown_grace` seconds, then they are cancelled.

`run` serves in this process, or in N worker processes forked from it that accept on the one bound socket
(`emulator serve --workers N`, `workers.py`); each worker is the whole server, protocol and rules included. What the
protocol does with a turn of the loop (answers written together, the app run without a task) is `turns.py`'s; the
response cycle, `cycle.py`'s.
"""

from __future__ import annotations

import asyncio
import contextvars
import gc
import logging
import os
import signal
import socket
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from emulator import logs
from emulator.server.turns import Flag, Outbox, _rest
from emulator.server.turns import in_task as in_task  # the app's, from here
from emulator.server.workers import STOPS, supervise

TRANSPORT = "emulator.transport"
ARRIVED = "emulator.arrived"  # in the scope's extensions: when the whole request was in (`time.perf_counter`)
# In the scope's extensions where the protocol takes it: a message of this type is a whole answer, its status, headers
# (a content-length among them) and body, which goes out in one write where a start and a body message take two.
WHOLE = "emulator.whole"

try:  # below the names above, which the cycle's module reads from here
    import httptools
    from uvicorn.protocols.http.flow_control import HIGH_WATER_LIMIT, service_unavailable
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    from emulator.server.cycle import Cycle
except ImportError:  # no httptools: the h11 protocol, in pure Python, serves
    HttpToolsProtocol = None  # type: ignore[assignment, misc]
_log = logging.getLogger("emulator.server")


@dataclass(frozen=True)
class Rules:
    request_timeout: float = 10.0  # seconds to receive a whole request
    keep_alive: float = 5.0  # seconds an idle keep-alive connection stays open
    max_connections: int = 2048  # open at once; comfortably above 1,000 paced streams
    shutdown_grace: float = 5.0  # seconds running answers get at shutdown


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
            self._start_asgi_task(cycle, app)
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


class Server(uvicorn.Server):
    """uvicorn's server, which also closes connections whose request is overdue, once a second, collects the
    young generation's garbage every tick, and at shutdown says how many answers its grace cut and lets them
    finish their accounts (their journal entries, completed as cut, in Redis too)."""

    FINISHING = 2.0  # seconds the cut answers get to complete their journal entries

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        await super().shutdown(sockets)
        cut = [task for task in self.server_state.tasks if task.cancelling()]
        if cut:
            config: Any = self.config  # uvicorn types the grace `int | None`, ours is a float: compiled, checked
            grace = config.timeout_graceful_shutdown
            _log.warning(
                "shutdown: cut %d answer%s still running after the %g s grace (--shutdown-grace)",
                len(cut),
                "" if len(cut) == 1 else "s",
                grace or 0,
            )
            await asyncio.wait(cut, timeout=self.FINISHING)

    async def on_tick(self, counter: int) -> bool:
        # The young generation, collected every tick (a tenth of a second): a full journal frees an entry for
        # each it adds, so the collector's own count of new objects seldom trips, and the young list grew for
        # seconds before one collection walked it all at once (66-105 ms, the p99 of a loaded server).
        gc.collect(0)
        if counter % 10 == 0:
            now = time.monotonic()
            for connection in list(self.server_state.connections):
                if isinstance(connection, _Faultable):
                    connection.overdue(now)
        return await super().on_tick(counter)


def config(app: Any, host: str, port: int = 0, rules: Rules = Rules(), **options: Any) -> Config:
    """uvicorn's configuration for the emulator: our protocol and rules, no lifespan unless asked (the recorder)."""
    return Config(app, rules, host=host, port=port, **({"lifespan": "off"} | options))


def bind(host: str, port: int) -> socket.socket:
    """A TCP socket bound to `host`:`port` (0: a free port) and listening; OSError when it cannot be (the port
    taken, no such host). Bound before the banner, so that the banner shows the real port or is not shown."""
    found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    # One socket, one port: a name such as localhost that is both 127.0.0.1 and ::1 is bound as the former.
    family, kind, proto, _, address = min(found, key=lambda a: a[0] != socket.AF_INET)
    # IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY only on sockets that say they are TCP, and without it
    # Nagle holds the first body write of a keep-alive response for the peer's delayed ACK (~40 ms).
    sock = socket.socket(family, kind, proto or socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn: a restart rebinds at once
        sock.bind(address)
        sock.listen()
    except OSError:
        sock.close()
        raise
    return sock


def run(
    app: Any,
    sock: socket.socket,
    rules: Rules = Rules(),
    *,
    workers: int = 1,
    setup: Callable[[], object] | None = None,
    **options: Any,
) -> None:
    """Serve `app` on the bound `sock` until SIGINT or SIGTERM, either of which ends it gracefully, quietly and
    with status 0: in this process, or in `workers` processes forked from it, which accept on the same socket.
    `setup` runs in each serving process before it serves (a thread it needs, say: threads do not survive a
    fork)."""
    # What was built to serve (the app, its scenarios, the default's word pools, the modules) lives as long as the
    # server: out of the collector's sight, a full collection walks only what requests left behind (a third of
    # its time, and the p99 of a loaded server), and forked workers share those pages rather than copy them.
    gc.collect()
    gc.freeze()
    if workers > 1:
        supervise(lambda: _serve(app, sock, rules, options), sock, workers, setup)
        return
    # uvicorn stops on either signal, then raises it again for the handler it found, which would end the
    # process with a KeyboardInterrupt traceback (SIGINT) or as killed (SIGTERM): the handler it finds is this.
    found = {s: signal.signal(s, _stopped) for s in STOPS}
    try:
        if setup is not None:
            setup()
        _serve(app, sock, rules, options)
    finally:
        for s, handler in found.items():
            signal.signal(s, handler)


def _serve(app: Any, sock: socket.socket, rules: Rules, options: dict[str, Any]) -> None:
    host, port = sock.getsockname()[:2]
    Server(config(app, host, port, rules, **options)).run(sockets=[sock])


def _stopped(signum: int, frame: object) -> None:
    """A signal uvicorn has already acted on: nothing more to do."""
