"""Plays a `faults.plan` script against the client: writes, pauses and hang-ups, down to the socket.

An ASGI response of its own rather than Starlette's `StreamingResponse`: a hang-up must close the
connection mid-body (no terminating chunk) or reset it, and then wait for uvicorn to see the client
gone, so that nothing is logged as an application error. The socket comes from the protocol in
`server.py`, through the scope's extensions.
"""

from __future__ import annotations

import asyncio
import socket
import struct
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from emulator.faults import GARBAGE, Hangup, Pause, Step
from emulator.server import TRANSPORT

Scope = Mapping[str, Any]


class Played:
    """An ASGI response: the status line and headers, then `steps` in order."""

    def __init__(
        self,
        steps: Iterable[Step],
        status: int,
        headers: Mapping[str, str],
        *,
        started: bool = True,
        latency: float = 0.0,
        on_end: Callable[[str], None] | None = None,
    ) -> None:
        self.steps = steps
        self.latency = latency  # seconds before the status line
        self.on_end = on_end  # told who ended a hang-up first: "client" or "server"
        self.status = status
        self.headers = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in headers.items()]
        self.started = started  # False: hang up before any response (empty, garbage, hang, reset)

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        try:
            if self.latency:
                await asyncio.sleep(self.latency)
            if self.started:
                await send({"type": "http.response.start", "status": self.status, "headers": self.headers})
            for step in self.steps:
                if isinstance(step, _Raw):
                    _transport(scope).write(step)
                elif isinstance(step, bytes):
                    await send({"type": "http.response.body", "body": step, "more_body": True})
                elif isinstance(step, Pause):
                    await asyncio.sleep(step.seconds)
                else:
                    ended = await _hang_up(scope, receive, step)
                    if self.on_end:
                        self.on_end(ended)
                    return
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        except OSError:  # the client went away first
            return


def _transport(scope: Scope) -> Any:
    transport = scope.get("extensions", {}).get(TRANSPORT)
    if transport is None:
        raise RuntimeError("transport faults need the emulator's own server protocol (`emulator serve`)")
    return transport


async def hang_up(scope: Scope, receive: Any) -> None:
    """Close the client's connection now, mid-body or before any status line: as a peer that went away."""
    await _hang_up(scope, receive, Hangup())


async def _hang_up(scope: Scope, receive: Any, step: Hangup) -> str:
    """Stop, and say who ended the connection first: "client" (it gave up) or "server"."""
    transport = _transport(scope)
    if step.after is None:  # stall until the client gives up
        await _until_disconnect(receive)
        return "client"
    if step.after:
        try:
            await asyncio.wait_for(_until_disconnect(receive), step.after)
            return "client"
        except TimeoutError:
            pass
    while transport.get_write_buffer_size() and not transport.is_closing():  # what was written, arrives
        await asyncio.sleep(0.001)
    if step.reset:
        sock = transport.get_extra_info("socket")
        if sock is not None:  # SO_LINGER 0: close() sends RST, as WireMock's CONNECTION_RESET_BY_PEER does
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        transport.abort()
    else:
        transport.close()
    await _until_disconnect(receive)
    return "server"


async def _until_disconnect(receive: Any) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


def before_response(kind: str, on_end: Callable[[str], None] | None = None) -> Played:
    """Faults that answer nothing well-formed: `empty`, `garbage`, `hang`, `reset`."""
    if kind == "hang":
        return Played([Hangup(after=None)], 0, {}, started=False, on_end=on_end)
    if kind == "garbage":
        return Played([_Raw(GARBAGE), Hangup()], 0, {}, started=False, on_end=on_end)
    return Played([Hangup(reset=kind == "reset")], 0, {}, started=False, on_end=on_end)


class _Raw(bytes):
    """Bytes written straight to the socket, before any status line."""
