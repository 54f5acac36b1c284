"""`/metrics` against the journal over two workers sharing Redis, with one worker's publication of its counts held
back on its way to Redis while the same worker answers again (issue 29: 665 of 666, never catching up).

Issue 29's race was a newer publication landing before an older one: redis-py's pool sent them on two connections.
Since issue 32 a worker writes its scripts on one connection, in the order they were taken, so the newer one waits
behind the held one: this test holds one and checks that nothing overtook it and that the counts agree. (A
publication is numbered too, `publish.lua`, and `test_shared_redis` lands two out of order by hand.)

A small proxy sits between the workers and Redis. It reads the commands each worker sends, so it knows which
command is a publication of the worker's counts; it holds nothing else. The hold is made, not waited for: the test
checks that it happened before it checks the counts.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import re
import signal
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.conftest import launch, read_until

EMULATOR = [sys.executable, "-m", "emulator"]
WAIT = 60.0  # seconds any one step may take on a loaded machine before the test gives up
HOLD = 1.0  # seconds the proxy holds the first publication


def commands(buffer: bytearray) -> Iterator[list[bytes]]:
    """The complete commands at the head of `buffer` (RESP arrays of bulk strings, as a client sends them),
    taken off it; an incomplete one stays."""
    while True:
        at = 0
        head = buffer.find(b"\r\n", at)
        if head < 0:
            return
        if buffer[:1] != b"*":
            raise ValueError(f"not a RESP command: {bytes(buffer[:40])!r}")
        count, at, parts = int(buffer[1:head]), head + 2, []
        for _ in range(count):
            line = buffer.find(b"\r\n", at)
            if line < 0:
                return
            size = int(buffer[at + 1 : line])
            if len(buffer) < line + 2 + size + 2:
                return
            parts.append(bytes(buffer[line + 2 : line + 2 + size]))
            at = line + 2 + size + 2
        del buffer[:at]
        yield parts


@dataclass
class Proxy:
    """Between the workers and Redis: once `hold(worker)` is called, the first publication of that worker's counts
    waits `HOLD` seconds, then goes on; the worker's connection is not read meanwhile, as a slow network holds it."""

    redis_port: int
    prefix: str  # of the server's keys
    port: int = 0
    worker: bytes = b""
    held: threading.Event = field(default_factory=threading.Event)  # the first publication is being held
    released: threading.Event = field(default_factory=threading.Event)  # and went on
    seen: list[str] = field(default_factory=list)  # what happened, in order

    def __post_init__(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._stop = asyncio.Event()  # made again in the proxy's own loop
        started = threading.Event()
        self._thread = threading.Thread(target=self._loop.run_until_complete, args=(self._main(started),))
        self._thread.start()
        assert started.wait(WAIT), "the proxy did not start"

    async def _main(self, started: threading.Event) -> None:
        self._stop = asyncio.Event()
        server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = server.sockets[0].getsockname()[1]
        started.set()
        await self._stop.wait()
        server.close()
        tasks = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def hold(self, worker: str) -> None:
        self.worker = worker.encode()

    def close(self) -> None:
        self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(WAIT)
        self._loop.close()

    def _publication(self, command: list[bytes]) -> bool:
        """Whether `command` publishes the held worker's counts (the numbered script, or a plain HSET)."""
        return bool(self.worker) and f"{self.prefix}:metrics".encode() in command and self.worker in command

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", self.redis_port)
        back = asyncio.create_task(self._answer(upstream_reader, writer))
        try:
            buffer = bytearray()
            while chunk := await reader.read(65536):
                buffer += chunk
                for command in commands(buffer):
                    await self._forward(command, upstream_writer)
        except ConnectionError:
            pass
        finally:
            upstream_writer.close()
            back.cancel()
            writer.close()

    async def _forward(self, command: list[bytes], upstream: asyncio.StreamWriter) -> None:
        if self._publication(command):
            if not self.held.is_set():
                self.held.set()
                self.seen.append("held the first publication")
                await asyncio.sleep(HOLD)
                self.seen.append("sent the held publication")
                self.released.set()
            else:
                self.seen.append("sent a later publication")
        upstream.write(b"".join([b"*%d\r\n" % len(command), *(b"$%d\r\n%s\r\n" % (len(p), p) for p in command)]))
        await upstream.drain()

    async def _answer(self, upstream: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while chunk := await upstream.read(65536):
            writer.write(chunk)
            await writer.drain()


@dataclass
class Pinned:
    """A keep-alive connection to the two-worker server, and the worker that took it."""

    conn: http.client.HTTPConnection
    worker: str


def chat(conn: http.client.HTTPConnection, test_id: str) -> None:
    body = json.dumps({"model": "m", "messages": [{"role": "user", "content": f"question {uuid.uuid4().hex}"}]})
    headers = {"content-type": "application/json", "authorization": "Bearer sk-race", "x-emulator-test-id": test_id}
    conn.request("POST", "/v1/chat/completions", body, headers)
    response = conn.getresponse()
    assert response.status == 200, response.read()
    response.read()


def get(conn: http.client.HTTPConnection, path: str) -> bytes:
    conn.request("GET", path)
    response = conn.getresponse()
    assert response.status == 200
    return response.read()


def answered(conn: http.client.HTTPConnection) -> float:
    """Chat completions answered 200 by the default, as `/metrics` counts them, read through `conn`'s worker."""
    text = get(conn, "/metrics").decode()
    labels = 'endpoint="chat_completions",profile="inferam",source="default",status="200"'
    found = re.search(r"emulator_requests_total\{" + labels + r"\} (\S+)", text)
    return float(found[1]) if found else 0.0


def journalled(conn: http.client.HTTPConnection) -> list[dict[str, object]]:
    """Every entry of the journal, all tests'."""
    return list(json.loads(get(conn, "/_emulator/requests?bodies=false"))["requests"])


@pytest.fixture
def proxied(redis_server: str, tmp_path: Path) -> Iterator[tuple[Proxy, int]]:
    """`emulator serve --workers 2` whose Redis is reached through a `Proxy`: the proxy and the server's port."""
    proxy = Proxy(int(redis_server.rsplit(":", 1)[1].split("/")[0]), f"metrics-race-{uuid.uuid4().hex[:8]}")
    # Long Redis timeouts and keep-alives: the held publication and the pinned connections wait on a loaded machine.
    state = f"redis://127.0.0.1:{proxy.port}/0?prefix={proxy.prefix}&socket_timeout={WAIT}"
    command = [*EMULATOR, "serve", "--port", "0", "--workers", "2", "--state", state, "--keep-alive", "600"]
    process, port = launch([*command, "--no-access-log"], cwd=tmp_path)
    try:
        read_until(process, "workers: 2, sharing state in redis://127.0.0.1:")
        yield proxy, port
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.communicate(timeout=WAIT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
        proxy.close()


@contextlib.contextmanager
def pinned(port: int) -> Iterator[tuple[list[Pinned], list[Pinned]]]:
    """Keep-alive connections, opened until one worker holds two and the other one: all, by worker (the one
    with more first); closed after."""
    by_worker: dict[str, list[Pinned]] = {}
    try:
        for i in range(100):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=WAIT)
            test_id = f"pin-{i}"
            chat(conn, test_id)
            worker = str(next(e for e in journalled(conn) if e["test_id"] == test_id)["worker"])
            by_worker.setdefault(worker, []).append(Pinned(conn, worker))
            ordered = sorted(by_worker.values(), key=len, reverse=True)
            if len(ordered) == 2 and len(ordered[0]) >= 2:
                yield ordered[0], ordered[1]
                return
        pytest.fail(f"100 connections, not two on one worker and one on the other: {list(by_worker)}")
    finally:
        for held in by_worker.values():
            for pin in held:
                pin.conn.close()


def test_metrics_match_the_journal_when_a_workers_publication_is_held_on_its_way(
    proxied: tuple[Proxy, int],
) -> None:
    """Two answers of one worker, the first one's publication of its counts held on its way to Redis: the second
    one's commands wait behind it (one connection, in order), so its answer comes after the held publication went
    on, and its own publication lands after it. `/metrics`, read through the other worker, counts what the journal
    holds."""
    proxy, port = proxied
    with pinned(port) as ((first, second, *_), (other, *_)), ThreadPoolExecutor(1) as pool:
        proxy.hold(first.worker)
        racing = pool.submit(chat, first.conn, "race")
        assert proxy.held.wait(WAIT), "the first answer's publication never reached the proxy"
        chat(second.conn, "race")
        assert proxy.released.is_set(), "the second answer overtook the held publication"
        racing.result(WAIT)
        assert proxy.seen == ["held the first publication", "sent the held publication", "sent a later publication"]
        entries = [e for e in journalled(other.conn) if e["status"] == 200 and e["duration_ms"] is not None]
        assert sum(e["test_id"] == "race" for e in entries) == 2
        assert answered(other.conn) == len(entries)
