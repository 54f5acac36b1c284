"""uvicorn, with a protocol of our own that lets the app reach the socket for transport faults.

uvicorn answers a 500 when an app fails before its headers, so a reset, an empty response or garbage
cannot be made through ASGI alone. The protocol hands the connection's transport to the app in the
scope's extensions (`emulator.transport`); `app.py` uses it to write raw bytes, abort or reset.
"""

from __future__ import annotations

from typing import Any

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

TRANSPORT = "emulator.transport"


class FaultableH11Protocol(H11Protocol):
    """uvicorn's h11 protocol, which puts its transport in every request's scope."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        inner = self.app

        async def app(scope: Any, receive: Any, send: Any) -> None:
            scope.setdefault("extensions", {})[TRANSPORT] = self.transport
            await inner(scope, receive, send)

        self.app = app


def config(app: Any, host: str, port: int = 0, **options: Any) -> uvicorn.Config:
    """uvicorn's configuration for the emulator: our protocol, no lifespan unless asked (the recorder)."""
    options = {"lifespan": "off"} | options
    return uvicorn.Config(app, host=host, port=port, http=FaultableH11Protocol, **options)


def run(app: Any, host: str, port: int, **options: Any) -> None:
    uvicorn.Server(config(app, host, port, **options)).run()
