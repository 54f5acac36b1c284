"""The server: an event loop (uvloop's where it is installed) accepting on bound sockets, a `Connection` for each,
a tick that keeps the rules, the app's lifespan when asked, and a graceful stop on SIGINT or SIGTERM."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from email.utils import formatdate
from typing import Any

from emulator.server.access import AccessLog
from emulator.server.connection import Connection, Shared
from emulator.server.rules import Rules

_log = logging.getLogger("emulator.server")
STOPS = (signal.SIGINT, signal.SIGTERM)
TICK = 0.1  # seconds between ticks; the rules are kept every tenth


def loop_factory() -> Callable[[], asyncio.AbstractEventLoop]:
    """uvloop's event loop where it is installed (libuv: a third of the time of a short answer is the loop's),
    else asyncio's."""
    try:
        import uvloop
    except ImportError:
        return asyncio.new_event_loop
    return uvloop.new_event_loop


class Server:
    """Serves an ASGI app on bound, listening sockets until `should_exit` is set (a signal sets it in the main
    thread; `Background` sets it from another). At the stop: no new connection is accepted, idle ones close, the
    answers still running get the rules' grace and are then cut, and the server says how many it cut and lets them
    finish their accounts (their journal entries, completed as cut, in Redis too)."""

    FINISHING = 2.0  # seconds the cut answers get to complete their journal entries

    def __init__(
        self,
        app: Any,
        rules: Rules = Rules(),
        *,
        access_log: bool = True,
        log_format: str = "text",
        lifespan: bool = False,
        date_header: bool = True,
    ) -> None:
        self.app, self.rules = app, rules
        self.access_log, self.log_format = access_log, log_format
        self.lifespan, self.date_header = lifespan, date_header
        self.started = False
        self.should_exit = False
        self.force_exit = False
        self.shared: Shared | None = None

    @property
    def connections(self) -> set[Connection]:
        return self.shared.connections if self.shared is not None else set()

    def run(self, sockets: list[socket.socket]) -> None:
        """Serve until stopped, on a loop of its own; a signal stops it gracefully where this is the main thread."""
        with self._signals(), asyncio.Runner(loop_factory=loop_factory()) as runner:
            runner.run(self.serve(sockets))

    async def serve(self, sockets: list[socket.socket]) -> None:
        loop = asyncio.get_running_loop()
        _log.info("Started server process [%d]", os.getpid())
        state: dict[str, Any] = {}
        lifespan = _Lifespan(self.app, state) if self.lifespan else None
        if lifespan is not None and not await lifespan.startup():
            _log.error("Application startup failed. Exiting.")
            self.should_exit = True
            return
        access = AccessLog(loop, sys.stdout, self.log_format) if self.access_log else None
        shared = self.shared = Shared(self.app, self.rules, loop, access.note if access else None, state)
        self._date()

        def made() -> Any:  # an asyncio protocol by its methods: compiled, it derives from nothing
            return Connection(shared)

        servers = [await loop.create_server(made, sock=sock, backlog=2048) for sock in sockets]
        self.started = True
        ticks = 0
        while not self.should_exit:
            await asyncio.sleep(TICK)
            ticks += 1
            if access is not None:
                access.flush()
            # The young generation, collected every tick: a full journal frees an entry for each it adds, so the
            # collector's own count of new objects seldom trips, and the young list grew for seconds before one
            # collection walked it all at once (66-105 ms, the p99 of a loaded server).
            gc.collect(0)
            if ticks % 10 == 0:
                self._date()
                now = time.monotonic()
                for connection in list(shared.connections):
                    connection.overdue(now)
        try:
            await self._stop(servers, shared)
        finally:
            if access is not None:
                access.flush()
        if lifespan is not None and not self.force_exit:
            await lifespan.shutdown()
        _log.info("Finished server process [%d]", os.getpid())

    def _date(self) -> None:
        if self.shared is not None and self.date_header:
            self.shared.head = b"date: %s\r\n" % formatdate(usegmt=True).encode()

    async def _stop(self, servers: list[asyncio.base_events.Server], shared: Shared) -> None:
        for server in servers:
            server.close()
        for connection in list(shared.connections):
            connection.shutdown()
        await asyncio.sleep(TICK)
        deadline = time.monotonic() + self.rules.shutdown_grace
        while (shared.connections or shared.tasks) and not self.force_exit and time.monotonic() < deadline:
            await asyncio.sleep(TICK)
        cut = list(shared.tasks)
        for task in cut:
            task.cancel()
        if cut:
            _log.warning(
                "shutdown: cut %d answer%s still running after the %g s grace (--shutdown-grace)",
                len(cut),
                "" if len(cut) == 1 else "s",
                self.rules.shutdown_grace,
            )
            await asyncio.wait(cut, timeout=self.FINISHING)
        for connection in list(shared.connections):
            connection.transport.abort()

    @contextlib.contextmanager
    def _signals(self) -> Iterator[None]:
        """SIGINT and SIGTERM stop the server gracefully, a second SIGINT at once; the handlers found are put back
        after. Only the main thread can take signals: elsewhere (`Background`) `should_exit` stops it."""
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        found = {s: signal.signal(s, self._signalled) for s in STOPS}
        try:
            yield
        finally:
            for s, handler in found.items():
                signal.signal(s, handler)

    def _signalled(self, signum: int, frame: object) -> None:
        if self.should_exit and signum == signal.SIGINT:
            self.force_exit = True
        self.should_exit = True


class _Lifespan:
    """The ASGI lifespan protocol, for an app that wants it (the recorder): started before the first connection is
    accepted, shut down after the last answer."""

    def __init__(self, app: Any, state: dict[str, Any]) -> None:
        self.app, self.state = app, state
        self.inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.started, self.ended = asyncio.Event(), asyncio.Event()
        self.failed = False
        self.task: asyncio.Task[None] | None = None

    async def startup(self) -> bool:
        """Whether the app started."""
        self.task = asyncio.get_running_loop().create_task(self._main())
        await self.inbox.put({"type": "lifespan.startup"})
        await self.started.wait()
        return not self.failed

    async def shutdown(self) -> None:
        await self.inbox.put({"type": "lifespan.shutdown"})
        await self.ended.wait()

    async def _main(self) -> None:
        scope = {"type": "lifespan", "asgi": {"version": "3.0", "spec_version": "2.0"}, "state": self.state}
        try:
            await self.app(scope, self.inbox.get, self._send)
        except BaseException as exc:
            if not self.started.is_set():
                self.failed = True
            _log.error("Exception in the application's lifespan", exc_info=exc)
        finally:
            self.started.set()
            self.ended.set()

    async def _send(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind in ("lifespan.startup.complete", "lifespan.startup.failed"):
            self.failed = kind == "lifespan.startup.failed"
            if self.failed:
                _log.error("%s", message.get("message", "Application startup failed."))
            self.started.set()
        elif kind in ("lifespan.shutdown.complete", "lifespan.shutdown.failed"):
            self.ended.set()
