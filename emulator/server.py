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
"""

from __future__ import annotations

import asyncio
import signal
import socket
from dataclasses import dataclass
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

TRANSPORT = "emulator.transport"


@dataclass(frozen=True)
class Rules:
    request_timeout: float = 10.0  # seconds to receive a whole request
    keep_alive: float = 5.0  # seconds an idle keep-alive connection stays open
    max_connections: int = 2048  # open at once; comfortably above 1,000 paced streams
    shutdown_grace: float = 5.0  # seconds running answers get at shutdown


class Config(uvicorn.Config):
    """uvicorn's configuration, with the emulator's connection rules."""

    def __init__(self, app: Any, rules: Rules = Rules(), **options: Any) -> None:
        options = {"timeout_keep_alive": rules.keep_alive, "timeout_graceful_shutdown": rules.shutdown_grace} | options
        super().__init__(app, http=FaultableH11Protocol, **options)
        self.rules = rules


class FaultableH11Protocol(H11Protocol):
    """uvicorn's h11 protocol, which puts its transport in every request's scope and keeps the `Rules`."""

    def __init__(self, config: Config, *args: Any, **kwargs: Any) -> None:
        super().__init__(config, *args, **kwargs)
        self.rules = config.rules
        self.waiting_since: float | None = None  # when this connection began owing us a whole request
        inner = self.app

        async def app(scope: Any, receive: Any, send: Any) -> None:
            scope.setdefault("extensions", {})[TRANSPORT] = self.transport
            await inner(scope, receive, send)

        self.app = app

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.connections) > self.rules.max_connections:
            transport.close()  # over the cap: closed before a byte is read
            return
        self.waiting_since = self.loop.time()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE and self.conn.their_state is not h11.SEND_BODY:
            self.waiting_since = None  # the request is in (or the connection is ending): the deadline is met

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self.waiting_since = self.loop.time()  # the next request's deadline runs from here

    def overdue(self, now: float) -> bool:
        """Close the connection if its request is overdue; whether it was."""
        since, owing = self.waiting_since, self.conn.their_state
        if since is None or now - since < self.rules.request_timeout or self.transport.is_closing():
            return False
        if owing is not h11.IDLE and owing is not h11.SEND_BODY:  # its request is in, the answer may be long
            return False
        if owing is h11.SEND_BODY or self.conn.trailing_data[0]:  # begun, never finished
            self.transport.write(b"HTTP/1.1 408 Request Timeout\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
        self.transport.close()
        return True


class Server(uvicorn.Server):
    """uvicorn's server, which also closes connections whose request is overdue, once a second."""

    async def on_tick(self, counter: int) -> bool:
        if counter % 10 == 0:
            now = asyncio.get_running_loop().time()
            for connection in list(self.server_state.connections):
                if isinstance(connection, FaultableH11Protocol):
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


def run(app: Any, sock: socket.socket, rules: Rules = Rules(), **options: Any) -> None:
    """Serve `app` on the bound `sock` until SIGINT or SIGTERM, either of which ends it gracefully, quietly and
    with status 0."""
    host, port = sock.getsockname()[:2]
    # uvicorn stops on either signal, then raises it again for the handler it found, which would end the
    # process with a KeyboardInterrupt traceback (SIGINT) or as killed (SIGTERM): the handler it finds is this.
    found = {s: signal.signal(s, _stopped) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        Server(config(app, host, port, rules, **options)).run(sockets=[sock])
    finally:
        for s, handler in found.items():
            signal.signal(s, handler)


def _stopped(signum: int, frame: object) -> None:
    """A signal uvicorn has already acted on: nothing more to do."""
