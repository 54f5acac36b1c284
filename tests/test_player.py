"""The player: paced streams keep their pace on a busy loop, and stop when their client goes."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from emulator.http.app import Settings, create_app
from emulator.http.player import Clock
from tests.conftest import Server, serve_app

pytestmark = pytest.mark.alone  # wall-clock measurements: run apart (conftest.py)


def test_pauses_are_due_from_the_start_so_a_slow_loop_does_not_add_up() -> None:
    """Each step does work between its pauses; the pauses are shortened by it, not added to it."""

    async def play() -> tuple[float, float]:
        async def receive() -> dict[str, Any]:
            await asyncio.sleep(3600)
            return {"type": "http.disconnect"}

        clock, worked = Clock(receive), 0.0
        started = time.perf_counter()
        for _ in range(20):
            began = time.perf_counter()
            time.sleep(0.002)  # the loop is busy with other streams
            worked += time.perf_counter() - began
            assert not await clock.pause(0.01)
        clock.stop()
        return time.perf_counter() - started, worked

    total, worked = asyncio.run(play())
    assert total >= 0.2
    assert total - 0.2 < worked / 2  # without scheduling from the start, the drift was all the work: `worked`


def test_pauses_are_due_from_when_the_request_was_in_not_from_when_its_turn_came() -> None:
    """A request that waited its turn behind others (a burst of paced streams) gets its first token when it is
    due from its arrival: the wait is taken out of its first pause, not added to it."""

    async def pause(waited: float) -> float:
        async def receive() -> dict[str, Any]:
            await asyncio.sleep(3600)
            return {"type": "http.disconnect"}

        clock = Clock(receive, since=time.perf_counter() - waited)
        started = time.perf_counter()
        assert not await clock.pause(1.0)
        clock.stop()
        return time.perf_counter() - started

    fresh, late = asyncio.run(pause(0.0)), asyncio.run(pause(0.8))
    assert fresh >= 0.95  # a request served at once waits its whole pause
    assert late < fresh - 0.5  # one that waited 0.8 s for its turn, only what is left of it (0.2 s)


class Calls:
    """An ASGI wrapper that notes when each call of the app it wraps returns."""

    def __init__(self, app: Any) -> None:
        self.app, self.ended = app, threading.Event()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        try:
            await self.app(scope, receive, send)
        finally:
            if scope["type"] == "http":
                self.ended.set()


@pytest.fixture
def calls() -> Iterator[tuple[Calls, Server]]:
    wrapped = Calls(create_app(Settings()))
    for server in serve_app(wrapped):
        yield wrapped, server


REQUEST = (
    b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
    b"authorization: Bearer sk-test\r\nx-emulator-timing: %s\r\ncontent-length: %d\r\n\r\n%s"
)
BODY = b'{"model": "m", "stream": true, "messages": [{"role": "user", "content": "Tell me a long story."}]}'


@pytest.mark.parametrize(
    "timing",
    [b"ttft_ms=600000", b"tokens_per_second=0.1", b"latency_ms=600000"],
    ids=["ten-minute first token", "ten seconds a token", "ten-minute latency"],
)
def test_a_paced_stream_stops_when_its_client_goes(calls: tuple[Calls, Server], timing: bytes) -> None:
    """It ran on for as long as its pacing said (16 minutes and more) after the client had gone."""
    app, server = calls
    with socket.create_connection((server.host, server.port), timeout=10) as sock:
        sock.sendall(REQUEST % (timing, len(BODY), BODY))
        if not timing.startswith(b"latency"):
            assert sock.recv(4096).startswith(b"HTTP/1.1 200")  # the stream has begun, then waits
        time.sleep(0.2)
        assert not app.ended.is_set()
    assert app.ended.wait(10), "the stream played on after its client had gone"
