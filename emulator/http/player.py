"""Stage 6 of the answering path, the shell's: plays a `Script` against the client (writes, pauses and
hang-ups, down to the socket), then completes its journal entry.

A script is played by an ASGI response of its own rather than Starlette's `StreamingResponse`: a hang-up
must close the connection mid-body (no terminating chunk) or reset it, and then wait for the server to see the
client gone, so that nothing is logged as an application error. The socket comes from the server's connection
(`server/connection.py`), through the scope's extensions.
"""

from __future__ import annotations

import asyncio
import socket
import struct
import time
from array import array
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from emulator.core.wire import Hangup, Pause, Pieces, Raw, Script
from emulator.journal import BODY_CAP, Delivered
from emulator.server import ENDED, TRANSPORT
from emulator.state import State

Scope = Mapping[str, Any]


async def deliver(
    script: Script, scope: Scope, receive: Any, send: Any, state: State, arrived: float, labels: tuple[str, str]
) -> None:
    """Play a script, then complete its journal entry with what went out (and, for a hang-up, who ended the
    connection first) and count it under `labels` (endpoint, profile); the streams being played are counted
    meanwhile. (A `Whole` needs no player: the app sends its two messages itself.) `arrived` is when the
    request came (`time.perf_counter`)."""
    sent = Sent(arrived)
    accounted = False

    async def account() -> None:
        """Complete the entry before the answer's last byte, so that a client that has its whole answer finds
        its entry complete (on another worker too: the write to Redis is awaited first)."""
        nonlocal accounted
        accounted = True
        await state.journal.done(script.entry, sent.delivered(script), *labels)

    state.meter.active_streams += 1
    cut: asyncio.CancelledError | None = None
    try:
        ended = await play(script, scope, receive, send, sent, account)
    except asyncio.CancelledError as cancelled:  # the server's shutdown cut it, past its grace: still accounted for
        ended, cut = "server", cancelled
    finally:
        state.meter.active_streams -= 1
    if not accounted:  # a hang-up, a client that left, a cut: what went out, once it has
        if script.entry is not None and ended:
            await state.journal.end(script.entry, ended)
        await state.journal.done(script.entry, sent.delivered(script), *labels)
    if cut is not None:
        raise cut


class Sent:
    """How far a script got, and when: `writes` made, the first of them `kept` (up to the journal's cap on a
    body, `BODY_CAP`: what it shows of the answer) and their `size`, and `times` (on `time.perf_counter`) from
    the write each time `marks`, the first and the first after each pause. Writes between pauses go out back to
    back: a time each would cost a stream more than its journal entry (bench/handler.py)."""

    def __init__(self, arrived: float) -> None:
        self.arrived = arrived
        self.writes = 0
        self.size = 0
        self.kept: list[bytes] = []
        self.marks: array[int] = array("Q")
        self.times: array[float] = array("d")

    def wrote(self, data: bytes) -> None:
        self.writes += 1
        self.size += len(data)
        if self.size <= BODY_CAP:
            self.kept.append(data)

    def mark(self, writes: int) -> None:
        """The writes from the `writes`th on begin now (a later pause with none between moves the mark)."""
        if self.marks and self.marks[-1] == writes:
            self.times[-1] = time.perf_counter()
        else:
            self.marks.append(writes)
            self.times.append(time.perf_counter())

    def delivered(self, script: Script) -> Delivered:
        """The script as it went out: its writes by reference, read back only if the journal is read."""
        writes, arrived = self.writes, self.arrived
        status = script.status if script.started else None
        ttft = self.times[0] - arrived if writes else None
        took = time.perf_counter() - arrived
        times, marks, headers = tuple(self.times), tuple(self.marks), tuple(script.headers)  # see `Delivered`
        return Delivered(status, headers, tuple(self.kept), writes, self.size, ttft, took, times, arrived, marks)


# Bytes a script writes before it lets the loop take a turn: its steps are made as it plays them, and a long
# answer to a client that reads as fast as it is written would otherwise be made whole, every other connection
# waiting (a 30 MB stream held the loop for a fifth of a second).
TURN_EVERY = 256 * 1024


async def play(
    script: Script,
    scope: Scope,
    receive: Any,
    send: Any,
    sent: Sent | None = None,
    ending: Callable[[], Awaitable[None]] | None = None,
) -> str | None:
    """Play `script`; who ended a hang-up first ("client": it gave up, or "server"), else None. How far it
    got goes into `sent`; `ending`, when given, is awaited just before the last write goes out (counted as
    sent): a client that stops reading at a stream's last event (`[DONE]`, `message_stop`) has all it wants from
    that write, before the body's end.

    Pauses are scheduled against the time the request was in (`sent.arrived`), so that neither a queue of
    requests ahead of it nor a slow loop adds up into a later first token or a slower stream, and they end
    early when the client goes away: a paced stream stops with its client. A step is made only once the one
    before it is written (a script's steps may be made as they are played), and a write waits while the client
    reads nothing (`send` drains)."""
    sent = sent or Sent(time.perf_counter())
    extensions = scope.get("extensions", {})
    transport = extensions.get(TRANSPORT)
    clock = Clock(receive, sent.arrived, transport, extensions)
    # A send to a client that left returns at once, without yielding: a stream cut into pieces (`slice`,
    # `drip`) looks for its client at every piece, or one that fell behind plays all its pieces to nobody.
    pieces = transport is not None and isinstance(script.steps, Pieces)
    try:
        if script.latency and await clock.pause(script.latency):
            return None
        if script.started:
            await send({"type": "http.response.start", "status": script.status, "headers": script.headers})
        sent.mark(0)
        steps = iter(script.steps)
        step = next(steps, None)
        turned = 0
        while step is not None:
            following = next(steps, None)
            if isinstance(step, Raw):
                sent.writes += 1
                if following is None and ending is not None:  # the entry says it went
                    await ending()
                    ending = None
                _transport(scope).write(step.data)
            elif isinstance(step, bytes):
                if pieces and transport.is_closing():
                    return None
                sent.wrote(step)  # counted as it goes out: the last, before the entry says it went
                if following is None and ending is not None:
                    await ending()
                    ending = None
                await send({"type": "http.response.body", "body": step, "more_body": True})
                if sent.size - turned >= TURN_EVERY:
                    turned = sent.size
                    await asyncio.sleep(0)
            elif isinstance(step, Pause):
                if await clock.pause(step.seconds):
                    return None
                sent.mark(sent.writes)
            else:
                return await _hang_up(scope, clock, step)
            step = following
        if ending is not None:
            await ending()
        await send({"type": "http.response.body", "body": b"", "more_body": False})
    except OSError:  # the client went away first
        pass
    finally:
        clock.stop()
    return None


class Clock:
    """A script's time: where its pauses are due (from `since`, when its request was in, else from now), and
    whether the client has gone (the ASGI `http.disconnect`, watched from the first pause on; a send to a
    client that left does nothing). A pause already overdue does not wait, so the loop has had no turn to say the
    client went: its socket, when given, says so at once.

    A client that half-closed (`ENDED` in the scope's extensions: it sends nothing more) may have left or may be
    reading: its pauses wait no more, so that what it is owed goes out now, and a write to one that left ends
    the stream; a stall waits for it no more than for a client that left."""

    LONG = 0.5  # seconds: a pause at least this long ends the moment the client goes; a shorter one at its end
    # A loop's timer may fire up to its clock's resolution early (uvloop's: a millisecond), and its clock is read
    # once an iteration: a pause that waits at all waits this much past its due time, so that none ends before
    # it (a 50 ms latency measured 49.9 ms). Pauses are due from the start, so the margin never adds up.
    MARGIN = 0.0015

    def __init__(self, receive: Any, since: float | None = None, transport: Any = None, extensions: Any = None) -> None:
        self.receive = receive
        self.transport = transport
        self.extensions = extensions if extensions is not None else {}  # `ENDED` in it: the client half-closed
        self.loop = asyncio.get_running_loop()
        # From `since` (`time.perf_counter`: when the request was in), on the loop's own clock.
        self.due = self.loop.time() - (time.perf_counter() - since if since is not None else 0.0)
        self.gone: asyncio.Future[bool] | None = None

    async def pause(self, seconds: float) -> bool:
        """Wait until `seconds` after the last pause was due; whether the client went away meanwhile."""
        self.due += seconds
        gone = self.watch()
        delay = 0.0 if gone.done() else self.due - self.loop.time()
        if delay >= self.LONG:
            await asyncio.wait((gone,), timeout=delay + self.MARGIN)
        elif delay > 0:
            await asyncio.sleep(delay + self.MARGIN)
        elif self.transport is not None and self.transport.is_closing():
            return True
        return gone.done() and gone.result()

    def watch(self) -> asyncio.Future[bool]:
        """Done when the client leaves (True) or half-closes (False)."""
        if self.gone is None:
            self.gone = asyncio.ensure_future(_until_gone(self.receive, self.extensions))
        return self.gone

    async def until_gone(self, timeout: float | None = None) -> bool:
        """Wait for the client to go or half-close (at most `timeout` seconds); whether it did."""
        gone = self.watch()
        await asyncio.wait((gone,), timeout=timeout)
        return gone.done()

    def stop(self) -> None:
        if self.gone is not None:
            self.gone.cancel()


def _transport(scope: Scope) -> Any:
    transport = scope.get("extensions", {}).get(TRANSPORT)
    if transport is None:
        raise RuntimeError("transport faults need the emulator's own server protocol (`emulator serve`)")
    return transport


async def hang_up(scope: Scope, receive: Any) -> None:
    """Close the client's connection now, mid-body or before any status line: as a peer that went away."""
    clock = Clock(receive, extensions=scope.get("extensions"))
    try:
        await _hang_up(scope, clock, Hangup())
    finally:
        clock.stop()


async def _hang_up(scope: Scope, clock: Clock, step: Hangup) -> str:
    """Stop, and say who ended the connection first: "client" (it gave up) or "server"."""
    transport = _transport(scope)
    if step.after is None:  # stall until the client gives up
        await clock.until_gone()
        return "client"
    if step.after and await clock.until_gone(step.after):
        return "client"
    while transport.get_write_buffer_size() and not transport.is_closing():  # what was written, arrives
        await asyncio.sleep(0.001)
    if step.reset:
        sock = transport.get_extra_info("socket")
        if sock is not None:  # SO_LINGER 0: close() sends RST, as WireMock's CONNECTION_RESET_BY_PEER does
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        transport.abort()
    else:
        transport.close()
    await clock.until_gone()
    return "server"


async def _until_gone(receive: Any, extensions: Any) -> bool:
    """Whether the client left (True, the ASGI `http.disconnect`) or half-closed (False: `ENDED` in its scope's
    extensions, and its `receive` woken with an empty message)."""
    while (await receive())["type"] != "http.disconnect":
        if ENDED in extensions:
            return False
    return True
