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
protocols themselves and uvicorn's configuration, `protocol.py`'s; the response cycle, `cycle.py`'s.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import signal
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import uvicorn

from emulator.server.turns import in_task as in_task  # the app's, from here
from emulator.server.workers import STOPS, supervise

TRANSPORT = "emulator.transport"
ARRIVED = "emulator.arrived"  # in the scope's extensions: when the whole request was in (`time.perf_counter`)
# In the scope's extensions where the protocol takes it: a message of this type is a whole answer, its status, headers
# (a content-length among them) and body, which goes out in one write where a start and a body message take two.
WHOLE = "emulator.whole"


@dataclass(frozen=True)
class Rules:
    request_timeout: float = 10.0  # seconds to receive a whole request
    keep_alive: float = 5.0  # seconds an idle keep-alive connection stays open
    max_connections: int = 2048  # open at once; comfortably above 1,000 paced streams
    shutdown_grace: float = 5.0  # seconds running answers get at shutdown


# The protocols read the names and the rules above: imported below them.
from emulator.server.protocol import PROTOCOL as PROTOCOL  # noqa: E402
from emulator.server.protocol import Config as Config  # noqa: E402
from emulator.server.protocol import FaultableH11Protocol as FaultableH11Protocol  # noqa: E402
from emulator.server.protocol import FaultableHttpToolsProtocol as FaultableHttpToolsProtocol  # noqa: E402
from emulator.server.protocol import _Faultable  # noqa: E402

_log = logging.getLogger("emulator.server")


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
