"""The emulator's HTTP/1.1 server, its own from the socket up: it lets the app reach the socket for transport faults,
and it keeps the connection rules no client can talk its way around.

An ASGI server answers a 500 when an app fails before its headers, so a reset, an empty response or garbage cannot
be made through ASGI alone: each request's scope carries the connection's transport in its extensions
(`emulator.transport`), which `player.py` uses to write raw bytes, abort or reset.

The rules (`Rules`), because a stock server keeps idle and half-sent connections open for ever (uvicorn's keep-alive
timer starts only after a first response, and every byte resets it), and answers a plain-text 503 past its limit where
the server is meant to be a faithful upstream:
- a whole request must arrive within `request_timeout` seconds of the connection's start, or of the end of the
  previous answer, whatever trickles in meanwhile (checked once a second, for all connections);
- an idle keep-alive connection closes after `keep_alive` seconds;
- a peer that leaves written bytes unread for `write_timeout` seconds is dropped, with what it was owed;
- past `max_connections` open at once, a new connection is closed at once;
- at shutdown, answers still running get `shutdown_grace` seconds, then they are cancelled.

Its parts: `connection.py` (the asyncio protocol, parsing with httptools), `exchange.py` (a request and its answer:
ASGI's receive and send, the bytes of HTTP/1.1), `turns.py` (answers of one turn written together, an app run
without a task), `access.py` (the access log), `running.py` (the loop, the ticks, the lifespan, the stop),
`workers.py` (`--workers N`: forked processes on the one socket). No class of another server's is subclassed: what is
compiled derives from nothing the build cannot see.

Layer: beside the rules, above the core (all it imports): it knows nothing of what the emulator answers and
serves any ASGI app; `logs` is where every log line of the emulator goes.
"""

from __future__ import annotations

import gc
import signal
import socket
from collections.abc import Callable
from typing import Any

from emulator.server.rules import ARRIVED as ARRIVED
from emulator.server.rules import ENDED as ENDED
from emulator.server.rules import SPARE_DESCRIPTORS as SPARE_DESCRIPTORS
from emulator.server.rules import TRANSPORT as TRANSPORT
from emulator.server.rules import WHOLE as WHOLE
from emulator.server.rules import Rules as Rules
from emulator.server.running import Server as Server
from emulator.server.turns import in_task as in_task
from emulator.server.workers import STOPS, supervise


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
    fork). `options` are `Server`'s."""
    # What was built to serve (the app, its scenarios, the default's word pools, the modules) lives as long as the
    # server: out of the collector's sight, a full collection walks only what requests left behind (a third of
    # its time, and the p99 of a loaded server), and forked workers share those pages rather than copy them.
    gc.collect()
    gc.freeze()
    if workers > 1:
        supervise(lambda: Server(app, rules, **options).run([sock]), sock, workers, setup)
        return
    found = {s: signal.signal(s, _stopped) for s in STOPS}  # until the server takes them: a stop while it starts
    try:
        if setup is not None:
            setup()
        Server(app, rules, **options).run([sock])
    finally:
        for s, handler in found.items():
            signal.signal(s, handler)


def _stopped(signum: int, frame: object) -> None:
    """A signal before the server took them over: nothing is served yet, so nothing to finish."""
    raise SystemExit(0)
