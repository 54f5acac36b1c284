"""Stage 6 of the answering path, the shell's: plays a `Script` against the client (writes, pauses and
hang-ups, down to the socket), then completes its journal entry.

A script is played by an ASGI response of its own rather than Starlette's `StreamingResponse`: a hang-up
must close the connection mid-body (no terminating chunk) or reset it, and then wait for uvicorn to see the
client gone, so that nothing is logged as an application error. The socket comes from the protocol in
`server.py`, through the scope's extensions.
"""

from __future__ import annotations

import asyncio
import socket
import struct
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from emulator.faults import Hangup, Pause
from emulator.server import TRANSPORT
from emulator.wire import Raw, Script

Scope = Mapping[str, Any]


async def deliver(
    script: Script, scope: Scope, receive: Any, send: Any, end: Callable[[int, str], Awaitable[None]]
) -> None:
    """Play a script; one that hung up tells its journal entry (through `end`) who ended it first. (A `Whole`
    needs no player: the app sends its two messages itself.)"""
    ended = await play(script, scope, receive, send)
    if ended and script.entry is not None:
        await end(script.entry, ended)


async def play(script: Script, scope: Scope, receive: Any, send: Any) -> str | None:
    """Play `script`; who ended a hang-up first ("client": it gave up, or "server"), else None."""
    try:
        if script.latency:
            await asyncio.sleep(script.latency)
        if script.started:
            await send({"type": "http.response.start", "status": script.status, "headers": script.headers})
        for step in script.steps:
            if isinstance(step, Raw):
                _transport(scope).write(step)
            elif isinstance(step, bytes):
                await send({"type": "http.response.body", "body": step, "more_body": True})
            elif isinstance(step, Pause):
                await asyncio.sleep(step.seconds)
            else:
                return await _hang_up(scope, receive, step)
        await send({"type": "http.response.body", "body": b"", "more_body": False})
    except OSError:  # the client went away first
        pass
    return None


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
