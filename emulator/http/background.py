"""A server in a thread of this process, on a free loopback port: for the pytest plugin and the test suite.

In process, because a subprocess costs a second to start and cannot be reached but over HTTP; in a thread,
because the caller (a test) blocks on its own client calls meanwhile.
"""

from __future__ import annotations

import threading
from typing import Any

from emulator import server as emulator_server


class Background:
    """An ASGI app served by the emulator's own server (its protocol and connection rules) in a daemon
    thread, from `start()` to `stop()`; `url` is where it listens."""

    def __init__(self, app: Any, **options: Any) -> None:
        self.socket = emulator_server.bind("127.0.0.1", 0)
        self.host, self.port = self.socket.getsockname()[:2]
        self.url = f"http://{self.host}:{self.port}"
        self.server = emulator_server.Server(app, **({"access_log": False} | options))
        self.thread = threading.Thread(target=self.server.run, args=([self.socket],), daemon=True)

    def start(self) -> Background:
        self.thread.start()
        started = threading.Event()
        while not self.server.started:
            if not self.thread.is_alive():
                raise RuntimeError("the emulator did not start")
            started.wait(0.01)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=5)
        self.socket.close()

    def __enter__(self) -> Background:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
