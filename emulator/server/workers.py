"""`emulator serve --workers N`: N worker processes forked from this one, each the whole server, accepting on the
one bound socket, supervised here (`emulator.server.run`)."""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import socket
import time
import traceback
from collections.abc import Callable

STOPS = (signal.SIGINT, signal.SIGTERM)
_log = logging.getLogger("emulator.server")


def supervise(
    serve: Callable[[], object], sock: socket.socket, workers: int, setup: Callable[[], object] | None
) -> None:
    """Fork `workers` processes that each run `setup`, then `serve` (on `sock`), and wait for them. SIGINT or SIGTERM
    here is passed on to each as SIGTERM (a terminal's Ctrl-C reaches them too: either way each stops gracefully,
    once), a second one ends them at once; a worker that ends unasked is started again, as uvicorn's own
    supervisor does, no sooner than a second after the last.

    Forked, not spawned as uvicorn's supervisor does: the app is built once, here, from objects no pickle
    carries (a spawned worker would have to build it again from an import string and its settings)."""
    children: dict[int, float] = {}  # pid -> when it was started
    stopping = False

    def stop(signum: int, frame: object) -> None:
        nonlocal stopping
        if stopping:  # a second stop: no grace for anyone, at once (as one process ends at a second Ctrl-C)
            for pid in children:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            return
        stopping = True
        # The workers close their copies of the socket as they begin to stop; with this one closed too, a new
        # connection is refused at once, rather than queued for a worker that will never accept it.
        sock.close()
        for pid in children:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)

    def spawn() -> None:
        # A stop is held while a worker is forked: it runs here once the worker is recorded, and there once the
        # worker has its own handlers. Run in between, the parent's `stop` ran inside the new worker (which then
        # served on, unstoppable, and was waited for for ever) or missed a worker not yet recorded.
        signal.pthread_sigmask(signal.SIG_BLOCK, STOPS)
        try:
            children[_fork(serve, setup)] = time.monotonic()
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, STOPS)

    found = {s: signal.signal(s, stop) for s in STOPS}
    try:
        for _ in range(workers):
            spawn()
        if stopping:  # a signal came while the workers were being forked: pass it on to every one
            stop(signal.SIGTERM, None)
        while children:
            pid, status = os.wait()  # retried after a signal's handler ran (PEP 475)
            began = children.pop(pid, None)
            if stopping or began is None:
                continue
            _log.warning("worker %d ended (%s); starting another", pid, _ended(status))
            time.sleep(max(0.0, began + 1.0 - time.monotonic()))
            if not stopping:
                spawn()
    finally:
        for s, handler in found.items():
            signal.signal(s, handler)


def _fork(serve: Callable[[], object], setup: Callable[[], object] | None) -> int:
    """A worker process serving; its pid. The worker never returns into the caller's code: it exits."""
    pid = os.fork()
    if pid:
        return pid
    status = 0
    try:
        # Until the server takes the signals over (`running.Server`), a stop ends the worker at once: it serves
        # nothing yet. Once the server has stopped, it puts these handlers back.
        for s in STOPS:
            signal.signal(s, _exit)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOPS)  # held by the parent across the fork (see `spawn`)
        if setup is not None:
            setup()
        serve()
    except BaseException:
        traceback.print_exc()
        status = 1
    finally:
        os._exit(status)


def _exit(signum: int, frame: object) -> None:
    os._exit(0)


def _ended(status: int) -> str:
    code = os.waitstatus_to_exitcode(status)
    return f"killed by signal {-code}" if code < 0 else f"status {code}"
